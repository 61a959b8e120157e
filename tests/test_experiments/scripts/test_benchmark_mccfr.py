"""The MCCFR benchmark's quick mode: its rows and table agree with each other and with the
solvers (consistency, not speed)."""

import contextlib
import io

import pyspiel
import pytest

import algorithms
from experiments.scripts import benchmark_mccfr


@pytest.fixture(scope="module")
def quick_run():
  """(rows, printed output) of ``main(["--quick"])``, run once for the module."""
  printed = io.StringIO()
  with contextlib.redirect_stdout(printed):
    rows = benchmark_mccfr.main(["--quick"])
  return rows, printed.getvalue()


@pytest.mark.slow  # the quick run: six solvers for 0.5 CPU s each, then replays
def test_one_row_per_solver_with_a_full_budget(quick_run):
  rows, _ = quick_run
  assert {(r.implementation, r.scheme) for r in rows} == {
      (i, s) for i in benchmark_mccfr.IMPLEMENTATIONS for s in benchmark_mccfr.SCHEMES}
  for r in rows:
    assert (r.game, r.seed) == ("leduc_poker", 0)
    assert r.iterations >= 1 and r.seconds >= 0.5  # runs stop after the budget, --quick's 0.5 s
    assert r.rate == r.iterations / r.seconds
    # Exploitability is at most the largest payoff: 13 chips in Leduc (1 + 2 + 2 + 4 + 4).
    assert 0 < r.exploitability <= 13


@pytest.mark.slow
@pytest.mark.parametrize("implementation,tolerance", [
    # Ours: deterministic runs; the script reads the policy through action_probabilities, the
    # solver evaluates its own arrays: one exact evaluation either way.
    ("ours", 1e-12),
    # OpenSpiel's Python solvers draw the same numbers as ours for the same seed (equal to
    # 1e-10, test_mccfr.py), so ours after the Python run's iterations has its exploitability.
    ("Python", 1e-10)])
def test_rows_replay_on_our_solver(quick_run, implementation, tolerance):
  rows, _ = quick_run
  game = pyspiel.load_game("leduc_poker")
  for r in rows:
    if r.implementation == implementation:
      ours = (algorithms.ExternalSamplingSolver(game, seed=r.seed) if r.scheme == "external"
              else algorithms.OutcomeSamplingSolver(game, seed=r.seed))
      assert ours.solve(r.iterations).exploitability() == pytest.approx(r.exploitability,
                                                                         abs=tolerance)


@pytest.mark.slow  # the quick run: six solvers for 0.5 CPU s each, then replays
def test_table_holds_the_medians_and_ratios(quick_run):
  rows, printed = quick_run
  by = {(r.scheme, r.implementation): r for r in rows}
  for (scheme, implementation), r in by.items():
    ours = by[(scheme, "ours")]
    # One seed: the medians are the run's numbers.
    line = (f"| leduc_poker | {scheme} | {implementation} | {r.rate:,.0f} | "
            f"{r.exploitability:.3e} | {ours.rate / r.rate:.1f}x | "
            f"{r.exploitability / ours.exploitability:.2f}x |")
    assert line in printed
  ours, cpp = by[("external", "ours")].exploitability, by[("external", "C++")].exploitability
  assert printed.rstrip().splitlines()[-1] == (
      f"Target on leduc_poker: our external sampling below OpenSpiel C++'s at equal CPU time: "
      f"{ours:.3e} vs {cpp:.3e}, {'met' if ours < cpp else 'NOT met'}")


def test_bad_arguments_exit_with_usage():
  with pytest.raises(SystemExit) as error:
    benchmark_mccfr.main(["--seeds", "0"])
  assert error.value.code == 2
