"""The manifest of a results folder: what ran, on what, with which seeds, when.

``manifest.json`` records the command line, the versions of the packages that produce the numbers,
the git commit of the code (if it is a git checkout), the seeds, the machine (platform, CPU count)
and the start and end times, so that a results folder can be reproduced and audited.
"""

import datetime
import importlib.metadata
import os
import pathlib
import platform
import subprocess
import sys
from typing import Any, Dict, Optional, Sequence

from algorithms import atomic_file

MANIFEST_NAME = "manifest.json"
_PACKAGES = ("open_spiel", "numpy", "scipy", "pandas", "matplotlib", "tqdm", "dask",
             "distributed")
_REPO = pathlib.Path(__file__).resolve().parent.parent


def now() -> str:
  """The current local time, ISO 8601 with the UTC offset."""
  return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def package_versions() -> Dict[str, Optional[str]]:
  """Installed versions of the packages the results depend on (None if not installed)."""
  versions = {"python": platform.python_version()}
  for name in _PACKAGES:
    try:
      versions[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
      versions[name] = None
  return versions


def git_commit() -> Optional[Dict[str, Any]]:
  """The commit of the code and whether the working tree has changes, or None outside git."""
  try:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=_REPO, capture_output=True,
                            text=True, check=True, timeout=10).stdout.strip()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=_REPO,
                            capture_output=True, text=True, check=True, timeout=10).stdout
  except (OSError, subprocess.SubprocessError):
    return None
  return {"commit": commit, "dirty": bool(status.strip())}


def machine() -> Dict[str, Any]:
  return {"platform": platform.platform(), "machine": platform.machine(),
          "processor": platform.processor(), "cpu_count": os.cpu_count(),
          "node": platform.node()}


def build_manifest(argv: Sequence[str], seeds: Dict[str, Any], start: str,
                   end: Optional[str] = None, **extra: Any) -> Dict[str, Any]:
  """The manifest as a dict.

  Args:
    argv: the command-line arguments after the program name.
    seeds: the seeds that determine the results (e.g. {"seed": 0}).
    start: start time (``now()``).
    end: end time, None while running.
    **extra: further fields, e.g. the experiments run and their status.
  """
  return {"command": ["python -m experiments", *argv], "python_executable": sys.executable,
          "packages": package_versions(), "git": git_commit(), "machine": machine(),
          "seeds": seeds, "start": start, "end": end, **extra}


def write_manifest(folder: pathlib.Path, manifest: Dict[str, Any]) -> pathlib.Path:
  """Writes ``manifest`` to ``folder/manifest.json`` atomically and returns the path."""
  path = pathlib.Path(folder) / MANIFEST_NAME
  atomic_file.atomic_write_json(path, manifest)
  return path
