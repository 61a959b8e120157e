"""ReBeL's learning half on Kuhn poker: CFR-AVG with a learned PBS value function, measured exactly.

ReBeL (Brown, Bakhtin, Lerer, Gong, "Combining deep reinforcement learning and search for
imperfect-information games", NeurIPS 2020, arXiv 2007.13544) runs CFR-AVG on a depth-limited
cut and takes the leaf values from a value network trained by self-play. On Kuhn variants every
quantity can be measured exactly. Four measurements:

1. **Learned vs exact leaves** (per game and cut): exploitability (OpenSpiel's) of CFR-AVG's
   average policy with the leaf values of a trained ``PBSValueFunction`` (supervised: LP-labelled
   leaf PBSs, ``algorithms.rebel.learning.dataset``), with exact LP leaves, and of full-game
   CFR, against iterations; the learned run's continuation below the leaves is the exact LP's
   at each iteration's leaf PBS (a value function has no policy; ReBeL would search again
   there), and its trunk exploitability (``trunk_exploitability``: the trunk average with the
   best continuation) separates the trunk that the values decide from that continuation.
2. **Exploitability against the value error**: the models after several training budgets, and
   the exact values plus a smooth perturbation of known size delta U
   (``PerturbedValueFunction``, the controlled series); the error (``value_errors``: the largest
   error of a counterfactual value at the PBS) as mean and max over a held-out set of the
   training distribution and over the leaf PBSs that exact CFR-AVG visits (on-path).
3. **Modified CFR-AVG** (ReBeL's de-averaged leaf values) with exact LP leaves, a leaf solver
   continuous in the belief (``HedgeLeafSolver``) and the learned values, against standard
   CFR-AVG with the same leaves.
4. **Self-play** (``algorithms.rebel.learning.self_play``): value error and the search policy's
   exploitability after each training round, several seeds, median with the min-max band.

Every search is a job of the harness (``Context.run_jobs``): a registered ``CFRAvgSolver`` entry
whose ``leaf_solver`` option is replaced by a description (``algorithms.rebel.leaves.specs``)
naming a model file and its weights' digest. Data sets and models are saved in the experiment's
folder (``data/``, ``models/``) with their recipe and the code fingerprint, and reused by the same
code unless ``--fresh``; training needs PyTorch (the ``learn`` extra), without which the learned
parts are left out and said so.

Checks: every job's exploitability equals OpenSpiel's; the perfect value function (the exact LP
behind the value-function interface) reproduces exact CFR-AVG; the trunk exploitability is never
above the full exploitability; the perturbed values' measured error is within delta U (these three
hold by construction, guards against bugs: ``checks.Check.by_construction``) and their
exploitability within the exact run's plus 2 x delta U (an equilibrium of a game whose leaf
payoffs are off by at most e is a 2e-equilibrium; the measured slopes, 0.05-0.2, are 10-40x
smaller); the learned models' errors and searches within stated bounds (``BOUNDS``, with the
margins measured); modified CFR-AVG with exact leaves stalls, with Hedge leaves converges.

The package, one job a module, each importing only those before it: ``plan`` (the cuts and the
budgets), ``artifacts`` (the saved data sets and models), ``models`` (the data sets, the trained
models and their value errors), ``sweep`` (the jobs and what each stands for), ``results`` (the
frame of measurements from the jobs' results), ``figures``, ``report_tables``, ``checks`` (with
their stated bounds) and ``captions`` (the report's text); this module runs them in order.
"""

import argparse

from experiments.commands.rebel_learned.artifacts import Store
from experiments.commands.rebel_learned.captions import CAPTIONS
from experiments.commands.rebel_learned.captions import intro
from experiments.commands.rebel_learned.checks import BOUNDS
from experiments.commands.rebel_learned.checks import experiment_checks
from experiments.commands.rebel_learned.figures import plot_convergence
from experiments.commands.rebel_learned.figures import plot_errors
from experiments.commands.rebel_learned.figures import plot_modified
from experiments.commands.rebel_learned.figures import plot_self_play
from experiments.commands.rebel_learned.plan import PLANS
from experiments.commands.rebel_learned.plan import plan_of
from experiments.commands.rebel_learned.report_tables import MISSING
from experiments.commands.rebel_learned.report_tables import convergence_table
from experiments.commands.rebel_learned.report_tables import error_table
from experiments.commands.rebel_learned.report_tables import for_markdown
from experiments.commands.rebel_learned.report_tables import modified_table
from experiments.commands.rebel_learned.report_tables import self_play_table
from experiments.commands.rebel_learned.results import results_frame
from experiments.commands.rebel_learned.results import with_exact_baseline
from experiments.commands.rebel_learned.sweep import build_sweep
from experiments.harness import arguments
from experiments.harness import plotting
from experiments.harness import section
from experiments.harness import tables
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

NAME = "rebel-learned"
REPORT_ORDER = 100  # Place in the report (and in ``run``).
OPTIONAL_DEPENDENCIES = (section.TORCH,)  # Named on the console when missing.
HELP = ("ReBeL's learned leaves on Kuhn: CFR-AVG with a trained PBS value function vs exact "
        "leaves, exploitability vs value error, modified CFR-AVG, self-play.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--full", action="store_true",
                      help="the long version (T = 1000, five cuts, 2 x 256 networks, three "
                      "models per cut, 12 self-play rounds, 5 seeds; about 20 min)")
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help="iterations of every search (default "
                      f"{PLANS['default'].iterations}, {PLANS['quick'].iterations} with "
                      f"--quick, {PLANS['full'].iterations} with --full)")
  parser.add_argument("--rounds", type=arguments.positive_int, metavar="R",
                      help=f"self-play rounds (default {PLANS['default'].rounds}, "
                      f"{PLANS['quick'].rounds} with --quick, {PLANS['full'].rounds} with --full)")
  parser.add_argument("--seeds", type=arguments.positive_int, metavar="N",
                      help=f"self-play seeds (default {PLANS['default'].seeds}, "
                      f"{PLANS['quick'].seeds} with --quick, {PLANS['full'].seeds} with --full)")


def torch_available() -> bool:
  try:
    import torch  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
  except ImportError:
    return False
  return True


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  budget, plan = plan_of(args, ctx.quick)
  learn = torch_available()
  store = Store(ctx)
  sweep = build_sweep(NAME, store, plan, ctx.seed, learn)
  results = ctx.run_jobs(list(sweep.jobs))
  frame = with_exact_baseline(results_frame(sweep, results))
  tables.write_csv(frame, ctx.out / "rebel_learned.csv")
  parts = [  # (caption key, file stem, table, figure)
      ("learned_vs_exact", "rebel_learned_vs_exact", convergence_table(frame, plan.iterations),
       plot_convergence(frame, plan.cuts, plan.model_seeds)),
      ("error", "rebel_learned_error", error_table(frame), plot_errors(frame, plan.cuts)),
      ("modified", "rebel_learned_modified", modified_table(frame, plan.iterations),
       plot_modified(frame, plan.modified_cuts))]
  if learn:
    parts.append(("self_play", "rebel_learned_self_play", self_play_table(frame),
                  plot_self_play(frame, plan.self_play_cut, plan.seeds)))
  markdown = [intro(NAME, plan, budget, store, learn)]
  for key, stem, table, figure in parts:
    tables.write_csv(table, ctx.out / f"{stem}.csv")
    plotting.save_figure(figure, ctx.out / f"{stem}.png")
    markdown.append(CAPTIONS[key] + "\n\n" + tables.markdown_table(for_markdown(table), 3,
                                                                  missing=MISSING))
  return ReportSection(title="ReBeL's learned leaves: CFR-AVG with a PBS value function",
                       markdown="\n\n".join(markdown),
                       figures=[f"{stem}.png" for _, stem, _, _ in parts],
                       tables=["rebel_learned.csv"] + [f"{stem}.csv" for _, stem, _, _ in parts],
                       checks=experiment_checks(frame, BOUNDS[budget], plan))
