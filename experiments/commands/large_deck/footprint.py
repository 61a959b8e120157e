"""A solve in a fresh Python process, for the peak memory it takes.

Peak memory is measured as the growth of the process's resident set over the solve: Linux's
peak resident set (``VmHWM`` of ``/proc/self/status``) is reset to the current one by writing
"5" to ``/proc/self/clear_refs`` (Linux 4.0 and later) just before the solve, and read after it.
Unlike ``tracemalloc``, which sees only allocations made through Python's and numpy's
allocators, the resident set counts every byte the solve touches: numpy arrays, the temporaries
the compiled (numba) kernels allocate inside a pass (the range engine's q and v arrays, a third
of its memory), the C++ game. A fresh process, which did nothing before but import the
libraries and warm the engine up on a 13-card game, has no freed memory of earlier solves that
a new one could reuse unseen. The resolution is about a megabyte (allocator pages and arenas).
Without ``/proc/self/clear_refs`` (not Linux) nothing is measured (``MEASURABLE``).

``solve_in_fresh_process`` runs ``python -m experiments.commands.large_deck.fresh_solve SPEC``
(SPEC: the JSON of a ``solve.Spec``), which prints the ``solve.DeckSolve`` as JSON on its last
line, and reads it back.
"""

import dataclasses
import json
import os
import subprocess
import sys
from typing import Any, Dict

from experiments.commands.large_deck import solve

# The fresh process's program (a module of its own: the package does not import it, so that
# running it as __main__ does not import it twice).
FRESH_SOLVE = "experiments.commands.large_deck.fresh_solve"


_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"
MEASURABLE = os.path.exists(_CLEAR_REFS)


def _status_bytes(field: str) -> int:
  """A ``VmXXX`` field of ``/proc/self/status`` (kB there), in bytes."""
  with open(_STATUS) as status:
    for line in status:
      name, _, value = line.partition(":")
      if name == field:
        return 1024 * int(value.split()[0])
  raise ValueError(f"{_STATUS} has no field {field}")


def reset_peak() -> int:
  """Resets the process's peak resident set to the current one; returns it, in bytes."""
  with open(_CLEAR_REFS, "w") as clear_refs:
    clear_refs.write("5")
  return _status_bytes("VmRSS")


def peak_since_reset() -> int:
  """The process's peak resident set since ``reset_peak``, in bytes."""
  return _status_bytes("VmHWM")


def to_json(record: solve.DeckSolve) -> Dict[str, Any]:
  return dataclasses.asdict(record)


def from_json(data: Dict[str, Any]) -> solve.DeckSolve:
  fields = dict(data)
  spec = solve.Spec(**fields.pop("spec"))
  return solve.DeckSolve(spec=spec, best_responses=tuple(fields.pop("best_responses")), **fields)


def solve_in_fresh_process(spec: solve.Spec) -> solve.DeckSolve:
  """``solve.finish(solve.solve(spec))`` in a fresh process, with its ``peak_bytes``.

  Raises:
    RuntimeError: one line, with the last line of the process's error output, if it failed.
  """
  completed = subprocess.run(
      [sys.executable, "-m", FRESH_SOLVE, json.dumps(dataclasses.asdict(spec))],
      capture_output=True, text=True, check=False)
  if completed.returncode != 0:
    lines = completed.stderr.strip().splitlines()
    raise RuntimeError(f"the fresh process solving {spec} failed: "
                       f"{lines[-1] if lines else f'exit status {completed.returncode}'}")
  return from_json(json.loads(completed.stdout.strip().splitlines()[-1]))
