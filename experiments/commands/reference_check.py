"""Reference check: every solver against the closed-form and LP equilibria, and both against the
golden file.

The references (``experiments.harness.references``), recomputed on every run:

* the closed form of three-card Kuhn poker for any ante a and bet b, both rule sets
  (``algorithms.exact.kuhn_equilibria``; H. W. Kuhn, "A simplified form of poker", 1950): the game
  value, the regime, and the equilibrium family (the free parameters and their ranges);
* the sequence-form LP (``algorithms.exact.sequence_form_lp``; Koller, Megiddo, von Stengel 1994):
  the game value of any small game (here also Leduc poker) and one equilibrium.

* the Szafron-Gibson-Sturtevant family of three-player Kuhn poker at ante = bet = 1
  (``algorithms.exact.kuhn3_equilibria``; AAMAS 2013): the value formulas and a handful of members
  (``references.KUHN3_GOLDEN_MEMBERS``) with their exact values.

They are compared with the golden file ``experiments/harness/golden/reference_equilibria.json``
(closed forms and the three-player family exactly, as fractions; LP values within rounding), with
each other, and OpenSpiel's exploitability of the closed-form equilibrium and of the LP equilibrium
must be 0. Each recorded three-player member is certified again on the game: an exact best
response in fractions gives NashConv exactly 0 and the values of the formulas
(``algorithms.exact.exact_nash_conv``), and OpenSpiel's ``nash_conv`` of it is 0 up to rounding.
Regenerate the golden file, after a deliberate change of a reference, from a source checkout
with::

  python -m experiments reference-check --regenerate-golden

Then, for every two-player game and solver, after T iterations the solver's average policy sbar
must have:

* exploitability (OpenSpiel's, NashConv / 2) at most ``references.exploitability_tolerance``;
* value u_0(sbar, sbar) within NashConv(sbar) of the game value v* (``checks.within_nash_conv``);
* bluff and call frequencies (Kuhn games) in the closed-form family
  (``references.family_checks``), within ``references.strategy_tolerance`` (not for MCCFR).

With more than two players exploitability gives way to NashConv
(``references.n_player_run_checks``): the tree's NashConv equals OpenSpiel's, NashConv is at
most ``references.nash_conv_tolerance``, and on three-player Kuhn poker every player's value is
within ``references.family_value_tolerance`` of the nearest family member's. CFR has no n-player
guarantee: these tolerances are measured constants with a stated margin.

Each solver is checked with the tolerance model of its kind (``experiments.harness.solver_kinds``,
the constants measured there): full width with alternating updates the base tolerances; with
simultaneous updates 2 times them and its frequencies within 6/sqrt(T); chance-sampled CFR one seed
with 13 times the exploitability tolerance (16 with more players) and its frequencies within
32/sqrt(T); MCCFR ``solver_kinds.MCCFR_SEEDS`` seeds, the run of median exploitability (NashConv)
checked (``references.median_run``) with 32 times the tolerances (36 with more players) and no
frequency checked. ``--solver-kind`` declares the kind of the ``package.module:Name`` solvers
(unknown: MCCFR's model, the loosest), ``--seeds-must-all-pass`` checks every seed's run.

``--solver`` also takes ``package.module:Name``, any class or factory outside the project
(``experiments.harness.external_solvers``: its interface is detected; ``--solver-arg`` gives
constructor options, ``--import`` imports modules first, e.g. one that registers games). Those
solvers run in this process through ``solver_check.check_solver``, the same check as a Python
API; a game outside ``REFERENCE_GAMES`` has no golden entry and is checked against its
recomputed references only.
"""

import argparse
import fractions
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pandas as pd

from algorithms.exact import exact_nash_conv
from algorithms.exact import kuhn_equilibria
from algorithms.exact import sequence_form_lp
from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import external_solvers
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import provenance
from experiments.harness import references
from experiments.harness import solver_check
from experiments.harness import solver_kinds
from experiments.harness import solver_registry
from experiments.harness import tables
from experiments.harness import templates
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

Fraction = fractions.Fraction

NAME = "reference-check"
REPORT_ORDER = 10  # Place in the report (and in ``run``).
HELP = ("Solvers against closed-form and LP equilibria, and those against the golden file; "
        "exits non-zero on any failure.")

PASS_FAIL_TABLE = "pass_fail.csv"  # The pass/fail summary (pass_fail_frame), also copied to docs/.
N_PLAYER_TABLE = "solvers_n_player.csv"  # Runs on games with more than two players.
# The games and budgets, shared with the Python API (experiments.harness.solver_check).
REFERENCE_GAMES = solver_check.REFERENCE_GAMES
QUICK_GAMES = solver_check.QUICK_GAMES
ITERATIONS = solver_check.ITERATIONS
LEDUC_ITERATIONS = solver_check.LEDUC_ITERATIONS
# The report's words, in ``reference_check.md`` beside this file.
CAPTIONS = templates.load(__package__, "reference_check.md")


def _exact_gap(values: Sequence[Any], reference: Sequence[Any]) -> float:
  """The largest |a - b| over two sequences of numbers or fraction strings, computed exactly;
  inf if their lengths differ."""
  if len(values) != len(reference):
    return float("inf")
  return float(max((abs(Fraction(a) - Fraction(b)) for a, b in zip(values, reference)),
                   default=Fraction(0)))


def family_golden_checks(game: str, family: Dict[str, Any], golden: Optional[Dict[str, Any]],
                         source: str) -> List[Check]:
  """The three-player family's recomputed data (``kuhn3_equilibria.golden_data``) against the
  golden entry: the value formulas and parameter names as text, and each member's parameters
  and values exactly (fractions)."""
  if golden is None:
    return [checks.within(f"{game}: golden family exists", 0.0, 1.0, 0.0, source)]
  text = ("value_formulas", "parameter_names")
  differing = [k for k in text if family[k] != golden.get(k)]
  found = [checks.within(f"{game}: family value formulas and parameter names = golden "
                         f"(differing: {differing or 'none'})", float(len(differing)), 0.0, 0.0,
                         source),
           checks.within(f"{game}: family members recorded = golden", len(family["members"]),
                         len(golden.get("members", [])), 0.0, source)]
  for i, (member, recorded) in enumerate(zip(family["members"], golden.get("members", []))):
    found.append(checks.within(
        f"{game}: family member {i} ({member['sub_family']}, values "
        f"{', '.join(member['values'])}) parameters and values = golden",
        max(_exact_gap(member["parameters"], recorded["parameters"]),
            _exact_gap(member["values"], recorded["values"])), 0.0, 0.0, source))
  return found


def golden_checks(reference: Dict[str, Any], golden: Optional[Dict[str, Any]]) -> List[Check]:
  """Recomputed references against the golden file (a missing entry of a game of
  ``REFERENCE_GAMES`` fails; other games have none)."""
  game = reference["game"]
  source = f"golden file ({references.GOLDEN_PATH.name})"
  if reference.get("players", 2) > 2 and reference["family"] is None:
    return []  # No reference to record (more than two players, no known equilibrium).
  if golden is None and game not in REFERENCE_GAMES:
    return []  # A game outside the list, e.g. one registered by --import: no golden entry.
  if golden is None:
    return [checks.within(f"{game}: golden entry exists", 0.0, 1.0, 0.0,
                          f"{source}; run {references.REGENERATE_COMMAND}")]
  if reference.get("players", 2) > 2:
    return family_golden_checks(game, reference["family"], golden.get("family"), source)
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


def family_certificate_checks(game_string: str, family: Dict[str, Any]) -> List[Check]:
  """Each recorded member of the three-player family, certified on the game: the exact best
  responses (``exact_nash_conv``, fractions) give NashConv exactly 0 and each player's value
  exactly the recorded one (that of the value formulas); OpenSpiel's ``nash_conv`` of it is 0 up
  to rounding."""
  game = game_loader.load_game(game_string, two_player_zero_sum=False)
  tree = exact_nash_conv.ExactGameTree(game)
  found = []
  for i, entry in enumerate(family["members"]):
    member = references.kuhn3_member_from_golden(entry, family["parameter_names"])
    certificate = tree.certificate(member.profile())
    label = f"{game_string}: family member {i} ({references.describe_member(member)})"
    found += [
        checks.within(f"{label}: exact NashConv", float(certificate.nash_conv), 0.0, 0.0,
                      "exact best responses in fractions (exact_nash_conv); 0 at equilibrium"),
        checks.within(f"{label}: exact values = recorded {', '.join(entry['values'])}",
                      _exact_gap(certificate.values, entry["values"]), 0.0, 0.0,
                      "exact tree walk in fractions (exact_nash_conv)"),
        checks.same_number(f"{label}: OpenSpiel NashConv",
                           exploitability.nash_conv(game, member.policy(game)), 0.0,
                           "OpenSpiel exploitability.nash_conv; 0 at equilibrium")]
  return found


def consistency_checks(reference: Dict[str, Any]) -> List[Check]:
  """LP against closed form, and both equilibria have exploitability 0 (OpenSpiel); for the
  three-player family, ``family_certificate_checks``."""
  game_string = reference["game"]
  if reference.get("players", 2) > 2:
    family = reference["family"]
    return family_certificate_checks(game_string, family) if family is not None else []
  game = game_loader.load_game(game_string)
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
              iterations: Optional[int], quick: bool,
              default_solvers: bool = True) -> List[jobs_lib.Job]:
  """One job per game, registry solver and seed. T is ``solver_check.budget`` (``iterations``
  if given, else ``ITERATIONS`` resolved with ``quick``, ``LEDUC_ITERATIONS`` on Leduc;
  ``solver_registry.SAMPLED_BUDGET_FACTOR`` T for sampled solvers, which skip Leduc unless
  iterations are given); each solver runs the seeds of its sampling model from ``seed``
  (``solver_check.seeds_of``: 5 for MCCFR, else ``seed`` only).

  With ``default_solvers``, pairs that ``jobs.skip_reason`` names are left out; else a solver
  that refuses a game is a ValueError (one line).
  """
  found = []
  for game in game_strings:
    for solver in solvers:
      if not jobs_lib.runs_on(solver, game, default_solvers):
        continue
      model = references.sampling_model(solver)
      budget = solver_check.budget(game, model.sampled, iterations, quick)
      if budget is not None:
        found += [jobs_lib.Job(NAME, game, solver, s, budget, keep_policy=True)
                  for s in solver_check.seeds_of(seed, model)]
  return found


def median_runs(results: Sequence[jobs_lib.JobResult]
                ) -> Dict[Tuple[str, str], solver_check.GameCheck]:
  """The registry runs grouped by (game, solver) (``references.seed_groups``: a sweep gives each
  pair one T): the spread of the final measure over seeds and the run that is checked
  (``references.median_run``; the only one of a solver whose sampling model has one seed), its
  checks not yet made."""
  return {(game, solver): solver_check.GameCheck(
      game, iterations=iterations, measure=runs[0].solved.measure,
      measured=tuple(r.final for r in sorted(runs, key=lambda r: r.job.seed)),
      run=references.median_run(runs))
      for (game, solver, iterations), runs in references.seed_groups(results).items()}


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


# The report's headers of the tables' columns, in words with units (the CSV files keep the short
# names).
REFERENCE_HEADERS = {"closed-form value": "closed-form value (chips per hand, player 0)",
                     "LP value": "sequence-form LP value (chips per hand, player 0)"}
SOLVER_HEADERS = {
    "T": "iterations T", "exploitability": "exploitability (chips per hand)",
    "seeds": "seeds (sampled: median run shown)",
    "over seeds": "exploitability over seeds, min to max",
    "value": "value of the average policy (chips per hand, player 0)",
    "reference value": "reference value (chips per hand, player 0)",
    "NashConv": "NashConv (chips per hand)", "values": "players' values (chips per hand)",
    "member's values": "member's values (chips per hand)"}


def strategy_frame(results: Sequence[jobs_lib.JobResult]) -> pd.DataFrame:
  """Measured probability of action 1 at every state, per game and solver (Kuhn games)."""
  rows = []
  for r in results:
    for state, probs in sorted(r.solved.policy.items()):
      if len(probs) == 2:
        rows.append({"game": r.job.game, "solver": r.job.solver, "state": state,
                     "p_bet_or_call": probs[1]})
  return pd.DataFrame(rows, columns=["game", "solver", "state", "p_bet_or_call"])


def solver_choice(text: str) -> str:
  """An argparse type: a registry name, or ``package.module:Name`` (imported in ``run``, after
  ``--import``)."""
  if external_solvers.is_external(text):
    module, _, name = text.partition(external_solvers.SEPARATOR)
    if module and name:
      return text
  return arguments.solver_name(text)


solver_choice.__name__ = "solver name or package.module:Name"


def solver_kind(text: str) -> str:
  """An argparse type: one of ``solver_kinds.KINDS`` (else an error naming them)."""
  try:
    solver_kinds.model_of(text)
  except ValueError as e:
    raise argparse.ArgumentTypeError(str(e)) from None
  return text


solver_kind.__name__ = "solver kind"


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--game", action="append", metavar="GAME_STRING",
                      help="game (repeatable; default: " + ", ".join(REFERENCE_GAMES)
                      + "; with --quick all but leduc_poker, unless a --solver is "
                      "package.module:Name). With more than two players NashConv "
                      "replaces exploitability. Checked after --import, so it may name a game "
                      "that an imported module registers")
  parser.add_argument("--solver", action="append", type=solver_choice,
                      metavar="NAME|MODULE:CLASS",
                      help="solver (repeatable; a registry name, or any class or factory "
                      "package.module:Name called with the game, run through the interface it "
                      "offers (OpenSpiel's Python CFR or MCCFR, pyspiel's C++ CFR or MCCFR, or "
                      "solve(n); docs/bring_your_own_solver.md; default: "
                      + ", ".join(solver_registry.report_solvers()) + ")")
  parser.add_argument("--solver-arg", action="append", default=[], metavar="KEY=VALUE",
                      help="constructor option of every package.module:Name solver (repeatable; "
                      "VALUE read as JSON where it parses, else as text; default: none)")
  parser.add_argument("--import", action="append", default=[], dest="imports", metavar="MODULE",
                      help="import MODULE first, e.g. one that registers your pyspiel games "
                      "(repeatable; default: none)")
  parser.add_argument("--solver-kind", type=solver_kind, metavar="KIND",
                      help="what every package.module:Name solver is, which sets the tolerance "
                      "model it is held to: " + ", ".join(solver_kinds.KINDS) + " (default: "
                      "detected: sampled if its interface is MCCFR's or it takes a seed, "
                      "simultaneous if it has _alternating_updates False, else "
                      "full-width-alternating; unknown: the loosest model)")
  parser.add_argument("--seeds-must-all-pass", action="store_true",
                      help=f"run at least {solver_kinds.MCCFR_SEEDS} seeds of every "
                      "package.module:Name solver and check every run, not the median one")
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help=ITERATIONS.help("iterations per solver")[:-1]
                      + f"; {LEDUC_ITERATIONS} on leduc_poker)")
  parser.add_argument("--regenerate-golden", action="store_true",
                      help=f"rewrite {references.GOLDEN_PATH.name} from the recomputed "
                      "references first (needs a source checkout)")


def n_player_frame(results: Sequence[jobs_lib.JobResult],
                   by_game: Mapping[str, Dict[str, Any]]) -> pd.DataFrame:
  """One row per run on a game with more than two players: NashConv, the players' values and,
  on three-player Kuhn poker, the nearest family member and its values."""
  rows = []
  for r in results:
    row = {"game": r.job.game, "solver": r.job.solver, "T": r.job.iterations,
           "NashConv": r.solved.openspiel,
           "values": ", ".join(f"{v:+.5f}" for v in r.values),
           "nearest family member": "-", "member's values": "-"}
    if by_game[r.job.game]["family"] is not None:
      member = references.nearest_kuhn3_member(r).member
      row["nearest family member"] = references.describe_member(member)
      row["member's values"] = ", ".join(f"{float(v):+.5f}" for v in member.values)
    rows.append(row)
  return pd.DataFrame(rows, columns=["game", "solver", "T", "NashConv", "values",
                                     "nearest family member", "member's values"])


def external_reports(names: Sequence[str], args: argparse.Namespace, ctx: Context,
                     selected: Sequence[str], cache: Dict[str, Dict[str, Any]]
                     ) -> List[solver_check.ReferenceReport]:
  """The checks of the ``package.module:Name`` solvers (``solver_check.check_solver``, in this
  process: their classes need not be picklable), with the ``--solver-arg`` options; every
  factory is imported before any runs. ``cache``: the references by game, filled."""
  options = external_solvers.parse_options(args.solver_arg)
  loaded = [external_solvers.ExternalSolver.from_spec(name, options) for name in names]
  return [solver_check.check_solver(solver, selected, args.iterations, ctx.quick, seed=ctx.seed,
                                    reference_of=cache, kind=args.solver_kind,
                                    seeds_must_all_pass=args.seeds_must_all_pass,
                                    max_minutes=ctx.max_minutes)
          for solver in loaded]


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  for module in args.imports:
    external_solvers.import_module(module)
  external = [s for s in args.solver or () if external_solvers.is_external(s)]
  selected = solver_check.game_list(args.game, ctx.quick, outside=bool(external))
  loaded = {g: game_loader.load_game(g, two_player_zero_sum=False) for g in selected}
  solvers = args.solver or solver_registry.report_solvers()
  registered = [s for s in solvers if not external_solvers.is_external(s)]
  for given, option in ((args.solver_arg, "--solver-arg"), (args.solver_kind, "--solver-kind"),
                        (args.seeds_must_all_pass, "--seeds-must-all-pass")):
    if given and not external:
      raise ValueError(f"{option} applies to package.module:Name solvers; no --solver names one")
  if args.regenerate_golden and provenance.source_checkout() is None:
    raise ValueError("--regenerate-golden rewrites the golden file of a source checkout; this "
                     f"is an installed copy ({references.GOLDEN_PATH})")
  sweep = make_jobs(selected, registered, ctx.seed, args.iterations, ctx.quick,
                    default_solvers=args.solver is None)
  for game_string, game in loaded.items():  # One line, before any work.
    references.check_has_reference(game_string, game)
  ctx.check_sizes(selected)  # Refuse oversized games before the references' LPs.
  # The module:Name solvers first, so that their one-line errors come before any other work;
  # the references they compute are kept for the rest.
  cache: Dict[str, Dict[str, Any]] = {}
  outside = external_reports(external, args, ctx, selected, cache)
  computed = [cache.get(g) or references.compute_reference(g) for g in selected]
  if args.regenerate_golden:
    references.write_golden(computed + [references.compute_reference(g)
                                        for g in REFERENCE_GAMES if g not in selected])
  golden = references.load_golden()
  reference_checks = {r["game"]: golden_checks(r, golden.get(r["game"])) + consistency_checks(r)
                      for r in computed}
  by_game = {r["game"]: r for r in computed}
  runs = median_runs(ctx.run_jobs(sweep))
  for (game, _), checked in runs.items():
    checked.checks = references.solver_run_checks(checked.run, by_game[game])
  for found_report in outside:
    runs.update({(g.game, found_report.solver): g for g in found_report.games if not g.skipped})
  run_checks = {key: checked.checks for key, checked in runs.items()}
  runs = {key: checked for key, checked in runs.items() if checked.run is not None}
  results = [checked.run for checked in runs.values()]
  found = [c for group in (*reference_checks.values(), *run_checks.values()) for c in group]
  pass_fail = pass_fail_frame(reference_checks, run_checks, solvers)
  tables.write_csv(pass_fail, ctx.out / PASS_FAIL_TABLE)
  two_player = [r for r in results if by_game[r.job.game].get("players", 2) == 2]
  summary = pd.DataFrame([{
      "game": c.run.job.game, "solver": c.run.job.solver, "T": c.iterations,
      "seeds": len(c.measured), "exploitability": c.run.solved.openspiel,
      "over seeds": "-" if len(c.measured) == 1 else
      f"{min(c.measured):.3g} to {max(c.measured):.3g}",
      "value": c.run.value,
      "reference value": references.reference_value(by_game[c.game])[0]}
      for c in runs.values() if c.run in two_player],
      columns=["game", "solver", "T", "seeds", "exploitability", "over seeds", "value",
               "reference value"])
  tables.write_csv(summary, ctx.out / "solvers.csv")
  more_players = n_player_frame([r for r in results if r not in two_player], by_game)
  tables.write_csv(more_players, ctx.out / N_PLAYER_TABLE)
  strategies = strategy_frame([r for r in two_player
                               if by_game[r.job.game]["closed_form"] is not None])
  tables.write_csv(strategies, ctx.out / "strategies.csv")
  refs = pd.DataFrame([{"game": r["game"], "regime": (r["closed_form"] or {}).get("regime", "-"),
                        "closed-form value": (r["closed_form"] or {}).get("value", "-"),
                        "LP value": r["lp_value"]}
                       for r in computed if r.get("players", 2) == 2],
                      columns=["game", "regime", "closed-form value", "LP value"])
  families = [r for r in computed if r.get("family") is not None]
  return ReportSection(title="Reference check: solvers against closed forms and the LP",
                       markdown=report_markdown(pass_fail, refs, summary, outside, families,
                                                more_players),
                       tables=[PASS_FAIL_TABLE, "solvers.csv", N_PLAYER_TABLE, "strategies.csv"],
                       checks=found)


def report_markdown(pass_fail: pd.DataFrame, refs: pd.DataFrame, summary: pd.DataFrame,
                    outside: Sequence[solver_check.ReferenceReport],
                    families: Sequence[Dict[str, Any]], more_players: pd.DataFrame) -> str:
  """The section's text: the checks passed (``pass_fail_frame``), the references (``refs``), the
  two-player runs (``summary``), the solvers from outside (``outside``) and the games with more
  than two players (``families``, their references with a family; ``more_players``, their
  runs)."""
  return (
      CAPTIONS["pass_fail_intro"] + "\n\n"
      + tables.markdown_table(pass_fail) + "\n\n"
      + CAPTIONS.fill("references_intro", golden=references.GOLDEN_PATH.name,
                      command=references.REGENERATE_COMMAND) + "\n\n"
      + tables.markdown_table(refs.rename(columns=REFERENCE_HEADERS), digits=8) + "\n\n"
      + CAPTIONS.fill("solvers_intro", sampled_factor=solver_registry.SAMPLED_BUDGET_FACTOR,
                      chance_factor=solver_kinds.CHANCE_SAMPLING_FACTOR,
                      chance_strategy_factor=solver_kinds.CHANCE_SAMPLING_STRATEGY_FACTOR,
                      mccfr_seeds=solver_kinds.MCCFR_SEEDS,
                      mccfr_factor=solver_kinds.MCCFR_FACTOR) + "\n\n"
      + tables.markdown_table(summary.rename(columns=SOLVER_HEADERS), digits=5)
      + _external_markdown(outside)
      + (_n_player_markdown(families, more_players) if families or len(more_players) else ""))


def _external_markdown(found: Sequence[solver_check.ReferenceReport]) -> str:
  """The report text of the ``package.module:Name`` solvers: the interface each ran through, its
  kind (declared or detected) and tolerance model, and the games it was not checked on, whose
  run raised, or that the time limit cut, with the reason."""
  if not found:
    return ""
  lines = [f"- `{r.solver}`: run through {r.interface}; "
           + (f"declared {r.kind}" if r.kind else "kind not declared, detected")
           + f": checked with the {r.model.scheme} model"
           + (f" (every run of {r.model.seeds} seeds)" if r.model.every_run else
              f" (median of {r.model.seeds} seeds)" if r.model.seeds > 1 else "")
           + "".join(f"; {g.status} on {g.game}: {g.skipped or g.error or g.cut}"
                     for g in r.games if g.skipped or g.error or g.cut)
           for r in found]
  return "\n\n" + CAPTIONS["external_intro"] + "\n\n" + "\n".join(lines)


def _n_player_markdown(families: Sequence[Dict[str, Any]], frame: pd.DataFrame) -> str:
  """The report text of the games with more than two players."""
  text = "\n\n" + CAPTIONS["n_player_intro"]
  if families:
    family = families[0]["family"]
    formulas = family["value_formulas"]
    text += " " + CAPTIONS.fill("family", player_0=formulas["player_0"],
                                player_1=formulas["player_1"], player_2=formulas["player_2"],
                                beta=formulas["beta"], members=len(family["members"]))
  return (text + " " + CAPTIONS.fill(
      "n_player_tolerances", chance_factor=solver_kinds.CHANCE_SAMPLING_N_PLAYER_FACTOR,
      mccfr_factor=solver_kinds.MCCFR_N_PLAYER_FACTOR, mccfr_seeds=solver_kinds.MCCFR_SEEDS)
      + "\n\n" + tables.markdown_table(frame.rename(columns=SOLVER_HEADERS), digits=5))
