"""On-policy training data for the agent's value functions: DAgger rounds with exact labels.

ReBeL (Brown, Bakhtin, Lerer, Gong, NeurIPS 2020, arXiv 2007.13544, Section 4) trains its value
network on the public belief states (PBSs) that its own searches reach, because a network
trained elsewhere is asked, at test time, about beliefs it has never seen. With an exact solver
for the labels this is imitation learning in the sense of DAgger (Ross, Gordon, Bagnell, "A
reduction of imitation learning and structured prediction to no-regret online learning",
AISTATS 2011): the learner's own state distribution, the expert's labels, the data aggregated
over the rounds. ``on_policy_rounds`` runs it for the agent's cuts:

* round 0: one ``PBSValueFunction`` per cut (``agent.values_by_cut.ByLeaf`` joins them),
  trained on the ``base`` data (e.g. random and exact-agent-visited PBSs, ``learning.dataset``);
* round r >= 1: in every game of ``games`` (several stakes of one family, or one game; or of
  ``games(r)``, e.g. stakes drawn afresh each round across a family model's range, so that the
  data reach the agent's queries between fixed training stakes) and for every T of
  ``options.iterations``, the agent (``agent.agent.ReBeLAgent`` with ``options.agent``'s
  keyword options, i.e. the same search as the agent measured) with the round-(r - 1) value
  functions at its leaves plays: every draw enumerated
  (``agent.behaviour.behaviour_strategy``, ``options.hands`` None) or ``options.hands`` hands
  against itself (``agent.monte_carlo.play_hands``, seeded); ``RecordingValueFunction`` records
  every (leaf, belief) the value functions are asked (at a one-player leaf the leaf solver
  answers exactly and asks nothing, ``leaves.leaf_values``); each is labelled by
  ``labeller`` (the exact LP: the leaf subgame's equilibrium values) and added to its cut's data;
  every cut's network is retrained from its initial weights on all data so far, with the same
  ``TrainingOptions`` (so round r differs from round r - 1 only in the data).

Everything is seeded (the training seed, the hands' seed), so the rounds are reproducible.
ReBeL's bootstrapped targets (its search's own root values, no exact solver) stay the other
option (``learning.bootstrap``).
"""

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import pyspiel

from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.monte_carlo import play_hands
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.dataset import visited_dataset
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.training import train
from algorithms.rebel.learning.value_network import LeafDomain
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import LeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.rebel.public_tree import LeafSubgame

# A query of a value function: the leaf and the belief over its roots.
Query = Tuple[LeafSubgame, np.ndarray]


class RecordingValueFunction:
  """A value function that records every query it answers, in order (``queries``)."""

  def __init__(self, value_function):
    self.value_function = value_function
    self.queries: List[Query] = []

  def root_values(self, leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
    self.queries.append((leaf, np.array(belief, dtype=np.float64)))
    return self.value_function.root_values(leaf, belief)


@dataclasses.dataclass(frozen=True)
class OnPolicyOptions:
  """The rounds (module docstring).

  Attributes:
    rounds: the on-policy rounds after round 0 (>= 0).
    iterations: the T of the agents that play in each round (the T evaluated).
    lookahead: the agent's d.
    hands: hands played per game and T, None to enumerate every draw.
    seed: seeds the hands.
    agent: ``ReBeLAgent`` keyword options (weighting, leaf_beliefs, play, draw, ...).
    max_searches: the enumeration's budget (``behaviour_strategy``).
  """

  rounds: int
  iterations: Tuple[int, ...]
  lookahead: int = 1
  hands: Optional[int] = None
  seed: int = 0
  agent: Dict[str, Any] = dataclasses.field(default_factory=dict)
  max_searches: Optional[int] = None

  def __post_init__(self):
    if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 0:
      raise ValueError(f"rounds must be an integer >= 0, got {self.rounds!r}")
    if not self.iterations:
      raise ValueError("iterations must list at least one T")


@dataclasses.dataclass(frozen=True)
class Round:
  """One round's outcome.

  Attributes:
    index: 0 for the base models, r for the r-th on-policy round.
    models: depth -> the ``PBSValueFunction`` trained at the end of the round.
    queries: the (game string, T, leaf, belief) the previous round's models were asked while
      playing (empty in round 0), in order.
    examples: depth -> the training examples of the round's models.
  """

  index: int
  models: Dict[int, PBSValueFunction]
  queries: Tuple[Tuple[str, int, LeafSubgame, np.ndarray], ...]
  examples: Dict[int, int]


def agent_queries(game: pyspiel.Game, models: Sequence[PBSValueFunction], iterations: int,
                  options: OnPolicyOptions) -> List[Query]:
  """Every (leaf, belief) the value functions ``models`` are asked by the agent at T =
  ``iterations`` while it plays (module docstring)."""
  recorder = RecordingValueFunction(ByLeaf(models))
  agent = ReBeLAgent(game, lookahead=options.lookahead, iterations=iterations,
                     leaf_solver=ValueFunctionLeafSolver(
                         recorder, split_ties=splits_ties(**options.agent)), **options.agent)
  if options.hands is None:
    behaviour_strategy(agent, max_searches=options.max_searches)
  else:
    play_hands(agent, options.hands, options.seed)
  return recorder.queries


def labelled(queries: Sequence[Query], labeller: LeafSolver) -> list:
  """The queries as records (leaf, belief, the labeller's root values there), in order.

  A query asked again (the same leaf object and belief bit for bit: e.g. both seats of a hand run
  the same deterministic root search) is labelled once and its record repeated, so the records
  are those of labelling every query with a deterministic labeller.
  """
  labels: Dict[Tuple[int, bytes], np.ndarray] = {}
  out = []
  for leaf, belief in queries:
    key = (id(leaf), np.asarray(belief, dtype=np.float64).tobytes())
    if key not in labels:
      labels[key] = np.asarray(labeller(leaf, belief).root_values, dtype=np.float64)
    out.append((leaf, belief, labels[key]))
  return out


Games = Union[Sequence[pyspiel.Game], Callable[[int], Sequence[pyspiel.Game]]]


def on_policy_rounds(games: Games, domains: Dict[int, LeafDomain],
                     base: Dict[int, Dataset], options: OnPolicyOptions,
                     training: TrainingOptions, labeller: Optional[LeafSolver] = None,
                     report: Optional[Callable[[Round], None]] = None) -> List[Round]:
  """Round 0 and ``options.rounds`` on-policy rounds (module docstring).

  Args:
    games: the games the agent plays in, the same in every round, or a function of the round
      r >= 1 that gives that round's games (each game covered by every domain).
    domains: depth -> the ``LeafDomain`` of that cut (for a family of stakes, its range).
    base: depth -> round 0's data (the same keys as ``domains``).
    options: the rounds.
    training: the networks' training, the same in every round.
    labeller: the labels' solver, the exact LP if None.
    report: called with each round as soon as it is trained.

  Returns:
    The rounds, 0 first.
  """
  if set(base) != set(domains):
    raise ValueError(f"base data for depths {sorted(base)}, domains for {sorted(domains)}")
  labeller = labeller if labeller is not None else SequenceFormLPSolver()
  data = dict(base)
  queries: tuple = ()
  rounds = []
  for index in range(options.rounds + 1):
    if index > 0:
      previous = [rounds[-1].models[d] for d in sorted(domains)]
      asked = []
      for game in games(index) if callable(games) else games:
        for t in options.iterations:
          asked += [(str(game), t, leaf, belief)
                    for leaf, belief in agent_queries(game, previous, t, options)]
      queries = tuple(asked)
      records = labelled([(leaf, belief) for _, _, leaf, belief in asked], labeller)
      data = {d: Dataset.concatenate([data[d], visited_dataset(records, domains[d])])
              for d in domains}
    models = {d: train(domains[d], data[d], training, {"round": index, "depth": d})
              for d in sorted(domains)}
    done = Round(index=index, models=models, queries=queries,
                 examples={d: len(data[d]) for d in domains})
    rounds.append(done)
    if report is not None:
      report(done)
  return rounds
