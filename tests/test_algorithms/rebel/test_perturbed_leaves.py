"""``PerturbedValueFunction(public_states=...)``: only the leaves of the chosen public states are
perturbed (algorithms/rebel/leaves/leaf_values.py).

References: the unperturbed value function (the exact LP's values, which the other leaves must
return bit for bit) and the perturbation of every leaf (``public_states=None``, the behaviour
before the option), which a chosen leaf must return bit for bit; ``smooth_perturbation``'s
bound delta U.
"""

import numpy as np
import pyspiel
import pytest

from algorithms.rebel.learning.value_network import cut_of
from algorithms.rebel.leaves import specs
from algorithms.rebel.leaves.leaf_values import ExactValueFunction
from algorithms.rebel.leaves.leaf_values import PerturbedValueFunction
from algorithms.rebel.leaves.solvers import SequenceFormLPSolver


@pytest.mark.parametrize("chosen", [["p"], ["b"], ["p", "b"], []])
def test_only_the_chosen_leaves_are_perturbed(chosen):
  # Kuhn poker cut after one action: leaves "p" (both players act) and "b" (player 1 acts).
  tree, _ = cut_of(pyspiel.load_game("kuhn_poker"), 1)
  exact = ExactValueFunction(SequenceFormLPSolver())
  every = PerturbedValueFunction(exact, 0.1, seed=4)
  some = PerturbedValueFunction(exact, 0.1, seed=4, public_states=chosen)
  belief = np.random.default_rng(0).dirichlet(np.ones(6))
  assert sorted(leaf.public_state for leaf in tree.leaves) == ["b", "p"]
  for leaf in tree.leaves:
    reference = every if leaf.public_state in chosen else exact
    values = some.root_values(leaf, belief)
    np.testing.assert_array_equal(values, reference.root_values(leaf, belief))
    # Perturbed by at most delta U = 0.1 * 2 chips, and by something (tanh of a Gaussian draw).
    gap = np.abs(values - exact.root_values(leaf, belief))
    assert gap.max() <= 0.2 + 1e-12
    assert (gap.max() > 1e-6) == (leaf.public_state in chosen)


def test_description_records_the_chosen_leaves_only_when_set():
  # A description written before the option (no "public_states") perturbs every leaf, and
  # writing it again leaves it as it was.
  lp = {"name": "SequenceFormLPSolver"}
  old = {"name": "ValueFunctionLeafSolver", "continuation": None, "one_player_exact": False,
         "value_function": {"name": "PerturbedValueFunction", "delta": 0.1, "seed": 1,
                            "value_function": {"name": "ExactValueFunction", "solver": lp}}}
  solver = specs.from_spec(old)
  assert solver.value_function.public_states is None
  assert specs.spec(solver) == old
  chosen = dict(old, value_function=dict(old["value_function"], public_states=["pb"]))
  solver = specs.from_spec(chosen)
  assert solver.value_function.public_states == ("pb",)
  assert specs.spec(solver) == chosen


@pytest.mark.parametrize("bad", ["p", [1], ["p", None]])
def test_bad_public_states_are_refused(bad):
  with pytest.raises(ValueError, match="public_states must be"):
    PerturbedValueFunction(ExactValueFunction(SequenceFormLPSolver()), 0.1,
                           public_states=bad)
