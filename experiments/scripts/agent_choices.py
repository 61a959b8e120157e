"""Two choices of ReBeL's exact-leaf agent measured: one-player ties with trembles, averaging.

  python -m experiments.scripts.agent_choices                 # lookahead 1, T = 30 and 100
  python -m experiments.scripts.agent_choices --quick         # kuhn_poker, T = 10 (seconds)
  python -m experiments.scripts.agent_choices --lookahead 2 --tie-games \
      "kuhn_poker_ante(deck_size=13)" --tremble 1e-6 --weighting-games   # ties at d = 2

The agent is ``algorithms.rebel.agent.agent.ReBeLAgent`` (Brown, Bakhtin, Lerer, Gong, NeurIPS
2020, arXiv 2007.13544, Section 6: CFR-D, the drawn iterate played and passed on, P(t)
proportional to t, alternating updates) at lookahead d (1 unless ``--lookahead``) with the
exact LP at its leaves
(``SequenceFormLPSolver``). Every cell is the exploitability (NashConv / 2) of the agent's exact
behaviour strategy, every draw enumerated (``agent.behaviour.behaviour_strategy``), measured by
OpenSpiel's ``exploitability.exploitability`` on it as a ``TabularPolicy`` and, as a check, by
the project's ``TreeEvaluator`` (the two must agree to 1e-9; the run stops otherwise).

* Table "ties": one-player leaves that split exactly tied actions equally
  (``SequenceFormLPSolver(split_ties=True)``, the default agent's leaf solver with CFR-D,
  ``agent.splits_ties``) against the LP's first tied action (``split_ties=False``), crossed with
  the tremble e added to every current-policy reach that forms a leaf belief (``ReBeLAgent``'s
  ``tremble``, ``leaf_step``; Selten, 1975): e = 0 is the untrembled agent (the CFR-D stall,
  tests/test_algorithms/rebel/test_cfr_d_stall.py).
* Table "weighting": the averaging of each search's CFR (``ReBeLAgent``'s ``weighting``):
  "linear" averages iteration t with weight t (linear averaging, the default), "linear_cfr" also
  discounts the cumulative regrets by t / (t + 1) (Linear CFR, Brown and Sandholm, AAAI 2019,
  what ReBeL's released code runs), "uniform" weight 1 (vanilla CFR's average); the draw
  P(t) = w_t / W_T follows the weights. Ties split and tremble ``leaf_step.TREMBLE`` (the default
  agent's) in every cell.

Output under ``--out``: ``agent_choices_ties.csv`` and ``agent_choices_weighting.csv`` (one row
per cell: both exploitabilities, the searches and the wall-clock seconds of the cell), the
markdown tables beside them (``agent_choices_ties.md``, ``agent_choices_weighting.md``, for the
docs) and on stdout. The enumeration runs 1 + 2T + T^2 searches per cell at lookahead 1
(10,201 at T = 100: 6 to 10 s on a loaded 2-core machine at 3, 5 and 13 cards).
"""

import argparse
import dataclasses
import pathlib
import time
from typing import List, Optional, Sequence

from open_spiel.python.algorithms import exploitability
import pandas as pd

from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.agent.behaviour import tabular_policy
from algorithms.rebel.leaf_step import TREMBLE
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver
from experiments.harness import arguments
from experiments.harness import game_loader
from experiments.harness import script_runner
from experiments.harness import tables
from spiel_games import atomic_file

TIE_GAMES = ("kuhn_poker", "kuhn_poker_ante(deck_size=5)", "kuhn_poker_ante(deck_size=13)")
WEIGHTING_GAMES = ("kuhn_poker", "kuhn_poker_ante(ante=2.0)", "kuhn_poker_ante(deck_size=13)")
TREMBLES = (0.0, 1e-12, 1e-9, 1e-6, 1e-4, 1e-2)
ITERATIONS = (30, 100)
QUICK_ITERATIONS = (10,)
QUICK_TREMBLES = (0.0, 1e-6, 1e-2)
# The two measures of one behaviour strategy must agree to this (they are exact).
AGREEMENT = 1e-9
TREMBLE_TYPE = arguments.number_type(float, lambda v: 0 <= v < 1, "a number in [0, 1)")
# ``ReBeLAgent``'s weightings, the default first, with their names in the table.
WEIGHTING_NAMES = {"linear": "linear averaging", "linear_cfr": "Linear CFR",
                   "uniform": "uniform averaging"}


@dataclasses.dataclass(frozen=True)
class Cell:
  """One agent measured.

  Attributes:
    game: the game string.
    lookahead: d of every search.
    iterations: T of every search.
    split_ties: the one-player leaves split exactly tied actions.
    tremble: e of the trembles.
    weighting: ``ReBeLAgent``'s weighting.
    exploitability: NashConv / 2 of the behaviour strategy (OpenSpiel's).
    tree_exploitability: the same by ``TreeEvaluator``.
    searches: the searches of the enumeration.
    seconds: wall-clock seconds of the cell (agent, enumeration and both measures).
  """

  game: str
  lookahead: int
  iterations: int
  split_ties: bool
  tremble: float
  weighting: str
  exploitability: float
  tree_exploitability: float
  searches: int
  seconds: float


def measure(game_string: str, iterations: int, split_ties: bool = True,
            tremble: float = TREMBLE, weighting: str = "linear", lookahead: int = 1) -> Cell:
  """The exact exploitability of the agent with these choices (module docstring).

  Raises:
    RuntimeError: if OpenSpiel's and the tree's exploitability disagree by more than
      ``AGREEMENT``.
  """
  start = time.perf_counter()
  game = game_loader.load_game(game_string)
  agent = ReBeLAgent(game, lookahead=lookahead, iterations=iterations, weighting=weighting,
                     leaf_solver=SequenceFormLPSolver(split_ties=split_ties), tremble=tremble)
  behaviour = behaviour_strategy(agent)
  value = exploitability.exploitability(game, tabular_policy(agent, behaviour.policy))
  tree_value = TreeEvaluator(agent.arrays).exploitability(behaviour.policy)
  if abs(value - tree_value) > AGREEMENT:
    raise RuntimeError(f"{game_string}, T = {iterations}: OpenSpiel's exploitability {value!r} "
                       f"and the tree's {tree_value!r} disagree")
  return Cell(game_string, lookahead, iterations, bool(split_ties), float(tremble), weighting,
              float(value), float(tree_value), behaviour.searches, time.perf_counter() - start)


def tie_cells(games: Sequence[str], iterations: Sequence[int], trembles: Sequence[float],
              lookahead: int = 1) -> List[Cell]:
  """Table "ties": each game, T, leaf ties (split, first) and tremble."""
  return [measure(game, t, split, e, lookahead=lookahead) for game in games for t in iterations
          for split in (True, False) for e in trembles]


def weighting_cells(games: Sequence[str], iterations: Sequence[int],
                    lookahead: int = 1) -> List[Cell]:
  """Table "weighting": each game, T and weighting, with the default agent's ties and tremble."""
  return [measure(game, t, weighting=w, lookahead=lookahead) for game in games
          for t in iterations for w in WEIGHTING_NAMES]


def frame(cells: Sequence[Cell]) -> pd.DataFrame:
  """The cells as rows (the CSV)."""
  return pd.DataFrame([dataclasses.asdict(c) for c in cells])


def ties_table(cells: Sequence[Cell]) -> str:
  """Markdown: a row per game, T and leaf ties; a column per tremble."""
  data = frame(cells)
  data["one-player leaf ties"] = data["split_ties"].map({True: "split", False: "first action"})
  wide = data.pivot_table(index=["game", "iterations", "one-player leaf ties"],
                          columns="tremble", values="exploitability", sort=False)
  wide.columns = [f"tremble {e:g}" for e in wide.columns]
  return tables.markdown_table(wide.reset_index().rename(columns={"iterations": "T"}))


def weighting_table(cells: Sequence[Cell]) -> str:
  """Markdown: a row per game and T; a column per weighting and the ratios to linear averaging."""
  data = frame(cells)
  wide = data.pivot_table(index=["game", "iterations"], columns="weighting",
                          values="exploitability", sort=False)
  out = wide.reset_index().rename(columns={"iterations": "T"})
  for w, name in WEIGHTING_NAMES.items():
    out[name] = wide[w].to_numpy()
  for w in ("linear_cfr", "uniform"):
    out[f"{WEIGHTING_NAMES[w]} / linear"] = (wide[w] / wide["linear"]).to_numpy()
  return tables.markdown_table(out.drop(columns=list(WEIGHTING_NAMES)))


def seconds_line(cells: Sequence[Cell]) -> str:
  """The wall-clock seconds per cell: median and largest, by game and T."""
  data = frame(cells).groupby(["game", "iterations"], sort=False)["seconds"]
  return "; ".join(f"{game} T = {t}: {s.median():.1f} s (max {s.max():.1f})"
                   for (game, t), s in data)


def write(out: pathlib.Path, name: str, cells: Sequence[Cell], table: str, title: str) -> None:
  """Writes ``name``.csv and ``name``.md (the table) under ``out`` and prints the table."""
  tables.write_csv(frame(cells), out / f"{name}.csv")
  atomic_file.atomic_write_text(out / f"{name}.md", table + "\n")
  print(f"\n{title}\n\n{table}\n\nSeconds per cell: {seconds_line(cells)}", flush=True)


def main(argv: Optional[List[str]] = None) -> int:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.agent_choices",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--tie-games", nargs="+", type=arguments.game_string, default=None,
                      metavar="GAME", help=f"games of table ties (default: {', '.join(TIE_GAMES)})")
  parser.add_argument("--weighting-games", nargs="*", type=arguments.game_string, default=None,
                      metavar="GAME", help="games of table weighting (default: "
                      f"{', '.join(WEIGHTING_GAMES)}; none: no such table)")
  parser.add_argument("--lookahead", type=arguments.positive_int, default=1, metavar="D",
                      help="player actions each search looks ahead (default: 1)")
  parser.add_argument("--iterations", nargs="+", type=arguments.positive_int, default=None,
                      metavar="T", help="T of every search (default: 30 100, 10 with --quick)")
  parser.add_argument("--tremble", nargs="+", type=TREMBLE_TYPE, default=None, metavar="E",
                      help="trembles of table ties (default: 0 1e-12 1e-9 1e-6 1e-4 1e-2; "
                           "0 1e-6 1e-2 with --quick)")
  parser.add_argument("--out", type=arguments.out_folder,
                      default=pathlib.Path("results/agent_choices"), metavar="DIR",
                      help="folder of the CSV files (default: results/agent_choices)")
  parser.add_argument("--quick", action="store_true",
                      help="kuhn_poker only, T = 10, trembles 0 1e-6 1e-2 (seconds)")
  args = parser.parse_args(argv)
  quick = args.quick
  tie_games = args.tie_games or (["kuhn_poker"] if quick else list(TIE_GAMES))
  weighting_games = args.weighting_games if args.weighting_games is not None else (
      ["kuhn_poker"] if quick else list(WEIGHTING_GAMES))
  iterations = args.iterations or list(QUICK_ITERATIONS if quick else ITERATIONS)
  trembles = args.tremble or list(QUICK_TREMBLES if quick else TREMBLES)
  args.out.mkdir(parents=True, exist_ok=True)
  d = args.lookahead
  ties = tie_cells(tie_games, iterations, trembles, d)
  write(args.out, "agent_choices_ties", ties, ties_table(ties),
        "One-player leaf ties and trembles: exploitability of the exact-leaf agent, lookahead "
        f"{d}, linear averaging")
  if not weighting_games:
    return 0
  weights = weighting_cells(weighting_games, iterations, d)
  write(args.out, "agent_choices_weighting", weights, weighting_table(weights),
        f"Averaging: exploitability of the exact-leaf agent, lookahead {d}, ties split, tremble "
        f"{TREMBLE:g}")
  return 0


if __name__ == "__main__":
  script_runner.run(main)
