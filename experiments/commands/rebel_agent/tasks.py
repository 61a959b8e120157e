"""The experiment's work as tasks (``experiments.harness.tasks``): resumable units that the
executor spreads over ``--workers`` processes, each saved as it finishes and reused by a rerun
of the same code.

One task per:

* measurement 0: (game, lookahead, agent variant, T): ``agent``, exact LP leaves; per setting the
  two full-game CFR curves (``cfr``);
* measurement 1: (game, lookahead, leaf solver, T): ``agent``; per (setting, leaf solver) the
  stitched curve (``stitched``); per setting full-game CFR (``cfr``); with learned leaves, per
  setting ``learned``: the value functions trained (``leaf_solvers.Models``), the agent at every T,
  the stitched curve and measurement 2's learned point, with the models' files;
* measurement 2: per setting, the exact and perturbed values (``value_errors``);
* measurement 3: per deck, kind of target and seed (``self_play``), and per deck the exact-leaf
  agent (``self_play_exact``);
* measurement 4: the family models with every frame that uses them (``stakes_measurement``), and
  the doubled-stakes check (``stakes_scaling``);
* measurement 5: per (game, lookahead, T) (``estimate``);
* measurement 6: per deck the exact-leaf rows (``learned_exact``), per deck and training seed
  the learned rows after every round (``learned_seed``; ``learned_keys`` orders them), and the
  timing (``learned_timing``); ``learned_section.measurement`` assembles them.

Every function takes JSON-able arguments (the budget by name, ``plan.PLANS``) and returns a
DataFrame or a JSON-able dict; ``measurement_tasks`` lists the tasks of a budget with rough
estimates of their wall time (seconds on one of two shared cores; they order the work, longest
first, and bound it by ``--max-minutes``).
"""

import copy
import dataclasses
import functools
import json
import pathlib
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pandas as pd

from algorithms.cfr.solvers import LCFRSolver
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.behaviour import search_count
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.leaves.leaf_values import ExactValueFunction
from algorithms.rebel.leaves.leaf_values import PerturbedValueFunction
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from experiments.commands.rebel_agent import leaf_solvers
from experiments.commands.rebel_agent import learned as learned_measurement
from experiments.commands.rebel_agent import measure
from experiments.commands.rebel_agent import paper_learned
from experiments.commands.rebel_agent import paper_table
from experiments.commands.rebel_agent import self_play as self_play_measurement
from experiments.commands.rebel_agent import stakes
from experiments.commands.rebel_agent.plan import EXACT
from experiments.commands.rebel_agent.plan import HEDGE
from experiments.commands.rebel_agent.plan import LEARNED
from experiments.commands.rebel_agent.plan import PLANS
from experiments.commands.rebel_agent.plan import VARIANTS
from experiments.commands.rebel_agent.plan import Plan
from experiments.harness import game_loader
from experiments.harness.tasks import Task
from experiments.harness.tasks import pack_files

Key = Tuple[Any, ...]

# The references of full-game CFR: ``measure.cfr_curve``'s solver and options by name.
CFR_REFERENCES = {"CFR": {}, "linear averaging": {"linear_averaging": True},
                  "Linear CFR": {"solver_class": LCFRSolver}}


def agent(budget: str, leaves: str, game: str, lookahead: int, iterations: int,
          options: Optional[Dict[str, Any]] = None) -> Dict[str, float]:
  """``measure.agent_row`` of the agent with ``leaves`` (not learned; ``leaf_solvers.build``)
  and ``ReBeLAgent`` ``options``."""
  plan = PLANS[budget]
  solver = leaf_solvers.build(leaves, game, lookahead, plan, None, False)
  return measure.agent_row(game, lookahead, iterations, solver, plan.max_searches,
                           **(options or {}))


def stitched(budget: str, leaves: str, game: str, lookahead: int,
             iterations: List[int]) -> Dict[str, List[float]]:
  """``measure.stitched_curve`` of ``CFRAvgSolver`` with ``leaves`` (not learned)."""
  solver = leaf_solvers.build(leaves, game, lookahead, PLANS[budget], None, True)
  return {"values": measure.stitched_curve(game, lookahead, iterations, solver)}


def cfr(game: str, iterations: List[int], reference: str) -> Dict[str, List[float]]:
  """Full-game CFR's exploitability at each T (``CFR_REFERENCES``: CFR, CFR with linear
  averaging, Linear CFR)."""
  return {"values": measure.cfr_curve(game, iterations, **CFR_REFERENCES[reference])}


def _error_row(plan: Plan, game: str, lookahead: int, iterations: int, pbs, name: str,
               delta: float, values, stitched_values) -> Dict[str, Any]:
  """Measurement 2's row of one value function: its on-path error, the agent and the stitched
  policy with its values at every leaf (``one_player_exact=False``: the error is measured at
  every leaf, the one-player ones included, so the agent uses the values there too)."""
  agent_row = measure.agent_row(game, lookahead, iterations,
                                ValueFunctionLeafSolver(values, one_player_exact=False),
                                plan.max_searches)
  solver = ValueFunctionLeafSolver(stitched_values, SequenceFormLPSolver(),
                                   one_player_exact=False)
  return {"iterations": iterations, "series": name, "delta": delta,
          "error": measure.value_error(values, pbs), "agent": agent_row["exploitability"],
          "stitched": measure.stitched_curve(game, lookahead, [iterations], solver)[0]}


def error_iterations(plan: Plan, iterations: Sequence[int]) -> int:
  """The T of measurement 2 for a setting measured at ``iterations``."""
  return min(plan.error_iterations, max(iterations))


def value_errors(budget: str, game: str, lookahead: int, iterations: int,
                 seed: int) -> Dict[str, List[dict]]:
  """Measurement 2's rows of the exact and the perturbed values (``PerturbedValueFunction``)
  at the leaf PBSs the exact-leaf agent evaluates (``measure.on_path_pbs``)."""
  plan = PLANS[budget]
  pbs = measure.on_path_pbs(game, lookahead, iterations, seed, plan.max_searches)
  exact = ExactValueFunction(exact_leaf_solver())
  series = [("exact", 0.0, exact)] + [
      ("perturbed", delta, PerturbedValueFunction(exact, delta, seed)) for delta in plan.deltas]
  return {"rows": [_error_row(plan, game, lookahead, iterations, pbs, name, delta, values,
                              values) for name, delta, values in series]}


def learned(budget: str, game: str, lookahead: int, iterations: List[int], error_t: int,
            seed: int) -> Dict[str, Any]:
  """Everything with learned leaves at one setting: the value functions trained
  (``leaf_solvers.Models``), the agent at every T (measurement 1), the stitched curve, and
  measurement 2's learned point at T = ``error_t``; with the models' files."""
  plan = PLANS[budget]
  with tempfile.TemporaryDirectory() as folder:
    models = leaf_solvers.Models(pathlib.Path(folder), plan, seed)
    solver = leaf_solvers.build(LEARNED, game, lookahead, plan, models, False)
    agents = [measure.agent_row(game, lookahead, t, solver, plan.max_searches)
              for t in iterations]
    solver = leaf_solvers.build(LEARNED, game, lookahead, plan, models, True)
    curve = measure.stitched_curve(game, lookahead, iterations, solver)
    pbs = measure.on_path_pbs(game, lookahead, error_t, seed, plan.max_searches)
    values = ByLeaf([models.model(game, d) for d in leaf_solvers.leaf_depths(game, lookahead)])
    error = _error_row(plan, game, lookahead, error_t, pbs, "learned", float("nan"), values,
                       models.model(game, lookahead))
    return {"agent": agents, "stitched": curve, "error": error,
            "files": pack_files(folder)}


def self_play(budget: str, deck: int, kind: str, seed: int) -> pd.DataFrame:
  """Measurement 3's rows of one deck, kind of target and seed (``self_play_frame``)."""
  plan = PLANS[budget]
  return self_play_measurement.self_play_frame(plan.self_play, deck, kind, seed, plan.max_searches)


def self_play_exact(budget: str, deck: int) -> pd.DataFrame:
  """Measurement 3's exact-leaf agent of one deck (``self_play.exact_frame``)."""
  plan = PLANS[budget]
  return self_play_measurement.exact_frame(plan.self_play, deck, plan.max_searches)


def self_play_timing(budget: str, seed: int) -> pd.DataFrame:
  """Measurement 3's CPU per hand, exact leaves against the network (``timing_frame``)."""
  return self_play_measurement.timing_frame(PLANS[budget].self_play, seed)


def self_play_keys(plan: Plan) -> List[Key]:
  """Measurement 3's run tasks: per deck, kind of target and seed."""
  return [("self-play", deck, kind, k) for deck in plan.self_play.decks
          for kind in self_play_measurement.KINDS for k in range(plan.self_play.seeds)]


def stakes_measurement(budget: str, seed: int) -> Dict[str, Any]:
  """Measurement 4 (``stakes``): the family models, the agents at every ratio, the timing and the
  deck's choice, with the models' files."""
  plan = PLANS[budget]
  with tempfile.TemporaryDirectory() as folder:
    family = stakes.family_models(plan.stakes, pathlib.Path(folder), seed, plan.max_searches)
    return {"measured": stakes.stakes_frame(plan.stakes, family, seed, plan.max_searches),
            "timing": stakes.timing_frame(plan.stakes, family, seed, plan.max_searches),
            "decks": stakes.deck_frame(plan.stakes, seed), "files": pack_files(folder)}


def stakes_scaling(budget: str) -> Dict[str, Any]:
  """Measurement 4's check that doubled stakes double the exact-leaf agent's exploitability."""
  plan = PLANS[budget]
  return dataclasses.asdict(stakes.scaling_check(plan.stakes, plan.max_searches))


def estimate(budget: str, game: str, lookahead: int, iterations: int,
             seed: int) -> Dict[str, float]:
  """Measurement 5's row (``measure.estimate_row``)."""
  plan = PLANS[budget]
  return {"game": game, "lookahead": lookahead, "T": iterations,
          **measure.estimate_row(game, lookahead, iterations, plan.estimate_replicates, seed,
                                 plan.max_searches)}


def _learned_case(budget: str, deck: int) -> learned_measurement.Case:
  """Measurement 6's case of the deck at the budget."""
  (case,) = [c for c in learned_measurement.PLANS[budget].cases if c.deck == deck]
  return case


def learned_exact(budget: str, deck: int) -> pd.DataFrame:
  """Measurement 6's exact-leaf rows of one deck (``learned.exact_frame``)."""
  return learned_measurement.exact_frame(learned_measurement.PLANS[budget],
                                         _learned_case(budget, deck))


def learned_seed(budget: str, deck: int, seed: int) -> pd.DataFrame:
  """Measurement 6's rows of one deck and training seed (``learned.seed_frame``)."""
  return learned_measurement.seed_frame(learned_measurement.PLANS[budget],
                                        _learned_case(budget, deck), seed)


def learned_keys(plan: learned_measurement.LearnedPlan) -> List[Key]:
  """Measurement 6's row tasks in the order of its frame: per case, the exact-leaf rows, then
  each training seed's (seed index k: the task's seed is the run's seed + k)."""
  keys: List[Key] = []
  for case in plan.cases:
    keys += [("learned-exact", case.deck)] + [("learned-seed", case.deck, k)
                                              for k in range(plan.seeds)]
  return keys


def learned_timing(budget: str, seed: int) -> pd.DataFrame:
  """Measurement 6's CPU per hand, exact against learned leaves (``learned.timing_frame``)."""
  return learned_measurement.timing_frame(learned_measurement.PLANS[budget], seed)



# Rough wall times, measured on two shared cores, of: one iteration of one search (an agent's
# enumeration runs ``search_count`` searches of T iterations each, 3 s for 10,201 searches at
# T = 100 on kuhn_poker, lookahead 1); one search's iteration with Hedge leaves over the LP's;
# a search of a 13-card deck over a 3-card one; an estimate from sampled draws per T (its
# replicates and the best responses to their fits, 66 s at T = 100 and 194 s at T = 300); the
# training of a setting's value functions; self-play per seed; measurements 4 and 6 per budget.
_SEARCH_ITERATION_SECONDS = 4e-6
_HEDGE_FACTOR = 10.0
_DECK_FACTOR = 1.5
_ESTIMATE_SECONDS_PER_T = 0.7
_TRAINING_SECONDS = 10.0
# Measurement 3's seconds per run by deck (self-play rounds, training and the agent's
# evaluations at the default budget).
_SELF_PLAY_SECONDS = {3: 40.0, 13: 200.0}
_SELF_PLAY_TIMING_SECONDS = 15.0  # Per deck: exact leaves at 100 cards take about 5 s a hand.
_STAKES_SECONDS = {"quick": 25.0, "default": 70.0, "full": 300.0}
# Measurement 6's seconds per training seed by deck at T = 100 (measured in a fresh clone's main
# job: 27 s at 3 cards; 130 s at 13 cards), times a factor per budget (--quick's small networks
# and T = 10; --full's rounds and evaluations also at T = 300, about 10x).
_LEARNED_SEED_SECONDS = {3: 27.0, 13: 130.0}
_LEARNED_BUDGET_FACTOR = {"quick": 0.05, "full": 10.0}
_LEARNED_TIMING_SECONDS = 20.0
# Measurement 7's agent per seed, per T and replicate (and its fit's): 14 s at T = 128 and 8
# replicates on liars_dice 1x4f.
_PAPER_SECONDS_PER_T_AND_REPLICATE = 0.015
_PAPER_LEARNED_SECONDS = 0.036  # CPU seconds of self-play per episode at T = 16 (1x4f).


@functools.lru_cache(maxsize=None)
def _agent(game: str, lookahead: int, options: str) -> ReBeLAgent:
  """The agent (its public tree built once per game, lookahead and options)."""
  return ReBeLAgent(game_loader.load_game(game), lookahead=lookahead, **json.loads(options))


def _searches(game: str, lookahead: int, iterations: int, options: str) -> int:
  """The searches of the agent's enumeration at T = ``iterations`` (``behaviour.search_count``
  on a copy of ``_agent`` with that T; no search is run)."""
  counted = copy.copy(_agent(game, lookahead, options))
  counted.iterations = iterations
  return search_count(counted)


def _agent_seconds(game: str, lookahead: int, iterations: int, leaves: str = EXACT,
                   options: Optional[Dict[str, Any]] = None) -> float:
  """A rough wall time of one agent's enumeration: its searches times T iterations each."""
  searches = _searches(game, lookahead, iterations, json.dumps(options or {}, sort_keys=True))
  return (_SEARCH_ITERATION_SECONDS * searches * iterations
          * (_HEDGE_FACTOR if leaves == HEDGE else 1.0)
          * (_DECK_FACTOR if "deck_size" in game else 1.0))


def _add(out: Dict[Key, Task], key: Key, function, estimate: float, **arguments) -> None:
  """Adds the task of ``function(**arguments)`` under ``key`` (its label the key joined)."""
  out[key] = Task.make("rebel-agent", function, "-".join(str(k) for k in key), estimate,
                       **arguments)


def paper_table_tasks(plan: paper_table.PaperPlan) -> Dict[Key, Task]:
  """Measurement 7's tasks: per game the baselines, per game and seed the agent."""
  out: Dict[Key, Task] = {}
  for run in plan.runs:
    _add(out, ("paper-baselines", run.game), paper_table.baselines, 1.0, game=run.game,
         iterations=plan.baseline_iterations)
    seconds = _PAPER_SECONDS_PER_T_AND_REPLICATE * run.iterations * run.replicates
    for seed in range(plan.seeds):
      _add(out, ("paper-agent", run.game, seed), paper_table.agent_seed, seconds, game=run.game,
           lookahead=plan.lookahead, iterations=run.iterations, replicates=run.replicates,
           seed=seed, leaf_tolerance=plan.leaf_tolerance,
           leaf_max_iterations=plan.leaf_max_iterations, weighting=plan.weighting,
           tremble=plan.tremble, leaves=plan.leaves, hands=plan.hands)
  return out


def paper_learned_tasks(plan: paper_learned.LearnedPlan) -> Dict[Key, Task]:
  """Measurement 7's learned leaves: one task per seed (self-play, then both agents)."""
  out: Dict[Key, Task] = {}
  for seed in range(plan.seeds):
    _add(out, ("paper-learned", plan.game, seed), paper_learned.learned_task,
         _PAPER_LEARNED_SECONDS * plan.rounds * plan.episodes, seed=seed,
         **dataclasses.asdict(plan))
  return out


def paper_table_rows(plan: paper_table.PaperPlan, value) -> List[Dict[str, Any]]:
  """Measurement 7's rows from its tasks' results (``value``: key -> result)."""
  rows: List[Dict[str, Any]] = []
  for game in plan.games:
    rows += value(("paper-baselines", game)).to_dict("records")
    rows += [value(("paper-agent", game, seed)) for seed in range(plan.seeds)]
  return rows


def measurement_tasks(budget: str, plan: Plan, learn: bool, torch: bool,
                      seed: int) -> Dict[Key, Task]:
  """Every task of the budget by key (the frames are assembled from them by key)."""
  out: Dict[Key, Task] = {}
  add = functools.partial(_add, out)

  for setting in plan.variants:
    game, d, ts = setting.game, setting.lookahead, list(setting.iterations)
    for name, options in VARIANTS:
      for t in ts:
        add(("variant", game, d, name, t), agent, _agent_seconds(game, d, t, EXACT, options),
            budget=budget, leaves=EXACT, game=game, lookahead=d, iterations=t, options=options)
    for reference in ("linear averaging", "Linear CFR"):
      add(("cfr", game, tuple(ts), reference), cfr, 1.0, game=game, iterations=ts,
          reference=reference)
  for setting in plan.settings:
    game, d, ts = setting.game, setting.lookahead, list(setting.iterations)
    add(("cfr", game, tuple(ts), "CFR"), cfr, 1.0, game=game, iterations=ts, reference="CFR")
    for kind in plan.leaf_solvers:
      if kind == LEARNED:
        continue
      for t in ts:
        add(("agent", game, d, kind, t), agent, _agent_seconds(game, d, t, kind), budget=budget,
            leaves=kind, game=game, lookahead=d, iterations=t)
      add(("stitched", game, d, kind), stitched, _agent_seconds(game, d, max(ts), kind) / 3,
          budget=budget, leaves=kind, game=game, lookahead=d, iterations=ts)
    error_t = error_iterations(plan, ts)
    add(("errors", game, d), value_errors,
        (len(plan.deltas) + 2) * _agent_seconds(game, d, error_t), budget=budget, game=game,
        lookahead=d, iterations=error_t, seed=seed)
    if learn:
      add(("learned", game, d), learned,
          _TRAINING_SECONDS + 2 * sum(_agent_seconds(game, d, t) for t in ts),
          budget=budget, game=game, lookahead=d, iterations=ts, error_t=error_t, seed=seed)
  if torch and plan.self_play is not None:
    for key in self_play_keys(plan):
      _, deck, kind, k = key
      add(key, self_play, _SELF_PLAY_SECONDS[deck], budget=budget, deck=deck, kind=kind,
          seed=seed + k)
    for deck in plan.self_play.decks:
      add(("self-play-exact", deck), self_play_exact,
          sum(_agent_seconds(self_play_measurement.game_string(deck),
                                       self_play_measurement.LOOKAHEAD, t)
              for t in plan.self_play.final_iterations), budget=budget, deck=deck)
    add(("self-play-timing",), self_play_timing,
        _SELF_PLAY_TIMING_SECONDS * len(plan.self_play.timing_decks), budget=budget, seed=seed)
  if plan.stakes is not None:
    add(("stakes-scaling",), stakes_scaling, 2.0, budget=budget)
    if torch:
      add(("stakes",), stakes_measurement, _STAKES_SECONDS[budget], budget=budget, seed=seed)
  for game, d, t in plan.estimates:
    add(("estimate", game, d, t), estimate, _ESTIMATE_SECONDS_PER_T * t,
        budget=budget, game=game, lookahead=d, iterations=t, seed=seed)
  if torch and learned_measurement.PLANS[budget] is not None:
    for key in learned_keys(learned_measurement.PLANS[budget]):
      deck = key[1]
      cost = _LEARNED_SEED_SECONDS[deck] * _LEARNED_BUDGET_FACTOR[budget]
      if key[0] == "learned-exact":
        add(key, learned_exact, cost / 5, budget=budget, deck=deck)
      else:
        add(key, learned_seed, cost, budget=budget, deck=deck, seed=seed + key[2])
    add(("learned-timing",), learned_timing, _LEARNED_TIMING_SECONDS, budget=budget, seed=seed)
  return out
