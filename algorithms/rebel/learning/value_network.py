"""A value function over the leaf public belief states of a depth-limited cut of a game.

The text below speaks of Kuhn poker's cards; for any game a card is a player's private state
(``public_views.private_states``: in Liar's Dice its dice) and a deal a pair of them
(``leaf_domain.LeafDomain``). The "infostate" layout serves every game with a public-state view;
the "deal" layout and the stakes families are Kuhn poker's.

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
reach in beta, and per-deal values give those weighted values exactly (``leaves.leaf_values``).

Two output layouts (``LeafDomain.outputs``):

* "infostate", ReBeL's (Section 4): input [one-hot of the leaf, each
  player's belief over its own card m_i(c) = sum_{d: c_i(d) = c} beta(d)], output one value per
  player and card, the information set's value at the PBS
  V_i(c) = sum_{d: c_i(d) = c} beta(d) u_i(d) / m_i(c), 2 x deck numbers (26 at 13 cards, 200 at
  100). A leaf root h of deal d then gets u_i(h) = V_i(c_i(d)) for each player
  (``leaf_step.player_values``). That is all CFR-D needs: its leaf PBS comes from the current
  reaches, beta(d) proportional to pi_c(d) r_0(c_0) r_1(c_1), and the opponent's counterfactual
  weight of a root, pi_c(d) r_{-i}(c_{-i}), is beta(d) / r_i(c_i) up to a constant, so
  v_i(s) = sum_{h in s} omega_i(h) u_i(h) = (sum_{h in s} omega_i(h)) V_i(c_i(s)) exactly (the
  trembles, ``leaf_step.TREMBLE``, move that by about 1e-6). ReBeL's released network takes the
  acting player as an input and returns that player's values; here one evaluation returns both.
  The input grows with the deck as 2N, not N(N - 1), so a model trains and answers at 100 cards.
* "deal" (this project's first layout): input [one-hot of the leaf, beta over the deals], output
  player 0's value u_0(d) of every deal (N(N - 1) numbers, 156 at 13 cards), u_1 = -u_0. Exact
  for CFR-AVG too, whose leaf beliefs come from the average policy while the counterfactual
  weights use the current one (see below).

Either is ReBeL's value network, small: ``len(hidden)`` blocks Linear -> LayerNorm -> GELU
(2 x 256 in ReBeL) and a linear output, in units of the game's largest payoff (ante + bet).
Training (``learning.training``) needs PyTorch; evaluating a saved model needs only numpy and
scipy (the same forward pass; equal to PyTorch's to float32 rounding, tested), so the core install
can use models.

Stakes. A model is for one game (``LeafDomain.stakes`` None) or for the family of games that
differ from it only in the stakes (ante a, bet b): the same deck, rule set and cut. Every terminal
payoff of two-player Kuhn poker is 0, +-a or +-(a + b) (a showdown or fold for the antes, a called
bet), so it is linear in (a, b) jointly: the game at (lambda a, lambda b) is the game at (a, b)
with every payoff times lambda > 0, which has the same equilibria, at every leaf and belief, with
every value times lambda. In units of a + b the values therefore depend on the stakes only through
the ratio r = a / b: the normalised payoffs are 0, +-rho and +-1 with rho = a / (a + b) =
r / (1 + r). A family model takes rho as one more input (affine in it are all the normalised
payoffs, and it lies in (0, 1)) and predicts values in units of a + b, so one network covers every
(a, b) whose ratio lies in the range it was trained on (``LeafDomain.stakes``, as ante/bet
ratios). Outside that range it refuses (``LeafDomain.check``, at load and at every leaf): what a
network predicts beyond its training inputs is unchecked, and a model should be trained on a range
that covers the stakes it is used at.

Files: the project's checkpoint format (``checkpoint``: an ``.npz`` with a JSON header and a digest,
written atomically) with header field ``kind = "pbs-value-function"`` and ``model_version``;
version 2 adds ``stakes`` (None, or the trained [lowest, highest] ante/bet ratio); version-1 files
(written before it) have no stakes field and load as models of one game. Loading checks that the
model fits the game and cut, and any bad file gives a one-line ``ValueError``. A model saved or
loaded remembers its file and the digest of its weights (``path``, ``digest``): the leaf-solver
description that names it (``leaves.specs``) records both, so a run with learned leaves can be
rebuilt, and refuses a file whose weights changed.
"""

from typing import Dict, Optional, Sequence, Tuple

import numpy as np
import pyspiel
from scipy import special

from algorithms.file_formats import checkpoint
from algorithms.rebel import leaf_step
from algorithms.rebel.learning.leaf_domain import LeafDomain
from algorithms.rebel.learning.leaf_domain import stakes_of
from algorithms.rebel.leaves import specs
from algorithms.rebel.public_tree import LeafSubgame
from algorithms.rebel.public_tree import PublicTree
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import KuhnRules

KIND = "pbs-value-function"
# Version 2: the header field "stakes"; version 3: "outputs". Versions 1 (no stakes, a model of
# one game) and 2 still load, as per-deal models.
MODEL_VERSION = 3
SUPPORTED_VERSIONS = (1, 2, 3)
LAYER_NORM_EPS = 1e-5  # PyTorch's nn.LayerNorm default.


def leaf_rules(leaf: LeafSubgame) -> Optional[KuhnRules]:
  """The ``KuhnRules`` of the Kuhn game a leaf belongs to, None for another game."""
  return kuhn_poker_ante.rules_of(leaf.tree.game)


def deal_belief(leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
  """A belief over the leaf's roots as a belief over the cut's deals (``deal_states`` order)."""
  out = np.zeros(len(leaf.deal_states))
  np.add.at(out, leaf.deals, belief)
  return out


def infostate_values(rules: KuhnRules, beliefs: np.ndarray, values: np.ndarray) -> np.ndarray:
  """Counterfactual values at the PBS of each player's cards, (n, 2, deck), from per-deal values.

  cfv_i(c) = sum_{d: c_i(d) = c} beta(d) u_i(d), with ``values`` (n, D) player 0's (u_1 = -u_0)
  or (n, D, 2) each player's (``LeafDomain.per_deal`` of an "infostate" model).
  """
  beliefs = np.atleast_2d(beliefs)
  values = np.asarray(values, dtype=np.float64)
  if values.size == beliefs.size:  # Player 0's values: u_1 = -u_0.
    values = np.stack([values, -values], axis=-1)
  values = values.reshape(beliefs.shape + (2,))
  deals = np.array(rules.deals())
  out = np.zeros((len(beliefs), 2, rules.deck_size))
  for player in (0, 1):
    weighted = beliefs * values[..., player]
    for card in range(rules.deck_size):
      out[:, player, card] = weighted[:, deals[:, player] == card].sum(axis=1)
  return out


def value_errors(rules: KuhnRules, beliefs: np.ndarray, predicted: np.ndarray,
                 exact: np.ndarray) -> np.ndarray:
  """Per PBS, the largest error of a player's counterfactual value: max_{i, c} |cfv - cfv*| (n,).

  The error measure of the value function: in the units of the game's payoffs, the largest error
  the trunk's CFR update can see at a leaf of unit reach.
  """
  return np.abs(infostate_values(rules, beliefs, predicted) -
                infostate_values(rules, beliefs, exact)).max(axis=(1, 2))


def infostate_errors(rules: KuhnRules, beliefs: np.ndarray, predicted: np.ndarray,
                     exact: np.ndarray) -> np.ndarray:
  """Per PBS, the largest error of an information set's value: max over i and the cards c with
  belief mass m_i(c) = sum_{d: c_i(d) = c} beta(d) > 0 of |cfv_i(c) - cfv*_i(c)| / m_i(c) (n,).

  ``value_errors`` measures counterfactual values, which carry the card's belief mass, so a card
  the PBS makes unlikely contributes little however wrong its value; divided by the mass, each
  term is the error of the expected value of holding c at the PBS (ReBeL's infostate value,
  Brown et al. 2020, Section 4), a belief-weighted mean of per-deal errors: at most
  max_d |u_0(d) - u*_0(d)|, and equal to it when every deal is off by the same amount.
  """
  beliefs = np.atleast_2d(beliefs)
  mass = np.abs(infostate_values(rules, beliefs, np.ones_like(beliefs)))  # u = 1: m_i(c).
  error = np.abs(infostate_values(rules, beliefs, predicted) -
                 infostate_values(rules, beliefs, exact))
  reached = mass > 0
  return np.where(reached, error / np.where(reached, mass, 1.0), 0.0).max(axis=(1, 2))


class InfostateProjection:
  """A value function's values in ReBeL's layout: each player's information-set values at the PBS.

  root_values(leaf, beta) gives u_i(h) = V_i(c_i(h)) (R, 2), with
  V_i(c) = sum_{h: c_i(h) = c} beta(h) u_i(h) / sum_{h: c_i(h) = c} beta(h) the conditional
  expectation of the wrapped value function's values u_i (``leaf_step.player_values``), 0 for a
  card without belief mass. Wrapping the exact leaf solver's values gives the perfect value
  function of an "infostate" model: what such a network answers when it has no error. The
  private states are the leaf's (``LeafSubgame.private_states``: cards, dice).
  """

  def __init__(self, value_function):
    self.value_function = value_function

  def root_values(self, leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
    values = leaf_step.player_values(self.value_function.root_values(leaf, belief),
                                     float(leaf.tree.utility_sum))
    cards = leaf.private_states
    out = np.zeros_like(values)
    for i in (0, 1):
      mass = np.bincount(cards[:, i], weights=belief)
      weighted = np.bincount(cards[:, i], weights=belief * values[:, i])
      card_values = np.where(mass > 0, weighted / np.where(mass > 0, mass, 1.0), 0.0)
      out[:, i] = card_values[cards[:, i]]
    return out


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
    domain: the ``LeafDomain`` it is for (one game, or a family of stakes).
    hidden: the hidden layer widths.
    params: name -> float32 array: ``w{k}``, ``b{k}`` (Linear), ``g{k}``, ``n{k}`` (LayerNorm
      gain and bias) for hidden block k, ``w_out``, ``b_out``.
    info: JSON-serialisable notes kept in the file (training data, seed, steps, losses).
    path: the file it was last saved to or loaded from, None for a model only in memory.
  """

  def __init__(self, domain: LeafDomain, hidden: Sequence[int], params: Dict[str, np.ndarray],
               info: Optional[dict] = None, where: str = "model"):
    """Raises ValueError (naming ``where``) if the parameters do not fit the layout."""
    self.domain = domain
    self.hidden = tuple(int(h) for h in hidden)
    self.params = {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
    self.info = dict(info or {})
    self.path: Optional[str] = None
    self._check_shapes(where)
    # id(leaf) -> (leaf, its index, its stakes (1, 2) or None, its unit), checked once.
    self._leaves: Dict[int, Tuple[LeafSubgame, int, Optional[np.ndarray], float]] = {}

  def digest(self) -> str:
    """The digest of the weights, as a saved file's header holds it (``checkpoint.digest``)."""
    return checkpoint.digest(self.params)

  def _expected_shapes(self) -> Dict[str, Tuple[int, ...]]:
    shapes = {}
    width = self.domain.input_size
    for k, h in enumerate(self.hidden):
      shapes.update({f"w{k}": (h, width), f"b{k}": (h,), f"g{k}": (h,), f"n{k}": (h,)})
      width = h
    shapes.update({"w_out": (self.domain.num_outputs, width),
                   "b_out": (self.domain.num_outputs,)})
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

  def network(self, features: np.ndarray) -> np.ndarray:
    """The network's outputs (n, K), values in units of ante + bet, at inputs (n, input_size)."""
    h = features
    for k in range(len(self.hidden)):
      h = h @ self.params[f"w{k}"].T + self.params[f"b{k}"]
      h = _gelu(_layer_norm(h, self.params[f"g{k}"], self.params[f"n{k}"]))
    return h @ self.params["w_out"].T + self.params["b_out"]

  def predict(self, leaf_index: np.ndarray, beliefs: np.ndarray,
              stakes: Optional[np.ndarray] = None) -> np.ndarray:
    """Per-deal values at beliefs (n, D) over the deals of the given leaves (n,), in chips of
    each example's stakes (n, 2) of (ante, bet) (None: the model's one game): u_0 (n, D) of a
    "deal" model, u_i (n, D, 2) of an "infostate" one (``LeafDomain.per_deal``).

    Raises:
      ValueError: for stakes the model does not cover (``LeafDomain.check``).
    """
    out = self.normalised_values(leaf_index, beliefs, self.domain.check_stakes(
        stakes, len(leaf_index))).astype(np.float64)
    units = self.domain.units(stakes, len(leaf_index))
    return out * units.reshape((-1,) + (1,) * (out.ndim - 1))

  def normalised_values(self, leaf_index: np.ndarray, beliefs: np.ndarray,
                        stakes: Optional[np.ndarray]) -> np.ndarray:
    """Per-deal values ((n, D) or (n, D, 2), ``LeafDomain.per_deal``) in units of ante + bet at
    inputs already checked (stakes (n, 2), ``LeafDomain.check_stakes``): the network at
    ``LeafDomain.encode``'s features."""
    return self.domain.per_deal(self.network(self.domain.encode(leaf_index, beliefs, stakes)))

  def root_values(self, leaf: LeafSubgame, belief: np.ndarray) -> np.ndarray:
    """Player 0's value from each root of ``leaf`` (R,) at a belief over its roots (R,), or each
    player's (R, 2) for an "infostate" model (``leaf_step.player_values``).

    Raises:
      ValueError: for a leaf of another game or cut, or (family model) of stakes outside the
        trained range.
    """
    entry = self._leaves.get(id(leaf))
    if entry is None or entry[0] is not leaf:
      rules, stakes, unit = leaf_rules(leaf), None, self.domain.unit
      if rules is None or self.domain.rules is None:
        if str(leaf.tree.game) != self.domain.game:
          raise ValueError(f"leaf {leaf.public_state!r} belongs to another game than the model's "
                           f"{self.domain.game}")
      else:
        self.domain.check(rules, f"leaf {leaf.public_state!r}")
        stakes = stakes_of(rules)[None]
        unit = float(stakes.sum())
      entry = (leaf, self.domain.leaf_index(leaf), stakes, unit)
      self._leaves[id(leaf)] = entry
    _, index, stakes, unit = entry
    beliefs = np.zeros((1, self.domain.num_deals))
    beliefs[0, leaf.deals] = belief  # deal_belief: each root of a leaf is one deal.
    out = self.normalised_values(np.array([index]), beliefs, stakes)
    return out[0, leaf.deals].astype(np.float64) * unit

  # Files -------------------------------------------------------------------------------------

  def save(self, path: str) -> None:
    """Writes the model atomically (``checkpoint.write_checkpoint``)."""
    header = {"kind": KIND, "model_version": MODEL_VERSION, "game": self.domain.game,
              "depth_limit": self.domain.depth_limit, "leaves": list(self.domain.leaves),
              "deals": [list(d) for d in self.domain.deal_states], "hidden": list(self.hidden),
              "stakes": None if self.domain.stakes is None else list(self.domain.stakes),
              "outputs": self.domain.outputs, "info": self.info}
    checkpoint.write_checkpoint(path, header, self.params)
    self.path = str(path)

  @classmethod
  def load(cls, path: str, game: Optional[pyspiel.Game] = None,
           depth_limit: Optional[int] = None) -> "PBSValueFunction":
    """Reads a model; with ``game`` (and ``depth_limit``) checks that it is for that cut.

    A family model (``LeafDomain.stakes``) accepts any ``game`` of its family whose ante/bet
    ratio lies in its trained range, and refuses one outside it (module docstring).

    Raises:
      ValueError: one line naming the file and the problem: unreadable or corrupt file, another
        kind of file or model version, parameters that do not match the layout, or a model made
        for another game (or stakes outside a family model's range), depth limit or set of
        leaves.
    """
    header, arrays = checkpoint.read_checkpoint(path)
    if header.get("kind") != KIND:
      raise ValueError(f"{path}: not a {KIND} file (kind {header.get('kind')!r})")
    version = header.get("model_version")
    if version not in SUPPORTED_VERSIONS:
      raise ValueError(f"{path}: {KIND} version {version!r} is not supported (supported: "
                       f"{', '.join(map(str, SUPPORTED_VERSIONS))})")
    try:
      model_game = pyspiel.load_game(header["game"])
      tree = PublicTree.from_game(model_game, int(header["depth_limit"]))
      stakes = None if version == 1 else header["stakes"]
      domain = LeafDomain.of(tree, None if stakes is None else tuple(stakes),
                             header["outputs"] if version >= 3 else "deal")
      hidden = [int(h) for h in header["hidden"]]
    except (KeyError, TypeError, ValueError, pyspiel.SpielError) as e:
      raise ValueError(f"{path}: bad {KIND} header: {str(e).splitlines()[0]}") from None
    if list(domain.leaves) != header.get("leaves"):
      raise ValueError(f"{path}: model leaves {header.get('leaves')} are not the cut's "
                       f"{list(domain.leaves)}")
    if game is not None:
      rules = kuhn_poker_ante.rules_of(game)
      if domain.stakes is None or rules is None:
        if str(game) != domain.game:
          raise ValueError(f"{path}: model is for game {domain.game!r}, not {str(game)!r}")
      else:
        domain.check(rules, f"{path}: game {str(game)!r}")
    if depth_limit is not None and depth_limit != domain.depth_limit:
      raise ValueError(f"{path}: model is for depth limit {domain.depth_limit}, not {depth_limit}")
    model = cls(domain, hidden, arrays, header.get("info"), where=path)
    model.path = str(path)
    return model


def cut_of(game: pyspiel.Game, depth_limit: int, stakes: Optional[Tuple[float, float]] = None,
           outputs: str = "deal") -> Tuple[PublicTree, LeafDomain]:
  """The ``PublicTree`` (``PublicTree.from_game``) and ``LeafDomain`` of a Kuhn game at a depth
  limit (with ``stakes``, the domain of its family of stakes over that range of ante/bet ratios;
  models with the ``outputs`` layout)."""
  tree = PublicTree.from_game(game, depth_limit)
  return tree, LeafDomain.of(tree, stakes, outputs)


def _describe(model: PBSValueFunction) -> dict:
  """The leaf-solver description's fields of a model (``leaves.specs``): its file and digest."""
  if model.path is None:
    raise ValueError("a PBSValueFunction is recorded by its file: save it first")
  return {"path": model.path, "sha256": model.digest()}


def _rebuild(description: dict) -> PBSValueFunction:
  """The model a description names, refused if the file's weights are not the recorded ones."""
  model = PBSValueFunction.load(description["path"])
  if model.digest() != description["sha256"]:
    raise ValueError(f"{description['path']}: the model's weights have digest "
                     f"{model.digest()[:12]}..., not the recorded "
                     f"{str(description['sha256'])[:12]}... (the file was replaced)")
  return model


specs.register_value_function(PBSValueFunction, _describe, _rebuild)
