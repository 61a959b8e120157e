"""Measurement 6: the agent with learned leaves after on-policy rounds, over seeds, against the
exact-leaf agent with the same search options; the value error on its own queries; its speed.

For each case (a deck and the ante/bet ratios trained on, measured on, never seen) and each of
``seeds`` training seeds:

* round 0: one value function per cut whose leaves include a two-player one (with exact
  one-player leaves, ``leaves.leaf_values``, the network is asked nowhere else: at Kuhn,
  lookahead 1, the cut at depth 1 for leaf ``p``; at lookahead 2 no cut at all), a family model
  over the trained ratios (``learning.value_network.LeafDomain.stakes``), trained on
  ``examples`` random PBSs per leaf and ratio and on every leaf PBS of the exact-leaf agent at
  the ``visits`` T, all labelled by the exact LP;
* rounds 1..``rounds``: the DAgger rounds of ``learning.on_policy`` at every trained ratio and
  at ``sampled`` ratios drawn afresh per seed and round across the trained range
  (``round_ratios``; never one of the unseen ratios), and every T of ``iterations`` (the T
  evaluated): the learned agent plays, its value-function queries are labelled exactly and join
  the data, the networks are retrained. The drawn ratios are there because after rounds at the
  trained ratios alone the network's error on the agent's own queries between them stayed
  several times its error at the nearest trained ratios (docs/rebel.md): the agent's beliefs
  depend on the stakes, and data at four ratios do not reach the queries between them;
* after each round, at every seen and unseen ratio and every T of ``round_iterations`` (of
  ``iterations`` after the last round): the learned agent's exact exploitability (the
  enumerated behaviour strategy, ``measure.agent_row``, OpenSpiel's and the tree evaluator's)
  with its value-function queries recorded, and on those queries, labelled by the LP, the mean
  counterfactual-value error (``value_errors``, as measurement 2) and the mean per-information-set
  error (``infostate_errors``: each card's value error divided by its belief mass, the largest
  over both players' cards).

Every agent, learned or exact, in the rounds and in the measurements, has the plan's search
options (``LearnedPlan.agent``; by default the paper's agent, ``PAPER``), so learned and exact
are compared with the same search. The exact-leaf agent is measured once per ratio and T.
``timing_frame`` measures the CPU time per hand played by the agent against itself
(``agent.monte_carlo.play_hands``, every search run, no cache), networks of the plan's widths
against exact leaves, in one process.
"""

import dataclasses
import functools
import json
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.dataset import RecordingLeafSolver
from algorithms.rebel.learning.dataset import supervised_dataset
from algorithms.rebel.learning.dataset import visited_dataset
from algorithms.rebel.learning.on_policy import OnPolicyOptions
from algorithms.rebel.learning.on_policy import RecordingValueFunction
from algorithms.rebel.learning.on_policy import Round
from algorithms.rebel.learning.on_policy import labelled
from algorithms.rebel.learning.on_policy import on_policy_rounds
from algorithms.rebel.learning.training import Trainer
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.learning.value_network import deal_belief
from algorithms.rebel.learning.value_network import infostate_errors
from algorithms.rebel.learning.value_network import leaf_rules
from algorithms.rebel.learning.value_network import value_errors
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from experiments.commands.rebel_agent import measure
from experiments.commands.rebel_agent.leaf_solvers import leaf_depths
from experiments.commands.rebel_agent.stakes import game_string
from experiments.harness import game_loader

EXACT, LEARNED = "exact LP", "learned"


@dataclasses.dataclass(frozen=True)
class Case:
  """A deck and its ratios: ``trained`` (the family model's range and data), ``seen`` (measured,
  trained on) and ``unseen`` (measured, inside the range, never in the data)."""

  deck: int
  trained: Tuple[float, ...]
  seen: Tuple[float, ...]
  unseen: Tuple[float, ...] = ()


@dataclasses.dataclass(frozen=True)
class LearnedPlan:
  """Measurement 6's budget (module docstring).

  Attributes:
    cases: the decks and ratios.
    lookahead: the agent's d.
    iterations: the T of the on-policy rounds' agents and of the final measurement.
    round_iterations: the T measured after every round.
    rounds: the on-policy rounds after round 0.
    seeds: training seeds (seed, seed + 1, ...).
    examples: random PBSs per leaf and trained ratio; visits: the exact-leaf agents' T whose leaf
      PBSs join round 0's data.
    hidden, steps: the networks (``TrainingOptions``; batch 256).
    hands: hands per trained ratio and T in each round (None: every draw enumerated).
    timing_deck, timing_ratio, timing_iterations, timing_lookaheads, timing_hands: the speed.
    max_searches: the enumeration's budget.
    agent: the ``ReBeLAgent`` options of every agent measured, learned and exact (``PAPER``).
    sampled: for a case with a range of trained ratios, the ratios drawn afresh in each round
      across that range (``round_ratios``) whose learned agents also play and give data; 0: the
      rounds play at the trained ratios only.
  """

  cases: Tuple[Case, ...]
  lookahead: int
  iterations: Tuple[int, ...]
  round_iterations: Tuple[int, ...]
  rounds: int
  seeds: int
  examples: int
  visits: Tuple[int, ...]
  hidden: Tuple[int, ...]
  steps: int
  hands: Optional[int]
  timing_deck: int
  timing_ratio: float
  timing_iterations: int
  timing_lookaheads: Tuple[int, ...]
  timing_hands: int
  max_searches: int
  agent: Dict[str, Any] = dataclasses.field(default_factory=lambda: dict(PAPER))
  sampled: int = 0


# The paper's agent (Brown et al. 2020, Section 6, and its released code): CFR-D, the drawn
# iteration's current policy played and passed on, linear weighting, the draw by the weights.
PAPER = {"leaf_beliefs": "current", "play": "iterate", "weighting": "linear", "draw": "weights"}

# The large deck's case: trained at four ratios, measured at one of them and at two never seen.
DECK_13 = Case(13, (0.5, 1.0, 2.0, 4.0), (1.0,), (1.5, 3.0))
PLANS: Dict[str, Optional[LearnedPlan]] = {
    "quick": LearnedPlan(cases=(Case(3, (1.0,), (1.0,)),), lookahead=1, iterations=(10,),
                         round_iterations=(10,), rounds=1, seeds=5, examples=30, visits=(5,),
                         hidden=(16, 16), steps=100, hands=2, timing_deck=13, timing_ratio=1.5,
                         timing_iterations=10, timing_lookaheads=(1,), timing_hands=2,
                         max_searches=20_000),
    # The main job leaves it out: measurement 3 (self-play with the network at every leaf and
    # its supervised diagnostic, 5 seeds) takes its place there, and its minutes.
    "default": None,
    # 3 cards (about 27 s of CPU per seed), 13 cards (about 130 s per seed at T = 100) and
    # T = 300 (an enumeration of 90,601 searches per agent, about 65 s of CPU at 13 cards), its
    # agents also playing in the rounds.
    "full": LearnedPlan(cases=(Case(3, (1.0,), (1.0,)), DECK_13), lookahead=1,
                        iterations=(100, 300), round_iterations=(100,), rounds=2, seeds=5,
                        examples=300, visits=(10, 30), hidden=(64, 64), steps=2000, hands=2,
                        timing_deck=13, timing_ratio=1.5, timing_iterations=100,
                        timing_lookaheads=(1, 2), timing_hands=6, max_searches=100_000,
                        sampled=8),
}


def learned_depths(game: str, lookahead: int) -> List[int]:
  """The cuts of the agent's searches with a two-player leaf: the only ones whose network is
  asked (one-player leaves are solved exactly)."""
  return [d for d in leaf_depths(game, lookahead)
          if any(len(leaf.acting_players) == 2
                 for leaf in cut_of(game_loader.load_game(game), d)[0].leaves)]


def round_ratios(case: Case, sampled: int, seed: int, index: int) -> Tuple[float, ...]:
  """The ratios whose learned agents play in on-policy round ``index``: the trained ones and
  ``sampled`` more, stratified log-uniform over the trained range, drawn afresh per seed and
  round: log r_k = log lo + (k + u_k) / K (log hi - log lo), u_k ~ Uniform[0, 1).

  Raises:
    ValueError: if a drawn ratio is one of the case's unseen ratios (they stay unseen; with
      continuous draws this has probability 0, so it would mean a broken generator).
  """
  low, high = np.log(min(case.trained)), np.log(max(case.trained))
  if sampled == 0 or low == high:
    return case.trained
  u = (np.arange(sampled) + np.random.default_rng([seed, index]).random(sampled)) / sampled
  drawn = tuple(float(r) for r in np.clip(np.exp(low + u * (high - low)), min(case.trained),
                                          max(case.trained)))
  hits = [r for r in drawn for unseen in case.unseen if np.isclose(r, unseen, rtol=1e-9, atol=0)]
  if hits:
    raise ValueError(f"round {index}, seed {seed}: drew ante/bet {hits[0]!r}, an unseen ratio "
                     f"of the case (unseen: {case.unseen})")
  return case.trained + drawn


@functools.lru_cache(maxsize=4)
def _exact_records(deck: int, ratios: Tuple[float, ...], lookahead: int, visits: Tuple[int, ...],
                   agent: str, max_searches: int) -> Dict[float, list]:
  """Per ratio, every leaf PBS the exact-leaf agent (``ReBeLAgent`` options ``agent`` as JSON)
  evaluates at the ``visits`` T (kept per process: every seed of a deck uses them)."""
  options = json.loads(agent)
  out = {}
  for ratio in ratios:
    recorder = RecordingLeafSolver(exact_leaf_solver(**options))
    for t in visits:
      behaviour_strategy(ReBeLAgent(game_loader.load_game(game_string(deck, ratio)),
                                    lookahead=lookahead, iterations=t, leaf_solver=recorder,
                                    **options), max_searches=max_searches)
    out[ratio] = recorder.records
  return out


def _base(case: Case, plan: LearnedPlan, depths: List[int], seed: int, visited) -> tuple:
  """The family domains and round 0's data of every learned cut."""
  stakes = (min(case.trained), max(case.trained))
  domains, base = {}, {}
  for depth in depths:
    parts = []
    for k, ratio in enumerate(case.trained):
      tree, domain = cut_of(game_loader.load_game(game_string(case.deck, ratio)), depth)
      parts += [supervised_dataset(tree, plan.examples, 1000 * seed + k),
                visited_dataset(visited[ratio], domain)]
    _, domains[depth] = cut_of(game_loader.load_game(game_string(case.deck, case.trained[0])),
                               depth, stakes)
    base[depth] = Dataset.concatenate(parts)
  return domains, base


def evaluate(models, game: str, iterations: int, plan: LearnedPlan) -> Dict[str, float]:
  """The learned agent's exploitability and its value error on its own queries (module doc)."""
  recorder = RecordingValueFunction(ByLeaf(models))
  row = measure.agent_row(game, plan.lookahead, iterations,
                          ValueFunctionLeafSolver(recorder, split_ties=splits_ties(**plan.agent)),
                          plan.max_searches, **plan.agent)
  records = labelled(recorder.queries, SequenceFormLPSolver())
  counterfactual, infostate = [], []
  for leaf, belief, exact in records:
    rules = leaf_rules(leaf)
    predicted, reference = np.zeros((2, len(rules.deals())))
    predicted[leaf.deals] = recorder.value_function.root_values(leaf, belief)
    reference[leaf.deals] = exact
    beliefs = deal_belief(leaf, belief)[None]
    counterfactual.append(value_errors(rules, beliefs, predicted[None], reference[None])[0])
    infostate.append(infostate_errors(rules, beliefs, predicted, reference)[0])
  return dict(row, queries=len(records),
              **{"counterfactual error": float(np.mean(counterfactual)) if records else 0.0,
                 "infostate error": float(np.mean(infostate)) if records else 0.0})


def _measured(case: Case) -> List[Tuple[float, str]]:
  """The case's measured ratios with "yes" (trained on) or "no"."""
  return [(r, "yes") for r in case.seen] + [(r, "no") for r in case.unseen]


def exact_frame(plan: LearnedPlan, case: Case) -> pd.DataFrame:
  """The exact-leaf agent's rows (seed and round -1) at every measured ratio and T of a case."""
  rows = []
  for ratio, seen in _measured(case):
    for t in sorted(set(plan.round_iterations) | set(plan.iterations)):
      row = measure.agent_row(game_string(case.deck, ratio), plan.lookahead, t, None,
                              plan.max_searches, **plan.agent)
      rows.append(dict(row, deck=case.deck, stakes=ratio, **{"trained on": seen},
                       seed=-1, round=-1, T=t, leaves=EXACT))
  return pd.DataFrame(rows)


def seed_frame(plan: LearnedPlan, case: Case, seed: int) -> pd.DataFrame:
  """One training seed's rows (deck, stakes, trained on, seed, round, T, exploitability,
  errors, examples, ...) of the learned agent after every round (module docstring)."""
  depths = learned_depths(game_string(case.deck, case.trained[0]), plan.lookahead)
  visited = _exact_records(case.deck, case.trained, plan.lookahead, plan.visits,
                           json.dumps(plan.agent, sort_keys=True), plan.max_searches)
  domains, base = _base(case, plan, depths, seed, visited)
  options = OnPolicyOptions(rounds=plan.rounds, iterations=plan.iterations,
                            lookahead=plan.lookahead, hands=plan.hands, seed=seed,
                            agent=plan.agent, max_searches=plan.max_searches)
  training = TrainingOptions(hidden=plan.hidden, steps=plan.steps, seed=seed)
  played = set(case.trained)  # Every ratio whose PBSs are in the data so far.
  rows = []

  def round_games(index: int):
    ratios = round_ratios(case, plan.sampled, seed, index)
    played.update(ratios)
    return [game_loader.load_game(game_string(case.deck, r)) for r in ratios]

  def report(done: Round):
    models = [done.models[d] for d in sorted(done.models)]
    final = done.index == plan.rounds
    for ratio, seen in _measured(case):
      nearest = min(played, key=lambda p: abs(np.log(p / ratio)))
      for t in sorted(set(plan.round_iterations) | (set(plan.iterations) if final else set())):
        row = evaluate(models, game_string(case.deck, ratio), t, plan)
        rows.append(dict(row, deck=case.deck, stakes=ratio, **{"trained on": seen},
                         seed=seed, round=done.index, T=t, leaves=LEARNED,
                         examples=sum(done.examples.values()),
                         **{"round queries": len(done.queries),
                            "nearest ratio in the data": nearest}))

  on_policy_rounds(round_games, domains, base, options, training, report=report)
  return pd.DataFrame(rows)


def ratio_table(frame: pd.DataFrame) -> pd.DataFrame:
  """Per deck, stakes, round and T: learned / exact over the seeds (median, lowest, worst) and
  the median errors on the learned agent's own queries."""
  exact = frame[frame.leaves == EXACT][["deck", "stakes", "T", "exploitability"]]
  learned = frame[frame.leaves == LEARNED].merge(exact, on=["deck", "stakes", "T"],
                                                 suffixes=("", " exact"))
  learned["ratio"] = learned.exploitability / learned["exploitability exact"]
  keys = ["deck", "stakes", "trained on", "round", "T"]
  grouped = learned.groupby(keys, sort=True)
  table = grouped.agg(**{
      "exact agent": ("exploitability exact", "first"),
      "learned (median)": ("exploitability", "median"),
      "learned / exact (median)": ("ratio", "median"),
      "learned / exact (best seed)": ("ratio", "min"),
      "learned / exact (worst seed)": ("ratio", "max"),
      "counterfactual error (median)": ("counterfactual error", "median"),
      "infostate error (median)": ("infostate error", "median"),
      "seeds": ("seed", "nunique")}).reset_index()
  return table


def target_rows(table: pd.DataFrame, plan: LearnedPlan) -> List[dict]:
  """The issue's learned-leaf targets after the last round: trained stakes at most 1.5x the
  exact agent at T = 100 and 2x at T = 300 (median over the seeds); unseen stakes at most 2x."""
  rows = []
  final = table[table["round"] == plan.rounds]
  for r in final.to_dict("records"):
    if r["trained on"] == "yes":
      bound = 1.5 if r["T"] <= 100 else 2.0
    else:
      bound = 2.0
    what = "trained" if r["trained on"] == "yes" else "unseen"
    measured, worst = r["learned / exact (median)"], r["learned / exact (worst seed)"]
    rows.append({"target": f"{r['deck']} cards, {what} stakes ante/bet {r['stakes']:g}, "
                           f"lookahead {plan.lookahead}, T={r['T']}: learned / exact, median "
                           f"over {r['seeds']} seeds (worst {worst:.2f})",
                 "measured": measured, "bound": bound, "of": "the exact-leaf agent, same options",
                 "met": "yes" if measured <= bound else "no"})
  return rows


def timing_frame(plan: LearnedPlan, base_seed: int) -> pd.DataFrame:
  """CPU seconds per hand, exact against learned leaves (module docstring), with untrained
  networks of the plan's widths (the cost of an evaluation does not depend on the weights)."""
  game = game_string(plan.timing_deck, plan.timing_ratio)
  rows = []
  for lookahead in plan.timing_lookaheads:
    depths = learned_depths(game, lookahead)
    models = [Trainer(cut_of(game_loader.load_game(game), d)[1],
                      TrainingOptions(hidden=plan.hidden, seed=base_seed)).model()
              for d in depths]
    seconds = {}
    for kind, solver in ((EXACT, None),
                         (LEARNED, ValueFunctionLeafSolver(
                             ByLeaf(models), split_ties=splits_ties(**plan.agent)))):
      agent = ReBeLAgent(game_loader.load_game(game), lookahead=lookahead,
                         iterations=plan.timing_iterations, leaf_solver=solver, **plan.agent)
      seconds[kind] = measure.cpu_per_hand(agent, plan.timing_hands, base_seed)
    rows.append({"deck": plan.timing_deck, "stakes": plan.timing_ratio, "lookahead": lookahead,
                 "T": plan.timing_iterations, "hands": plan.timing_hands,
                 "networks at cuts": ", ".join(map(str, depths)) or "none (one-player leaves)",
                 "exact (s per hand)": seconds[EXACT], "learned (s per hand)": seconds[LEARNED],
                 "speed-up (exact / learned)": seconds[EXACT] / seconds[LEARNED]})
  return pd.DataFrame(rows)
