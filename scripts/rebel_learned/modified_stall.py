"""Why ReBeL's modified CFR-AVG stalls: the evidence, per leaf solver.

Modified CFR-AVG (Brown, Bakhtin, Lerer, Gong, NeurIPS 2020, arXiv 2007.13544, Appendix I) gives
the trunk the de-averaged leaf values v^t = (W_t V^t - W_{t-1} V^{t-1}) / w_t, where V^t are the
counterfactual values of the continuation sigma^t (solved at the average leaf PBS) under the
opponent's average trunk reach. Summed over iterations they telescope exactly:

    sum_{k <= t} w_k v^k = W_t V^t = sum_{k <= t} w_k V(pi^k_{-i}; sigma^t),

i.e. the trunk's cumulative regrets are those of CFR against the LATEST continuation sigma^t, as if
it had been played in every past iteration (by linearity in the opponent's reach). CFR-AVG's
average policy (and Theorem 5's argument) averages the continuations sigma^1..sigma^T instead.
The two agree when sigma^t converges, which needs a leaf solver continuous in the belief, because
an equilibrium trunk makes the opponent indifferent at the leaf (a kink of the PBS value).

For each cut and leaf solver (exact LP; ``CFRLeafSolver(50)``; the smooth ``HedgeLeafSolver``) the
script prints: exploitability of standard and modified CFR-AVG against T; at the final T, each
player's best-response gain, the trunk exploitability (``trunk_exploitability``), player 1's averaged continuation at a kink (Q calls a bet; 1/3 in
every equilibrium of Kuhn), and the exploitability of (trunk average + last continuation); the
per-iteration de-averaging error |v^t - v_std^t| against the true values v_std^t (current
opponent reach); the telescoping identity's residual; how often the leaf values jump (a step
whose |dV| / |d xbar| exceeds 10 x the median). Then two other readings of the formula on
normalised (infostate) values (``NormalisedReadingSolver``) at the depth-2 cuts.

Run: ``python scripts/rebel_learned/modified_stall.py [--iterations T] [--quick]``.
"""

import argparse
import sys
from typing import Optional

import numpy as np
from open_spiel.python.algorithms import exploitability
import pyspiel

from algorithms import CFRAvgSolver
from algorithms import TreeEvaluator
from algorithms import tree_passes
from algorithms.leaf_solvers import CFRLeafSolver
from algorithms.leaf_solvers import SequenceFormLPSolver
from algorithms.smooth_leaf_solver import HedgeLeafSolver
from algorithms.trunk_exploitability import trunk_exploitability

CUTS = (("kuhn_poker", 1), ("kuhn_poker_ante(ante=2.0)", 1), ("kuhn_poker", 2))
# Cuts where the opponent of a leaf has trunk decisions, so the normalised readings differ.
READING_CUTS = (("kuhn_poker", 2), ("kuhn_poker_ante(ante=2.0)", 2))
SOLVERS = {"exact LP": SequenceFormLPSolver, "CFRLeafSolver(50)": lambda: CFRLeafSolver(50),
           "Hedge(50, eta=20)": lambda: HedgeLeafSolver(50, 20.0)}


class RecordingSolver(CFRAvgSolver):
  """CFR-AVG that also records, per pass, the de-averaged and the current-reach leaf values."""

  def __init__(self, *args, **kwargs):
    super().__init__(*args, **kwargs)
    self.records = []

  def _leaf_values(self, player: Optional[int], leaf_sigma, value_reach, w, previous_total):
    a, e = self._arrays, self._engine
    x = tree_passes.realization(a, np.where(self._leaf_mask, 1.0, e.sigma))  # Current trunk reach pi^t.
    lt, root_seq = self._leaf_terminals, self._leaf_terminal_root_seq
    below = tree_passes.realization(a, np.where(self._leaf_mask, leaf_sigma, 1.0))
    continuation = below[a.terminal_seq[lt, 0]] * below[a.terminal_seq[lt, 1]]
    true_values = np.zeros(a.num_sequences)
    for i in ((0, 1) if player is None else (player,)):
      true_values += np.bincount(root_seq[:, i], weights=a.weighted_utility[lt, i] *
                                 continuation * x[root_seq[:, 1 - i]], minlength=a.num_sequences)
    before = self._previous_values.copy()
    used = super()._leaf_values(player, leaf_sigma, value_reach, w, previous_total)
    self.records.append({"player": player, "w": w, "W": self._total_weight, "true": true_values,
                         "used": used, "V": self._previous_values.copy(), "V_before": before,
                         "reach": value_reach.copy()})
    return used


class NormalisedReadingSolver(CFRAvgSolver):
  """Two other readings of ReBeL's leaf values, on normalised (infostate, PBS) values.

  With V_i(s) the counterfactual leaf value at the average PBS (opponent's average reach),
  m_i(s) = sum_{roots h under s} pi_c(h) pibar_{-i}(h) and c_i(s) the same with the CURRENT
  opponent reach, the normalised value is V_i(s) / m_i(s) (ReBeL's infostate value). The trunk
  gets ``"deaverage-normalised"``: (W_t n^t - W_{t-1} n^{t-1}) / w_t times c_i(s), or
  ``"rescale"``: n^t times c_i(s) (no de-averaging; the released ReBeL code scales its network's
  values by the opponent's reach mass the same way, at current beliefs). At a cut where the
  opponent has no trunk decision (Kuhn depth 1) m = c and the two readings are modified and
  standard CFR-AVG exactly.
  """

  def __init__(self, *args, reading: str, **kwargs):
    super().__init__(*args, variant="modified", **kwargs)
    self.reading = reading
    self._previous_normalised = np.zeros_like(self._previous_values)

  def _leaf_values(self, player: Optional[int], leaf_sigma, value_reach, w, previous_total):
    a, e = self._arrays, self._engine
    x = tree_passes.realization(a, np.where(self._leaf_mask, 1.0, e.sigma))
    lt, root_seq = self._leaf_terminals, self._leaf_terminal_root_seq
    below = tree_passes.realization(a, np.where(self._leaf_mask, leaf_sigma, 1.0))
    continuation = below[a.terminal_seq[lt, 0]] * below[a.terminal_seq[lt, 1]]
    out = np.zeros(a.num_sequences)
    for i in ((0, 1) if player is None else (player,)):
      values = np.bincount(root_seq[:, i], weights=a.weighted_utility[lt, i] * continuation *
                           value_reach[root_seq[:, 1 - i]], minlength=a.num_sequences)
      average_mass, current_mass = np.zeros(a.num_sequences), np.zeros(a.num_sequences)
      for leaf in self.public_tree.leaves:
        np.add.at(average_mass, leaf.root_seq[:, i],
                  leaf.root_chance * value_reach[leaf.root_seq[:, 1 - i]])
        np.add.at(current_mass, leaf.root_seq[:, i], leaf.root_chance * x[leaf.root_seq[:, 1 - i]])
      normalised = values / np.where(average_mass > 0, average_mass, 1.0)
      if self.reading == "deaverage-normalised":
        normalised, self._previous_normalised[i] = (
            (self._total_weight * normalised - previous_total * self._previous_normalised[i]) / w,
            normalised)
      out += normalised * current_mass
    return out


def readings(game_string: str, depth: int, name: str, marks) -> None:
  game = pyspiel.load_game(game_string)
  for reading in ("deaverage-normalised", "rescale"):
    solver = NormalisedReadingSolver(game, depth_limit=depth, reading=reading,
                                     leaf_solver=SOLVERS[name]())
    curve = []
    for t in marks:
      solver.solve(t - solver.iteration)
      curve.append(solver.exploitability())
    print(f"{game_string} d{depth} {name} reading {reading}: "
          + " ".join(f"T={t}:{e:.4g}" for t, e in zip(marks, curve)), flush=True)


def kink_probability(game, policy) -> float:
  """Player 1's average probability of calling a bet holding Q (1/3 in every Kuhn equilibrium)."""
  return float(policy.action_probability_array[policy.state_lookup["1b"], 1])


def with_last_continuation(solver: CFRAvgSolver) -> np.ndarray:
  """Trunk average + the last leaf continuations, as a sequence-form policy."""
  policy = solver.engine.average()
  for leaf in solver.public_tree.leaves:
    policy[leaf.full_seq[2:]] = solver.last_leaf_solutions()[leaf.public_state].policy[2:]
  return policy


def analyse(game_string: str, depth: int, name: str, iterations: int, marks):
  game = pyspiel.load_game(game_string)
  for variant in ("standard", "modified"):
    solver = RecordingSolver(game, depth_limit=depth, variant=variant,
                             leaf_solver=SOLVERS[name]())
    curve = []
    for t in marks:
      solver.solve(t - solver.iteration)
      curve.append(solver.exploitability())
    average = solver.average_policy()
    measured = exploitability.exploitability(game, average)
    assert abs(measured - curve[-1]) < 1e-9
    evaluator = TreeEvaluator(solver.tree)
    gains = evaluator.best_response_values(average) + evaluator.policy_values(average)[::-1]
    line = (f"{game_string} d{depth} {name} {variant}: "
            + " ".join(f"T={t}:{e:.4g}" for t, e in zip(marks, curve))
            + f" | BR gains p0 {gains[0]:.4f} p1 {gains[1]:.4f} | trunk exploitability "
            f"{trunk_exploitability(solver.public_tree, solver.engine.average()):.4f}"
            f" | trunk avg + last continuation "
            f"{evaluator.exploitability(with_last_continuation(solver)):.4f}")
    if game.get_type().short_name == "kuhn_poker" and depth == 1:
      line += f" | P(Q calls bet) {kink_probability(game, average):.3f}"
    print(line, flush=True)
    if variant == "modified":
      report_errors(solver, iterations)


def report_errors(solver: RecordingSolver, iterations: int) -> None:
  """Per-iteration de-averaging error of player 0's values and the telescoping identity."""
  records = [r for r in solver.records if r["player"] in (0, None)]
  seqs = np.unique(solver._leaf_terminal_root_seq[:, 0])  # pylint: disable=protected-access
  used = np.array([r["used"][seqs] for r in records])
  true = np.array([r["true"][seqs] for r in records])
  error = np.abs(used - true).max(axis=1)
  weights = np.array([r["w"] for r in records])
  telescoped = (weights[:, None] * used).sum(axis=0)
  residual = np.abs(telescoped - records[-1]["W"] * records[-1]["V"][0][seqs]).max()
  reach = np.array([r["reach"][seqs] for r in records])
  values = np.array([r["V"][0][seqs] for r in records])
  slope = np.abs(np.diff(values, axis=0)).max(axis=1) / np.maximum(
      np.abs(np.diff(reach, axis=0)).max(axis=1), 1e-15)
  jumps = slope > 10 * np.median(slope)
  late = slice(len(error) // 10, None)
  print(f"    de-averaging error max_s |v^t - v_std^t| (t > T/10): median {np.median(error[late]):.3g}"
        f" mean {error[late].mean():.3g} max {error[late].max():.3g} (max |v_std| "
        f"{np.abs(true).max():.3g}); |sum_k w_k v^k - W_T V^T| = {residual:.2g}; "
        f"jumps of V in {jumps.sum()} of {len(jumps)} steps (median |dV|/|dxbar| "
        f"{np.median(slope):.3g}, max {slope.max():.3g})", flush=True)


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--iterations", type=int, default=1000)
  parser.add_argument("--quick", action="store_true", help="100 iterations, first cut only")
  args = parser.parse_args(argv)
  iterations = 100 if args.quick else args.iterations
  marks = sorted({t for t in (10, 100, 1000, 3000, 10000) if t < iterations} | {iterations})
  for game_string, depth in (CUTS[:1] if args.quick else CUTS):
    for name in SOLVERS:
      analyse(game_string, depth, name, iterations, marks)
  for game_string, depth in (READING_CUTS[:1] if args.quick else READING_CUTS):
    for name in ("exact LP", "Hedge(50, eta=20)"):
      readings(game_string, depth, name, marks)


if __name__ == "__main__":
  sys.exit(main())
