"""Numbers given to the exact references, as ``fractions.Fraction``.

The exact references (``kuhn_equilibria``, ``kuhn3_equilibria``, ``exact_nash_conv``) take ints,
Fractions and floats alike and compute in exact rational arithmetic. A float is taken at its
exact binary value (``Fraction(0.1) == 3602879701896397/36028797018963968``), never rounded to a
nearby simple fraction: every finite double is a dyadic rational, so no information is lost or
invented (IEEE 754-2019, section 3.3).
"""

import fractions
import math
import numbers
from typing import Union

Fraction = fractions.Fraction
Number = Union[int, float, fractions.Fraction]


def to_fraction(x: Number, name: str) -> Fraction:
  """``x`` as an exact Fraction (a float at its exact binary value).

  Args:
    x: an int, float or Fraction (any ``numbers.Real`` but bool, e.g. numpy scalars).
    name: what ``x`` is, for the error message.

  Raises:
    ValueError: ``x`` is not a real number (or is a bool), or is infinite or NaN.
  """
  if isinstance(x, bool) or not isinstance(x, numbers.Real):
    raise ValueError(f"{name} must be an int, float or Fraction, got {x!r}")
  if isinstance(x, numbers.Rational):
    return Fraction(x.numerator, x.denominator)
  x = float(x)
  if not math.isfinite(x):
    raise ValueError(f"{name} must be finite, got {x}")
  return Fraction(x)
