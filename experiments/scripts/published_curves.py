"""Our solvers against the exploitability curves published by the DDCFR and AutoCFR authors.

  python -m experiments.scripts.published_curves                  # 8 games, to 20,000 (~30 CPU s)
  python -m experiments.scripts.published_curves --games leduc_poker --max-iterations 1000
  python -m experiments.scripts.published_curves --games big_leduc   # 6.2M histories: 3.3 GB
  python -m experiments.scripts.published_curves --games battleship_2x2 --exact-iterations 3
  python -m experiments.scripts.published_curves --openspiel --max-iterations 1000

The published numbers are ``published_curves.csv`` next to this script: the exploitability of
the average policy after t iterations, at t = 1, 2, 3, 5, 10, 20, 50, ... and each file's last
iteration, each row citing its repository, commit and file. They come from Xu et al.'s DDCFR
(ICLR 2024; github.com/rpSebastian/DDCFR, ``results/{CFR,CFRPlus,DCFR}/<game>/data.csv``, 1,000
iterations) and AutoCFR (AAAI 2022; github.com/rpSebastian/AutoCFR,
``models/games/<game>/<algorithm>_<game>.csv``, up to 20,000 iterations). AutoCFR's CFR, CFR+
and DCFR files equal DDCFR's bit for bit on their common iterations (1 to 1,000, six games), so
the CSV takes those from DDCFR and AutoCFR's beyond 1,000 only. Their conventions, read from
their code and matched here: vanilla CFR; CFR+ (Tammelin 2014: RM+, iteration t weighing t);
DCFR (Brown and Sandholm, AAAI 2019: alpha = 1.5, beta = 0, gamma = 2); linear CFR (DCFR with
alpha = beta = gamma = 1; AutoCFR's ``LinearCFR`` weighs r_t by t, the same policies); DCFR+ as
AutoCFR runs it (RM+ on regrets discounted by (t - 1)^1.5 / ((t - 1)^1.5 + 1.5), iteration t
weighing t^4: ``DCFRPlusSolver(discount_constant=1.5)``). All alternate updates (player 0's
pass, then player 1's against player 0's new policy). A file's row t is the exploitability after
t iterations (rows 0 and 1 are both the uniform policy's), NashConv / 2 by OpenSpiel's
``exploitability.exploitability``, floored at 1e-12 (``max(conv, 1e-12)`` in both repositories;
ours is floored too). ``GAMES`` holds each game's OpenSpiel string, read from their game
configurations.

For each (game, algorithm) curve the script runs our solver (flat engine) to every published
checkpoint up to ``--max-iterations`` and measures the exact exploitability of its average policy
(``solver.exploitability()``), then prints and writes under ``--out`` ``published_curves.md``
(per curve: where it parts from the published one, i.e. the first checkpoint with
|ours - published| / published > ``PART`` = 1e-9; and every checkpoint: published, ours, the
relative and absolute differences) and ``published_curves_comparison.csv``. Per game it counts
the information states where two actions tie exactly at the uniform start
(``game_loader.uniform_profile_ties``): there the regret is 0, each implementation's rounding
residue decides regret matching's next policy, and two correct runs may part at once. Two
optional references: ``--openspiel`` runs OpenSpiel's solvers on the CFR, CFR+, DCFR and LCFR
curves (C++ ``pyspiel.CFRSolver`` and ``CFRPlusSolver`` measured by ``pyspiel.exploitability``,
Python ``discounted_cfr.DCFRSolver`` and ``LCFRSolver`` by ``exploitability.exploitability``), a
third implementation of each rule that sums in the authors' order (a recursive walk, children in
action order); ``--exact-iterations K`` runs vanilla CFR in exact arithmetic
(``exact_cfr_exploitabilities``) for K iterations on each game ``ExactGameTree`` holds, the value
every float run of CFR approximates. The report is ``docs/published_curves.md``.
"""

import argparse
import dataclasses
import fractions
import pathlib
import re
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from open_spiel.python.algorithms import discounted_cfr
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel

import algorithms
from algorithms.exact.exact_nash_conv import ExactGameTree
from experiments.harness import game_loader
from experiments.harness import script_runner
from experiments.harness import tables
from spiel_games import atomic_file

Fraction = fractions.Fraction

PUBLISHED = pathlib.Path(__file__).with_name("published_curves.csv")
COLUMNS = ["game", "algorithm", "iteration", "published", "repo", "commit", "path"]
# Curves part at the first checkpoint where |ours - published| / published exceeds this.
PART = 1e-9
# The authors' floor: both repositories record max(exploitability, 1e-12).
FLOOR = 1e-12
# Largest game whose exact ties are counted: the count walks the game again (BigLeduc's 6.2M
# histories would add 40 s and 3 GB).
TIES_MAX_HISTORIES = 1_000_000
MAX_NODES = 8_000_000  # BigLeduc's 6,178,561 histories (the engine's default limit is 2M).
CHANCE = int(pyspiel.PlayerId.CHANCE)


@dataclasses.dataclass(frozen=True)
class PublishedGame:
  """A game of the published files.

  Attributes:
    game_string: its OpenSpiel string.
    authors_names: its names in DDCFR's ``ddcfr/game/game_config.py`` / AutoCFR's
      ``autocfr/utils.py`` (``load_game_configs``), or PokerRL's class.
    default: run without ``--games``.
  """

  game_string: str
  authors_names: str
  default: bool = True


def _goofspiel(cards: int) -> str:
  # Both repositories load goofspiel(num_cards, imp_info=True, points_order=descending) and
  # convert it with pyspiel.convert_to_turn_based, OpenSpiel's turn_based_simultaneous_game.
  return (f"turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards={cards},"
          "points_order=descending))")


def _battleship(height: int) -> str:
  return (f"battleship(allow_repeated_shots=False,board_height={height},board_width=2,"
          "num_shots=3,ship_sizes=[2],ship_values=[2])")


GAMES = {
    "kuhn_poker": PublishedGame("kuhn_poker", "KuhnPoker / kuhn_poker"),
    "leduc_poker": PublishedGame("leduc_poker", "LeducPoker / leduc_poker"),
    # PokerRL's BigLeduc (12 ranks, 2 suits, ante 1, bets 2 and 4, at most 6 raises per round,
    # stacks 100, the same player first in both rounds) as an ACPC limit game, the equal blinds
    # of 1 playing the antes. OpenSpiel's leduc_poker cannot be it: its deck and raises are fixed.
    "big_leduc": PublishedGame(
        "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
        "firstPlayer=1 1,maxRaises=6 6,numSuits=2,numRanks=12,numHoleCards=1,numBoardCards=0 1,"
        "stack=100 100)", "BigLeduc (PokerRL)", default=False),
    "liars_dice_1n_3s": PublishedGame("liars_dice(numdice=1,dice_sides=3)",
                                      "LiarsDice3 / liars_dice_1n_3s"),
    "liars_dice_1n_4s": PublishedGame("liars_dice(numdice=1,dice_sides=4)",
                                      "LiarsDice4 / liars_dice_1n_4s"),
    "goofspiel_3": PublishedGame(_goofspiel(3), "GoofSpiel3 / goofspiel_3"),
    "goofspiel_4": PublishedGame(_goofspiel(4), "GoofSpiel4 / goofspiel_4"),
    "battleship_2x2": PublishedGame(_battleship(2), "BattleShip2"),
    "battleship_2x3": PublishedGame(_battleship(3), "BattleShip3"),
}
# Our solver and options for each algorithm name of the CSV (module docstring).
ALGORITHMS = {
    "CFR": (algorithms.CFRSolver, {}),
    "CFR+": (algorithms.CFRPlusSolver, {}),
    "DCFR": (algorithms.DCFRSolver, {}),
    "LCFR": (algorithms.LCFRSolver, {}),
    "DCFR+": (algorithms.DCFRPlusSolver, {"discount_constant": 1.5}),
}
# OpenSpiel's solvers of the same algorithms (``--openspiel``), each measured by OpenSpiel's
# exploitability in its own language: C++ CFR and CFR+, Python DCFR and LCFR.
OPENSPIEL = {
    "CFR": (pyspiel.CFRSolver, pyspiel.exploitability),
    "CFR+": (pyspiel.CFRPlusSolver, pyspiel.exploitability),
    "DCFR": (discounted_cfr.DCFRSolver, exploitability.exploitability),
    "LCFR": (discounted_cfr.LCFRSolver, exploitability.exploitability),
}


def read_published(path: pathlib.Path = PUBLISHED) -> pd.DataFrame:
  """The published checkpoints, checked: a known game and algorithm, a positive iteration, a value
  >= the floor, and a source on every row (repository, 40-hex-digit commit, path). Adds the
  column ``value``, the published text as a float.

  Raises:
    ValueError: one line naming the file, the line and the problem.
  """
  try:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
  except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
    raise ValueError(f"{path}: cannot read the CSV ({e})") from None
  if list(frame.columns) != COLUMNS:
    raise ValueError(f"{path}: columns must be {','.join(COLUMNS)}, got "
                     f"{','.join(map(str, frame.columns))}")
  for line, row in enumerate(frame.itertuples(index=False), start=2):  # line 1: the header
    where = f"{path}, line {line}"
    if row.game not in GAMES:
      raise ValueError(f"{where}: unknown game {row.game!r}; allowed: {', '.join(GAMES)}")
    if row.algorithm not in ALGORITHMS:
      raise ValueError(f"{where}: unknown algorithm {row.algorithm!r}; allowed: "
                       f"{', '.join(ALGORITHMS)}")
    if not row.iteration.isdigit() or int(row.iteration) < 1:
      raise ValueError(f"{where}: iteration must be a positive integer, got {row.iteration!r}")
    try:
      value = float(row.published)
    except ValueError:
      value = float("nan")
    if not FLOOR <= value < float("inf"):
      raise ValueError(f"{where}: published must be a number >= {FLOOR:g}, got "
                       f"{row.published!r}")
    if (not re.fullmatch(r"github\.com/[\w.-]+/[\w.-]+", row.repo)
        or not re.fullmatch(r"[0-9a-f]{40}", row.commit) or not row.path):
      raise ValueError(f"{where}: a row cites its source as github.com/<owner>/<name>, a full "
                       f"40-digit commit and a path; got {row.repo!r}, {row.commit!r}, "
                       f"{row.path!r}")
  if frame.duplicated(["game", "algorithm", "iteration"]).any():
    raise ValueError(f"{path}: a (game, algorithm, iteration) appears twice")
  frame["iteration"] = frame["iteration"].astype(int)
  frame["value"] = frame["published"].astype(float)
  return frame


def our_curve(game: pyspiel.Game, tree: algorithms.GameTree, algorithm: str,
              checkpoints: Sequence[int]) -> List[float]:
  """Our exploitability after each checkpoint (ascending), floored at ``FLOOR`` as theirs."""
  cls, options = ALGORITHMS[algorithm]
  solver = cls(game, tree=tree, max_nodes=MAX_NODES, engine="flat", **options)
  values = []
  for t in checkpoints:
    solver.solve(t - solver.iteration)
    values.append(max(solver.exploitability(), FLOOR))
  return values


def openspiel_curve(game: pyspiel.Game, algorithm: str, checkpoints: Sequence[int]
                    ) -> List[float]:
  """OpenSpiel's solver's exploitability after each checkpoint, floored at ``FLOOR``."""
  cls, measure = OPENSPIEL[algorithm]
  solver, done, values = cls(game), 0, []
  for t in checkpoints:
    for _ in range(t - done):
      solver.evaluate_and_update_policy()
    done = t
    values.append(max(measure(game, solver.average_policy()), FLOOR))
  return values


def exact_cfr_exploitabilities(game: pyspiel.Game, iterations: int) -> List[Fraction]:
  """Vanilla CFR in exact arithmetic: the exploitability of the average policy after each of the
  first ``iterations`` iterations.

  Zinkevich, Johanson, Bowling and Piccione (NeurIPS 2007) with alternating updates, as the
  float runs: in player i's pass, r(I, a) = sum_{h in I} pi_{-i}(h) (v(ha) - v(h)) under the
  current profile, R(I) += r(I), the average's numerator gains pi_i(I) sigma(I), and then
  sigma(I) = R(I)^+ / sum R(I)^+ (uniform if that sum is 0). Every number is a Fraction on
  ``ExactGameTree`` (chance probabilities and returns as exact fractions); the exploitability is
  the NashConv certificate divided by the number of players. An exact tie stays a tie (a regret
  of exactly 0) where a float run keeps a rounding residue of either sign.

  Raises:
    ValueError: as ``ExactGameTree`` (e.g. more than its ``max_nodes`` histories).
  """
  tree = ExactGameTree(game)
  legal = {}
  for node, key in enumerate(tree.info_state):
    if key is not None:
      legal[key] = [a for a, _, _ in tree.children[node]]
  sigma = {key: [Fraction(1, len(a))] * len(a) for key, a in legal.items()}
  regrets = {key: [Fraction(0)] * len(a) for key, a in legal.items()}
  numerators = {key: [Fraction(0)] * len(a) for key, a in legal.items()}

  def walk(node, player, own, others, instant, reach):
    """v_player below ``node``; adds the counterfactual regrets of the player's sets."""
    acting, children = tree.player[node], tree.children[node]
    if tree.returns[node] is not None:
      return tree.returns[node][player]
    if acting == CHANCE:
      return sum((p * walk(c, player, own, others * p, instant, reach) for _, p, c in children),
                 Fraction(0))
    key = tree.info_state[node]
    if acting != player:
      return sum((s * walk(c, player, own, others * s, instant, reach)
                  for s, (_, _, c) in zip(sigma[key], children)), Fraction(0))
    values = [walk(c, player, own * s, others, instant, reach)
              for s, (_, _, c) in zip(sigma[key], children)]
    value = sum((s * v for s, v in zip(sigma[key], values)), Fraction(0))
    row = instant.setdefault(key, [Fraction(0)] * len(values))
    for k, v in enumerate(values):
      row[k] += others * (v - value)
    reach[key] = own  # pi_i(I): the same at every history of I (perfect recall)
    return value

  exploitabilities = []
  for _ in range(iterations):
    for player in range(tree.num_players):
      instant, reach = {}, {}
      walk(0, player, Fraction(1), Fraction(1), instant, reach)
      for key, r in instant.items():
        numerators[key] = [n + reach[key] * s for n, s in zip(numerators[key], sigma[key])]
        regrets[key] = [big + small for big, small in zip(regrets[key], r)]
        positive = [max(x, Fraction(0)) for x in regrets[key]]
        total = sum(positive)
        sigma[key] = ([x / total for x in positive] if total > 0
                      else [Fraction(1, len(positive))] * len(positive))
    average = {}
    for key, n in numerators.items():
      total = sum(n)
      average[key] = {a: (x / total if total > 0 else Fraction(1, len(n)))
                      for a, x in zip(legal[key], n)}
    exploitabilities.append(tree.certificate(average).nash_conv / tree.num_players)
  return exploitabilities


def compare(published: pd.DataFrame, games: Sequence[str], max_iterations: int,
            openspiel: bool = False, exact_iterations: int = 0
            ) -> Tuple[pd.DataFrame, Dict[str, Optional[int]]]:
  """Runs our solvers (and the optional references) on ``games``.

  Returns:
    One row per published checkpoint up to ``max_iterations``: the published value, ours and
    their relative and absolute differences, OpenSpiel's relative difference (CFR, CFR+, DCFR
    and LCFR, with ``openspiel``) and exact CFR's value (CFR, the first ``exact_iterations``),
    NaN where not run; and per game the number of information states tied at the uniform start
    (None above ``TIES_MAX_HISTORIES`` histories).
  """
  records, ties = [], {}
  for name in games:
    rows = published[(published["game"] == name) & (published["iteration"] <= max_iterations)]
    if rows.empty:
      continue
    start = time.process_time()
    game = game_loader.load_game(GAMES[name].game_string)
    tree = algorithms.GameTree.from_game(game, max_nodes=MAX_NODES)
    ties[name] = (len(game_loader.uniform_profile_ties(game))
                  if tree.num_nodes <= TIES_MAX_HISTORIES else None)
    exact = []
    if exact_iterations:
      try:
        exact = exact_cfr_exploitabilities(game, exact_iterations)
      except ValueError as e:
        print(f"{name}: no exact CFR ({e})")
    for algorithm, curve in rows.groupby("algorithm", sort=False):
      curve = curve.sort_values("iteration")
      checkpoints = list(curve["iteration"])
      ours = our_curve(game, tree, algorithm, checkpoints)
      reference = (openspiel_curve(game, algorithm, checkpoints)
                   if openspiel and algorithm in OPENSPIEL else [np.nan] * len(checkpoints))
      for row, value, theirs in zip(curve.itertuples(index=False), ours, reference):
        t = row.iteration
        records.append({
            "game": name, "algorithm": algorithm, "iteration": t, "published": row.published,
            "ours": value, "relative difference": abs(value - row.value) / row.value,
            "absolute difference": abs(value - row.value),
            "OpenSpiel relative difference": abs(theirs - row.value) / row.value,
            "exact CFR": (float(exact[t - 1]) if algorithm == "CFR" and t <= len(exact)
                          else np.nan),
            "source": f"{row.repo}@{row.commit[:7]}/{row.path}"})
    print(f"{name} ({GAMES[name].authors_names}): {tree.num_nodes:,} histories, "
          f"{rows['algorithm'].nunique()} curves, {time.process_time() - start:.1f} CPU s",
          flush=True)
  return pd.DataFrame(records), ties


def first_above(difference: np.ndarray) -> int:
  """The index of the first difference above ``PART``, or ``len(difference)`` if none is."""
  over = np.flatnonzero(difference > PART)
  return int(over[0]) if len(over) else len(difference)


def parting(frame: pd.DataFrame, ties: Dict[str, Optional[int]]) -> pd.DataFrame:
  """Per curve: the last checkpoint compared, where ours parts from the published curve (the
  first checkpoint with a relative difference above ``PART``), the largest difference before,
  the difference there and at the last checkpoint, where OpenSpiel's solver parts (if run), and the
  game's tied information states (``compare``). NaN where there is no such checkpoint."""
  rows = []
  for (game, algorithm), curve in frame.groupby(["game", "algorithm"], sort=False):
    iterations = curve["iteration"].to_numpy()
    difference = curve["relative difference"].to_numpy()
    reference = curve["OpenSpiel relative difference"].to_numpy()
    part, reference_part = first_above(difference), first_above(reference)
    rows.append({
        "game": game, "algorithm": algorithm, "up to": iterations[-1],
        "parts at": iterations[part] if part < len(curve) else np.nan,
        "largest before": difference[:part].max() if part else np.nan,
        "there": difference[part] if part < len(curve) else np.nan,
        "at the last": difference[-1],
        "OpenSpiel parts at": (iterations[reference_part] if reference_part < len(curve)
                               else np.nan),
        "tied states": np.nan if ties.get(game) is None else ties[game]})
  return pd.DataFrame(rows)


def report(frame: pd.DataFrame, summary: pd.DataFrame) -> str:
  """The markdown of both tables (every published and our value with all its digits)."""
  def shown(table, specs, drop):
    out = table.astype(object)
    for column, spec in specs.items():
      out[column] = [np.nan if tables.is_missing(x) else format(x, spec) for x in table[column]]
    return out.drop(columns=drop)

  reference = "OpenSpiel relative difference"
  unused = [c for c in (reference, "exact CFR") if frame[c].isna().all()]  # options not run
  parts = shown(summary, {"up to": ".0f", "parts at": ".0f", "largest before": ".1e",
                          "there": ".1e", "at the last": ".1e", "OpenSpiel parts at": ".0f",
                          "tied states": ".0f"},
                ["OpenSpiel parts at"] if reference in unused else [])
  never = f"never above {PART:g}"
  rows = shown(frame, {"relative difference": ".1e", "absolute difference": ".1e",
                       reference: ".1e"}, unused)
  rows["ours"] = [repr(float(x)) for x in frame["ours"]]
  if "exact CFR" in rows:
    rows["exact CFR"] = [np.nan if tables.is_missing(x) else repr(float(x))
                         for x in frame["exact CFR"]]
  return (f"Where the curves part (relative difference > {PART:g}):\n\n"
          + tables.markdown_table(parts, missing={
              "parts at": never, "there": never,
              "OpenSpiel parts at": f"{never}, or not run (OpenSpiel has no DCFR+)",
              "largest before": "parts at the first checkpoint",
              "tied states": f"not counted above {TIES_MAX_HISTORIES:,} histories"})
          + "\n\nEvery checkpoint:\n\n"
          + tables.markdown_table(rows, missing={reference: "OpenSpiel has no DCFR+",
                                                 "exact CFR": "not run (CFR only)"}) + "\n")


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.published_curves",
                                   description=__doc__.splitlines()[0])
  defaults = [name for name, g in GAMES.items() if g.default]
  parser.add_argument("--games", nargs="+", default=defaults,
                      help=f"games (default: all but big_leduc); allowed: {' '.join(GAMES)}")
  parser.add_argument("--max-iterations", type=int, default=20_000,
                      help="last checkpoint compared (default 20,000: every published one)")
  parser.add_argument("--openspiel", action="store_true",
                      help="also run OpenSpiel's CFR, CFR+, DCFR and LCFR (slow: C++ CFR on "
                      "Leduc to 20,000 takes 4 min, Python DCFR 1,000 iterations 2 min)")
  parser.add_argument("--exact-iterations", type=int, default=0,
                      help="iterations of exact-arithmetic CFR per game (default 0: none)")
  parser.add_argument("--published", type=pathlib.Path, default=PUBLISHED,
                      help="the published checkpoints (default: published_curves.csv here)")
  parser.add_argument("--out", type=pathlib.Path,
                      default=pathlib.Path("results/published_curves"))
  args = parser.parse_args(argv)
  unknown = [g for g in args.games if g not in GAMES]
  if unknown:
    parser.error(f"unknown game {unknown[0]!r}; allowed: {', '.join(GAMES)}")
  if args.max_iterations < 1 or args.exact_iterations < 0:
    parser.error(f"--max-iterations must be >= 1 and --exact-iterations >= 0, got "
                 f"{args.max_iterations} and {args.exact_iterations}")
  try:
    args.published_frame = read_published(args.published)
  except ValueError as e:
    parser.error(f"bad --published: {e}")
  return args


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs the comparison; prints and writes the tables. Returns the exit status (0)."""
  args = parse_args(argv)
  frame, ties = compare(args.published_frame, args.games, args.max_iterations, args.openspiel,
                        args.exact_iterations)
  if frame.empty:
    print(f"no published checkpoint of {', '.join(args.games)} up to {args.max_iterations}")
    return 0
  text = report(frame, parting(frame, ties))
  args.out.mkdir(parents=True, exist_ok=True)
  atomic_file.atomic_write_text(args.out / "published_curves.md", text)
  atomic_file.atomic_write_text(args.out / "published_curves_comparison.csv",
                                frame.to_csv(index=False))
  print(text)
  return 0


if __name__ == "__main__":
  script_runner.run(main)
