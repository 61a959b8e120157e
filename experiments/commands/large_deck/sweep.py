"""The solves of the experiment: the N sweep on the range-vector engine, the flat engine's decks
for the cost comparison, and the sequence-form LP's values of the small decks.

Series: each rule set at every ratio of ``plan.RATIOS`` (the main ratio on every deck, the others
up to ``plan.OTHER_RATIO_MAX_CARDS``). The standard rules at the main ratio are the range engine's
side of the cost comparison, and the flat engine solves the same game to the same targets on its
decks: of these, each solve whose memory the engine estimates at ``plan.FRESH_PROCESS_MIN_BYTES``
or more runs in a fresh process (``footprint``), which measures its peak memory (on Linux,
``footprint.MEASURABLE``). Every other
solve runs in this process, after a warm-up that loads the compiled kernels (so that no CPU time
measured is compilation).
"""

import dataclasses
from typing import Callable, Dict, List, Sequence, Tuple

from algorithms.exact import sequence_form_lp
from experiments.commands.large_deck import footprint
from experiments.commands.large_deck import plan
from experiments.commands.large_deck import solve

Note = Callable[[str], None]  # A progress line (``Context.note``).


@dataclasses.dataclass(frozen=True)
class Series:
  """One rule set at one ratio over its decks; ``timed``: solved in fresh processes."""

  simplified: bool
  ratio: float
  decks: Tuple[int, ...]
  timed: bool

  def specs(self) -> List[solve.Spec]:
    return [solve.Spec(cards, self.ratio, self.simplified, "range",
                       plan.target(cards, self.simplified)) for cards in self.decks]


def plan_series(quick: bool, max_cards: int) -> List[Series]:
  """The series of the sweep: decks of ``plan.DECKS`` up to ``max_cards``."""
  decks = plan.decks_up_to(plan.DECKS.resolve(quick), max_cards)
  found = []
  for ratio in plan.RATIOS.resolve(quick):
    own = decks if ratio == plan.MAIN_RATIO else tuple(
        d for d in decks if d <= plan.OTHER_RATIO_MAX_CARDS)
    for simplified in plan.RULE_SETS:
      found.append(Series(simplified, ratio, own,
                          timed=ratio == plan.MAIN_RATIO and not simplified))
  return found


def flat_specs(flat_max_cards: int) -> List[solve.Spec]:
  """The flat engine's solves: the timed series' game (standard rules, main ratio) on
  ``plan.FLAT_DECKS`` up to ``flat_max_cards``, to the same targets."""
  return [solve.Spec(cards, plan.MAIN_RATIO, False, "flat", plan.target(cards, False))
          for cards in plan.decks_up_to(plan.FLAT_DECKS, flat_max_cards)]


def _label(spec: solve.Spec) -> str:
  return (f"{spec.cards:,} cards, {plan.RULES_NAME[spec.simplified]} rules, r = {spec.ratio:g}, "
          f"{spec.engine} engine, to exploitability {plan.short(spec.target)}")


def run(series: Sequence[Series], flat: Sequence[solve.Spec],
        note: Note) -> List[solve.DeckSolve]:
  """Every solve of ``series`` and of ``flat``, in order (module docstring)."""
  for simplified in plan.RULE_SETS:
    solve.warm_up(simplified, "range")
  solve.warm_up(False, "flat")
  measured = [(spec, one.timed) for one in series for spec in one.specs()]
  measured += [(spec, True) for spec in flat]
  found = []
  for spec, compared in measured:
    note(f"solving {_label(spec)}")
    if (compared and footprint.MEASURABLE
        and spec.estimate_bytes() >= plan.FRESH_PROCESS_MIN_BYTES):
      found.append(footprint.solve_in_fresh_process(spec))
    else:
      found.append(solve.finish(solve.solve(spec)))
  return found


GameKey = Tuple[int, float, bool]  # (cards, ratio, simplified): one game, whatever the engine.


def game_key(spec: solve.Spec) -> GameKey:
  return spec.cards, spec.ratio, spec.simplified


def lp_values(records: Sequence[solve.DeckSolve]) -> Dict[GameKey, float]:
  """The sequence-form LP's exact value V_N of every game of at most ``plan.LP_MAX_CARDS``
  cards among ``records`` (``algorithms.exact.sequence_form_lp``), by ``game_key``."""
  return {game_key(r.spec): float(sequence_form_lp.solve_game(r.spec.game()).value)
          for r in records if r.spec.cards <= plan.LP_MAX_CARDS}
