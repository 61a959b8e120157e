"""The solver registry: every solver the experiments, the CLI and the benchmark run, by name.

A solver is one ``SolverSpec`` entry in ``SOLVERS``: a name, a label for plots and tables, the
class, its constructor options as data, and flags. ``spec.build(game, seed)`` constructs it; every
built solver speaks OpenSpiel's CFR interface: ``evaluate_and_update_policy()`` runs one
iteration and ``average_policy()`` returns the average policy (an OpenSpiel ``Policy``). Adding a
solver is one entry; ``--solver NAME`` then works in every command, and ``in_report=True`` puts it
in the default report's solver comparisons (the reference check and the convergence plots).

Options are data: e.g. CFR-AVG's depth limit, leaf beliefs ("current" is CFR-D), variant
("modified" is ReBeL's modified CFR-AVG), weighting and leaf solver (a description of
``algorithms.rebel.leaves.specs`` such as ``{"name": "CFRLeafSolver", "iterations": 200, "rule":
{...}}``, or a learned value function by its model file, ``{"name": "ValueFunctionLeafSolver",
"value_function": {"name": "PBSValueFunction", "path": ..., "sha256": ...}, "continuation":
...}``) are keyword options of ``algorithms.CFRAvgSolver``, so each variant is one entry, and a
job may replace some of an entry's options (``jobs.Job.options``).

Running a registered solver and measuring it is ``solver_runs``'s (``solve``, ``solve_batch``);
the adapters that give OpenSpiel's C++ solvers and its Python MCCFR this interface are
``openspiel_solvers``'s.
"""

import dataclasses
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from open_spiel.python.algorithms import cfr
import pyspiel

import algorithms
from algorithms.cfr import engine_choice
from algorithms.rebel.leaves import specs
from algorithms.tree.card_tree3 import AnyCardTree
from experiments.harness.openspiel_solvers import CppCFR
from experiments.harness.openspiel_solvers import CppMCCFR
from experiments.harness.openspiel_solvers import SeededMCCFR
from experiments.harness.range_cost import RANGE_COSTS
from experiments.harness.range_cost import RangeCost

# Sampled solvers touch one chance outcome per iteration instead of all; experiments give them
# this many times the iterations of full-traversal solvers.
SAMPLED_BUDGET_FACTOR = 10


@dataclasses.dataclass(frozen=True)
class SolverSpec:
  """A registered solver.

  Attributes:
    name: registry name (command-line value of ``--solver``).
    label: name in plots and tables.
    cls: the solver class; ``cls(game, **options)`` builds it.
    options: constructor keyword options (JSON data); a ``leaf_solver`` option is a
      ``leaves.specs`` description.
    algorithm: the algorithm's short name, shared by the variants that plots group together
      (e.g. "CFR", "CFR-AVG", "CFR-D").
    seeded: pass the job's seed as ``seed=``.
    sampled: the iterations are random, so results depend on the seed; sampled solvers get
      ``SAMPLED_BUDGET_FACTOR`` times the iterations and looser tolerances.
    ours: one of the project's solvers (``algorithms``), which run on its engines: ``cls``
      accepts ``tree=``, so callers that already built the flat game tree can share its
      ``GameTree``; a class whose ``ENGINES`` include "range" runs on range vectors where
      ``card_tree`` says so; its compiled kernels are warmed up before a timed run
      (``solver_runs.warm_up``).
    in_report: part of the default report's solver comparisons.
    cost: (a, b): one iteration on the flat tree (or outside the project's engine) takes about
      a + b H seconds on a game of H histories (measured on Kuhn and Leduc poker, 2 cores), for
      the estimate that refuses sweeps longer than ``--max-minutes``.
    range_cost: {players: ``RangeCost``}, the time of iterations and measures on range vectors
      (``range_cost.RANGE_COSTS``).
    batch: the class that solves several games of one tree shape at once with the same
      results (``algorithms.BatchedCFRSolver`` and the other batched classes), or None;
      ``solver_runs.solve_batch`` uses it.
    color: the solver's colour in every figure; None for its algorithm's
      (``plotting.ALGORITHM_COLORS``, dark grey for an algorithm not listed there).
  """

  name: str
  label: str
  cls: Callable[..., Any]
  options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
  algorithm: str = ""
  seeded: bool = False
  sampled: bool = False
  ours: bool = False
  in_report: bool = False
  cost: Tuple[float, float] = (1e-3, 2e-5)
  range_cost: Mapping[int, RangeCost] = dataclasses.field(default_factory=lambda: RANGE_COSTS)
  batch: Optional[Callable[..., Any]] = None
  color: Optional[str] = None

  def seconds_per_iteration(self, histories: int) -> float:
    """The estimated time of one iteration on the flat tree of a game of ``histories``
    histories."""
    return self.cost[0] + self.cost[1] * histories

  def range_seconds(self, iterations: int, measurements: int,
                    card_tree: AnyCardTree) -> float:
    """The estimated time of ``solver_runs.solve`` on range vectors over ``card_tree``:
    ``iterations`` iterations, ``measurements`` measures of the average policy, and what ``solve``
    adds once: building the solver and a throwaway one with its warm-up iteration
    (``solver_runs.warm_up``), and the final policy's returns (one more measure)."""
    players = card_tree.game.num_players()
    return self.range_cost[players].seconds(iterations + 2, measurements + 1,
                                            card_tree.num_cards)

  def card_tree(self, game: pyspiel.Game,
                options: Optional[Mapping[str, Any]] = None) -> Optional[AnyCardTree]:
    """The game's ``CardTree`` if this solver (with ``options`` replacing some of the entry's)
    runs on range vectors there, else None: its class offers the engine and
    ``engine_choice.range_card_tree`` takes it for the game (``engine`` option, default
    "auto")."""
    if "range" not in getattr(self.cls, "ENGINES", ()):
      return None
    return engine_choice.range_card_tree(game, dict(self.options, **(options or {})).get(
        "engine", "auto"))

  def build(self, game: pyspiel.Game, seed: int = 0,
            tree: Optional[algorithms.GameTree] = None,
            options: Optional[Mapping[str, Any]] = None) -> Any:
    """The solver on ``game`` (seeded with ``seed`` if it is sampled), with ``options``
    replacing some of the entry's; ``tree``, the game's flat ``GameTree``, is shared where the
    solver runs on the flat engine and ignored where it runs on range vectors (``card_tree``),
    which a tree handed in would otherwise force off."""
    kwargs = dict(self.options, **(options or {}))
    if kwargs.get("leaf_solver") is not None:
      kwargs["leaf_solver"] = specs.from_spec(kwargs["leaf_solver"])
    if self.seeded:
      kwargs["seed"] = seed
    if self.ours and tree is not None and self.card_tree(game, options) is None:
      kwargs["tree"] = tree
    return self.cls(game, **kwargs)


def _cfr_avg(name: str, label: str, depth: Optional[int], beliefs: str = "average",
             variant: str = "standard", weighting: str = "uniform",
             in_report: bool = False) -> SolverSpec:
  """A CFR-AVG entry (``algorithms.CFRAvgSolver``; Brown et al., "Combining deep reinforcement
  learning and search for imperfect-information games" (ReBeL), NeurIPS 2020)."""
  algorithm = ("CFR (full game)" if depth is None else "CFR-D" if beliefs == "current"
               else "modified CFR-AVG" if variant == "modified" else "CFR-AVG")
  return SolverSpec(name, label, algorithms.CFRAvgSolver,
                    {"depth_limit": depth, "leaf_beliefs": beliefs, "variant": variant,
                     "weighting": weighting},
                    algorithm=algorithm, ours=True, in_report=in_report,
                    cost=(1e-4, 3e-8) if depth is None else (1e-2, 4e-5))


SOLVERS: Dict[str, SolverSpec] = {s.name: s for s in [
    # OpenSpiel's solvers.
    SolverSpec("cfr", "CFR (OpenSpiel)", cfr.CFRSolver, algorithm="CFR", in_report=True,
               cost=(0.0, 2e-5)),
    SolverSpec("cfr_plus", "CFR+ (OpenSpiel)", cfr.CFRPlusSolver, algorithm="CFR+",
               in_report=True, cost=(0.0, 2e-5)),
    SolverSpec("cfr_cpp", "CFR (OpenSpiel C++)", CppCFR, algorithm="CFR",
               cost=(5e-5, 1.5e-6)),
    SolverSpec("mccfr_external", "external-sampling MCCFR (OpenSpiel)", SeededMCCFR,
               {"sampler": "external"}, algorithm="MCCFR", seeded=True, sampled=True,
               cost=(1e-3, 1e-8)),
    SolverSpec("mccfr_outcome", "outcome-sampling MCCFR (OpenSpiel)", SeededMCCFR,
               {"sampler": "outcome"}, algorithm="MCCFR", seeded=True, sampled=True,
               cost=(6e-4, 1e-8)),
    SolverSpec("mccfr_external_cpp", "external-sampling MCCFR (OpenSpiel C++)", CppMCCFR,
               {"sampler": "external"}, algorithm="MCCFR", seeded=True, sampled=True,
               cost=(5e-5, 1e-9)),
    SolverSpec("mccfr_outcome_cpp", "outcome-sampling MCCFR (OpenSpiel C++)", CppMCCFR,
               {"sampler": "outcome"}, algorithm="MCCFR", seeded=True, sampled=True,
               cost=(2e-5, 1e-9)),
    # The project's engine (algorithms).
    SolverSpec("our_cfr", "CFR (ours)", algorithms.CFRSolver, algorithm="CFR", ours=True,
               in_report=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedCFRSolver),
    SolverSpec("our_cfr_plus", "CFR+ (ours)", algorithms.CFRPlusSolver, algorithm="CFR+",
               ours=True, in_report=True, cost=(1e-4, 3e-8),
               batch=algorithms.BatchedCFRPlusSolver),
    SolverSpec("our_lcfr", "linear CFR (ours)", algorithms.LCFRSolver, algorithm="LCFR",
               ours=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedLCFRSolver),
    SolverSpec("our_dcfr", "discounted CFR (ours)", algorithms.DCFRSolver, algorithm="DCFR",
               ours=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedDCFRSolver),
    # The rules of Farina, Kroer and Sandholm (AAAI 2021), Meng et al. (AAAI 2026) and Xu et al.
    # (IJCAI 2024), at the papers' defaults; an iteration costs what CFR+'s does (measured on
    # kuhn_poker, leduc_poker, kuhn_poker(players=3) and liars_dice: within 10% of
    # our_cfr_plus).
    SolverSpec("our_pcfr_plus", "PCFR+ (ours)", algorithms.PCFRPlusSolver, algorithm="PCFR+",
               ours=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedPCFRPlusSolver),
    # Meng et al. (AAAI 2026): PCFR+ with the prediction's step 1 / (1 + alpha), alpha = 2; its
    # colour is its rule's (plotting.RULE_COLORS), as APCFR+'s.
    SolverSpec("our_sapcfr_plus", "SAPCFR+ (ours)", algorithms.SAPCFRPlusSolver,
               algorithm="SAPCFR+", ours=True, cost=(1e-4, 3e-8),
               batch=algorithms.BatchedSAPCFRPlusSolver),
    # The same paper's APCFR+: alpha adapted per information set, at most 5.
    SolverSpec("our_apcfr_plus", "APCFR+ (ours)", algorithms.APCFRPlusSolver,
               algorithm="APCFR+", ours=True, cost=(1e-4, 3e-8),
               batch=algorithms.BatchedAPCFRPlusSolver),
    SolverSpec("our_dcfr_plus", "DCFR+ (ours)", algorithms.DCFRPlusSolver, algorithm="DCFR+",
               ours=True, cost=(1e-4, 3e-8), batch=algorithms.BatchedDCFRPlusSolver),
    SolverSpec("our_pdcfr_plus", "PDCFR+ (ours)", algorithms.PDCFRPlusSolver,
               algorithm="PDCFR+", ours=True, cost=(1e-4, 3e-8),
               batch=algorithms.BatchedPDCFRPlusSolver),
    SolverSpec("cs_cfr", "chance-sampling CFR (ours)", algorithms.ChanceSamplingCFRSolver,
               algorithm="CS-CFR", seeded=True, sampled=True, ours=True, in_report=True,
               cost=(1.5e-4, 3e-8)),
    SolverSpec("cs_cfr_simultaneous", "chance-sampling CFR, simultaneous updates (ours)",
               algorithms.ChanceSamplingCFRSolver, {"alternating_updates": False},
               algorithm="CS-CFR", seeded=True, sampled=True, ours=True,
               cost=(1e-4, 2e-8)),
    # MCCFR with OpenSpiel's Python solvers' options and draws (algorithms.cfr.mccfr). An
    # iteration costs 77 to 100 us from kuhn_poker to liars_dice (295k histories), mostly the
    # exchange of the generator's state with the compiled call (measured, thread CPU time).
    SolverSpec("our_mccfr_external", "external-sampling MCCFR (ours)",
               algorithms.ExternalSamplingSolver, algorithm="MCCFR", seeded=True, sampled=True,
               ours=True, cost=(1.5e-4, 1e-10)),
    SolverSpec("our_mccfr_outcome", "outcome-sampling MCCFR (ours)",
               algorithms.OutcomeSamplingSolver, algorithm="MCCFR", seeded=True, sampled=True,
               ours=True, cost=(1.5e-4, 1e-10)),
    # CFR-AVG and its relatives (algorithms.CFRAvgSolver), full game and depth-limited.
    _cfr_avg("cfr_avg", "CFR-AVG, no depth limit (ours)", None),
    _cfr_avg("cfr_avg_linear", "CFR-AVG, no depth limit, linear (ours)", None,
             weighting="linear"),
    _cfr_avg("cfr_avg_d1", "CFR-AVG, depth limit 1 (ours)", 1, in_report=True),
    _cfr_avg("cfr_avg_d1_linear", "CFR-AVG, depth limit 1, linear (ours)", 1, weighting="linear"),
    _cfr_avg("cfr_avg_d2", "CFR-AVG, depth limit 2 (ours)", 2),
    _cfr_avg("cfr_avg_d2_linear", "CFR-AVG, depth limit 2, linear (ours)", 2, weighting="linear"),
    _cfr_avg("cfr_d_d1", "CFR-D, depth limit 1 (ours)", 1, beliefs="current"),
    _cfr_avg("cfr_d_d1_linear", "CFR-D, depth limit 1, linear (ours)", 1, beliefs="current",
             weighting="linear"),
    _cfr_avg("cfr_d_d2", "CFR-D, depth limit 2 (ours)", 2, beliefs="current"),
    _cfr_avg("cfr_d_d2_linear", "CFR-D, depth limit 2, linear (ours)", 2, beliefs="current",
             weighting="linear"),
    _cfr_avg("cfr_avg_mod_d1", "modified CFR-AVG, depth limit 1 (ours)", 1, variant="modified"),
    _cfr_avg("cfr_avg_mod_d1_linear", "modified CFR-AVG, depth limit 1, linear (ours)", 1,
             variant="modified", weighting="linear"),
    _cfr_avg("cfr_avg_mod_d2", "modified CFR-AVG, depth limit 2 (ours)", 2, variant="modified"),
    _cfr_avg("cfr_avg_mod_d2_linear", "modified CFR-AVG, depth limit 2, linear (ours)", 2,
             variant="modified", weighting="linear"),
]}


def available_solvers() -> List[str]:
  """Names of the registered solvers."""
  return list(SOLVERS)


def report_solvers() -> List[str]:
  """Names of the solvers of the default report (``in_report``), in registry order."""
  return [name for name, spec in SOLVERS.items() if spec.in_report]


def get_solver(name: str) -> SolverSpec:
  """The spec of solver ``name``; ValueError naming the available solvers if there is none."""
  spec = SOLVERS.get(name)
  if spec is None:
    raise ValueError(f"unknown solver {name!r}; available solvers: "
                     f"{', '.join(available_solvers())}")
  return spec
