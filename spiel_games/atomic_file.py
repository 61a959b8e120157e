"""Atomic file writes: readers see the old file or the whole new one, never a partial file.

The one implementation used by every writer in the project (checkpoints, policy files,
playthrough golden files, experiment results, tables and figures). The content goes to a
temporary file in the target's folder, is flushed to disk with ``fsync``, made readable by
everyone (mode 0644; ``tempfile.mkstemp`` creates files private to their owner), and renamed
over the target with ``os.replace``, which is atomic on POSIX when both names are on one file
system (POSIX.1-2017, ``rename()``). On any error the temporary file is removed and the target
is left as it was.
"""

import json
import os
import pathlib
import tempfile
from typing import Any, Callable, Union

PathLike = Union[str, os.PathLike]


def atomic_write(path: PathLike, write: Callable[[pathlib.Path], None]) -> None:
  """Creates or replaces ``path`` atomically.

  Args:
    path: the file to write; its folder must exist.
    write: writes the whole content to the (temporary) path it is given, e.g.
      ``lambda tmp: frame.to_csv(tmp, index=False)``.
  """
  path = pathlib.Path(path)
  fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
  os.close(fd)
  tmp = pathlib.Path(name)
  try:
    write(tmp)
    with open(tmp, "rb") as f:
      os.fsync(f.fileno())
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
  except BaseException:
    tmp.unlink(missing_ok=True)
    raise


def atomic_write_text(path: PathLike, text: str) -> None:
  """Writes ``text`` (UTF-8) to ``path`` atomically."""
  atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def atomic_write_json(path: PathLike, data: Any) -> None:
  """Writes ``data`` as indented JSON with sorted keys to ``path`` atomically."""
  atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
