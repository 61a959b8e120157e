"""The numpy CFR engine the compiled kernel replaced, kept as the reference it is tested against.

This is the engine of the project before the kernel (``algorithms/cfr/tree_passes.py``,
``algorithms/cfr/regret_matching.py`` and ``CFREngine.update`` as of commit c86ba51, whose
two-player results were in turn checked against OpenSpiel), reduced to what the regression
tests run: full-width passes over the level slices of ``TreeArrays``, with numpy's
``reduceat`` and ``bincount``. ``tests/test_algorithms/cfr/test_cfr_kernel.py`` asserts the kernel's
regrets, numerators and policies equal to these bit for bit. No solver uses it.
"""

from typing import Optional

import numpy as np

from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.tree.tree_layout import TreeArrays


def _levels(a: TreeArrays):
  """Per level: information-set and sequence bounds, parent-sequence bounds, and the level's
  ``seq_parent``, ``infoset_offset`` and ``infoset_parent_offset``."""
  infoset_level = np.repeat(np.arange(a.num_levels), np.diff(a.level_infosets))
  offset = a.infoset_start - a.level_sequences[infoset_level]
  previous_start = np.concatenate([[0], a.level_sequences[:-2]])
  parent_offset = a.infoset_parent - previous_start[infoset_level]
  out = []
  for d in range(a.num_levels):
    ia, ib = int(a.level_infosets[d]), int(a.level_infosets[d + 1])
    sa, sb = int(a.level_sequences[d]), int(a.level_sequences[d + 1])
    pa = int(a.level_sequences[d - 1]) if d > 0 else 0
    out.append((ia, ib, sa, sb, pa, sa, a.seq_parent[sa:sb], offset[ia:ib],
                parent_offset[ia:ib]))
  return out


def realization(a, levels, sigma):
  x = np.empty(a.num_sequences)
  x[:a.num_players] = 1.0
  for _, _, sa, sb, _, _, seq_parent, _, _ in levels:
    np.multiply(x[seq_parent], sigma[sa:sb], out=x[sa:sb])
  return x


def terminal_values(a, x, weights, player):
  n, g = a.num_players, a.num_sequences
  seqs = a.terminal_seq.T
  c = None
  for i in range(n) if player is None else (player,):
    others = weights[:, i]
    for j in range(n):
      if j != i:
        others = others * x[seqs[j]]
    ci = np.bincount(seqs[i], weights=others, minlength=g)
    c = ci if c is None else c + ci
  return c.astype(np.float64, copy=False)


def counterfactual_regrets(a, levels, c, sigma):
  v = np.empty(a.num_infosets)
  for ia, ib, sa, sb, pa, pb, _, offset, parent_offset in reversed(levels):
    vl = np.add.reduceat(sigma[sa:sb] * c[sa:sb], offset, out=v[ia:ib])
    c[pa:pb] += np.bincount(parent_offset, weights=vl, minlength=pb - pa)
  n = a.num_players
  c[:n] = 0.0
  c[n:] -= v[a.seq_infoset[n:]]
  return c


def normalize(numerators, starts, sizes):
  block_of = np.repeat(np.arange(len(sizes)), sizes)
  total = np.add.reduceat(numerators, starts)
  has = total > 0.0
  average = numerators / np.where(has, total, 1.0)[block_of]
  average += np.where(has, 0.0, 1.0 / sizes)[block_of]
  return average


class ReferenceEngine:
  """``CFREngine`` as it was in numpy: same state, same update, same order of operations."""

  def __init__(self, arrays: TreeArrays, rule: UpdateRule):
    self.a, self.rule = arrays, rule
    self.levels = _levels(arrays)
    n, g = arrays.num_players, arrays.num_sequences
    self.sizes = arrays.infoset_num_actions
    self.starts = np.cumsum(self.sizes) - self.sizes
    self.player_mask = np.zeros((n, g))
    self.player_mask[arrays.seq_player[n:], np.arange(n, g)] = 1.0
    self.sequence_mask = np.ones(g)
    self.sequence_mask[:n] = 0.0
    self.regrets, self.cumulative, self.sigma = np.zeros(g), np.zeros(g), np.ones(g)
    self.iteration = 0
    self._refresh()

  def _refresh(self):
    n = self.a.num_players
    self.sigma[n:] = normalize(np.maximum(self.regrets[n:], 0.0), self.starts, self.sizes)

  def restore(self, iteration, regrets, cumulative):
    self.iteration = iteration
    self.regrets[:] = regrets
    self.cumulative[:] = cumulative
    self._refresh()

  def iterate(self):
    self.iteration += 1
    players = range(self.a.num_players) if self.rule.alternating_updates else (None,)
    for player in players:
      self.update(player)

  def update(self, player: Optional[int]):
    a, rule = self.a, self.rule
    x = realization(a, self.levels, self.sigma)
    c = terminal_values(a, x, a.weighted_utility, player)
    self.regrets += counterfactual_regrets(a, self.levels, c, self.sigma)
    mask = self.player_mask[player] if player is not None else self.sequence_mask
    w = 1.0 if rule.averaging_gamma == 0 else float(self.iteration)**rule.averaging_gamma
    self.cumulative += w * (x * mask)
    if rule.regret_matching_plus:
      np.maximum(self.regrets, 0.0, out=self.regrets)
    if rule.discount_alpha is not None:
      n = a.num_players
      idx = np.flatnonzero(a.seq_player == player)[1:] if player is not None else \
          slice(n, None)
      r = self.regrets[idx]
      t = float(self.iteration)
      positive = t**rule.discount_alpha / (t**rule.discount_alpha + 1.0)
      negative = t**rule.discount_beta / (t**rule.discount_beta + 1.0)
      r *= np.where(r >= 0.0, positive, negative)
      self.regrets[idx] = r
    self._refresh()

  def average(self):
    n = self.a.num_players
    out = np.ones(self.a.num_sequences)
    out[n:] = normalize(self.cumulative[n:], self.starts, self.sizes)
    return out
