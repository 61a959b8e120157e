"""Measurement 7: ReBeL's agent on Liar's Dice against the paper's own table.

The ReBeL paper (Brown, Bakhtin, Lerer, Gong, NeurIPS 2020, arXiv 2007.13544, Section 7) measures
on four Liar's Dice variants (1 die of 4, 5 or 6 faces; 2 dice of 3 faces) the exploitability of
full-game CFR and fictitious play after 1,024 iterations and of ReBeL with CFR-D searches on
subgames of depth 2 (two player actions) with 1,024 iterations each, its policy averaged over
many playthroughs (an upper estimate in expectation). Per game (any game with a public-state
view, ``algorithms.rebel.public_views``):

* full-game CFR (``CFRSolver``, OpenSpiel's ``cfr`` iterates) and fictitious play
  (``algorithms.rebel.fictitious_play``, OpenSpiel's XFP iterates) after ``baseline_iterations``,
  each by OpenSpiel's ``exploitability.exploitability`` (NashConv / 2), checked against the
  project's ``TreeEvaluator`` and, for CFR's value, against the sequence-form LP's game value;
* the agent as ReBeL's released evaluation runs it (facebookresearch/rebel,
  csrc/liars_dice/recursive_eval.cc with ``--cfr``, and scripts/eval_all.py: ``mdp_depth`` 2,
  ``subgame_iters`` 1,024, ``num_repeats`` 1,024): ``ReBeLAgent`` with CFR-D searches at the
  plan's lookahead, Linear CFR (the released ``linear_update`` weights the regrets and the
  average by t, ``weighting="linear_cfr"``), alternating updates, T rounds (the released code
  counts single-player steps: its 1,024 are T = 512 rounds), the drawn round's current policy
  played and passed on, a new search at every leaf of the previous one, leaf beliefs from the
  untrembled reaches (the released code adds 1e-80 to every reach as it normalises a belief:
  ``tremble`` 0, where the project's agent trembles by 1e-6 by default); with its leaves
  solved together to a stated accuracy (``leaves.forest``; the largest bound on a leaf's gap is
  reported, and a leaf call that the iteration cap stopped above the
  tolerance fails a check), one row per seed of its draws
  (``agent.estimate.estimate_exploitability`` with every draw sampled): "paper protocol" is the
  exploitability of the average of ``replicates`` sampled strategies, each a fresh draw at every
  search (ReBeL's released evaluation: biased upward, the more so the fewer the replicates),
  checked against OpenSpiel's exploitability of the same policy; "lower bound" is the lower end
  of the 95% interval of the exploitability by fixed best responses to that average (from another
  ``replicates`` replicates), at most the agent's own exploitability. The paper protocol's
  estimate after 1, 2, 4, ... of the strategies (``split_rows``'s curve) shows how its upward
  bias falls with the strategies averaged.

The paper's numbers of ReBeL (CFR-D) (``PAPER``) are those of its Liar's Dice table as secondary
summaries give them: the table itself was not readable here.
"""

import dataclasses
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from open_spiel.python.algorithms import exploitability
import pandas as pd

from algorithms.cfr.solvers import CFRSolver
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.exact.sequence_form_lp import solve_game
from algorithms.rebel import public_views
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.agent.estimate import estimate_exploitability
from algorithms.rebel.fictitious_play import FictitiousPlaySolver
from algorithms.rebel.leaf_step import check_choice
from algorithms.rebel.leaves.forest import ForestCFRLeafSolver
from experiments.commands.rebel_agent import measure
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness.checks import Check

LD_1X4 = "liars_dice(numdice=1,dice_sides=4)"
LD_1X5 = "liars_dice(numdice=1,dice_sides=5)"
LD_1X6 = "liars_dice(numdice=1,dice_sides=6)"
LD_2X3 = "liars_dice(numdice=2,dice_sides=3)"
LEDUC = "leduc_poker"
CFR, FP, AGENT = "full-game CFR", "full-game FP", "ReBeL (CFR-D)"
# ReBeL (CFR-D) in the paper's Liar's Dice table, as secondary summaries give it.
PAPER = {LD_1X4: 0.017, LD_1X5: 0.015, LD_1X6: 0.024, LD_2X3: 0.017}


@dataclasses.dataclass(frozen=True)
class PaperRun:
  """One game of measurement 7: the agent's T (rounds of alternating updates; the released code
  counts single-player steps, 2T) and the sampled strategies of each estimate."""

  game: str
  iterations: int
  replicates: int


@dataclasses.dataclass(frozen=True)
class PaperPlan:
  """Measurement 7's budget.

  Attributes:
    runs: the games with their T and replicates (the paper's settings where affordable).
    lookahead: d of every search.
    weighting: the agent's weighting (``ReBeLAgent``): "linear_cfr", the released code's
      ``linear_update`` (Linear CFR: the regrets and the average weighted by t).
    baseline_iterations: the iterations of full-game CFR and FP.
    seeds: the seeds of the agent's draws, one row each.
    leaf_tolerance: the stopping gap of the union of a search's leaves (``leaves.forest``), in
      units of the game's largest payoff (1 in Liar's Dice, 13 chips in Leduc poker).
    leaf_max_iterations: the most CFR iterations of one leaf call, whatever the gap (a call that
      stops there fails the accuracy check).
    tremble: the agent's tremble (``ReBeLAgent``): 0, the released code's (its beliefs add
      1e-80 to each reach, csrc/liars_dice/subgame_solving.h's ``kReachSmoothingEps``).
    leaves: the exact leaf solver (``LEAVES``): "forest", a search's leaves solved together by
      warm-started CFR to ``leaf_tolerance`` (``leaves.forest``), or "lp", each leaf's
      sequence-form LP (the agent's default exact solver, ``agent.exact_leaf_solver``), about ten
      times slower per search on 1 die of 4 faces. Both are exact leaves, but a leaf's
      equilibrium is not unique and the agent's exploitability depends on which one a solver
      returns (docs/rebel.md).
    hands: the hands the agent plays against itself, every search run, for its CPU time per
      hand (after one warm-up hand).
  """

  runs: Tuple[PaperRun, ...]
  lookahead: int
  baseline_iterations: int
  seeds: int
  leaf_tolerance: float
  weighting: str = "linear_cfr"
  leaf_max_iterations: int = 50_000
  tremble: float = 0.0
  leaves: str = "forest"
  hands: int = 4

  @property
  def games(self) -> Tuple[str, ...]:
    return tuple(run.game for run in self.runs)


LEAVES = ("forest", "lp")
# The paper's search: 1,024 single-player steps = T = 512 rounds; its estimate averages 1,024
# sampled strategies. Only 1 die of 4 faces comes near that here (about 2.4 CPU s per strategy
# at T = 512); the larger games run at T = 16 (1x6f: 72 s per strategy, 2x3f: 210 s).
PLANS = {
    "quick": PaperPlan((PaperRun(LD_1X4, 16, 2),), 2, 1024, 5, 1e-5, hands=1),
    "default": PaperPlan((PaperRun(LD_1X4, 32, 16),), 2, 1024, 5, 1e-5),
    "full": PaperPlan((PaperRun(LD_1X4, 512, 64), PaperRun(LD_1X5, 16, 8),
                       PaperRun(LD_1X6, 16, 4), PaperRun(LD_2X3, 16, 2),
                       PaperRun(LEDUC, 64, 16)), 2, 1024, 5, 1e-5),
}


def plan_for(budget: str, games: Optional[Sequence[str]]) -> PaperPlan:
  """The budget's plan, on ``games`` instead of its own when given (``--game``: each at the
  budget's first T and replicates)."""
  plan = PLANS[budget]
  if not games:
    return plan
  first = plan.runs[0]
  return dataclasses.replace(plan, runs=tuple(dataclasses.replace(first, game=game)
                                              for game in games))


def check_public_game(text: str) -> None:
  """Accepts a two-player zero-sum game string with a public-state view.

  Raises:
    ValueError: naming the problem (a bad string, or the games that have a view).
  """
  game = game_loader.load_game(text)
  public_views.public_state_function(game)


def baselines(game: str, iterations: int) -> pd.DataFrame:
  """Full-game CFR and FP after ``iterations`` (module docstring), with their references."""
  loaded = game_loader.load_game(game)
  evaluator = None
  rows = []
  for method, solver in ((CFR, CFRSolver(loaded)), (FP, FictitiousPlaySolver(loaded))):
    start = time.process_time()
    step = solver.evaluate_and_update_policy if method == CFR else solver.iteration
    for _ in range(iterations):
      step()
    average = solver.average_policy()
    value = exploitability.exploitability(loaded, average)
    seconds = time.process_time() - start
    evaluator = evaluator or TreeEvaluator(loaded)
    rows.append({"game": game, "method": method, "iterations": iterations, "seed": 0,
                 "exploitability": float(value), "reference": evaluator.exploitability(average),
                 "policy_value": float(evaluator.policy_values(average)[0]),
                 "lower_bound": float("nan"),
                 "replicates": 0, "searches": 0, "leaf_gap": float("nan"),
                 "cpu_seconds": seconds, "capped_leaf_calls": 0})
  return pd.DataFrame(rows)


def agent_seed(game: str, lookahead: int, iterations: int, replicates: int, seed: int,
               leaf_tolerance: float, leaf_max_iterations: int, weighting: str,
               tremble: float, leaves: str, hands: int) -> Dict[str, Any]:
  """The agent's row for one seed of its draws (module docstring), with the paper protocol's
  estimate after every power of two of the sampled strategies (``plug_in_curve``) and the CPU
  time of a hand it plays against itself (``measure.cpu_per_hand``: ``hands`` hands, every search
  run, on an agent of its own; NaN for 0 hands, not timed)."""
  check_choice("leaves", leaves, LEAVES)
  loaded = game_loader.load_game(game)

  def new_agent(cache_size: int) -> ReBeLAgent:
    solver = (ForestCFRLeafSolver(tolerance=leaf_tolerance * loaded.max_utility(),
                                  max_iterations=leaf_max_iterations)
              if leaves == "forest" else exact_leaf_solver())
    return ReBeLAgent(loaded, lookahead=lookahead, iterations=iterations, leaf_solver=solver,
                      weighting=weighting, tremble=tremble, cache_size=cache_size)

  agent = new_agent(1_000_000)
  start = time.process_time()
  estimate = estimate_exploitability(agent, replicates=replicates, exact_levels=0, seed=seed)
  seconds = time.process_time() - start
  openspiel = exploitability.exploitability(loaded, tabular_policy(agent, estimate.behaviour))
  return {"game": game, "method": AGENT, "iterations": iterations, "seed": seed,
          "exploitability": float(estimate.plug_in), "reference": float(openspiel),
          "policy_value": float("nan"), "lower_bound": float(estimate.interval[0]),
          "replicates": replicates, "searches": agent.searches_run,
          "leaf_gap": agent.leaf_solver.largest_gap, "cpu_seconds": seconds,
          "cpu_per_hand": (measure.cpu_per_hand(new_agent(0), hands, seed) if hands > 0
                           else float("nan")),
          "capped_leaf_calls": agent.leaf_solver.capped_calls,
          "plug_in_curve": [list(point) for point in estimate.plug_in_curve]}


def split_rows(rows: Sequence[Dict[str, Any]]) -> Tuple[pd.DataFrame, pd.DataFrame]:
  """Measurement 7's rows as two frames: one row per baseline and per agent seed, and the paper
  protocol's estimate against the sampled strategies averaged (a row per game, seed and count,
  from the agent rows' ``plug_in_curve``)."""
  data = pd.DataFrame([{k: v for k, v in r.items() if k != "plug_in_curve"} for r in rows])
  curve = pd.DataFrame([{"game": r["game"], "seed": r["seed"], "T": r["iterations"],
                         "strategies": int(n), "exploitability": float(value)}
                        for r in rows if "plug_in_curve" in r for n, value in r["plug_in_curve"]])
  return data, curve


def paper_checks(data: pd.DataFrame) -> List[Check]:
  """OpenSpiel's exploitability against the tree evaluator (baselines) and against the
  estimate's own plug-in (agent); CFR's policy value against the LP's game value, within its
  NashConv; no leaf call stopped by the iteration cap above the tolerance."""
  out = []
  for r in data.itertuples():
    name = f"measurement 7 {r.game} {r.method}" + (f" seed {r.seed}" if r.method == AGENT else "")
    out.append(checks.same_number(f"{name} exploitability", r.exploitability, r.reference,
                                  "OpenSpiel's exploitability" if r.method == AGENT else
                                  "the project's TreeEvaluator"))
    if r.method == CFR:
      game_value = solve_game(game_loader.load_game(r.game)).value
      out.append(checks.within_nash_conv(f"{name} value", r.policy_value, game_value,
                                         2 * r.exploitability, "sequence-form LP game value"))
    if r.method == AGENT:
      out.append(checks.at_most(f"{name} leaf calls stopped above the tolerance",
                                r.capped_leaf_calls, 0, "the forest solver's stopping rule"))
  return out


def table(data: pd.DataFrame) -> pd.DataFrame:
  """A row per game: the baselines, the agent's median over the seeds with its range, the
  median lower bound, the paper's ReBeL (CFR-D) and the difference, and the agent's CPU time per
  search (its estimates' CPU time over the searches they ran, the best responses included) and
  per hand against itself (the median over the seeds)."""
  rows = []
  for game, group in data.groupby("game", sort=False):
    by = {m: g for m, g in group.groupby("method")}
    agent = by[AGENT]["exploitability"]
    median = float(agent.median())
    paper = PAPER.get(game, float("nan"))
    rows.append({"game": game, CFR: float(by[CFR]["exploitability"].iloc[0]),
                 FP: float(by[FP]["exploitability"].iloc[0]),
                 "T (rounds)": int(by[AGENT]["iterations"].iloc[0]),
                 "replicates": int(by[AGENT]["replicates"].iloc[0]),
                 "ReBeL, paper protocol (median)": median,
                 "range over seeds": f"[{agent.min():.4g}, {agent.max():.4g}]",
                 "lower bound (median)": float(by[AGENT]["lower_bound"].median()),
                 "paper's ReBeL (CFR-D)": paper, "ours - paper": median - paper,
                 "seeds": len(agent),
                 "CPU s per search": float(by[AGENT]["cpu_seconds"].sum() /
                                           by[AGENT]["searches"].sum()),
                 "CPU s per hand (median)": float(by[AGENT]["cpu_per_hand"].median())})
  return pd.DataFrame(rows)
