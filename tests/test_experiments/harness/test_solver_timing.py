"""Tests of the solver's own time in ``solver_registry.solve``: the clock, the warm-up of the
engine's compiled kernels before the clock starts, and that neither changes a number."""

import json
import subprocess
import sys

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel
import pytest

from experiments.harness import jobs
from experiments.harness import solver_registry

# Run in a fresh process: numba loads the engine's kernels on a process's first call only.
FRESH_RUN = """
import json
import pyspiel
from experiments.harness import jobs, solver_registry
solved = solver_registry.solve(pyspiel.load_game("kuhn_poker"), "our_cfr", 0, 1000,
                               jobs.measuring_points(1000, 20, ()))
print(json.dumps([solved.iterations, solved.seconds]))
"""


def test_the_first_point_of_a_fresh_process_costs_what_later_ones_do():
  # Before the warm-up, our CFR's first iteration in a process took 10-30 ms (numba loading its
  # kernel from the cache), 1000 times a later iteration (about 10 us) and more than the other
  # 999 together. Per iteration, the first point is now within a small factor of the median of
  # later intervals (a fresh solver's first iteration: a few times a later one, once 29 times on
  # an idle machine: the first point is one iteration of a few microseconds, which a page fault
  # or a timer tick outweighs). The bound, 100, is a tenth of what the missing warm-up costs.
  out = subprocess.run([sys.executable, "-c", FRESH_RUN], capture_output=True, text=True,
                       check=True, timeout=300).stdout
  iterations, seconds = json.loads(out.strip().splitlines()[-1])
  per_iteration = np.diff([0.0, *seconds]) / np.diff([0, *iterations])
  later = float(np.median(per_iteration[1:]))
  assert per_iteration[0] < 100 * later, (per_iteration[0], later)
  assert all(b >= a for a, b in zip(seconds, seconds[1:]))


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
  for name, engine in (("fake_engine", True), ("fake_openspiel", False)):
    monkeypatch.setitem(solver_registry.SOLVERS, name, solver_registry.SolverSpec(
        name, name, _Recorder, ours=engine))
  monkeypatch.setattr(solver_registry, "_WARMED", set())
  monkeypatch.setattr(_Recorder, "log", [])
  clock = iter(range(1000))

  def fake_clock():
    _Recorder.log.append("clock")
    return float(next(clock))

  monkeypatch.setattr(solver_registry, "SOLVER_CLOCK", fake_clock)
  game = pyspiel.load_game("kuhn_poker")
  solver_registry.solve(game, "fake_engine", 0, 2)
  # The measured solver is built, then a throwaway one, iterated once without the clock, then
  # the measured iterations, each timed.
  assert _Recorder.log == ["build", "build", "iterate solver 1",
                           "clock", "iterate solver 0", "clock",
                           "clock", "iterate solver 0", "clock"]
  _Recorder.log.clear()
  solved = solver_registry.solve(game, "fake_engine", 0, 2, (1,))  # Warm: no throwaway.
  assert _Recorder.log == ["build"] + ["clock", "iterate solver 0", "clock"] * 2
  assert solved.seconds == [1.0, 2.0]  # One tick of the fake clock per iteration.
  _Recorder.log.clear()
  solver_registry.solve(game, "fake_openspiel", 0, 1)  # OpenSpiel's solvers: no warm-up.
  assert _Recorder.log == ["build", "clock", "iterate solver 0", "clock"]


@pytest.mark.parametrize("solver", ["our_cfr", "cs_cfr"])
def test_the_warm_up_changes_no_number(monkeypatch, solver):
  game = pyspiel.load_game("kuhn_poker(players=3)")
  monkeypatch.setattr(solver_registry, "_WARMED", set())
  warmed = solver_registry.solve(game, solver, 3, 30, (1, 10), keep_policy=True)
  assert solver_registry._WARMED  # pylint: disable=protected-access
  again = solver_registry.solve(game, solver, 3, 30, (1, 10), keep_policy=True)
  assert (warmed.curve, warmed.returns, warmed.policy, warmed.openspiel) == (
      again.curve, again.returns, again.policy, again.openspiel)


def test_batches_are_warmed_up_too(monkeypatch):
  monkeypatch.setattr(solver_registry, "_WARMED", set())
  games = [pyspiel.load_game("kuhn_poker"),
           pyspiel.load_game("kuhn_poker_ante(ante=0.25)")]
  batched = solver_registry.solve_batch(games, "our_cfr", 20, (1, 5))
  assert solver_registry._WARMED == {  # pylint: disable=protected-access
      '["our_cfr", {}, true, "flat"]'}
  for game, solved in zip(games, batched):
    alone = jobs.run_job(jobs.Job("t", str(game), "our_cfr", 0, 20, (1, 5)))[0]
    assert solved.curve == pytest.approx(alone.curve, abs=1e-12)
    assert solved.returns == pytest.approx(alone.returns, abs=1e-12)
