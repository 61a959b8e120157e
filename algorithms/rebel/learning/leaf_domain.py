"""What a PBS value function is for: the leaves of one cut, each player's private states, the deals.

``LeafDomain`` describes the inputs and outputs of a value function of one depth-limited cut
(``public_tree.PublicTree``), in the two layouts and the stakes families that
``learning.value_network``'s docstring defines (Brown, Bakhtin, Lerer, Gong, ReBeL, NeurIPS 2020,
arXiv 2007.13544, Section 4: input the leaf and each player's belief over its own private states,
output one value per player and private state). The private states and deals are the cut's
(``public_views.private_states``), so the "infostate" layout serves any game with a public-state
view; the "deal" layout and the stakes families are Kuhn poker's.
"""

import dataclasses
import functools
from typing import Optional, Tuple

import numpy as np
from scipy import sparse

from algorithms.rebel.public_tree import LeafSubgame
from algorithms.rebel.public_tree import PublicTree
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import KuhnRules

# The output layouts (value_network's docstring): one value per player and card, or per deal.
OUTPUTS = ("infostate", "deal")
# Relative slack of the stakes range check (a ratio computed from a game string's floats).
STAKES_TOLERANCE = 1e-9


def stakes_of(rules: KuhnRules) -> np.ndarray:
  """The stakes (ante, bet) of a game's rules, as an array (2,)."""
  return np.array([rules.ante, rules.bet], dtype=np.float64)


def without_stakes(rules: KuhnRules) -> KuhnRules:
  """The rules with ante = bet = 1: equal for two games that differ only in their stakes."""
  return dataclasses.replace(rules, ante=1.0, bet=1.0)


@dataclasses.dataclass(frozen=True)
class LeafDomain:
  """What a value function is for: a game (or a Kuhn game's stakes family), a depth limit, its
  leaves, each player's private states and the deals.

  Private states and deals come from the cut (``PublicTree.private_labels``, ``deal_states``:
  ``public_views.private_states``): for Kuhn poker the cards and ``KuhnRules.deals()``, for
  Liar's Dice each player's dice and every pair of them. A game other than Kuhn poker has the
  "infostate" layout and no stakes family, in units of its largest payoff (``max_utility``).

  Attributes:
    game: the game string (``str(game)``) the cut was built from.
    depth_limit: the cut's k.
    leaves: the leaf public states, in ``PublicTree.leaves`` order.
    rules: the game's ``KuhnRules``, None for another game.
    private_labels: each player's private states (``PublicTree.private_labels``).
    deal_states: the deals, pairs of private states (``PublicTree.deal_states``), (D, 2).
    unit: the value unit: ante + bet for Kuhn poker, the largest payoff for another game.
    stakes: None for a model of ``game`` alone; else (lowest, highest) ante/bet ratio of the
      family of games that differ from ``game`` only in the stakes (value_network's docstring).
    outputs: "infostate" (V_i(c) per player and card) or "deal" (u_0(d) per deal).
  """

  game: str
  depth_limit: int
  leaves: Tuple[str, ...]
  rules: Optional[KuhnRules]
  private_labels: Tuple[Tuple[str, ...], Tuple[str, ...]]
  deal_states: Tuple[Tuple[int, int], ...]
  unit: float
  stakes: Optional[Tuple[float, float]] = None
  outputs: str = "deal"

  def __post_init__(self):
    if self.outputs not in OUTPUTS:
      raise ValueError(f"outputs must be one of {', '.join(OUTPUTS)}, got {self.outputs!r}")
    if self.stakes is not None:
      low, high = (float(r) for r in self.stakes)
      if not 0 < low <= high < np.inf:
        raise ValueError(f"stakes must be a range (lowest, highest) of ante/bet ratios with "
                         f"0 < lowest <= highest < inf, got {self.stakes!r}")
      object.__setattr__(self, "stakes", (low, high))

  @functools.cached_property
  def num_deals(self) -> int:
    return len(self.deal_states)

  @functools.cached_property
  def deal_cards(self) -> np.ndarray:
    """Each deal's private states (cards) (D, 2): column i is player i's."""
    return np.array(self.deal_states, dtype=np.int64).reshape(-1, 2)

  @property
  def offsets(self) -> Tuple[int, int]:
    """Where each player's private states start in the "infostate" layout: (0, N_0)."""
    return 0, len(self.private_labels[0])

  @functools.cached_property
  def _card_sums(self) -> sparse.csr_matrix:
    """The sparse (N_0 + N_1, D) matrix whose row o_i + c sums a deal vector over
    {d: c_i(d) = c} (o_i: ``offsets``)."""
    deals, width = np.arange(self.num_deals), sum(map(len, self.private_labels))
    rows = np.concatenate([self.deal_cards[:, 0], self.offsets[1] + self.deal_cards[:, 1]])
    return sparse.csr_matrix((np.ones(2 * self.num_deals), (rows, np.concatenate([deals, deals]))),
                             shape=(width, self.num_deals))

  @property
  def num_outputs(self) -> int:
    """K: N_0 + N_1 values per player and private state (2N for N cards, "infostate") or D per
    deal ("deal")."""
    return self._card_sums.shape[0] if self.outputs == "infostate" else self.num_deals

  @property
  def input_size(self) -> int:
    """L + N_0 + N_1 ("infostate") or L + D ("deal"), and one more input (rho) for a family
    model."""
    beliefs = self.num_outputs
    return len(self.leaves) + beliefs + (self.stakes is not None)

  def card_sums(self, per_deal: np.ndarray) -> np.ndarray:
    """sum_{d: c_i(d) = c} x(d) for each player i and card c, (n, N_0 + N_1), of rows x (n, D)."""
    return np.asarray(self._card_sums @ np.atleast_2d(per_deal).T).T

  def targets(self, beliefs: np.ndarray, values: np.ndarray,
              units: np.ndarray) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """The training targets (n, K) in units of ante + bet, and where they are defined (n, K)
    (None: everywhere).

    "deal": u_0(d) / unit. "infostate": V_i(c) / unit = sum_{d: c_i(d) = c} beta(d) u_i(d) /
    (m_i(c) unit), defined where the belief mass m_i(c) > 0.

    Args:
      beliefs: (n, D) beliefs over the deals.
      values: (n, D) player 0's per-deal values (u_1 = -u_0), or (n, D, 2) each player's.
      units: (n,) each example's ante + bet.
    """
    values = np.asarray(values, dtype=np.float64)
    if self.outputs == "deal":
      return (values if values.ndim == 2 else values[..., 0]) / units[:, None], None
    per_player = values if values.ndim == 3 else np.stack([values, -values], axis=-1)
    ends = self.offsets + (self.num_outputs,)
    mass = self.card_sums(beliefs)
    weighted = np.concatenate([self.card_sums(beliefs * per_player[..., i])[:, ends[i]:
                                                                             ends[i + 1]]
                               for i in (0, 1)], axis=1)
    defined = mass > 0
    return np.where(defined, weighted / np.where(defined, mass, 1.0), 0.0) / units[:, None], \
        defined

  def per_deal(self, outputs: np.ndarray) -> np.ndarray:
    """The network's outputs (n, K) as per-deal values: (n, D) u_0 ("deal"), or (n, D, 2)
    u_i(d) = V_i(c_i(d)) ("infostate")."""
    if self.outputs == "deal":
      return outputs
    return np.stack([outputs[:, self.deal_cards[:, 0]],
                     outputs[:, self.offsets[1] + self.deal_cards[:, 1]]], axis=-1)

  @classmethod
  def of(cls, public_tree: PublicTree, stakes: Optional[Tuple[float, float]] = None,
         outputs: str = "deal") -> "LeafDomain":
    """The leaf domain of a ``PublicTree`` (with ``stakes``: for its family of stakes) whose
    models have the ``outputs`` layout.

    Raises:
      ValueError: for the "deal" layout or stakes on a game that is not a Kuhn variant, a cut
        without a leaf or a bad range.
    """
    game = public_tree.tree.game
    rules = kuhn_poker_ante.rules_of(game)
    if rules is None and (outputs != "infostate" or stakes is not None):
      raise ValueError(f"the 'deal' layout and stakes families are for Kuhn poker (kuhn_poker, "
                       f"kuhn_poker_ante); {game} takes outputs='infostate' without stakes")
    if not public_tree.leaves:
      raise ValueError(f"{game} cut at depth {public_tree.depth_limit} has no leaf: "
                       "nothing for a value function to evaluate")
    return cls(game=str(game), depth_limit=public_tree.depth_limit,
               leaves=tuple(leaf.public_state for leaf in public_tree.leaves), rules=rules,
               private_labels=public_tree.private_labels,
               deal_states=tuple(tuple(int(c) for c in d) for d in public_tree.deal_states),
               unit=float(game.max_utility() if rules is None else rules.ante + rules.bet),
               stakes=stakes, outputs=outputs)

  def check(self, rules: KuhnRules, what: str) -> None:
    """Raises a one-line ValueError naming ``what`` unless the domain covers a game's ``rules``:
    the model's own game, or for a family model the same game up to stakes whose ante/bet ratio
    lies in the trained range."""
    if self.stakes is None:
      if rules != self.rules:
        raise ValueError(f"{what} belongs to another game than the model's {self.game}")
      return
    if without_stakes(rules) != without_stakes(self.rules):
      raise ValueError(f"{what} belongs to a game that differs from the model's {self.game} in "
                       "more than the stakes (deck, rule set or players)")
    low, high = self.stakes
    ratio = rules.ante / rules.bet
    if not low * (1 - STAKES_TOLERANCE) <= ratio <= high * (1 + STAKES_TOLERANCE):
      raise ValueError(f"{what} has stakes ante/bet = {ratio:g}, outside the range "
                       f"[{low:g}, {high:g}] the model was trained on (a learned value function "
                       "is not used beyond its training stakes)")

  def check_stakes(self, stakes: Optional[np.ndarray], num: int) -> np.ndarray:
    """The stakes (ante, bet) of ``num`` examples as an array (num, 2), checked.

    None means the domain's own game (refused for a family model, which needs each example's);
    a game other than Kuhn poker has no stakes (None).

    Raises:
      ValueError: for stakes the domain does not cover (``check``) or a bad shape.
    """
    if self.rules is None:
      if stakes is not None:
        raise ValueError(f"stakes (ante, bet) are Kuhn poker's; {self.game} has none")
      return None
    if stakes is None:
      if self.stakes is not None:
        raise ValueError("a stakes-conditioned model needs the stakes (ante, bet) of every "
                         "example")
      return np.tile(stakes_of(self.rules), (num, 1))
    stakes = np.asarray(stakes, dtype=np.float64)
    if stakes.shape != (num, 2):
      raise ValueError(f"stakes must be an array ({num}, 2) of (ante, bet), got shape "
                       f"{stakes.shape}")
    for ante, bet in np.unique(stakes, axis=0):
      self.check(dataclasses.replace(self.rules, ante=float(ante), bet=float(bet)),
                 f"an example with ante {ante:g}, bet {bet:g}")
    return stakes

  def units(self, stakes: Optional[np.ndarray], num: int) -> np.ndarray:
    """The value unit ante + bet (the largest payoff) of each example (num,)."""
    stakes = self.check_stakes(stakes, num)
    return np.full(num, self.unit) if stakes is None else stakes.sum(axis=1)

  def leaf_index(self, leaf: LeafSubgame) -> int:
    """The position of ``leaf`` among the cut's leaves; ValueError if it is not one of them."""
    if leaf.public_state not in self.leaves:
      raise ValueError(f"leaf {leaf.public_state!r} is not a leaf of the cut "
                       f"(leaves: {', '.join(self.leaves)})")
    return self.leaves.index(leaf.public_state)

  def features(self, leaf_index: np.ndarray, beliefs: np.ndarray,
               stakes: Optional[np.ndarray] = None) -> np.ndarray:
    """Network inputs (n, input_size): one-hot of the leaf, the belief (over the deals, or each
    player's over its cards: ``card_sums``), and for a family model rho = ante / (ante + bet) of
    each example's stakes (n, 2) (``check_stakes``).
    """
    return self.encode(leaf_index, beliefs, self.check_stakes(stakes, len(leaf_index)))

  def encode(self, leaf_index: np.ndarray, beliefs: np.ndarray,
             stakes: np.ndarray) -> np.ndarray:
    """``features`` with stakes (n, 2) already checked (``check_stakes``)."""
    leaf_index = np.asarray(leaf_index, dtype=np.int64)
    out = np.zeros((len(leaf_index), self.input_size), dtype=np.float32)
    out[np.arange(len(leaf_index)), leaf_index] = 1.0
    beliefs = np.atleast_2d(beliefs)
    if self.outputs == "infostate":
      beliefs = self.card_sums(beliefs)
    out[:, len(self.leaves):len(self.leaves) + beliefs.shape[1]] = beliefs
    if self.stakes is not None:
      out[:, -1] = stakes[:, 0] / stakes.sum(axis=1)
    return out
