"""One run at a time in a results folder: a lock file naming the run that holds it.

Two runs writing into one folder would replace each other's job files and sections mid-write.
``hold(folder)`` takes ``folder/LOCK_NAME`` for the block: a POSIX record lock (``fcntl.lockf``)
on the file, which the kernel releases when the process ends however it ends (a killed run holds
nothing), and which the worker processes a run forks do not inherit. The file holds the holder's
process id, start time and command, for the message a second run gets (``FolderInUse``); a file
left by a killed run is unlocked, so the next run takes it over, and says whose it was. (A POSIX
lock is released when its process closes any descriptor of the file: the holder never opens the
file a second time.)

The lock file is never a symbolic link: it is opened with ``O_NOFOLLOW``, so a link planted at
its path (which would make the run overwrite the file it points to) is refused in one line
(``FolderInUse``), and nothing is written through it.

The holder removes the file when it is done, while still holding the lock; a run that was
waiting on the removed file finds, once it has the lock, that the path names another file (or
none) and tries again on the path.
"""

import contextlib
import dataclasses
import datetime
import fcntl
import os
import pathlib
import sys
from typing import Callable, Iterator, Optional

LOCK_NAME = ".kuhn-experiments.lock"


class FolderInUse(ValueError):
  """Another live run holds the folder (one line naming it)."""


@dataclasses.dataclass(frozen=True)
class Holder:
  """Who holds, or held, a lock: process id, start time (ISO 8601) and command line."""

  pid: int
  started: str
  command: str

  def text(self) -> str:
    return f"process {self.pid}, started {self.started}: {self.command}"

  @classmethod
  def parse(cls, text: str) -> Optional["Holder"]:
    """The holder written in a lock file, or None if it is empty or not one."""
    pid, _, rest = text.partition("\n")
    started, _, command = rest.partition("\n")
    if not pid.strip().isdigit():
      return None
    return cls(int(pid), started.strip(), command.strip())


def _read(fd: int) -> str:
  os.lseek(fd, 0, os.SEEK_SET)
  return os.read(fd, 4096).decode("utf-8", "replace")


@contextlib.contextmanager
def hold(folder: pathlib.Path, command: str = "",
         taken_over: Optional[Callable[[Holder], None]] = None) -> Iterator[Holder]:
  """Holds the lock of ``folder`` (which must exist) for the block.

  Args:
    folder: the results folder.
    command: the command line to name in a second run's message.
    taken_over: called with the ``Holder`` of a lock left by a run that no longer runs, before
      it is replaced.

  Yields:
    This run's ``Holder``.

  Raises:
    FolderInUse: one line naming the live run that holds the folder.
  """
  path = pathlib.Path(folder) / LOCK_NAME
  while True:
    try:
      fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    except OSError as e:
      if not path.is_symlink():
        raise
      raise FolderInUse(f"{path} is a symbolic link; a run writes its lock there and does not "
                        "follow links: remove it or choose another --out") from e
    try:
      fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
      other = Holder.parse(_read(fd))
      os.close(fd)
      who = other.text() if other else "another run"
      raise FolderInUse(f"{folder} is in use by another run ({who}); wait for it to finish or "
                        "choose another --out") from None
    try:
      same = os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
      same = False
    if same:
      break
    os.close(fd)  # The holder removed this file as we waited: lock the one at the path now.
  try:
    left = Holder.parse(_read(fd))
    if left is not None and taken_over is not None:
      taken_over(left)
    me = Holder(os.getpid(), datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
                command or " ".join(sys.argv))
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, f"{me.pid}\n{me.started}\n{me.command}\n".encode())
    yield me
  finally:
    with contextlib.suppress(OSError):
      if os.fstat(fd).st_ino == os.lstat(path).st_ino:  # Still this run's file.
        path.unlink()
    os.close(fd)  # Releases the lock.
