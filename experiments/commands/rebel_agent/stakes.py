"""Measurement 4: one value function for a range of stakes, on a deck where exact leaves cost time.

The game is ``kuhn_poker_ante`` with ``StakesPlan.deck`` cards: 13 in every budget, the smallest
deck the issue allows, chosen by the measured cost (``deck_frame``): the exact LP of the
two-player leaf ``p`` costs milliseconds at any deck, its fixed cost dominating (measured 2.7 ms at
3 cards, 3.3 at 13, 8.7 at 52), while the network's cost grows with its D = N (N - 1) inputs and
outputs, so the network's advantage is about 47x from 3 to 13 cards and shrinks beyond (23x at
52): a larger deck only makes every LP label, network and enumerated agent costlier. The stakes
are ante = r, bet = 1 for an ante/bet ratio r; in units of ante + bet the game depends on r alone
(``learning.value_network``'s module docstring), so a ratio names a game up to scale.

* ``family_models``: one ``PBSValueFunction`` per cut the agent's searches reach (depth 1: leaves
  ``p`` and ``b``; depth 2: ``pb``), each a family model (``LeafDomain.stakes``) over the lowest
  to highest training ratio, with rho = ante / (ante + bet) as an input. Its data at each training
  ratio: ``examples`` random PBSs per leaf (``dataset.supervised_dataset``) and every leaf PBS that
  the exact-leaf agent's searches evaluate at the plan's ``visits`` (``dataset.visited_dataset``),
  all labelled by the exact LP. The unseen ratios lie strictly inside the range: interpolation is
  measured, extrapolation is not (a family model refuses stakes outside its range).
* ``stakes_frame``: at every seen and unseen ratio and every (lookahead, T) of ``agents``, the
  agent with exact LP leaves and with the family models (``agent.values_by_cut.ByLeaf``),
  measured exactly (``measure.agent_row``: the enumerated behaviour strategy, OpenSpiel's
  exploitability and the tree evaluator's), and the learned values' mean on-path error on the
  leaf PBSs of the exact-leaf agent at the same stakes and T (``measure.value_error``).
* ``timing_frame``: at ``timing_ratio``, the CPU time of one leaf evaluation, exact solver (the LP
  at a two-player leaf, a best response at a one-player leaf) against the network, per leaf
  (mean over random PBSs after one warm-up call), and of whole searches of T =
  ``timing_iterations`` with either kind of leaf (the root search of each lookahead, and the
  search at each leaf of it that has leaves of its own; the least of 3 runs), and of the whole
  agent (every search that ``behaviour_strategy`` runs, one run).
* ``deck_frame``: the deck's choice, measured: at each of ``timing_decks``, the CPU time of one
  evaluation of the two-player leaf ``p`` by the exact LP and by an untrained network of the
  models' widths (its cost does not depend on its weights).
* ``scaling_check``: the exact-leaf agent at stakes (2 r, 2) against (r, 1): every payoff doubles,
  so its exploitability must double (factor 2 is exact in binary floating point, so every
  comparison and tie of the two runs is the same).
"""

import time
from typing import Callable, Dict, List, Sequence

import numpy as np
import pandas as pd

from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.agent import exact_leaf_solver
from algorithms.rebel.agent.agent import splits_ties
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import search_count
from algorithms.rebel.agent.values_by_cut import ByLeaf
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.dataset import RecordingLeafSolver
from algorithms.rebel.learning.dataset import sample_beliefs
from algorithms.rebel.learning.dataset import supervised_dataset
from algorithms.rebel.learning.dataset import visited_dataset
from algorithms.rebel.learning.training import Trainer
from algorithms.rebel.learning.training import TrainingOptions
from algorithms.rebel.learning.training import train
from algorithms.rebel.learning.value_network import PBSValueFunction
from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.leaves.leaf_values import ValueFunctionLeafSolver
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from algorithms.rebel.public_tree import LeafSubgame
from experiments.commands.rebel_agent import measure
from experiments.commands.rebel_agent.leaf_solvers import leaf_depths
from experiments.commands.rebel_agent.plan import EXACT
from experiments.commands.rebel_agent.plan import LEARNED
from experiments.commands.rebel_agent.plan import StakesPlan
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness.checks import Check

SEARCH_REPEATS = 3  # A timed search is the least of this many runs.


def game_string(deck: int, ratio: float, scale: float = 1.0) -> str:
  """``kuhn_poker_ante`` with ``deck`` cards at ante = scale r, bet = scale."""
  return f"kuhn_poker_ante(ante={float(scale * ratio)!r},bet={float(scale)!r},deck_size={deck})"


def label(deck: int, ratio: float, lookahead: int) -> str:
  return f"{deck} cards, ante/bet {ratio:g}, lookahead {lookahead}"


def depths(plan: StakesPlan) -> List[int]:
  """The cuts whose leaves the measured agents' searches reach."""
  game = game_string(plan.deck, plan.trained[0])
  return sorted({d for lookahead, _ in plan.agents for d in leaf_depths(game, lookahead)})


def visited_records(plan: StakesPlan, ratio: float, max_searches: int) -> list:
  """Every (leaf, belief, values) the exact-leaf agent's searches evaluate at the ``visits``."""
  game = game_loader.load_game(game_string(plan.deck, ratio))
  recorder = RecordingLeafSolver(exact_leaf_solver())
  for lookahead, iterations in plan.visits:
    for t in iterations:
      behaviour_strategy(ReBeLAgent(game, lookahead=lookahead, iterations=t,
                                    leaf_solver=recorder), max_searches=max_searches)
  return recorder.records


def family_models(plan: StakesPlan, folder, seed: int,
                  max_searches: int) -> Dict[int, PBSValueFunction]:
  """The family model of every cut in ``depths(plan)``, trained and saved in ``folder``."""
  records = {ratio: visited_records(plan, ratio, max_searches) for ratio in plan.trained}
  stakes = (min(plan.trained), max(plan.trained))
  models = {}
  for depth in depths(plan):
    parts = []
    for k, ratio in enumerate(plan.trained):
      tree, domain = cut_of(game_loader.load_game(game_string(plan.deck, ratio)), depth)
      parts += [supervised_dataset(tree, plan.examples, seed + k),
                visited_dataset(records[ratio], domain)]
    data = Dataset.concatenate(parts)
    _, family = cut_of(game_loader.load_game(game_string(plan.deck, plan.trained[0])), depth,
                       stakes)
    options = TrainingOptions(hidden=plan.hidden, steps=plan.steps, seed=seed)
    model = train(family, data, options, {"trained": list(plan.trained), "depth": depth,
                                          "random_examples": plan.examples,
                                          "visits": [list(v) for v in plan.visits]})
    folder.mkdir(parents=True, exist_ok=True)
    model.save(str(folder / f"stakes-{plan.deck}cards-d{depth}.npz"))
    models[depth] = model
  return models


def learned_solver(plan: StakesPlan, models: Dict[int, PBSValueFunction], ratio: float,
                   lookahead: int) -> ValueFunctionLeafSolver:
  """The agent's leaves from the family models of the cuts its searches reach."""
  game = game_string(plan.deck, ratio)
  return ValueFunctionLeafSolver(ByLeaf([models[d] for d in leaf_depths(game, lookahead)]),
                                 split_ties=splits_ties())


def stakes_frame(plan: StakesPlan, models: Dict[int, PBSValueFunction], seed: int,
                 max_searches: int) -> pd.DataFrame:
  """Rows (setting, stakes, trained on, lookahead, leaf solver, iterations, exploitability, ...)
  of the agent with exact and learned leaves at every seen and unseen ratio; the learned rows
  also hold the learned values' on-path error (``measure.value_error``) on a fixed-seed sample
  of the leaf PBSs that the exact-leaf agent's searches evaluated at the same stakes and T."""
  rows = []
  for ratio in plan.seen + plan.unseen:
    for lookahead, iterations in plan.agents:
      base = {"setting": label(plan.deck, ratio, lookahead), "kind": "agent",
              "stakes": ratio, "trained on": "yes" if ratio in plan.trained else "no",
              "lookahead": lookahead}
      learned = learned_solver(plan, models, ratio, lookahead)
      for t in iterations:
        recorder = RecordingLeafSolver(exact_leaf_solver(), measure.ON_PATH_SAMPLE, seed)
        for kind, solver in ((EXACT, recorder), (LEARNED, learned)):
          row = measure.agent_row(game_string(plan.deck, ratio), lookahead, t, solver,
                                  max_searches)
          if kind == LEARNED:
            row["value error"] = measure.value_error(learned.value_function, recorder.records)
          rows.append(dict(base, **{"leaf solver": kind, "iterations": t}, **row))
  return pd.DataFrame(rows)


def ratio_table(frame: pd.DataFrame) -> pd.DataFrame:
  """Per stakes, lookahead and T: the exact and learned agents, learned / exact, and the learned
  values' on-path error."""
  keys = ["stakes", "trained on", "lookahead", "iterations"]
  table = frame.pivot_table(index=keys, columns="leaf solver", values="exploitability",
                            sort=False).reset_index()
  table["learned / exact"] = table[LEARNED] / table[EXACT]
  errors = frame[frame["leaf solver"] == LEARNED][keys + ["value error"]]
  return table.merge(errors, on=keys).rename(columns={
      EXACT: "exact LP leaves", LEARNED: "learned leaves", "stakes": "ante/bet",
      "iterations": "T", "value error": "on-path value error of the learned values (chips)"})


def _cpu_seconds(call: Callable, *args) -> float:
  """CPU seconds of this process spent in ``call(*args)``."""
  start = time.process_time()
  call(*args)
  return time.process_time() - start


def _per_call(solve, leaf: LeafSubgame, beliefs: Sequence[np.ndarray]) -> float:
  """Mean CPU seconds of ``solve(leaf, belief)`` over ``beliefs``, after one warm-up call."""
  solve(leaf, beliefs[0])
  start = time.process_time()
  for belief in beliefs:
    solve(leaf, belief)
  return (time.process_time() - start) / len(beliefs)


def timing_frame(plan: StakesPlan, models: Dict[int, PBSValueFunction], seed: int,
                 max_searches: int) -> pd.DataFrame:
  """Rows (what, roots, exact solver, exact ms, network ms, speed-up): one leaf evaluation per
  leaf, then whole searches and the whole agent per lookahead (module docstring)."""
  game = game_loader.load_game(game_string(plan.deck, plan.timing_ratio))
  rng = np.random.default_rng(seed)
  rows = []
  lp = SequenceFormLPSolver()
  for depth, model in sorted(models.items()):
    tree, _ = cut_of(game, depth)
    for leaf in tree.leaves:
      beliefs = [b[leaf.deals] for b in sample_beliefs(leaf, plan.timing_beliefs, rng)]
      exact = _per_call(lp, leaf, beliefs)
      network = _per_call(model.root_values, leaf, beliefs)
      solver = "LP" if len(leaf.acting_players) == 2 else "best response"
      rows.append({"what": f"one evaluation of leaf {leaf.public_state}", "roots": leaf.num_roots,
                   "exact solver": solver, "exact (ms)": 1e3 * exact,
                   "network (ms)": 1e3 * network})
  for lookahead, _ in plan.agents:
    rows += _search_rows(plan, models, game, lookahead, max_searches)
  frame = pd.DataFrame(rows)
  frame["speed-up (exact / network)"] = frame["exact (ms)"] / frame["network (ms)"]
  return frame


def deck_frame(plan: StakesPlan, seed: int) -> pd.DataFrame:
  """Rows (cards, roots, exact LP ms, network ms, speed-up) of leaf ``p`` per deck size."""
  rows = []
  for deck in plan.timing_decks:
    game = game_loader.load_game(game_string(deck, plan.timing_ratio))
    tree, family = cut_of(game, 1, (min(plan.trained), max(plan.trained)))
    (leaf,) = [leaf for leaf in tree.leaves if len(leaf.acting_players) == 2]
    network = Trainer(family, TrainingOptions(hidden=plan.hidden, seed=seed)).model()
    beliefs = [b[leaf.deals] for b in sample_beliefs(leaf, plan.timing_beliefs,
                                                     np.random.default_rng(seed))]
    exact = _per_call(SequenceFormLPSolver(), leaf, beliefs)
    rows.append({"cards": deck, "leaf": leaf.public_state, "roots": leaf.num_roots,
                 "exact LP (ms)": 1e3 * exact,
                 "network (ms)": 1e3 * _per_call(network.root_values, leaf, beliefs)})
  frame = pd.DataFrame(rows)
  frame["speed-up (exact / network)"] = frame["exact LP (ms)"] / frame["network (ms)"]
  return frame


def _search_rows(plan: StakesPlan, models: Dict[int, PBSValueFunction], game, lookahead: int,
                 max_searches: int) -> List[dict]:
  """The root search of the lookahead, the searches at its leaves that have leaves of their own
  (from the root's last iterate) and the whole agent (every search of ``behaviour_strategy``),
  timed with exact and with learned leaves."""
  t = plan.timing_iterations
  agents = {kind: ReBeLAgent(game, lookahead=lookahead, iterations=t, leaf_solver=solver)
            for kind, solver in ((EXACT, None),
                                 (LEARNED, learned_solver(plan, models, plan.timing_ratio,
                                                          lookahead)))}
  exact_agent = agents[EXACT]
  root, belief = exact_agent.root()
  searches = [("root", root, belief)]
  last = exact_agent.plays(root, belief)[-1]
  for leaf in root.leaves:
    below, below_belief = exact_agent.next_search(root, leaf, belief, last)
    if below.leaves:
      searches.append((below.public_state, below, below_belief))
  rows = []
  for where, search, search_belief in searches:
    seconds = {kind: min(_cpu_seconds(agent.plays, search, search_belief)
                         for _ in range(SEARCH_REPEATS)) for kind, agent in agents.items()}
    leaves = ", ".join(leaf.leaf.public_state for leaf in search.leaves)
    rows.append({"what": f"search at {where} (lookahead {lookahead}, T={t}, leaves {leaves})",
                 "roots": search.num_roots, "exact solver": "",
                 "exact (ms)": 1e3 * seconds[EXACT], "network (ms)": 1e3 * seconds[LEARNED]})
  seconds = {kind: _cpu_seconds(behaviour_strategy, agent, max_searches)
             for kind, agent in agents.items()}
  rows.append({"what": f"the whole agent (lookahead {lookahead}, T={t}: "
                       f"{search_count(exact_agent)} searches, every draw)",
               "roots": 1, "exact solver": "", "exact (ms)": 1e3 * seconds[EXACT],
               "network (ms)": 1e3 * seconds[LEARNED]})
  return rows


def scaling_check(plan: StakesPlan, max_searches: int) -> Check:
  """The exact-leaf agent at stakes (2 r, 2) is twice as exploitable as at (r, 1) (module
  docstring), at the timing ratio, the last lookahead and its smallest T."""
  lookahead, iterations = plan.agents[-1]
  t = min(iterations)
  values = [measure.agent_row(game_string(plan.deck, plan.timing_ratio, scale), lookahead, t,
                              None, max_searches)["exploitability"]
            for scale in (1.0, 2.0)]
  return checks.same_number(
      f"{label(plan.deck, plan.timing_ratio, lookahead)}, exact leaves, T={t}: exploitability "
      "at stakes (2 ante, 2 bet)", values[1], 2 * values[0],
      "2 x the exploitability at (ante, bet): every payoff is linear in (ante, bet)")
