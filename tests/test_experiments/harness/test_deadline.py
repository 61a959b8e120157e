"""Tests of experiments/harness/deadline.py: the clock arithmetic of ``Deadline``."""

import math
import time

import pytest

from experiments.harness import deadline


def test_no_deadline_never_passes():
  never = deadline.Deadline.after_minutes(None)
  assert not never.passed()
  assert never.remaining() == math.inf


def test_zero_minutes_has_passed_and_leaves_nothing():
  now = deadline.Deadline.after_minutes(0)
  assert now.passed()
  assert now.remaining() == 0.0


def test_minutes_are_sixty_seconds_from_now():
  before = time.monotonic()
  soon = deadline.Deadline.after_minutes(2.0)
  after = time.monotonic()
  assert before + 120.0 <= soon.end <= after + 120.0
  assert not soon.passed()
  assert 119.0 < soon.remaining() <= 120.0


@pytest.mark.parametrize("minutes", [-1.0, math.nan])
def test_bad_minutes_are_refused(minutes):
  with pytest.raises(ValueError, match="minutes must be a number >= 0"):
    deadline.Deadline.after_minutes(minutes)
