"""Checkpoint files: numpy arrays plus a JSON header in one ``.npz``, written atomically.

Layout: an uncompressed ``np.savez`` archive with an entry ``header`` (a 0-d unicode array
holding JSON) and one entry per array. The header carries ``format`` ("kuhn-cfr-checkpoint"),
``version``, the caller's fields (game string, solver class and options, iteration, ...) and
``sha256``, a digest of the arrays' names, dtypes, shapes and bytes. Nothing is pickled; reading
uses ``allow_pickle=False``. Any file that is truncated, corrupt, of another format or version, or
whose digest does not match gives a one-line ``ValueError`` naming the file.
"""

import hashlib
import json
from typing import Dict, Tuple
import zipfile

import numpy as np

from spiel_games.atomic_file import atomic_write

FORMAT = "kuhn-cfr-checkpoint"
# Version 2: the solvers' files hold regrets and numerators only (the current policy is regret
# matching of the regrets) and CFR-AVG's the last leaf continuations; version 1 files also held
# the current policy ("sigma") and are refused.
VERSION = 2


def digest(arrays: Dict[str, np.ndarray]) -> str:
  """The ``sha256`` field of a checkpoint holding ``arrays``: a hex digest of their names, dtypes,
  shapes and bytes (independent of the header and of the zip container)."""
  h = hashlib.sha256()
  for name in sorted(arrays):
    a = np.ascontiguousarray(arrays[name])
    h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
    h.update(a.tobytes())
  return h.hexdigest()


def write_checkpoint(path: str, header: dict, arrays: Dict[str, np.ndarray]) -> None:
  """Writes ``arrays`` and ``header`` (JSON-serialisable) to ``path`` atomically."""
  if "header" in arrays:
    raise ValueError("'header' is reserved and cannot be an array name")
  full = dict(header, format=FORMAT, version=VERSION, sha256=digest(arrays))
  text = json.dumps(full, sort_keys=True)

  def savez(tmp):
    with open(tmp, "wb") as f:  # A file object: given a path, np.savez would append ".npz".
      np.savez(f, header=np.array(text), **arrays)

  atomic_write(path, savez)


def check_format(path: str, header, format_name: str, version: int) -> None:
  """Raises a one-line ValueError unless ``header`` is a dict of ``format_name`` ``version``.

  Shared by the project's file formats (checkpoints here, policy files in ``policy_io``).
  """
  if not isinstance(header, dict) or header.get("format") != format_name:
    raise ValueError(f"{path}: not a {format_name} file")
  if header.get("version") != version:
    raise ValueError(f"{path}: {format_name} version {header.get('version')} is not supported "
                     f"(supported: {version})")


def read_checkpoint(path: str) -> Tuple[dict, Dict[str, np.ndarray]]:
  """Reads a checkpoint; returns (header, arrays) or raises a one-line ValueError."""
  try:
    with np.load(path, allow_pickle=False) as data:
      contents = {name: data[name] for name in data.files}
  except FileNotFoundError:
    raise ValueError(f"{path}: no such checkpoint file") from None
  except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as e:
    raise ValueError(f"{path}: not a readable checkpoint ({type(e).__name__}: "
                     f"{str(e).splitlines()[0] if str(e) else ''})") from None
  if "header" not in contents or contents["header"].dtype.kind != "U":
    raise ValueError(f"{path}: not a {FORMAT} file (no JSON header)")
  try:
    header = json.loads(str(contents.pop("header")))
  except json.JSONDecodeError:
    raise ValueError(f"{path}: not a {FORMAT} file (header is not JSON)") from None
  check_format(path, header, FORMAT, VERSION)
  if header.get("sha256") != digest(contents):
    raise ValueError(f"{path}: checkpoint arrays do not match their recorded digest (corrupt)")
  return header, contents
