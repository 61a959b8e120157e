"""Three-player Kuhn poker: how CFR-family solvers converge, and to which equilibrium.

Games: OpenSpiel's ``kuhn_poker(players=3)`` and the project's ``kuhn_poker_ante(players=3)`` (the
same game: four cards, ante and bet 1), which have the Szafron-Gibson-Sturtevant family of exact
equilibria (D. Szafron, R. Gibson, N. Sturtevant, "A parameterized family of equilibrium profiles
for three-player Kuhn poker", AAMAS 2013; ``algorithms.exact.kuhn3_equilibria``), and one game off
the family, ``kuhn_poker_ante(players=3,ante=2.0)``, with no published closed form.

Every solver runs T iterations (``solver_registry.SAMPLED_BUDGET_FACTOR`` T for sampled solvers,
over several seeds); OpenSpiel's own solvers run ``PYTHON_GAME_ITERATIONS`` on games implemented
in Python, where each of their state steps crosses into Python (C++ CFR: about 25 iterations per
second on ``kuhn_poker_ante(players=3)`` against 2,000 on ``kuhn_poker(players=3)``). Each run is
measured three ways:

* NashConv of the average policy, sum_i (max_{s_i} u_i(s_i, sbar_-i) - u_i(sbar)), at log-spaced
  iterations, exactly on the game tree (``experiments.harness.measures``); exploitability is not
  used with three players (``measures``). CFR's regret bound gives no n-player equilibrium
  guarantee: whether NashConv goes to 0 is measured, not assumed.
* The players' values u_i(sbar) at T / 10 and T (separate runs of the same seed).
* On the family's games, the member nearest the average policy (``kuhn3_equilibria.nearest_member``:
  least squares over the 48 information states) and its values, which lie on the family's
  segment {(-1/48 - beta/24, -1/48, 1/24 + beta/24): beta in [0, 1/4]}.

Checks (tolerances of ``experiments.harness.references``, measured constants: no n-player theorem):
NashConv on the tree equals OpenSpiel's ``exploitability.nash_conv``; NashConv at T at most
``references.nash_conv_tolerance``; on the family's games every player's value within
``references.family_value_tolerance`` of the nearest member's; each engine solver gives the same
numbers on ``kuhn_poker(players=3)`` and ``kuhn_poker_ante(players=3)`` (one game, one tree);
and OpenSpiel's C++ CFR equals the engine's CFR at the same iteration on every game. (The uniform
profile of three-player Kuhn poker ties at "0pp", player 2's state, but with alternating updates
players 0 and 1 leave the uniform profile before player 2's regrets are computed, so no tie is
rounded and the two implementations agree.)

Every game must have three players (``plan.load_games``; a game with another number refuses
before any job runs, in one line). The package, one job a module, each importing only those
before it: ``plan`` (games, solvers, budgets, the jobs), ``frames`` (the tables from the jobs'
results), ``checks``, ``captions`` (the report's text) and ``figures``; this module runs them in
order.
"""

import argparse

from experiments.commands.three_player.captions import TITLE
from experiments.commands.three_player.captions import intro_paragraph
from experiments.commands.three_player.captions import report_markdown
from experiments.commands.three_player.checks import run_checks
from experiments.commands.three_player.figures import plot_family
from experiments.commands.three_player.figures import plot_nash_conv
from experiments.commands.three_player.figures import plot_values
from experiments.commands.three_player.figures import save_figures
from experiments.commands.three_player.frames import curve_frame
from experiments.commands.three_player.frames import final_runs
from experiments.commands.three_player.frames import log_slope
from experiments.commands.three_player.frames import member_frame
from experiments.commands.three_player.frames import nearest_members
from experiments.commands.three_player.frames import runs_frame
from experiments.commands.three_player.frames import summary_frame
from experiments.commands.three_player.plan import DEFAULT_GAMES
from experiments.commands.three_player.plan import DEFAULT_SOLVERS
from experiments.commands.three_player.plan import FAMILY_GAMES
from experiments.commands.three_player.plan import ITERATIONS
from experiments.commands.three_player.plan import NAME
from experiments.commands.three_player.plan import NON_UNIT_GAME
from experiments.commands.three_player.plan import PYTHON_GAME_ITERATIONS
from experiments.commands.three_player.plan import SEEDS
from experiments.commands.three_player.plan import make_jobs
from experiments.harness import arguments
from experiments.harness import solver_registry
from experiments.harness import tables
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

# The names the tests and other callers use, beside the command's protocol.
__all__ = ["NAME", "REPORT_ORDER", "HELP", "add_arguments", "run", "DEFAULT_GAMES",
           "DEFAULT_SOLVERS", "FAMILY_GAMES", "NON_UNIT_GAME", "make_jobs", "final_runs",
           "curve_frame", "nearest_members", "runs_frame", "log_slope", "summary_frame",
           "member_frame", "run_checks", "plot_nash_conv", "plot_family", "plot_values"]

REPORT_ORDER = 30  # Place in the report (and in ``run``).
HELP = ("Three-player Kuhn poker: NashConv against iterations and time, and which member of the "
        "Szafron-Gibson-Sturtevant equilibrium family each solver approaches.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
  arguments.add_game_and_solver_lists(
      parser, game_help="three-player game (repeatable; default: " + ", ".join(DEFAULT_GAMES)
      + "); the family analysis applies to three-player Kuhn poker at ante = bet = 1",
      solver_help="solver (repeatable; default: " + ", ".join(DEFAULT_SOLVERS) + ")")
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help=ITERATIONS.help("iterations of full-traversal solvers ("
                                           f"{solver_registry.SAMPLED_BUDGET_FACTOR}x for "
                                           "sampled ones)"))
  parser.add_argument("--python-game-iterations", type=arguments.positive_int, metavar="T",
                      help=PYTHON_GAME_ITERATIONS.help("iterations of OpenSpiel's solvers on "
                                                       "games implemented in Python"))
  parser.add_argument("--seeds", type=arguments.positive_int, metavar="K",
                      help=SEEDS.help("seeds per sampled solver"))


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  game_strings = args.game or list(DEFAULT_GAMES)
  solvers = args.solver or list(DEFAULT_SOLVERS)
  iterations = ITERATIONS.resolve(args.iterations, ctx.quick)
  python_iterations = PYTHON_GAME_ITERATIONS.resolve(args.python_game_iterations, ctx.quick)
  num_seeds = SEEDS.resolve(args.seeds, ctx.quick)
  results = ctx.run_jobs(make_jobs(game_strings, solvers, ctx.seed, num_seeds, iterations,
                                   python_iterations))
  nearest = nearest_members(results)
  curves, runs = curve_frame(results), runs_frame(results, nearest)
  tables.write_csv(curves, ctx.out / "three_player_curves.csv")
  tables.write_csv(runs, ctx.out / "three_player_runs.csv")
  summary = summary_frame(runs, curves)
  tables.write_csv(summary, ctx.out / "three_player_summary.csv")
  figures, captions = save_figures(curves, runs, game_strings, solvers, ctx.out)
  markdown = report_markdown(intro_paragraph(iterations, num_seeds, ctx.seed, python_iterations),
                             member_frame(runs), summary, captions)
  return ReportSection(title=TITLE, markdown=markdown, figures=figures,
                       tables=["three_player_summary.csv", "three_player_runs.csv",
                               "three_player_curves.csv"],
                       checks=run_checks(results, nearest))
