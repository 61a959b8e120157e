"""One solve of the three-player N-card game, its exact evaluation and its betting structure.

``solve(cards, pot, ...)`` runs PCFR+ on the range-vector engine (``algorithms.PCFRPlusSolver``,
``engine="range"``, any deck of at least 3 cards, ``plan.iterations``) and evaluates the average
policy exactly:
u_i (the players' expected payoffs), BR_i (each player's best response to the other two) and
NashConv = sum_i (BR_i - u_i), by range vectors (``algorithms.cfr.evaluation.RangeEvaluator``);
on small decks also by OpenSpiel's ``exploitability.nash_conv`` and by the flat engine's tree
evaluator, both walking the game tree with the same policy.

The structure (``components``): at each betting node the acting player's probability of action
1 (bet, or call facing a bet) is a function of its card c; with x = c / N its cards are read as
the strength interval [c / N, (c + 1) / N). A card plays action 1 when the equilibrium's
indifference says so: the action's counterfactual value is within ``plan.INDIFFERENCE`` of the
better action's (``action_gaps``: chips per hand given the card, against the other two players'
average policies), and the solve plays it (probability above ``plan.PLAYED``). A mixed card is
at exact indifference in an equilibrium, so a small probability counts as much as a large one:
on 8 cards player 1 bets card 4 with probability 0.013 after player 0's check, and without that
bet the profile's NashConv is 6.2e-4 (a frequency cut-off of 0.02 missed it). A component is a
maximal run of such cards, runs less than ``plan.MERGE_GAP`` apart merged; its lower and upper
edges (fractions of the deck) and its mass (sum of the probabilities / N) are the thresholds of
the experiment.

A bet's kind against each opponent (``bet_kinds``): the opponent j who faces the bet alone (the
other opponent folded, or is yet to act) calls with probability s_j(x) at its first response
node. The bet of card c is a bluff against j if it beats less than ``BLUFF_SHARE`` of j's
calling mass (it wins only when j folds; the margin absorbs the thin mixing a finite solve
leaves), else a value bet against j (it beats some of the hands that call, or j never calls
with a card it can hold: it cannot lose a showdown to j). Measured at 1,000 cards, P = 3: the
shares are 0 for the low bets, 0.45 to 0.76 for the high ones, and 0 against one answerer
and 0.34 to 0.36 against the other for a bet with mid-range cards. Billingham (arXiv
1802.04670, abstract) reports for N > 5 a bet with mid-range cards that is a bluff against one
player and a value bet against the other: a component with kinds (bluff, value) or (value, bluff).
"""

import dataclasses
import time
from typing import Dict, List, Optional, Tuple

import numpy as np
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

import algorithms
from algorithms.cfr import range_kernel
from algorithms.cfr.engine_choice import range_card_tree
from algorithms.cfr.evaluation import RangeEvaluator
from algorithms.cfr.range_engine import card_tables
from algorithms.cfr.update_rules import UpdateRule
from experiments.commands.three_player_large import plan
from spiel_games import kuhn_poker_ante

# The opening bets (no bet yet) and, per opponent of the bettor, the node where that opponent
# first answers the bet on its own: the first answerer's call node, and the second answerer's
# node after the first folded.
OPENING_NODES = ("", "p", "pp")
RESPONSE_NODES = {"": ("b", "bp"), "p": ("pb", "pbp"), "pp": ("ppb", "ppbp")}
VALUE, BLUFF = "value", "bluff"
BLUFF_SHARE = 0.05


@dataclasses.dataclass(frozen=True)
class Component:
  """A run of cards betting (or calling) at one node: edges as fractions of the deck, mass."""

  low: float
  high: float
  mass: float


@dataclasses.dataclass
class Solve:
  """One solved game.

  Attributes:
    cards, pot: N and P.
    iterations, cpu_seconds: the solve's budget and CPU time.
    values: u_i, i = 0, 1, 2 (chips per hand).
    best_responses: BR_i.
    nash_conv: sum_i (BR_i - u_i), by range vectors.
    openspiel_nash_conv, flat_nash_conv: the same policy's NashConv by OpenSpiel and by the flat
      engine's tree evaluator, where measured (else None).
    histories, node_player: the betting nodes.
    bet: (D, N) probability of action 1 by node and card.
    gap: (D, N) how much less action 1 is worth than the better action, by node and card
      (``action_gaps``; 0 where action 1 is a best action).
  """

  cards: int
  pot: float
  iterations: int
  cpu_seconds: float
  values: Tuple[float, float, float]
  best_responses: Tuple[float, float, float]
  nash_conv: float
  histories: Tuple[str, ...]
  node_player: Tuple[int, ...]
  bet: np.ndarray
  gap: np.ndarray
  openspiel_nash_conv: Optional[float] = None
  flat_nash_conv: Optional[float] = None


def solve(cards: int, pot: float, iterations: Optional[int] = None, openspiel: bool = False,
          flat: bool = False) -> Solve:
  """PCFR+ on the N-card game with pot P, evaluated exactly (module docstring); ``iterations``
  defaults to ``plan.iterations(cards)``."""
  iterations = plan.iterations(cards) if iterations is None else iterations
  game = kuhn_poker_ante.game_from_rules(plan.rules(cards, pot))
  solver = algorithms.PCFRPlusSolver(game, engine="range")
  start = time.process_time()
  solver.solve(iterations)
  cpu = time.process_time() - start
  policy = solver.card_policy()
  tree = range_card_tree(game, "range")
  best, expected = RangeEvaluator(tree).values(policy)
  record = Solve(cards=int(cards), pot=float(pot), iterations=int(iterations), cpu_seconds=cpu,
                 values=tuple(float(v) for v in expected),
                 best_responses=tuple(float(v) for v in best),
                 nash_conv=float(np.sum(best - expected)), histories=tuple(policy.histories),
                 node_player=tuple(int(p) for p in policy.node_player),
                 bet=np.array(policy.probabilities[:, :, 1]),
                 gap=action_gaps(tree, policy.probabilities))
  if openspiel or flat:
    tabular = solver.average_policy()
    if openspiel:
      record.openspiel_nash_conv = float(openspiel_exploitability.nash_conv(game, tabular))
    if flat:
      record.flat_nash_conv = float(algorithms.TreeEvaluator(game).nash_conv(tabular))
  return record


def action_values(tree, probabilities: np.ndarray) -> np.ndarray:
  """q(d, c, a) (D, N, 2): the counterfactual value of action a for the player acting at node d
  holding card c, every player on ``probabilities`` (D, N, 2) (``range_kernel.player_pass``, the
  values CFR's regrets are made of: the other players' reaches with card removal, payoffs,
  the deal's probability; the own reach left out)."""
  tables = card_tables(tree)
  policy = np.ascontiguousarray(probabilities, dtype=np.float64).ravel()
  d, n = probabilities.shape[:2]
  rule = UpdateRule()  # unused: the passes update nothing
  memory = rule.memory(0)
  x = range_kernel.reach_array(tables)
  for p in tables.players:
    range_kernel.reaches(tables, policy, p, x)
  q, v = np.empty(d * n * 2), np.empty((d, n))
  out = np.empty((d, n, 2))
  for p in tables.players:
    range_kernel.player_pass(tables, rule.kernel_rule(), 0, p, False, False, policy, x, x, x,
                             memory, q, v)
    mine = np.asarray(tables.node_player) == p
    out[mine] = q.reshape(d, n, 2)[mine]
  return out


def action_gaps(tree, probabilities: np.ndarray) -> np.ndarray:
  """(D, N): max_a q(d, c, a) - q(d, c, 1) of ``action_values``, times N: chips per hand given
  the card (a card is dealt with probability 1 / N), 0 where action 1 is a best action."""
  q = action_values(tree, probabilities)
  return (q.max(axis=2) - q[:, :, 1]) * q.shape[1]


def components(probabilities: np.ndarray, gaps: np.ndarray) -> List[Component]:
  """The components of one node's action-1 set (module docstring), lowest first."""
  n = len(probabilities)
  on = np.flatnonzero((probabilities > plan.PLAYED) & (gaps <= plan.INDIFFERENCE))
  if on.size == 0:
    return []
  gap = max(1, int(np.floor(plan.MERGE_GAP * n)))
  breaks = np.flatnonzero(np.diff(on) > gap)
  starts, ends = np.r_[on[0], on[breaks + 1]], np.r_[on[breaks], on[-1]]
  return [Component(low=s / n, high=(e + 1) / n, mass=float(probabilities[s:e + 1].sum() / n))
          for s, e in zip(starts, ends)]


def node_components(record: "Solve", node: str) -> List[Component]:
  """``components`` of a solve's node, by its history."""
  d = record.histories.index(node)
  return components(record.bet[d], record.gap[d])


def value_share(card: float, calling: np.ndarray) -> float:
  """The share of a caller's mass (``calling``: probability of calling by card) below the
  bettor's card c = floor(``card`` N), the caller's card c excluded (card removal); nan if the
  caller never calls with a card it can hold."""
  c = min(int(np.floor(card * len(calling))), len(calling) - 1)
  total = calling.sum() - calling[c]
  if total <= 0:
    return float("nan")
  return float(calling[:c].sum() / total)


def bet_kinds(record: Solve, node: str, component: Component) -> Tuple[str, str]:
  """(kind against the first answerer, kind against the second) of a bet component at an
  opening node, at the component's middle card (module docstring)."""
  middle = (component.low + component.high) / 2
  kinds = []
  for response in RESPONSE_NODES[node]:
    share = value_share(middle, record.bet[record.histories.index(response)])
    kinds.append(BLUFF if share < BLUFF_SHARE else VALUE)  # nan: never called, no bluff
  return kinds[0], kinds[1]


def structure(record: Solve) -> Dict[str, List[Component]]:
  """{node: its components} of a solve."""
  return {h: node_components(record, h) for h in record.histories}
