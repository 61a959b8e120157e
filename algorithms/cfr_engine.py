"""CFR iterations on the flat sequence-form arrays of a ``GameTree``.

One iteration of vanilla CFR (Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in
games with incomplete information", NeurIPS 2007) reordered into whole-array operations:

1. realization plans, top-down over information-set depth levels:
   x_p[seq(I, a)] = x_p[parent(I)] sigma_p(I, a), x_p[empty] = 1;
2. terminal counterfactual values of the updated player i by one ``np.bincount``:
   c_i[s] = sum_{z: seq_i(z) = s} u_i(z) pi_c(z) x_{-i}[seq_{-i}(z)];
3. bottom-up over levels: q(I, a) = c_i[seq(I, a)] + sum_{J: parent(J) = seq(I, a)} v(J),
   v(I) = sum_a sigma(I, a) q(I, a);
4. regrets R(I, a) += q(I, a) - v(I) (q and v are counterfactual: they already carry the
   opponent's and chance's reach), average numerators S(I, a) += w_t x_i[seq(I, a)];
5. RM+ clipping / discounting, then sigma = regret matching of R.

This is OpenSpiel's ``cfr._CFRSolver`` (alternating updates: player 0's pass, refresh of the
current policy, then player 1's pass against player 0's new policy), up to the order of floating
point additions. OpenSpiel accumulates the average numerators once per history of an information
set, i.e. N(I) x_i(I, a) with N(I) the number of histories in I; the factor is constant per
information set and cancels in the normalised average policy.

Both players' sequences live in one array, ordered by depth level and, within a level, player 0
then player 1, so that each level of the top-down and bottom-up passes is one contiguous slice.
Global sequences 0 and 1 are the empty sequences of players 0 and 1.

Chance sampling (Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo sampling for regret
minimization in extensive games", NeurIPS 2009) runs the same pass with pi_c(z) replaced by a
per-terminal weight (see ``chance_sampling``).

Depth-limited CFR (CFR-D: Burch, Johanson, Bowling, "Solving imperfect information games using
decomposition", AAAI 2014; CFR-AVG: Brown, Bakhtin, Lerer, Gong, ReBeL, NeurIPS 2020) runs the
same pass on the trunk of a cut game: only the trunk's terminals enter step 2, and the leaf
subgames' counterfactual values are injected at the sequences leading to the leaf roots,
c_i[s] += v_i(s), before step 3 (``CFREngine.update(player, trunk_terminals=...,
leaf_values=...)``; see ``cfr_avg``).
"""

import dataclasses
from typing import Callable, List, Optional, Tuple

import numpy as np

from algorithms import regret_matching as rm
from algorithms.game_tree import GameTree

# A chance sampler returns, per pass, the visited terminals (chance weight 1, all others 0) and,
# per global information set, the number of visited histories (which scales the average-policy
# update).
Sampler = Callable[[], Tuple[np.ndarray, np.ndarray]]


@dataclasses.dataclass(frozen=True)
class _Level:
  """One depth level: infosets [ia, ib), sequences [sa, sb), parent sequences [pa, pb)."""
  ia: int
  ib: int
  sa: int
  sb: int
  pa: int
  pb: int
  seq_parent: np.ndarray  # (sb - sa,) global parent sequence of each sequence.
  block_starts: np.ndarray  # (ib - ia,) infoset block starts relative to sa.
  parent_local: np.ndarray  # (ib - ia,) parent sequence of each infoset, relative to pa.


def _sum_by(index: np.ndarray, weights: np.ndarray, length: int) -> np.ndarray:
  """Float sums of ``weights`` per ``index`` (``np.bincount``, which is int64 if none given)."""
  return np.bincount(index, weights=weights, minlength=length).astype(np.float64, copy=False)


class TreeArrays:
  """Both players' sequence forms of a ``GameTree`` in one level-interleaved layout.

  Attributes:
    tree: the ``GameTree``.
    num_sequences: G, both players' sequences including the two empty ones.
    num_infosets: K, both players' information sets.
    global_infoset: per player, int array mapping its information sets to global ones.
    global_seq: per player, int array mapping its sequences to global ones.
    infoset_player, infoset_start, infoset_num_actions, infoset_parent: arrays (K,).
    seq_infoset, seq_player, seq_action: arrays (G,) (-1 infoset/action for empty sequences).
    blocks: ``regret_matching.Blocks`` of the non-empty sequences (global index - 2).
    player_seqs: per player, global indices of its non-empty sequences.
    player_mask: per player, float array (G,), 1 on its non-empty sequences.
    both_mask: float array (G,), 1 on every non-empty sequence.
    terminal_seq: int array (T, 2), global sequences leading to each terminal.
    weighted_utility: float array (T, 2), u_p(z) pi_c(z).
    levels: the depth levels, shallow first.
  """

  def __init__(self, tree: GameTree):
    self.tree = tree
    players = tree.players
    bounds = [p.level_bounds() for p in players]
    num_levels = max(len(b) - 1 for b in bounds)
    global_infoset = [np.empty(p.num_infosets, dtype=np.int64) for p in players]
    global_seq = [np.empty(p.num_sequences, dtype=np.int64) for p in players]
    global_seq[0][0], global_seq[1][0] = 0, 1
    k, g = 0, 2
    level_ranges = []
    for d in range(num_levels):
      ia, sa = k, g
      for pl, p in enumerate(players):
        if d + 1 >= len(bounds[pl]):
          continue
        lo, hi = bounds[pl][d], bounds[pl][d + 1]
        n = hi - lo
        global_infoset[pl][lo:hi] = np.arange(k, k + n)
        k += n
        if n:
          s_lo = p.seq_start[lo]
          s_hi = p.seq_start[hi - 1] + p.num_actions[hi - 1]
          global_seq[pl][s_lo:s_hi] = np.arange(g, g + s_hi - s_lo)
          g += s_hi - s_lo
      level_ranges.append((ia, k, sa, g))
    self.num_infosets, self.num_sequences = k, g
    self.global_infoset, self.global_seq = global_infoset, global_seq

    self.infoset_player = np.empty(k, dtype=np.int64)
    self.infoset_start = np.empty(k, dtype=np.int64)
    self.infoset_num_actions = np.empty(k, dtype=np.int64)
    self.infoset_parent = np.empty(k, dtype=np.int64)
    self.infoset_tabular_row = np.empty(k, dtype=np.int64)
    self.seq_infoset = np.full(g, -1, dtype=np.int64)
    self.seq_player = np.empty(g, dtype=np.int64)
    self.seq_action = np.full(g, -1, dtype=np.int64)
    self.seq_player[:2] = (0, 1)
    for pl, p in enumerate(players):
      gi = global_infoset[pl]
      self.infoset_player[gi] = pl
      self.infoset_start[gi] = global_seq[pl][p.seq_start]
      self.infoset_num_actions[gi] = p.num_actions
      self.infoset_parent[gi] = global_seq[pl][p.parent_seq]
      self.infoset_tabular_row[gi] = p.tabular_row
      gs = global_seq[pl][1:]
      self.seq_infoset[gs] = gi[p.seq_infoset[1:]]
      self.seq_player[gs] = pl
      self.seq_action[gs] = p.seq_action[1:]
    self.blocks = rm.Blocks.from_sizes(self.infoset_num_actions)
    self.player_seqs = [np.sort(global_seq[pl][1:]) for pl in (0, 1)]
    self.player_mask = [(self.seq_player == pl).astype(np.float64) for pl in (0, 1)]
    self.player_mask[0][:2] = 0.0
    self.player_mask[1][:2] = 0.0
    self.both_mask = self.player_mask[0] + self.player_mask[1]

    self.levels: List[_Level] = []
    prev = (0, 2)
    for ia, ib, sa, sb in level_ranges:
      starts = self.infoset_start[ia:ib]
      self.levels.append(_Level(
          ia=ia, ib=ib, sa=sa, sb=sb, pa=prev[0], pb=prev[1],
          seq_parent=np.repeat(self.infoset_parent[ia:ib], self.infoset_num_actions[ia:ib]),
          block_starts=starts - sa,
          parent_local=self.infoset_parent[ia:ib] - prev[0]))
      prev = (sa, sb)

    self.terminal_seq = np.stack(
        [global_seq[0][tree.terminal_seq[:, 0]], global_seq[1][tree.terminal_seq[:, 1]]], axis=1)
    self._t0 = np.ascontiguousarray(self.terminal_seq[:, 0])
    self._t1 = np.ascontiguousarray(self.terminal_seq[:, 1])
    self.weighted_utility = tree.utility * tree.chance_reach[:, None]

  # Conversions -----------------------------------------------------------------------------

  def from_tabular(self, tabular: np.ndarray) -> np.ndarray:
    """Global per-sequence array from a ``TabularPolicy.action_probability_array``."""
    if tabular.shape[0] != self.num_infosets:
      raise ValueError(f"policy has {tabular.shape[0]} rows, the game has "
                       f"{self.num_infosets} information sets")
    out = np.ones(self.num_sequences)
    out[2:] = tabular[self.infoset_tabular_row[self.seq_infoset[2:]], self.seq_action[2:]]
    return out

  def to_tabular(self, values: np.ndarray, out: np.ndarray) -> None:
    """Writes a global per-sequence array into a tabular array (rows x actions), in place."""
    out[self.infoset_tabular_row[self.seq_infoset[2:]], self.seq_action[2:]] = values[2:]

  # The operations of one CFR pass ----------------------------------------------------------

  def realization(self, sigma: np.ndarray) -> np.ndarray:
    """Both realization plans: x[seq(I, a)] = x[parent(I)] sigma(I, a), x[empty] = 1."""
    x = np.empty(self.num_sequences)
    x[:2] = 1.0
    for lv in self.levels:
      np.multiply(x[lv.seq_parent], sigma[lv.sa:lv.sb], out=x[lv.sa:lv.sb])
    return x

  def terminal_values(self, x: np.ndarray, player: Optional[int], weighted_utility: np.ndarray,
                      terminals: Optional[np.ndarray] = None) -> np.ndarray:
    """c[s] = sum_{z: seq_i(z) = s} wu_i(z) x_{-i}[seq_{-i}(z)], for i = player or both (None).

    Args:
      x: realization plans (G,).
      player: 0, 1, or None for both players.
      weighted_utility: (T, 2), u_p(z) times the chance weight of z; with ``terminals``, one
        row per listed terminal.
      terminals: if given, only these terminals enter the sums.
    """
    g = self.num_sequences
    t0, t1 = self._t0, self._t1
    if terminals is not None:
      t0, t1 = t0[terminals], t1[terminals]
    if player == 0:
      return _sum_by(t0, weighted_utility[:, 0] * x[t1], g)
    if player == 1:
      return _sum_by(t1, weighted_utility[:, 1] * x[t0], g)
    return _sum_by(t0, weighted_utility[:, 0] * x[t1], g) + \
        _sum_by(t1, weighted_utility[:, 1] * x[t0], g)

  def regret_increments(self, sigma: np.ndarray, player: Optional[int],
                        terminals: Optional[np.ndarray] = None,
                        chance_weight: Optional[np.ndarray] = None,
                        leaf_values: Optional[np.ndarray] = None
                        ) -> Tuple[np.ndarray, np.ndarray]:
    """Instantaneous counterfactual regrets r(I, a) = q(I, a) - v(I) of one pass.

    Args:
      sigma: the current policy (G,).
      player: the updated player, or None for both.
      terminals: only these terminals enter the terminal values, the others get weight 0:
        chance sampling's visited terminals, or a depth-limited pass's trunk terminals.
        All terminals, weighted by pi_c(z), if None.
      chance_weight: with ``terminals``, the weight of each listed terminal replacing pi_c(z);
        default 1, the importance weight pi_c(z) / q(z) when outcomes are sampled with their
        chance probabilities (Lanctot et al. 2009).
      leaf_values: (G,) counterfactual values added to the terminal values before the backup,
        c_i[s] += leaf_values[s]: a depth-limited pass's leaf values at the sequences leading to
        the leaf roots (CFR-D, Burch et al. 2014), 0 elsewhere.

    Returns:
      (r, x): r (G,) is 0 on the empty sequences and on the other player's sequences; x (G,) are
      the realization plans of sigma.
    """
    x = self.realization(sigma)
    if terminals is None:
      c = self.terminal_values(x, player, self.weighted_utility)
    else:
      utility = self.tree.utility[terminals]
      if chance_weight is not None:
        utility = utility * chance_weight[:, None]
      c = self.terminal_values(x, player, utility, terminals)
    if leaf_values is not None:
      c += leaf_values
    v = self.backup(c, sigma)
    c[:2] = 0.0
    c[2:] -= v[self.seq_infoset[2:]]
    return c, x

  def backup(self, c: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Bottom-up counterfactual values; ``c`` becomes q in place, returns v (K,).

    q(I, a) = c[seq(I, a)] + sum_{J: parent(J) = seq(I, a)} v(J), v(I) = sum_a sigma(I, a) q(I, a).
    The empty sequences end with the root values sum_{J at depth 0} v(J) + c[empty].
    """
    v = np.empty(self.num_infosets)
    for lv in reversed(self.levels):
      vl = np.add.reduceat(sigma[lv.sa:lv.sb] * c[lv.sa:lv.sb], lv.block_starts,
                           out=v[lv.ia:lv.ib])
      c[lv.pa:lv.pb] += np.bincount(lv.parent_local, weights=vl, minlength=lv.pb - lv.pa)
    return v

  def best_response_backup(self, c: np.ndarray) -> np.ndarray:
    """As ``backup`` with v(I) = max_a q(I, a): best-response values; returns v (K,)."""
    v = np.empty(self.num_infosets)
    for lv in reversed(self.levels):
      vl = np.maximum.reduceat(c[lv.sa:lv.sb], lv.block_starts, out=v[lv.ia:lv.ib])
      c[lv.pa:lv.pb] += np.bincount(lv.parent_local, weights=vl, minlength=lv.pb - lv.pa)
    return v


@dataclasses.dataclass(frozen=True)
class UpdateRule:
  """Which CFR variant an engine runs.

  Attributes:
    alternating_updates: update player 0, refresh the policy, then player 1 (OpenSpiel's
      default); otherwise both players from the same policy.
    regret_matching_plus: clip cumulative regrets at 0 after each update (CFR+).
    averaging_gamma: the average policy weights iteration t by t^gamma (0: uniform, 1: linear).
    discount_alpha, discount_beta: discounted CFR's regret discounts, or None for no discount.
  """

  alternating_updates: bool = True
  regret_matching_plus: bool = False
  averaging_gamma: float = 0.0
  discount_alpha: Optional[float] = None
  discount_beta: Optional[float] = None

  def __post_init__(self):
    if (self.discount_alpha is None) != (self.discount_beta is None):
      raise ValueError("discount_alpha and discount_beta must both be set or both be None")
    if self.averaging_gamma < 0:
      raise ValueError(f"averaging_gamma must be >= 0, got {self.averaging_gamma}")


class CFREngine:
  """The state of a CFR run (regrets, average numerators, current policy) on ``TreeArrays``.

  Attributes:
    arrays: the ``TreeArrays``.
    rule: the ``UpdateRule``.
    regrets: cumulative counterfactual regrets R (G,), 0 on the empty sequences.
    cumulative: average-policy numerators S (G,).
    sigma: current policy (G,), 1 on the empty sequences.
    iteration: number of completed iterations.
  """

  def __init__(self, arrays: TreeArrays, rule: UpdateRule):
    self.arrays = arrays
    self.rule = rule
    g = arrays.num_sequences
    self.regrets = np.zeros(g)
    self.cumulative = np.zeros(g)
    self.sigma = np.ones(g)
    self.iteration = 0
    self.refresh_policy()

  def refresh_policy(self) -> None:
    """sigma = regret matching of the cumulative regrets."""
    self.sigma[2:] = rm.regret_matching(self.regrets[2:], self.arrays.blocks)

  def average(self, pending: Optional[np.ndarray] = None) -> np.ndarray:
    """The average policy (G,), uniform at information sets with zero numerators.

    Args:
      pending: an increment (G,) of the numerators not yet added, e.g. this iteration's
        ``average_increment`` when the average pibar^t including pi^t is needed before
        ``update`` (CFR-AVG's leaf beliefs); the numerators are S + pending.
    """
    numerators = self.cumulative if pending is None else self.cumulative + pending
    out = np.ones(self.arrays.num_sequences)
    out[2:] = rm.normalize_average(numerators[2:], self.arrays.blocks)
    return out

  def average_increment(self, player: Optional[int], x: np.ndarray,
                        visits: Optional[np.ndarray] = None) -> np.ndarray:
    """This iteration's average-policy numerators w_t x_P(s) on ``player``'s sequences (G,).

    Args:
      player: the updated player, or None for both.
      x: realization plans (G,) of the profile played in the iteration.
      visits: chance sampling: per global information set, the number of visited histories,
        which multiplies the increment (Lanctot et al. 2009).
    """
    a = self.arrays
    own = x * (a.player_mask[player] if player is not None else a.both_mask)
    if visits is not None:
      own *= np.append(visits, 0.0)[a.seq_infoset]  # Empty sequences: infoset -1, weight 0.
    return rm.averaging_weight(self.iteration, self.rule.averaging_gamma) * own

  def iterate(self, sampler: Optional[Sampler] = None) -> None:
    """One CFR iteration; with a sampler, chance is sampled afresh for every pass."""
    self.iteration += 1
    passes = (0, 1) if self.rule.alternating_updates else (None,)
    for player in passes:
      self.update(player, sampler=sampler)

  def update(self, player: Optional[int], *, sampler: Optional[Sampler] = None,
             trunk_terminals: Optional[np.ndarray] = None,
             leaf_values: Optional[np.ndarray] = None) -> None:
    """One player's CFR update (one pass of iteration ``iteration``) against ``sigma``.

    R(I, a) += q(I, a) - v(I) on ``player``'s sequences, S += w_t x_P (``average_increment``),
    then RM+ clipping and discounting as the rule asks, and sigma = regret matching of R.
    ``iterate`` calls it once per player (or once with None); depth-limited CFR calls it
    directly after ``iteration += 1``, with sigma holding pi^t on the trunk and the leaf
    continuation sigma^t below the leaves, so that S accumulates the full profile; regret
    matching then leaves sigma uniform below the leaves (their regrets stay 0).

    Args:
      player: 0, 1, or None for both players from the same policy (simultaneous updates).
      sampler: chance sampling: draws the visited terminals and visit counts for this pass.
      trunk_terminals: depth-limited CFR: the terminals above the cut, weighted by pi_c(z);
        terminals below the cut are left out (their value comes from ``leaf_values``).
      leaf_values: depth-limited CFR: counterfactual values (G,) of the updated player(s) at the
        sequences leading to the leaf roots, the terminal values of the trunk's update
        (``TreeArrays.regret_increments``).

    Raises:
      ValueError: if both ``sampler`` and ``trunk_terminals`` are given.
    """
    a = self.arrays
    terminals = chance_weight = visits = None
    if sampler is not None:
      if trunk_terminals is not None:
        raise ValueError("chance sampling and a trunk cut cannot be combined in one update")
      terminals, visits = sampler()
    elif trunk_terminals is not None:
      terminals, chance_weight = trunk_terminals, a.tree.chance_reach[trunk_terminals]
    r, x = a.regret_increments(self.sigma, player, terminals, chance_weight, leaf_values)
    # For a player not updated r is exactly 0, so its regrets are unchanged.
    self.regrets += r
    self.cumulative += self.average_increment(player, x, visits)
    if self.rule.regret_matching_plus:
      rm.clip_regrets_plus(self.regrets)
    if self.rule.discount_alpha is not None:
      idx = a.player_seqs[player] if player is not None else slice(2, None)
      r = self.regrets[idx]
      rm.discount_regrets(r, self.iteration, self.rule.discount_alpha, self.rule.discount_beta)
      self.regrets[idx] = r
    self.refresh_policy()
