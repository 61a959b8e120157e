"""Every Python code block of README.md and docs/*.md runs as written, on its own.

A block is a fenced ```` ```python ```` block; each runs in a fresh interpreter with the
repository importable (as a reader pastes it into ``python`` in the clone), in an empty folder of
its own, so a block that uses a name it does not define or import fails here. A block that is
deliberately not runnable (an excerpt, a template with placeholders) says so on the line right
before its fence, with the reason: ``<!-- snippet: not run (reason) -->``.
"""

import os
import pathlib
import re
import subprocess
import sys
import textwrap
from typing import List, NamedTuple

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"<!-- snippet: not run \(.+\) -->")
# The longest a block may take (seconds): the docs' blocks solve small games.
TIMEOUT = 600


class Snippet(NamedTuple):
  path: pathlib.Path
  line: int  # Of the opening fence, 1-based.
  code: str
  runnable: bool

  @property
  def name(self) -> str:
    return f"{self.path.relative_to(ROOT)}:{self.line}"


def snippets(path: pathlib.Path) -> List[Snippet]:
  """The Python blocks of ``path``, each with whether it is marked as not run."""
  lines = path.read_text(encoding="utf-8").splitlines()
  found, i = [], 0
  while i < len(lines):
    if lines[i].strip() == "```python":
      end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
      before = lines[i - 1].strip() if i else ""
      code = textwrap.dedent("\n".join(lines[i + 1:end]) + "\n")  # A block inside a list item.
      found.append(Snippet(path, i + 1, code, not NOT_RUN.fullmatch(before)))
      i = end
    i += 1
  return found


ALL = [s for path in FILES for s in snippets(path)]


def test_blocks_are_found_and_a_marker_is_understood(tmp_path):
  assert any(s.path.name == "README.md" for s in ALL)
  page = tmp_path / "page.md"
  page.write_text("text\n```python\nprint(1)\n```\n<!-- snippet: not run (a template) -->\n"
                  "```python\nundefined_name\n```\n")
  assert [(s.line, s.runnable, s.code) for s in snippets(page)] == [
      (2, True, "print(1)\n"), (6, False, "undefined_name\n")]


@pytest.mark.slow
@pytest.mark.parametrize("snippet", [s for s in ALL if s.runnable], ids=lambda s: s.name)
def test_every_python_block_runs_as_written(snippet, tmp_path):
  env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
  # In a folder of its own: whatever a block writes stays there (safe under pytest-xdist).
  done = subprocess.run([sys.executable, "-c", snippet.code], cwd=tmp_path, env=env,
                        capture_output=True, text=True, timeout=TIMEOUT, check=False,
                        stdin=subprocess.DEVNULL)
  assert done.returncode == 0, f"{snippet.name} failed:\n{done.stderr[-3000:]}"
