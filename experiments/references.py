"""The exact references every experiment compares with, their golden file and the tolerances.

* The closed form of three-card Kuhn poker for any ante a and bet b, both rule sets
  (``algorithms.kuhn_equilibria``; H. W. Kuhn, "A simplified form of poker", 1950, for a = b):
  the game value, the regime, and the equilibrium family (free parameters and their ranges).
* The sequence-form LP (``algorithms.sequence_form_lp``; Koller, Megiddo, von Stengel, "Fast
  algorithms for finding randomized strategies in game trees", STOC 1994): the value and one
  equilibrium of any small two-player zero-sum game.
* The golden file ``experiments/golden/reference_equilibria.json``: both, recorded, so that a
  change of either is caught (closed forms exactly, as fractions; LP values within
  ``checks.ROUNDING``).

Tolerances of a solver's average policy after T iterations: exploitability at most
``exploitability_tolerance`` (the O(1/sqrt(T)) rate of CFR's regret bound), and bluff and call
frequencies within ``strategy_tolerance`` of the closed-form family member they select.
"""

import dataclasses
import fractions
import itertools
import json
import math
import pathlib
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms import atomic_file
from algorithms import kuhn_equilibria
from algorithms import sequence_form_lp
from experiments import checks
from experiments import games
from experiments import jobs as jobs_lib
from experiments import solver_registry
from spiel_games import kuhn_poker_ante
from spiel_games import kuhn_rules

Fraction = fractions.Fraction

GOLDEN_PATH = pathlib.Path(__file__).resolve().parent / "golden" / "reference_equilibria.json"
REGENERATE_COMMAND = "python -m experiments reference-check --regenerate-golden"
# Sampled solvers: their exploitability tolerance is SAMPLED_FACTOR times the full-traversal one
# at their own T (chance-sampling CFR reaches under 2/3 of it on the reference games at T = 3000
# and 10000, seeds 0-2). Their strategies converge much more slowly where the equilibrium pins a
# frequency only weakly: at ante 0.75 (regime p1_bluffs, where P0 must never bet K) the average
# bets K 0.28 at T = 3000 with exploitability 0.013. Measured worst distance: about 20/sqrt(T)
# (T = 3000, 10000, 30000, seeds 0-2), hence SAMPLED_STRATEGY_FACTOR.
SAMPLED_FACTOR = 8.0
SAMPLED_STRATEGY_FACTOR = 24.0
# Probabilities of action 1 (bet or call) checked against the family: bluffs, value bets, calls.
CHECKED_STATES_STANDARD = {
    "0": "P0 bets J (bluff)", "2": "P0 bets K", "1pb": "P0 calls with Q after check-bet",
    "0p": "P1 bets J after a check (bluff)", "1b": "P1 calls a bet with Q"}
CHECKED_STATES_SIMPLIFIED = {"0": "P0 bets J (bluff)", "1b": "P1 calls a bet with Q"}


@dataclasses.dataclass(frozen=True)
class Reference:
  """An exact equilibrium of a game.

  Attributes:
    policy: the equilibrium as a ``TabularPolicy`` (both players).
    value: the game value for player 0.
    source: where it comes from ("closed form" or "sequence-form LP").
  """

  policy: policy_lib.TabularPolicy
  value: float
  source: str


def kuhn_rules_of(game: pyspiel.Game) -> Optional[kuhn_rules.KuhnRules]:
  """The rules of a three-card Kuhn game (``kuhn_poker`` or ``kuhn_poker_ante``), else None."""
  rules = kuhn_poker_ante.rules_of(game)
  return rules if rules is not None and rules.deck_size == 3 else None


def reference_equilibrium(game: pyspiel.Game) -> Reference:
  """The closed-form equilibrium (``algorithms.kuhn_equilibria``, the default member of a family)
  for three-card Kuhn games (``kuhn_poker_ante``, or two-player ``kuhn_poker``), else the
  sequence-form LP's (``algorithms.sequence_form_lp``)."""
  rules = kuhn_rules_of(game)
  if rules is not None:
    solution = kuhn_equilibria.kuhn_equilibrium(rules.ante, rules.bet, rules.simplified)
    return Reference(solution.policy(game), float(solution.value), "closed form")
  solution = sequence_form_lp.solve_game(game)
  return Reference(solution.policy, float(solution.value), "sequence-form LP")


def game_value(game: pyspiel.Game) -> Tuple[float, str]:
  """The value of a two-player zero-sum game for player 0 and its source: the closed form for
  three-card Kuhn games, else the sequence-form LP."""
  rules = kuhn_rules_of(game)
  if rules is not None:
    return (float(kuhn_equilibria.game_value(rules.ante, rules.bet, rules.simplified)),
            "closed form (kuhn_equilibria)")
  return float(sequence_form_lp.solve_game(game).value), "sequence-form LP"


def exploitability_tolerance(game: pyspiel.Game, solver: str, iterations: int) -> float:
  """Allowed final exploitability: c Delta / sqrt(T), Delta = max - min utility of the game.

  The O(1/sqrt(T)) rate of CFR's regret bound (Zinkevich, Johanson, Bowling, Piccione, "Regret
  minimization in games with incomplete information", NeurIPS 2007, Theorem 4) with a constant
  scaled like the game's payoffs; c = 1/16 for full-traversal solvers, ``SAMPLED_FACTOR`` times
  more for sampled ones, whose error has the same rate with a larger constant (Lanctot et al.,
  "Monte Carlo sampling for regret minimization in extensive games", NeurIPS 2009).
  """
  factor = SAMPLED_FACTOR if solver_registry.get_solver(solver).sampled else 1.0
  delta = game.max_utility() - game.min_utility()
  return factor * delta / (16 * math.sqrt(iterations))


def strategy_tolerance(solver: str, iterations: int) -> float:
  """Allowed distance of a checked frequency from the family: 1/sqrt(T) for full-traversal
  solvers (``SAMPLED_STRATEGY_FACTOR`` times more for sampled ones). No theorem bounds the
  distance to the equilibrium set by the exploitability; this is the rate of the exploitability
  bound with a constant measured with a margin (OpenSpiel's CFR and CFR+ reach under 1/2 of it at
  T = 300 and 2000).
  """
  factor = SAMPLED_STRATEGY_FACTOR if solver_registry.get_solver(solver).sampled else 1.0
  return min(1.0, factor / math.sqrt(iterations))


def checked_states(rules: kuhn_rules.KuhnRules) -> Dict[str, str]:
  """The information states whose bet/call frequency is checked, with their descriptions."""
  return CHECKED_STATES_SIMPLIFIED if rules.simplified else CHECKED_STATES_STANDARD


def family_ranges(rules: kuhn_rules.KuhnRules) -> Dict[str, List[Fraction]]:
  """[min, max] over the family of the probability of action 1 at every information state.

  Every probability is affine in the free parameters, so its extremes are at the corners of the
  parameter box (corners that break a joint constraint are skipped).
  """
  params = kuhn_equilibria.family_parameters(rules.ante, rules.bet, rules.simplified)
  members = []
  for corner in itertools.product(*[(p.low, p.high) for p in params]):
    try:
      members.append(kuhn_equilibria.kuhn_equilibrium(
          rules.ante, rules.bet, rules.simplified,
          **{p.name: v for p, v in zip(params, corner)}).action_probabilities())
    except ValueError:  # The corner breaks a joint constraint such as p1_call_mid <= p1_bluff.
      continue
  return {s: [min(m[s] for m in members), max(m[s] for m in members)] for s in members[0]}


def policy_probabilities(tabular: policy_lib.TabularPolicy) -> Dict[str, float]:
  """Probability of action 1 at each information state of a tabular policy."""
  return {s: float(tabular.action_probability_array[i][1])
          for s, i in tabular.state_lookup.items()}


def family_checks(label: str, rules: kuhn_rules.KuhnRules, probabilities: Mapping[str, float],
                  tolerance: float) -> List[checks.Check]:
  """Checked bluff and call frequencies against the closed-form family member they select.

  The measured free parameters (e.g. Kuhn's alpha), clipped into their ranges, select a member
  (``kuhn_equilibria.member_matching``); every checked frequency must be within ``tolerance`` of
  that member, which checks the family's relations (K bet = 3 alpha, Q call = alpha + 1/3, ...)
  rather than one member.
  """
  member = kuhn_equilibria.member_matching(rules.ante, rules.bet, rules.simplified,
                                          probabilities).action_probabilities()
  regime = kuhn_equilibria.regime_of(rules.ante, rules.bet, rules.simplified).name
  source = (f"closed-form family ({regime})"
            if kuhn_equilibria.family_parameters(rules.ante, rules.bet, rules.simplified)
            else "closed form (unique)")
  return [checks.within(f"{label}: {description} [{state}]", probabilities[state], member[state],
                        tolerance, source)
          for state, description in checked_states(rules).items()]


def solver_run_checks(result: jobs_lib.JobResult,
                      reference: Dict[str, Any]) -> List[checks.Check]:
  """Checks of one solver run against the references of its game (``compute_reference``):
  exploitability at most ``exploitability_tolerance``, value within NashConv of the game value,
  and on three-card Kuhn games the checked frequencies in the closed-form family
  (``family_checks``) within ``strategy_tolerance``."""
  job = result.job
  label = f"{job.game} {job.solver} T={job.iterations}"
  expl = result.solved.openspiel
  cf = reference["closed_form"]
  value_ref, value_source = reference_value(reference)
  game = games.load_game(job.game)
  found = [
      checks.at_most(f"{label}: exploitability", expl,
                     exploitability_tolerance(game, job.solver, job.iterations),
                     "0 at equilibrium; tolerance c (max - min utility) / sqrt(T)"),
      checks.within_nash_conv(f"{label}: value of the average policy", result.value, value_ref,
                              2 * expl, value_source)]
  if cf is not None:
    rules = kuhn_rules.KuhnRules(ante=cf["ante"], bet=cf["bet"], simplified=cf["simplified"])
    probabilities = {s: p[1] for s, p in result.solved.policy.items()}
    found += family_checks(label, rules, probabilities,
                           strategy_tolerance(job.solver, job.iterations))
  return found


def compute_reference(game_string: str) -> Dict[str, Any]:
  """The references of one game, JSON-ready: LP value, and for Kuhn games the closed form.

  Returns:
    ``{"game", "lp_value", "lp_value_from_player_1", "closed_form"}`` where ``closed_form`` is
    None or ``{"ante", "bet", "simplified", "regime", "value" (fraction string),
    "default_member": {state: fraction string}, "family": {state: [low, high]}}``.
  """
  game = games.load_game(game_string)
  solution = sequence_form_lp.solve_game(game)
  reference = {"game": game_string, "lp_value": solution.value,
               "lp_value_from_player_1": solution.value_from_player_1, "closed_form": None}
  rules = kuhn_rules_of(game)
  if rules is not None:
    equilibrium = kuhn_equilibria.kuhn_equilibrium(rules.ante, rules.bet, rules.simplified)
    reference["closed_form"] = {
        "ante": rules.ante, "bet": rules.bet, "simplified": rules.simplified,
        "regime": equilibrium.regime, "value": str(equilibrium.value),
        "default_member": {s: str(p) for s, p in equilibrium.action_probabilities().items()},
        "family": {s: [str(lo), str(hi)] for s, (lo, hi) in family_ranges(rules).items()}}
  return reference


def reference_value(reference: Dict[str, Any]) -> Tuple[float, str]:
  """The game value of a ``compute_reference`` result and its source: the closed form where there
  is one, else the LP."""
  cf = reference["closed_form"]
  if cf is not None:
    return float(Fraction(cf["value"])), "closed form (kuhn_equilibria)"
  return reference["lp_value"], "sequence-form LP"


def write_golden(references: Sequence[Dict[str, Any]],
                 path: Optional[pathlib.Path] = None) -> None:
  """Writes the golden file (default ``GOLDEN_PATH``) atomically."""
  path = path or GOLDEN_PATH
  path.parent.mkdir(parents=True, exist_ok=True)
  atomic_file.atomic_write_json(path, {
      "description": "Reference equilibria: closed forms (algorithms.kuhn_equilibria, exact "
                     "fractions) and sequence-form LP values (algorithms.sequence_form_lp).",
      "regenerate": REGENERATE_COMMAND,
      "games": {r["game"]: r for r in references}})


def load_golden(path: Optional[pathlib.Path] = None) -> Dict[str, Dict[str, Any]]:
  """The golden references (default file ``GOLDEN_PATH``) by game string."""
  path = path or GOLDEN_PATH
  return json.loads(path.read_text(encoding="utf-8"))["games"]
