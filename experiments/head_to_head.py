"""Head to head: two named policies play N hands of a game through OpenSpiel's ``evaluate_bots``.

Each hand is played by OpenSpiel's bots (``bots.policy.PolicyBot``; ``bots.uniform_random`` for
the uniform policy) with one seeded ``numpy.random.RandomState`` for the deals and the bots'
choices, so a run is reproducible. The sample mean of player 0's chips per hand is reported with
its 95% confidence interval, mean +- 1.96 s / sqrt(N) (central limit theorem; s the sample
standard deviation), next to the exact expected value from ``expected_game_score.policy_value``.
The exact value falls outside the interval in about one seeded run in twenty; the report says so
when it does.
"""

import argparse
import dataclasses
from typing import List

import numpy as np
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.bots import policy as policy_bot
from open_spiel.python.bots import uniform_random
import pandas as pd
import pyspiel
import tqdm

from experiments import arguments
from experiments import checks
from experiments import games
from experiments import policies
from experiments import tables
from experiments.context import Context
from experiments.report_section import ReportSection

NAME = "head-to-head"
HELP = "Two named policies play N hands; chips per hand with a 95% interval vs the exact value."

HANDS = arguments.Budget(default=100_000, quick=10_000)
DEFAULT_GAME = "kuhn_poker_ante"
DEFAULT_P0 = "cfr:1000"
DEFAULT_P1 = "equilibrium"
Z_95 = 1.959963984540054  # Standard normal 97.5% quantile.


@dataclasses.dataclass(frozen=True)
class Result:
  """Outcome of a head-to-head run, from player 0's point of view.

  Attributes:
    game: the game string.
    names: the policies' names (player 0, player 1).
    returns: player 0's return in each hand.
    exact: player 0's exact expected return.
  """

  game: str
  names: tuple
  returns: np.ndarray
  exact: float

  @property
  def mean(self) -> float:
    return float(self.returns.mean())

  @property
  def half_width(self) -> float:
    """Half-width of the 95% confidence interval of the mean."""
    return float(Z_95 * self.returns.std(ddof=1) / np.sqrt(len(self.returns)))

  @property
  def wins_draws_losses(self) -> tuple:
    return (int((self.returns > 0).sum()), int((self.returns == 0).sum()),
            int((self.returns < 0).sum()))

  @property
  def exact_in_interval(self) -> bool:
    return abs(self.mean - self.exact) <= self.half_width


def play(game: pyspiel.Game, names: List[str], hands: int, seed: int,
         progress: bool = False) -> Result:
  """Plays ``hands`` hands between the named policies (``names[i]`` for player i).

  Raises:
    ValueError: for a bad policy name or a non-positive number of hands.
  """
  if hands < 2:
    raise ValueError(f"--hands must be an integer >= 2, got {hands}")
  for name in names:
    policies.check_name(name)
  pols = [policies.make_policy(game, name, seed, progress) for name in names]
  rng = np.random.RandomState(seed)
  bots = [uniform_random.UniformRandomBot(player, rng) if name == "uniform"
          else policy_bot.PolicyBot(player, rng, pol)
          for player, (name, pol) in enumerate(zip(names, pols))]
  returns = np.empty(hands)
  for hand in tqdm.trange(hands, desc="hands", disable=not progress, leave=False):
    returns[hand] = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)[0]
  return Result(str(game), tuple(names), returns,
                policies.expected_value(game, pols[0], pols[1]))


def summary_frame(result: Result) -> pd.DataFrame:
  wins, draws, losses = result.wins_draws_losses
  return pd.DataFrame([{
      "game": result.game, "player_0": result.names[0], "player_1": result.names[1],
      "hands": len(result.returns), "chips_per_hand": result.mean,
      "ci95_low": result.mean - result.half_width, "ci95_high": result.mean + result.half_width,
      "exact_value": result.exact, "wins": wins, "draws": draws, "losses": losses,
      "exact_in_interval": result.exact_in_interval}])


def summary_markdown(result: Result) -> str:
  wins, draws, losses = result.wins_draws_losses
  verdict = ("lies in the interval" if result.exact_in_interval else
             "lies OUTSIDE the 95% interval (expected in about one seeded run in twenty; try "
             "another --seed or more --hands)")
  return "\n".join([
      f"`{result.names[0]}` (player 0) against `{result.names[1]}` (player 1) on `{result.game}`, "
      f"{len(result.returns)} hands played with OpenSpiel's `evaluate_bots`.",
      "",
      "| chips per hand (player 0) | 95% interval | exact value | wins | draws | losses |",
      "|---|---|---|---|---|---|",
      f"| {result.mean:+.4f} | [{result.mean - result.half_width:+.4f}, "
      f"{result.mean + result.half_width:+.4f}] | {result.exact:+.4f} | {wins} | {draws} | "
      f"{losses} |",
      "",
      f"The exact expected value (`expected_game_score.policy_value`) {verdict}.",
  ])


def add_arguments(parser: argparse.ArgumentParser) -> None:
  allowed = ", ".join(policies.POLICY_NAMES)
  parser.add_argument("--game", type=arguments.game_string, default=DEFAULT_GAME,
                      metavar="GAME_STRING",
                      help=f"OpenSpiel game string (default: {DEFAULT_GAME})")
  parser.add_argument("--p0", default=DEFAULT_P0,
                      help=f"player 0's policy: {allowed} (default: {DEFAULT_P0})")
  parser.add_argument("--p1", default=DEFAULT_P1,
                      help=f"player 1's policy: {allowed} (default: {DEFAULT_P1})")
  parser.add_argument("--hands", type=arguments.positive_int, metavar="N",
                      help=HANDS.help("hands to play"))


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  hands = HANDS.resolve(args.hands, ctx.quick)
  for name in (args.p0, args.p1):
    policies.check_name(name)
  game = games.load_game(args.game)
  result = play(game, [args.p0, args.p1], hands, ctx.seed, progress=ctx.progress)
  tables.write_csv(summary_frame(result), ctx.out / "head_to_head.csv")
  return ReportSection(
      title=f"Head to head: {args.p0} vs {args.p1}",
      markdown=summary_markdown(result),
      tables=["head_to_head.csv"],
      checks=[checks.within(f"head-to-head {args.p0} vs {args.p1} on {args.game}: chips per "
                            "hand", result.mean, result.exact, result.half_width,
                            "exact policy_value; tolerance = 95% confidence half-width")])
