"""Reference check: every solver against the closed-form and LP equilibria, and both against the
golden file.

The references (``experiments.references``), recomputed on every run:

* the closed form of three-card Kuhn poker for any ante a and bet b, both rule sets
  (``algorithms.kuhn_equilibria``; H. W. Kuhn, "A simplified form of poker", 1950): the game
  value, the regime, and the equilibrium family (the free parameters and their ranges);
* the sequence-form LP (``algorithms.sequence_form_lp``; Koller, Megiddo, von Stengel 1994): the
  game value of any small game (here also Leduc poker) and one equilibrium.

They are compared with the golden file ``experiments/golden/reference_equilibria.json`` (closed
forms exactly, as fractions; LP values within rounding), with each other, and OpenSpiel's
exploitability of the closed-form equilibrium and of the LP equilibrium must be 0. Regenerate the
golden file, after a deliberate change of a reference, from a source checkout with::

  python -m experiments reference-check --regenerate-golden

Then, for every game and solver, after T iterations the solver's average policy sbar must have:

* exploitability (OpenSpiel's, NashConv / 2) at most ``references.exploitability_tolerance``;
* value u_0(sbar, sbar) within NashConv(sbar) of the game value v* (``checks.within_nash_conv``);
* bluff and call frequencies (Kuhn games) in the closed-form family
  (``references.family_checks``), within ``references.strategy_tolerance``.
"""

import argparse
import fractions
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pandas as pd

from algorithms import kuhn_equilibria
from algorithms import sequence_form_lp
from experiments import arguments
from experiments import checks
from experiments import games
from experiments import jobs as jobs_lib
from experiments import provenance
from experiments import references
from experiments import solver_registry
from experiments import tables
from experiments.checks import Check
from experiments.context import Context
from experiments.report_section import ReportSection

Fraction = fractions.Fraction

NAME = "reference-check"
HELP = ("Solvers against closed-form and LP equilibria, and those against the golden file; "
        "exits non-zero on any failure.")

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
ITERATIONS = arguments.Budget(default=1000, quick=200)
LEDUC_ITERATIONS = 60  # Leduc: 50x the nodes of Kuhn; exploitability and value checks only.
# On Leduc (120 deals) sampled solvers would need far more iterations than the full-traversal
# ones, so only full-traversal solvers are checked there.


def golden_checks(reference: Dict[str, Any], golden: Optional[Dict[str, Any]]) -> List[Check]:
  """Recomputed references against the golden file (missing golden entries fail)."""
  game = reference["game"]
  source = f"golden file ({references.GOLDEN_PATH.name})"
  if golden is None:
    return [checks.within(f"{game}: golden entry exists", 0.0, 1.0, 0.0,
                          f"{source}; run {references.REGENERATE_COMMAND}")]
  found = [checks.same_number(f"{game}: LP value = golden", reference["lp_value"],
                              golden["lp_value"], source)]
  cf, golden_cf = reference["closed_form"], golden["closed_form"]
  if cf is not None:
    if golden_cf is None:
      return found + [checks.within(f"{game}: golden closed form exists", 0.0, 1.0, 0.0, source)]
    found.append(checks.within(f"{game}: closed-form value {cf['value']} = golden",
                               float(Fraction(cf["value"])), float(Fraction(golden_cf["value"])),
                               0.0, source))
    differing = [s for s in cf["default_member"]
                 if cf["default_member"][s] != golden_cf["default_member"].get(s)
                 or cf["family"][s] != golden_cf["family"].get(s)]
    found.append(checks.within(f"{game}: closed-form strategies and family ranges = golden "
                               f"(states differing: {differing or 'none'})",
                               float(len(differing)), 0.0, 0.0, source))
  return found


def consistency_checks(reference: Dict[str, Any]) -> List[Check]:
  """LP against closed form, and both equilibria have exploitability 0 (OpenSpiel)."""
  game_string = reference["game"]
  game = games.load_game(game_string)
  solution = sequence_form_lp.solve_game(game)
  found = [
      checks.same_number(f"{game_string}: LP value, player 0 vs player 1 program",
                         reference["lp_value"], reference["lp_value_from_player_1"],
                         "LP duality"),
      checks.same_number(f"{game_string}: exploitability of the LP equilibrium",
                         exploitability.exploitability(game, solution.policy), 0.0,
                         "OpenSpiel exploitability; 0 at an equilibrium")]
  cf = reference["closed_form"]
  if cf is not None:
    rules = references.kuhn_rules_of(game)
    equilibrium = kuhn_equilibria.kuhn_equilibrium(rules.ante, rules.bet, rules.simplified)
    member = equilibrium.policy(game)
    found += [
        checks.same_number(f"{game_string}: LP value = closed form ({cf['regime']})",
                           reference["lp_value"], float(Fraction(cf["value"])),
                           "closed form (kuhn_equilibria)"),
        checks.same_number(f"{game_string}: exploitability of the closed-form equilibrium",
                           exploitability.exploitability(game, member), 0.0,
                           "OpenSpiel exploitability; 0 at an equilibrium"),
        checks.same_number(
            f"{game_string}: value of the closed-form equilibrium",
            expected_game_score.policy_value(game.new_initial_state(), [member, member])[0],
            float(Fraction(cf["value"])), "closed form (kuhn_equilibria)")]
    found += references.family_checks(f"{game_string} LP equilibrium", rules,
                                      references.policy_probabilities(solution.policy),
                                      checks.ROUNDING)
  return found


def make_jobs(game_strings: Sequence[str], solvers: Sequence[str], seed: int,
              iterations: Optional[int], quick: bool) -> List[jobs_lib.Job]:
  """One job per game and solver. T is ``iterations`` if given, else ``ITERATIONS`` (resolved
  with ``quick``; ``LEDUC_ITERATIONS`` on Leduc); sampled solvers run
  ``solver_registry.SAMPLED_BUDGET_FACTOR`` T and skip Leduc unless iterations are given."""
  found = []
  for game in game_strings:
    leduc = game.startswith("leduc_poker")
    for solver in solvers:
      sampled = solver_registry.get_solver(solver).sampled
      if iterations:
        budget = iterations
      elif leduc and sampled:
        continue
      else:
        budget = LEDUC_ITERATIONS if leduc else ITERATIONS.resolve(None, quick)
        budget *= solver_registry.SAMPLED_BUDGET_FACTOR if sampled else 1
      found.append(jobs_lib.Job(NAME, game, solver, seed, budget, keep_policy=True))
  return found


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
  def cell(found: Sequence[Check]) -> str:
    if not found:
      return "-"
    passed = sum(c.passed for c in found)
    return f"{passed}/{len(found)}" + ("" if passed == len(found) else " FAIL")
  return pd.DataFrame([{"game": game, "references": cell(found),
                        **{s: cell(run_checks.get((game, s), ())) for s in solvers}}
                       for game, found in reference_checks.items()],
                      columns=["game", "references", *solvers])


def strategy_frame(results: Sequence[jobs_lib.JobResult]) -> pd.DataFrame:
  """Measured probability of action 1 at every state, per game and solver (Kuhn games)."""
  rows = []
  for r in results:
    for state, probs in sorted(r.solved.policy.items()):
      if len(probs) == 2:
        rows.append({"game": r.job.game, "solver": r.job.solver, "state": state,
                     "p_bet_or_call": probs[1]})
  return pd.DataFrame(rows, columns=["game", "solver", "state", "p_bet_or_call"])


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--game", action="append", type=arguments.game_string,
                      metavar="GAME_STRING", help="game (repeatable; default: "
                      + ", ".join(REFERENCE_GAMES) + "; with --quick all but leduc_poker)")
  parser.add_argument("--solver", action="append", type=arguments.solver_name, metavar="NAME",
                      help="solver (repeatable; default: "
                      + ", ".join(solver_registry.report_solvers()) + ")")
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help=ITERATIONS.help("iterations per solver")[:-1]
                      + f"; {LEDUC_ITERATIONS} on leduc_poker)")
  parser.add_argument("--regenerate-golden", action="store_true",
                      help=f"rewrite {references.GOLDEN_PATH.name} from the recomputed "
                      "references first (needs a source checkout)")


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  selected = args.game or list(QUICK_GAMES if ctx.quick else REFERENCE_GAMES)
  solvers = args.solver or solver_registry.report_solvers()
  if args.regenerate_golden and provenance.source_checkout() is None:
    raise ValueError("--regenerate-golden rewrites the golden file of a source checkout; this "
                     f"is an installed copy ({references.GOLDEN_PATH})")
  sweep = make_jobs(selected, solvers, ctx.seed, args.iterations, ctx.quick)
  ctx.check_sizes(selected)  # Refuse oversized games before the references' LPs.
  computed = [references.compute_reference(g) for g in selected]
  if args.regenerate_golden:
    references.write_golden(computed + [references.compute_reference(g)
                                        for g in REFERENCE_GAMES if g not in selected])
  golden = references.load_golden()
  reference_checks = {r["game"]: golden_checks(r, golden.get(r["game"])) + consistency_checks(r)
                      for r in computed}
  results = ctx.run_jobs(sweep)
  by_game = {r["game"]: r for r in computed}
  run_checks = {(r.job.game, r.job.solver): references.solver_run_checks(r, by_game[r.job.game])
                for r in results}
  found = [c for group in (*reference_checks.values(), *run_checks.values()) for c in group]
  pass_fail = pass_fail_frame(reference_checks, run_checks, solvers)
  tables.write_csv(pass_fail, ctx.out / PASS_FAIL_TABLE)
  summary = pd.DataFrame([{
      "game": r.job.game, "solver": r.job.solver, "T": r.job.iterations,
      "exploitability": r.solved.openspiel, "value": r.value,
      "reference value": references.reference_value(by_game[r.job.game])[0]} for r in results],
      columns=["game", "solver", "T", "exploitability", "value", "reference value"])
  tables.write_csv(summary, ctx.out / "solvers.csv")
  strategies = strategy_frame([r for r in results
                               if by_game[r.job.game]["closed_form"] is not None])
  tables.write_csv(strategies, ctx.out / "strategies.csv")
  refs = pd.DataFrame([{"game": r["game"], "regime": (r["closed_form"] or {}).get("regime", "-"),
                        "closed-form value": (r["closed_form"] or {}).get("value", "-"),
                        "LP value": r["lp_value"]} for r in computed])
  markdown = (
      "Checks passed per game: of the references (golden file; closed form against LP) and of "
      "each solver's run:\n\n" + tables.markdown_table(pass_fail) + "\n\n"
      "References recomputed and compared with the golden file "
      f"`experiments/golden/{references.GOLDEN_PATH.name}` (regenerate: "
      f"`{references.REGENERATE_COMMAND}`):\n\n" + tables.markdown_table(refs, digits=8)
      + "\n\nSolvers' average policies after T iterations: exploitability (OpenSpiel; tolerance "
      "(max - min utility) / (16 sqrt(T))), value against the reference (tolerance: the "
      "policy's NashConv), bluff and call frequencies against the closed-form family "
      f"(tolerance 1/sqrt(T)). Sampled solvers run {solver_registry.SAMPLED_BUDGET_FACTOR}x the "
      f"iterations with {references.SAMPLED_FACTOR:g}x the exploitability and "
      f"{references.SAMPLED_STRATEGY_FACTOR:g}x the strategy tolerance (their strategies converge "
      "slowly where the equilibrium pins a frequency only weakly, e.g. P0's K bet at ante 0.75), "
      "and are not checked on Leduc.\n\n" + tables.markdown_table(summary, digits=5))
  return ReportSection(title="Reference check: solvers against closed forms and the LP",
                       markdown=markdown,
                       tables=[PASS_FAIL_TABLE, "solvers.csv", "strategies.csv"],
                       checks=found)
