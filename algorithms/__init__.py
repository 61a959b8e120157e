"""CFR solvers (n players, any utility type), exact two-player equilibria and exploitability for
OpenSpiel games."""

from algorithms.cfr.batched_solver import BatchedCFRPlusSolver
from algorithms.cfr.batched_solver import BatchedCFRSolver
from algorithms.cfr.solvers import CFRPlusSolver
from algorithms.cfr.solvers import CFRSolver
from algorithms.cfr.solvers import ChanceSamplingCFRSolver
from algorithms.cfr.solvers import DCFRSolver
from algorithms.cfr.solvers import LCFRSolver
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.rebel.cfr_avg import CFRAvgSolver
from algorithms.tree.game_tree import GameTree

__all__ = [
    "BatchedCFRPlusSolver", "BatchedCFRSolver", "CFRAvgSolver", "CFRPlusSolver", "CFRSolver",
    "ChanceSamplingCFRSolver", "DCFRSolver", "GameTree", "LCFRSolver", "TreeEvaluator",
]
