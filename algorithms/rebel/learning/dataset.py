"""Training data for a PBS value function: beliefs at the leaves of a cut and their exact values.

Supervised data (ReBeL's value targets with an exact solver in place of search; Brown, Bakhtin,
Lerer, Gong, NeurIPS 2020, arXiv 2007.13544, Section 4): leaf PBSs drawn from a documented
distribution, each labelled with the per-deal values of an equilibrium of the leaf subgame at that
belief (``LeafSolution.root_values`` of the exact ``SequenceFormLPSolver`` by default).

Sampling distribution (``sample_beliefs``). A leaf belief is what a trunk policy induces:
beta(d) proportional to pi_c(d) r_0(c_0(d)) r_1(c_1(d)), with r_i(c) player i's trunk reach of
the leaf holding card c (``PublicBeliefState.from_reaches``). Every trunk policy gives reaches in
[0, 1], and every reach vector in [0, 1]^deck (not all zero) comes from some trunk policy when the
player acts once before the leaf, so the sample draws r_i(c) ~ Uniform(0, 1) independently per
card for each player who acts in the trunk before the leaf, and r_i = 1 for a player who does not
(at Kuhn depth 1 player 1 has not acted yet). Chance pi_c(d) is uniform over the ordered deals.

Visited PBSs (``RecordingLeafSolver``, ``visited_dataset``): the leaf PBSs that searches actually
evaluate, e.g. those of ReBeL's agent with exact leaves, each labelled by the solver that answered
it. ReBeL's own training data are the PBSs its self-play visits (Section 4); the beliefs its
equilibrium searches pass to their leaves are far from the uniform reaches above (a card's reach
near 0 or 1 where the trunk's policy is nearly pure), so a model is also trained on them.
"""

import dataclasses
from typing import List, Optional, Sequence, Tuple

import numpy as np

from algorithms.rebel.learning.value_network import LeafDomain
from algorithms.rebel.learning.value_network import leaf_rules
from algorithms.rebel.learning.value_network import stakes_of
from algorithms.rebel.leaves.solvers import LeafSolution
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.rebel.public_tree import LeafSubgame
from algorithms.rebel.public_tree import PublicTree


@dataclasses.dataclass(frozen=True)
class Dataset:
  """Labelled leaf PBSs of one cut (of one game, or of games that differ only in the stakes).

  Attributes:
    leaf_index: int array (n,), the leaf of each example (``LeafDomain.leaves`` order).
    beliefs: float array (n, D), the belief over the deals.
    values: float array (n, D), player 0's per-deal values u_0(d) in chips (the target).
    stakes: float array (n, 2), the (ante, bet) of each example's game, or None: the game of the
      cut the data are for.
  """

  leaf_index: np.ndarray
  beliefs: np.ndarray
  values: np.ndarray
  stakes: Optional[np.ndarray] = None

  def __len__(self) -> int:
    return len(self.leaf_index)

  @classmethod
  def concatenate(cls, parts: Sequence["Dataset"]) -> "Dataset":
    """The examples of ``parts`` in order.

    Raises:
      ValueError: if some parts record their stakes and others do not.
    """
    recorded = {p.stakes is not None for p in parts}
    if len(recorded) > 1:
      raise ValueError("cannot concatenate data sets with and without stakes")
    return cls(leaf_index=np.concatenate([p.leaf_index for p in parts]),
               beliefs=np.concatenate([p.beliefs for p in parts]),
               values=np.concatenate([p.values for p in parts]),
               stakes=np.concatenate([p.stakes for p in parts]) if recorded == {True} else None)


def trunk_players(leaf: LeafSubgame) -> tuple:
  """The players who act in the trunk on the way to ``leaf`` (a non-empty root sequence).

  Global sequences 0 and 1 are players 0's and 1's empty sequences (``TreeArrays``).
  """
  return tuple(i for i in (0, 1) if np.any(leaf.root_seq[:, i] != i))


def beliefs_from_reaches(leaf: LeafSubgame, reach_0: np.ndarray,
                         reach_1: np.ndarray) -> np.ndarray:
  """Deal beliefs (n, D) from per-card reaches (n, deck) of the two players.

  beta(d) = pi_c(d) r_0(c_0(d)) r_1(c_1(d)) / sum, for the deals that are roots of the leaf.
  """
  deals = np.array(leaf_rules(leaf).deals())
  mass = np.zeros((len(reach_0), len(deals)))
  c0, c1 = deals[leaf.deals, 0], deals[leaf.deals, 1]
  mass[:, leaf.deals] = leaf.root_chance * reach_0[:, c0] * reach_1[:, c1]
  return mass / mass.sum(axis=1, keepdims=True)


def sample_beliefs(leaf: LeafSubgame, n: int, rng: np.random.Generator) -> np.ndarray:
  """Draws n beliefs over the deals, (n, D), from the module's distribution."""
  deck = leaf_rules(leaf).deck_size
  acting = trunk_players(leaf)
  reaches = [rng.random((n, deck)) if i in acting else np.ones((n, deck)) for i in (0, 1)]
  return beliefs_from_reaches(leaf, *reaches)


def leaf_values(leaf: LeafSubgame, beliefs: np.ndarray, solver: LeafSolver) -> np.ndarray:
  """Per-deal values u_0 (n, D) of ``solver``'s solution at each deal belief (n, D)."""
  out = np.zeros_like(beliefs)
  for k, belief in enumerate(beliefs):
    out[k, leaf.deals] = solver(leaf, belief[leaf.deals]).root_values
  return out


def supervised_dataset(public_tree: PublicTree, num_per_leaf: int, seed: int,
                       solver: Optional[LeafSolver] = None) -> Dataset:
  """``num_per_leaf`` sampled PBSs per leaf of the cut, labelled by ``solver`` (exact LP), with
  the game's stakes recorded (``Dataset.stakes``), so that the data of several stakes can train one
  family model.

  Reproducible: the beliefs depend only on the seed (``numpy.random.default_rng``), the labels
  only on the beliefs.
  """
  if isinstance(num_per_leaf, bool) or not isinstance(num_per_leaf, int) or num_per_leaf < 1:
    raise ValueError(f"num_per_leaf must be an integer >= 1, got {num_per_leaf!r}")
  solver = solver if solver is not None else SequenceFormLPSolver()
  domain = LeafDomain.of(public_tree)  # A Kuhn game with leaves, or a one-line ValueError.
  rng = np.random.default_rng(seed)
  parts = []
  for index, leaf in enumerate(public_tree.leaves):
    beliefs = sample_beliefs(leaf, num_per_leaf, rng)
    parts.append(Dataset(leaf_index=np.full(num_per_leaf, index), beliefs=beliefs,
                         values=leaf_values(leaf, beliefs, solver),
                         stakes=np.tile(stakes_of(domain.rules), (num_per_leaf, 1))))
  return Dataset.concatenate(parts)


class RecordingLeafSolver:
  """A leaf solver (``inner``, the exact LP by default) that records the calls it answers.

  ``records`` holds (leaf, belief over its roots, the solution's root values) for every call
  (``size`` None), or a fixed-seed sample of ``size`` of them (reservoir sampling, Vitter,
  "Random sampling with a reservoir", ACM TOMS 1985).
  """

  def __init__(self, inner: Optional[LeafSolver] = None, size: Optional[int] = None,
               seed: int = 0):
    self.inner = inner if inner is not None else SequenceFormLPSolver()
    self.size = size
    self.rng = np.random.default_rng(seed)
    self.calls = 0
    self.records: List[Tuple[LeafSubgame, np.ndarray, np.ndarray]] = []

  def __call__(self, leaf: LeafSubgame, belief: np.ndarray) -> LeafSolution:
    solution = self.inner(leaf, belief)
    self.calls += 1
    record = (leaf, np.array(belief, dtype=np.float64),
              np.array(solution.root_values, dtype=np.float64))
    if self.size is None or len(self.records) < self.size:
      self.records.append(record)
    else:
      k = int(self.rng.integers(0, self.calls))
      if k < self.size:
        self.records[k] = record
    return solution


def visited_dataset(records: Sequence[Tuple[LeafSubgame, np.ndarray, np.ndarray]],
                    domain: LeafDomain) -> Dataset:
  """The recorded (leaf, belief, root values) whose leaf is one of ``cut``'s, as examples of the
  cut with their stakes (records of leaves of other cuts are left out).

  Raises:
    ValueError: for a record of a game the cut does not cover (``LeafDomain.check``).
  """
  rows = [r for r in records if r[0].public_state in domain.leaves]
  beliefs = np.zeros((len(rows), domain.num_deals))
  values = np.zeros((len(rows), domain.num_deals))
  stakes = np.zeros((len(rows), 2))
  for k, (leaf, belief, root_values) in enumerate(rows):
    rules = leaf_rules(leaf)
    domain.check(rules, f"recorded leaf {leaf.public_state!r}")
    beliefs[k, leaf.deals] = belief
    values[k, leaf.deals] = root_values
    stakes[k] = stakes_of(rules)
  return Dataset(leaf_index=np.array([domain.leaf_index(r[0]) for r in rows], dtype=np.int64),
                 beliefs=beliefs, values=values, stakes=stakes)
