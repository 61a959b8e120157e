"""Public belief states (PBS) of Kuhn poker variants.

A public belief state (Brown, Bakhtin, Lerer, Gong, "Combining Deep Reinforcement Learning and
Search for Imperfect-Information Games", NeurIPS 2020, arXiv 2007.13544, Section 3) is a public
state together with the common-knowledge distribution over the players' private states. In Kuhn
poker the public state is the betting history and the private states are the two cards. The cards
are dealt without replacement, so the belief is a JOINT distribution over the ordered deals
``(card of player 0, card of player 1)`` in the order of ``KuhnRules.deals()``, not a pair of
independent vectors.

Arithmetic is exact (``fractions.Fraction``). Two reasons:

* memoization: a PBS is a dictionary key for the exact solvers, and two PBSs reached by different
  routes are equal exactly when their beliefs are equal as rational numbers; with floats the same
  belief reached through a different order of Bayes updates can differ in the last bit and the
  memo would silently miss (rounding to k digits instead would merge beliefs that differ);
* the public-referee game announces probabilities k / grid, so every belief it reaches is
  rational with small denominators, and values come out exact (e.g. -1/18).

Floats passed in (reach probabilities, announced probabilities) are converted exactly with
``Fraction(x)``; a caller who wants nearby float beliefs to share a key must round them first.
``belief_array`` gives the belief as a float array for vectorized consumers.
"""

import dataclasses
import fractions
from typing import Sequence, Tuple

import numpy as np

from spiel_games.kuhn_rules import ACTION_CHARS
from spiel_games.kuhn_rules import BET
from spiel_games.kuhn_rules import PASS
from spiel_games.kuhn_rules import KuhnRules

Fraction = fractions.Fraction


def _as_fractions(values: Sequence[float], name: str) -> Tuple[Fraction, ...]:
  """Converts numbers exactly to non-negative Fractions, or raises ValueError."""
  out = tuple(Fraction(v) for v in values)
  if any(v < 0 for v in out):
    raise ValueError(f"{name} must be non-negative, got {[str(v) for v in out]}")
  return out


def _check_length(values: Sequence[float], length: int, name: str) -> None:
  if len(values) != length:
    raise ValueError(f"{name} must have {length} entries, got {len(values)}")


def _joint_weights(rules: KuhnRules, reach_0: Sequence[float],
                   reach_1: Sequence[float]) -> Tuple[Fraction, ...]:
  """chance(d) * reach_0(card_0(d)) * reach_1(card_1(d)) for every ordered deal d."""
  n = rules.deck_size
  _check_length(reach_0, n, "reach_0")
  _check_length(reach_1, n, "reach_1")
  r0 = _as_fractions(reach_0, "reach_0")
  r1 = _as_fractions(reach_1, "reach_1")
  chance = rules.deal_probability()
  return tuple(chance * r0[c0] * r1[c1] for c0, c1 in rules.deals())


@dataclasses.dataclass(frozen=True)
class PublicBeliefState:
  """An immutable public belief state of a Kuhn poker variant.

  Attributes:
    rules: the variant.
    history: the public betting history, a string over "p" (pass) and "b" (bet); a prefix of a
      terminal history of ``rules`` or a terminal history.
    belief: ``belief[i]`` is the common-knowledge probability of deal ``rules.deals()[i]``; exact
      Fractions summing to 1 (inputs are converted exactly).
  """

  rules: KuhnRules
  history: str
  belief: Tuple[Fraction, ...]

  def __post_init__(self):
    valid = set(self.rules.decision_histories()) | set(self.rules.terminal_histories)
    if self.history not in valid:
      raise ValueError(
          f"history {self.history!r} is not a betting history of these rules; allowed: "
          f"{sorted(valid, key=lambda h: (len(h), h))}")
    _check_length(self.belief, len(self.rules.deals()), "belief")
    belief = _as_fractions(self.belief, "belief")
    if sum(belief) != 1:
      raise ValueError(f"belief must sum to 1, got {sum(belief)}")
    object.__setattr__(self, "belief", belief)

  # Construction.

  @classmethod
  def initial(cls, rules: KuhnRules) -> "PublicBeliefState":
    """The PBS before any action: uniform over the n (n - 1) ordered deals."""
    deals = rules.deals()
    return cls(rules, "", (rules.deal_probability(),) * len(deals))

  @classmethod
  def from_reaches(cls, rules: KuhnRules, history: str, reach_0: Sequence[float],
                   reach_1: Sequence[float]) -> "PublicBeliefState":
    """The PBS at ``history`` given each player's reach probability of each private card.

    belief(d) = chance(d) reach_0(c_0(d)) reach_1(c_1(d)) / Z, with Z = ``reach_mass(...)``:
    the posterior over deals of a public state reached under behaviour strategies whose
    probabilities of playing to ``history`` holding card c are reach_i(c) (ReBeL, Section 3;
    the leaf PBS of CFR-D / CFR-AVG, Burch et al., AAAI 2014).

    Args:
      rules: the variant.
      history: the public betting history.
      reach_0: player 0's reach probability for each of its cards (length ``deck_size``).
      reach_1: player 1's reach probability for each of its cards.

    Raises:
      ValueError: if Z = 0 (the public state is unreachable and has no belief), or the inputs
        are malformed.
    """
    weights = _joint_weights(rules, reach_0, reach_1)
    total = sum(weights)
    if total == 0:
      raise ValueError(
          f"total reach of history {history!r} is zero: no deal is reachable, so the belief is "
          "undefined (check reach_mass(...) > 0 first)")
    return cls(rules, history, tuple(w / total for w in weights))

  @staticmethod
  def reach_mass(rules: KuhnRules, reach_0: Sequence[float],
                 reach_1: Sequence[float]) -> Fraction:
    """The unnormalised mass Z = sum_d chance(d) reach_0(c_0(d)) reach_1(c_1(d)).

    Z is the probability of reaching the public history when chance deals uniformly and the
    players play to it with these reach probabilities; it normalises ``from_reaches``.
    """
    return sum(_joint_weights(rules, reach_0, reach_1), Fraction(0))

  # Queries.

  @property
  def deals(self) -> Tuple[Tuple[int, int], ...]:
    return self.rules.deals()

  @property
  def is_terminal(self) -> bool:
    return self.rules.is_terminal(self.history)

  @property
  def current_player(self) -> int:
    """The player to act (0 or 1); raises ValueError at a terminal history."""
    if self.is_terminal:
      raise ValueError(f"history {self.history!r} is terminal: nobody acts")
    return self.rules.current_player(self.history)

  def marginal(self, player: int) -> Tuple[Fraction, ...]:
    """P(card of ``player`` = c) = sum of belief(d) over deals d with c_player(d) = c."""
    if player not in (0, 1):
      raise ValueError(f"player must be 0 or 1, got {player}")
    out = [Fraction(0)] * self.rules.deck_size
    for (c0, c1), b in zip(self.deals, self.belief):
      out[(c0, c1)[player]] += b
    return tuple(out)

  def belief_array(self) -> np.ndarray:
    """The belief as a float64 array over ``deals``."""
    return np.array([float(b) for b in self.belief])

  def _check_policy(self, policy: Sequence[float]) -> Tuple[Fraction, ...]:
    _check_length(policy, self.rules.deck_size, "policy")
    out = _as_fractions(policy, "policy")
    if any(p > 1 for p in out):
      raise ValueError(f"policy entries are probabilities in [0, 1], got {[str(p) for p in out]}")
    return out

  def action_probabilities(self, policy: Sequence[float]) -> Tuple[Fraction, Fraction]:
    """(P(pass), P(bet)) when the acting player i follows ``policy``.

    P(bet) = sum_d belief(d) policy[c_i(d)], where ``policy[c]`` is the probability of the
    aggressive action (bet, or call when facing a bet) holding card c.
    """
    probs = self._check_policy(policy)
    i = self.current_player
    bet = sum((b * probs[deal[i]] for deal, b in zip(self.deals, self.belief)), Fraction(0))
    return 1 - bet, bet

  def update(self, policy: Sequence[float], action: int) -> Tuple["PublicBeliefState", Fraction]:
    """Bayes' rule after the acting player, announcing ``policy``, takes ``action``.

    With a(c) = policy[c] for a bet and 1 - policy[c] for a pass, and i the acting player,
    belief'(d) = belief(d) a(c_i(d)) / P(action), P(action) = sum_d belief(d) a(c_i(d))
    (ReBeL, Section 3: the PBS transition of the discrete representation).

    Args:
      policy: probability of the aggressive action for each card of the acting player.
      action: 0 (pass) or 1 (bet).

    Returns:
      The PBS after the action, and P(action).

    Raises:
      ValueError: on a terminal history, a malformed policy or action, or P(action) = 0.
    """
    if action not in (PASS, BET):
      raise ValueError(f"action must be {PASS} (pass) or {BET} (bet), got {action}")
    probs = self._check_policy(policy)
    i = self.current_player
    likelihood = probs if action == BET else tuple(1 - p for p in probs)
    weights = [b * likelihood[deal[i]] for deal, b in zip(self.deals, self.belief)]
    total = sum(weights, Fraction(0))
    if total == 0:
      raise ValueError(
          f"action {action} has probability zero after history {self.history!r} "
          "under this policy and belief")
    child = PublicBeliefState(self.rules, self.history + ACTION_CHARS[action],
                              tuple(w / total for w in weights))
    return child, total

  def expected_returns(self) -> Tuple[Fraction, Fraction]:
    """sum_d belief(d) returns(history, d) for both players, at a terminal history.

    The returns come from ``KuhnRules.returns``; floats are converted exactly, so the result is
    exact for the given ante and bet.
    """
    if not self.is_terminal:
      raise ValueError(f"history {self.history!r} is not terminal")
    value = sum((b * Fraction(self.rules.returns(self.history, deal)[0])
                 for deal, b in zip(self.deals, self.belief)), Fraction(0))
    return value, -value

  def __str__(self) -> str:
    """E.g. ``history=p belief[JQ=1/5 JK=1/5 QJ=3/10 QK=3/10 KJ=0 KQ=0]`` (``short_number``)."""
    name = self.rules.card_name
    cells = " ".join(f"{name(c0)}{name(c1)}={short_number(b)}"
                     for (c0, c1), b in zip(self.deals, self.belief))
    return f"history={self.history or '-'} belief[{cells}]"


# Largest denominator printed as an exact fraction.
MAX_PRINTED_DENOMINATOR = 1000


def short_number(value: Fraction) -> str:
  """A probability for display: exact (``3/10``) when its denominator is at most 1000, else
  ``~`` and 4 significant digits (``~0.2591``), e.g. for a belief converted exactly from floats
  (``PublicBeliefState.from_reaches`` with float reaches), whose denominators are powers of 2
  with 17 digits. Display only: states compare by their exact beliefs."""
  if value.denominator <= MAX_PRINTED_DENOMINATOR:
    return str(value)
  return f"~{float(value):.4g}"
