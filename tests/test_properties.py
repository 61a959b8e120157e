"""Property-based tests (Hypothesis) of the references and of the inputs a person or a file gives.

* Closed form = LP: for random rational ante a and bet b in every regime of both rule sets, the
  closed-form value of ``algorithms.exact.kuhn_equilibria`` (Kuhn 1950 and its variable-ante
  extensions) equals the sequence-form LP's value (``algorithms.exact.sequence_form_lp``; Koller,
  Megiddo, von Stengel 1994) up to the LP's rounding, the closed-form equilibrium has OpenSpiel
  exploitability 0, and the LP's equilibrium lies in the closed-form family.
* Game strings: any text gives a game or a one-line ValueError
(``experiments.harness.game_loader.load_game``,
  the command line's ``--game``), never another exception.
* Checkpoint bytes: any mutation of a saved solver file gives a one-line ValueError from
  ``CFRSolver.load``, or (for bytes no reader looks at) the very same solver; never a different
  one.

The examples are derandomized and no example database is kept, so that every run tries the same
cases and the suite stays deterministic; the numbers of examples keep it to seconds.
"""

import fractions
import string

from hypothesis import HealthCheck
from hypothesis import assume
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel
import pytest

import algorithms
from algorithms.exact import kuhn_equilibria
from algorithms.exact import sequence_form_lp
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import references
from spiel_games import kuhn_rules

Fraction = fractions.Fraction
BOUNDED = settings(derandomize=True, database=None, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])


@st.composite
def stakes_in_a_regime(draw, simplified: bool):
  """(regime, ante, bet): exact binary fractions (so that the game's floats are exact) with
  r = ante / bet inside the drawn regime."""
  regime = draw(st.sampled_from(kuhn_equilibria.regimes(simplified)))
  bet = Fraction(draw(st.integers(1, 64)), draw(st.sampled_from([1, 2, 4, 8, 16])))
  if regime.is_point:
    ratio = regime.low
  else:
    high = regime.high if regime.high is not None else regime.low + 8
    # A dyadic ratio strictly inside (low, high): low + (high - low) k / 2^n, 0 < k < 2^n.
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 2**n - 1))
    ratio = regime.low + (high - regime.low) * Fraction(k, 2**n)
  ante = ratio * bet
  if (float(ante) != ante or float(bet) != bet or ante <= 0
      or not regime.contains(Fraction(float(ante)) / Fraction(float(bet)))):
    ratio = None  # The float parameters would leave the regime: draw again.
  assume(ratio is not None)
  return regime, ante, bet


@pytest.mark.parametrize("simplified", [False, True])
def test_closed_form_equals_the_lp_in_every_regime(simplified):
  seen = set()

  @settings(BOUNDED, max_examples=20)
  @given(stakes_in_a_regime(simplified))
  def check(case):
    regime, ante, bet = case
    seen.add(regime.name)
    game = pyspiel.load_game(game_loader.kuhn_game_string(float(ante), float(bet), simplified))
    closed = kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified)
    assert closed.regime == regime.name
    solution = sequence_form_lp.solve_game(game)
    assert abs(solution.value - float(closed.value)) <= checks.ROUNDING
    assert abs(solution.value_from_player_1 - float(closed.value)) <= checks.ROUNDING
    assert exploitability.exploitability(game, closed.policy(game)) <= checks.ROUNDING
    rules = kuhn_rules.KuhnRules(ante=float(ante), bet=float(bet), simplified=simplified)
    family = references.family_checks("lp", rules,
                                      references.policy_probabilities(solution.policy),
                                      checks.ROUNDING)
    assert all(c.passed for c in family), [c for c in family if not c.passed]

  check()
  assert seen == {r.name for r in kuhn_equilibria.regimes(simplified)}


NAMES = sorted(pyspiel.registered_names())
PARAMETER = st.tuples(
    st.sampled_from(["ante", "bet", "deck_size", "simplified", "players", "grid", "x", ""]),
    st.one_of(st.integers(-3, 6).map(str), st.sampled_from(["1.5", "-0.0", "True", "false",
                                                            "nan", "inf", "1e308", "(", ")",
                                                            ",", "=", "'a'", ""])))
GAME_STRINGS = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=string.ascii_letters + string.digits + "_(),=.-", max_size=40),
    st.builds(lambda name, params, close: name + "(" + ",".join(
        f"{k}={v}" for k, v in params) + (")" if close else ""),
        st.sampled_from(["kuhn_poker", "kuhn_poker_ante", "leduc_poker", "kuhn_poker_referee",
                         "tic_tac_toe", "matrix_rps", "python_kuhn_poker"]),
        st.lists(PARAMETER, max_size=3), st.booleans()),
    st.sampled_from(NAMES))


@settings(BOUNDED, max_examples=200)
@given(GAME_STRINGS)
def test_any_game_string_is_a_game_or_one_line_error(text):
  try:
    game = game_loader.load_game(text)
  except ValueError as e:
    message = str(e)
    assert message and "\n" not in message and "\r" not in message
    return
  assert game_loader.is_two_player_zero_sum(game)
  assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL


@pytest.fixture(scope="module")
def saved_solver(tmp_path_factory):
  """A chance-sampling CFR solver (arrays, iteration and random state) saved to bytes."""
  game = pyspiel.load_game("kuhn_poker")
  solver = algorithms.ChanceSamplingCFRSolver(game, seed=3)
  solver.solve(7)
  path = tmp_path_factory.mktemp("checkpoint") / "solver.npz"
  solver.save(str(path))
  return game, solver, path.read_bytes()


def _same_solver(a, b) -> bool:
  ea, eb = a.engine, b.engine
  return (ea.iteration == eb.iteration and a.options() == b.options()
          and all(np.array_equal(getattr(ea, n), getattr(eb, n))
                  for n in ("regrets", "cumulative", "sigma"))
          and (a._chance_sampler.rng.bit_generator.state
               == b._chance_sampler.rng.bit_generator.state))


MUTATIONS = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("truncate"), st.integers(0, 10**6), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.integers(0, 255)),
    st.tuples(st.just("delete"), st.integers(0, 10**6), st.integers(1, 64)))


@settings(BOUNDED, max_examples=100)
@given(MUTATIONS)
def test_any_mutation_of_a_checkpoint_is_refused_or_harmless(saved_solver, tmp_path_factory,
                                                             mutation):
  game, solver, data = saved_solver
  kind, position, amount = mutation
  position %= len(data)
  if kind == "flip":
    mutated = data[:position] + bytes([data[position] ^ amount]) + data[position + 1:]
  elif kind == "truncate":
    mutated = data[:position]
  elif kind == "insert":
    mutated = data[:position] + bytes([amount]) + data[position:]
  else:
    mutated = data[:position] + data[position + amount:]
  path = tmp_path_factory.mktemp("mutated") / "solver.npz"
  path.write_bytes(mutated)
  try:
    loaded = algorithms.ChanceSamplingCFRSolver.load(str(path), game)
  except ValueError as e:
    assert str(e) and "\n" not in str(e)
    return
  assert _same_solver(loaded, solver), f"{kind} at {position} loaded a different solver"
