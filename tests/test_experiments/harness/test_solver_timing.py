"""Tests of the solver's own time in ``solver_runs.solve``: the clock, the warm-up of the
engine's compiled kernels before the clock starts, and that neither changes a number."""

import json
import subprocess
import sys

from open_spiel.python import policy as policy_lib
import pyspiel
import pytest

from experiments.harness import jobs
from experiments.harness import solver_registry
from experiments.harness import solver_runs

# Run in a fresh process: numba loads the engine's kernels on a process's first call only. The
# solver's clock (``SOLVER_CLOCK``) is wrapped to record, at each of its readings, how many
# signatures every compiled kernel of the project has loaded (a numba dispatcher's
# ``signatures`` grows when it compiles or loads machine code from its cache).
FRESH_RUN = """
import json
import sys

from numba.core import registry
import pyspiel

from experiments.harness import solver_runs


def loaded():
  return {f"{name}.{attr}": len(value.signatures)
          for name, module in list(sys.modules.items()) if name.startswith("algorithms.")
          for attr, value in vars(module).items() if isinstance(value, registry.CPUDispatcher)}


readings, clock = [], solver_runs.SOLVER_CLOCK


def watched_clock():
  readings.append(loaded())
  return clock()


solver_runs.SOLVER_CLOCK = watched_clock
game = pyspiel.load_game("kuhn_poker")
before = loaded()
solver_runs.solve(game, "our_cfr", 0, 3)
print(json.dumps({"before": before, "readings": readings}))
"""


def test_the_kernels_are_loaded_before_the_clock_starts_in_a_fresh_process():
  # Before the warm-up, our CFR's first iteration in a process took 10-30 ms (numba loading its
  # kernel from the cache), 1000 times a later iteration (about 10 us) and more than the other
  # 999 together. Now no kernel loads or compiles while the clock runs: between the readings
  # that start and stop each timed iteration, no dispatcher gains a signature. Not vacuous: the
  # process starts with none loaded, and by the first reading the warm-up has loaded some.
  out = subprocess.run([sys.executable, "-c", FRESH_RUN], capture_output=True, text=True,
                       check=True, timeout=300).stdout
  found = json.loads(out.strip().splitlines()[-1])
  readings = found["readings"]
  assert len(readings) == 2 * 3  # A start and a stop per iteration.
  assert sum(found["before"].values()) == 0
  assert sum(readings[0].values()) > 0
  for start, stop in zip(readings[0::2], readings[1::2]):
    assert stop == start, {k: (start.get(k), n) for k, n in stop.items() if start.get(k) != n}


class _Recorder:
  """A fake engine solver that logs what happens, in order."""

  log = []

  def __init__(self, game):
    self.game = game
    self.name = f"solver {sum(e == 'build' for e in self.log)}"
    self.log.append("build")

  def evaluate_and_update_policy(self):
    self.log.append(f"iterate {self.name}")

  def average_policy(self):
    return policy_lib.TabularPolicy(self.game)


def test_the_warm_up_runs_once_per_process_before_the_clock(monkeypatch):
  for name, ours in (("fake_engine", True), ("fake_openspiel", False)):
    monkeypatch.setitem(solver_registry.SOLVERS, name, solver_registry.SolverSpec(
        name, name, _Recorder, ours=ours))
  monkeypatch.setattr(solver_runs, "_WARMED", set())
  monkeypatch.setattr(_Recorder, "log", [])
  clock = iter(range(1000))

  def fake_clock():
    _Recorder.log.append("clock")
    return float(next(clock))

  monkeypatch.setattr(solver_runs, "SOLVER_CLOCK", fake_clock)
  game = pyspiel.load_game("kuhn_poker")
  solver_runs.solve(game, "fake_engine", 0, 2)
  # The measured solver is built, then a throwaway one, iterated once without the clock, then
  # the measured iterations, each timed.
  assert _Recorder.log == ["build", "build", "iterate solver 1",
                           "clock", "iterate solver 0", "clock",
                           "clock", "iterate solver 0", "clock"]
  _Recorder.log.clear()
  solved = solver_runs.solve(game, "fake_engine", 0, 2, (1,))  # Warm: no throwaway.
  assert _Recorder.log == ["build"] + ["clock", "iterate solver 0", "clock"] * 2
  assert solved.seconds == [1.0, 2.0]  # One tick of the fake clock per iteration.
  _Recorder.log.clear()
  solver_runs.solve(game, "fake_openspiel", 0, 1)  # OpenSpiel's solvers: no warm-up.
  assert _Recorder.log == ["build", "clock", "iterate solver 0", "clock"]


@pytest.mark.parametrize("solver", ["our_cfr", "cs_cfr"])
def test_the_warm_up_changes_no_number(monkeypatch, solver):
  game = pyspiel.load_game("kuhn_poker(players=3)")
  monkeypatch.setattr(solver_runs, "_WARMED", set())
  warmed = solver_runs.solve(game, solver, 3, 30, (1, 10), keep_policy=True)
  assert solver_runs._WARMED  # pylint: disable=protected-access
  again = solver_runs.solve(game, solver, 3, 30, (1, 10), keep_policy=True)
  assert (warmed.curve, warmed.returns, warmed.policy, warmed.openspiel) == (
      again.curve, again.returns, again.policy, again.openspiel)


def test_batches_are_warmed_up_too(monkeypatch):
  monkeypatch.setattr(solver_runs, "_WARMED", set())
  games = [pyspiel.load_game("kuhn_poker"),
           pyspiel.load_game("kuhn_poker_ante(ante=0.25)")]
  batched = solver_runs.solve_batch(games, "our_cfr", 20, (1, 5))
  assert solver_runs._WARMED == {  # pylint: disable=protected-access
      '["our_cfr", {}, true, "flat"]'}
  for game, solved in zip(games, batched):
    alone = jobs.run_job(jobs.Job("t", str(game), "our_cfr", 0, 20, (1, 5)))[0]
    assert solved.curve == pytest.approx(alone.curve, abs=1e-12)
    assert solved.returns == pytest.approx(alone.returns, abs=1e-12)
