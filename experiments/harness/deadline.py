"""A wall-clock deadline: the one mechanism by which ``--max-minutes`` bounds a run.

An estimate refuses a sweep before it starts (``context.sweep_cost``); a deadline stops the work
that was accepted once the time has passed. Work checks ``Deadline.passed()`` at its natural
boundaries (between jobs, tasks, games or solver iterations), keeps what finished and reports what
was cut. ``time.monotonic`` is the clock, so a change of the system time moves no deadline, and
it is the same clock in every process of one machine, so a deadline can be handed to a pool
worker as its ``end`` number.
"""

import dataclasses
import math
import time
from typing import Optional


@dataclasses.dataclass(frozen=True)
class Deadline:
  """The monotonic time after which work stops (``math.inf``: never).

  Attributes:
    end: ``time.monotonic()`` at the deadline.
  """

  end: float = math.inf

  @classmethod
  def after_minutes(cls, minutes: Optional[float], since: Optional[float] = None) -> "Deadline":
    """The deadline ``minutes`` from now (or from ``since``, an earlier ``time.monotonic()``,
    e.g. when the process started); None for no deadline.

    Raises:
      ValueError: for a negative or NaN number of minutes.
    """
    if minutes is None:
      return cls()
    if not minutes >= 0:
      raise ValueError(f"minutes must be a number >= 0, got {minutes!r}")
    return cls((time.monotonic() if since is None else since) + 60.0 * minutes)

  def remaining(self) -> float:
    """Seconds left (``math.inf`` without a deadline, never below 0)."""
    return max(0.0, self.end - time.monotonic())

  def passed(self) -> bool:
    """Whether the deadline has passed."""
    return time.monotonic() >= self.end


# No deadline: the default of code that takes one (``passed()`` is never true).
NEVER = Deadline()
