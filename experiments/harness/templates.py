"""Text templates: a command's captions, paragraphs and long labels, kept in a markdown file beside
its code (``captions.md`` in a command package, ``NAME.md`` beside a single-module command
``NAME.py``) rather than in Python strings.

The file is markdown a reader can open as it is. A line ``## key`` starts the template ``key``; its
text is the lines below it up to the next ``## `` line. The lines of one paragraph are joined by
single spaces (so the file wraps its lines anywhere between words), paragraphs by one blank line;
text before the first ``## `` (the file's title, a note on what it holds) belongs to no template.
``{name}`` and ``{name:spec}`` are placeholders, filled by ``str.format`` from the values the
command passes (``Templates.fill``); ``{{`` and ``}}`` are literal braces. A missing template, a
placeholder without a value or a value without a placeholder is a one-line ``ValueError``.
"""

import importlib.resources
import re
import string
from typing import Dict, Iterator, Tuple

CAPTIONS_FILE = "captions.md"
_SECTION = re.compile(r"## (\w+)")


def _paragraphs(lines) -> str:
  """``lines`` as text: a paragraph's lines joined by spaces, paragraphs by a blank line."""
  paragraphs, current = [], []
  for line in lines + [""]:
    if line.strip():
      current.append(line.strip())
    elif current:
      paragraphs.append(" ".join(current))
      current = []
  return "\n\n".join(paragraphs)


def _placeholders(source: str, key: str, text: str) -> Tuple[str, ...]:
  """The names of ``text``'s placeholders, each a plain name with an optional format spec."""
  try:
    fields = [(name, spec, conversion) for _, name, spec, conversion
              in string.Formatter().parse(text) if name is not None]
  except ValueError as e:
    raise ValueError(
        f"{source}: template '{key}': {e} (a literal brace is written {{{{ or }}}})") from None
  for name, spec, conversion in fields:
    if not name.isidentifier() or conversion is not None or "{" in spec:
      raise ValueError(f"{source}: template '{key}': placeholder {{{name}}} is not a plain name "
                       "(allowed: {name} or {name:format spec})")
  return tuple(dict.fromkeys(name for name, _, _ in fields))


class Templates:
  """The templates of one markdown file, by key; ``templates[key]`` is a template without
  placeholders, ``fill(key, **values)`` one with them."""

  def __init__(self, source: str, markdown: str):
    """``source`` names the file in error messages; ``markdown`` is its text (module docstring)."""
    self.source = source
    sections: Dict[str, list] = {}
    current = None
    for line in markdown.splitlines():
      if line.startswith("## "):
        match = _SECTION.fullmatch(line.rstrip())
        if not match:
          raise ValueError(f"{source}: '{line}' is not a template heading (allowed: '## key', "
                           "key letters, digits and underscores)")
        current = match.group(1)
        if current in sections:
          raise ValueError(f"{source}: template '{current}' appears twice")
        sections[current] = []
      elif current is not None:
        sections[current].append(line)
    self._texts = {key: _paragraphs(lines) for key, lines in sections.items()}
    self._names = {key: _placeholders(source, key, text) for key, text in self._texts.items()}

  def placeholders(self, key: str) -> Tuple[str, ...]:
    """The names template ``key`` needs values for, in order of first appearance."""
    self._check_key(key)
    return self._names[key]

  def fill(self, key: str, **values) -> str:
    """Template ``key`` with its placeholders replaced by ``values`` (exactly its names).

    Raises:
      ValueError: no template ``key``, a placeholder without a value, or a value without a
        placeholder.
    """
    needed = set(self.placeholders(key))
    if set(values) != needed:
      missing, extra = sorted(needed - set(values)), sorted(set(values) - needed)
      problems = ([f"needs a value for {', '.join(missing)}"] if missing else []) + (
          [f"has no placeholder {', '.join(extra)}"] if extra else [])
      raise ValueError(f"{self.source}: template '{key}' {' and '.join(problems)} (its "
                       f"placeholders: {', '.join(self._names[key]) or 'none'})")
    return self._texts[key].format(**values)

  def __getitem__(self, key: str) -> str:
    return self.fill(key)

  def __contains__(self, key: str) -> bool:
    return key in self._texts

  def __iter__(self) -> Iterator[str]:
    """The keys, in the file's order."""
    return iter(self._texts)

  def _check_key(self, key: str) -> None:
    if key not in self._texts:
      raise ValueError(f"{self.source}: no template '{key}' (it has: {', '.join(self._texts)})")


def load(package: str, name: str = CAPTIONS_FILE) -> Templates:
  """The templates of the markdown file ``name`` in ``package`` (e.g. a command's ``__package__``),
  read from the installed package.

  Raises:
    ValueError: the package has no such file, or the file does not fit (``Templates``).
  """
  source = f"{package.replace('.', '/')}/{name}"
  try:
    markdown = importlib.resources.files(package).joinpath(name).read_text("utf-8")
  except FileNotFoundError:
    raise ValueError(f"{source}: not found (installed with the package when pyproject.toml's "
                     "package-data names it)") from None
  return Templates(source, markdown)
