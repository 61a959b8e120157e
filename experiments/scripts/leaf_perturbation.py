"""Which leaf's value error makes the depth-1 ReBeL agent exploitable: one leaf perturbed at a time.

  python -m experiments.scripts.leaf_perturbation                 # kuhn_poker and ante 2, d = 1
  python -m experiments.scripts.leaf_perturbation --quick

The agent (``algorithms.rebel.agent.agent.ReBeLAgent``, the paper's default; Brown, Bakhtin,
Lerer, Gong, NeurIPS 2020, arXiv 2007.13544, Section 6) at lookahead d = 1 and T iterations per
search takes its values at every leaf from a value function (``ValueFunctionLeafSolver`` with
``one_player_exact=False``, as the rebel-agent experiment's measurement 2): the exact LP's
values (the exact-leaf agent) plus ``PerturbedValueFunction``'s error delta U tanh(A beta + b)
at the leaves of the public states chosen (``public_states``; U the leaf's largest payoff). In
Kuhn poker at d = 1 the leaves are "p" (both players act below it), "b" and "pb" (one player
acts). Each row: the exploitability (NashConv / 2, OpenSpiel's ``exploitability.nash_conv`` of
the agent's exact behaviour strategy, every draw enumerated) over the perturbation's seeds, and
the diagnostics of the mechanism:

* each player's best-response gain (player 0's measures player 1's part);
* the draw mass at a zero-mass root: the probability, over the root search's draw of t, that the
  drawn iterate pi^t gives some root of a leaf of the root search, one whose next search has
  leaves (Kuhn's "p"), a belief below ``ZERO_MASS`` times the root's chance probability (the
  root is reached only by the tremble, ``leaf_step.TREMBLE``): the next search then solves a PBS
  in which that private state has (almost) no mass, so its play against it is barely
  constrained, while a best response may still steer into it;
* the action whose probability moved most from the exact-leaf agent's (mean over the seeds).

With ``--by-draw`` a second table takes each row's first seed and splits by the root's draw
(``by_draw``: one behaviour strategy per draw): that action's probability in the draws with a
zero-mass root and in the others, and the consistency of the leaf values the root search used
with the play that follows (their largest gap at the zero-mass roots, at the other roots, and
the gap of the PBS value). A public state that is no leaf (e.g. "bb") perturbs nothing.

Measured (docs/rebel.md, measurement 2; T = 100, 5 seeds, median and range). The jump comes
from player 1's queen betting after a check ("1p") in the nested search at "p" whenever the
drawn root iterate never checks the king: that search's PBS gives the king only the tremble's
mass, so against the rest of the PBS the queen's bet and check tie exactly (the jack folds to
the bet at "pb"), and the "pb" values decide; a best response checks the king and calls.
kuhn_poker_ante(ante=2.0): the exact-leaf agent's root never checks the king (draw mass 1.000),
and "pb" alone moves 0.0126 to 0.0664 (0.0126 - 0.0664) at delta = 1e-6 and to 0.0666 at 1e-4,
nothing at 1e-8: a discontinuity down to the tremble's scale. kuhn_poker: the draw mass is
0.006, "pb" alone at 0.01 gives 0.0074 and "p" or "b" alone 0.0071 / 0.0074; every leaf at
0.001 / 0.003 / 0.01 gives 0.0072 / 0.0081 / 0.053 (0.0073 - 0.090): the root's leaves ("p",
"b") break the king's indifference at the root, its iterates stop checking the king in up to
all draws (seed 0: 0.532), and "pb" then makes the queen bet in those draws.
"""

import argparse
import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pyspiel

from algorithms.rebel.agent.agent import Play
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.agent.search_game import SearchGame
from algorithms.rebel.agent.search_game import SearchLeaf
from algorithms.rebel.leaves.leaf_values import ExactValueFunction
from algorithms.rebel.leaves.leaf_values import PerturbedValueFunction
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from experiments.harness import arguments
from experiments.harness import game_loader
from experiments.harness import script_runner

GAMES = ("kuhn_poker", "kuhn_poker_ante(ante=2.0)")
LEAVES = ("p", "b", "pb", "all")
DELTAS = (1e-6, 1e-4, 1e-3, 0.01, 0.1)
# A leaf root whose belief is below this fraction of its chance probability has zero mass (the
# tremble's 1e-6 on one player's reach puts it near 1e-6).
ZERO_MASS = 1e-3
SIZE = arguments.number_type(float, lambda v: 0 <= v < float("inf"), "a finite number >= 0")


def leaf_solver(delta: float, seed: int, leaf: str) -> ValueFunctionLeafSolver:
  """The exact LP's values (one-player ties split, the agent's ``exact_leaf_solver``) perturbed
  by delta at the leaves of public state ``leaf`` ("all": every leaf), used at every leaf."""
  values = PerturbedValueFunction(ExactValueFunction(exact_leaf_solver()), delta, seed,
                                  None if leaf == "all" else [leaf])
  return ValueFunctionLeafSolver(values, one_player_exact=False)


@dataclasses.dataclass(frozen=True)
class Measured:
  """One agent measured.

  Attributes:
    exploitability: NashConv / 2 (OpenSpiel's ``nash_conv``).
    gains: each player's best-response gain.
    zero_mass: the root search's draw mass at a zero-mass leaf root (module docstring).
    policy: the behaviour strategy as OpenSpiel's tabular array (states x actions).
    states: the information states of its rows.
  """

  exploitability: float
  gains: Sequence[float]
  zero_mass: float
  policy: np.ndarray
  states: Sequence[str]


def zero_mass_leaves(agent: ReBeLAgent, play: Play) -> List[Tuple[SearchLeaf, np.ndarray]]:
  """The leaves of the root search whose next search has leaves of its own (Kuhn's "p" at
  d = 1), each with the PBS that ``play`` passes on there (``ReBeLAgent.next_search``), if that
  PBS gives some root a belief below ``ZERO_MASS`` times its chance probability."""
  game, belief = agent.root()
  out = []
  for leaf in game.leaves:
    next_game, leaf_pbs = agent.next_search(game, leaf, belief, play)
    if next_game.leaves and np.any(leaf_pbs < ZERO_MASS * _prior(leaf)):
      out.append((leaf, leaf_pbs))
  return out


def _prior(leaf: SearchLeaf) -> np.ndarray:
  return leaf.leaf.root_chance / leaf.leaf.root_chance.sum()


def zero_mass_draws(agent: ReBeLAgent) -> float:
  """Sum of P(t) over the root search's draws with a zero-mass root (``zero_mass_leaves``)."""
  return sum(play.probability for play in agent.plays(*agent.root())
             if zero_mass_leaves(agent, play))


def measure_agent(game: pyspiel.Game, iterations: int, solver) -> Measured:
  """The depth-1 agent with ``solver`` at its leaves: its exact behaviour strategy measured."""
  agent = ReBeLAgent(game, lookahead=1, iterations=iterations, leaf_solver=solver)
  policy = tabular_policy(agent, behaviour_strategy(agent).policy)
  result = exploitability.nash_conv(game, policy, return_only_nash_conv=False)
  return Measured(result.nash_conv / 2, tuple(float(g) for g in result.player_improvements),
                  zero_mass_draws(agent),
                  policy.action_probability_array.copy(), list(policy.state_lookup))


class OneDraw(ReBeLAgent):
  """The agent with its root search's draw fixed to ``root_play`` (when set); every search below
  the root is the agent's."""

  root_play: Optional[Play] = None

  def _plays(self, game: SearchGame, belief: np.ndarray) -> List[Play]:
    if game.depth == 0 and self.root_play is not None:
      return [self.root_play]
    return super()._plays(game, belief)


@dataclasses.dataclass(frozen=True)
class DrawSplit:
  """The agent's play split by the root search's draw (``by_draw``).

  Attributes:
    zero_mass: the draw mass at a zero-mass root (``zero_mass_draws``).
    probability: the probability of the action studied, mixed over the draws with a zero-mass
      root and over the others (NaN for an empty group).
    value_gap: over the roots h of the root search's leaves whose next search has leaves, the
      mean over the draws (P(t)-weighted) of max_h |u(h) - u_play(h)|, u the leaf values the
      root search used at the PBS passed on and u_play player 0's expected utility from h under
      the agent's play below the leaf (OpenSpiel's ``expected_game_score.policy_value``): over
      the zero-mass roots of the draws that have some, and over the other roots of every draw.
    pbs_gap: the mean over the draws of max over those leaves of |sum_h beta(h) (u(h) -
      u_play(h))|, the gap of the PBS value.
  """

  zero_mass: float
  probability: Tuple[float, float]
  value_gap: Tuple[float, float]
  pbs_gap: float


def by_draw(game: pyspiel.Game, iterations: int, solver, state: str, action: int) -> DrawSplit:
  """The agent's probability of ``action`` at information state ``state`` and the consistency
  of its leaf values with its play, split by whether the root's draw gives a root of a leaf with
  leaves below it zero mass (``DrawSplit``): one behaviour strategy per draw (``OneDraw``)."""
  agent = OneDraw(game, lookahead=1, iterations=iterations, leaf_solver=solver)
  root, belief = agent.root()
  mass, chosen, gaps, pbs_gap = np.zeros(2), np.zeros(2), np.zeros(2), 0.0
  for play in agent.plays(root, belief):
    zero = bool(zero_mass_leaves(agent, play))
    agent.root_play = play
    policy = tabular_policy(agent, behaviour_strategy(agent).policy)
    w = play.probability
    mass[int(zero)] += w
    chosen[int(zero)] += w * policy.policy_for_key(state)[action]
    gap, unreached, pbs_gaps = [], [], []
    for leaf in root.leaves:
      next_game, pbs = agent.next_search(root, leaf, belief, play)
      if next_game.leaves:
        used = solver(leaf.leaf, pbs).root_values
        played = np.array([expected_game_score.policy_value(agent.arrays.tree.state_at(node),
                                                            [policy, policy])[0]
                           for node in leaf.leaf.root_nodes])
        gap.append(np.abs(used - played))
        unreached.append(pbs < ZERO_MASS * _prior(leaf))
        pbs_gaps.append(abs(pbs @ (used - played)))
    gap, unreached = np.concatenate(gap), np.concatenate(unreached)
    if unreached.any():
      gaps[1] += w * gap[unreached].max()
    gaps[0] += w * gap[~unreached].max()
    pbs_gap += w * max(pbs_gaps)
  with np.errstate(invalid="ignore", divide="ignore"):
    return DrawSplit(mass[1], (chosen[1] / mass[1], chosen[0] / mass[0]),
                     (gaps[1] / mass[1], gaps[0]), pbs_gap)


@dataclasses.dataclass(frozen=True)
class Row:
  """One line of the table: a leaf and delta over the seeds."""

  leaf: str
  delta: float
  exploitability: List[float]
  gains: np.ndarray
  zero_mass: List[float]
  moved: Tuple[str, int, float]


def perturbation_rows(game_string: str, iterations: int, leaves: Sequence[str],
                      deltas: Sequence[float], seeds: Sequence[int]) -> List[Row]:
  """The exact-leaf agent's row (delta 0) and one row per (leaf, delta) over ``seeds``."""
  game = game_loader.load_game(game_string)
  exact = measure_agent(game, iterations, leaf_solver(0.0, 0, "all"))
  rows = [Row("none", 0.0, [exact.exploitability], np.array([exact.gains]), [exact.zero_mass],
              ("", 0, 0.0))]
  for leaf in leaves:
    for delta in deltas:
      runs = [measure_agent(game, iterations, leaf_solver(delta, seed, leaf)) for seed in seeds]
      rows.append(Row(leaf, delta, [r.exploitability for r in runs],
                      np.array([r.gains for r in runs]), [r.zero_mass for r in runs],
                      most_moved(exact, runs)))
  return rows


def most_moved(exact: Measured, runs: Sequence[Measured]) -> Tuple[str, int, float]:
  """The information state and action whose probability moved most from the exact-leaf agent's,
  on average over ``runs``, and the mean change."""
  change = np.mean([r.policy - exact.policy for r in runs], axis=0)
  state, action = np.unravel_index(np.argmax(np.abs(change)), change.shape)
  return exact.states[state], int(action), float(change[state, action])


def table(rows: Sequence[Row], seeds: int) -> str:
  """The markdown table of ``perturbation_rows``."""
  lines = ["| leaf perturbed | delta (U) | seeds | median exploitability | range | "
           "gain of p0 | gain of p1 | draw mass at a zero-mass root | most moved (mean) |",
           "|---|---|---|---|---|---|---|---|---|"]
  for row in rows:
    gains = np.median(row.gains, axis=0)
    count = "-" if row.leaf == "none" else seeds
    lines.append(f"| {row.leaf} | {row.delta:g} | {count} | {np.median(row.exploitability):.5f} "
                 f"| {min(row.exploitability):.5f} - {max(row.exploitability):.5f} "
                 f"| {gains[0]:.5f} | {gains[1]:.5f} | {np.median(row.zero_mass):.3f} "
                 f"| {_moved(row)} |")
  return "\n".join(lines)


def _moved(row: Row) -> str:
  state, action, change = row.moved
  return f"{state}:{action} {change:+.3f}" if state else ""


def split_table(game_string: str, iterations: int, rows: Sequence[Row], seed: int) -> str:
  """The markdown table of ``by_draw`` for each perturbed row at ``seed``, studying the row's most
  moved action, and for the exact-leaf agent with the same action."""
  game = game_loader.load_game(game_string)
  lines = ["| leaf perturbed | delta (U) | action | draw mass at a zero-mass root | P(action), "
           "zero-mass draws | P(action), other draws | value gap, zero-mass roots | "
           "value gap, other roots | PBS value gap |", "|---|---|---|---|---|---|---|---|---|"]
  done = set()
  for row in rows[1:]:
    state, action, _ = row.moved
    for leaf, delta in (("none", 0.0), (row.leaf, row.delta)):
      if (leaf, delta, state, action) in done:
        continue
      done.add((leaf, delta, state, action))
      split = by_draw(game, iterations, leaf_solver(delta, seed, leaf), state, action)
      lines.append(f"| {leaf} | {delta:g} | {state}:{action} | {split.zero_mass:.3f} | "
                   f"{split.probability[0]:.3f} | {split.probability[1]:.3f} | "
                   f"{split.value_gap[0]:.4f} | {split.value_gap[1]:.4f} | "
                   f"{split.pbs_gap:.5f} |")
  return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.leaf_perturbation",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--game", nargs="+", default=list(GAMES),
                      type=arguments.checked_text(game_loader.load_game, "a game"))
  parser.add_argument("--iterations", type=arguments.positive_int, default=100,
                      help="T of every search")
  parser.add_argument("--leaf", nargs="+", default=list(LEAVES),
                      help="public states whose leaves are perturbed, one per row ('all': every "
                           "leaf)")
  parser.add_argument("--delta", type=SIZE, nargs="+", default=list(DELTAS),
                      help="perturbation sizes in units of U")
  parser.add_argument("--seeds", type=arguments.positive_int, default=5,
                      help="perturbation seeds 0..N-1")
  parser.add_argument("--by-draw", action="store_true",
                      help="also split each row's most moved action and the leaf values' "
                           "consistency by the root's draw (seed 0; one agent per draw)")
  parser.add_argument("--quick", action="store_true",
                      help="kuhn_poker, T = 10, leaves pb and all, delta 0.01 and 0.1, 2 seeds, "
                           "--by-draw")
  args = parser.parse_args(argv)
  if args.quick:
    args.game, args.iterations, args.leaf = ["kuhn_poker"], 10, ["pb", "all"]
    args.delta, args.seeds, args.by_draw = [0.01, 0.1], 2, True
  for text in args.game:
    rows = perturbation_rows(text, args.iterations, args.leaf, args.delta, range(args.seeds))
    print(f"\n{text}, lookahead 1, T = {args.iterations}\n")
    print(table(rows, args.seeds), flush=True)
    if args.by_draw:
      print(f"\nBy the root's draw, seed 0\n\n{split_table(text, args.iterations, rows, 0)}",
            flush=True)
  return 0


def per_seed(rows: Sequence[Row]) -> Dict[str, List[float]]:
  """The exploitabilities of each row by "leaf delta" (for checks and tests)."""
  return {f"{row.leaf} {row.delta:g}": row.exploitability for row in rows}


if __name__ == "__main__":
  script_runner.run(main)
