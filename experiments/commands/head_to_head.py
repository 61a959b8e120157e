"""Head to head: named policies, one per seat, play N hands of a game through OpenSpiel's
``evaluate_bots``.

Each hand is played by OpenSpiel's bots (``bots.policy.PolicyBot``; ``bots.uniform_random`` for
the uniform policy) with one seeded ``numpy.random.RandomState`` for the deals and the bots'
choices, so a run is reproducible. Any number of players: seat i plays the policy named for
player i (``--policy`` once per seat; ``--p0``/``--p1`` for two players). For every player the
sample mean of its chips per hand is reported with a confidence interval, mean +- z s / sqrt(N)
(central limit theorem; s the sample standard deviation), next to the exact expected value from
``expected_game_score.policy_value``.

The intervals are simultaneous 95% intervals over the players checked (Bonferroni: each at level
1 - 0.05 / k, z = Phi^-1(1 - 0.05 / (2 k))): in a zero- or constant-sum game the last player's
return is fixed by the others', so k = N - 1 players are checked (k = 1, z = 1.96 for two
players); in a general-sum game all N are. Some exact value falls outside its interval in about
one seeded run in twenty; the report says so when one does.
"""

import argparse
import dataclasses
from typing import Dict, List, Optional, Tuple

import numpy as np
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.bots import policy as policy_bot
from open_spiel.python.bots import uniform_random
import pandas as pd
import pyspiel
from scipy import stats
import tqdm

from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import policies
from experiments.harness import tables
from experiments.harness import templates
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

NAME = "head-to-head"
REPORT_ORDER = 60  # Place in the report (and in ``run``).
# No jobs or tasks: ``run`` runs it in a side process, beside the pool (``experiments.cli``).
SIDE_PROCESS = True
HELP = ("Named policies, one per seat (any number of players), play N hands; each player's "
        "chips per hand with a 95% interval vs the exact value.")

HANDS = arguments.Budget(default=100_000, quick=10_000)
DEFAULT_GAME = "kuhn_poker_ante"
DEFAULT_P0 = "cfr:1000"
DEFAULT_P1 = "equilibrium"
CONFIDENCE = 0.95  # Simultaneous over the checked players (Bonferroni).
# The report's words, in ``head_to_head.md`` beside this file.
CAPTIONS = templates.load(__package__, "head_to_head.md")


def checked_players(game: pyspiel.Game) -> int:
  """How many players' means are checked: N - 1 in a zero- or constant-sum game (the last
  return is fixed by the others'), else N."""
  constant_sum = game.get_type().utility in (pyspiel.GameType.Utility.ZERO_SUM,
                                             pyspiel.GameType.Utility.CONSTANT_SUM)
  return game.num_players() - 1 if constant_sum else game.num_players()


def z_value(checked: int) -> float:
  """The z of a two-sided interval at level 1 - (1 - CONFIDENCE) / checked (Bonferroni): 1.96 for
  one checked player."""
  return float(stats.norm.ppf(1 - (1 - CONFIDENCE) / (2 * checked)))


@dataclasses.dataclass(frozen=True)
class Result:
  """Outcome of a head-to-head run.

  Attributes:
    game: the game string.
    names: the policies' names, one per player.
    returns: every player's return in each hand, shape (hands, players).
    exact: every player's exact expected return.
    z: the intervals' z (``z_value``).
  """

  game: str
  names: Tuple[str, ...]
  returns: np.ndarray
  exact: Tuple[float, ...]
  z: float

  def mean(self, player: int = 0) -> float:
    return float(self.returns[:, player].mean())

  def half_width(self, player: int = 0) -> float:
    """Half-width of the player's confidence interval of the mean, z s / sqrt(N)."""
    column = self.returns[:, player]
    return float(self.z * column.std(ddof=1) / np.sqrt(len(column)))

  def wins_draws_losses(self, player: int = 0) -> Tuple[int, int, int]:
    """Hands with a positive, zero and negative return for the player."""
    column = self.returns[:, player]
    return int((column > 0).sum()), int((column == 0).sum()), int((column < 0).sum())

  def exact_in_interval(self, player: int = 0) -> bool:
    return abs(self.mean(player) - self.exact[player]) <= self.half_width(player)


def play(game: pyspiel.Game, names: List[str], hands: int, seed: int,
         progress: bool = False) -> Result:
  """Plays ``hands`` hands between the named policies (``names[i]`` for player i).

  Raises:
    ValueError: for a bad policy name, a number of names other than the number of players, or
      fewer than two hands.
  """
  if hands < 2:
    raise ValueError(f"--hands must be an integer >= 2, got {hands}")
  if len(names) != game.num_players():
    raise ValueError(f"{game} has {game.num_players()} players; got {len(names)} policies")
  for name in names:
    policies.check_name(name)
  made: Dict[str, object] = {}
  for name in names:  # A name used at several seats is one policy.
    if name not in made:
      made[name] = policies.make_policy(game, name, seed, progress)
  seats = [made[name] for name in names]
  rng = np.random.RandomState(seed)
  bots = [uniform_random.UniformRandomBot(player, rng) if name == "uniform"
          else policy_bot.PolicyBot(player, rng, pol)
          for player, (name, pol) in enumerate(zip(names, seats))]
  returns = np.empty((hands, game.num_players()))
  for hand in tqdm.trange(hands, desc="hands", disable=not progress, leave=False):
    returns[hand] = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
  return Result(str(game), tuple(names), returns,
                tuple(policies.expected_values(game, seats)), z_value(checked_players(game)))


def summary_frame(result: Result) -> pd.DataFrame:
  """One row per player: its policy, chips per hand with the interval, the exact value."""
  rows = []
  for player, name in enumerate(result.names):
    wins, draws, losses = result.wins_draws_losses(player)
    mean, half = result.mean(player), result.half_width(player)
    rows.append({"game": result.game, "player": player, "policy": name,
                 "hands": len(result.returns), "chips_per_hand": mean, "ci95_low": mean - half,
                 "ci95_high": mean + half, "exact_value": result.exact[player], "wins": wins,
                 "draws": draws, "losses": losses,
                 "exact_in_interval": result.exact_in_interval(player)})
  return pd.DataFrame(rows)


def summary_markdown(result: Result, checked: int) -> str:
  players = len(result.names)
  outside = [p for p in range(checked) if not result.exact_in_interval(p)]
  verdict = (CAPTIONS["inside"] if not outside else
             CAPTIONS.fill("outside", players=", ".join(map(str, outside))))
  seats = ", ".join(f"`{n}` (player {p})" for p, n in enumerate(result.names))
  lines = [
      CAPTIONS.fill("intro", seats=seats, game=result.game, hands=len(result.returns)),
      "",
      f"| player | policy | mean (chips per hand) | {CONFIDENCE:.0%} interval (chips per hand) "
      "| exact expected value (chips per hand) | hands won | hands drawn | hands lost |",
      "|---|---|---|---|---|---|---|---|"]
  for p, name in enumerate(result.names):
    wins, draws, losses = result.wins_draws_losses(p)
    mean, half = result.mean(p), result.half_width(p)
    lines.append(f"| {p} | `{name}` | {mean:+.4f} | [{mean - half:+.4f}, {mean + half:+.4f}] | "
                 f"{result.exact[p]:+.4f} | {wins} | {draws} | {losses} |")
  scope = "player 0" if checked == 1 else f"players 0-{checked - 1}"
  fixed = (" " + CAPTIONS.fill("constant_sum", player=players - 1) if players > checked else "")
  return "\n".join(lines + [
      "",
      CAPTIONS.fill("intervals", confidence=CONFIDENCE, scope=scope, fixed=fixed, z=result.z,
                    verdict=verdict)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
  allowed = ", ".join(policies.POLICY_NAMES)
  parser.add_argument("--game", type=arguments.any_game_string, default=DEFAULT_GAME,
                      metavar="GAME_STRING",
                      help=f"OpenSpiel game string, any number of players (default: "
                      f"{DEFAULT_GAME})")
  parser.add_argument("--policy", action="append", metavar="NAME",
                      help=f"the policy of the next seat: give it once per player, in seat "
                      f"order ({allowed}); needed with more than two players (default: --p0 "
                      "and --p1)")
  parser.add_argument("--p0", default=None,
                      help=f"two players: player 0's policy (default: {DEFAULT_P0})")
  parser.add_argument("--p1", default=None,
                      help=f"two players: player 1's policy (default: {DEFAULT_P1})")
  parser.add_argument("--hands", type=arguments.positive_int, metavar="N",
                      help=HANDS.help("hands to play"))


def seat_names(args: argparse.Namespace, num_players: int) -> List[str]:
  """The policy of every seat from ``--policy`` (once per seat) or ``--p0``/``--p1``.

  Raises:
    ValueError: one line, for a wrong number of ``--policy`` options, ``--policy`` mixed with
      ``--p0``/``--p1``, or ``--p0``/``--p1`` with more than two players.
  """
  explicit: Optional[List[str]] = args.policy
  if explicit is not None:
    if args.p0 is not None or args.p1 is not None:
      raise ValueError("give the seats either with --policy (once per player) or with "
                       "--p0/--p1, not both")
    if len(explicit) != num_players:
      raise ValueError(f"{args.game} has {num_players} players: give --policy {num_players} "
                       f"times (one per seat), got {len(explicit)}")
    return list(explicit)
  if num_players != 2:
    raise ValueError(f"{args.game} has {num_players} players: give --policy {num_players} times "
                     "(one per seat, in order); --p0/--p1 are for two players")
  return [args.p0 or DEFAULT_P0, args.p1 or DEFAULT_P1]


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  hands = HANDS.resolve(args.hands, ctx.quick)
  game = game_loader.load_game(args.game, two_player_zero_sum=False)
  names = seat_names(args, game.num_players())
  ctx.prepare_policies(args.game, names)  # Refused here if over --max-minutes.
  result = play(game, names, hands, ctx.seed, progress=ctx.progress)
  tables.write_csv(summary_frame(result), ctx.out / "head_to_head.csv")
  checked = checked_players(game)
  source = (f"exact policy_value; tolerance = simultaneous {CONFIDENCE:.0%} half-width "
            f"(z = {result.z:.3f})")
  return ReportSection(
      title="Head to head: " + " vs ".join(names),
      markdown=summary_markdown(result, checked),
      tables=["head_to_head.csv"],
      checks=[checks.within(f"head-to-head {' vs '.join(names)} on {args.game}: player {p}'s "
                            "chips per hand", result.mean(p), result.exact[p],
                            result.half_width(p), source)
              for p in range(checked)])
