"""Helpers shared by the tests: games OpenSpiel does not register, brute-force best responses,
exact enumerations and the sweeps several test modules run.

* ``constant_sum_kuhn`` / ``load``: OpenSpiel registers no constant-sum game (every registered game
  is zero-sum, general-sum or identical-interest), so ``constant_sum_kuhn`` builds one:
  ``kuhn_poker(players=n)`` exported by OpenSpiel's Gambit writer
  (``open_spiel.python.algorithms.gambit.export_gambit``) with every payoff raised by the same
  constant, loaded back with ``pyspiel.load_efg_game``, which types it CONSTANT_SUM.
* ``best_response_value`` / ``exploitability``: exact best-response values by brute force over
  pure strategies. A best response to a fixed opponent policy is attained by a pure strategy (the
  expected value is linear in the responder's mixed strategy, and a linear function on a product
  of simplices is maximised at a vertex). For a responder with k information sets of two actions
  there are 2 ** k pure strategies: 64 for three-card Kuhn poker. Each is evaluated with
  OpenSpiel's ``expected_game_score.policy_value``, so the result depends on no best-response
  code at all: an independent check of ``best_response.BestResponsePolicy``, ``pyspiel``'s best
  responses and every exploitability they feed.
* ``uniform_profile_ties``: exact ties of the uniform profile, by a walk in fractions.
* ``kuhn_value``: player 0's value of a Kuhn profile by direct enumeration of ``KuhnRules``.
* ``sweep_jobs`` / ``numbers``: a small sweep of mixed solvers and what its results computed;
  ``RecordingExecutor``: the serial executor, recording what it ran, interrupted on request.
* ``compact_tables``: markdown with the cells of its tables unpadded, to look for a row.
* ``REPO``: the checkout's root folder.
"""

import collections
import dataclasses
import fractions
import itertools
import pathlib
import re
import signal
from typing import List

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import gambit
import pyspiel

from experiments.harness import executors
from experiments.harness import jobs

REPO = pathlib.Path(__file__).resolve().parents[1]
# A two-player zero-sum game with no public-state view (hidden bids: no public observation and
# no registered view), the game the ReBeL tools refuse in one line.
HIDDEN_BIDS = ("turn_based_simultaneous_game(game=goofspiel(num_cards=3,imp_info=True,"
               "points_order=descending))")

_PAYOFFS = re.compile(r"\{ ([-0-9. e]+) \}")


def default_ctrl_c() -> None:
  """``preexec_fn`` of a child whose Ctrl-C is under test: SIGINT at its default, unblocked.

  A child inherits the test process's ignored and blocked signals, and Python keeps SIGINT
  ignored if it starts ignored. In full suite runs the two Ctrl-C tests saw children that never
  raised KeyboardInterrupt (exit 0 instead of 130, a prompt that ignored ^C) while passing on
  their own; the inheriting state was not traced to a test. A user's shell starts the command
  with SIGINT at its default, which this restores.
  """
  signal.signal(signal.SIGINT, signal.SIG_DFL)
  signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


def constant_sum_kuhn(players: int = 3, shift: float = 2.0) -> pyspiel.Game:
  """``kuhn_poker(players=players)`` with u_p(z) + ``shift`` for every player and terminal."""
  text = gambit.export_gambit(pyspiel.load_game(f"kuhn_poker(players={players})"))

  def shifted(match):
    return "{ " + " ".join(repr(float(v) + shift) for v in match.group(1).split()) + " }"

  lines = [_PAYOFFS.sub(shifted, line) if line.lstrip().startswith("t ") else line
           for line in text.splitlines()]
  return pyspiel.load_efg_game("\n".join(lines))


# Games built here, by the name the tests use in place of a game string.
BUILT = {"constant_sum_kuhn": constant_sum_kuhn}


def load(spec: str) -> pyspiel.Game:
  """A game of ``BUILT`` by name, else ``pyspiel.load_game(spec)``."""
  return BUILT[spec]() if spec in BUILT else pyspiel.load_game(spec)


MAX_PURE_STRATEGIES = 4096


def _pure_strategies(game: pyspiel.Game, player: int) -> List[policy_lib.TabularPolicy]:
  """Every pure strategy of ``player`` as a TabularPolicy (other players' rows uniform)."""
  table = policy_lib.TabularPolicy(game)
  rows = table.states_per_player[player]
  choices = [table.legal_actions_mask[table.state_lookup[key]].nonzero()[0] for key in rows]
  count = 1
  for c in choices:
    count *= len(c)
  if count > MAX_PURE_STRATEGIES:
    raise ValueError(f"{count} pure strategies is too many to enumerate")
  out = []
  for combination in itertools.product(*choices):
    pure = table.__copy__()
    for key, action in zip(rows, combination):
      row = pure.state_lookup[key]
      pure.action_probability_array[row] = 0.0
      pure.action_probability_array[row, action] = 1.0
    out.append(pure)
  return out


def best_response_value(game: pyspiel.Game, opponent: policy_lib.Policy, player: int) -> float:
  """The max over ``player``'s pure strategies of its expected return against ``opponent``."""
  root = game.new_initial_state()
  best = -float("inf")
  for pure in _pure_strategies(game, player):
    policies = [opponent, opponent]
    policies[player] = pure
    best = max(best, float(expected_game_score.policy_value(root, policies)[player]))
  return best


def exploitability(game: pyspiel.Game, policy: policy_lib.Policy) -> float:
  """(BR_0 + BR_1) / 2 for a two-player zero-sum game: OpenSpiel's definition (NashConv / 2)."""
  return (best_response_value(game, policy, 0) + best_response_value(game, policy, 1)) / 2


def uniform_profile_ties(game):
  """The information states where two actions have exactly equal counterfactual values when
  every player plays uniformly, by an exact walk in fractions (chance probabilities and returns
  read as the nearest fractions with denominators up to 10^6: all are simple fractions here)."""
  num_players = game.num_players()

  def exact(v):
    return fractions.Fraction(v).limit_denominator(10**6)

  values = collections.defaultdict(lambda: collections.defaultdict(fractions.Fraction))

  def walk(state, reach):  # reach: each player's, then chance's; returns every player's value.
    if state.is_terminal():
      return [exact(r) for r in state.returns()]
    if state.is_chance_node():
      outcomes = [(a, exact(p)) for a, p in state.chance_outcomes()]
    else:
      pl = state.current_player()
      outcomes = [(a, fractions.Fraction(1, len(state.legal_actions())))
                  for a in state.legal_actions()]
      others = np.prod([reach[j] for j in range(num_players + 1) if j != pl])
    total = [fractions.Fraction(0)] * num_players
    for a, p in outcomes:
      child_reach = list(reach)
      child_reach[-1 if state.is_chance_node() else pl] *= p
      child = walk(state.child(a), child_reach)
      if not state.is_chance_node():
        values[state.information_state_string(pl)][a] += others * child[pl]
      total = [t + p * c for t, c in zip(total, child)]
    return total

  walk(game.new_initial_state(), [fractions.Fraction(1)] * (num_players + 1))
  return sorted(k for k, q in values.items() if len(set(q.values())) < len(q))


def kuhn_value(rules, bet_0, bet_1):
  """Player 0's expected return by direct enumeration of deals and betting histories with
  ``KuhnRules`` (independent of OpenSpiel's tree walk); bet_i(card, history) is player i's
  probability of action 1 (bet/call)."""
  total = 0.0
  for cards in rules.deals():
    stack = [("", 1.0)]
    while stack:
      history, reach = stack.pop()
      if rules.is_terminal(history):
        total += float(rules.deal_probability()) * reach * rules.returns(history, cards)[0]
        continue
      player = rules.current_player(history)
      p_bet = (bet_0, bet_1)[player](cards[player], history)
      stack += [(history + "p", reach * (1 - p_bet)), (history + "b", reach * p_bet)]
  return total


class RecordingExecutor(executors.Serial):
  """The serial executor, recording which jobs (or tasks) it ran; raises KeyboardInterrupt (as
  Ctrl-C would) instead of running ``interrupt_on``."""

  def __init__(self, interrupt_on=None):
    self.ran, self.interrupt_on = [], interrupt_on

  def run(self, fn, todo):
    for job in todo:
      if job == self.interrupt_on:
        raise KeyboardInterrupt
      self.ran.append(job)
      yield job, fn(job)


def sweep_jobs():
  # A deterministic solver, a seeded sampled solver (two seeds) and OpenSpiel's MCCFR, which
  # draws from NumPy's global generator (the registry swaps a per-solver state in under a lock).
  return [jobs.Job("t", "kuhn_poker", "our_cfr", 0, 20, measure_at=(1, 5)),
          jobs.Job("t", "kuhn_poker", "cs_cfr", 0, 40),
          jobs.Job("t", "kuhn_poker", "cs_cfr", 1, 40),
          jobs.Job("t", "kuhn_poker", "mccfr_external", 3, 30, keep_policy=True)]


def numbers(results):
  """What a result computed, without its timings and provenance."""
  return [(r.job, {k: v for k, v in dataclasses.asdict(r.solved).items() if k != "seconds"})
          for r in results]


def compact_tables(text: str) -> str:
  """``text`` with every markdown table line's cells stripped (``DataFrame.to_markdown`` pads
  each to its column's width), so a test can look for a row as ``| a | b |``; an escaped bar
  stays inside its cell."""
  lines = []
  for line in text.splitlines():
    if line.startswith("|"):
      cells = re.split(r"(?<!\\)\|", line)[1:-1]
      line = "| " + " | ".join(c.strip() for c in cells) + " |"
    lines.append(line)
  return "\n".join(lines)

