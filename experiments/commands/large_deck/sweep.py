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

Each solve is a task (``experiments.harness.tasks``, ``solve_task``): saved in the experiment's
``jobs/`` as it finishes, so that an interrupted run (Ctrl-C, a signal, the ``--max-minutes``
deadline) keeps the solves that finished and a rerun resumes; estimated beforehand
(``estimate_seconds``) and run on the executor beside the other tasks.
"""

import dataclasses
from typing import Any, Dict, List, Sequence, Tuple

from algorithms.exact import sequence_form_lp
from experiments.commands.large_deck import footprint
from experiments.commands.large_deck import plan
from experiments.commands.large_deck import solve
from experiments.harness import tasks

# The estimate of a solve (``estimate_seconds``), in seconds: a task's start (imports and the
# warm-up, the kernels read from their disk cache), a fresh process's start, the range engine
# per card (20 s at 100,000 cards, DCFR to 1e-7 or 1e-9), the flat engine per history, and
# OpenSpiel's exploitability walk per history (3.4 s at 50 cards, 22,101 histories).
_TASK_SECONDS = 1.0
_FRESH_PROCESS_SECONDS = 3.0
_RANGE_SECONDS_PER_CARD = 2.5e-4
_FLAT_SECONDS_PER_HISTORY = 2e-5
_OPENSPIEL_SECONDS_PER_HISTORY = 1.6e-4


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


def solve_task(spec: Dict[str, Any], fresh: bool) -> Dict[str, Any]:
  """The task of one solve (module docstring): ``spec`` (a ``solve.Spec`` as a dict) solved in
  a fresh process if ``fresh``, else in this one after a warm-up; the ``solve.DeckSolve`` as
  ``footprint.to_json``."""
  deck = solve.Spec(**spec)
  if fresh:
    return footprint.to_json(footprint.solve_in_fresh_process(deck))
  solve.warm_up(deck.simplified, deck.engine)
  return footprint.to_json(solve.finish(solve.solve(deck)))


def _fresh(spec: solve.Spec, compared: bool) -> bool:
  """Whether a solve runs in a fresh process, for its peak memory (module docstring)."""
  return (compared and footprint.MEASURABLE
          and spec.estimate_bytes() >= plan.FRESH_PROCESS_MIN_BYTES)


def estimate_seconds(spec: solve.Spec, fresh: bool) -> float:
  """A solve's estimated wall time (the constants above)."""
  seconds = _TASK_SECONDS + (_FRESH_PROCESS_SECONDS if fresh else 0.0)
  histories = spec.game().num_histories()
  if spec.engine == "range":
    seconds += _RANGE_SECONDS_PER_CARD * spec.cards
    if spec.cards <= plan.OPENSPIEL_MAX_CARDS and spec.ratio == plan.MAIN_RATIO:
      seconds += _OPENSPIEL_SECONDS_PER_HISTORY * histories
  else:
    seconds += _FLAT_SECONDS_PER_HISTORY * histories
  return seconds


def solve_tasks(series: Sequence[Series], flat: Sequence[solve.Spec]) -> List[tasks.Task]:
  """The tasks of every solve of ``series`` and of ``flat``, in order (module docstring)."""
  measured = [(spec, one.timed) for one in series for spec in one.specs()]
  measured += [(spec, True) for spec in flat]
  found = []
  for spec, compared in measured:
    fresh = _fresh(spec, compared)
    found.append(tasks.Task.make(plan.NAME, solve_task, label=_label(spec),
                                 estimate=estimate_seconds(spec, fresh),
                                 spec=dataclasses.asdict(spec), fresh=fresh))
  return found


def records(results: Sequence[tasks.TaskResult]) -> List[solve.DeckSolve]:
  """The solves of ``solve_tasks``'s results."""
  return [footprint.from_json(result.value) for result in results]


GameKey = Tuple[int, float, bool]  # (cards, ratio, simplified): one game, whatever the engine.


def game_key(spec: solve.Spec) -> GameKey:
  return spec.cards, spec.ratio, spec.simplified


def lp_values(records: Sequence[solve.DeckSolve]) -> Dict[GameKey, float]:
  """The sequence-form LP's exact value V_N of every game of at most ``plan.LP_MAX_CARDS``
  cards among ``records`` (``algorithms.exact.sequence_form_lp``), by ``game_key``."""
  return {game_key(r.spec): float(sequence_form_lp.solve_game(r.spec.game()).value)
          for r in records if r.spec.cards <= plan.LP_MAX_CARDS}
