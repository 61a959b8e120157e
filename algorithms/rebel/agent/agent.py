"""ReBeL's agent: a new depth-limited search wherever the previous one's horizon ends.

Brown, Bakhtin, Lerer, Gong, "Combining deep reinforcement learning and search for
imperfect-information games", NeurIPS 2020, arXiv 2007.13544, Section 6 ("Playing according to an
equilibrium at test time") and Theorem 3. CFR finds an equilibrium in its average policy, but the
leaf values of a depth-limited search hold for the beliefs of one iteration, so the agent cannot
play the average and then search again from beliefs that the average implies. The paper's agent:
at the public belief state (PBS) beta of the current public state s, run T iterations of the
search; draw an iteration t at random; play pi^t, the policy of iteration t, at every decision of
the search's trunk, and assume that both players played pi^t, so that when play reaches a leaf z
of the search, the next search starts from the PBS beta_z that pi^t induces there (Bayes' rule,
``search.leaf_belief``; with the reaches of an iterate trembled as CFR-D's leaf beliefs are,
``leaf_step``, so that the next search solves the PBS the drawn iteration was valued at). Play
below the cut comes from that next search, never from a leaf solver.
Theorem 3: run at test time without off-policy exploration, with leaf values off by at most
delta and T iterations per search, the agent plays, in expectation over its draws, an approximate
Nash equilibrium whose error is delta times a game constant plus a term falling as 1 / sqrt(T).
The paper's detailed pseudocode (Appendix B, with Linear CFR) draws t with probability
proportional to t. ReBeL's released evaluation code (facebookresearch/rebel, commit 7960a42,
csrc/liars_dice/recursive_solving.cc, ``compute_sampled_strategy_recursive_to_leaf``) draws the
number of iterations run, k in {0, 2, 4, ..., T - 2} (whole rounds of alternating updates), with
weight k / 2 + 1, the linear averaging weight of the policy after k iterations (the uniform
initial policy included, the final one never drawn), and plays and passes on that policy.

The default, named exactly: **CFR-D with linear averaging**, the paper's agent as Section 6 and
the released code run it with one difference: CFR-D search (``leaf_beliefs="current"``), play
and pass on the drawn iteration's current policy pi^t (``play="matched"``, which is pi^t under
CFR-D), linear averaging (``weighting="linear"``: the average weighted by w_t = t, the regrets
not; the released code's ``linear_update`` weights both, ``weighting="linear_cfr"``), the draw
P(t) = w_t / W_T (``draw="weights"``), alternating updates, one-player leaf ties split and
trembles of ``leaf_step.TREMBLE``. The evidence for each choice is
``experiments/scripts/agent_choices.py``'s tables (docs/rebel.md). CFR-AVG with "matched" play
(``leaf_beliefs="average"``) is this project's construction, kept as an option.

Options:

* ``play``: which policy is played and passed on. "matched": the policy whose
  beliefs the search's leaf values assumed at the drawn iteration, so that the next search
  solves the PBS the drawn iteration was valued at: pi^t for CFR-D, pibar^t for CFR-AVG (whose
  leaf PBS at iteration t is that of the average); at a search without leaves, pi^t (nothing
  is passed on, and the mixture over t is the search's average pibar^T). Section 6's argument
  uses both that the mixture over t of the played policies is the search's average and that
  the next search solves the PBS the drawn iteration was valued at; with CFR-D, pi^t gives both
  (the paper's reading, and the released code's, whose CFR values its leaves at the current
  policy's reaches). With CFR-AVG (the paper's poker experiments, in its modified form,
  Appendix I) no policy gives both: pi^t mixes to pibar^T but its PBS is not the one valued
  (measured: it converges much more slowly, docs/rebel_history.md); pibar^t passes on the PBS
  valued, and mixes over t to an average of averages. "matched" takes the second.
  "iterate": pi^t of the drawn t whatever the search; "average": pibar^t; "final": pibar^T, no
  draw (the deterministic agent that plays the search's final average and searches again from
  the beliefs it implies).
* ``draw``: how t is drawn. "weights" (the paper's reading): P(t) = w_t / W_T, the averaging
  weights, uniform for uniform averaging and proportional to t for linear averaging (Appendix B,
  and ReBeL's released evaluation, above); "uniform": P(t) = 1/T whatever the averaging (as
  ReBeL's released self-play loop, ``RlRunner::step``, which draws the number of iterations run
  uniformly from {0, ..., T}).
* ``weighting``: "linear" averages iteration t with weight w_t = t (OpenSpiel's
  ``linear_averaging``), "uniform" with w_t = 1, "linear_cfr" with w_t = t and also discounts
  the cumulative regrets by t / (t + 1) after iteration t (Linear CFR, Brown and Sandholm,
  AAAI 2019, what the released code's ``linear_update`` does to both); the draw follows w_t.
* ``tremble``: epsilon of the trembles, added to every current-policy reach that forms a leaf
  belief, in the searches (CFR-D) and in the beliefs passed on from a drawn iterate
  (``leaf_step``; ``leaf_step.TREMBLE`` by default; 0 gives the untrembled agent, which stalls
  on kuhn_poker at d = 1). A tremble below the exact LP's tolerances (1e-9 and less) gives roots
  a belief that the LP does not see and that is not 0, so no best response completes them: such
  agents are far more exploitable than with 0 or 1e-6 (``experiments.scripts.agent_choices``).
* ``leaf_beliefs`` (CFR-AVG or CFR-D), ``alternating_updates``,
  the leaf solver (any ``leaves.solvers.LeafSolver``: exact LP, CFR(k), Hedge, a value
  function behind ``ValueFunctionLeafSolver``), T and the lookahead d.

Warm starts (the paper's InitializePolicy from a policy network, Algorithm 1) are not offered:
every search starts from zero regrets (a uniform first policy), the paper's Algorithm 1 without
a policy network.

The draws are part of the agent: ``plays(game, belief)`` lists every policy the agent may play
from a search with its exact probability; ``agent.behaviour`` mixes them into the agent's
behaviour strategy, ``agent.monte_carlo`` plays hands with it.
"""

import dataclasses
from typing import Dict, List, Optional, Tuple

import numpy as np
import pyspiel

from algorithms.cfr import tree_passes
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.rebel.agent.search import SearchRecord
from algorithms.rebel.agent.search import leaf_belief
from algorithms.rebel.agent.search import run_search
from algorithms.rebel.agent.search import solve_average
from algorithms.rebel.agent.search_game import PublicCuts
from algorithms.rebel.agent.search_game import SearchGame
from algorithms.rebel.agent.search_game import SearchLeaf
from algorithms.rebel.leaf_step import LEAF_BELIEFS
from algorithms.rebel.leaf_step import TREMBLE
from algorithms.rebel.leaf_step import check_choice
from algorithms.rebel.leaf_step import check_tremble
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.tree.game_tree import GameTree
from algorithms.tree.game_tree import check_two_player_fixed_sum
from algorithms.tree.tree_layout import TreeArrays

PLAYS = ("matched", "iterate", "average", "final")
DRAWS = ("weights", "uniform")
WEIGHTINGS = ("uniform", "linear", "linear_cfr")


@dataclasses.dataclass(frozen=True)
class Play:
  """One policy the agent may play from a search.

  Attributes:
    probability: the probability of the draw that gives it.
    policy: the behavioural policy (G_s,) on the search's trunk, played by the agent and assumed
      of both players for the next beliefs.
    iteration: the drawn t (1-based), 0 for a policy that mixes all draws exactly.
  """

  probability: float
  policy: np.ndarray
  iteration: int


def splits_ties(leaf_beliefs: str = "current", **_other_options) -> bool:
  """Whether the agent with these ``ReBeLAgent`` options plays exactly tied actions equally at its
  exact one-player leaves (the LP's and ``ValueFunctionLeafSolver``'s ``split_ties``): with CFR-D,
  as the next search does (``leaf_step``: a tie broken otherwise makes the trunk value a play
  that never follows); with CFR-AVG the first tied action, as ``CFRAvgSolver`` does."""
  return leaf_beliefs == "current"


def exact_leaf_solver(**options) -> SequenceFormLPSolver:
  """The exact LP that an agent with these ``ReBeLAgent`` options uses when given no leaf solver
  (one-player ties split as ``splits_ties`` says)."""
  return SequenceFormLPSolver(split_ties=splits_ties(**options))


class ReBeLAgent:
  """ReBeL's agent on a two-player game with public observations (module docstring).

  Args:
    game: e.g. ``kuhn_poker_ante`` with any ante, bet, deck and rule set.
    lookahead: d >= 1, the player actions each search looks ahead.
    iterations: T >= 1, the iterations of each search.
    leaf_solver: ``solver(leaf, belief) -> LeafSolution``; the exact LP if None (splitting the
      ties of one-player leaves with CFR-D, ``splits_ties``).
    weighting: "linear" (w_t = t, the paper's), "uniform" (w_t = 1) or "linear_cfr" (w_t = t
      and regrets discounted by t / (t + 1), Linear CFR).
    leaf_beliefs: "current" (CFR-D, the paper's) or "average" (CFR-AVG).
    play: "matched", "iterate", "average" or "final".
    draw: "weights" or "uniform".
    alternating_updates: the search's CFR updates player 0, then player 1.
    tremble: e in [0, 1), added to current-policy reaches that form beliefs (``leaf_step``).
    cache_size: searches kept, keyed by public state and belief (0: none).
  """

  def __init__(self, game: pyspiel.Game, *, lookahead: int = 1, iterations: int = 100,
               leaf_solver: Optional[LeafSolver] = None, weighting: str = "linear",
               leaf_beliefs: str = "current", play: str = "matched", draw: str = "weights",
               alternating_updates: bool = True, tremble: float = TREMBLE, cache_size: int = 0):
    check_two_player_fixed_sum(game, "ReBeL's agent")
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or \
        iterations < 1:
      raise ValueError(f"iterations must be an integer >= 1, got {iterations!r}")
    check_choice("weighting", weighting, WEIGHTINGS)
    check_choice("leaf_beliefs", leaf_beliefs, LEAF_BELIEFS)
    check_choice("play", play, PLAYS)
    check_choice("draw", draw, DRAWS)
    self.tremble = check_tremble(tremble)
    self.game = game
    self.iterations = int(iterations)
    self.leaf_solver = leaf_solver if leaf_solver is not None else exact_leaf_solver(
        leaf_beliefs=leaf_beliefs)
    self.weighting, self.leaf_beliefs, self.play, self.draw = weighting, leaf_beliefs, play, draw
    self.rule = UpdateRule(alternating_updates=bool(alternating_updates),
                           averaging_gamma=0.0 if weighting == "uniform" else 1.0,
                           **({"discount_alpha": 1.0, "discount_beta": 1.0}
                              if weighting == "linear_cfr" else {}))
    self.cuts = PublicCuts(TreeArrays(GameTree.from_game(game)), lookahead)
    self.cache_size = int(cache_size)
    self._cache: Dict[Tuple[int, str, bytes], List[Play]] = {}
    self.searches_run = 0

  @property
  def arrays(self) -> TreeArrays:
    """The full game's ``TreeArrays``."""
    return self.cuts.arrays

  @property
  def lookahead(self) -> int:
    return self.cuts.lookahead

  def root(self) -> Tuple[SearchGame, np.ndarray]:
    """The first search game and its belief (1,)."""
    return self.cuts.root(), np.ones(1)

  def next_search(self, game: SearchGame, leaf: SearchLeaf, belief: np.ndarray,
                  play: Play) -> Tuple[SearchGame, np.ndarray]:
    """The search at a leaf of ``game`` and its PBS, both players assumed to have played
    ``play``'s policy from ``belief`` (Bayes' rule, ``search.leaf_belief``)."""
    reach = tree_passes.realization(game.arrays, play.policy)
    tremble = self.tremble if self.play_at(game) == "iterate" else 0.0
    return (self.cuts.at(leaf.leaf, game.depth + self.lookahead),
            leaf_belief(leaf, belief, reach, tremble))

  def draw_probabilities(self, weights: np.ndarray) -> np.ndarray:
    """P(t) for t = 1..T: w_t / W_T ("weights") or 1/T ("uniform")."""
    if self.draw == "uniform":
      return np.full(len(weights), 1.0 / len(weights))
    return weights / weights.sum()

  def plays(self, game: SearchGame, belief: np.ndarray) -> List[Play]:
    """Every policy the agent may play from the search at ``belief``, with its probability.

    For "iterate" with P(t) = w_t / W_T on a search without leaves the mixture is exact in one
    play: sum_t P(t) x^t = S / W_T, the realization plan of the average pibar^T (the engine's
    average numerators are S = sum_t w_t x^t), so the agent plays pibar^T there with
    probability 1 and the search runs in one compiled call (``search.solve_average``).
    """
    belief = np.asarray(belief, dtype=np.float64)
    key = (game.depth, game.public_state, belief.tobytes())
    if key in self._cache:
      return self._cache[key]
    out = self._plays(game, belief)
    if self.cache_size > 0:
      if len(self._cache) >= self.cache_size:
        self._cache.clear()
      self._cache[key] = out
    return out

  def _plays(self, game: SearchGame, belief: np.ndarray) -> List[Play]:
    self.searches_run += 1
    if not game.leaves and self.num_plays(game) == 1:
      return [Play(1.0, solve_average(game, belief, self.iterations, self.rule), 0)]
    return self.plays_from(run_search(game, belief, self.iterations, self.leaf_solver,
                                      self.rule, self.leaf_beliefs, self.tremble))

  def plays_from(self, record: SearchRecord) -> List[Play]:
    """The plays of a search already run (``search.run_search`` with the agent's options)."""
    play = self.play_at(record.game)
    if play == "final":
      return [Play(1.0, record.averages[-1], 0)]
    policies = record.iterates if play == "iterate" else record.averages
    probabilities = self.draw_probabilities(record.weights)
    return [Play(float(p), policies[t], t + 1) for t, p in enumerate(probabilities) if p > 0]

  def play_at(self, game: SearchGame) -> str:
    """The policy played from a search game: ``play``, "matched" resolved (module docstring)."""
    if self.play != "matched":
      return self.play
    return "iterate" if not game.leaves or self.leaf_beliefs == "current" else "average"

  def num_plays(self, game: SearchGame) -> int:
    """How many plays ``plays`` lists for a search game (without running it)."""
    play = self.play_at(game)
    if play == "final":
      return 1
    if not game.leaves and play == "iterate" and (
        self.draw == "weights" or self.weighting == "uniform"):
      return 1
    return self.iterations
