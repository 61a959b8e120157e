"""A value function over the leaf public belief states of a depth-limited cut of a Kuhn game.

ReBeL (Brown, Bakhtin, Lerer, Gong, "Combining Deep Reinforcement Learning and Search for
Imperfect-Information Games", NeurIPS 2020, arXiv 2007.13544, Section 4) replaces the exact
solution of every leaf subgame of a depth-limited search by a learned function of the leaf's
public belief state (PBS). ``PBSValueFunction`` is that function for the leaves of one cut
(``public_tree.PublicTree``; e.g. Kuhn depth 1: leaves ``p`` and ``b``):

    V(leaf z, beta) -> u_0(z, d) for every deal d = (card of player 0, card of player 1),

player 0's expected utility from the leaf root of deal d when both players continue with an
equilibrium of the leaf subgame at beta (``LeafSolution.root_values``; player 1's is minus it,
the games are zero-sum). Each player's counterfactual values at the PBS follow:
cfv_0(c) = sum_{d: c_0(d) = c} beta(d) u_0(z, d) and cfv_1(c) = -sum_{d: c_1(d) = c} beta(d)
u_0(z, d) (``infostate_values``); they sum to the PBS value, and they are ReBeL's infostate values
times the player's belief mass. The per-deal form keeps more than the 2 x deck infostate values:
CFR-AVG weights the leaf values by the opponent's CURRENT trunk reach, which differs from the
reach in beta, and per-deal values give those weighted values exactly (``leaves.value_functions``).

The model is ReBeL's value network, small: input [one-hot of the leaf, beta over the deals],
``len(hidden)`` blocks Linear -> LayerNorm -> GELU (2 x 256 in ReBeL), a linear output of one value
per deal, in units of the game's largest payoff (ante + bet). Training (``learning.training``)
needs PyTorch; evaluating a saved model needs only numpy and scipy (the same forward pass; equal to
PyTorch's to float32 rounding, tested), so the core install can use models.

Files: the project's checkpoint format (``checkpoint``: an ``.npz`` with a JSON header and a digest,
written atomically) with header field ``kind = "pbs-value-function"`` and ``model_version``; loading
checks that the model fits the game and cut, and any bad file gives a one-line ``ValueError``. A
model saved or loaded remembers its file and the digest of its weights (``path``, ``digest``):
the leaf-solver description that names it (``leaves.specs``) records both, so a run with
learned leaves can be rebuilt, and refuses a file whose weights changed.
"""

import dataclasses
from typing import Dict, Optional, Sequence, Tuple

import numpy as np
import pyspiel
from scipy import special

from algorithms.file_formats import checkpoint
from algorithms.rebel.public_tree import LeafSubgame
from algorithms.rebel.public_tree import PublicTree
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import KuhnRules

KIND = "pbs-value-function"
MODEL_VERSION = 1
LAYER_NORM_EPS = 1e-5  # PyTorch's nn.LayerNorm default.


@dataclasses.dataclass(frozen=True)
class LeafDomain:
  """What a value function is for: a Kuhn game, a depth limit, its leaves and deals.

  Attributes:
    game: the game string (``str(game)``).
    depth_limit: the cut's k.
    leaves: the leaf public states, in ``PublicTree.leaves`` order.
    rules: the game's ``KuhnRules``.
  """

  game: str
  depth_limit: int
  leaves: Tuple[str, ...]
  rules: KuhnRules

  @property
  def num_deals(self) -> int:
    return len(self.rules.deals())

  @property
  def input_size(self) -> int:
    return len(self.leaves) + self.num_deals

  @classmethod
  def of(cls, public_tree: PublicTree) -> "LeafDomain":
    """The cut of a ``PublicTree``.

    Raises:
      ValueError: for a game that is not a Kuhn variant or a cut without a leaf.
    """
    game = public_tree.tree.game
    rules = kuhn_poker_ante.rules_of(game)
    if rules is None:
      raise ValueError(f"a PBS value function needs a Kuhn poker game (kuhn_poker or "
                       f"kuhn_poker_ante), got {game}")
    if not public_tree.leaves:
      raise ValueError(f"{game} cut at depth {public_tree.depth_limit} has no leaf: "
                       "nothing for a value function to evaluate")
    return cls(game=str(game), depth_limit=public_tree.depth_limit,
               leaves=tuple(leaf.public_state for leaf in public_tree.leaves), rules=rules)

  def leaf_index(self, leaf: LeafSubgame) -> int:
    """The position of ``leaf`` among the cut's leaves; ValueError if it is not one of them."""
    if leaf.public_state not in self.leaves:
      raise ValueError(f"leaf {leaf.public_state!r} is not a leaf of the cut "
                       f"(leaves: {', '.join(self.leaves)})")
    return self.leaves.index(leaf.public_state)

  def features(self, leaf_index: np.ndarray, beliefs: np.ndarray) -> np.ndarray:
    """Network inputs (n, L + D): one-hot of the leaf, then the belief over the deals."""
    leaf_index = np.asarray(leaf_index, dtype=np.int64)
    out = np.zeros((len(leaf_index), self.input_size), dtype=np.float32)
    out[np.arange(len(leaf_index)), leaf_index] = 1.0
    out[:, len(self.leaves):] = beliefs
    return out


def leaf_rules(leaf: LeafSubgame) -> KuhnRules:
  """The ``KuhnRules`` of the Kuhn game a leaf belongs to (its deals index ``rules.deals()``)."""
  return kuhn_poker_ante.rules_of(leaf.tree.game)


def deal_belief(leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
  """A belief over the leaf's roots as a belief over the deals (``KuhnRules.deals`` order)."""
  out = np.zeros(len(leaf_rules(leaf).deals()))
  np.add.at(out, leaf.deals, belief)
  return out


def infostate_values(rules: KuhnRules, beliefs: np.ndarray, values: np.ndarray) -> np.ndarray:
  """Counterfactual values at the PBS of each player's cards, (n, 2, deck), from per-deal values.

  cfv_0(c) = sum_{d: c_0(d) = c} beta(d) u_0(d), cfv_1(c) = -sum_{d: c_1(d) = c} beta(d) u_0(d).
  """
  beliefs = np.atleast_2d(beliefs)
  weighted = beliefs * np.atleast_2d(values)
  deals = np.array(rules.deals())
  out = np.zeros((len(weighted), 2, rules.deck_size))
  for player, sign in ((0, 1.0), (1, -1.0)):
    for card in range(rules.deck_size):
      out[:, player, card] = sign * weighted[:, deals[:, player] == card].sum(axis=1)
  return out


def value_errors(rules: KuhnRules, beliefs: np.ndarray, predicted: np.ndarray,
                 exact: np.ndarray) -> np.ndarray:
  """Per PBS, the largest error of a player's counterfactual value: max_{i, c} |cfv - cfv*| (n,).

  The error measure of the value function: in the units of the game's payoffs, the largest error
  the trunk's CFR update can see at a leaf of unit reach.
  """
  return np.abs(infostate_values(rules, beliefs, predicted) -
                infostate_values(rules, beliefs, exact)).max(axis=(1, 2))


def _gelu(x: np.ndarray) -> np.ndarray:
  """GELU(x) = x Phi(x) = x (1 + erf(x / sqrt 2)) / 2 (Hendrycks and Gimpel 2016; PyTorch's
  exact ``nn.functional.gelu``)."""
  return 0.5 * x * (1.0 + special.erf(x / np.sqrt(2.0)))


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
  """(x - mean) / sqrt(var + eps) * gain + bias over the features (biased variance, as PyTorch)."""
  mean = x.mean(axis=-1, keepdims=True)
  var = x.var(axis=-1, keepdims=True)
  return (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * gain + bias


class PBSValueFunction:
  """A trained value function of one cut: numpy evaluation, save and load (module docstring).

  Attributes:
    cut: the ``LeafDomain`` it is for.
    hidden: the hidden layer widths.
    scale: the value unit (the game's ante + bet): outputs are multiplied by it.
    params: name -> float32 array: ``w{k}``, ``b{k}`` (Linear), ``g{k}``, ``n{k}`` (LayerNorm
      gain and bias) for hidden block k, ``w_out``, ``b_out``.
    info: JSON-serialisable notes kept in the file (training data, seed, steps, losses).
    path: the file it was last saved to or loaded from, None for a model only in memory.
  """

  def __init__(self, cut: LeafDomain, hidden: Sequence[int], params: Dict[str, np.ndarray],
               info: Optional[dict] = None, where: str = "model"):
    """Raises ValueError (naming ``where``) if the parameters do not fit the layout."""
    self.cut = cut
    self.hidden = tuple(int(h) for h in hidden)
    self.scale = float(cut.rules.max_utility)
    self.params = {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
    self.info = dict(info or {})
    self.path: Optional[str] = None
    self._check_shapes(where)

  def digest(self) -> str:
    """The digest of the weights, as a saved file's header holds it (``checkpoint.digest``)."""
    return checkpoint.digest(self.params)

  def _expected_shapes(self) -> Dict[str, Tuple[int, ...]]:
    shapes = {}
    width = self.cut.input_size
    for k, h in enumerate(self.hidden):
      shapes.update({f"w{k}": (h, width), f"b{k}": (h,), f"g{k}": (h,), f"n{k}": (h,)})
      width = h
    shapes.update({"w_out": (self.cut.num_deals, width), "b_out": (self.cut.num_deals,)})
    return shapes

  def _check_shapes(self, where: str) -> None:
    expected = self._expected_shapes()
    if set(expected) != set(self.params):
      raise ValueError(f"{where}: parameters {sorted(self.params)} do not match the layout "
                       f"{sorted(expected)}")
    for name, shape in expected.items():
      if self.params[name].shape != shape:
        raise ValueError(f"{where}: parameter {name!r} has shape {self.params[name].shape}, "
                         f"expected {shape}")
      if not np.all(np.isfinite(self.params[name])):
        raise ValueError(f"{where}: parameter {name!r} has non-finite entries")

  # Evaluation --------------------------------------------------------------------------------

  def predict(self, leaf_index: np.ndarray, beliefs: np.ndarray) -> np.ndarray:
    """Per-deal values u_0 (n, D) at beliefs (n, D) over the deals of the given leaves (n,)."""
    h = self.cut.features(leaf_index, beliefs)
    for k in range(len(self.hidden)):
      h = h @ self.params[f"w{k}"].T + self.params[f"b{k}"]
      h = _gelu(_layer_norm(h, self.params[f"g{k}"], self.params[f"n{k}"]))
    out = h @ self.params["w_out"].T + self.params["b_out"]
    return out.astype(np.float64) * self.scale

  def root_values(self, leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
    """Player 0's value from each root of ``leaf`` (R,) at a belief over its roots (R,).

    Raises:
      ValueError: for a leaf of another game or cut.
    """
    if leaf_rules(leaf) != self.cut.rules:
      raise ValueError(f"leaf {leaf.public_state!r} belongs to another game than the model's "
                       f"{self.cut.game}")
    index = self.cut.leaf_index(leaf)
    return self.predict(np.array([index]), deal_belief(leaf, belief)[None])[0][leaf.deals]

  # Files -------------------------------------------------------------------------------------

  def save(self, path: str) -> None:
    """Writes the model atomically (``checkpoint.write_checkpoint``)."""
    header = {"kind": KIND, "model_version": MODEL_VERSION, "game": self.cut.game,
              "depth_limit": self.cut.depth_limit, "leaves": list(self.cut.leaves),
              "deals": [list(d) for d in self.cut.rules.deals()], "hidden": list(self.hidden),
              "info": self.info}
    checkpoint.write_checkpoint(path, header, self.params)
    self.path = str(path)

  @classmethod
  def load(cls, path: str, game: Optional[pyspiel.Game] = None,
           depth_limit: Optional[int] = None) -> "PBSValueFunction":
    """Reads a model; with ``game`` (and ``depth_limit``) checks that it is for that cut.

    Raises:
      ValueError: one line naming the file and the problem: unreadable or corrupt file, another
        kind of file or model version, parameters that do not match the layout, or a model made
        for another game, depth limit or set of leaves.
    """
    header, arrays = checkpoint.read_checkpoint(path)
    if header.get("kind") != KIND:
      raise ValueError(f"{path}: not a {KIND} file (kind {header.get('kind')!r})")
    if header.get("model_version") != MODEL_VERSION:
      raise ValueError(f"{path}: {KIND} version {header.get('model_version')!r} is not "
                       f"supported (supported: {MODEL_VERSION})")
    try:
      model_game = pyspiel.load_game(header["game"])
      tree = PublicTree.cut(_arrays_of(model_game), int(header["depth_limit"]))
      cut = LeafDomain.of(tree)
      hidden = [int(h) for h in header["hidden"]]
    except (KeyError, TypeError, ValueError, pyspiel.SpielError) as e:
      raise ValueError(f"{path}: bad {KIND} header: {str(e).splitlines()[0]}") from None
    if list(cut.leaves) != header.get("leaves"):
      raise ValueError(f"{path}: model leaves {header.get('leaves')} are not the cut's "
                       f"{list(cut.leaves)}")
    if game is not None and str(game) != cut.game:
      raise ValueError(f"{path}: model is for game {cut.game!r}, not {str(game)!r}")
    if depth_limit is not None and depth_limit != cut.depth_limit:
      raise ValueError(f"{path}: model is for depth limit {cut.depth_limit}, not {depth_limit}")
    model = cls(cut, hidden, arrays, header.get("info"), where=path)
    model.path = str(path)
    return model


def _arrays_of(game: pyspiel.Game) -> TreeArrays:
  """The game's ``TreeArrays`` (its tree walked, or built by the game's registered shortcut)."""
  return TreeArrays(GameTree.from_game(game))


def cut_of(game: pyspiel.Game, depth_limit: int) -> Tuple[PublicTree, LeafDomain]:
  """The ``PublicTree`` and ``LeafDomain`` of a Kuhn game at a depth limit."""
  tree = PublicTree.cut(_arrays_of(game), depth_limit)
  return tree, LeafDomain.of(tree)
