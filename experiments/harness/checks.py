"""Reference checks: a number compared with an independent reference, and the builders for the
kinds of comparison the experiments make.

A ``Check`` passes when |value - reference| <= tolerance. The builders name the tolerance's
origin once:

* ``same_number``: two computations of one number without sampling (e.g. the tree's
  exploitability and OpenSpiel's, or two implementations of one algorithm), equal up to
  floating-point rounding, ``rounding``: ``ROUNDING``, relative to the numbers where they exceed
  1 in size (a game at extreme stakes has values near 1e17, where one unit in the last place is
  about 50);
* ``within_nash_conv``: the value u_0(sigma) of a profile against the game value v*; for any
  profile of a two-player zero-sum game |u_0(sigma) - v*| <= NashConv(sigma), since both lie
  between player 0's best-response values against each side, whose difference is the NashConv;
* ``at_most``: a non-negative quantity (exploitability, regret) against a bound;
* ``within``: any other stated tolerance.

A check marked ``by_construction`` compares two numbers that are equal, or ordered, by the way
they are computed (e.g. a restriction of a best response is at most as good as the best
response): not a comparison with an independent reference but a guard against a bug. It counts
as passed or failed like any check, but the report lists it apart and leaves it out of the worst
distance to a reference, where an equality that holds exactly would read as a near-miss.
"""

import dataclasses

# Floating-point rounding between two computations of one number without sampling (sums of at
# most a few thousand terms of size <= 10, and HiGHS's 1e-10 feasibility tolerances for the LP).
ROUNDING = 1e-9


def rounding(*numbers: float) -> float:
  """The rounding allowed between two computations of ``numbers``: ``ROUNDING`` times the
  largest of 1 and their sizes (a relative error of 1e-9 once they exceed 1, as their rounding
  scales with them)."""
  return ROUNDING * max([1.0, *(abs(float(x)) for x in numbers)])


@dataclasses.dataclass
class Check:
  """One number compared with an independent reference.

  Attributes:
    name: what is compared, e.g. "value kuhn_poker_ante(ante=2.0) cfr".
    value: the measured number.
    reference: the reference number.
    tolerance: the allowed absolute difference.
    source: where the reference comes from, e.g. "closed form", "sequence-form LP".
    by_construction: the comparison holds by the way both numbers are computed (see the module
      docstring), rather than against an independent reference.
  """

  name: str
  value: float
  reference: float
  tolerance: float
  source: str
  by_construction: bool = False

  @property
  def passed(self) -> bool:
    return abs(self.value - self.reference) <= self.tolerance


def same_number(name: str, value: float, reference: float, source: str,
                by_construction: bool = False) -> Check:
  """Two computations of one number without sampling: equal up to ``rounding``."""
  return Check(name, float(value), float(reference), rounding(value, reference), source,
               by_construction)


def within_nash_conv(name: str, value: float, game_value: float, nash_conv: float,
                     source: str) -> Check:
  """A profile's value u_0 against the game value, within the profile's NashConv (+ rounding)."""
  return Check(name, float(value), float(game_value),
               float(nash_conv) + rounding(value, game_value),
               f"{source}; tolerance NashConv of the policy")


def at_most(name: str, value: float, bound: float, source: str,
            by_construction: bool = False) -> Check:
  """A quantity that is 0 at the ideal (exploitability, NashConv, regret) against its bound;
  ``by_construction`` when the bound holds by the way both are computed (see the module
  docstring)."""
  return Check(name, float(value), 0.0, float(bound), source, by_construction)


def within(name: str, value: float, reference: float, tolerance: float, source: str) -> Check:
  """``value`` within a stated ``tolerance`` of ``reference``."""
  return Check(name, float(value), float(reference), float(tolerance), source)
