"""The measurements: the agent's exact exploitability, the stitched policy beside it, full-game CFR,
and the on-path value error of a leaf solver's values.

* ``agent_row``: ``behaviour.behaviour_strategy`` enumerates the agent's draws; its behaviour
  strategy is measured by OpenSpiel's ``exploitability.exploitability`` (as a ``TabularPolicy``)
  and by the project's ``TreeEvaluator`` (the two must agree, a check).
* ``stitched_curve``: ``CFRAvgSolver`` at the same cut and leaf solver, its reported average
  (the trunk average with the leaf solver's continuations below; for a value function, the exact
  LP's continuation at the leaf PBS, as in rebel-learned), measured at the same T.
* ``estimate_row``: where the enumeration is too long, ``agent.estimate``'s lower confidence bound
  of the exact-leaf agent's exploitability from sampled draws (the root search's draws
  enumerated) and its plug-in estimate, with the searches each method needs.
* ``on_path_pbs`` and ``value_error``: the leaf PBSs that the exact-leaf agent's searches pass to
  their leaf solver (a fixed-seed sample of them, ``learning.dataset.RecordingLeafSolver``, with
  the LP's values there), and the mean over them of the largest error of a counterfactual value
  (``learning.value_network.value_errors``) of a value function against those LP values.
"""

import time
from typing import Dict, List, Sequence, Tuple

import numpy as np
from open_spiel.python.algorithms import exploitability

from algorithms import CFRAvgSolver
from algorithms import CFRSolver
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import search_count
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.agent.estimate import estimate_exploitability
from algorithms.rebel.agent.monte_carlo import play_hands
from algorithms.rebel.learning.dataset import RecordingLeafSolver
from algorithms.rebel.learning.value_network import deal_belief
from algorithms.rebel.learning.value_network import leaf_rules
from algorithms.rebel.learning.value_network import value_errors
from algorithms.rebel.public_tree import LeafSubgame
from experiments.harness import game_loader

# On-path PBSs kept per setting for the value error (a fixed-seed sample of the leaf calls).
ON_PATH_SAMPLE = 300
# A recorded leaf call: (leaf, belief over its roots, the exact LP's root values there).
Record = Tuple[LeafSubgame, np.ndarray, np.ndarray]


def agent_row(game_string: str, lookahead: int, iterations: int, leaf_solver,
              max_searches: int, **options) -> Dict[str, float]:
  """The agent's exploitability (OpenSpiel's and the tree's), searches and seconds; ``options``
  are ``ReBeLAgent``'s (its defaults, the paper's agent, if none)."""
  game = game_loader.load_game(game_string)
  start = time.perf_counter()
  agent = ReBeLAgent(game, lookahead=lookahead, iterations=iterations, leaf_solver=leaf_solver,
                     **options)
  behaviour = behaviour_strategy(agent, max_searches=max_searches)
  seconds = time.perf_counter() - start
  return {"exploitability": exploitability.exploitability(game,
                                                          tabular_policy(agent, behaviour.policy)),
          "tree_exploitability": TreeEvaluator(agent.arrays).exploitability(behaviour.policy),
          "searches": behaviour.searches, "seconds": seconds}


def cpu_per_hand(agent: ReBeLAgent, hands: int, seed: int) -> float:
  """CPU seconds per hand of the agent against itself (``agent.monte_carlo.play_hands``: every
  search run, no cache), after one warm-up hand (compiled kernels, LP matrices)."""
  play_hands(agent, 1, seed)
  start = time.process_time()
  play_hands(agent, hands, seed)
  return (time.process_time() - start) / hands


def estimate_row(game_string: str, lookahead: int, iterations: int, replicates: int,
                 seed: int, max_searches: int) -> Dict[str, float]:
  """The exact-leaf agent's exploitability estimated from sampled draws (``agent.estimate``),
  and enumerated exactly (OpenSpiel's ``exploitability``) where its searches fit
  ``max_searches`` (NaN beyond)."""
  game = game_loader.load_game(game_string)
  agent = ReBeLAgent(game, lookahead=lookahead, iterations=iterations)
  start = time.process_time()
  estimate = estimate_exploitability(agent, replicates=replicates, seed=seed)
  seconds = time.process_time() - start
  searches = search_count(agent)
  exact = float("nan")
  if searches <= max_searches:
    behaviour = behaviour_strategy(agent, max_searches=max_searches)
    exact = exploitability.exploitability(game, tabular_policy(agent, behaviour.policy))
  return {"enumeration searches": searches, "estimate searches": estimate.searches,
          "estimate": estimate.value, "interval low": estimate.interval[0],
          "interval high": estimate.interval[1], "plug-in": estimate.plug_in,
          "estimate CPU seconds": seconds, "exact (enumerated)": exact}


def stitched_curve(game_string: str, depth: int, iterations: Sequence[int],
                   leaf_solver) -> List[float]:
  """Exploitability of ``CFRAvgSolver``'s average policy at each T of ``iterations``."""
  solver = CFRAvgSolver(game_loader.load_game(game_string), depth_limit=depth,
                        leaf_solver=leaf_solver)
  out = []
  for t in iterations:
    solver.solve(t - solver.iteration)
    out.append(solver.exploitability())
  return out


def cfr_curve(game_string: str, iterations: Sequence[int],
              solver_class=CFRSolver, **options) -> List[float]:
  """Exploitability of full-game CFR's average policy at each T of ``iterations`` (another
  engine solver, e.g. ``LCFRSolver``, or options such as ``linear_averaging=True``, if given)."""
  solver = solver_class(game_loader.load_game(game_string), **options)
  out = []
  for t in iterations:
    solver.solve(t - solver.iteration)
    out.append(solver.exploitability())
  return out


def on_path_pbs(game_string: str, lookahead: int, iterations: int, seed: int,
                max_searches: int) -> List[Record]:
  """A sample of the leaf PBSs the exact-leaf agent's searches evaluate, with the LP's values."""
  recorder = RecordingLeafSolver(exact_leaf_solver(), ON_PATH_SAMPLE, seed)
  agent = ReBeLAgent(game_loader.load_game(game_string), lookahead=lookahead,
                     iterations=iterations, leaf_solver=recorder)
  behaviour_strategy(agent, max_searches=max_searches)
  return recorder.records


def value_error(value_function, pbs: Sequence[Record]) -> float:
  """Mean over recorded (leaf, belief, exact root values) of max_{i, c} |cfv - cfv*| of
  ``value_function``."""
  errors = []
  for leaf, belief, exact in pbs:
    rules = leaf_rules(leaf)
    num_deals = len(rules.deals())
    predicted, reference = np.zeros(num_deals), np.zeros(num_deals)
    predicted[leaf.deals] = value_function.root_values(leaf, belief)
    reference[leaf.deals] = exact
    errors.append(value_errors(rules, deal_belief(leaf, belief)[None], predicted[None],
                               reference[None])[0])
  return float(np.mean(errors)) if errors else float("nan")
