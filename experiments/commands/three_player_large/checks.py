"""The three-player large-deck experiment's checks.

* NashConv by range vectors = OpenSpiel's ``exploitability.nash_conv`` (decks up to
  ``plan.OPENSPIEL_MAX_CARDS``) and = the flat engine's tree evaluator (up to
  ``plan.FLAT_MAX_CARDS``) of the same average policy: two exact computations, ``ROUNDING``.
* The certificate: NashConv at most ``CERTIFIED_NASH_CONV`` (1e-4 chips per hand) on every deck
  and pot, the small decks where CFR+ and the discounted rules cycle included (``plan``: PCFR+
  with ``plan.iterations``; measured at most 3.9e-5, at 13 cards and at 1,000 cards, P = 12).
* The Szafron-Gibson-Sturtevant family (D. Szafron, R. Gibson, N. Sturtevant, "A parameterized
  family of equilibrium profiles for three-player Kuhn poker", AAMAS 2013), 4 cards, P = 3:
  every player's value within ``references.family_value_tolerance`` of the nearest member's
  (``kuhn3_equilibria.nearest_member``), the tolerance of the three-player experiment.
* Billingham (arXiv 1802.04670, abstract): for N > 5 a mid-range bet that is a bluff against one
  player and a value bet against the other; N = 4 has none. Checked as found (1) or not (0) at
  P = 3 on 4 cards and on every deck from ``plan.LARGE_MIN_CARDS`` on (on 5 to 8 cards the table
  reports it: the certified 8-card solve has it, the 6-card one, one equilibrium of many, has
  no separate mid-range bet).
* The N sweep settles: the largest value distance from the largest deck's at the second-largest
  deck is at most the one at the smallest large deck.
"""

from typing import List, Sequence

import pandas as pd

from algorithms.exact import kuhn3_equilibria
from experiments.commands.three_player_large import plan
from experiments.commands.three_player_large import solve as solve_lib
from experiments.commands.three_player_large.frames import VALUE_DISTANCE
from experiments.harness import checks
from experiments.harness import references
from experiments.harness.checks import Check
from spiel_games import kuhn_poker_ante

CERTIFIED_NASH_CONV = 1e-4
FAMILY_CARDS = 4
FAMILY_SOLVER = "our_pcfr_plus"  # The registry's name of algorithms.PCFRPlusSolver.
PAPER = "Billingham, arXiv 1802.04670 (abstract): a mid-range bet for N > 5, none at N = 4"
_DOCSTRING = "tolerance stated in experiments/commands/three_player_large/checks.py"


def _label(row) -> str:
  return f"three players, {int(row.cards):,} cards, P = {row.pot:g}"


def nash_conv_checks(solves: pd.DataFrame) -> List[Check]:
  found = []
  for row in solves.itertuples():
    label = _label(row)
    if not pd.isna(row.openspiel_nash_conv):
      found.append(checks.same_number(f"{label}: NashConv, range vectors vs OpenSpiel",
                                      row.nash_conv, row.openspiel_nash_conv,
                                      "OpenSpiel exploitability.nash_conv of the same policy"))
    if not pd.isna(row.flat_nash_conv):
      found.append(checks.same_number(f"{label}: NashConv, range vectors vs the flat engine",
                                      row.nash_conv, row.flat_nash_conv,
                                      "flat engine's TreeEvaluator of the same policy"))
    found.append(checks.at_most(
        f"{label}: NashConv of {plan.SOLVER} after {int(row.iterations):,} iterations",
        row.nash_conv, CERTIFIED_NASH_CONV, f"certificate; {_DOCSTRING}"))
  return found


def family_checks(records: Sequence[solve_lib.Solve]) -> List[Check]:
  found = []
  for r in records:
    if r.cards != FAMILY_CARDS or r.pot != plan.MAIN_POT:
      continue
    probabilities = {f"{c}{h}": float(r.bet[d, c]) for d, h in enumerate(r.histories)
                     for c in range(r.cards)}
    member = kuhn3_equilibria.nearest_member(probabilities).member
    game = kuhn_poker_ante.game_from_rules(plan.rules(r.cards, r.pot))
    tolerance = references.family_value_tolerance(game, FAMILY_SOLVER, r.iterations)
    for i, (value, reference) in enumerate(zip(r.values, member.values)):
      found.append(checks.within(
          f"three players, 4 cards, P = 3: player {i}'s value against the nearest family member",
          value, float(reference), tolerance,
          "Szafron-Gibson-Sturtevant family (kuhn3_equilibria); tolerance "
          "references.family_value_tolerance"))
  return found


def paper_checks(solves: pd.DataFrame) -> List[Check]:
  found = []
  for row in solves[solves.pot == plan.MAIN_POT].itertuples():
    if row.cards == FAMILY_CARDS or row.cards >= plan.LARGE_MIN_CARDS:
      found.append(checks.within(f"{_label(row)}: mid-range bet found (1) or not (0)",
                                 float(row.mid_range_bet), float(row.cards > 5), 0.0, PAPER))
  return found


def settling_checks(distance: pd.DataFrame) -> List[Check]:
  if len(distance) < 2:
    return []
  first, last = distance.iloc[0], distance.iloc[-1]
  return [checks.at_most(
      f"three players, P = 3: {VALUE_DISTANCE} at {int(last.cards):,} cards",
      last[VALUE_DISTANCE], first[VALUE_DISTANCE],
      f"the same distance at {int(first.cards):,} cards: it shrinks")]


def all_checks(records: Sequence[solve_lib.Solve], solves: pd.DataFrame,
               distance: pd.DataFrame) -> List[Check]:
  return (nash_conv_checks(solves) + family_checks(records) + paper_checks(solves)
          + settling_checks(distance))
