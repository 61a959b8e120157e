"""ReBeL's agent as it plays, measured exactly: a search at every public state it reaches.

ReBeL's agent (Brown, Bakhtin, Lerer, Gong, "Combining deep reinforcement learning and search for
imperfect-information games", NeurIPS 2020, arXiv 2007.13544, Section 6 and Theorem 3;
``algorithms.rebel.agent``) runs T iterations of a depth-limited CFR from the current public belief
state (by default CFR-D with linear weighting, the paper's), draws an iteration, plays that
iteration's policy (``ReBeLAgent``'s "matched" play: pi^t under CFR-D) and searches again from the
belief state the draw implies wherever its search's horizon ends. Its draws are part of it: its
behaviour strategy is the exact mixture over every draw (``behaviour.behaviour_strategy``), which
OpenSpiel's ``exploitability`` measures. A separate command, not a section of rebel-learned: this
one measures the agent with every leaf solver (exact LP, CFR(k), Hedge, learned) and needs no
PyTorch except for its learned part, while rebel-learned measures the stitched policy of one search
and the learning itself; their outputs and budgets stay apart.

Measurement 0 (``variants_frame``): the paper's agent, CFR-D with uniform weighting and this
project's CFR-AVG with matched play, exact LP leaves, on four games at lookahead 1 and 2, beside
full-game CFR with linear averaging and Linear CFR, with the paper agent's targets.

Measurements per (game, lookahead):

1. **Exploitability against T** of the agent with exact LP, CFR(k), Hedge and learned leaf values
   (value functions trained on LP-labelled leaf PBSs, one per cut, ``leaf_solvers``), beside the
   stitched policy of ``CFRAvgSolver`` with the same leaf solver (its trunk average with the leaf
   solver's continuation below the cut) and full-game CFR after T iterations.
2. **Exploitability against the on-path value error** (Kovarik, Seitz, Lisy, Rudolf, Sun, Ha,
   "Value functions for depth-limited solving in zero-sum imperfect-information games", arXiv
   1906.06412, 2019, report a roughly linear dependence): the exact values plus a smooth
   perturbation of known size (``PerturbedValueFunction``) and the learned values, the error
   measured on the leaf PBSs that the exact-leaf agent's searches evaluate, one-player leaves
   included; so the agents and stitched policies of this study take the values at every leaf
   (``ValueFunctionLeafSolver(one_player_exact=False)``), where measurement 1's learned agent
   solves one-player leaves exactly.
3. **ReBeL that learns by itself** (``self_play``, needs PyTorch): lookahead 1, the network at
   every leaf with one value per player and card, trained by Algorithm 1's self-play (the
   search's own root values as targets) and, on the same episodes, by exact labels (the
   supervised diagnostic); the curve against the episodes played and, after the last round,
   learned / exact-leaf agent over the seeds (3 cards; 13 cards and T = 300 with --full).
4. **A large deck and unseen stakes** (``stakes``, needs PyTorch for its learned part):
   13-card ``kuhn_poker_ante``, one value function per cut for a range of ante/bet ratios
   (the ratio an input), trained at some ratios; the agent with it and with exact leaves at
   ratios it never saw, lookahead 1 and 2, against T; the cost of a leaf evaluation and of a
   whole search, network against exact solver.

7. **Beyond Kuhn: Liar's Dice against the paper's table** (``paper_table``): full-game CFR and
   fictitious play after 1,024 iterations and the default agent at lookahead 2 with its leaves
   solved together to a stated accuracy, by the paper's evaluation protocol and a lower bound,
   beside the paper's ReBeL (CFR-D). ``--game GAME`` runs this measurement alone, on any game
   with a public-state view (``algorithms.rebel.public_views``).

The work runs as tasks (``tasks``), spread over ``--workers`` and saved as each finishes, so a
rerun or a resume after Ctrl-C reuses every finished one.

Checks: every agent's exploitability by OpenSpiel equals the tree evaluator's on the same
behaviour strategy; the exact-leaf agent at doubled stakes is exactly twice as exploitable. The
issue's targets (the exact-leaf agent falls with T and is within 2x of full-game CFR at the
largest T; the learned agent falls with T; at unseen stakes it is within 2x of the exact-leaf
agent; a network leaf evaluation is 10x faster than the exact solver) are goals, not references:
a table reports each against its bound, met or not (``target_table``).
"""

import argparse
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from experiments.commands.rebel_agent import captions
from experiments.commands.rebel_agent import learned as learned_measurement
from experiments.commands.rebel_agent import learned_section
from experiments.commands.rebel_agent import paper_learned
from experiments.commands.rebel_agent import paper_table
from experiments.commands.rebel_agent import self_play
from experiments.commands.rebel_agent import stakes
from experiments.commands.rebel_agent import tasks
from experiments.commands.rebel_agent.figures import plot_convergence
from experiments.commands.rebel_agent.figures import plot_errors
from experiments.commands.rebel_agent.figures import plot_paper_curve
from experiments.commands.rebel_agent.figures import plot_self_play
from experiments.commands.rebel_agent.figures import plot_stakes
from experiments.commands.rebel_agent.plan import EXACT
from experiments.commands.rebel_agent.plan import KUHN
from experiments.commands.rebel_agent.plan import LEARNED
from experiments.commands.rebel_agent.plan import VARIANTS
from experiments.commands.rebel_agent.plan import Plan
from experiments.commands.rebel_agent.plan import StakesPlan
from experiments.commands.rebel_agent.plan import plan_of
from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import context
from experiments.harness import section
from experiments.harness import tables
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.outputs import Outputs
from experiments.harness.section import ReportSection
from experiments.harness.tasks import Task
from experiments.harness.tasks import unpack_files

NAME = "rebel-agent"
TITLE = "ReBeL's agent: a search at every public state, measured exactly"
# T of the target "within 2x of full-game CFR after as many iterations".
TARGET_ITERATIONS = 1000
REPORT_ORDER = 95  # Place in the report (and in ``run``): after rebel, before rebel-learned.
OPTIONAL_DEPENDENCIES = (section.TORCH,)  # Named on the console when missing.
HELP = ("ReBeL's agent: a search at every public state it reaches, its exact exploitability "
        "with exact, CFR(k), Hedge and learned leaves, against T and the value error.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--full", action="store_true",
                      help="the long version (T up to 1000 on five cuts; about an hour)")
  parser.add_argument("--game", action="append", metavar="GAME_STRING",
                      type=arguments.checked_text(paper_table.check_public_game, "game string"),
                      help="run only measurement 7 (the paper's Liar's Dice table) on this game "
                      "(repeatable; any two-player zero-sum game with a public-state view, "
                      f"e.g. {paper_table.LD_1X4} or leduc_poker; default: every measurement, "
                      "measurement 7 on the budget's Liar's Dice games)")


def torch_available() -> bool:
  try:
    import torch  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
  except ImportError:
    return False
  return True


def convergence_frame(plan: Plan, value: Callable[[tasks.Key], Any],
                      learn: bool) -> pd.DataFrame:
  """Rows (setting, kind, leaf solver, iterations, exploitability, ...) of measurement 1 from the
  tasks' results (``value``: key -> result, ``tasks.measurement_tasks``)."""
  rows = []
  for setting in plan.settings:
    game, d, ts = setting.game, setting.lookahead, setting.iterations
    base = {"setting": setting.label, "game": game, "lookahead": d}
    for t, v in zip(ts, value(("cfr", game, ts, "CFR"))["values"]):
      rows.append(dict(base, kind="CFR", **{"leaf solver": "", "iterations": t,
                                            "exploitability": v}))
    for kind in plan.leaf_solvers:
      if kind == LEARNED and not learn:
        continue
      if kind == LEARNED:
        found = value(("learned", game, d))
        agents, curve = found["agent"], found["stitched"]
      else:
        agents = [value(("agent", game, d, kind, t)) for t in ts]
        curve = value(("stitched", game, d, kind))["values"]
      for t, row in zip(ts, agents):
        rows.append(dict(base, kind="agent", **{"leaf solver": kind, "iterations": t}, **row))
      for t, v in zip(ts, curve):
        rows.append(dict(base, kind="stitched", **{"leaf solver": kind, "iterations": t,
                                                   "exploitability": v}))
  return pd.DataFrame(rows)


def variants_frame(plan: Plan, value: Callable[[tasks.Key], Any]) -> pd.DataFrame:
  """Rows (setting, variant, iterations, exploitability, ...) of measurement 0: every agent of
  ``VARIANTS`` with exact LP leaves, and full-game CFR with linear averaging and Linear CFR, from
  the tasks' results (``value``)."""
  rows = []
  for setting in plan.variants:
    game, d, ts = setting.game, setting.lookahead, setting.iterations
    base = {"setting": setting.label, "game": game, "lookahead": d}
    for name, _ in VARIANTS:
      rows += [dict(base, variant=name, iterations=t, **value(("variant", game, d, name, t)))
               for t in ts]
    for name, reference in (("full-game CFR, linear averaging", "linear averaging"),
                            ("full-game Linear CFR", "Linear CFR")):
      rows += [dict(base, variant=name, iterations=t, exploitability=v)
               for t, v in zip(ts, value(("cfr", game, ts, reference))["values"])]
  return pd.DataFrame(rows)


def variant_checks(frame: pd.DataFrame) -> List[Check]:
  """OpenSpiel's exploitability = the tree evaluator's for every agent of measurement 0."""
  agents = frame.dropna(subset=["tree_exploitability"])
  return [checks.same_number(
      f"{r['setting']} {r['variant']}, T={r['iterations']}: exploitability (OpenSpiel)",
      r["exploitability"], r["tree_exploitability"], "TreeEvaluator on the same behaviour strategy")
          for r in agents.to_dict("records")]


def variant_targets(frame: pd.DataFrame) -> List[dict]:
  """Issue 24's targets for the paper's agent and CFR-D with exact leaves (measurement 0)."""
  rows = []
  paper, cfr_d = VARIANTS[0][0], VARIANTS[1][0]
  for (setting, variant), run in frame.groupby(["setting", "variant"], sort=False):
    if variant not in (paper, cfr_d):
      continue
    run = run.sort_values("iterations")
    values = run.exploitability.to_numpy()
    grid = ", ".join(map(str, run.iterations))
    rows.append(_target(f"{setting}, {variant}: falls with T ({grid})",
                        float(np.max(np.diff(values))) if len(values) > 1 else float("nan"), 0.0,
                        "0 (the largest step up between consecutive T)"))
    game, lookahead = run.game.iloc[0], run.lookahead.iloc[0]
    at_100 = run[run.iterations == 100].exploitability
    if game == KUHN and lookahead == 1 and len(at_100):
      bound = 0.006 if variant == paper else 0.01
      rows.append(_target(f"{setting}, {variant}, T=100", at_100.iloc[0], bound, f"{bound:g}"))
    if variant == paper and run.iterations.iloc[-1] == TARGET_ITERATIONS:
      for reference in ("full-game CFR, linear averaging", "full-game Linear CFR"):
        value = frame[(frame.setting == setting) & (frame.variant == reference) &
                      (frame.iterations == TARGET_ITERATIONS)].exploitability.iloc[0]
        rows.append(_target(f"{setting}, {variant}, T={TARGET_ITERATIONS}: within 1.5x of "
                            f"{reference}", run.exploitability.iloc[-1], 1.5 * value,
                            f"1.5 x {reference} after {TARGET_ITERATIONS} iterations"))
  return rows


def variant_table(frame: pd.DataFrame) -> pd.DataFrame:
  """Measurement 0 as a table: exploitability per setting and variant at each measured T."""
  table = frame.pivot_table(index=["setting", "variant"], columns="iterations",
                            values="exploitability", sort=False)
  table.columns = [f"T={t}" for t in table.columns]
  return table.reset_index()


def error_frame(plan: Plan, value: Callable[[tasks.Key], Any], learn: bool) -> pd.DataFrame:
  """Rows (setting, iterations, series, delta, error, agent, stitched) of measurement 2 from the
  tasks' results (``value``): the exact and perturbed values, and the learned ones."""
  rows = []
  for setting in plan.settings:
    base = {"setting": setting.label}
    found = value(("errors", setting.game, setting.lookahead))["rows"]
    if learn:
      found = found + [value(("learned", setting.game, setting.lookahead))["error"]]
    rows += [dict(base, **row) for row in found]
  return pd.DataFrame(rows)


def estimate_frame(plan: Plan, value: Callable[[tasks.Key], Any]) -> pd.DataFrame:
  """Rows of measurement 5: each estimate (``measure.estimate_row``) from the tasks' results."""
  return pd.DataFrame([value(("estimate", game, lookahead, t))
                       for game, lookahead, t in plan.estimates])


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
  """Exploitability per setting, kind and leaf solver at every measured T (columns)."""
  table = frame.pivot_table(index=["setting", "kind", "leaf solver"], columns="iterations",
                            values="exploitability", sort=False)
  table.columns = [f"exploitability at T={t} (chips per hand)" for t in table.columns]
  return table.reset_index()


def experiment_checks(frame: pd.DataFrame) -> List[Check]:
  """OpenSpiel's exploitability = the tree evaluator's, for every agent's behaviour strategy."""
  return [checks.same_number(
      f"{r['setting']} agent, {r['leaf solver']} leaves, T={r['iterations']}: exploitability "
      "(OpenSpiel)", r["exploitability"], r["tree_exploitability"],
      "TreeEvaluator on the same behaviour strategy")
          for r in frame[frame.kind == "agent"].to_dict("records")]


def _target(what: str, measured: float, bound: float, bound_text: str) -> dict:
  return {"target": what, "measured": measured, "bound": bound, "of": bound_text,
          "met": "yes" if measured <= bound else "no"}


def target_table(frame: pd.DataFrame, self_ratios: Optional[pd.DataFrame],
                 stakes_plan: Optional[StakesPlan] = None,
                 ratios: Optional[pd.DataFrame] = None,
                 timing: Optional[pd.DataFrame] = None,
                 variants: Optional[pd.DataFrame] = None) -> pd.DataFrame:
  """The issue's targets, each measured against its bound and reported (met or not).

  They are goals for the agent, not comparisons with an independent reference, so they are
  reported in the section rather than counted as checks: a missed target is a finding. With
  measurement 4 (``stakes_plan``, its ``stakes.ratio_table`` and ``stakes.timing_frame``): per
  lookahead and T, the learned agent's exploitability over the exact agent's at the worst unseen
  stakes against 2; per leaf, the network's time against a tenth of the exact solver's.
  """
  rows = [] if variants is None or variants.empty else variant_targets(variants)
  agents = frame[frame.kind == "agent"]
  for (setting, leaves), run in agents.groupby(["setting", "leaf solver"], sort=False):
    if leaves not in (EXACT, LEARNED):
      continue
    run = run.sort_values("iterations")
    first, last = run.iloc[0], run.iloc[-1]
    rows.append(_target(f"{setting}, {leaves} leaves: falls with T", last.exploitability,
                        first.exploitability, f"the agent at T={first.iterations}"))
    if leaves == EXACT and last.iterations == TARGET_ITERATIONS:
      cfr = frame[(frame.setting == setting) & (frame.kind == "CFR") &
                  (frame.iterations == last.iterations)].exploitability.iloc[0]
      rows.append(_target(f"{setting}, exact leaves, T={last.iterations}: within 2x of CFR",
                          last.exploitability, 2 * cfr,
                          f"2 x full-game CFR after {last.iterations} iterations"))
  for r in ([] if self_ratios is None else self_ratios.to_dict("records")):
    what = f"{r['deck']} cards, lookahead 1, T={r['T']}, {r['targets']}, network at every leaf"
    bound = self_play.MEDIAN_BOUNDS[r["deck"]]
    rows.append(_target(f"{what}: median learned / exact over {r['seeds']} seeds",
                        r["learned / exact, median"], bound, f"{bound:g}"))
    rows.append(_target(f"{what}: worst seed's learned / exact", r["learned / exact, worst"],
                        self_play.WORST_BOUND, f"{self_play.WORST_BOUND:g}"))
  if ratios is not None:
    unseen = ratios[ratios["trained on"] == "no"]
    names = captions.ratios(stakes_plan.unseen)
    for (lookahead, t), run in unseen.groupby(["lookahead", "T"], sort=False):
      rows.append(_target(
          f"{stakes_plan.deck} cards, unseen stakes (ante/bet {names}), lookahead {lookahead}, "
          f"T={t}: learned leaves at most 2x the exact-leaf agent", run["learned / exact"].max(),
          2.0, "2 (learned / exact at the same stakes and T, the worst unseen stakes)"))
  if timing is not None:
    for r in timing[timing["exact solver"] != ""].to_dict("records"):
      rows.append(_target(
          f"{stakes_plan.deck} cards, {r['what']} ({r['exact solver']}, {r['roots']} roots): "
          "a network leaf evaluation at least 10x faster than the exact solver",
          r["network (ms)"], r["exact (ms)"] / 10,
          "the exact solver's CPU time / 10 (ms)"))
  return pd.DataFrame(rows)


def paper_table_part(plan7: paper_table.PaperPlan, value: Callable[[tasks.Key], Any],
                     ctx: Context) -> ReportSection:
  """Measurement 7 (``paper_table``): its CSVs and figure written, its text and its checks."""
  files = Outputs(ctx.out)
  data, curve = paper_table.split_rows(tasks.paper_table_rows(plan7, value))
  data = files.table(data, "rebel_agent_paper_table.csv")
  curve = files.table(curve, "rebel_agent_paper_curve.csv")
  summary = files.table(paper_table.table(data), "rebel_agent_paper_table_summary.csv")
  files.figure(plot_paper_curve(curve, data[data.method != paper_table.AGENT], paper_table.PAPER),
               "rebel_agent_paper_curve.png")
  text = [
      captions.paper_intro(plan7),
      tables.markdown_table(summary, 3, missing="no published number"), captions.CAPTIONS["paper"],
      captions.CAPTIONS["paper_curve"]]
  return files.section("ReBeL's agent on the paper's Liar's Dice table", text,
                       paper_table.paper_checks(data))


def paper_learned_part(plan: paper_learned.LearnedPlan, value: Callable[[tasks.Key], Any],
                       ctx: Context) -> ReportSection:
  """Measurement 7's learned leaves (``paper_learned``): its CSVs, table and checks."""
  files = Outputs(ctx.out)
  rows = files.table(pd.concat([value(("paper-learned", plan.game, seed))
                               for seed in range(plan.seeds)], ignore_index=True),
                     "rebel_agent_paper_learned.csv")
  table = files.table(paper_learned.ratios(rows), "rebel_agent_paper_learned_ratios.csv")
  text = [captions.paper_learned_intro(plan),
      tables.markdown_table(table, 3)]
  return files.section("ReBeL's agent with learned leaves on Liar's Dice", text,
                       paper_learned.learned_checks(plan, rows, table))


def self_play_part(plan: Plan, value: Callable[[tasks.Key], Any],
                   ctx: Context) -> Tuple[ReportSection, pd.DataFrame]:
  """Measurement 3 (``self_play``): its section, and its learned / exact ratios for the
  targets."""
  files = Outputs(ctx.out)
  played = files.table(pd.concat([value(key) for key in tasks.self_play_keys(plan)],
                                 ignore_index=True), "rebel_agent_self_play.csv")
  exact = files.table(pd.concat([value(("self-play-exact", deck)) for deck in plan.self_play.decks],
                                ignore_index=True), "rebel_agent_self_play_exact.csv")
  files.figure(plot_self_play(played, exact, self_play.MEDIAN_BOUNDS),
               "rebel_agent_self_play.png")
  ratios = files.table(self_play.ratio_table(played, exact), "rebel_agent_self_play_ratios.csv")
  found = [checks.same_number(
      f"measurement 3, {r['deck']} cards, {r['targets']}, seed {r['seed']}, round "
      f"{r['round']}, T={r['iterations']}: exploitability (OpenSpiel)", r["exploitability"],
      r["tree_exploitability"], "TreeEvaluator on the same behaviour strategy")
      for r in pd.concat([played, exact]).to_dict("records")]
  timing = files.table(value(("self-play-timing",)), "rebel_agent_self_play_timing.csv")
  text = [captions.self_play_intro(plan.self_play), tables.markdown_table(ratios, 3),
          captions.CAPTIONS["self_play"], tables.markdown_table(timing, 3),
          captions.CAPTIONS["self_play_timing"]]
  return files.section("ReBeL that learns by itself", text, found), ratios


def stakes_part(plan: Plan, value: Callable[[tasks.Key], Any], ctx: Context, torch: bool
                ) -> Tuple[ReportSection, Optional[pd.DataFrame], Optional[pd.DataFrame]]:
  """Measurement 4 (``stakes``): its section (without PyTorch, the scaling check and a line
  saying the rest is left out), and its ratio and timing tables for the targets (None without
  PyTorch)."""
  scaling = [Check(**value(("stakes-scaling",)))]
  title = "A large deck and unseen stakes"
  if not torch:
    left_out = "Measurement 4 (large deck, unseen stakes) left out: PyTorch is not installed."
    return ReportSection(title=title, markdown=left_out, checks=scaling), None, None
  files = Outputs(ctx.out)
  found = value(("stakes",))
  unpack_files(found["files"], ctx.out / "models")
  measured = files.table(found["measured"], "rebel_agent_stakes.csv")
  timing = files.table(found["timing"], "rebel_agent_stakes_timing.csv")
  decks = files.table(found["decks"], "rebel_agent_stakes_decks.csv")
  files.figure(plot_stakes(measured, plan.stakes), "rebel_agent_stakes.png")
  ratios = stakes.ratio_table(measured)
  text = [captions.stakes_intro(plan.stakes), tables.markdown_table(ratios, 3),
          captions.CAPTIONS["stakes"], tables.markdown_table(timing, 3),
          captions.CAPTIONS["timing"], tables.markdown_table(decks, 3), captions.CAPTIONS["decks"]]
  return files.section(title, text, scaling + experiment_checks(measured)), ratios, timing


def estimate_part(plan: Plan, value: Callable[[tasks.Key], Any], ctx: Context) -> ReportSection:
  """Measurement 5: the estimates (``measure.estimate_row``) and their caption."""
  files = Outputs(ctx.out)
  estimates = files.table(estimate_frame(plan, value), "rebel_agent_estimate.csv")
  return files.section("Estimates", [
      tables.markdown_table(estimates, 3, missing="beyond the enumeration's budget"),
      captions.CAPTIONS["estimate"]], [])


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  budget, plan = plan_of(args, ctx.quick)
  games = getattr(args, "game", None)  # None when run by `run`, which has no --game.
  plan7 = paper_table.plan_for(budget, games)
  if games:  # Measurement 7 alone, on the given games.
    return paper_table_part(plan7, run_tasks(ctx, tasks.paper_table_tasks(plan7)), ctx)
  torch = torch_available()
  learn = LEARNED in plan.leaf_solvers and torch
  plan7_learned = paper_learned.PLANS[budget] if torch else None
  value = run_tasks(ctx, {**tasks.measurement_tasks(budget, plan, learn, torch, ctx.seed),
                          **tasks.paper_table_tasks(plan7),
                          **(tasks.paper_learned_tasks(plan7_learned) if plan7_learned else {})})
  if learn:
    for setting in plan.settings:
      unpack_files(value(("learned", setting.game, setting.lookahead))["files"],
                   ctx.out / "models")
  files = Outputs(ctx.out)  # Measurements 0 to 2.
  variants = files.table(variants_frame(plan, value), "rebel_agent_variants.csv")
  frame = files.table(convergence_frame(plan, value, learn), "rebel_agent.csv")
  errors = files.table(error_frame(plan, value, learn), "rebel_agent_error.csv")
  summary = files.table(summary_table(frame), "rebel_agent_table.csv")
  files.figure(plot_convergence(frame, plan.settings), "rebel_agent.png")
  files.figure(plot_errors(errors, plan.settings), "rebel_agent_error.png")
  intro = (f"Budget {budget!r}: {len(plan.settings)} cuts, leaf solvers "
           f"{', '.join(k for k in plan.leaf_solvers if k != LEARNED or learn)}"
           + ("" if learn or LEARNED not in plan.leaf_solvers else
              " (learned leaves left out: PyTorch is not installed)")
           + f"; CFR(k) with k = {plan.cfr_k}, Hedge with (iterations, eta) = {plan.hedge}.")
  error_view = errors.rename(columns={"error": "mean on-path value error (chips)",
                                      "agent": "agent exploitability",
                                      "stitched": "stitched exploitability",
                                      "delta": "perturbation size (units of U)"})
  parts, self_ratios, ratios, timing = [], None, None, None
  if torch and plan.self_play is not None:
    part, self_ratios = self_play_part(plan, value, ctx)
    parts.append(part)
  if plan.stakes is not None:
    part, ratios, timing = stakes_part(plan, value, ctx, torch)
    parts.append(part)
  if plan.estimates:
    parts.append(estimate_part(plan, value, ctx))
  plan6 = learned_measurement.PLANS[budget]
  if torch and plan6 is not None:  # Measurement 6: learned leaves, on-policy rounds, 5 seeds.
    parts.append(learned_section.measurement(
        plan6, pd.concat([value(key) for key in tasks.learned_keys(plan6)], ignore_index=True),
        value(("learned-timing",)), ctx.out))
  parts.append(paper_table_part(plan7, value, ctx))
  if plan7_learned is not None:
    parts.append(paper_learned_part(plan7_learned, value, ctx))
  # The targets need every part's results: their CSV is written, and listed, last.
  target_files = Outputs(ctx.out)
  targets = target_files.table(target_table(frame, self_ratios, plan.stakes, ratios, timing,
                                            variants), "rebel_agent_targets.csv")
  text = [
      intro, captions.CAPTIONS["variants"],
      tables.markdown_table(variant_table(variants), 3, missing="T not measured here"),
      captions.CAPTIONS["summary_heading"],
      tables.markdown_table(summary, 3, missing="T not measured for this cut"),
      captions.CAPTIONS["targets_heading"],
      tables.markdown_table(targets, 3),
      captions.CAPTIONS["convergence"],
      tables.markdown_table(error_view, 3, missing="not a perturbation"),
      captions.CAPTIONS["error"]]
  head = files.section(TITLE, text, variant_checks(variants) + experiment_checks(frame))
  return section.combine(TITLE, [head, *parts, target_files.section(TITLE, [], [])])


def run_tasks(ctx: Context, todo: Dict[tasks.Key, Task]) -> Callable[[tasks.Key], Any]:
  """Runs the tasks on the context's executor, the longest estimated first (so that the last
  to finish are short), and returns key -> the task's result.

  Raises:
    RuntimeError: if a task failed (each failure is in ``ctx.failures``, its traceback in the
      experiment's job_errors.log).
  """
  order = sorted(todo, key=lambda key: -todo[key].estimate)
  results = {r.task: r for r in ctx.run_tasks([todo[key] for key in order],
                                              "rebel-agent's measurements")}
  if ctx.failures:
    first = context.describe_failures(ctx.failures[:1])[0]
    raise RuntimeError(f"{len(ctx.failures)} of {len(todo)} tasks failed (first: {first})")
  return lambda key: results[todo[key]].value
