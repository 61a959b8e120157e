"""CPU seconds to exploitability targets: our solvers against their peers, in one process.

  python -m experiments.scripts.time_to_target                 # every game (about an hour)
  python -m experiments.scripts.time_to_target --quick         # two small games, short budgets
  python -m experiments.scripts.time_to_target --games leduc_poker --seconds 30
  python -m experiments.scripts.time_to_target --from-csv docs/time_to_target.csv NEW.csv \
      --seconds 20 --out docs        # the table and figure of saved runs, NEW's rows replacing

For each game and solver the iterations run in growing chunks (each checkpoint 1.25 times the
iterations of the previous one); only the solver's own calls are timed (``time.process_time``),
after one untimed iteration of a throwaway instance (so that no run pays for compiling or
loading code), and after each chunk the average policy's exploitability is measured outside the
timed region:
NashConv / 2 for two-player zero-sum games, NashConv itself for more players (the column says
which). A run stops at the last target or when its CPU budget (``--seconds``) is spent. The time
to a target is the CPU time at the first checkpoint at or below it: an upper bound, at most 25%
above the exact crossing (one chunk). Sampled solvers run ``--seeds`` seeds and report the
median.

The measures: ours, the exact evaluator on the tree (``solver.nash_conv()``); OpenSpiel's C++
solvers, ``pyspiel.nash_conv`` of their ``average_policy()``; LiteEFG's baselines
(``harness.liteefg_solvers``, two players only), LiteEFG's own sum of best-response gains. All
three are exact best responses; they agree on the same policy (``tests/test_experiments/scripts/
test_time_to_target.py`` checks ours against OpenSpiel's on the runs of ``--quick``).

Output under ``--out``: ``time_to_target.csv`` (every checkpoint of every run),
``time_to_target.md`` (the table: CPU seconds to each target) and ``time_to_target.png``
(exploitability against CPU seconds, one panel per game). ``--from-csv`` runs nothing: it writes
the table and the figure of saved ``time_to_target.csv`` files, a later file's (game, solver)
runs replacing an earlier one's (so that a new solver's rows, run alone, join a saved table),
ordered as the games and solvers of a run.
"""

import argparse
import dataclasses
import math
import pathlib
import statistics
import time
from typing import Callable, Dict, List, Optional, Sequence

import matplotlib
import numpy as np
from open_spiel.python import policy as policy_lib
import pandas as pd
import pyspiel

import algorithms
from experiments.harness import game_loader
from experiments.harness import plotting
from experiments.harness import solver_registry
from experiments.harness import tables
from experiments.harness.liteefg_solvers import LiteEFGSolver
from experiments.harness.liteefg_solvers import liteefg_available
from spiel_games import atomic_file

GAMES = ("kuhn_poker", "leduc_poker", "kuhn_poker_ante(deck_size=13)", "kuhn_poker(players=3)",
         "liars_dice",
         "turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards=4,"
         "points_order=descending))")
QUICK_GAMES = ("kuhn_poker", "kuhn_poker(players=3)")
# Shorter names of long game strings in the table and the figure.
SHORT_NAMES = {GAMES[-1]: "goofspiel, 4 cards, imperfect information (turn-based)"}
TARGETS = (1e-3, 1e-4, 1e-6)
GROWTH = 1.25  # Each checkpoint runs to ceil(GROWTH x) iterations after x.
# Colours by algorithm (the harness's), looks by implementation.
LOOKS = {"ours": {"linestyle": "-", "linewidth": 1.6, "marker": "o", "markersize": 3},
         "OpenSpiel C++": {"linestyle": ":", "linewidth": 1.4, "marker": "x", "markersize": 4},
         "LiteEFG": {"linestyle": "--", "linewidth": 1.4}}


@dataclasses.dataclass(frozen=True)
class Peer:
  """A solver of the table: how to build it on a game and how to run and measure it.

  Attributes:
    name: the ``--solvers`` name.
    algorithm: the algorithm (the figure's colour).
    implementation: "ours", "OpenSpiel C++" or "LiteEFG" (the figure's line style).
    build: ``(game, seed) -> solver``.
    step: ``(solver, n)``: n more iterations (the timed call).
    nash_conv: ``(GameContext, solver) -> NashConv`` of its average policy (untimed).
    sampled: random iterations (run with several seeds).
    two_player_only: refuses games of more players.
    color: its colour in the figure; None for its algorithm's (``plotting.ALGORITHM_COLORS``).
  """

  name: str
  algorithm: str
  implementation: str
  build: Callable[[pyspiel.Game, int], object]
  step: Callable[[object, int], None]
  nash_conv: Callable[["GameContext", object], float]
  sampled: bool = False
  two_player_only: bool = False
  color: Optional[str] = None

  @property
  def label(self) -> str:
    return f"{self.algorithm} ({self.implementation})"

  def style(self) -> Dict[str, object]:
    return {"color": self.color or plotting.ALGORITHM_COLORS.get(self.algorithm.split(",")[0],
                                                                 "0.3"),
            **LOOKS[self.implementation]}


def _loop(method: str) -> Callable[[object, int], None]:
  """The step that makes n calls of ``solver.<method>()``."""
  def step(solver, n: int) -> None:
    call = getattr(solver, method)
    for _ in range(n):
      call()
  return step


def _ours(name: str, algorithm: str, cls_name: str, sampled: bool = False) -> Optional[Peer]:
  """One of our engine's solvers (None if this checkout lacks the class); a sampled one is
  seeded; its colour is its registry entry's, if it has one."""
  cls = getattr(algorithms, cls_name, None)
  if cls is None:
    return None
  build = (lambda game, seed: cls(game, seed=seed)) if sampled else (lambda game, seed: cls(game))
  spec = solver_registry.SOLVERS.get(name)
  return Peer(name, algorithm, "ours", build, lambda s, n: s.solve(n),
              lambda context, s: s.nash_conv(), sampled=sampled,
              color=spec.color if spec is not None else None)


class GameContext:
  """A game and, built on first use, its tree's exact evaluator and a policy template."""

  def __init__(self, game: pyspiel.Game):
    self.game = game
    self._evaluator, self._template = None, None

  def nash_conv(self, policy: policy_lib.TabularPolicy) -> float:
    """Exact NashConv of a ``TabularPolicy`` of the game (``algorithms.TreeEvaluator``)."""
    if self._evaluator is None:
      self._evaluator = algorithms.TreeEvaluator(self.game)
    return float(self._evaluator.nash_conv(policy))

  def tabulate(self, callable_policy) -> policy_lib.TabularPolicy:
    """A ``TabularPolicy`` holding ``callable_policy.action_probabilities(state)`` per row."""
    if self._template is None:
      self._template = algorithms.GameTree.from_game(self.game).tabular_policy()
    out = self._template.__copy__()
    for row, state in enumerate(out.states):
      for action, p in callable_policy.action_probabilities(state).items():
        out.action_probability_array[row, action] = p
    return out


def _cpp_cfr_nash_conv(context: GameContext, solver) -> float:
  """C++ CFR's average policy (a pyspiel TabularPolicy) by OpenSpiel's C++ NashConv."""
  return float(pyspiel.nash_conv(context.game, solver.average_policy()))


def _cpp_mccfr_nash_conv(context: GameContext, solver) -> float:
  """C++ MCCFR's average policy (queried state by state) by the exact tree evaluator."""
  return context.nash_conv(context.tabulate(solver.average_policy()))


def peers() -> Dict[str, Peer]:
  """Every solver of the table, by name (ours first, then OpenSpiel's C++, then LiteEFG's)."""
  found = [
      _ours("our_cfr", "CFR", "CFRSolver"),
      _ours("our_cfr_plus", "CFR+", "CFRPlusSolver"),
      _ours("our_dcfr", "DCFR", "DCFRSolver"),
      _ours("our_pcfr_plus", "PCFR+", "PCFRPlusSolver"),
      _ours("our_sapcfr_plus", "SAPCFR+", "SAPCFRPlusSolver"),
      _ours("our_apcfr_plus", "APCFR+", "APCFRPlusSolver"),
      _ours("our_dcfr_plus", "DCFR+", "DCFRPlusSolver"),
      _ours("our_pdcfr_plus", "PDCFR+", "PDCFRPlusSolver"),
      _ours("our_external", "MCCFR, external sampling", "ExternalSamplingSolver", sampled=True),
      Peer("cpp_cfr_plus", "CFR+", "OpenSpiel C++",
           lambda game, seed: pyspiel.CFRPlusSolver(game), _loop("evaluate_and_update_policy"),
           _cpp_cfr_nash_conv),
      Peer("cpp_external", "MCCFR, external sampling", "OpenSpiel C++",
           lambda game, seed: pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed),
           _loop("run_iteration"), _cpp_mccfr_nash_conv, sampled=True),
  ]
  for baseline, algorithm in (("cfr_plus", "CFR+"), ("dcfr", "DCFR"), ("pcfr_plus", "PCFR+")):
    found.append(Peer(f"liteefg_{baseline}", algorithm, "LiteEFG",
                      lambda game, seed, b=baseline: LiteEFGSolver(game, b),
                      _loop("evaluate_and_update_policy"),
                      lambda context, s: s.average_nash_conv(), two_player_only=True))
  return {p.name: p for p in found if p is not None}


def measure(context: GameContext, peer: Peer, seed: int, seconds: float,
            targets: Sequence[float]) -> List[Dict[str, float]]:
  """The checkpoints of one run: iterations, CPU seconds of the solver's calls, the measure."""
  peer.step(peer.build(context.game, seed), 1)  # compiles (or loads) code paths, untimed
  solver = peer.build(context.game, seed)
  players = context.game.num_players()
  rows, done, spent = [], 0, 0.0
  while spent < seconds:
    target_iterations = max(done + 1, math.ceil(done * GROWTH))
    start = time.process_time()
    peer.step(solver, target_iterations - done)
    spent += time.process_time() - start
    done = target_iterations
    nash_conv = peer.nash_conv(context, solver)  # untimed
    value = nash_conv / 2 if players == 2 else nash_conv
    rows.append({"iterations": done, "cpu_seconds": spent, "value": value})
    if value <= min(targets):
      break
  return rows


def time_to(rows: Sequence[Dict[str, float]], target: float) -> float:
  """CPU seconds at the first checkpoint at or below ``target``; inf if never reached."""
  return next((r["cpu_seconds"] for r in rows if r["value"] <= target), math.inf)


def run(games: Sequence[str], names: Sequence[str], seconds: float, seeds: int,
        targets: Sequence[float] = TARGETS) -> pd.DataFrame:
  """Every checkpoint of every (game, solver, seed) run, one row each."""
  available = peers()
  records = []
  for text in games:
    game = game_loader.load_game(text, two_player_zero_sum=False)
    context = GameContext(game)
    for name in names:
      peer = available[name]
      if peer.two_player_only and game.num_players() != 2:
        continue
      for seed in range(seeds if peer.sampled else 1):
        for row in measure(context, peer, seed, seconds, targets):
          records.append({"game": text, "solver": name, "label": peer.label, "seed": seed,
                          **row})
        print(f"{text:>30} {peer.label:>42} seed {seed}: {records[-1]['value']:.3e} after "
              f"{records[-1]['iterations']:,} iterations, {records[-1]['cpu_seconds']:.2f} s",
              flush=True)
  return pd.DataFrame(records)


def summary(frame: pd.DataFrame, seconds: float,
            targets: Sequence[float] = TARGETS) -> pd.DataFrame:
  """The table: per game and solver, the median over seeds of the CPU seconds to each target."""
  rows = []
  for (game, _), runs in frame.groupby(["game", "solver"], sort=False):
    row = {"game": SHORT_NAMES.get(game, f"`{game}`"), "solver": runs["label"].iloc[0]}
    for target in targets:
      times = [time_to(r.to_dict("records"), target) for _, r in runs.groupby("seed")]
      median = statistics.median(times)
      row[f"CPU s to {target:g}"] = (f"{median:.3g}" if math.isfinite(median)
                                     else f"> {seconds:g}")
    last = runs.groupby("seed").tail(1)
    row["measure"] = "NashConv" if "players=3" in game else "exploitability"
    row["final"] = f"{statistics.median(last['value']):.2e}"
    rows.append(row)
  return pd.DataFrame(rows)


def figure(frame: pd.DataFrame, targets: Sequence[float] = TARGETS) -> matplotlib.figure.Figure:
  """Exploitability (NashConv for more players) against CPU seconds, one panel per game."""
  available = peers()
  games = list(dict.fromkeys(frame["game"]))
  cols = min(3, len(games))
  rows = math.ceil(len(games) / cols)
  fig, axes = plotting.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows))
  axes = np.atleast_1d(axes).ravel()
  for ax, game in zip(axes, games):
    runs = frame[frame["game"] == game]
    seeds = runs.groupby("solver")["seed"].nunique()
    for (solver, seed), run_rows in runs.groupby(["solver", "seed"], sort=False):
      style = available[solver].style()
      label = run_rows["label"].iloc[0]
      if seeds[solver] > 1:  # A sampled solver: one thin line per seed, none drawn over.
        style = {**style, "linewidth": 0.8, "alpha": 0.8, "markersize": 1.5}
        label = f"{label}, {seeds[solver]} seeds (thin lines)"
      ax.plot(run_rows["cpu_seconds"], run_rows["value"], label=label if seed == 0 else None,
              **style)
    for target in targets:
      ax.axhline(target, color="0.6", linewidth=0.6, linestyle=":")
    measure_name = "NashConv" if "players=3" in game else "exploitability"
    plotting.log_log(ax, "CPU time", measure_name, xunit="s")
    ax.set_title(SHORT_NAMES.get(game, game), fontsize=9)
  for ax in axes[len(games):]:
    ax.set_visible(False)
  plotting.legend_below(fig, ncol=3)
  fig.suptitle("Time to target: exploitability (NashConv with three players) against the "
               "solver's own CPU seconds; dotted: the targets")
  return fig


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
  parser.add_argument("--games", nargs="+", default=None, help="game strings (default: all six)")
  parser.add_argument("--solvers", nargs="+", default=None,
                      help=f"solver names (default: all available): {', '.join(peers())}")
  parser.add_argument("--seconds", type=float, default=None,
                      help="CPU budget of each run (default 60, --quick 2)")
  parser.add_argument("--seeds", type=int, default=3, help="seeds of each sampled solver")
  parser.add_argument("--quick", action="store_true", help="two small games, short budgets")
  parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("results/time_to_target"))
  parser.add_argument("--from-csv", nargs="+", type=pathlib.Path, default=None,
                      help="run nothing: the table and figure of these saved runs' CSV files")
  args = parser.parse_args(argv)
  missing = [str(path) for path in args.from_csv or () if not path.is_file()]
  if missing:
    parser.error(f"--from-csv: no such file {missing[0]}")
  known = peers()
  if not liteefg_available():
    known = {k: v for k, v in known.items() if not k.startswith("liteefg_")}
  unknown = [s for s in args.solvers or () if s not in known]
  if unknown:
    parser.error(f"unknown solver {unknown[0]!r}; allowed: {', '.join(known)}")
  args.solvers = args.solvers or list(known)
  args.games = args.games or list(QUICK_GAMES if args.quick else GAMES)
  args.seconds = args.seconds if args.seconds is not None else (2.0 if args.quick else 60.0)
  if args.seconds <= 0 or args.seeds < 1:
    parser.error("--seconds must be > 0 and --seeds >= 1")
  return args


def merged(paths: Sequence[pathlib.Path]) -> pd.DataFrame:
  """The runs of saved CSV files, a later file's (game, solver) runs replacing an earlier
  one's, ordered by game (``GAMES``, then first appearance) and solver (``peers()``)."""
  frame = pd.concat([pd.read_csv(path).assign(_file=i) for i, path in enumerate(paths)],
                    ignore_index=True)
  frame = frame[frame["_file"] == frame.groupby(["game", "solver"])["_file"].transform("max")]
  games = list(dict.fromkeys([*GAMES, *frame["game"]]))
  solvers = list(dict.fromkeys([*peers(), *frame["solver"]]))
  order = frame["game"].map(games.index) * len(solvers) + frame["solver"].map(solvers.index)
  return (frame.assign(_order=order).sort_values("_order", kind="stable")
          .drop(columns=["_file", "_order"]).reset_index(drop=True))


def main(argv: Optional[Sequence[str]] = None) -> pd.DataFrame:
  """Runs the table (or reads it, ``--from-csv``); writes the CSV, the markdown table and the
  figure; returns the summary."""
  args = parse_args(argv)
  frame = (merged(args.from_csv) if args.from_csv
           else run(args.games, args.solvers, args.seconds, args.seeds))
  table = summary(frame, args.seconds)
  args.out.mkdir(parents=True, exist_ok=True)
  atomic_file.atomic_write_text(args.out / "time_to_target.csv", frame.to_csv(index=False))
  atomic_file.atomic_write_text(args.out / "time_to_target.md",
                                tables.markdown_table(table) + "\n")
  plotting.save_figure(figure(frame), args.out / "time_to_target.png")
  print(tables.markdown_table(table))
  return table


if __name__ == "__main__":
  main()
