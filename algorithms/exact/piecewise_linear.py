"""Exact piecewise-linear functions on [0, 1] and sets of intervals, for continuous games.

The method of ``continuous_kuhn``: against threshold (interval) strategies, a player's payoff of
each action as a function of its own hand strength s in [0, 1] is a sum of terms
(stake) * |S < s| and (stake) * |S > s|, |S < s| the measure of the opponent's hands in a set S
below s; so it is piecewise linear in s, and a best response's value is the exact integral of
the pointwise maximum of such functions. Every number is a ``fractions.Fraction``.
"""

import bisect
import dataclasses
import fractions
from typing import Tuple

Fraction = fractions.Fraction
# Disjoint, sorted intervals (low, high) inside [0, 1]; endpoints have measure 0, so open or closed
# ends do not matter.
Intervals = Tuple[Tuple[Fraction, Fraction], ...]

_ZERO = Fraction(0)
_ONE = Fraction(1)
UNIT: Intervals = ((_ZERO, _ONE),)


@dataclasses.dataclass(frozen=True)
class PiecewiseLinear:
  """A piecewise-linear function on [0, 1] with exact coefficients.

  Attributes:
    knots: 0 = knots[0] < ... < knots[-1] = 1.
    pieces: (slope, intercept) of the function on [knots[i], knots[i + 1]].
  """

  knots: Tuple[Fraction, ...]
  pieces: Tuple[Tuple[Fraction, Fraction], ...]

  @classmethod
  def constant(cls, c: Fraction) -> "PiecewiseLinear":
    return cls((_ZERO, _ONE), ((_ZERO, Fraction(c)),))

  @classmethod
  def mass_below(cls, s: Intervals) -> "PiecewiseLinear":
    """The function x -> |s < x|: slope 1 inside s, 0 outside."""
    knots = sorted({_ZERO, _ONE} | {e for interval in s for e in interval})
    pieces = []
    mass = _ZERO
    for low, high in zip(knots, knots[1:]):
      inside = any(p <= low and high <= q for p, q in s)
      pieces.append((_ONE, mass - low) if inside else (_ZERO, mass))
      mass += (high - low) if inside else 0
    return cls(tuple(knots), tuple(pieces))

  @classmethod
  def mass_above(cls, s: Intervals) -> "PiecewiseLinear":
    """The function x -> |s > x|."""
    return cls.constant(measure(s)) - cls.mass_below(s)

  def _piece(self, low: Fraction, high: Fraction) -> Tuple[Fraction, Fraction]:
    """The piece on [low, high], which must lie inside one piece."""
    index = bisect.bisect_right(self.knots, (low + high) / 2) - 1
    return self.pieces[min(index, len(self.pieces) - 1)]

  def _combine(self, other: "PiecewiseLinear", op) -> "PiecewiseLinear":
    knots = sorted(set(self.knots) | set(other.knots))
    pieces = []
    for low, high in zip(knots, knots[1:]):
      (s1, c1), (s2, c2) = self._piece(low, high), other._piece(low, high)
      pieces.append((op(s1, s2), op(c1, c2)))
    return PiecewiseLinear(tuple(knots), tuple(pieces))._merged()

  def _merged(self) -> "PiecewiseLinear":
    """The same function with equal neighbouring pieces joined."""
    knots, pieces = [self.knots[0]], []
    for high, piece in zip(self.knots[1:], self.pieces):
      if pieces and pieces[-1] == piece:
        knots[-1] = high
      else:
        pieces.append(piece)
        knots.append(high)
    return PiecewiseLinear(tuple(knots), tuple(pieces))

  def __add__(self, other: "PiecewiseLinear") -> "PiecewiseLinear":
    return self._combine(other, lambda u, w: u + w)

  def __sub__(self, other: "PiecewiseLinear") -> "PiecewiseLinear":
    return self._combine(other, lambda u, w: u - w)

  def scaled(self, factor: Fraction) -> "PiecewiseLinear":
    return PiecewiseLinear(self.knots, tuple((factor * s, factor * c) for s, c in self.pieces))

  def __call__(self, x: Fraction) -> Fraction:
    """f(x), from the piece on the right of a knot (the functions here are continuous)."""
    index = min(bisect.bisect_right(self.knots, x) - 1, len(self.pieces) - 1)
    slope, intercept = self.pieces[max(index, 0)]
    return slope * x + intercept

  def maximum(self, other: "PiecewiseLinear") -> "PiecewiseLinear":
    """The pointwise maximum, with a knot added wherever the two lines cross inside a piece."""
    knots = sorted(set(self.knots) | set(other.knots))
    out_knots, pieces = [knots[0]], []
    for low, high in zip(knots, knots[1:]):
      f, g = self._piece(low, high), other._piece(low, high)
      d_low = (f[0] - g[0]) * low + (f[1] - g[1])
      d_high = (f[0] - g[0]) * high + (f[1] - g[1])
      if d_low * d_high < 0:  # Crossing at the root of the difference line.
        root = low + (high - low) * d_low / (d_low - d_high)
        pieces.extend([f if d_low > 0 else g, f if d_high > 0 else g])
        out_knots.extend([root, high])
      else:
        pieces.append(f if d_low + d_high >= 0 else g)
        out_knots.append(high)
    return PiecewiseLinear(tuple(out_knots), tuple(pieces))._merged()

  def integral(self, over: Intervals = UNIT) -> Fraction:
    """The exact integral of the function over a set of intervals."""
    total = _ZERO
    for (low, high), (slope, intercept) in zip(zip(self.knots, self.knots[1:]), self.pieces):
      for p, q in over:
        left, right = max(low, p), min(high, q)
        if left < right:
          total += slope * (right * right - left * left) / 2 + intercept * (right - left)
    return total


def intervals(pairs) -> Intervals:
  """Sorted, merged, non-empty intervals of exact numbers."""
  items = sorted((Fraction(p), Fraction(q)) for p, q in pairs if q > p)
  out = []
  for p, q in items:
    if out and p <= out[-1][1]:
      out[-1] = (out[-1][0], max(out[-1][1], q))
    else:
      out.append((p, q))
  return tuple(out)


def measure(s: Intervals) -> Fraction:
  return sum((q - p for p, q in s), _ZERO)


def complement(s: Intervals) -> Intervals:
  """[0, 1] minus s."""
  out, start = [], _ZERO
  for p, q in s:
    out.append((start, p))
    start = q
  out.append((start, _ONE))
  return intervals(out)


def intersect(s: Intervals, t: Intervals) -> Intervals:
  return intervals([(max(p, u), min(q, w)) for p, q in s for u, w in t])
