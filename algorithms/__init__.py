"""The public API: CFR solvers (n players, any utility type), ReBeL's CFR-AVG, exact references
and exploitability for OpenSpiel games.

Everything a user imports comes from here (``from algorithms import CFRSolver, kuhn_equilibria``);
the subpackages hold the implementation, one layer each (``docs/architecture.md``):

* ``algorithms.tree``: the game tree in flat arrays and the game-specific shortcuts;
* ``algorithms.cfr``: the compiled CFR engines (flat tree; range vectors for one-card games such
  as Kuhn poker with any deck) and the OpenSpiel-compatible solvers;
* ``algorithms.exact``: closed forms (three cards and the continuous limit), the three-player
  family, the sequence-form LP, exact NashConv, regret bounds and the referee game's
  expectiminimax;
* ``algorithms.file_formats``: checkpoints and policy files;
* ``algorithms.rebel``: the public-state cut, CFR-AVG / CFR-D, leaf solvers and learned values.
"""

from algorithms.cfr.batched_solver import BatchedCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedCFRSolver
from algorithms.cfr.batched_solver import BatchedDCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedDCFRSolver
from algorithms.cfr.batched_solver import BatchedLCFRSolver
from algorithms.cfr.batched_solver import BatchedPCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedPDCFRPlusSolver
from algorithms.cfr.mccfr import ExternalSamplingSolver
from algorithms.cfr.mccfr import OutcomeSamplingSolver
from algorithms.cfr.range_engine import CardPolicy
from algorithms.cfr.range_engine import RangeEngine
from algorithms.cfr.solvers import CFRPlusSolver
from algorithms.cfr.solvers import CFRSolver
from algorithms.cfr.solvers import ChanceSamplingCFRSolver
from algorithms.cfr.solvers import DCFRPlusSolver
from algorithms.cfr.solvers import DCFRSolver
from algorithms.cfr.solvers import LCFRSolver
from algorithms.cfr.solvers import PCFRPlusSolver
from algorithms.cfr.solvers import PDCFRPlusSolver
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.exact import continuous_kuhn
from algorithms.exact import deck_thresholds
from algorithms.exact import exact_nash_conv
from algorithms.exact import kuhn3_equilibria
from algorithms.exact import kuhn_equilibria
from algorithms.exact import pbs_minimax
from algorithms.exact import regret_bounds
from algorithms.exact import sequence_form_lp
from algorithms.file_formats import checkpoint
from algorithms.file_formats import policy_io
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.cfr_avg import CFRAvgSolver
from algorithms.rebel.public_tree import PublicTree
from algorithms.tree.game_tree import GameTree

__all__ = [
    # Solvers (drop-ins for OpenSpiel's CFR classes) and exact evaluation on the tree.
    "CFRAvgSolver", "CFRPlusSolver", "CFRSolver", "ChanceSamplingCFRSolver", "DCFRPlusSolver",
    "DCFRSolver", "GameTree", "LCFRSolver", "PCFRPlusSolver", "PDCFRPlusSolver", "PublicTree",
    "TreeEvaluator",
    # The same rules on B games of one tree shape at once.
    "BatchedCFRPlusSolver", "BatchedCFRSolver", "BatchedDCFRPlusSolver", "BatchedDCFRSolver",
    "BatchedLCFRSolver", "BatchedPCFRPlusSolver", "BatchedPDCFRPlusSolver",
    # Monte Carlo CFR, drop-ins for OpenSpiel's Python MCCFR solvers.
    "ExternalSamplingSolver", "OutcomeSamplingSolver",
    # The range-vector engine (two-player Kuhn poker, any deck) and its compact policies.
    "CardPolicy", "RangeEngine",
    # ReBeL's agent (a search at every public state) and its exact behaviour strategy.
    "ReBeLAgent", "behaviour_strategy",
    # Exact references, as modules.
    "continuous_kuhn", "deck_thresholds", "exact_nash_conv", "kuhn3_equilibria",
    "kuhn_equilibria", "pbs_minimax", "regret_bounds", "sequence_form_lp",
    # File formats, as modules.
    "checkpoint", "policy_io",
]
