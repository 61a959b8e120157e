"""How a run stops before its end, always the same way: Ctrl-C, SIGTERM, SIGHUP and the
``--max-minutes`` deadline; and a closed standard output, which stops the printing, not the run.

Each way raises a ``KeyboardInterrupt`` in the main process (SIGINT is Python's own; ``handled``
turns SIGTERM and SIGHUP into ``Terminated`` and arms SIGALRM at the deadline, raising
``DeadlinePassed``), so everything that keeps finished work on Ctrl-C keeps it on each: a sweep
saves each result as it arrives and stops its workers, the CLI records the experiment as stopped,
renders the report from what finished and prints one line (``reason``). The deadline is also
checked between jobs (``context.Context``) and between experiments (the CLI), so that work
stops at a boundary where it can; the alarm stops what has no boundary of its own (one long
in-process step) once the deadline has passed.

A closed standard output (``... | head -1``) would make the next ``print`` raise
``BrokenPipeError``: ``closed_pipes_ignored`` wraps stdout and stderr so that a write to a closed
pipe sends that stream to ``os.devnull`` from then on (``silence``) and the run goes on.
"""

import contextlib
import errno
import os
import signal
import sys
import threading
from typing import Iterator, Optional, TextIO

from experiments.harness import deadline as deadline_lib
from experiments.harness.deadline import Deadline
from experiments.harness.script_runner import EXIT_INTERRUPTED


class Terminated(KeyboardInterrupt):
  """SIGTERM or SIGHUP reached the run: stopped as by Ctrl-C."""

  def __init__(self, signum: int):
    super().__init__(signal.Signals(signum).name)
    self.signum = signum


class DeadlinePassed(KeyboardInterrupt):
  """The ``--max-minutes`` deadline passed: the run stops as by Ctrl-C."""

  def __init__(self, minutes: float):
    super().__init__(f"the --max-minutes {minutes:g} deadline")
    self.minutes = minutes


def reason(stop: BaseException) -> str:
  """What stopped a run, for its one line and the report: "interrupted", "terminated by
  SIGTERM", "stopped at the --max-minutes 1 deadline"."""
  if isinstance(stop, Terminated):
    return f"terminated by {signal.Signals(stop.signum).name}"
  if isinstance(stop, DeadlinePassed):
    return f"stopped at the --max-minutes {stop.minutes:g} deadline"
  return "interrupted"


def exit_status(stop: BaseException) -> int:
  """The exit status after ``stop``: 128 + the signal's number (130 after Ctrl-C, 143 after
  SIGTERM, 129 after SIGHUP); 1 after the deadline (work was left undone)."""
  if isinstance(stop, Terminated):
    return 128 + stop.signum
  if isinstance(stop, DeadlinePassed):
    return 1
  return EXIT_INTERRUPTED


@contextlib.contextmanager
def handled(deadline: Deadline = deadline_lib.NEVER,
            minutes: Optional[float] = None) -> Iterator[None]:
  """For the block: SIGTERM and SIGHUP raise ``Terminated``, and once ``deadline`` has passed
  SIGALRM raises ``DeadlinePassed`` (``minutes``: the limit it names); the previous handlers
  and no alarm afterwards. Outside the main thread (where Python runs no signal handler) it
  changes nothing."""
  if threading.current_thread() is not threading.main_thread():
    yield
    return

  def terminate(signum, frame):
    del frame
    raise Terminated(signum)

  def alarm(signum, frame):
    del signum, frame
    raise DeadlinePassed(minutes if minutes is not None else deadline.remaining() / 60)

  previous = {s: signal.signal(s, terminate) for s in (signal.SIGTERM, signal.SIGHUP)}
  previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, alarm)
  if deadline.end != float("inf"):
    signal.setitimer(signal.ITIMER_REAL, max(deadline.remaining(), 1e-3))
  try:
    yield
  finally:
    signal.setitimer(signal.ITIMER_REAL, 0)
    for signum, handler in previous.items():
      signal.signal(signum, handler)


# The signals that stop a run (``handled``), held while a process forks (``held``).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM)


@contextlib.contextmanager
def held() -> Iterator[None]:
  """For the block (a fork), the stop signals wait: a handler that raised inside the fork's
  own callbacks (``os.register_at_fork``, e.g. logging's) would be printed as "Exception
  ignored" and lost. They are delivered when the block ends; a child forked in the block starts
  with them blocked and unblocks them (``default_signals``, ``unblocked``)."""
  if threading.current_thread() is not threading.main_thread():
    yield
    return
  signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
  try:
    yield
  finally:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def unblocked() -> None:
  """In a child forked under ``held``: the stop signals delivered again."""
  signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def default_signals() -> None:
  """In a child process (a pool worker, the heartbeat): SIGTERM and SIGHUP end it, as they do any
  process (its parent's handlers, inherited by fork, would raise into its work); SIGINT is its
  parent's to handle; the signals ``held`` blocked are unblocked."""
  signal.signal(signal.SIGINT, signal.SIG_IGN)
  for signum in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(signum, signal.SIG_DFL)
  unblocked()


def silence(fd: int) -> None:
  """Points ``fd`` at ``os.devnull`` (after its reader went away)."""
  with contextlib.suppress(OSError):
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


class _PipeGuard:
  """A text stream whose writes to a closed pipe are dropped (``silence``), not raised."""

  def __init__(self, stream: TextIO):
    self._stream = stream

  def _closed(self, error: OSError) -> None:
    if error.errno != errno.EPIPE:
      raise error
    with contextlib.suppress(OSError, ValueError, AttributeError):
      silence(self._stream.fileno())

  def write(self, text: str) -> int:
    try:
      return self._stream.write(text)
    except OSError as e:
      self._closed(e)
      return len(text)

  def flush(self) -> None:
    try:
      self._stream.flush()
    except OSError as e:
      self._closed(e)

  def __getattr__(self, name: str):
    return getattr(self._stream, name)


@contextlib.contextmanager
def closed_pipes_ignored() -> Iterator[None]:
  """For the block, stdout and stderr drop what they cannot deliver to a closed pipe (module
  docstring); the streams are restored afterwards (their buffers flushed, or dropped if
  closed)."""
  saved = sys.stdout, sys.stderr
  sys.stdout, sys.stderr = _PipeGuard(sys.stdout), _PipeGuard(sys.stderr)
  try:
    yield
  finally:
    for guard in (sys.stdout, sys.stderr):
      if isinstance(guard, _PipeGuard):
        guard.flush()
    sys.stdout, sys.stderr = saved
