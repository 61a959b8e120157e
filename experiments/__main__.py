"""``python -m experiments <command> [options]``: see ``experiments.cli``.

``entry`` imports the CLI and its commands itself, so that a Ctrl-C (or SIGTERM) while their
modules load, the first seconds of a run, ends with one line and the shell's status instead of
a traceback; once the CLI has returned, a stop signal is ignored (Python's teardown would
otherwise die of it silently, status -2, after a complete run). The script
``kuhn-experiments`` runs it too.
"""

import os
import signal
import sys
import time

# When the command started, before its modules load: its --max-minutes deadline counts from here.
STARTED = time.monotonic()


_RECEIVED = []  # The signals received while the CLI loads.


def _stopped(signum, frame):
  del frame
  _RECEIVED.append(signum)
  raise KeyboardInterrupt(signum)


def entry(prog: str = "kuhn-experiments") -> int:
  """Loads the CLI and every command and runs it (``experiments.cli.main``); the exit status. A
  signal while they load ends the process at once, with one line and status 128 + the signal's
  number.

  A signal while they load may surface as another exception (NumPy and Matplotlib turn an
  interrupted import of their C parts into an ImportError, "initialization failed"): after a
  signal, any exception of the import is the signal's.
  """
  stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
  previous = {s: signal.signal(s, _stopped) for s in stops}
  try:
    from experiments import cli  # noqa: PLC0415  (loaded here: see the module docstring)
    cli.command_modules()  # The commands too: the CLI loads them (importing Matplotlib) lazily.
  except BaseException:
    if not _RECEIVED:
      raise
    signum = _RECEIVED[0]
    print(f"{prog}: {'interrupted' if signum == signal.SIGINT else signal.Signals(signum).name}"
          " while starting; nothing was run", file=sys.stderr, flush=True)
    # Nothing ran, so nothing is left to write: leave without Python's teardown, which can abort
    # (status -6, "PyThreadState_Get ... GIL released") on a C extension whose import the signal
    # cut short.
    os._exit(128 + signum)
  finally:
    for signum, handler in previous.items():
      signal.signal(signum, handler)
  status = cli.main(prog=prog, started=STARTED)
  for signum in stops:  # The run is over, its report written: a stop while Python exits is moot.
    signal.signal(signum, signal.SIG_IGN)
  return status


if __name__ == "__main__":
  sys.exit(entry(prog="python -m experiments"))
