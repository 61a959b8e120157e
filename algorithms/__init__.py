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

from algorithms.cfr.batched_solver import BATCHED_SOLVERS as _BATCHED_SOLVERS
from algorithms.cfr.batched_solver import BatchedAPCFRPlusSolver as BatchedAPCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedCFRPlusSolver as BatchedCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedCFRSolver as BatchedCFRSolver
from algorithms.cfr.batched_solver import BatchedDCFRPlusSolver as BatchedDCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedDCFRSolver as BatchedDCFRSolver
from algorithms.cfr.batched_solver import BatchedLCFRSolver as BatchedLCFRSolver
from algorithms.cfr.batched_solver import BatchedPCFRPlusSolver as BatchedPCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedPDCFRPlusSolver as BatchedPDCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedSAPCFRPlusSolver as BatchedSAPCFRPlusSolver
from algorithms.cfr.evaluation import exploitability
from algorithms.cfr.evaluation import nash_conv
from algorithms.cfr.mccfr import ExternalSamplingSolver
from algorithms.cfr.mccfr import OutcomeSamplingSolver
from algorithms.cfr.range_engine import CardPolicy
from algorithms.cfr.range_engine import RangeEngine
from algorithms.cfr.solvers import SOLVERS as _SOLVERS
from algorithms.cfr.solvers import APCFRPlusSolver as APCFRPlusSolver
from algorithms.cfr.solvers import CFRPlusSolver as CFRPlusSolver
from algorithms.cfr.solvers import CFRSolver as CFRSolver
from algorithms.cfr.solvers import ChanceSamplingCFRSolver as ChanceSamplingCFRSolver
from algorithms.cfr.solvers import DCFRPlusSolver as DCFRPlusSolver
from algorithms.cfr.solvers import DCFRSolver as DCFRSolver
from algorithms.cfr.solvers import LCFRSolver as LCFRSolver
from algorithms.cfr.solvers import PCFRPlusSolver as PCFRPlusSolver
from algorithms.cfr.solvers import PDCFRPlusSolver as PDCFRPlusSolver
from algorithms.cfr.solvers import SAPCFRPlusSolver as SAPCFRPlusSolver
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
from algorithms.file_formats import solver_checkpoint
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import behaviour_strategy
from algorithms.rebel.cfr_avg import CFRAvgSolver
from algorithms.rebel.public_tree import PublicTree
from algorithms.tree.game_tree import GameTree

# The solver classes (``_SOLVERS``, ``_BATCHED_SOLVERS``) are imported above by name, one per named
# rule of ``algorithms.cfr.update_rules.RULES`` and its batched twin, so that grep and editors
# find them; test_update_rules.py names the line a new rule's class lacks.
__all__ = [
    # Solvers (drop-ins for OpenSpiel's CFR classes) and exact evaluation on the tree.
    *_SOLVERS, "CFRAvgSolver", "GameTree", "PublicTree", "TreeEvaluator",
    # The same rules on B games of one tree shape at once.
    *_BATCHED_SOLVERS,
    # Exact NashConv and exploitability of a policy, on the engine that fits the game.
    "exploitability", "nash_conv",
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
    "checkpoint", "policy_io", "solver_checkpoint",
]
