"""Measurement 6 in the report: its tables, figures, targets and checks from its frames
(``learned.exact_frame``, ``learned.seed_frame``, ``learned.timing_frame``, run as tasks), in one
call (``measurement``, a ``ReportSection`` that the command's ``run`` combines with the others)."""

import pathlib

import pandas as pd

from experiments.commands.rebel_agent import learned
from experiments.commands.rebel_agent.learned_figures import plot_error_relation
from experiments.commands.rebel_agent.learned_figures import plot_rounds
from experiments.harness import checks
from experiments.harness import tables
from experiments.harness.outputs import Outputs
from experiments.harness.section import ReportSection

CAPTIONS = {
    "rounds": (
        "**Figure** (one panel per deck and stakes). The learned agent's exploitability over the "
        "exact-leaf agent's (same search options, same T) after each on-policy round; line: "
        "median over the seeds, band: best to worst seed; at the last round also T = 300 "
        "(median, bar: best to worst). Dashed and dotted grey: the targets' bounds."),
    "error": (
        "**Figure** (one panel per deck). The learned agent's exploitability in excess of the "
        "exact-leaf agent's (same stakes and T) against the mean "
        "per-information-set value error on the PBSs its own searches asked the network about "
        "(each card's counterfactual-value error divided by its belief mass, the largest over "
        "both players' cards, labelled by the exact LP), one point per seed, round and stakes; "
        "dashed: least squares. Kovarik et al. (arXiv "
        "1906.06412) report a roughly linear dependence."),
    "timing": (
        "CPU seconds per hand that the agent plays against itself (both seats search, every "
        "search run, no cache), exact LP leaves against networks of the models' widths (an "
        "evaluation's cost does not depend on the weights), in one process, after a warm-up "
        "hand. One-player leaves are solved exactly by both, so at lookahead 2 (whose only "
        "leaves are one-player) no network is asked and the two agents are the same. "
        "Machine-dependent; the ratio is the point."),
}


def _sampled(plan: learned.LearnedPlan) -> str:
  """The intro's words on the ratios drawn in each round (``learned.round_ratios``)."""
  if not plan.sampled:
    return ""
  return (f" and, where a range of ratios is trained, at {plan.sampled} ratios drawn afresh in "
          "each round and seed across that range (one per equal stratum of its logarithm; an "
          "unseen ratio is never drawn)")


def measurement(plan: learned.LearnedPlan, frame: pd.DataFrame, timing: pd.DataFrame,
                out: pathlib.Path) -> ReportSection:
  """Measurement 6's section from its rows (``frame``: every case's exact and seeds' learned
  rows; ``timing``) at ``plan``, its targets a table in its text; writes its files into
  ``out``."""
  table = learned.ratio_table(frame)
  exact = frame[frame.leaves == learned.EXACT][["deck", "stakes", "T", "exploitability"]].rename(
      columns={"exploitability": "exact"})
  files = Outputs(out)
  files.table(frame, "rebel_learned_agent.csv")
  files.table(table, "rebel_learned_agent_table.csv")
  files.table(timing, "rebel_learned_agent_timing.csv")
  files.figure(plot_rounds(frame, exact, plan), "rebel_learned_agent.png")
  files.figure(plot_error_relation(frame, exact, min(plan.round_iterations)),
               "rebel_learned_agent_error.png")
  targets = learned.target_rows(table, plan)
  for r in timing[timing.lookahead == 1].to_dict("records"):
    targets.append({
        "target": f"{r['deck']} cards, lookahead 1, T={r['T']}: learned agent at least 5x "
                  "faster per hand than the exact-leaf agent",
        "measured": r["speed-up (exact / learned)"], "bound": 5.0,
        "of": "speed-up at least (exact / learned CPU per hand)",
        "met": "yes" if r["speed-up (exact / learned)"] >= 5 else "no"})
  intro = (f"**Measurement 6: learned leaves after {plan.rounds} on-policy rounds, "
           f"{plan.seeds} training seeds.** Lookahead {plan.lookahead}; networks "
           f"{plan.hidden}, {plan.steps} Adam steps per round, retrained from their initial "
           f"weights on all data so far; round 0: {plan.examples} random PBSs per leaf and "
           f"trained ratio and the exact-leaf agent's leaf PBSs at T = "
           f"{', '.join(map(str, plan.visits))}; each round adds every PBS the learned agent "
           f"asked its network at T = {', '.join(map(str, plan.iterations))} in "
           f"{plan.hands} hands per trained ratio{_sampled(plan)}, labelled by the exact LP "
           "(DAgger). "
           "One-player leaves are exact. Exploitability over the exact-leaf agent's, per round "
           "(median, best and worst seed), with the value errors on the learned agent's own "
           "queries (counterfactual: measurement 2's metric; infostate: per card, divided by its "
           "belief mass):")
  frame_checks = [checks.same_number(
      f"learned-leaf measurement, {r['deck']} cards, ante/bet {r['stakes']:g}, {r['leaves']}, "
      f"seed {r['seed']}, round {r['round']}, T={r['T']}: exploitability (OpenSpiel)",
      r["exploitability"], r["tree_exploitability"], "TreeEvaluator on the same behaviour")
      for r in frame.to_dict("records")]
  parts = [intro, tables.markdown_table(table, 3), CAPTIONS["rounds"], CAPTIONS["error"],
           tables.markdown_table(timing, 3), CAPTIONS["timing"],
           "Measurement 6's targets (reported, not checks):",
           tables.markdown_table(pd.DataFrame(targets), 3)]
  return files.section("Measurement 6: learned leaves after on-policy rounds", parts, frame_checks)
