"""Three-player Kuhn poker with a large deck: equilibria found by CFR+ against N and the pot.

The range-vector engine (``algorithms.cfr.range_engine``, any number of players) solves three-player
Kuhn poker at any deck in time linear in N. The experiment solves the standard game at P = 3 on
decks from 4 to 10,000 cards and at several pot sizes P on one deck, certifies each solution by
its exact NashConv, reads its betting structure (``solve.components``, ``solve.bet_kinds``) and
compares it with the published results: the Szafron-Gibson-Sturtevant family at 4 cards, and
Billingham's mid-range bet for N > 5 (J. Billingham, "Equilibrium solutions of three player Kuhn
poker with N > 3 cards", arXiv 1802.04670, 2018). The values' and calling thresholds' distances
from the largest deck's are fitted as C N^-k (``frames``).

Each solve is a task (``experiments.harness.tasks``, ``solve_task``) of ``Context.run_tasks``:
estimated before any work (``estimate_seconds``), run on the executor (beside each other on a
pool), saved as it finishes, so that Ctrl-C, a signal or the ``--max-minutes`` deadline keeps
the finished solves and a rerun resumes.

The package, each module importing only those before it: ``plan`` (decks, pots, the solver and
its budget), ``solve``, ``frames``, ``checks``, ``figures``, ``captions``; this module runs them
in order.
"""

import argparse
import dataclasses
from typing import Any, Dict

import numpy as np
import pandas as pd

from experiments.commands.three_player_large import captions
from experiments.commands.three_player_large import checks
from experiments.commands.three_player_large import figures
from experiments.commands.three_player_large import frames
from experiments.commands.three_player_large import plan
from experiments.commands.three_player_large import solve
from experiments.harness import arguments
from experiments.harness import plotting
from experiments.harness import tables
from experiments.harness import tasks
from experiments.harness.context import Context
from experiments.harness.section import ReportSection
from spiel_games import atomic_file

NAME = plan.NAME
REPORT_ORDER = 87  # Place in the report (and in ``run``): after large-deck, before ReBeL.
HELP = ("Three-player Kuhn poker up to 10,000 cards on range vectors: betting structure and "
        "values against N and the pot, NashConv certificates, the published N-card results.")

SOLVES_TABLE = "three_player_large_deck_solves.csv"
COMPONENTS_TABLE = "three_player_large_deck_components.csv"
RATES_TABLE = "three_player_large_deck_rates.csv"
DOCS_TABLE = "three_player_large_deck_table.md"
# The estimate of a solve (``estimate_seconds``), in seconds: the task's start, CFR+ on range
# vectors per card (13 s at 10,000 cards), OpenSpiel's NashConv walk (up to 5 s at 8 cards) and
# the flat engine's evaluation (0.5 s at 20 cards) where they run.
_TASK_SECONDS = 1.0
_SECONDS_PER_CARD = 1.5e-3
_OPENSPIEL_SECONDS = 5.0
_FLAT_SECONDS = 1.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument(
      "--max-cards", type=arguments.deck_type(plan.SMALLEST_DECK, plan.LARGEST_DECK), metavar="N",
      help=f"largest deck of the N sweep (default {plan.DECKS.default[-1]:,}, "
      f"{plan.DECKS.quick[-1]:,} with --quick)")


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  quick = ctx.quick
  decks = plan.DECKS.resolve(None, quick)
  if args.max_cards is not None:
    decks = tuple(d for d in decks if d < args.max_cards) + (args.max_cards,)
  pots, pot_cards = plan.POTS.resolve(None, quick), plan.POT_CARDS.resolve(None, quick)
  openspiel_max = plan.OPENSPIEL_MAX_CARDS.resolve(None, quick)
  deck_todo = [solve_item(n, plan.MAIN_POT, n <= openspiel_max, n <= plan.FLAT_MAX_CARDS)
               for n in decks]
  pot_todo = [solve_item(pot_cards, p, False, False) for p in pots]
  todo = list(dict.fromkeys(deck_todo + pot_todo))  # (1,000 cards at P = 3 may be in both.)
  done = ctx.run_tasks(sorted(todo, key=lambda t: -t.estimate),
                       description="three-player solves")
  if len(done) < len(todo):
    raise RuntimeError(f"{len(todo) - len(done)} of {len(todo)} solves failed (listed in the "
                       "report); the others are saved, rerun to retry")
  by_task = {result.task: from_json(result.value) for result in done}
  deck_records = [by_task[t] for t in deck_todo]
  pot_records = [by_task[t] for t in pot_todo]
  deck = frames.solves_frame(deck_records, frames.DECK_SWEEP)
  pot = frames.solves_frame(pot_records, frames.POT_SWEEP)
  parts = pd_concat([frames.components_frame(deck_records, frames.DECK_SWEEP),
                     frames.components_frame(pot_records, frames.POT_SWEEP)])
  distance = frames.distances(deck_records)
  rates = frames.rates_frame(distance)
  for frame, name in ((pd_concat([deck, pot]), SOLVES_TABLE), (parts, COMPONENTS_TABLE),
                      (rates, RATES_TABLE)):
    tables.write_csv(frame, ctx.out / name)
  atomic_file.atomic_write_text(ctx.out / DOCS_TABLE, captions.docs_tables(deck, pot, rates))
  deck_parts = parts[parts.sweep == frames.DECK_SWEEP]
  pot_parts = parts[parts.sweep == frames.POT_SWEEP]
  for figure, name in ((figures.plot_structure(deck_parts, "cards"), captions.DECK_FIGURE),
                       (figures.plot_structure(pot_parts, "pot"), captions.POT_FIGURE),
                       (figures.plot_values(deck, distance, rates), captions.VALUES_FIGURE)):
    plotting.save_figure(figure, ctx.out / name)
  return ReportSection(
      title=captions.TITLE,
      markdown=captions.report_markdown(decks, pots, pot_cards, deck, pot, rates),
      figures=[captions.DECK_FIGURE, captions.POT_FIGURE, captions.VALUES_FIGURE],
      tables=[SOLVES_TABLE, COMPONENTS_TABLE, RATES_TABLE],
      checks=checks.all_checks(deck_records + pot_records, pd_concat([deck, pot]), distance))


def pd_concat(parts) -> pd.DataFrame:
  return pd.concat(parts, ignore_index=True)


def solve_task(cards: int, pot: float, openspiel: bool, flat: bool) -> Dict[str, Any]:
  """The task of one solve: ``solve.solve`` as ``to_json``."""
  return to_json(solve.solve(cards, pot, openspiel=openspiel, flat=flat))


def estimate_seconds(cards: int, openspiel: bool, flat: bool) -> float:
  """A solve's estimated wall time (the constants above)."""
  return (_TASK_SECONDS + _SECONDS_PER_CARD * cards + (_OPENSPIEL_SECONDS if openspiel else 0.0)
          + (_FLAT_SECONDS if flat else 0.0))


def solve_item(cards: int, pot: float, openspiel: bool, flat: bool) -> tasks.Task:
  """The task of solving ``cards`` cards at pot ``pot`` (``solve_task``)."""
  return tasks.Task.make(plan.NAME, solve_task, label=f"{cards} cards at P = {pot:g}",
                         estimate=estimate_seconds(cards, openspiel, flat), cards=int(cards),
                         pot=float(pot), openspiel=bool(openspiel), flat=bool(flat))


def to_json(record: solve.Solve) -> Dict[str, Any]:
  """A solve as JSON-able data: its fields, arrays as nested lists (named in "arrays")."""
  fields = dataclasses.asdict(record)
  arrays = [k for k, v in fields.items() if isinstance(v, np.ndarray)]
  return {"fields": {k: v.tolist() if k in arrays else v for k, v in fields.items()},
          "arrays": arrays}


def from_json(data: Dict[str, Any]) -> solve.Solve:
  """The solve ``to_json`` wrote: arrays as numpy arrays, other lists as tuples."""
  fields: Dict[str, Any] = {}
  for name, value in data["fields"].items():
    if name in data["arrays"]:
      fields[name] = np.array(value)
    else:
      fields[name] = tuple(value) if isinstance(value, list) else value
  return solve.Solve(**fields)
