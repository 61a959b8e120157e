"""Play against the solver in the terminal: ``python -m experiments play [options]``.

A person plays hands of a two-player game against a fixed opponent policy. Each hand shows the
person's card, the betting so far, the pot and the moves with the keys that choose them; after
each hand the opponent's card, the result and the running total with its 95% interval
(mean +- 1.96 s / sqrt(n), s the sample standard deviation: the central limit theorem). Before
the first hand the exact expected chips per hand of the match-up are printed for each seat the
person takes (``experiments.commands.play.play_values``): what an equilibrium player and what a best
responder would earn against this opponent, and the game value. ``--hints`` shows, before each
decision, the exact value of each move against the opponent's policy, beside what to type for it.

Games: Kuhn poker variants (``kuhn_poker``, ``kuhn_poker_ante(...)``), the referee game
``kuhn_poker_referee(...)``, where a move is an announcement typed as one probability per card
(``1/3 0 1``, also the form its hints show), and any other two-player zero-sum sequential game
in its own words (e.g. ``leduc_poker``). Opponents: ``experiments.harness.policies`` names
(``equilibrium``, ``uniform``, ``always-bet``, ``SOLVER:ITERATIONS``, ``file:PATH``).

Deals and the opponent's choices of hand k come from random generators seeded with
(seed, k), so a seed replays the same deals whatever the person plays. ``q``, Ctrl-D or Ctrl-C
stop the match with a summary (exit status 0, or 130 after Ctrl-C); ``--transcript PATH`` keeps
a plain-text record, rewritten atomically after every hand and at the end (a PATH whose folder is
missing or not writable is refused before the match starts, exit status 2).
"""

import argparse
import math
import os
import pathlib
import secrets
import sys
import tempfile
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
import pyspiel

from experiments.commands.play import captions
from experiments.commands.play import play_values
from experiments.commands.play import play_view
from experiments.commands.play.play_view import chips
from experiments.commands.play.play_view import counted
from experiments.commands.play.play_view import line
from experiments.harness import arguments
from experiments.harness import context
from experiments.harness import game_loader
from experiments.harness import policies
from experiments.harness.script_runner import EXIT_INTERRUPTED
from spiel_games.atomic_file import atomic_write_text

Z_95 = 1.959963984540054  # Standard normal 97.5% quantile.
NAME = "play"
HELP = "play a two-player game against a solver in the terminal"
SEATS = ("0", "1", "alternate")
DEFAULT_HANDS = 10


class Quit(Exception):
  """The person typed q."""


class UsageError(ValueError):
  """Bad command-line options (one line)."""


class _Parser(argparse.ArgumentParser):

  def error(self, message):
    raise UsageError(message)


def build_parser(prog: str) -> argparse.ArgumentParser:
  parser = _Parser(prog=prog,
                   description="Play a two-player game against a solver in the terminal.")
  parser.add_argument("--game", default="kuhn_poker_ante", metavar="GAME_STRING",
                      help='OpenSpiel game string (default kuhn_poker_ante), e.g. '
                           '"kuhn_poker_ante(ante=2.0)", "kuhn_poker_referee", leduc_poker')
  parser.add_argument("--opponent", default="equilibrium", metavar="NAME",
                      help=f"the opponent's policy: {', '.join(policies.POLICY_NAMES)} "
                           "(default equilibrium)")
  parser.add_argument("--seat", default="alternate", choices=SEATS,
                      help="your seat: 0 acts first, 1 second (default alternate)")
  parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, metavar="N",
                      help=f"hands to play (default {DEFAULT_HANDS})")
  parser.add_argument("--seed", type=int, default=None, metavar="S",
                      help="seed of the deals and the opponent's choices (default: random, "
                           "printed)")
  parser.add_argument("--hints", action="store_true",
                      help="show the exact value of each of your moves before you choose")
  parser.add_argument("--transcript", type=pathlib.Path, default=None, metavar="PATH",
                      help="write a plain-text record of the match to PATH")
  parser.add_argument("--max-minutes", type=arguments.positive_float,
                      default=arguments.DEFAULT_MAX_MINUTES, metavar="M",
                      help="refuse an opponent SOLVER:ITERATIONS whose solver run is estimated "
                      f"to take longer than M minutes (default: "
                      f"{arguments.DEFAULT_MAX_MINUTES:g})")
  return parser


class Scoreboard:
  """The person's results so far, by seat."""

  def __init__(self):
    self.results: List[float] = []
    self.seats: List[int] = []

  def add(self, seat: int, result: float) -> None:
    self.seats.append(seat)
    self.results.append(result)

  @property
  def total(self) -> float:
    return float(sum(self.results))

  def summary(self) -> str:
    """``+3 after 10 hands: +0.300 per hand, 95% interval [-0.52, +1.12]``."""
    n = len(self.results)
    text = f"{chips(self.total)} after {counted(n, 'hand')}"
    if n < 2:
      return text + " (the 95% interval needs 2 hands)"
    mean = self.total / n
    spread = float(np.std(self.results, ddof=1))
    if spread == 0:  # A normal interval of zero width would claim certainty from few hands.
      return f"{text}: {mean:+.3f} per hand (no 95% interval while every hand gave the same result)"
    half = Z_95 * spread / math.sqrt(n)
    return (f"{text}: {mean:+.3f} per hand, 95% interval [{mean - half:+.3f}, "
            f"{mean + half:+.3f}]")


def _sample(rng: np.random.Generator, probabilities: Dict[int, float]) -> int:
  actions = sorted(probabilities)
  weights = np.array([max(float(probabilities[a]), 0.0) for a in actions])
  return actions[int(rng.choice(len(actions), p=weights / weights.sum()))]


def _seat_label(seat: int) -> str:
  return f"as player {seat}"


class Match:
  """One match: the game, the opponent, the person's seats, and the terminal."""

  def __init__(self, args: argparse.Namespace, game: pyspiel.Game,
               opponent: play_values.Opponent, say: Callable[[str], None],
               ask: Callable[[str], str]):
    self.args = args
    self.game = game
    self.opponent = opponent
    self.view = play_view.view_for(game)
    self.say = say
    self.ask = ask
    self.seed = args.seed
    self.scores = Scoreboard()
    self.transcript: List[str] = []
    seats = [0, 1] if args.seat == "alternate" else [int(args.seat)]
    self.values = play_values.MatchValues(game, opponent, seats)
    self.hints = args.hints and self.values.hints_available

  def seat_of(self, hand: int) -> int:
    if self.args.seat == "alternate":
      return (hand - 1) % 2
    return int(self.args.seat)

  def record(self, *lines: str) -> None:
    """Adds lines to the transcript and rewrites its file (atomically)."""
    self.transcript.extend(lines)
    if self.args.transcript is not None:
      atomic_write_text(self.args.transcript, "\n".join(self.transcript) + "\n")

  def value_table(self) -> List[str]:
    """The exact values of the match-up, one column per seat the person takes."""
    seats = sorted(self.values.seats)
    rows = [("an equilibrium player", [self.values.seats[s].equilibrium for s in seats]),
            ("a best responder (the most anyone can)",
             [self.values.seats[s].best_response for s in seats]),
            ("the game value (equilibrium vs equilibrium)",
             [self.values.seats[s].game_value for s in seats])]
    cells = [[("n/a" if v is None else chips(v)) for v in values] for _, values in rows]
    width = max(len(c) for row in cells for c in row + [_seat_label(0)])
    label_width = max(len(name) for name, _ in rows)
    out = ["Exact expected chips per hand against this opponent:",
           "  " + " " * label_width + "".join(f"  {_seat_label(s):>{width}}" for s in seats)]
    for (name, _), row in zip(rows, cells):
      out.append(f"  {name:<{label_width}}" + "".join(f"  {c:>{width}}" for c in row))
    out += [f"  ({text})" for text in self.values.sources]
    if any(v.best_response is None for v in self.values.seats.values()):
      out.append("  " + captions.CAPTIONS.fill("no_best_response", nodes=self.values.tree_size,
                                                limit=play_values.MAX_EXACT_NODES))
    return out

  def header(self) -> List[str]:
    hands = self.args.hands
    seat = ("alternating seats, player 0 first" if self.args.seat == "alternate"
            else f"always {self.view.seat_name(int(self.args.seat))}")
    out = [*self.view.title().splitlines(),
           f"Opponent: {self.opponent.name}, {self.opponent.description}",
           f"{counted(hands, 'hand')}, {seat}; seed {self.seed}", ""]
    out += self.value_table()
    if self.args.hints and not self.hints:
      out.append(captions.CAPTIONS.fill("hints_off", nodes=self.values.tree_size,
                                        limit=play_values.MAX_EXACT_NODES))
    elif self.hints:
      out += captions.lines("hints", continuation=self.values.continuation)
    return out

  def show_hints(self, state: pyspiel.State, seat: int) -> None:
    values, posterior = self.values.hints(state, seat)
    best = max(values.values())
    moves = {m.action: m for m in self.view.moves(state)}
    lines = []
    text = self.view.posterior_text(posterior, seat)
    if text:
      lines.append(text)
    ranked = sorted(values, key=lambda a: (-values[a], a))
    shown = ranked[:self.view.max_hints()]
    name_width = max(len(moves[a].name) for a in shown)
    key_width = max(len(moves[a].key) for a in shown)
    for a in shown:
      mark = "   best" if values[a] >= best - 1e-12 else ""
      lines.append(f"{moves[a].key:{self.view.key_align}{key_width}}  "
                   f"{moves[a].name:<{name_width}}  "
                   f"{chips(values[a])}{mark}")
    if len(ranked) > len(shown):
      lines.append(f"... {counted(len(ranked), 'move')} in all; the worst "
                   f"{chips(values[ranked[-1]])}")
    for i, text in enumerate(lines):
      self.say(line("Hints" if i == 0 else "", text))

  def choose(self, state: pyspiel.State) -> int:
    legal = state.legal_actions()
    while True:
      text = self.ask(self.view.prompt(state)).strip()
      if text.lower() in play_view.QUIT_KEYS:
        raise Quit()
      action = self.view.parse(state, text)
      if action in legal:
        return action
      self.say(self.view.allowed(state))

  def play_hand(self, number: int) -> None:
    seat = self.seat_of(number)
    chance_rng = np.random.default_rng([self.seed, number, 0])
    opponent_rng = np.random.default_rng([self.seed, number, 1])
    state = self.game.new_initial_state()
    self.say("")
    self.say(f"Hand {number} of {self.args.hands}   you are {self.view.seat_name(seat)}")
    events: List[str] = []
    shown_private = False
    while not state.is_terminal():
      if state.is_chance_node():
        action = _sample(chance_rng, dict(state.chance_outcomes()))
      else:
        if not shown_private:
          for text in self.view.private_lines(state, seat):
            self.say(text)
          shown_private = True
        if state.current_player() == seat:
          for text in self.view.situation_lines(state, seat):
            self.say(text)
          if self.hints:
            self.show_hints(state, seat)
          action = self.choose(state)
        else:
          action = _sample(opponent_rng, self.opponent.policy.action_probabilities(state))
      event = self.view.event(state, action, seat)
      if event:
        events.append(event)
        self.say(f"  {event[0].upper()}{event[1:]}.")
      state.apply_action(action)
    result = float(state.returns()[seat])
    self.scores.add(seat, result)
    for text in self.view.end_lines(state, seat):
      self.say(text)
    verdict = (f"you win {chips(result, signed=False)}" if result > 0 else
               f"you lose {chips(-result, signed=False)}" if result < 0 else "nobody wins")
    self.say(line("Result", verdict))
    self.say(line("Total", self.scores.summary()))
    self.record(f"hand {number}  seat {seat}  {self.view.deal_record(state, seat)}  |  "
                f"{', '.join(events)}  |  result {chips(result)}  total {chips(self.scores.total)}")

  def expected_lines(self) -> List[str]:
    """Exact expectations per hand over the seats of the hands played, weighted by counts."""
    n = len(self.scores.seats)
    if n == 0:
      return []
    counts = {s: self.scores.seats.count(s) for s in (0, 1) if s in self.scores.seats}
    out = []
    for label, field in (("Equilibrium", "equilibrium"), ("Best response", "best_response")):
      values = [getattr(self.values.seats[s], field) for s in counts]
      if any(v is None for v in values):
        continue
      mean = sum(counts[s] * v for s, v in zip(counts, values)) / n
      out.append(line(label, f"expects {chips(mean)} per hand in the seats you played (exact)"))
    return out

  def finish(self, reason: str) -> None:
    counts = [f"{self.scores.seats.count(s)} {_seat_label(s)}" for s in (0, 1)
              if s in self.scores.seats]
    title = f"Summary ({reason}{': ' if counts else ''}{', '.join(counts)})"
    lines = [line("You", self.scores.summary())] + self.expected_lines()
    self.say("")
    self.say(title)
    for text in lines:
      self.say(text)
    self.record("", title, *lines)

  def run(self) -> int:
    """Plays the hands; returns the exit status (0, or 130 after Ctrl-C)."""
    header = self.header()
    for text in header:
      self.say(text)
    self.record(*header, "")
    status, reason = 0, f"{counted(self.args.hands, 'hand')} played"
    try:
      for number in range(1, self.args.hands + 1):
        self.play_hand(number)
    except Quit:
      reason = "you quit"
    except EOFError:
      self.say("")
      reason = "end of input"
    except KeyboardInterrupt:
      self.say("")
      status, reason = EXIT_INTERRUPTED, "interrupted"
    try:
      self.finish(reason)
    except KeyboardInterrupt:
      status = EXIT_INTERRUPTED
    return status


def check_transcript(path: pathlib.Path) -> None:
  """Refuses a transcript PATH that could not be written, before the match starts.

  The folder must exist and take a new file: a temporary file is created there and removed
  (the transcript itself is written atomically, through a temporary file in the same folder,
  after every hand). Raises UsageError (one line).
  """
  folder = path.parent
  if not folder.is_dir():
    raise UsageError(f"--transcript: folder {str(folder)!r} does not exist; give a PATH in an "
                     "existing, writable folder")
  if path.is_dir():
    raise UsageError(f"--transcript: {str(path)!r} is a folder; give a file PATH in an "
                     "existing, writable folder")
  try:
    fd, name = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
  except OSError as e:
    raise UsageError(f"--transcript: folder {str(folder)!r} is not writable ({e.strerror}); "
                     "give a PATH in an existing, writable folder") from None
  os.close(fd)
  os.unlink(name)


def check_args(args: argparse.Namespace) -> pyspiel.Game:
  """Validates the options; returns the game. Raises ValueError (one line)."""
  if args.hands < 1:
    raise UsageError(f"--hands must be a positive integer, got {args.hands}")
  if args.seed is not None and args.seed < 0:
    raise UsageError(f"--seed must be an integer >= 0, got {args.seed}")
  if args.transcript is not None:
    check_transcript(args.transcript)
  game = game_loader.load_game(args.game)
  policies.check_name(args.opponent)
  return game


def preparation_text(args: argparse.Namespace) -> str:
  """What is prepared before the first hand, with the estimated time of the opponent's solver
  run (``context.check_cost``, which refuses it over ``--max-minutes``: ValueError, one line)."""
  todo = context.policy_jobs(args.game, [args.opponent])
  if not todo:
    return "Preparing the opponent and the exact values ..."
  seconds = context.check_cost(todo, args.max_minutes, what="the opponent's solver run")
  return (f"Preparing the opponent ({args.opponent}, estimated {context.duration(seconds)}) "
          "and the exact values ...")


def main(argv: Optional[Sequence[str]] = None,
         say: Callable[[str], None] = lambda text: print(text, flush=True),
         ask: Callable[[str], str] = input, prog: str = "python -m experiments play") -> int:
  """Runs ``play``; returns the exit status (0 done or quit, 2 bad options, 130 Ctrl-C).

  Args:
    argv: the options (``sys.argv[1:]`` if None).
    say: prints a line.
    ask: reads the person's answer to a prompt.
    prog: the command's name in help and error messages.
  """
  try:
    args = build_parser(prog).parse_args(argv)
    game = check_args(args)
    if args.seed is None:
      args.seed = secrets.randbelow(2**31)
    say(preparation_text(args))
    opponent = play_values.make_opponent(game, args.opponent, args.seed,
                                         progress=sys.stderr.isatty())
    match = Match(args, game, opponent, say, ask)
  except (ValueError, OSError) as e:  # Bad options, or a policy file of another game.
    print(f"error: {e}", file=sys.stderr)
    return 2
  except KeyboardInterrupt:
    say("")
    return EXIT_INTERRUPTED
  try:
    return match.run()
  except OSError as e:  # The transcript could not be written.
    print(f"error: {e}", file=sys.stderr)
    return 1


if __name__ == "__main__":
  sys.exit(main())
