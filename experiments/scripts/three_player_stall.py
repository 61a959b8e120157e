"""Why CFR+ and the discounted rules stall on three-player Kuhn poker with 5 to 8 cards.

  python -m experiments.scripts.three_player_stall                   # about a minute
  python -m experiments.scripts.three_player_stall --iterations 4000 --decks 4 6 --out /tmp/x

On ``kuhn_poker_ante(players=3, deck_size=N)`` (P = 3, the standard pot) CFR+, DCFR and linear
CFR certify NashConv 1e-5 or better on 4 cards and from 13 cards on, but stay near 1e-3 on 5 to
8 cards however long they run, while predictive CFR+ (PCFR+) gets through. The script runs each
rule on each deck (range-vector engine) and measures, for every run:

* NashConv of the average policy at checkpoints (what the experiment certifies), and of the
  current policy (the iterate regret matching plays);
* cycling: over the last ``--window`` iterations, the largest swing (max - min) of one current
  probability of action 1 (bet, or call), and that probability's path;
* which information sets cycle: per betting node, the largest swing over its cards (a node
  whose current policy still swings by tenths keeps positive regret in turn on both actions);
* whether the average's support moves: the number of (node, card) whose "plays action 1 with
  probability above 1e-3" flips between successive checkpoints of the second half of the run.

CFR's guarantee is on regret: each player's average regret goes to 0, which in a game with more
than two players makes the empirical distribution of the iterates a coarse correlated
equilibrium, not a Nash equilibrium (Abou Risk and Szafron, AAMAS 2010; ``cfr_engine``). When
the current iterates converge, the average of each player's iterates is an equilibrium too;
when they cycle, the three players' averages are the marginals of a correlated profile, and
their product need not be one. The measurements show which happens. Prints one table, and
writes ``three_player_stall.png`` and ``three_player_stall.csv`` to ``--out``.
"""

import argparse
import dataclasses
import pathlib
import sys
from typing import Dict, List, Sequence

import numpy as np
import pandas as pd

import algorithms
from experiments.harness import plotting
from experiments.harness import script_runner
from experiments.harness import tables
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import KuhnRules

RULES = {"CFR+": algorithms.CFRPlusSolver, "DCFR": algorithms.DCFRSolver,
         "linear CFR": algorithms.LCFRSolver, "PCFR+": algorithms.PCFRPlusSolver}
DECKS = (4, 5, 6, 8, 13)
PLAYED = 1e-3  # "plays action 1" for the support count


@dataclasses.dataclass
class Run:
  """One rule on one deck: checkpoints, the cycling window, the kept regret."""

  rule: str
  cards: int
  checkpoints: List[int]
  average_nash_conv: List[float]
  current_nash_conv: List[float]
  swing: float
  swing_node: str
  swing_card: int
  swing_path: np.ndarray
  node_swing: Dict[str, float]
  support_flips: int


def game(cards: int):
  return kuhn_poker_ante.game_from_rules(KuhnRules(ante=1.0, bet=1.0, deck_size=cards,
                                                   num_players=3))


def run(rule: str, cards: int, iterations: int, window: int) -> Run:
  """Runs ``rule`` on the N-card game and measures it (module docstring)."""
  solver = RULES[rule](game(cards), engine="range")
  engine = solver.engine
  tree = engine.trees[0]
  checkpoints = sorted({int(t) for t in np.geomspace(10, iterations - window, 25)})
  averages, currents, supports = [], [], []
  for t in checkpoints:
    solver.solve(t - engine.iteration[0])
    averages.append(engine.nash_conv(0, average=True))
    currents.append(engine.nash_conv(0, average=False))
    supports.append(engine.average(0).reshape(tree.num_nodes, tree.num_cards, 2)[:, :, 1]
                    > PLAYED)
  path = np.empty((window, tree.num_nodes, tree.num_cards))
  for k in range(window):  # The last iterations one by one: the current policy's path.
    solver.solve(1)
    path[k] = engine.sigma[0].reshape(tree.num_nodes, tree.num_cards, 2)[:, :, 1]
  swings = path.max(axis=0) - path.min(axis=0)
  d, c = np.unravel_index(int(np.argmax(swings)), swings.shape)
  node_swing = {h or "(open)": float(swings[i].max()) for i, h in enumerate(tree.histories)}
  half = len(supports) // 2
  flips = sum(int(np.sum(a != b)) for a, b in zip(supports[half:], supports[half + 1:]))
  return Run(rule, cards, checkpoints + [int(engine.iteration[0])],
             averages + [engine.nash_conv(0, average=True)],
             currents + [engine.nash_conv(0, average=False)], float(swings[d, c]),
             tree.histories[d] or "(open)", int(c), path[:, d, c], node_swing, flips)


def summary(runs: Sequence[Run]) -> pd.DataFrame:
  return pd.DataFrame([{
      "rule": r.rule, "N": r.cards, "iterations": r.checkpoints[-1],
      "NashConv of the average": r.average_nash_conv[-1],
      "NashConv of the current policy": r.current_nash_conv[-1],
      "largest swing of a current probability": r.swing,
      "at (node, card)": f"{r.swing_node}, {r.swing_card}",
      "nodes swinging by > 0.1": " ".join(h for h, w in r.node_swing.items() if w > 0.1),
      "support flips (second half)": r.support_flips}
      for r in runs])


def figure(runs: Sequence[Run]):
  fig, grid = plotting.subplots(1, 3, figsize=(16, 4.8))
  left, middle, right = grid[0]
  colors = dict(zip(DECKS, ("tab:blue", "tab:orange", "tab:red", "tab:purple", "tab:green")))
  by = {(r.rule, r.cards): r for r in runs}
  for (rule, cards), r in by.items():
    if rule not in ("CFR+", "PCFR+"):
      continue
    left.plot(r.checkpoints, r.average_nash_conv, color=colors.get(cards, "0.5"),
              linestyle="-" if rule == "CFR+" else "--", label=f"{rule}, {cards} cards")
  plotting.log_log(left, "iterations T", "NashConv of the average policy", yunit="chips/hand")
  left.axhline(1e-4, color="0.5", linewidth=0.8, linestyle=":")
  left.annotate("certificate 1e-4", (10, 1e-4), xytext=(2, 3), textcoords="offset points",
                fontsize=7, color="0.4")
  left.set_title("the average: CFR+ (solid) stalls on 5-8 cards,\nPCFR+ (dashed) gets through",
                 fontsize=10)
  left.legend(fontsize=7, ncol=2)
  for rule, cards in (("CFR+", 6), ("CFR+", 8), ("CFR+", 4), ("PCFR+", 8), ("PCFR+", 6)):
    r = by.get((rule, cards))
    if r is None:
      continue
    shown = r.swing_path[-600:]
    middle.plot(np.arange(len(shown)), shown, color=colors.get(cards, "0.5"),
                linestyle="-" if rule == "CFR+" else "--", linewidth=1.0,
                label=f"{rule}, {cards} cards: node {r.swing_node}, card {r.swing_card} "
                      f"(swing {r.swing:.2f})")
  middle.set_xlabel(plotting.axis_label("the last 600 iterations of the run"))
  middle.set_ylabel(plotting.axis_label("current probability of betting (or calling)"))
  middle.set_ylim(-0.02, 1.02)
  middle.set_title("the current policy: the most-moving probability\n(CFR+ cycles on 6 and 8 "
                   "cards, not on 4)", fontsize=10)
  middle.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=1)
  swing_runs = [by[key] for key in [("CFR+", n) for n in DECKS] + [("PCFR+", 8)] if key in by]
  width = 0.8 / max(len(swing_runs), 1)
  for k, r in enumerate(swing_runs):
    nodes = list(r.node_swing)
    right.bar(np.arange(len(nodes)) + k * width, [r.node_swing[n] for n in nodes], width=width,
              color=colors.get(r.cards, "0.5"), hatch="//" if r.rule == "PCFR+" else None,
              label=f"{r.rule}, {r.cards} cards")
  if swing_runs:
    nodes = list(swing_runs[0].node_swing)
    right.set_xticks(np.arange(len(nodes)) + 0.4 - width / 2, nodes, rotation=60, fontsize=8)
  right.set_xlabel(plotting.axis_label("betting node (p check, b bet or call)"))
  right.set_ylabel(plotting.axis_label("largest swing of a current probability"))
  right.set_ylim(0, 1)
  right.set_title(f"which information sets cycle (the last {len(r.swing_path):,} "
                  "iterations)", fontsize=10)
  right.legend(fontsize=7)
  quiet = [f"{r.rule}, {r.cards} cards" for r in swing_runs if max(r.node_swing.values()) < 0.05]
  if quiet:
    plotting.note(right, "below 0.05 at every node:\n" + "\n".join(quiet), corner="upper left")
  return fig


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.three_player_stall",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--iterations", type=int, default=20_000, help="iterations of each run")
  parser.add_argument("--window", type=int, default=2000,
                      help="last iterations whose current policy is followed")
  parser.add_argument("--decks", type=int, nargs="+", default=list(DECKS),
                      help=f"deck sizes (default {' '.join(map(str, DECKS))})")
  parser.add_argument("--rules", nargs="+", choices=list(RULES), default=list(RULES))
  parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("docs"))
  args = parser.parse_args(argv)
  if args.window < 10 or args.iterations < args.window + 100:
    print(f"error: need --window >= 10 and --iterations >= --window + 100, got "
          f"{args.window} and {args.iterations}", file=sys.stderr)
    return 2
  if min(args.decks) < 3:
    print(f"error: --decks must be at least 3 cards, got {min(args.decks)}", file=sys.stderr)
    return 2
  runs = []
  for rule in args.rules:
    for cards in args.decks:
      runs.append(run(rule, cards, args.iterations, args.window))
      print(f"  {rule} on {cards} cards done", flush=True)
  table = summary(runs)
  print(tables.markdown_table(table))
  args.out.mkdir(parents=True, exist_ok=True)
  tables.write_csv(table, args.out / "three_player_stall.csv")
  plotting.save_figure(figure(runs), args.out / "three_player_stall.png")
  return 0


if __name__ == "__main__":
  script_runner.run(main)
