"""Tests of algorithms.exact.exact_number: the exact value of a number, or a one-line ValueError."""

import fractions

import numpy as np
import pytest

from algorithms.exact.exact_number import to_fraction

Fraction = fractions.Fraction


def test_float_is_taken_at_its_binary_value():
  # 0.1 is the double 3602879701896397 / 2**55 (IEEE 754 binary64: 53-bit significand).
  assert to_fraction(0.1, "x") == Fraction(3602879701896397, 2**55)
  assert to_fraction(np.float64(0.1), "x") == Fraction(3602879701896397, 2**55)


@pytest.mark.parametrize("x, expected", [
    (3, Fraction(3)), (Fraction(1, 3), Fraction(1, 3)), (np.int64(-2), Fraction(-2)),
    (0.5, Fraction(1, 2))])
def test_rationals_keep_their_value(x, expected):
  value = to_fraction(x, "x")
  assert value == expected and type(value) is Fraction


@pytest.mark.parametrize("x, message", [
    (True, "bet must be an int, float or Fraction, got True"),
    ("1", "bet must be an int, float or Fraction, got '1'"),
    (float("nan"), "bet must be finite, got nan"),
    (float("-inf"), "bet must be finite, got -inf")])
def test_bad_input_is_a_value_error_naming_it(x, message):
  with pytest.raises(ValueError, match=f"^{message}$"):
    to_fraction(x, "bet")
