"""The measured tables of docs/solvers.md, generated from runs of the rule classes.

``rule_exploitability_table`` runs every named rule of ``algorithms.cfr.update_rules.RULES`` at
its defaults (flat engine, full-width passes) on ``kuhn_poker`` and ``leduc_poker`` and prints
its exact exploitability (``solver.exploitability()``, the tree's best responses) after
``RULE_ITERATIONS`` iterations: a few seconds. ``time_to_target_headline`` writes the README's
time-to-target bullet from the committed output of ``experiments.scripts.time_to_target``.
``experiments.scripts.docs`` registers both.
"""

import pathlib
import re
import textwrap

import pandas as pd
import pyspiel

from algorithms.cfr import solvers
from algorithms.cfr import update_rules
from experiments.harness import tables

RULE_GAMES = ("kuhn_poker", "leduc_poker")
RULE_ITERATIONS = (100, 1000, 10_000)


def rule_exploitability_table(docs: pathlib.Path) -> str:
  """Exploitability of each rule's solver (columns, in the order of ``RULES``) on each game of
  ``RULE_GAMES`` after each count of ``RULE_ITERATIONS`` (rows), to 3 significant digits (one
  format per column, ``tables.markdown_table``)."""
  rows = []
  for game_string in RULE_GAMES:
    game = pyspiel.load_game(game_string)
    runs = {rule.name: getattr(solvers, f"{rule.name}Solver")(game, engine="flat")
            for rule in update_rules.RULES}
    for iterations in RULE_ITERATIONS:
      row = {"game": f"`{game_string}`", "iterations": f"{iterations:,}"}
      for name, solver in runs.items():
        solver.solve(iterations - solver.iteration, progress=False)
        row[name] = solver.exploitability()
      rows.append(row)
  return tables.markdown_table(pd.DataFrame(rows), digits=3)


TIME_TO_TARGET = "time_to_target.csv"  # In docs/: experiments.scripts.time_to_target's output.
HEADLINE_GAME, HEADLINE_TARGET = "leduc_poker", 1e-6
MCCFR_GAMES = ("leduc_poker", "liars_dice")  # Where the MCCFR sentence compares the two.


def _short(x: float) -> str:
  """``x`` to 2 significant digits, exponents without padding (7.7e-6, 1e-6)."""
  return re.sub(r"e([-+])0*(\d)", r"e\1\2", f"{x:.2g}").replace("e+", "e")


def _final(runs: pd.DataFrame) -> pd.DataFrame:
  """Per solver: its label, the mean over seeds of its last measure and of its CPU seconds."""
  last = runs.sort_values("iterations").groupby(["solver", "seed"]).last().reset_index()
  return last.groupby("solver").agg(label=("label", "first"), value=("value", "mean"),
                                    cpu_seconds=("cpu_seconds", "mean"))


def time_to_target_headline(docs: pathlib.Path) -> str:
  """The README's time-to-target bullet, read from ``docs/TIME_TO_TARGET`` (one run of
  ``python -m experiments.scripts.time_to_target``): our fastest solver to ``HEADLINE_TARGET``
  on ``HEADLINE_GAME``, where LiteEFG's best and OpenSpiel's C++ CFR+ ended, and our
  external-sampling MCCFR's final exploitability against OpenSpiel's C++ one on
  ``MCCFR_GAMES``."""
  frame = pd.read_csv(docs / TIME_TO_TARGET)
  runs = frame[frame["game"] == HEADLINE_GAME]
  reached = runs[runs["solver"].str.startswith("our_") & (runs["value"] <= HEADLINE_TARGET)]
  fastest = reached.loc[reached["cpu_seconds"].idxmin()]
  final = _final(runs)
  lite = final[final.index.str.startswith("liteefg_")].sort_values("value").iloc[0]
  cpp = final.loc["cpp_cfr_plus"]
  ratios = [_final(frame[frame["game"] == g]) for g in MCCFR_GAMES]
  ratios = [r.loc["cpp_external", "value"] / r.loc["our_external", "value"] for r in ratios]
  text = (f"- **Time to target** (one run, [docs/benchmark.md](docs/benchmark.md"
          "#time-to-target-python--m-experimentsscriptstime_to_target)): "
          f"`{HEADLINE_GAME}` to exploitability {_short(HEADLINE_TARGET)} in "
          f"{fastest['cpu_seconds']:.2f} CPU s with our {fastest['label'].split(' (')[0]}; "
          f"LiteEFG's best ({lite['label'].split(' (')[0]}) ended its {lite['cpu_seconds']:.0f} "
          f"CPU s at {_short(lite['value'])} and OpenSpiel's C++ CFR+ its "
          f"{cpp['cpu_seconds']:.0f} at {_short(cpp['value'])}. Our external-sampling MCCFR, with "
          "OpenSpiel's own random draws, ends at equal CPU time "
          + " and ".join(f"{r:.1f}x" for r in ratios) + " lower than OpenSpiel's C++ one on "
          + " and ".join(f"`{g}`" for g in MCCFR_GAMES) + " (mean of the seeds' last measures).")
  return textwrap.fill(text, width=100, subsequent_indent="  ", break_long_words=False,
                       break_on_hyphens=False)
