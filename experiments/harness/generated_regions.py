"""Generated regions of the project's markdown files: the text between the lines

  <!-- generated: NAME -->  and  <!-- end generated: NAME -->

is a program's output (``experiments.scripts.docs``, whose ``GENERATORS[NAME]`` writes it), not
typed by hand. This module reads the markers; what writes the bodies is the docs script's.
"""

import pathlib
import re
from typing import Collection, List, Optional, Tuple

BEGIN = "<!-- generated: {} -->"
END = "<!-- end generated: {} -->"
MARKER = re.compile(r"<!-- (end )?generated: ([a-z0-9-]+) -->")


def markdown_files(root: pathlib.Path) -> List[pathlib.Path]:
  """The markdown files that may hold generated regions: ``README.md`` and ``docs/*.md``."""
  return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def regions(text: str, known: Optional[Collection[str]] = None,
            where: str = "text") -> List[Tuple[str, int, int]]:
  """The generated regions of ``text`` as (name, start, end): ``text[start:end]`` is the body
  between the two marker lines.

  Args:
    text: a markdown file's text.
    known: the region names allowed (the docs script's generators); None allows any name.
    where: the file's name, for the errors.

  Raises:
    ValueError: for a marker of a name not in ``known``, an end without a begin, a begin without
      its end, nested regions, or a marker that is not alone on its line.
  """
  found, open_region = [], None
  for match in MARKER.finditer(text):
    is_end, name = match.group(1) is not None, match.group(2)
    line_start = text.rfind("\n", 0, match.start()) + 1
    line_end = text.find("\n", match.end())
    line = text[line_start:len(text) if line_end < 0 else line_end]
    if line != match.group(0):
      raise ValueError(f"{where}: marker {match.group(0)!r} must be alone on its line")
    if known is not None and name not in known:
      raise ValueError(f"{where}: unknown generated region {name!r}; known: "
                       + ", ".join(known))
    if not is_end:
      if open_region is not None:
        raise ValueError(f"{where}: region {name!r} begins inside region {open_region[0]!r}")
      open_region = (name, len(text) if line_end < 0 else line_end + 1)
    elif open_region is None or open_region[0] != name:
      raise ValueError(f"{where}: end of region {name!r} without its begin")
    else:
      found.append((name, open_region[1], line_start))
      open_region = None
  if open_region is not None:
    raise ValueError(f"{where}: region {open_region[0]!r} has no end marker")
  return found
