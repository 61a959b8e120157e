"""CFR solvers (n players, any utility type), exact two-player equilibria and exploitability for
OpenSpiel games."""

from algorithms.batched_solver import BatchedCFRPlusSolver
from algorithms.batched_solver import BatchedCFRSolver
from algorithms.cfr_avg import CFRAvgSolver
from algorithms.game_tree import GameTree
from algorithms.solvers import CFRPlusSolver
from algorithms.solvers import CFRSolver
from algorithms.solvers import ChanceSamplingCFRSolver
from algorithms.solvers import DCFRSolver
from algorithms.solvers import LCFRSolver
from algorithms.tree_exploitability import TreeEvaluator

__all__ = [
    "BatchedCFRPlusSolver", "BatchedCFRSolver", "CFRAvgSolver", "CFRPlusSolver", "CFRSolver",
    "ChanceSamplingCFRSolver", "DCFRSolver", "GameTree", "LCFRSolver", "TreeEvaluator",
]
