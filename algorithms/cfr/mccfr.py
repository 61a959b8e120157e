"""Monte Carlo CFR on the flat engine: drop-ins for OpenSpiel's Python MCCFR solvers.

Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for regret minimization in extensive
games", NeurIPS 2009 (below: the paper). ``ExternalSamplingSolver`` and
``OutcomeSamplingSolver`` take the options and have the methods of OpenSpiel's
``external_sampling_mccfr.ExternalSamplingSolver`` and
``outcome_sampling_mccfr.OutcomeSamplingSolver`` (``iteration()``, ``average_policy()``; they
subclass them, so that ``isinstance`` checks keep working), and make the same updates from the
same random numbers::

  from algorithms import ExternalSamplingSolver   # was: external_sampling_mccfr
  solver = ExternalSamplingSolver(game, seed=1)   # np.random.seed(1) for OpenSpiel's
  for _ in range(1000):
    solver.iteration()
  solver.average_policy()                         # a policy.TabularPolicy of the game
  solver.solve(100_000)                           # compiled calls of 10,000 iterations

The estimators and averages, each as OpenSpiel's Python code computes it (``mccfr_kernel`` has
the passes, each line next to its formula):

* external sampling (the paper's Section 3.2; ``external_pass``): one pass per player i and
  iteration, chance and the other players sampled, every action of i followed; at i's set I,
  R(I, a) += v~(h a) - v~(h) with v~ the paper's sampled counterfactual value over pi_{-i}
  (importance weight 1 / q(z) = 1 / pi_{-i}(z)). ``average_type`` "simple" (OpenSpiel's default)
  adds S(J, a) += sigma(J, a) at every visited node of player i + 1 mod N during i's pass
  (stochastically-weighted averaging, Lanctot's thesis, 2013, Chapter 4: that player's reach
  over its part of the sampling probability, pi_{i+1}(h) / pi_{i+1}(h); unbiased up to a
  constant per set in two players only); "full" adds, after the passes, S(I, a) += pi_i(h)
  sigma(I, a) at every history h (``full_average``).
* outcome sampling (the paper's Section 3.1; ``outcome_pass``): one sampled terminal per player
  i and iteration, i's actions from epsilon uniform + (1 - epsilon) sigma (OpenSpiel's
  exploration 0.6); the baseline-free estimator v~(h) = u_i(z) pi^sigma(h, z) / q(h, z) and
  R(I, a) += W (v~(h a) - v~(h)) with W = pi_{-i}(h) / q(h); stochastically-weighted
  averaging at i's own sets during i's pass, S(I, a) += pi_i(h) sigma(I, a) / q(h).

As OpenSpiel's Python base class (``mccfr.MCCFRSolverBase._lookup_infostate_info``), every
regret and average numerator starts at 1e-6, which makes the first policy uniform.

Random numbers. OpenSpiel's Python solvers call ``np.random.choice(..., p=p)`` once per
sampled chance or opponent node (and, in outcome sampling, per node of the updated player), in
the order the depth-first traversal meets them. Each call draws one ``random_sample()`` from
numpy's global legacy generator (MT19937) and takes the first index whose normalised
cumulative probability exceeds it. The kernel runs the same generator and rule, so with
``seed=s`` the draws are those of OpenSpiel after ``np.random.seed(s)``; ``rng`` is a
``np.random.RandomState`` whose state the solver advances (and saves in its checkpoints).
Equality to OpenSpiel (regrets, numerators, policies and the generator's final state) is
tested; the one place where sums may round differently is regret matching at sets of nine or
more actions, where numpy sums pairwise.

Extras as the other solvers (``solvers.EngineSolver``): ``solve(iterations, progress=False)``,
``nash_conv()`` and ``exploitability()`` exact on the tree, ``save(path)`` and
``Class.load(path)`` (bit-identical resume, generator state included), ``current_policy()``.
The games are the tree's (``game_tree``): two or more players, sequential, explicit or no
chance, perfect recall.
"""

import numbers
from typing import Dict, Optional, Tuple, Union

import numpy as np
from open_spiel.python.algorithms import external_sampling_mccfr
from open_spiel.python.algorithms import outcome_sampling_mccfr
import pyspiel

from algorithms.cfr import mccfr_kernel
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.cfr.chance_sampling import csr
from algorithms.cfr.mccfr_kernel import NodeTables
from algorithms.cfr.solvers import EngineSolver
from algorithms.tree.game_tree import DEFAULT_MAX_NODES
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays

AverageType = external_sampling_mccfr.AverageType
# OpenSpiel's first regret and average numerator of every action (``_lookup_infostate_info``).
INITIAL_VALUE = 1e-6
# OpenSpiel's exploration of outcome sampling (``OutcomeSamplingSolver._expl``).
DEFAULT_EPSILON = 0.6
_SEED_BOUND = 2**32  # np.random.RandomState takes integer seeds in [0, 2**32).
_MT_WORDS = 624


def node_tables(arrays: TreeArrays) -> NodeTables:
  """The node arrays of ``arrays.tree`` that the passes walk (``mccfr_kernel.NodeTables``)."""
  tree = arrays.tree
  h = tree.num_nodes
  # Children grouped by parent; in preorder, so in OpenSpiel's order of actions and outcomes.
  child_ptr, children = csr(tree.node_parent[1:], np.arange(1, h), h)
  node_infoset = np.full(h, -1, dtype=np.int64)
  for pl in range(arrays.num_players):
    mine = tree.node_player == pl
    node_infoset[mine] = arrays.global_infoset[pl][tree.node_infoset[mine]]
  decisions = node_infoset[node_infoset >= 0]
  return NodeTables(
      node_player=np.ascontiguousarray(tree.node_player, dtype=np.int64),
      node_infoset=node_infoset,
      node_terminal=np.ascontiguousarray(tree.node_terminal, dtype=np.int64),
      child_ptr=child_ptr, children=children,
      child_prob=np.ascontiguousarray(tree.node_prob[children], dtype=np.float64),
      utility=np.ascontiguousarray(tree.utility, dtype=np.float64),
      infoset_histories=np.bincount(decisions, minlength=arrays.num_infosets).astype(np.float64),
      max_depth=int(tree.node_depth.max()) + 1,
      max_actions=int(arrays.infoset_num_actions.max(initial=1)))


class _MCCFRSolver(EngineSolver):
  """The common part: the tree, the engine's arrays as MCCFR's state, the random generator.

  The engine (``cfr_engine.CFREngine``) holds R, S and sigma; its update rule is unused (the
  passes are ``mccfr_kernel``'s). Subclasses run their passes in ``_iterate``.

  Attributes:
    rng: the ``np.random.RandomState`` the passes draw from (``np.random.RandomState(seed)``
      at construction), advanced by every iteration.
  """

  ENGINES = ("flat",)

  def __init__(self, game: pyspiel.Game, *, seed: Optional[int], tree: Optional[GameTree],
               max_nodes: int):
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)
                             or not 0 <= seed < _SEED_BOUND):
      raise ValueError(f"seed must be None or an integer in [0, 2**32), got {seed!r}")
    super().__init__(game, UpdateRule(), tree, max_nodes)
    self._seed = None if seed is None else int(seed)
    self.rng = np.random.RandomState(self._seed)
    self._tables = node_tables(self._arrays)
    start = np.full(self._arrays.num_sequences, INITIAL_VALUE)
    start[:self._num_players] = 0.0  # the empty sequences carry no regret or average
    self._engine.restore(0, start, start)  # R = S = 1e-6: sigma uniform

  def iteration(self) -> None:
    """One iteration: one pass per player 0, 1, ..., N - 1 (as OpenSpiel's ``iteration()``)."""
    self._run(1)

  def _run(self, iterations: int) -> None:
    """``iterations`` iterations in one compiled call, drawing from ``rng``."""
    name, key, pos, has_gauss, gauss = self.rng.get_state()
    key = np.array(key, dtype=np.uint32)
    position = np.array([pos], dtype=np.int64)
    self._iterate(key, position, int(iterations))
    self.rng.set_state((name, key, int(position[0]), has_gauss, gauss))
    self._engine.iteration += int(iterations)

  def _iterate(self, key: np.ndarray, pos: np.ndarray, iterations: int) -> None:
    """Runs the passes with the generator's state (``key``, ``pos[0]``), advancing it."""
    raise NotImplementedError

  @property
  def _infostates(self) -> Dict[str, list]:
    """OpenSpiel's table, a snapshot: information state -> [regrets, average numerators].

    Every information set of the game is listed (OpenSpiel lists those it has visited; the
    others hold 1e-6 in both arrays, OpenSpiel's first values).
    """
    return {key: [np.array([node.cumulative_regret[a] for a in node.legal_actions]),
                  np.array([node.cumulative_policy[a] for a in node.legal_actions])]
            for key, node in self._info_state_nodes.items()}

  def _extra_state(self) -> Tuple[dict, Dict[str, np.ndarray]]:
    _, key, pos = self.rng.get_state()[:3]
    return {"rng_state": {"key": [int(w) for w in key], "pos": int(pos)}}, {}

  def _restore_extra_state(self, path: str, header: dict, arrays: Dict[str, np.ndarray]) -> None:
    state = header.get("rng_state")
    try:
      key = np.array(state["key"], dtype=np.uint32)
      pos = int(state["pos"])
      if key.shape != (_MT_WORDS,) or not 0 <= pos <= _MT_WORDS:
        raise ValueError(f"{_MT_WORDS} words and a position in [0, {_MT_WORDS}] expected")
      self.rng.set_state(("MT19937", key, pos))
    except (TypeError, ValueError, KeyError, OverflowError) as e:
      raise ValueError(f"{path}: checkpoint random state is not an MT19937 state ({e})") from None


def _average_type(value: Union[AverageType, str]) -> AverageType:
  """The ``AverageType`` of an ``average_type`` argument (the enum or its lower-case name)."""
  names = {member.name.lower(): member for member in AverageType}
  member = value if isinstance(value, AverageType) else names.get(value)
  if member is None:
    raise ValueError(f"average_type must be AverageType.SIMPLE, AverageType.FULL, 'simple' or "
                     f"'full'; got {value!r}")
  return member


class ExternalSamplingSolver(_MCCFRSolver, external_sampling_mccfr.ExternalSamplingSolver):
  """External-sampling MCCFR (the paper's Section 3.2) as OpenSpiel's Python solver.

  Args:
    game: the game (two or more players; see the module docstring).
    average_type: ``AverageType.SIMPLE`` / "simple" (average at player i + 1 mod N's sampled
      nodes during i's pass, OpenSpiel's default) or ``AverageType.FULL`` / "full" (a
      full-width average after the passes).
    seed: the draws are those of ``np.random.RandomState(seed)`` (fresh entropy if None).
    tree: the game's ``GameTree``, to skip the walk.
    max_nodes: the walk's limit on histories.
  """

  def __init__(self, game: pyspiel.Game, average_type: Union[AverageType, str] = AverageType.SIMPLE,
               *, seed: Optional[int] = None, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES):
    self._average_type = _average_type(average_type)
    super().__init__(game, seed=seed, tree=tree, max_nodes=max_nodes)

  def _iterate(self, key: np.ndarray, pos: np.ndarray, iterations: int) -> None:
    a, e = self._arrays, self._engine
    mccfr_kernel.external_iterations(a.kernel, self._tables,
                                     self._average_type == AverageType.SIMPLE, e.sigma,
                                     e.regrets, e.cumulative, key, pos, iterations)

  def options(self) -> dict:
    return {"average_type": self._average_type.name.lower(), "seed": self._seed}


class OutcomeSamplingSolver(_MCCFRSolver, outcome_sampling_mccfr.OutcomeSamplingSolver):
  """Outcome-sampling MCCFR (the paper's Section 3.1) as OpenSpiel's Python solver.

  Args:
    game: the game (two or more players; see the module docstring).
    epsilon: the updated player samples epsilon uniform + (1 - epsilon) sigma; in (0, 1].
      OpenSpiel's Python solver fixes it at 0.6, its C++ solver takes it as ``epsilon``.
    seed: the draws are those of ``np.random.RandomState(seed)`` (fresh entropy if None).
    tree: the game's ``GameTree``, to skip the walk.
    max_nodes: the walk's limit on histories.
  """

  def __init__(self, game: pyspiel.Game, *, epsilon: float = DEFAULT_EPSILON,
               seed: Optional[int] = None, tree: Optional[GameTree] = None,
               max_nodes: int = DEFAULT_MAX_NODES):
    if (isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real)
        or not 0.0 < epsilon <= 1.0):  # the comparison also refuses nan
      raise ValueError(f"epsilon must be in (0, 1], got {epsilon!r}")
    self._expl = float(epsilon)
    super().__init__(game, seed=seed, tree=tree, max_nodes=max_nodes)

  def _iterate(self, key: np.ndarray, pos: np.ndarray, iterations: int) -> None:
    a, e = self._arrays, self._engine
    mccfr_kernel.outcome_iterations(a.kernel, self._tables, self._expl, e.sigma, e.regrets,
                                    e.cumulative, key, pos, iterations)

  def options(self) -> dict:
    return {"epsilon": self._expl, "seed": self._seed}
