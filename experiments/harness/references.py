"""The exact references every experiment compares with, their golden file and the tolerances.

* The closed form of three-card Kuhn poker for any ante a and bet b, both rule sets
  (``algorithms.exact.kuhn_equilibria``; H. W. Kuhn, "A simplified form of poker", 1950, for a = b):
  the game value, the regime, and the equilibrium family (free parameters and their ranges).
* The sequence-form LP (``algorithms.exact.sequence_form_lp``; Koller, Megiddo, von Stengel, "Fast
  algorithms for finding randomized strategies in game trees", STOC 1994): the value and one
  equilibrium of any small two-player zero-sum game.
* The continuous limit of two-player Kuhn poker with a large deck
  (``algorithms.exact.continuous_kuhn``; von Neumann's poker model for the simplified rules): the
  value V of the game as N -> infinity, the reference of a deck too large for the LP (more than
  ``game_loader.LP_MAX_HISTORIES`` histories), within ``deck_thresholds.VALUE_BAND`` (ante +
  bet) / N, the measured band.
* The Szafron-Gibson-Sturtevant family of three-player Kuhn poker at ante = bet = 1
  (``algorithms.exact.kuhn3_equilibria``; D. Szafron, R. Gibson, N. Sturtevant, "A parameterized
  family of equilibrium profiles for three-player Kuhn poker", AAMAS 2013): the players' values
  (-1/48 - beta/24, -1/48, 1/24 + beta/24) and ``KUHN3_GOLDEN_MEMBERS``, a handful of members
  certified exactly (``algorithms.exact.exact_nash_conv``: NashConv = 0 in fractions).
* The golden file ``experiments/harness/golden/reference_equilibria.json``: all of them, recorded,
  so that a change of any is caught (closed forms and the family exactly, as fractions; LP values
  within ``checks.ROUNDING``).

Tolerances of a solver's average policy after T iterations, two players: exploitability at most
``exploitability_tolerance`` (the O(1/sqrt(T)) rate of CFR's regret bound), and bluff and call
frequencies within ``strategy_tolerance`` of the closed-form family member they select. More
players: NashConv at most ``nash_conv_tolerance`` and, on three-player Kuhn poker, the players'
values within ``family_value_tolerance`` of the nearest family member's. CFR has no convergence
guarantee with more than two players; these tolerances are measured constants with a margin.
Each kind of solver has its tolerance model (``solver_kinds``: full width with alternating or
simultaneous updates, chance sampling, MCCFR; ``sampling_model`` for the registry's solvers).
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

from algorithms.exact import continuous_kuhn
from algorithms.exact import deck_thresholds
from algorithms.exact import kuhn3_equilibria
from algorithms.exact import kuhn_equilibria
from algorithms.exact import sequence_form_lp
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import solver_kinds
from experiments.harness import solver_registry
from experiments.harness.solver_kinds import ToleranceModel
from spiel_games import atomic_file
from spiel_games import kuhn_poker_ante
from spiel_games import kuhn_rules

Fraction = fractions.Fraction

GOLDEN_PATH = pathlib.Path(__file__).resolve().parent / "golden" / "reference_equilibria.json"
REGENERATE_COMMAND = "python -m experiments reference-check --regenerate-golden"
# The tolerance models of the solver kinds (full width with alternating or simultaneous updates,
# chance sampling, MCCFR) and their measured constants are in ``solver_kinds``.
# Probabilities of action 1 (bet or call) checked against the family: bluffs, value bets, calls.
CHECKED_STATES_STANDARD = {
    "0": "P0 bets J (bluff)", "2": "P0 bets K", "1pb": "P0 calls with Q after check-bet",
    "0p": "P1 bets J after a check (bluff)", "1b": "P1 calls a bet with Q"}
CHECKED_STATES_SIMPLIFIED = {"0": "P0 bets J (bluff)", "1b": "P1 calls a bet with Q"}
# More than two players (no theorem: CFR has no n-player guarantee). NashConv tolerance
# Delta / (8 sqrt(T)), the two-player tolerance's constant (exploitability Delta / (16 sqrt(T))
# is NashConv Delta / (8 sqrt(T))): on kuhn_poker(players=3) OpenSpiel's and our CFR reach 0.36
# of it at T = 200 and 0.17 at T = 1000, CFR+ 0.014 and 0.001. Chance-sampling CFR reaches up to
# 7.8 times it (median 4.6) over seeds 0-19 at T = 2000 and 10000, one run:
# solver_kinds.CHANCE_SAMPLING_N_PLAYER_FACTOR = 16 (MCCFR: MCCFR_N_PLAYER_FACTOR).
# Values of the average policy against the nearest family member's, on three-player Kuhn poker:
# max_i |v_i - v_i(member)| <= Delta / (32 sqrt(T)) (``ToleranceModel.n_player_factor`` times
# more for sampled solvers). Measured with the tolerance's scale Delta / (8 sqrt(T)): CFR 0.03 of
# it at T = 200 and 0.012 at T = 1000, CFR+, DCFR and LCFR under 0.016; chance-sampling CFR up
# to 1.96 (median 0.73) over seeds 0-19 at T = 2000 and 10000.
FAMILY_VALUE_FRACTION = 1 / 32
# Fewer iterations than this are not checked against the n-player tolerances, measured from
# T = 100 on (CFR reaches 0.49 of the NashConv tolerance at T = 100); the first iterates are
# close to uniform play, not on the 1/sqrt(T) curve.
MIN_CHECKED_ITERATIONS = 100
# The members recorded in the golden file and certified on every run: both ends of beta in each
# sub-family, a member inside 0 < c11 < 1/2, and the off-path parameters (b32, c33, c34) at the
# ends of their ranges. Each is a kuhn3_equilibria.kuhn3_equilibrium argument set.
KUHN3_GOLDEN_MEMBERS = (
    {},
    {"b11": Fraction(1, 10), "b21": Fraction(1, 4)},
    {"b11": Fraction(1, 10), "b21": Fraction(1, 5), "b32": Fraction(31, 40), "c34": 1},
    {"c11": Fraction(1, 4), "b11": Fraction(1, 8), "b32": Fraction(1, 2)},
    {"c11": Fraction(1, 2), "b11": Fraction(1, 4), "b21": 0, "b23": Fraction(1, 8)},
    {"c11": Fraction(1, 2), "b11": Fraction(1, 6), "b21": Fraction(1, 6), "c33": Fraction(19, 24)},
)


@dataclasses.dataclass(frozen=True)
class Reference:
  """An exact equilibrium of a game.

  Attributes:
    policy: the equilibrium as a ``TabularPolicy`` (every player).
    value: player 0's value (the game value of a two-player zero-sum game).
    source: where it comes from ("closed form", "sequence-form LP", or the three-player family).
    values: every player's value where there are more than two players, else empty.
  """

  policy: policy_lib.TabularPolicy
  value: float
  source: str
  values: Tuple[float, ...] = ()


def kuhn_rules_of(game: pyspiel.Game) -> Optional[kuhn_rules.KuhnRules]:
  """The rules of a three-card Kuhn game (``kuhn_poker`` or ``kuhn_poker_ante``), else None."""
  rules = kuhn_poker_ante.rules_of(game)
  return rules if rules is not None and rules.deck_size == 3 else None


def has_kuhn3_family(game: pyspiel.Game) -> bool:
  """True for three-player Kuhn poker at ante = bet = 1 with four cards (``kuhn_poker(players=3)``
  or ``kuhn_poker_ante(players=3)``), the game of the Szafron-Gibson-Sturtevant family."""
  rules = kuhn_poker_ante.rules_of(game, num_players=kuhn3_equilibria.NUM_PLAYERS)
  return rules is not None and rules.is_openspiel_kuhn


def check_has_reference(game_string: str, game: pyspiel.Game) -> None:
  """Refuses, in one line, a game with no exact reference: one with more than two players outside
  the three-player Kuhn family (e.g. ``leduc_poker(players=3)``), or not zero-sum.

  Raises:
    ValueError: naming the game and the games that have references.
  """
  if not (game_loader.is_two_player_zero_sum(game) or has_kuhn3_family(game)):
    raise ValueError(f"--game {game_string}: no exact reference is known ({game.num_players()} "
                     "players); the reference check has references for two-player zero-sum "
                     "games (closed form or LP) and three-player Kuhn poker at ante = bet = 1 "
                     "(the Szafron-Gibson-Sturtevant family)")


def kuhn3_reference(game: pyspiel.Game, member: kuhn3_equilibria.Kuhn3Equilibrium,
                    source: str) -> Reference:
  """A member of the three-player family as a ``Reference`` of ``game``."""
  values = tuple(float(v) for v in member.values)
  return Reference(member.policy(game), values[0], source, values)


def describe_member(member: kuhn3_equilibria.Kuhn3Equilibrium) -> str:
  """The member's sub-family, beta and free parameters, e.g. "c11=0, beta = 0.1915; b11 = ..."."""
  names = kuhn3_equilibria.free_parameters(member.sub_family)
  return (f"{member.sub_family}, beta = {float(member.beta):.4f}; "
          + ", ".join(f"{n} = {float(getattr(member, n)):.4f}" for n in names))


def reference_equilibrium(game: pyspiel.Game) -> Reference:
  """The closed-form equilibrium (``algorithms.exact.kuhn_equilibria``, the default member of a
  family) for three-card Kuhn games (``kuhn_poker_ante``, or two-player ``kuhn_poker``); the default
  member of the Szafron-Gibson-Sturtevant family (``kuhn3_equilibria.kuhn3_equilibrium()``: every
  free parameter 0, c33 = 1/2; values -1/48, -1/48, 1/24) for three-player Kuhn poker at
  ante = bet = 1; else the sequence-form LP's (``algorithms.exact.sequence_form_lp``).

  Raises:
    ValueError: for a game with more than two players outside the family, where no exact
      equilibrium is known.
  """
  if has_kuhn3_family(game):
    return kuhn3_reference(game, kuhn3_equilibria.kuhn3_equilibrium(),
                           "Szafron-Gibson-Sturtevant family (default member)")
  if not game_loader.is_two_player_zero_sum(game):
    raise ValueError(f"no exact equilibrium of {game} is known: there are references for "
                     "two-player zero-sum games (closed form or LP) and for three-player Kuhn "
                     "poker at ante = bet = 1 (the Szafron-Gibson-Sturtevant family)")
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


def sampling_model(solver: str, model: Optional[ToleranceModel] = None) -> ToleranceModel:
  """``model`` if given (a solver outside the registry: its declared or detected kind's,
  ``solver_kinds``), else the registry entry's: ``solver_kinds.FULL_WIDTH_ALTERNATING`` unless
  ``sampled``, else the model of its algorithm in ``solver_kinds.SAMPLED_ALGORITHMS``.

  Raises:
    ValueError: a sampled registry entry whose algorithm has no measured model (one line).
  """
  if model is not None:
    return model
  spec = solver_registry.get_solver(solver)
  if not spec.sampled:
    return solver_kinds.FULL_WIDTH_ALTERNATING
  if spec.algorithm not in solver_kinds.SAMPLED_ALGORITHMS:
    raise ValueError(f"sampled solver {solver} (algorithm {spec.algorithm!r}) has no sampling "
                     f"model; measured models: {', '.join(solver_kinds.SAMPLED_ALGORITHMS)} "
                     "(solver_kinds.SAMPLED_ALGORITHMS)")
  return solver_kinds.SAMPLED_ALGORITHMS[spec.algorithm]


def exploitability_tolerance(game: pyspiel.Game, solver: str, iterations: int,
                             model: Optional[ToleranceModel] = None) -> float:
  """Allowed final exploitability: c Delta / sqrt(T), Delta = max - min utility of the game.

  The O(1/sqrt(T)) rate of CFR's regret bound (Zinkevich, Johanson, Bowling, Piccione, "Regret
  minimization in games with incomplete information", NeurIPS 2007), with a constant measured
  scaled like the game's payoffs; c = 1/16 for full-traversal solvers, ``ToleranceModel.factor``
  times more for sampled ones (``sampling_model``), whose error has the same rate with a larger
  constant (Lanctot et al., "Monte Carlo sampling for regret minimization in extensive games",
  NeurIPS 2009).
  """
  delta = game.max_utility() - game.min_utility()
  found = sampling_model(solver, model).exploitability_factor
  return found * delta / (16 * math.sqrt(iterations))


def strategy_tolerance(solver: str, iterations: int,
                       model: Optional[ToleranceModel] = None) -> Optional[float]:
  """Allowed distance of a checked frequency from the family: 1/sqrt(T) for full-traversal
  solvers, ``ToleranceModel.strategy_factor`` times more for sampled ones; None where the model
  checks no frequency (MCCFR). No theorem bounds the distance to the equilibrium set by the
  exploitability; this is the rate of the exploitability bound with a constant measured with a
  margin (OpenSpiel's CFR and CFR+ reach under 1/2 of it at T = 300 and 2000).
  """
  factor = sampling_model(solver, model).strategy_factor
  return None if factor is None else min(1.0, factor / math.sqrt(iterations))


def nash_conv_tolerance(game: pyspiel.Game, solver: str, iterations: int,
                        model: Optional[ToleranceModel] = None) -> float:
  """Allowed final NashConv in a game with more than two players: Delta / (8 sqrt(T)),
  ``ToleranceModel.n_player_factor`` times more for sampled solvers, Delta = max - min utility.

  No theorem (CFR has no n-player convergence guarantee): the two-player exploitability
  tolerance's rate and constant (``exploitability_tolerance`` as NashConv), which the measured
  runs meet with a margin (see ``solver_kinds``).
  """
  delta = game.max_utility() - game.min_utility()
  return sampling_model(solver, model).n_player_factor * delta / (8 * math.sqrt(iterations))


def family_value_tolerance(game: pyspiel.Game, solver: str, iterations: int,
                           model: Optional[ToleranceModel] = None) -> float:
  """Allowed max_i |v_i(average) - v_i(nearest member)| on three-player Kuhn poker:
  ``FAMILY_VALUE_FRACTION`` Delta / sqrt(T), ``ToleranceModel.n_player_factor`` times more for
  sampled solvers (measured constants; see ``FAMILY_VALUE_FRACTION``)."""
  delta = game.max_utility() - game.min_utility()
  return (sampling_model(solver, model).n_player_factor * FAMILY_VALUE_FRACTION * delta
          / math.sqrt(iterations))


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


def nearest_kuhn3_member(result: jobs_lib.JobResult) -> kuhn3_equilibria.NearestMember:
  """The family member nearest a three-player Kuhn run's kept average policy."""
  return kuhn3_equilibria.nearest_member({s: p[1] for s, p in result.solved.policy.items()})


def n_player_run_checks(result: jobs_lib.JobResult, reference: Dict[str, Any],
                        nearest: Optional[kuhn3_equilibria.NearestMember] = None,
                        model: Optional[ToleranceModel] = None) -> List[checks.Check]:
  """Checks of one solver run on a game with more than two players: the engine's NashConv
  equals OpenSpiel's ``exploitability.nash_conv``; NashConv at most ``nash_conv_tolerance`` (from
  ``MIN_CHECKED_ITERATIONS`` on); and where the game has the three-player family
  (``reference["family"]``), every player's value within ``family_value_tolerance`` of the
  nearest member's (``nearest``, or ``nearest_kuhn3_member`` of the run). ``model``: as in
  ``sampling_model``."""
  job = result.job
  label = f"{job.game} {job.solver} T={job.iterations}"
  game = game_loader.load_game(job.game, two_player_zero_sum=False)
  found = [checks.same_number(f"{label}: NashConv on the tree = OpenSpiel's", result.final,
                              result.solved.openspiel, "OpenSpiel exploitability.nash_conv")]
  if job.iterations < MIN_CHECKED_ITERATIONS:
    return found
  found.append(checks.at_most(f"{label}: NashConv", result.solved.openspiel,
                              nash_conv_tolerance(game, job.solver, job.iterations, model),
                              "0 at equilibrium; tolerance c (max - min utility) / sqrt(T), c "
                              "measured (no n-player theorem)"))
  if reference.get("family") is not None:
    member = (nearest or nearest_kuhn3_member(result)).member
    gap = max(abs(v - float(m)) for v, m in zip(result.values, member.values))
    found.append(checks.at_most(
        f"{label}: players' values - nearest family member's ({describe_member(member)})", gap,
        family_value_tolerance(game, job.solver, job.iterations, model),
        "Szafron-Gibson-Sturtevant family values; tolerance c (max - min utility) / sqrt(T), "
        "c measured (no n-player theorem)"))
  return found


def solver_run_checks(result: jobs_lib.JobResult, reference: Dict[str, Any],
                      model: Optional[ToleranceModel] = None) -> List[checks.Check]:
  """Checks of one solver run against the references of its game (``compute_reference``):
  exploitability at most ``exploitability_tolerance``, value within NashConv of the game value,
  and on three-card Kuhn games the checked frequencies in the closed-form family
  (``family_checks``) within ``strategy_tolerance`` (not for MCCFR, whose model checks none);
  ``n_player_run_checks`` for games with more than two players. ``model``: as in
  ``sampling_model`` (given for a solver outside the registry)."""
  job = result.job
  if reference.get("players", 2) > 2:
    return n_player_run_checks(result, reference, model=model)
  label = f"{job.game} {job.solver} T={job.iterations}"
  # OpenSpiel's exploitability, or on a deck too large for its walk the range vectors' one.
  expl = result.solved.openspiel if result.solved.openspiel is not None else result.final
  measured = ("" if result.solved.openspiel is not None else
              "; measured by range-vector best responses (a deck too large for OpenSpiel's walk)")
  cf = reference["closed_form"]
  value_ref, value_source = reference_value(reference)
  allowance = limit_allowance(reference)
  game = game_loader.load_game(job.game)
  value_label = f"{label}: value of the average policy"
  found = [
      checks.at_most(f"{label}: exploitability", expl,
                     exploitability_tolerance(game, job.solver, job.iterations, model),
                     f"0 at equilibrium; tolerance c (max - min utility) / sqrt(T){measured}"),
      checks.within(value_label, result.value, value_ref, 2 * expl + allowance,
                    f"{value_source}; tolerance NashConv of the policy + "
                    f"{deck_thresholds.VALUE_BAND:g} (ante + bet) / cards")
      if allowance else
      checks.within_nash_conv(value_label, result.value, value_ref, 2 * expl, value_source)]
  tolerance = strategy_tolerance(job.solver, job.iterations, model)
  if cf is not None and tolerance is not None:
    rules = kuhn_rules.KuhnRules(ante=cf["ante"], bet=cf["bet"], simplified=cf["simplified"])
    probabilities = {s: p[1] for s, p in result.solved.policy.items()}
    found += family_checks(label, rules, probabilities, tolerance)
  return found


def median_run(results: Sequence[jobs_lib.JobResult]) -> jobs_lib.JobResult:
  """The run of median final measure (exploitability or NashConv) among the seeds of one
  solver on one game (the upper middle one for an even count; the only one for a model of one
  seed): the run the reference check checks (``ToleranceModel.seeds``)."""
  return sorted(results, key=lambda r: r.final)[len(results) // 2]


def seed_groups(results: Sequence[jobs_lib.JobResult]
                ) -> Dict[Tuple[str, str, int], List[jobs_lib.JobResult]]:
  """The runs grouped by (game, solver, iterations), in the order first seen: each group holds
  the seeds of one sampling model, of which ``median_run`` is the one checked."""
  grouped: Dict[Tuple[str, str, int], List[jobs_lib.JobResult]] = {}
  for r in results:
    grouped.setdefault((r.job.game, r.job.solver, r.job.iterations), []).append(r)
  return grouped


def checked_runs(results: Sequence[jobs_lib.JobResult]) -> List[jobs_lib.JobResult]:
  """The run checked of each (game, solver, iterations), in the order first seen: the
  ``median_run`` of its seeds (the only run of a solver whose sampling model has one seed)."""
  return [median_run(runs) for runs in seed_groups(results).values()]


def kuhn3_golden_members() -> List[kuhn3_equilibria.Kuhn3Equilibrium]:
  """The members of ``KUHN3_GOLDEN_MEMBERS``."""
  return [kuhn3_equilibria.kuhn3_equilibrium(**p) for p in KUHN3_GOLDEN_MEMBERS]


def kuhn3_member_from_golden(entry: Mapping[str, Any],
                             names: Sequence[str]) -> kuhn3_equilibria.Kuhn3Equilibrium:
  """The member of a ``kuhn3_equilibria.golden_data`` entry (its ranges checked again)."""
  return kuhn3_equilibria.kuhn3_equilibrium(
      **{n: Fraction(v) for n, v in zip(names, entry["parameters"])})


def compute_reference(game_string: str) -> Dict[str, Any]:
  """The references of one game, JSON-ready: LP value, and for Kuhn games the closed form; for
  two-player Kuhn poker with a deck too large for the LP, its continuous limit; for games with
  more than two players, the three-player family where it applies.

  Returns:
    Two players: ``{"game", "lp_value", "lp_value_from_player_1", "closed_form"}`` where
    ``closed_form`` is None or ``{"ante", "bet", "simplified", "regime", "value" (fraction
    string), "default_member": {state: fraction string}, "family": {state: [low, high]}}``.
    A large deck: ``{"game", "closed_form": None, "continuous_limit": {"ante", "bet",
    "simplified", "deck_size", "value" (fraction string)}}``.
    More players: ``{"game", "players", "family"}``, ``family`` None or
    ``kuhn3_equilibria.golden_data(kuhn3_golden_members())`` (value formulas, members' parameters
    and values as fraction strings).
  """
  game = game_loader.load_game(game_string, two_player_zero_sum=False)
  if not game_loader.is_two_player_zero_sum(game):
    family = (kuhn3_equilibria.golden_data(kuhn3_golden_members()) if has_kuhn3_family(game)
              else None)
    return {"game": game_string, "players": game.num_players(), "family": family}
  rules = kuhn_poker_ante.rules_of(game)
  if rules is not None and game_loader.histories(game_string) > game_loader.LP_MAX_HISTORIES:
    value = continuous_kuhn.game_value(rules.ante, rules.bet, rules.simplified)
    return {"game": game_string, "closed_form": None, "continuous_limit": {
        "ante": rules.ante, "bet": rules.bet, "simplified": rules.simplified,
        "deck_size": rules.deck_size, "value": str(value)}}
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
  """The game value of a two-player ``compute_reference`` result and its source: the closed form
  where there is one, the continuous limit for a large deck, else the LP."""
  cf = reference["closed_form"]
  if cf is not None:
    return float(Fraction(cf["value"])), "closed form (kuhn_equilibria)"
  if reference.get("continuous_limit") is not None:
    return (float(Fraction(reference["continuous_limit"]["value"])),
            "continuous limit (continuous_kuhn)")
  return reference["lp_value"], "sequence-form LP"


def limit_allowance(reference: Dict[str, Any]) -> float:
  """How far the game value may lie from ``reference_value``: 0 for the exact references,
  ``deck_thresholds.VALUE_BAND`` (ante + bet) / N for the continuous limit of an N-card deck."""
  limit = reference.get("continuous_limit")
  if limit is None:
    return 0.0
  return deck_thresholds.VALUE_BAND * (limit["ante"] + limit["bet"]) / limit["deck_size"]


def write_golden(references: Sequence[Dict[str, Any]],
                 path: Optional[pathlib.Path] = None) -> None:
  """Writes the golden file (default ``GOLDEN_PATH``) atomically."""
  path = path or GOLDEN_PATH
  path.parent.mkdir(parents=True, exist_ok=True)
  atomic_file.atomic_write_json(path, {
      "description": "Reference equilibria: closed forms (algorithms.exact.kuhn_equilibria, exact "
                     "fractions), sequence-form LP values (algorithms.exact.sequence_form_lp) "
                     "and the three-player Kuhn family (algorithms.exact.kuhn3_equilibria, exact "
                     "fractions).",
      "regenerate": REGENERATE_COMMAND,
      "games": {r["game"]: r for r in references}})


def load_golden(path: Optional[pathlib.Path] = None) -> Dict[str, Dict[str, Any]]:
  """The golden references (default file ``GOLDEN_PATH``) by game string."""
  path = path or GOLDEN_PATH
  return json.loads(path.read_text(encoding="utf-8"))["games"]
