"""The measured tables of docs/solvers.md, generated from runs of the rule classes.

``rule_exploitability_table`` runs every named rule of ``algorithms.cfr.update_rules.RULES`` at
its defaults (flat engine, full-width passes) on ``kuhn_poker`` and ``leduc_poker`` and prints
its exact exploitability (``solver.exploitability()``, the tree's best responses) after
``RULE_ITERATIONS`` iterations: a few seconds. ``experiments.scripts.docs`` registers it.
"""

import pathlib

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
