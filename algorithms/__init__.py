"""CFR solvers (n players, any utility type), exact two-player equilibria and exploitability for
OpenSpiel games."""

from algorithms.batched_solver import BatchedCFRPlusSolver, BatchedCFRSolver
from algorithms.cfr_avg import CFRAvgSolver
from algorithms.game_tree import GameTree
from algorithms.solvers import (CFRPlusSolver, CFRSolver, ChanceSamplingCFRSolver, DCFRSolver,
                                LCFRSolver)
from algorithms.tree_exploitability import TreeEvaluator
