"""Reference check: every solver against the closed-form and LP equilibria, and both against the
golden files.

References, recomputed on every run:

* the closed form of three-card Kuhn poker for any ante a and bet b, both rule sets
  (``algorithms.kuhn_equilibria``; H. W. Kuhn, "A simplified form of poker", 1950): the game
  value, the regime, and the equilibrium family (the free parameters and their ranges);
* the sequence-form LP (``algorithms.sequence_form_lp``; Koller, Megiddo, von Stengel 1994): the
  game value of any small game (here also Leduc poker) and one equilibrium.

They are compared with the golden file ``experiments/golden/reference_equilibria.json`` (closed
forms exactly, as fractions; LP values within ``LP_TOLERANCE``), with each other, and OpenSpiel's
exploitability of the closed-form equilibrium and of the LP equilibrium must be 0. Regenerate the
golden file, after a deliberate change of a reference, with::

  python -m experiments reference-check --regenerate-golden

Then, for every game and solver, after T iterations the solver's average policy sbar must have:

* exploitability (OpenSpiel's, NashConv / 2) at most ``exploitability_tolerance(solver, T)``;
* value u_0(sbar, sbar) within NashConv(sbar) = 2 exploitability of the game value v*: for any
  profile, u_0 and v* both lie between min_s1 u_0(sbar_0, s1) and max_s0 u_0(s0, sbar_1), whose
  difference is the NashConv;
* bluff and call frequencies (Kuhn games) in the closed-form family: the measured free parameters
  (e.g. Kuhn's alpha, the J bluff of player 0), clipped into their ranges, select a member of the
  family, and every checked frequency must be within ``strategy_tolerance(solver, T)`` of that
  member, which checks the family's relations (K bet = 3 alpha, Q call = alpha + 1/3, ...) rather
  than one member.
"""

import argparse
import fractions
import itertools
import json
import math
import pathlib
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd
import pyspiel
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability

from algorithms import atomic_file
from algorithms import kuhn_equilibria
from algorithms import sequence_form_lp
from experiments import cli
from experiments import report
from experiments import solver_registry
from experiments import sweep
from experiments.report_section import Check, ReportSection
from spiel_games import kuhn_poker_ante
from spiel_games import kuhn_rules

Fraction = fractions.Fraction

NAME = "reference-check"
HELP = ("Solvers against closed-form and LP equilibria, and those against the golden files; "
        "exits non-zero on any failure.")

GOLDEN_PATH = pathlib.Path(__file__).resolve().parent / "golden" / "reference_equilibria.json"
REGENERATE_COMMAND = "python -m experiments reference-check --regenerate-golden"
PASS_FAIL_TABLE = "pass_fail.csv"  # The pass/fail summary (pass_fail_frame), also copied to docs/.
# One game per regime of both rule sets (algorithms.kuhn_equilibria), a bet other than 1, and
# Leduc poker (LP reference only).
REFERENCE_GAMES = (
    "kuhn_poker",
    "kuhn_poker_ante(ante=0.25)",
    "kuhn_poker_ante(ante=0.5)",
    "kuhn_poker_ante(ante=0.75)",
    "kuhn_poker_ante(ante=2.0)",
    "kuhn_poker_ante(ante=3.0,bet=2.0)",
    "kuhn_poker_ante(ante=0.25,simplified=True)",
    "kuhn_poker_ante(ante=1.0,simplified=True)",
    "kuhn_poker_ante(ante=1.0,bet=0.5,simplified=True)",
    "leduc_poker",
)
QUICK_GAMES = REFERENCE_GAMES[:-1]  # Leduc's solvers take too long for --quick; its LP stays.
DEFAULT_SOLVERS = ("cfr", "cfr_plus", "our_cfr", "our_cfr_plus", "cs_cfr", "cfr_avg_d1")
ITERATIONS = 1000
QUICK_ITERATIONS = 200
LEDUC_ITERATIONS = 60  # Leduc: 50x the nodes of Kuhn; exploitability and value checks only.
# Sampled solvers run solver_registry.SAMPLED_BUDGET_FACTOR times the iterations; their
# exploitability tolerance is SAMPLED_FACTOR times the full-traversal one at their own T
# (chance-sampling CFR reaches under 2/3 of it on these games at T = 3000 and 10000, seeds 0-2).
# Their strategies converge much more slowly where the equilibrium pins a frequency only weakly:
# at ante 0.75 (regime p1_bluffs, where P0 must never bet K) the average bets K 0.28 at T = 3000
# with exploitability 0.013. Measured worst distance: about 20/sqrt(T) (T = 3000, 10000, 30000,
# seeds 0-2), hence SAMPLED_STRATEGY_FACTOR. On Leduc (120 deals) sampled solvers would need far
# more iterations, so only full-traversal solvers are checked there.
SAMPLED_FACTOR = 8.0
SAMPLED_STRATEGY_FACTOR = 24.0
# Closed-form values are exact fractions; LP values come from HiGHS with 1e-10 feasibility
# tolerances (algorithms.sequence_form_lp), so two LP solves agree to well within this.
LP_TOLERANCE = 1e-9
# Evaluating an exact equilibrium with OpenSpiel's float best response: rounding only.
EXACT_POLICY_TOLERANCE = 1e-9
# Probabilities of action 1 (bet or call) checked against the family: bluffs, value bets, calls.
CHECKED_STATES_STANDARD = {
    "0": "P0 bets J (bluff)", "2": "P0 bets K", "1pb": "P0 calls with Q after check-bet",
    "0p": "P1 bets J after a check (bluff)", "1b": "P1 calls a bet with Q"}
CHECKED_STATES_SIMPLIFIED = {"0": "P0 bets J (bluff)", "1b": "P1 calls a bet with Q"}


def exploitability_tolerance(game: pyspiel.Game, solver: str, iterations: int) -> float:
  """Allowed final exploitability: c Delta / sqrt(T), Delta = max - min utility of the game.

  The O(1/sqrt(T)) rate of CFR's regret bound (Zinkevich et al. 2007, Theorem 4) with a constant
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


def kuhn_rules_of(game: pyspiel.Game) -> Optional[kuhn_rules.KuhnRules]:
  """The rules of a three-card Kuhn game (``kuhn_poker`` or ``kuhn_poker_ante``), else None."""
  rules = kuhn_poker_ante.rules_of(game)
  return rules if rules is not None and rules.deck_size == 3 else None


def checked_states(rules: kuhn_rules.KuhnRules) -> Dict[str, str]:
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


def compute_reference(game_string: str) -> Dict[str, Any]:
  """The references of one game, JSON-ready: LP value, and for Kuhn games the closed form.

  Returns:
    ``{"game", "lp_value", "lp_value_from_player_1", "closed_form"}`` where ``closed_form`` is
    None or ``{"ante", "bet", "simplified", "regime", "value" (fraction string),
    "default_member": {state: fraction string}, "family": {state: [low, high]}}``.
  """
  game = solver_registry.load_game(game_string)
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


def golden_checks(reference: Dict[str, Any], golden: Optional[Dict[str, Any]]) -> List[Check]:
  """Recomputed references against the golden file (missing golden entries fail)."""
  game = reference["game"]
  source = f"golden file ({GOLDEN_PATH.name})"
  if golden is None:
    return [Check(f"{game}: golden entry exists", 0.0, 1.0, 0.0, f"{source}; run "
                  f"{REGENERATE_COMMAND}")]
  checks = [Check(f"{game}: LP value = golden", reference["lp_value"], golden["lp_value"],
                  LP_TOLERANCE, source)]
  cf, golden_cf = reference["closed_form"], golden["closed_form"]
  if cf is not None:
    if golden_cf is None:
      return checks + [Check(f"{game}: golden closed form exists", 0.0, 1.0, 0.0, source)]
    checks.append(Check(f"{game}: closed-form value {cf['value']} = golden",
                        float(Fraction(cf["value"])), float(Fraction(golden_cf["value"])),
                        0.0, source))
    differing = [s for s in cf["default_member"]
                 if cf["default_member"][s] != golden_cf["default_member"].get(s)
                 or cf["family"][s] != golden_cf["family"].get(s)]
    checks.append(Check(f"{game}: closed-form strategies and family ranges = golden (states "
                        f"differing: {differing or 'none'})", float(len(differing)), 0.0, 0.0,
                        source))
  return checks


def consistency_checks(reference: Dict[str, Any]) -> List[Check]:
  """LP against closed form, and both equilibria have exploitability 0 (OpenSpiel)."""
  game_string = reference["game"]
  game = solver_registry.load_game(game_string)
  solution = sequence_form_lp.solve_game(game)
  checks = [
      Check(f"{game_string}: LP value, player 0 vs player 1 program", reference["lp_value"],
            reference["lp_value_from_player_1"], LP_TOLERANCE, "LP duality"),
      Check(f"{game_string}: exploitability of the LP equilibrium",
            exploitability.exploitability(game, solution.policy), 0.0, EXACT_POLICY_TOLERANCE,
            "OpenSpiel exploitability; 0 at an equilibrium")]
  cf = reference["closed_form"]
  if cf is not None:
    rules = kuhn_rules_of(game)
    equilibrium = kuhn_equilibria.kuhn_equilibrium(rules.ante, rules.bet, rules.simplified)
    member = equilibrium.policy(game)
    checks += [
        Check(f"{game_string}: LP value = closed form ({cf['regime']})", reference["lp_value"],
              float(Fraction(cf["value"])), LP_TOLERANCE, "closed form (kuhn_equilibria)"),
        Check(f"{game_string}: exploitability of the closed-form equilibrium",
              exploitability.exploitability(game, member), 0.0, EXACT_POLICY_TOLERANCE,
              "OpenSpiel exploitability; 0 at an equilibrium"),
        Check(f"{game_string}: value of the closed-form equilibrium",
              expected_game_score.policy_value(game.new_initial_state(), [member, member])[0],
              float(Fraction(cf["value"])), EXACT_POLICY_TOLERANCE,
              "closed form (kuhn_equilibria)")]
    checks += strategy_checks(f"{game_string} LP equilibrium", rules,
                              policy_probabilities(solution.policy), EXACT_POLICY_TOLERANCE)
  return checks


def policy_probabilities(tabular) -> Dict[str, float]:
  """Probability of action 1 at each information state of a tabular policy."""
  return {s: float(tabular.action_probability_array[i][1])
          for s, i in tabular.state_lookup.items()}


def strategy_checks(label: str, rules: kuhn_rules.KuhnRules, probabilities: Mapping[str, float],
                    tolerance: float) -> List[Check]:
  """Checked bluff and call frequencies against the family member they select."""
  member = kuhn_equilibria.member_matching(rules.ante, rules.bet, rules.simplified,
                                          probabilities).action_probabilities()
  regime = kuhn_equilibria.regime_of(rules.ante, rules.bet, rules.simplified).name
  source = (f"closed-form family ({regime})"
            if kuhn_equilibria.family_parameters(rules.ante, rules.bet, rules.simplified)
            else "closed form (unique)")
  return [Check(f"{label}: {description} [{state}]", probabilities[state], float(member[state]),
                tolerance, source)
          for state, description in checked_states(rules).items()]


def make_jobs(games: Sequence[str], solvers: Sequence[str], seed: int,
              iterations: Optional[int], quick: bool) -> List[sweep.Job]:
  """One job per game and solver. T is ``iterations`` if given, else ``ITERATIONS``
  (``QUICK_ITERATIONS`` with quick; ``LEDUC_ITERATIONS`` on Leduc); sampled solvers run
  ``solver_registry.SAMPLED_BUDGET_FACTOR`` T and skip Leduc unless iterations are given."""
  jobs = []
  for game in games:
    leduc = game.startswith("leduc_poker")
    for solver in solvers:
      sampled = solver_registry.get_solver(solver).sampled
      if iterations:
        budget = iterations
      elif leduc and sampled:
        continue
      else:
        budget = LEDUC_ITERATIONS if leduc else QUICK_ITERATIONS if quick else ITERATIONS
        budget *= solver_registry.SAMPLED_BUDGET_FACTOR if sampled else 1
      jobs.append(sweep.Job(NAME, game, solver, seed, budget))
  return jobs


def reference_job(job: sweep.Job) -> sweep.JobResult:
  """Runs one (game, solver, seed) for ``job.budget`` iterations; keeps the final policy."""
  return solver_registry.solve(job.game, job.solver, job.seed, job.budget)


def reference_value(reference: Dict[str, Any]) -> Tuple[float, str]:
  """The game value of a ``compute_reference`` result and its source: the closed form where there
  is one, else the LP."""
  cf = reference["closed_form"]
  if cf is not None:
    return float(Fraction(cf["value"])), "closed form (kuhn_equilibria)"
  return reference["lp_value"], "sequence-form LP"


def solver_checks(result: sweep.JobResult, reference: Dict[str, Any]) -> List[Check]:
  """Exploitability, value and (Kuhn games) strategy checks of one solver run."""
  job = result["job"]
  label = f"{job['game']} {job['solver']} T={job['budget']}"
  expl = result["openspiel_exploitability"]
  cf = reference["closed_form"]
  value_ref, value_source = reference_value(reference)
  game = solver_registry.load_game(job["game"])
  checks = [
      Check(f"{label}: exploitability", expl, 0.0,
            exploitability_tolerance(game, job["solver"], job["budget"]),
            "0 at equilibrium; tolerance c (max - min utility) / sqrt(T)"),
      Check(f"{label}: value of the average policy", result["value"], value_ref,
            2 * expl + LP_TOLERANCE, f"{value_source}; tolerance NashConv = 2 exploitability")]
  if cf is not None:
    rules = kuhn_rules.KuhnRules(ante=cf["ante"], bet=cf["bet"], simplified=cf["simplified"])
    probabilities = {s: p[1] for s, p in result["policy"].items()}
    checks += strategy_checks(label, rules, probabilities,
                              strategy_tolerance(job["solver"], job["budget"]))
  return checks


def pass_fail_frame(reference_checks: Mapping[str, Sequence[Check]],
                    run_checks: Mapping[Tuple[str, str], Sequence[Check]],
                    solvers: Sequence[str]) -> pd.DataFrame:
  """The pass/fail summary: one row per game, checks passed / checks made per column.

  Args:
    reference_checks: by game, the checks of its references (golden file, closed form vs LP).
    run_checks: by (game, solver), the checks of that solver run.
    solvers: the solver columns, in order.

  Returns:
    Columns "game", "references" and one per solver; a cell is "passed/total", with " FAIL"
    appended when a check failed, or "-" where nothing was checked (e.g. sampled solvers on Leduc).
  """
  def cell(checks: Sequence[Check]) -> str:
    if not checks:
      return "-"
    passed = sum(c.passed for c in checks)
    return f"{passed}/{len(checks)}" + ("" if passed == len(checks) else " FAIL")
  return pd.DataFrame([{"game": game, "references": cell(checks),
                        **{s: cell(run_checks.get((game, s), ())) for s in solvers}}
                       for game, checks in reference_checks.items()],
                      columns=["game", "references", *solvers])


def strategy_frame(results: Sequence[sweep.JobResult]) -> pd.DataFrame:
  """Measured probability of action 1 at every state, per game and solver (Kuhn games)."""
  rows = []
  for r in results:
    for state, probs in sorted(r["policy"].items()):
      if len(probs) == 2:
        rows.append({"game": r["job"]["game"], "solver": r["job"]["solver"], "state": state,
                     "p_bet_or_call": probs[1]})
  return pd.DataFrame(rows, columns=["game", "solver", "state", "p_bet_or_call"])


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--game", action="append", type=cli.game_string, metavar="GAME_STRING",
                      help="game (repeatable; default: " + ", ".join(REFERENCE_GAMES) + ")")
  parser.add_argument("--solver", action="append", type=cli.solver_name, metavar="NAME",
                      help="solver (repeatable; default: " + ", ".join(DEFAULT_SOLVERS) + ")")
  parser.add_argument("--iterations", type=cli.positive_int, metavar="T",
                      help=f"iterations per solver (default {ITERATIONS}, {QUICK_ITERATIONS} "
                      f"with --quick, {LEDUC_ITERATIONS} on leduc_poker)")
  parser.add_argument("--regenerate-golden", action="store_true",
                      help=f"rewrite {GOLDEN_PATH.name} from the recomputed references first")


def run(args: argparse.Namespace) -> ReportSection:
  games = args.game or list(QUICK_GAMES if args.quick else REFERENCE_GAMES)
  solvers = args.solver or list(DEFAULT_SOLVERS)
  references = [compute_reference(g) for g in games]
  if args.regenerate_golden:
    write_golden(references + [compute_reference(g) for g in REFERENCE_GAMES if g not in games])
  golden = load_golden()
  reference_checks = {r["game"]: golden_checks(r, golden.get(r["game"])) + consistency_checks(r)
                      for r in references}
  jobs = make_jobs(games, solvers, args.seed, args.iterations, args.quick)
  with sweep.make_executor(args.workers, args.dask) as executor:
    results = sweep.run_jobs(jobs, reference_job, args.out / "jobs", executor,
                             quiet=args.quiet, description=NAME)
  by_game = {r["game"]: r for r in references}
  run_checks = {(r["job"]["game"], r["job"]["solver"]): solver_checks(r, by_game[r["job"]["game"]])
                for r in results}
  checks = [c for group in (*reference_checks.values(), *run_checks.values()) for c in group]
  pass_fail = pass_fail_frame(reference_checks, run_checks, solvers)
  report.write_csv(pass_fail, args.out / PASS_FAIL_TABLE)
  summary = pd.DataFrame([{
      "game": r["job"]["game"], "solver": r["job"]["solver"], "T": r["job"]["budget"],
      "exploitability": r["openspiel_exploitability"], "value": r["value"],
      "reference value": reference_value(by_game[r["job"]["game"]])[0]} for r in results])
  report.write_csv(summary, args.out / "solvers.csv")
  strategies = strategy_frame([r for r in results
                               if by_game[r["job"]["game"]]["closed_form"] is not None])
  report.write_csv(strategies, args.out / "strategies.csv")
  refs = pd.DataFrame([{"game": r["game"], "regime": (r["closed_form"] or {}).get("regime", "-"),
                        "closed-form value": (r["closed_form"] or {}).get("value", "-"),
                        "LP value": r["lp_value"]} for r in references])
  markdown = (
      "Checks passed per game: of the references (golden file; closed form against LP) and of "
      "each solver's run:\n\n" + report.markdown_table(pass_fail) + "\n\n"
      "References recomputed and compared with the golden file "
      f"`experiments/golden/{GOLDEN_PATH.name}` (regenerate: `{REGENERATE_COMMAND}`):\n\n"
      + report.markdown_table(refs, digits=8)
      + "\n\nSolvers' average policies after T iterations: exploitability (OpenSpiel; tolerance "
      "(max - min utility) / (16 sqrt(T))), value against the reference (tolerance: the "
      "policy's NashConv), bluff and call frequencies against the closed-form family "
      f"(tolerance 1/sqrt(T)). Sampled solvers run {solver_registry.SAMPLED_BUDGET_FACTOR}x the "
      f"iterations with {SAMPLED_FACTOR:g}x the exploitability and {SAMPLED_STRATEGY_FACTOR:g}x "
      "the strategy tolerance (their strategies converge slowly where the equilibrium pins a "
      "frequency only weakly, e.g. P0's K bet at ante 0.75), and are not checked on Leduc.\n\n"
      + report.markdown_table(summary, digits=5))
  return ReportSection(title="Reference check: solvers against closed forms and the LP",
                       markdown=markdown,
                       tables=[PASS_FAIL_TABLE, "solvers.csv", "strategies.csv"],
                       checks=checks)
