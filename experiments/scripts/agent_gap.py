"""Where the depth-1 ReBeL agent's error comes from: the agent with one part replaced at a time.

  python -m experiments.scripts.agent_gap                          # kuhn_poker and simplified, d=1
  python -m experiments.scripts.agent_gap --game kuhn_poker --iterations 100

The agent (``algorithms.rebel.agent.agent.ReBeLAgent``, the paper's default: CFR-D, linear
weighting, play and pass on the drawn iterate pi^t, P(t) = w_t / W_T; Brown, Bakhtin, Lerer,
Gong, NeurIPS 2020, arXiv 2007.13544, Section 6) at lookahead 1 runs a root search of T
iterations, draws t, plays pi^t at the root and searches again, T iterations, at every public
state its horizon reaches, from the PBS pi^t implies there. ``Variant`` replaces one part:

* root "search" (the agent's), "exact" (one exact equilibrium of the whole game played at the
  root, from the sequence-form LP: the nested searches alone are T-iteration), or "average" (the
  root plays its final average pibar^T and passes on the PBS of pibar^T; the agent's root
  mixture sum_t P(t) pi^t has the same realization plan, so only the beliefs passed on differ);
* nested "search" (the agent's searches, with N iterations instead of T if asked), "lp" (the
  equilibrium of the whole game below the public state that the root search's leaf solver
  returns at the very PBS passed on: the continuation the root search valued at iteration t), or
  "cfr" (CFR, N iterations, on the whole game below the public state at that PBS: a near-exact
  equilibrium that CFR selects);
* and the agent with ``play="average"`` (plays and passes on pibar^t of the drawn t).

With root "search" and nested "lp" the agent is CFR-D's output strategy (Burch, Johanson,
Bowling, AAAI 2014): the w_t-weighted mixture of the full profiles (pi^t on the trunk, the leaf
equilibrium at pi^t's PBS below). Its NashConv is at most the root search's weighted trunk
regret R_w / W_T (CFR-D's bound; ``trunk_regret``), since every leaf value it used is the value
of the continuation actually played. ``CFRAvgSolver`` with simultaneous updates computes the same
mixture (its average policy; tested), with alternating updates (the default) player 1's
continuation at iteration t is solved at pi^{t+1}'s PBS (the second pass sees player 0's updated
policy), which the agent never plays.

Each row reports the exploitability (NashConv / 2, OpenSpiel's ``exploitability.nash_conv``) and
each player's best-response gain against the other's part of the strategy.

Measured (docs/rebel.md, "Where the depth-1 agent's error comes from"): kuhn_poker, T = 100 /
1,000: the agent 0.00683 / 0.00210, with exact play below the cut 0.00470 / 0.00147, CFR-D's
bound 0.00843 / 0.00250; the simplified game 0.00309 / 0.000868 and 0.00308 / 0.000868.
"""

import argparse
import dataclasses
from typing import List, Optional, Sequence

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel

from algorithms import CFRAvgSolver
from algorithms.cfr import tree_passes
from algorithms.exact.regret_bounds import regret_matching_bound
from algorithms.exact.sequence_form_lp import solve_game
from algorithms.rebel import leaf_step
from algorithms.rebel.agent.agent import Play
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.agent.search import SearchRecord
from algorithms.rebel.agent.search import leaf_belief
from algorithms.rebel.agent.search import run_search
from algorithms.rebel.agent.search import search_arrays
from algorithms.rebel.agent.search import solve_average
from algorithms.rebel.agent.search_game import PublicCuts
from algorithms.rebel.agent.search_game import SearchGame
from algorithms.rebel.leaf_step import check_choice
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from experiments.harness import game_loader
from experiments.harness import script_runner

ROOTS = ("search", "exact", "average")
NESTED = ("search", "lp", "cfr")


class Variant(ReBeLAgent):
  """The agent with its root search or its nested searches replaced (module docstring).

  Args:
    game: the game.
    root: "search", "exact" or "average".
    nested: "search", "lp" or "cfr".
    nested_iterations: N, the iterations of every nested search ("search": T if None) or of
      nested "cfr" (10,000 if None).
    **options: ``ReBeLAgent``'s (lookahead, iterations, weighting, ...).
  """

  def __init__(self, game: pyspiel.Game, *, root: str = "search", nested: str = "search",
               nested_iterations: Optional[int] = None, **options):
    super().__init__(game, **options)
    check_choice("root", root, ROOTS)
    check_choice("nested", nested, NESTED)
    self.root_part, self.nested_part = root, nested
    self.nested_iterations = int(nested_iterations if nested_iterations is not None else
                                 10_000 if nested == "cfr" else self.iterations)
    # Searches that reach the end of the game (no leaves), for nested "lp" and "cfr".
    self.to_end = PublicCuts(self.arrays, int(self.arrays.tree.node_depth.max()) + 1)
    self.root_record: Optional[SearchRecord] = None

  def next_search(self, game, leaf, belief, play):
    next_game, next_belief = super().next_search(game, leaf, belief, play)
    if self.nested_part != "search":
      next_game = self.to_end.at(leaf.leaf, next_game.depth)
    return next_game, next_belief

  def _plays(self, game: SearchGame, belief: np.ndarray) -> List[Play]:
    if game.depth == 0:
      return self._root_plays(game, belief)
    if self.nested_part == "lp":  # The search game to the end IS the leaf subgame: same layout.
      leaf = next(leaf for leaf in self.cuts.cut(game.depth).leaves
                  if leaf.public_state == game.public_state)
      return [Play(1.0, self.leaf_solver(leaf, belief).policy, 0)]
    n = self.nested_iterations
    if self.nested_part == "search" and n == self.iterations:
      return super()._plays(game, belief)
    if self.nested_part == "cfr" or (not game.leaves and self.num_plays(game) == 1):
      return [Play(1.0, solve_average(game, belief, n, self.rule), 0)]
    return self.plays_from(run_search(game, belief, n, self.leaf_solver, self.rule,
                                      self.leaf_beliefs))

  def _root_plays(self, game: SearchGame, belief: np.ndarray) -> List[Play]:
    if self.root_part == "exact":
      solution = solve_game(self.game)
      return [Play(1.0, self.arrays.from_tabular(solution.policy.action_probability_array), 0)]
    self.root_record = run_search(game, belief, self.iterations, self.leaf_solver, self.rule,
                                  self.leaf_beliefs)
    if self.root_part == "average":
      return [Play(1.0, self.root_record.averages[-1], 0)]
    return self.plays_from(self.root_record)

  def play_at(self, game: SearchGame) -> str:
    """At the root with "average", the average's PBS is passed on (untrembled)."""
    if game.depth == 0 and self.root_part == "average":
      return "average"
    return super().play_at(game)


def trunk_regret(agent: ReBeLAgent, record: SearchRecord) -> float:
  """Player 0's weighted counterfactual regret on the root search's trunk, divided by W_T.

  R_w / W_T = sum_I max_a sum_t (w_t / W_T) [v^t(I, a) - sum_b pi^t(I, b) v^t(I, b)], with v^t
  player 0's counterfactual values of iteration t: the trunk terminals' and the leaf solver's at
  pi^t's trembled PBS, as the search computed them (``leaf_step``). For a trunk of one decision
  of player 0 (Kuhn poker at lookahead 1) every trunk sequence (I, a) ends at a leaf or a
  terminal, so v^t(I, a) is the value of sequence (I, a); other trunks are refused.

  Raises:
    ValueError: for a trunk in which player 1 acts or player 0 acts twice.
  """
  game, arrays = record.game, search_arrays(record.game, record.belief)
  trunk = np.flatnonzero(game.trunk_mask)
  sets = np.unique(arrays.seq_infoset[trunk])
  if np.any(arrays.infoset_player[sets] != 0) or np.any(arrays.infoset_parent[sets] > 1):
    raise ValueError("trunk_regret needs a trunk of one decision of player 0")
  tremble = leaf_step.tremble_of(agent.leaf_beliefs, agent.tremble)
  values_sum, played_sum = np.zeros(arrays.num_sequences), np.zeros(arrays.num_sequences)
  for w, policy in zip(record.weights, record.iterates):
    x = tree_passes.realization(arrays, policy)
    values = tree_passes.terminal_values(arrays, x, arrays.weighted_utility[game.trunk_terminals],
                                         0, game.trunk_terminals)
    for leaf in game.leaves:
      belief = leaf_belief(leaf, record.belief, x, tremble)
      weights = (record.belief[leaf.search_root] * leaf.chance)[:, None] * \
          x[leaf.local_seq[:, ::-1]]
      _, u = leaf_step.leaf_root_values(leaf.leaf, agent.leaf_solver(leaf.leaf, belief),
                                        belief, weights)
      values += leaf_step.counterfactual_leaf_values(leaf.local_seq, weights, u, 0,
                                                     arrays.num_sequences)
    values_sum += w * values
    played_sum += w * policy * values
  total = 0.0
  for infoset in sets:
    seqs = arrays.infoset_start[infoset] + np.arange(arrays.infoset_num_actions[infoset])
    total += float(values_sum[seqs].max() - played_sum[seqs].sum())
  return total / record.weights.sum()


@dataclasses.dataclass(frozen=True)
class Row:
  """One line of the decomposition.

  Attributes:
    name: what is played.
    exploitability: NashConv / 2 in chips per hand.
    gains: each player's best-response gain against the other's part of the strategy (player
      0's gain measures player 1's part).
  """

  name: str
  exploitability: float
  gains: Sequence[float]


def measured(name: str, game: pyspiel.Game, policy) -> Row:
  """A ``Row`` from OpenSpiel's ``nash_conv`` of a ``TabularPolicy``."""
  result = exploitability.nash_conv(game, policy, return_only_nash_conv=False)
  return Row(name, result.nash_conv / 2, tuple(float(g) for g in result.player_improvements))


def variant_row(name: str, game: pyspiel.Game, variant: Variant) -> Row:
  """The exact behaviour strategy of a ``Variant`` (every draw enumerated), measured."""
  return measured(name, game, tabular_policy(variant, behaviour_strategy(variant).policy))


def stitched_row(name: str, game: pyspiel.Game, iterations: int, alternating: bool,
                 weighting: str = "linear") -> Row:
  """CFR-D's output strategy from ``CFRAvgSolver`` (the agent's leaf LP)."""
  solver = CFRAvgSolver(game, depth_limit=1, leaf_beliefs="current", weighting=weighting,
                        alternating_updates=alternating,
                        leaf_solver=SequenceFormLPSolver(split_ties=True))
  solver.solve(iterations)
  return measured(name, game, solver.average_policy())


def decomposition(game: pyspiel.Game, iterations: int, nested: Sequence[int] = (),
                  cfr_iterations: int = 10_000, with_agent: bool = True,
                  weighting: str = "linear") -> List[Row]:
  """The rows of the table at lookahead 1 and T = ``iterations`` (module docstring): the agent
  and the agent playing pibar^t (if ``with_agent``), the stitched policies, the variants (nested
  searches of each N in ``nested``, nested CFR of ``cfr_iterations``), and last CFR-D's bound
  R_w / (2 W_T) on the exploitability of the row "root search T, nested = leaf LP" and, with
  uniform weighting, the worst case of that bound, Delta |I| sqrt(|A|) / (2 sqrt(T)) over the
  trunk's |I| information sets (Zinkevich, Johanson, Bowling, Piccione, NeurIPS 2007, Theorem 3,
  ``regret_matching_bound``; Delta = the game's utility range; linear weighting has no bound of
  this form with unweighted regrets)."""
  def variant(**parts) -> Variant:
    return Variant(game, lookahead=1, iterations=iterations, weighting=weighting, **parts)

  cfr = f"CFR {cfr_iterations} to the end"
  rows = []
  if with_agent:
    rows += [variant_row("agent (root search T, nested searches T)", game, variant()),
             variant_row("(e) agent playing and passing pibar^t (play='average')", game,
                         variant(play="average"))]
  rows += [
      stitched_row("(a) stitched CFR-D, alternating updates", game, iterations, True, weighting),
      stitched_row("(a) stitched CFR-D, simultaneous updates", game, iterations, False,
                   weighting)]
  exact_nested = variant(nested="lp")
  rows.append(variant_row("(c) root search T, nested = leaf LP at the PBS passed on", game,
                          exact_nested))
  rows.append(variant_row(f"(c) root search T, nested = {cfr}", game,
                          variant(nested="cfr", nested_iterations=cfr_iterations)))
  rows += [variant_row(f"(c) root search T, nested searches {n}", game,
                       variant(nested_iterations=n)) for n in nested]
  rows.append(variant_row("(b) exact root (LP), nested searches T", game, variant(root="exact")))
  rows.append(variant_row("(b) exact root (LP), nested = leaf LP", game,
                          variant(root="exact", nested="lp")))
  rows.append(variant_row(f"(b) exact root (LP), nested = {cfr}", game,
                          variant(root="exact", nested="cfr", nested_iterations=cfr_iterations)))
  rows.append(variant_row("(d) root plays pibar^T, passes its PBS, nested searches T", game,
                          variant(root="average")))
  regret = trunk_regret(exact_nested, exact_nested.root_record)
  rows.append(Row("CFR-D bound R_w / (2 W_T) on the row (c) leaf LP", regret / 2,
                  (regret, 0.0)))
  if weighting == "uniform":
    trunk_sets = len(np.unique(exact_nested.arrays.seq_infoset[
        np.flatnonzero(exact_nested.cuts.root().trunk_mask)]))
    worst = trunk_sets * regret_matching_bound(game.max_utility() - game.min_utility(),
                                               game.num_distinct_actions(), iterations)
    rows.append(Row("its worst case Delta |I| sqrt(|A|) / (2 sqrt(T))", worst / 2,
                    (worst, 0.0)))
  return rows


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.agent_gap",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--game", nargs="+",
                      default=["kuhn_poker", "kuhn_poker_ante(simplified=True)"])
  parser.add_argument("--iterations", type=int, nargs="+", default=[100, 1000],
                      help="T of every search (positive integers)")
  parser.add_argument("--nested-factor", type=int, nargs="*", default=[10],
                      help="rows with nested searches of N = factor x T iterations, where "
                           "T N <= --budget when the nested searches have leaves")
  parser.add_argument("--weighting", choices=("linear", "uniform"), default="linear",
                      help="the searches' averaging weights (linear: the paper's agent)")
  parser.add_argument("--cfr-iterations", type=int, default=10_000,
                      help="N of the nested CFR rows (positive)")
  parser.add_argument("--budget", type=int, default=200_000,
                      help="the largest T^2 (or T N) of draws enumerated below the root when "
                           "the nested searches have leaves; rows above it are left out")
  args = parser.parse_args(argv)
  if min(args.iterations) < 1 or args.cfr_iterations < 1 or min(args.nested_factor,
                                                                   default=1) < 1:
    parser.error("--iterations, --nested-factor and --cfr-iterations must be positive integers")
  for text in args.game:
    try:
      game = game_loader.load_game(text)
    except ValueError as e:
      parser.error(f"bad --game: {e}")
    leaves = any(leaf_game.leaves for leaf_game in _nested_games(game))
    for t in args.iterations:
      nested = [f * t for f in args.nested_factor if not leaves or f * t * t <= args.budget]
      rows = decomposition(game, t, nested, args.cfr_iterations,
                           not leaves or t * t <= args.budget, args.weighting)
      print(f"\n{text}, lookahead 1, T = {t}, {args.weighting} weighting")
      print(f"{'policy':<62} {'exploitability':>14} {'gain of p0':>11} {'gain of p1':>11}")
      for row in rows:
        print(f"{row.name:<62} {row.exploitability:>14.6f} {row.gains[0]:>11.6f} "
              f"{row.gains[1]:>11.6f}", flush=True)
  return 0


def _nested_games(game: pyspiel.Game) -> List[SearchGame]:
  """The search games at the leaves of the root search at lookahead 1."""
  cuts = ReBeLAgent(game, lookahead=1, iterations=1).cuts
  return [cuts.at(leaf.leaf, 1) for leaf in cuts.root().leaves]


if __name__ == "__main__":
  script_runner.run(main)
