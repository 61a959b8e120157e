"""Measurement 6 in the report: its tables, figures, targets and checks from its frames
(``learned.exact_frame``, ``learned.seed_frame``, ``learned.timing_frame``, run as tasks), in one
call (``measurement``, a ``ReportSection`` that the command's ``run`` combines with the others)."""

import pathlib

import pandas as pd

from experiments.commands.rebel_agent import captions
from experiments.commands.rebel_agent import learned
from experiments.commands.rebel_agent.learned_figures import plot_error_relation
from experiments.commands.rebel_agent.learned_figures import plot_rounds
from experiments.harness import checks
from experiments.harness import tables
from experiments.harness.outputs import Outputs
from experiments.harness.section import ReportSection


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
  intro = captions.learned_intro(plan)
  frame_checks = [checks.same_number(
      f"learned-leaf measurement, {r['deck']} cards, ante/bet {r['stakes']:g}, {r['leaves']}, "
      f"seed {r['seed']}, round {r['round']}, T={r['T']}: exploitability (OpenSpiel)",
      r["exploitability"], r["tree_exploitability"], "TreeEvaluator on the same behaviour")
      for r in frame.to_dict("records")]
  words = captions.CAPTIONS
  parts = [intro, tables.markdown_table(table, 3), words["learned_rounds"], words["learned_error"],
           tables.markdown_table(timing, 3), words["learned_timing"], words["learned_targets"],
           tables.markdown_table(pd.DataFrame(targets), 3)]
  return files.section("Measurement 6: learned leaves after on-policy rounds", parts, frame_checks)
