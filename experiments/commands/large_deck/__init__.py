"""Large decks: N-card Kuhn poker, solved up to 100,000 cards, against its continuous limit.

As the deck of two-player ``kuhn_poker_ante`` grows, card c behaves as the hand strength
(c + 1/2) / N and the game approaches one with independent uniform strengths on [0, 1]: von
Neumann's poker model for the simplified rules (J. von Neumann and O. Morgenstern, Theory of
Games and Economic Behavior, 1944, section 19) and its standard-rules twin, both solved exactly
by ``algorithms.exact.continuous_kuhn``. The experiment measures how fast:

1. the N sweep (``sweep``, ``solve``): both rule sets at r = ante / bet = 1 on decks from 13 to
   100,000 cards (and at r = 2 up to 10,000), each solved by discounted CFR on the range-vector
   engine to the exploitability target of ``plan.target``; its thresholds and value against the
   continuous game's (``limits``), and the distances' rates C N^-k fitted by least squares on
   the log-log points (``frames``);
2. the cost (``footprint``): CPU time and peak memory of the range-vector and the flat engines
   solving the standard game at r = 1 to the same targets, the memory measured in fresh
   processes;
3. the stakes grid (``stakes``): one deck at ratios from 0.1 to 10, each rule set solved as one
   batch by ``algorithms.BatchedCFRPlusSolver``, against the continuous closed forms.

Every solve of 1 and 3 is a task (``experiments.harness.tasks``) of ``Context.run_tasks``:
estimated before any work, run on the executor (beside each other on a pool), and saved as each
finishes, so that Ctrl-C, a signal or the ``--max-minutes`` deadline keeps the finished solves
and a rerun resumes. The checks and their tolerances are ``checks``'s.

The package, each module importing only those before it: ``plan`` (budgets and targets),
``solve``, ``footprint`` (and ``fresh_solve``, the program of the fresh process, which nothing
imports), ``sweep``, ``limits``, ``frames``, ``stakes``, ``checks``, ``limit_figures``,
``rate_figures``, ``captions``; this module runs them in order.
"""

import argparse

from experiments.commands.large_deck import captions
from experiments.commands.large_deck import checks
from experiments.commands.large_deck import frames
from experiments.commands.large_deck import limit_figures
from experiments.commands.large_deck import plan
from experiments.commands.large_deck import rate_figures
from experiments.commands.large_deck import stakes
from experiments.commands.large_deck import sweep
from experiments.harness import arguments
from experiments.harness import plotting
from experiments.harness import tables
from experiments.harness.context import Context
from experiments.harness.section import ReportSection
from spiel_games import atomic_file

NAME = plan.NAME
REPORT_ORDER = 85  # Place in the report (and in ``run``): after the landscape, before ReBeL.
HELP = ("N-card Kuhn poker up to 100,000 cards on the range-vector engine against its continuous "
        "limit (von Neumann's poker model): thresholds, value, rates, cost and a stakes grid.")

SOLVES_TABLE = "large_deck_solves.csv"
RATES_TABLE = "large_deck_rates.csv"
COST_TABLE = "large_deck_cost.csv"
STAKES_TABLE = "large_deck_stakes.csv"


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument(
      "--max-cards",
      type=arguments.deck_type(plan.MIN_CARDS, plan.LARGEST_DECK, "the N sweep's largest deck"),
      metavar="N", help=f"largest deck of the N sweep (default {plan.MAX_CARDS.default:,}, "
      f"{plan.MAX_CARDS.quick:,} with --quick)")
  parser.add_argument(
      "--flat-max-cards",
      type=arguments.deck_type(plan.MIN_CARDS, plan.FLAT_LARGEST_DECK,
                               "the flat engine refuses larger decks"),
      metavar="N", help="largest deck the flat engine solves in the cost comparison (default "
      f"{plan.FLAT_MAX_CARDS.default}, {plan.FLAT_MAX_CARDS.quick} with --quick)")
  parser.add_argument(
      "--stakes-cards",
      type=arguments.deck_type(plan.MIN_CARDS, plan.LARGEST_DECK, "the stakes grid's deck"),
      metavar="N", help=f"deck of the stakes grid (default {plan.STAKES_CARDS.default:,}, "
      f"{plan.STAKES_CARDS.quick} with --quick)")
  parser.add_argument(
      "--stakes-points", type=plan.stakes_points_type, metavar="K",
      help=f"ratios r of the stakes grid, from {plan.STAKES_RANGE[0]:g} to "
      f"{plan.STAKES_RANGE[1]:g} (default {plan.STAKES_POINTS.default}, "
      f"{plan.STAKES_POINTS.quick} with --quick)")


def _resolve(explicit, scale: plan.Scale, quick: bool):
  return scale.resolve(quick) if explicit is None else explicit


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  quick = ctx.quick
  series = sweep.plan_series(quick, _resolve(args.max_cards, plan.MAX_CARDS, quick))
  flat = sweep.flat_specs(_resolve(args.flat_max_cards, plan.FLAT_MAX_CARDS, quick))
  solves_todo = sweep.solve_tasks(series, flat)
  grid_todo = stakes.grid_tasks(
      _resolve(args.stakes_cards, plan.STAKES_CARDS, quick),
      plan.stakes_ratios(_resolve(args.stakes_points, plan.STAKES_POINTS, quick)))
  todo = solves_todo + grid_todo
  # Longest first, so that the pool's workers finish together.
  done = ctx.run_tasks(sorted(todo, key=lambda t: -t.estimate), description="large-deck solves")
  if len(done) < len(todo):
    raise RuntimeError(f"{len(todo) - len(done)} of {len(todo)} solves failed (listed in the "
                       "report); the others are saved, rerun to retry")
  by_task = {result.task: result for result in done}
  records = sweep.records([by_task[t] for t in solves_todo])
  grid, grid_cpu = stakes.grid([by_task[t] for t in grid_todo])
  ctx.note("sequence-form LP values of the small decks")
  lp = sweep.lp_values(records)
  solves = frames.solves_frame(records, lp)
  rates, cost = frames.rates_frame(solves), frames.cost_frame(records)
  for frame, name in ((solves, SOLVES_TABLE), (rates, RATES_TABLE), (cost, COST_TABLE),
                      (grid, STAKES_TABLE)):
    tables.write_csv(frame, ctx.out / name)
  atomic_file.atomic_write_text(ctx.out / captions.DOCS_TABLE, captions.docs_tables(solves, rates))
  for figure, name in ((limit_figures.plot_limits(solves), captions.LIMIT_FIGURE),
                       (rate_figures.plot_rates(solves, rates), captions.RATES_FIGURE),
                       (rate_figures.plot_cost(cost), captions.COST_FIGURE),
                       (limit_figures.plot_stakes(grid), captions.STAKES_FIGURE)):
    plotting.save_figure(figure, ctx.out / name)
  return ReportSection(
      title=captions.TITLE,
      markdown=captions.report_markdown(series, solves, rates, cost, grid, grid_cpu),
      figures=[captions.LIMIT_FIGURE, captions.RATES_FIGURE, captions.COST_FIGURE,
               captions.STAKES_FIGURE],
      tables=[SOLVES_TABLE, RATES_TABLE, COST_TABLE, STAKES_TABLE],
      checks=checks.all_checks(solves, rates, cost,
                               frames.solves_frame(records, lp, engine="flat"), grid))
