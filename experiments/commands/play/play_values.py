"""Exact values for ``play``: what a person can expect against a fixed opponent, and hints.

The opponent plays a fixed policy sigma_o; the person sits in seat p. Three numbers describe the
match-up, each the exact expected chips per hand for seat p:

* the equilibrium player's value u_p(sigma*_p, sigma_o), where sigma* is the reference
  equilibrium (``experiments.harness.policies.reference_equilibrium``: the closed form for
  three-card Kuhn, else the sequence-form LP), computed with OpenSpiel's
  ``expected_game_score.policy_value``;
* the best responder's value max_pi u_p(pi, sigma_o), the most any person can expect, from
  OpenSpiel's ``best_response.BestResponsePolicy``;
* the game value of seat p, u_p(sigma*), what an equilibrium player expects against an
  equilibrium opponent.

A hint is the exact value of each legal action a at the person's information set I,

    Q(I, a) = sum_{h in I} pi_o,c(h) q(h, a) / sum_{h in I} pi_o,c(h),

where pi_o,c(h) is the probability that chance and the opponent's policy play to history h (the
posterior over the opponent's private cards given the betting) and q(h, a) the expected chips
after a when the person then plays the best response to sigma_o (``BestResponsePolicy.q_value``).

The referee game ``kuhn_poker_referee`` has so many announcements that its tree is too large for
these walks at its default size; there the equilibrium opponent is the subgame-perfect one of
``algorithms.exact.pbs_minimax`` (exact expectiminimax on public belief states), and its values and
hints come from the same solver: against a subgame-perfect opponent in a perfect-information game
nobody expects more than the game value, which the minimax player attains, so the equilibrium
player's and best responder's values are both the game value, and the hint of an announcement is
the value of the belief states it leads to.

Tree-walking values are computed only for trees of at most ``MAX_EXACT_NODES`` nodes, estimated
with Knuth's estimator (D. E. Knuth, "Estimating the efficiency of backtrack programs",
Mathematics of Computation 29, 1975): the mean over random root-to-leaf probes of
1 + b_1 + b_1 b_2 + ..., b_k the number of actions at the k-th node of the probe, an unbiased
estimate of the number of nodes.
"""

import dataclasses
import fractions
from typing import Dict, List, Optional, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response
from open_spiel.python.algorithms import expected_game_score
import pyspiel

from algorithms.exact import pbs_minimax
from experiments.commands.play import captions
from experiments.harness import policies
from spiel_games import kuhn_poker_referee

MAX_EXACT_NODES = 50_000
_PROBES = 64


def estimated_tree_size(game: pyspiel.Game, probes: int = _PROBES, seed: int = 0) -> float:
  """Knuth's unbiased estimate of the number of nodes of the game tree (module docstring)."""
  rng = np.random.default_rng(seed)
  total = 0.0
  for _ in range(probes):
    state = game.new_initial_state()
    weight, size = 1.0, 1.0
    while not state.is_terminal():
      actions = state.legal_actions()
      weight *= len(actions)
      size += weight
      state.apply_action(actions[rng.integers(len(actions))])
    total += size
  return total / probes


def is_referee(game: pyspiel.Game) -> bool:
  return game.get_type().short_name == kuhn_poker_referee.SHORT_NAME


class MinimaxAnnouncer(policy_lib.Policy):
  """The subgame-perfect player of ``kuhn_poker_referee`` (both seats): at every state, the
  announcement that ``algorithms.exact.pbs_minimax`` finds optimal at its public belief state."""

  def __init__(self, game: pyspiel.Game):
    super().__init__(game, [0, 1])
    self.solver = pbs_minimax.PbsMinimax.from_game(game)

  def action_probabilities(self, state, player_id=None) -> Dict[int, float]:
    del player_id
    return {self.solver.best_announcement(state.pbs): 1.0}


class LastAction(policy_lib.Policy):
  """Always the last legal action (``always-bet``: bet, or call facing a bet), for any game."""

  def __init__(self, game: pyspiel.Game):
    super().__init__(game, list(range(game.num_players())))

  def action_probabilities(self, state, player_id=None) -> Dict[int, float]:
    del player_id
    return {state.legal_actions()[-1]: 1.0}


@dataclasses.dataclass
class Opponent:
  """A named opponent: its policy (for both seats) and how it was made."""

  name: str
  policy: policy_lib.Policy
  description: str


def make_opponent(game: pyspiel.Game, name: str, seed: int, progress: bool) -> Opponent:
  """The opponent called ``name`` (``experiments.harness.policies.POLICY_NAMES``).

  In the referee game ``equilibrium`` is the subgame-perfect ``MinimaxAnnouncer`` and
  ``uniform`` and ``always-bet`` are computed per state, as the game is too large for tables.

  Raises:
    ValueError: one line, for a bad name or a policy file of another game.
  """
  policies.check_name(name)
  if is_referee(game) and name in ("equilibrium", "uniform", "always-bet"):
    if name == "equilibrium":
      return Opponent(name, MinimaxAnnouncer(game), captions.CAPTIONS["minimax_opponent"])
    if name == "uniform":
      return Opponent(name, policy_lib.UniformRandomPolicy(game),
                      "uniform over the legal announcements")
    return Opponent(name, LastAction(game), "always announces bet/call with every card")
  if name == "equilibrium":
    reference = policies.reference_equilibrium(game)
    article = "the closed-form" if reference.source == "closed form" else "an"
    return Opponent(name, reference.policy,
                    f"{article} equilibrium" + ("" if article == "the closed-form" else
                                                 f" from the {reference.source}"))
  if name == "uniform":
    description = "uniform over the legal actions"
  elif name == "always-bet":
    description = captions.CAPTIONS["always_bet_opponent"]
  elif name.startswith("file:"):
    description = f"policy file {name[len('file:'):]}"
  else:
    solver, iterations = policies.parse_solver_spec(name)
    description = f"average policy of {solver} after {iterations} iterations"
  return Opponent(name, policies.make_policy(game, name, seed, progress), description)


@dataclasses.dataclass(frozen=True)
class SeatValues:
  """Exact expected chips per hand for one seat against the opponent (module docstring).

  Attributes:
    equilibrium: the equilibrium player's value.
    best_response: the best responder's value, or None when the tree is too large.
    game_value: the game value of the seat.
  """

  equilibrium: float
  best_response: Optional[float]
  game_value: float


class MatchValues:
  """Exact values of seat 0 and seat 1 against one opponent, and hints at the person's states."""

  def __init__(self, game: pyspiel.Game, opponent: Opponent, seats: List[int]):
    """Computes the values of the seats in ``seats``.

    Args:
      game: a two-player game.
      opponent: the opponent.
      seats: the seats the person will take.
    """
    self.game = game
    self.opponent = opponent
    self.tree_size = estimated_tree_size(game)
    self.walkable = self.tree_size <= MAX_EXACT_NODES
    self._minimax = isinstance(opponent.policy, MinimaxAnnouncer)
    root = game.new_initial_state()
    if is_referee(game):
      equilibrium = (opponent.policy if self._minimax else MinimaxAnnouncer(game))
      value_0 = float(equilibrium.solver.value(root.pbs))
      self.equilibrium_source = "subgame-perfect, from algorithms.exact.pbs_minimax"
    else:
      reference = policies.reference_equilibrium(game)
      equilibrium, value_0 = reference.policy, reference.value
      self.equilibrium_source = reference.source
    self._responders: Dict[int, best_response.BestResponsePolicy] = {}
    self.seats: Dict[int, SeatValues] = {}
    for seat in sorted(set(seats)):
      pair = [opponent.policy, opponent.policy]
      pair[seat] = equilibrium
      eq_value = float(expected_game_score.policy_value(root, pair)[seat])
      game_value = value_0 if seat == 0 else -value_0
      if self._minimax:
        br_value = game_value
      elif self.walkable:
        self._responders[seat] = best_response.BestResponsePolicy(game, seat, opponent.policy)
        br_value = float(self._responders[seat].value(root))
      else:
        br_value = None
      self.seats[seat] = SeatValues(eq_value, br_value, game_value)
    self.sources = [f"equilibrium: {self.equilibrium_source}",
                    captions.CAPTIONS["minimax_values" if self._minimax else "exact_values"]]

  @property
  def hints_available(self) -> bool:
    return self._minimax or self.walkable

  @property
  def continuation(self) -> str:
    """How the person is assumed to play after the hinted action."""
    return captions.CAPTIONS["minimax_continuation" if self._minimax
                             else "best_response_continuation"]

  def hints(self, state: pyspiel.State, seat: int
            ) -> Tuple[Dict[int, float], List[Tuple[pyspiel.State, float]]]:
    """Exact values of the person's legal actions at ``state`` (module docstring).

    Returns:
      ({action: value for seat}, [(history, posterior probability)]): the histories of the
      person's information set with their probabilities given the person's information (empty
      for the referee game, whose belief is public).

    Raises:
      ValueError: if hints are not available for this game and opponent.
    """
    if self._minimax:
      return self._referee_hints(state, seat), []
    if not self.walkable:
      raise ValueError("hints need a game tree of at most "
                       f"{MAX_EXACT_NODES} nodes, this one has about {self.tree_size:.0f}")
    responder = self._responders[seat]
    histories = responder.infosets[state.information_state_string(seat)]
    total = sum(weight for _, weight in histories)
    values = {action: float(sum(weight * responder.q_value(h, action)
                                for h, weight in histories) / total)
              for action in state.legal_actions()}
    return values, [(h, weight / total) for h, weight in histories]

  def _referee_hints(self, state: pyspiel.State, seat: int) -> Dict[int, float]:
    """Sum over the referee's draws x of P(x | a) V(belief after a, x), for every a."""
    solver = self.opponent.policy.solver
    grid, deck = state.get_game().grid, state.get_game().rules.deck_size
    sign = 1.0 if seat == 0 else -1.0
    values = {}
    for action in state.legal_actions():
      numerators = kuhn_poker_referee.decode_announcement(action, grid, deck)
      announced = [fractions.Fraction(k, grid) for k in numerators]
      value = fractions.Fraction(0)
      for draw, probability in enumerate(state.pbs.action_probabilities(announced)):
        if probability > 0:
          child, _ = state.pbs.update(announced, draw)
          value += probability * solver.value(child)
      values[action] = sign * float(value)
    return values
