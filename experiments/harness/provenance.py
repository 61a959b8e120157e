"""Which code computed a result: a fingerprint of the source, the git commit, the packages.

``code_stamp()`` describes the code running now:

* ``fingerprint``: SHA-256 (first 16 hex digits) of every source and data file of the packages
  that compute the numbers (``spiel_games``, ``algorithms``, ``experiments``; their ``*.py`` and
  ``*.json`` files, by relative path and content) and of the versions of Python and of the
  packages the numbers depend on (``FINGERPRINT_PACKAGES``). Two runs with the same fingerprint
  ran the same code; a job's identity includes it, so changed code reruns and unchanged code
  resumes.
* ``commit``: the git commit of the source checkout the packages were imported from, and whether
  its tracked files had local changes; None when the packages are not imported from a git
  checkout (e.g. a non-editable install), so that no commit is claimed for code it did not hold.

The manifest of a results folder (``build_manifest``) adds the command, all package versions, the
machine and the times.
"""

import datetime
import functools
import hashlib
import importlib.metadata
import os
import pathlib
import platform
import subprocess
import sys
from typing import Any, Dict, Optional, Sequence

from spiel_games import atomic_file

MANIFEST_NAME = "manifest.json"
# The packages whose versions enter the fingerprint: they compute or draw the numbers.
FINGERPRINT_PACKAGES = ("open_spiel", "numpy", "scipy", "pandas", "matplotlib", "torch")
# Recorded in the manifest only (they schedule or display, they do not compute).
OTHER_PACKAGES = ("tqdm", "dask", "distributed")
SOURCE_PACKAGES = ("spiel_games", "algorithms", "experiments")
_SOURCE_SUFFIXES = (".py", ".json")
# The folder holding the packages (site-packages in an install, the checkout in a clone).
_PACKAGE_ROOT = pathlib.Path(__file__).resolve().parents[2]  # experiments/harness/ -> the checkout.


def now() -> str:
  """The current local time, ISO 8601 with the UTC offset."""
  return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def package_versions(names: Sequence[str] = FINGERPRINT_PACKAGES + OTHER_PACKAGES
                     ) -> Dict[str, Optional[str]]:
  """Installed versions of ``names`` and of Python (None if a package is not installed)."""
  versions = {"python": platform.python_version()}
  for name in names:
    try:
      versions[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
      versions[name] = None
  return versions


def source_files(root: pathlib.Path = _PACKAGE_ROOT) -> Dict[str, pathlib.Path]:
  """The fingerprinted files by path relative to ``root``, sorted."""
  found = {}
  for package in SOURCE_PACKAGES:
    for path in (root / package).rglob("*"):
      if path.suffix in _SOURCE_SUFFIXES and "__pycache__" not in path.parts and path.is_file():
        found[path.relative_to(root).as_posix()] = path
  return dict(sorted(found.items()))


def fingerprint(root: pathlib.Path = _PACKAGE_ROOT,
                versions: Optional[Dict[str, Optional[str]]] = None) -> str:
  """The code fingerprint (module docstring) of the packages under ``root``."""
  digest = hashlib.sha256()
  for name, path in source_files(root).items():
    content = path.read_bytes()
    digest.update(f"{name}\0{len(content)}\0".encode())
    digest.update(content)
  for name, version in sorted((versions or package_versions(FINGERPRINT_PACKAGES)).items()):
    digest.update(f"{name}={version}\0".encode())
  return digest.hexdigest()[:16]


def source_checkout(root: pathlib.Path = _PACKAGE_ROOT) -> Optional[pathlib.Path]:
  """``root`` if the packages were imported from a source checkout (it has ``pyproject.toml``),
  else None (an installed copy)."""
  return root if (root / "pyproject.toml").is_file() else None


def git_commit(root: pathlib.Path = _PACKAGE_ROOT) -> Optional[Dict[str, Any]]:
  """The commit of the checkout at ``root`` and whether its tracked files changed; None unless
  ``root`` is a source checkout at the top of a git work tree."""
  if source_checkout(root) is None:
    return None
  try:
    def git(*args):
      return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                            check=True, timeout=10).stdout.strip()
    top = git("rev-parse", "--show-toplevel")
    if pathlib.Path(top).resolve() != root.resolve():
      return None
    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no", "--", *SOURCE_PACKAGES)
  except (OSError, subprocess.SubprocessError):
    return None
  return {"commit": commit, "dirty": bool(status)}


@functools.lru_cache(maxsize=1)
def code_stamp() -> Dict[str, Any]:
  """``{"fingerprint", "commit" (or None), "dirty"}`` of the code running in this process."""
  git = git_commit()
  return {"fingerprint": fingerprint(), "commit": git["commit"] if git else None,
          "dirty": bool(git and git["dirty"])}


def describe_code(stamp: Dict[str, Any]) -> str:
  """A short text: "commit abc123def456 (with local changes), code fingerprint f00..."."""
  if stamp.get("commit"):
    commit = f"commit {stamp['commit'][:12]}" + (" (with local changes)" if stamp.get("dirty")
                                                 else "")
  else:
    commit = "code outside a git checkout (no commit)"
  return f"{commit}, code fingerprint {stamp['fingerprint']}"


def machine() -> Dict[str, Any]:
  """The platform, CPU count and host name."""
  return {"platform": platform.platform(), "machine": platform.machine(),
          "processor": platform.processor(), "cpu_count": os.cpu_count(),
          "node": platform.node()}


def build_manifest(argv: Sequence[str], prog: str, seeds: Dict[str, Any], start: str,
                   end: Optional[str] = None, **extra: Any) -> Dict[str, Any]:
  """The manifest of an invocation as a dict.

  Args:
    argv: the command-line arguments after the program name.
    prog: the program name, e.g. "python -m experiments".
    seeds: the seeds that determine the results (e.g. {"seed": 0}).
    start: start time (``now()``).
    end: end time, None while running.
    **extra: further fields, e.g. the experiments and the code that computed each.
  """
  return {"command": [prog, *argv], "python_executable": sys.executable,
          "packages": package_versions(), "invoked_with_code": code_stamp(),
          "machine": machine(), "seeds": seeds, "start": start, "end": end, **extra}


def write_manifest(folder: pathlib.Path, manifest: Dict[str, Any]) -> pathlib.Path:
  """Writes ``manifest`` to ``folder/manifest.json`` atomically and returns the path."""
  path = pathlib.Path(folder) / MANIFEST_NAME
  atomic_file.atomic_write_json(path, manifest)
  return path
