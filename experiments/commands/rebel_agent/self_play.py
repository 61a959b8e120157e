"""Measurement 3: ReBeL that learns by itself, against the supervised bound on the same episodes.

Per deck, seed and kind of target, ``learning.bootstrap.BootstrapSelfPlay`` on the agent's cuts
(lookahead 1), with the network at every leaf (no exact value anywhere but at the end of the
game) and ReBeL's value layout (one value per player and card, ``LeafDomain.outputs``
"infostate"):

* bootstrapped (``BOOTSTRAPPED``, ReBeL's Algorithm 1): a visited PBS's target is the search's
  own mean root values, with the next cut's network at its leaves;
* exact labels (``EXACT_LABELS``, the supervised diagnostic, DAgger on self-play's own PBSs):
  the same episodes, each visited PBS labelled by the exact-leaf agent's leaf solver
  (``agent.exact_leaf_solver``).

After every ``eval_every`` rounds (and the last) the agent with the current networks is measured
exactly (``measure.agent_row``: its enumerated behaviour strategy, OpenSpiel's exploitability) at
T = ``curve_iterations``, and after the last round at every T of ``final_iterations``; the
exact-leaf agent (``exact_frame``) at the same T is the reference of the ratios. One (deck, kind,
seed) per call, so that the experiment runs them as separate tasks.
"""

import dataclasses
from typing import List, Tuple

import pandas as pd

from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.learning.bootstrap import BootstrapSelfPlay
from algorithms.rebel.learning.self_play import SelfPlayOptions
from algorithms.rebel.learning.training import TrainingOptions
from experiments.commands.rebel_agent.measure import agent_row
from experiments.commands.rebel_agent.measure import cpu_per_hand
from experiments.harness import game_loader

LOOKAHEAD = 1
BOOTSTRAPPED, EXACT_LABELS = "self-play (bootstrapped)", "supervised (exact labels)"
KINDS = (BOOTSTRAPPED, EXACT_LABELS)
# The exact-leaf agent, the reference of the ratios.
EXACT_AGENT = "exact leaves"
# Issue 33's targets on learned / exact after the last round: the median per deck, every seed.
MEDIAN_BOUNDS = {3: 1.5, 13: 2.0}
WORST_BOUND = 3.0
TIMING_ITERATIONS = 100


def game_string(deck: int) -> str:
  """Kuhn poker with ``deck`` cards: OpenSpiel's ``kuhn_poker`` at 3, else ours."""
  return "kuhn_poker" if deck == 3 else f"kuhn_poker_ante(deck_size={deck})"


@dataclasses.dataclass(frozen=True)
class SelfPlayPlan:
  """Measurement 3's budget (module docstring).

  Attributes:
    decks: the decks; seeds: seeds per deck and kind (0, 1, ...).
    rounds, episodes, search_iterations, train_steps: per round, ``SelfPlayOptions``'s.
    hidden: the networks' widths.
    eval_every: rounds between two points of the curve; curve_iterations: their T.
    final_iterations: the T measured after the last round (and for the exact-leaf agent).
    timing_decks, timing_hands: the CPU per hand, exact against learned leaves, at T = 100.
  """

  decks: Tuple[int, ...]
  seeds: int
  rounds: int
  episodes: int
  search_iterations: int
  train_steps: int
  hidden: Tuple[int, ...]
  eval_every: int
  curve_iterations: int
  final_iterations: Tuple[int, ...]
  timing_decks: Tuple[int, ...] = (13, 100)
  timing_hands: int = 3


def run_of(plan: SelfPlayPlan, deck: int, kind: str, seed: int) -> BootstrapSelfPlay:
  """The self-play run of one deck, kind and seed, before its first round."""
  options = SelfPlayOptions(search_iterations=plan.search_iterations,
                            episodes_per_round=plan.episodes, train_steps=plan.train_steps,
                            seed=seed)
  return BootstrapSelfPlay(game_loader.load_game(game_string(deck)), LOOKAHEAD, options,
                           TrainingOptions(hidden=plan.hidden, seed=seed), outputs="infostate",
                           one_player_exact=False,
                           labeller=exact_leaf_solver() if kind == EXACT_LABELS else None)


def self_play_frame(plan: SelfPlayPlan, deck: int, kind: str, seed: int,
                    max_searches: int) -> pd.DataFrame:
  """Rows (deck, targets, seed, round, episodes, iterations, exploitability, tree_exploitability,
  searches) of one run: the curve after every ``eval_every`` rounds, every final T after the last.
  """
  run = run_of(plan, deck, kind, seed)
  rows: List[dict] = []
  for round_ in range(1, plan.rounds + 1):
    run.run_round()
    last = round_ == plan.rounds
    if not last and round_ % plan.eval_every:
      continue
    solver = run.agent(plan.curve_iterations).leaf_solver
    for t in sorted(set(plan.final_iterations if last else ()) | {plan.curve_iterations}):
      row = agent_row(game_string(deck), LOOKAHEAD, t, solver, max_searches)
      rows.append({"deck": deck, "targets": kind, "seed": seed, "round": round_,
                   "episodes": round_ * plan.episodes, "iterations": t, **row})
  return pd.DataFrame(rows)


def exact_frame(plan: SelfPlayPlan, deck: int, max_searches: int) -> pd.DataFrame:
  """The exact-leaf agent's rows at the curve's and the final T (the ratios' reference)."""
  rows = []
  for t in sorted(set(plan.final_iterations) | {plan.curve_iterations}):
    rows.append({"deck": deck, "targets": EXACT_AGENT, "iterations": t,
                 **agent_row(game_string(deck), LOOKAHEAD, t, exact_leaf_solver(),
                             max_searches)})
  return pd.DataFrame(rows)


def timing_frame(plan: SelfPlayPlan, seed: int) -> pd.DataFrame:
  """CPU seconds per hand (``measure.cpu_per_hand``) at T = ``TIMING_ITERATIONS``, lookahead 1:
  exact leaves against the network at every leaf in ReBeL's layout, untrained (an evaluation
  costs the same whatever the weights), per deck of ``timing_decks``."""
  rows = []
  for deck in plan.timing_decks:
    learned = run_of(plan, deck, BOOTSTRAPPED, seed).agent(TIMING_ITERATIONS)  # Untrained.
    exact = ReBeLAgent(learned.game, lookahead=LOOKAHEAD, iterations=TIMING_ITERATIONS)
    seconds = [cpu_per_hand(agent, plan.timing_hands, seed) for agent in (exact, learned)]
    rows.append({"deck": deck, "T": TIMING_ITERATIONS, "hands": plan.timing_hands,
                 "exact leaves (s per hand)": seconds[0],
                 "network at every leaf (s per hand)": seconds[1],
                 "speed-up (exact / network)": seconds[0] / seconds[1]})
  return pd.DataFrame(rows)


def ratio_table(played: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
  """After the last round, per deck, kind and final T: learned / exact over the seeds (median,
  worst) and the median and worst exploitability."""
  last = played[played["round"] == played["round"].max()]
  reference = exact.set_index(["deck", "iterations"]).exploitability
  rows = []
  for (deck, kind, t), run in last.groupby(["deck", "targets", "iterations"], sort=False):
    ratios = run.exploitability / reference[(deck, t)]
    rows.append({"deck": deck, "targets": kind, "T": t, "seeds": len(run),
                 "exact-leaf agent": reference[(deck, t)],
                 "learned, median": run.exploitability.median(),
                 "learned / exact, median": ratios.median(),
                 "learned / exact, worst": ratios.max()})
  return pd.DataFrame(rows)
