"""Observations of Kuhn poker variants in the formats of OpenSpiel's C++ ``kuhn_poker(players=N)``.

An observer turns a state into a tensor and a string for one player, according to an
``pyspiel.IIGObservationType`` (see ``open_spiel/python/observation.py``). The observation factors
into a public part, the betting sequence every player has seen, and a private part, the cards
(Kovarik et al., "Rethinking formal models of partially observable multiagent decision making",
2022). For the variants of OpenSpiel's C++ ``kuhn_poker(players=N)`` (ante = bet = 1, N + 1
cards) every observation type whose ``private_info`` is ``NONE`` or ``SINGLE_PLAYER`` gives
exactly that game's tensors and strings (examples for two players):

================  ============  =================================  =====================
private_info      public_info   perfect_recall=True                perfect_recall=False
================  ============  =================================  =====================
SINGLE_PLAYER     True          card + betting, ``"2pb"``          card + chips, ``"212"``
SINGLE_PLAYER     False         card, ``"2"``                      ``"Received card 2"``
NONE              True          betting, ``"pb"``                  last public event
================  ============  =================================  =====================

The first row is ``information_state_string`` and ``observation_string``. With ``private_info``
``NONE`` and ``public_info`` the string names the public state: the betting sequence, or before
any bet ``""`` (no card dealt), ``"Deal to player 0"``, ``"Deal to player 1"``, ... The
imperfect-recall public string is the last public event (``"start game"``, a deal, ``"Pass"`` or
``"Bet"``). The tensors have N entries for the player and the pot contributions and 2 N - 1 rows
of betting.

Other variants extend the formats: the card one-hot has ``deck_size`` entries, the betting tensor
has one row per action of the longest hand, pot contributions are the real chip amounts. Strings
concatenate their numbers as OpenSpiel does while every number is one character long (cards below
10, whole chip amounts below 10); otherwise the pieces are separated by single spaces, so that
the numbers can always be told apart (``"11 b"``, ``"0 2.5 1.5"``). The one exception keeps
OpenSpiel's format: in ``kuhn_poker(players=10)``'s variant the card 10 is concatenated like the
others (``"10pb"``, ``"101111111111"``), which stays unambiguous because the player's card is the
only number that can be longer than one character there.

``private_info=ALL_PLAYERS`` (which the C++ game answers without any card) adds every dealt card:
a ``private_cards`` tensor of one one-hot row per player and the dealt cards in the string.
"""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pyspiel

from spiel_games import kuhn_rules


def format_number(x: float) -> str:
  """A chip amount or card as OpenSpiel's Kuhn prints it: ``2`` for 2.0, ``1.5`` for 1.5."""
  return str(int(x)) if float(x).is_integer() else repr(float(x))


def join_pieces(pieces: Sequence[str], numbers: Sequence[str]) -> str:
  """Concatenates ``pieces``, space-separated if any of ``numbers`` is longer than 1 character."""
  return ("" if all(len(n) == 1 for n in numbers) else " ").join(p for p in pieces if p)


def tensor_with_views(pieces: Sequence[Tuple[str, Tuple[int, ...]]]
                      ) -> Tuple[np.ndarray, Dict[str, np.ndarray]]:
  """A zero float32 tensor laid out as ``pieces`` and a named view of each piece, in order.

  Args:
    pieces: (name, shape) of each piece of the tensor.

  Returns:
    The flat tensor and a dict from each name to a view of its slice, reshaped to its shape: the
    ``tensor`` and ``dict`` attributes of an OpenSpiel PyObserver.
  """
  tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
  views = {}
  start = 0
  for name, shape in pieces:
    size = int(np.prod(shape))
    views[name] = tensor[start:start + size].reshape(shape)
    start += size
  return tensor, views


class KuhnObserver:
  """An OpenSpiel PyObserver (``tensor``, ``dict``, ``set_from``, ``string_from``) for Kuhn.

  It reads two attributes of a state: ``cards`` (the cards dealt so far, player 0's first) and
  ``betting`` (the actions so far as a string over ``"pb"``).
  """

  def __init__(self, rules: kuhn_rules.KuhnRules,
               iig_obs_type: Optional[pyspiel.IIGObservationType] = None,
               params: Optional[Mapping[str, Any]] = None):
    """Builds the tensor layout for ``iig_obs_type`` (default: the observation, not perfect recall).

    Args:
      rules: the variant observed.
      iig_obs_type: which information to include; ``None`` means
        ``IIGObservationType(perfect_recall=False)``, the default observation.
      params: observation parameters; none are supported.

    Raises:
      ValueError: if ``params`` is not empty.
    """
    if params:
      raise ValueError(f"Kuhn observers take no parameters, got {dict(params)}")
    self._rules = rules
    self._iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
    private = self._iig.private_info
    # OpenSpiel's concatenation, even of the card 10 (module docstring); one card per string.
    self._openspiel_strings = (rules.is_openspiel_kuhn
                               and private != pyspiel.PrivateInfoType.ALL_PLAYERS)
    deck, players = rules.deck_size, rules.num_players
    shapes = []
    if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      shapes += [("player", (players,)), ("private_card", (deck,))]
    if self._iig.public_info:
      if self._iig.perfect_recall:
        shapes.append(("betting", (rules.max_game_length, len(kuhn_rules.ACTION_CHARS))))
      else:
        shapes.append(("pot_contribution", (players,)))
    if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
      shapes.append(("private_cards", (players, deck)))
    self.tensor, self.dict = tensor_with_views(shapes)

  def set_from(self, state: pyspiel.State, player: int) -> None:
    """Writes the observation of ``state`` by ``player`` into ``tensor`` (and ``dict``)."""
    self.tensor.fill(0)
    cards, betting = state.cards, state.betting
    if "player" in self.dict:
      self.dict["player"][player] = 1
    if "private_card" in self.dict and len(cards) > player:
      self.dict["private_card"][cards[player]] = 1
    if "betting" in self.dict:
      for turn, char in enumerate(betting):
        self.dict["betting"][turn, kuhn_rules.ACTION_CHARS.index(char)] = 1
    if "pot_contribution" in self.dict:
      self.dict["pot_contribution"][:] = self._rules.contributions(betting)
    if "private_cards" in self.dict:
      for holder, card in enumerate(cards):
        self.dict["private_cards"][holder, card] = 1

  def _join(self, pieces: Sequence[str], numbers: Sequence[str]) -> str:
    """``join_pieces``, or plain concatenation in OpenSpiel's own variants."""
    return join_pieces(pieces, [] if self._openspiel_strings else numbers)

  def string_from(self, state: pyspiel.State, player: int) -> str:
    """The observation of ``state`` by ``player`` as a string (formats in the module docstring)."""
    cards, betting = state.cards, state.betting
    private, public = self._iig.private_info, self._iig.public_info
    recall = self._iig.perfect_recall
    numbers: List[str] = []
    if private == pyspiel.PrivateInfoType.SINGLE_PLAYER and len(cards) > player:
      card = format_number(cards[player])
      if recall or public:
        numbers.append(card)
      elif len(cards) == player + 1 and not betting:
        return f"Received card {card}"
    elif private == pyspiel.PrivateInfoType.ALL_PLAYERS:
      numbers += [format_number(c) for c in cards]
    if not public:
      return self._join(numbers, numbers)
    if private == pyspiel.PrivateInfoType.NONE and not betting:
      if cards:
        return f"Deal to player {len(cards) - 1}"
      return "" if recall else "start game"
    if recall:
      return self._join(numbers + [betting], numbers)
    if private == pyspiel.PrivateInfoType.NONE:
      return "Bet" if betting[-1] == kuhn_rules.ACTION_CHARS[kuhn_rules.BET] else "Pass"
    if private == pyspiel.PrivateInfoType.ALL_PLAYERS or len(cards) > player:
      numbers += [format_number(c) for c in self._rules.contributions(betting)]
    return self._join(numbers, numbers)
