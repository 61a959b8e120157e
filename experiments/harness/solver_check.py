"""The reference check of any solver, for other projects' tests: ``check_solver``.

A test in another repository checks its own CFR solver against the project's references (the
closed forms of three-card Kuhn poker for any ante and bet, the sequence-form LP, the
Szafron-Gibson-Sturtevant family of three-player Kuhn poker) with::

  from experiments.harness.solver_check import check_solver

  def test_my_cfr_reaches_the_reference_equilibria():
    report = check_solver(MyCFR, quick=True)
    assert report.passed, report

``check_solver`` takes a class or factory (``external_solvers``: called with the game; the
interface it offers is detected and named), a ``package.module:Name`` text, or a registry name;
it runs the solver on each game for the reference check's budget and makes the checks of
``references.solver_run_checks``: exploitability (NashConv with more than two players) at most
c (max - min utility) / sqrt(T), the value within the policy's NashConv of the game value, the
bluff and call frequencies in the closed-form family, the three-player family's values.

Sampled solvers run ``SAMPLED_BUDGET_FACTOR`` T iterations and are checked with the model of
their sampling scheme (``references.sampling_model``, the measurements stated there): registry
entries of chance-sampling CFR one seed with 8 times the exploitability tolerance and their
frequencies checked within 24/sqrt(T); MCCFR (registry entries, and solvers from outside the
project with an MCCFR interface, a factory taking ``seed`` or ``sampled=True``:
``external_solvers``) ``references.MCCFR_SEEDS`` seeds, the run of median exploitability
(NashConv) checked with 32 times the tolerance and no frequency checked; the report shows the
spread over seeds. They are not run on Leduc poker unless ``iterations`` is given.
"""

import dataclasses
import math
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd
import pyspiel

from experiments.harness import arguments
from experiments.harness import external_solvers
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import measures
from experiments.harness import provenance
from experiments.harness import references
from experiments.harness import solver_registry
from experiments.harness.checks import Check

NAME = "reference-check"
# One game per regime of both rule sets (algorithms.exact.kuhn_equilibria), a bet other than 1,
# three-player Kuhn poker as OpenSpiel's game and as ours (the family of
# algorithms.exact.kuhn3_equilibria) and Leduc poker (LP reference only).
REFERENCE_GAMES = (
    "kuhn_poker",
    "kuhn_poker_ante(ante=0.25)",
    "kuhn_poker_ante(ante=0.5)",
    "kuhn_poker_ante(ante=0.75)",
    "kuhn_poker_ante(ante=2.0)",
    "kuhn_poker_ante(ante=3.0,bet=2.0)",
    "kuhn_poker_ante(ante=0.25,simplified=True)",
    "kuhn_poker_ante(ante=1.0,simplified=True)",
    "kuhn_poker_ante(ante=1.0,bet=0.5,simplified=True)",
    "kuhn_poker(players=3)",
    "kuhn_poker_ante(players=3)",
    "leduc_poker",
)
# Leduc's solvers take too long for --quick; its LP stays.
QUICK_GAMES = tuple(g for g in REFERENCE_GAMES if g != "leduc_poker")
ITERATIONS = arguments.Budget(default=1000, quick=200)
LEDUC_ITERATIONS = 60  # Leduc: 50x the nodes of Kuhn; exploitability and value checks only.
# On Leduc (120 deals) sampled solvers would need far more iterations than the full-traversal
# ones, so only full-traversal solvers are checked there.
SAMPLED_LEDUC_REASON = ("sampled solvers are checked on leduc_poker only with explicit "
                        "iterations (they need far more than full-traversal ones)")


def budget(game: str, sampled: bool, iterations: Optional[int], quick: bool) -> Optional[int]:
  """T of a solver on ``game``: ``iterations`` if given, else ``ITERATIONS`` (resolved with
  ``quick``; ``LEDUC_ITERATIONS`` on Leduc), ``SAMPLED_BUDGET_FACTOR`` times more for a sampled
  solver; None for a sampled solver on Leduc without ``iterations`` (not run)."""
  if iterations:
    return iterations
  leduc = game.startswith("leduc_poker")
  if leduc and sampled:
    return None
  found = LEDUC_ITERATIONS if leduc else ITERATIONS.resolve(None, quick)
  return found * (solver_registry.SAMPLED_BUDGET_FACTOR if sampled else 1)


def seeds_of(seed: int, model: references.SamplingModel) -> List[int]:
  """The seeds a solver runs with: ``model.seeds`` from ``seed``."""
  return list(range(seed, seed + model.seeds))


class SkipGame(ValueError):
  """A solver cannot be built or run on one game (the report names the game as skipped)."""


@dataclasses.dataclass
class Prepared:
  """A solver ready on one game: its interface, its sampling model
  (``references.sampling_model``), and ``run(T, seed)``, one run of T iterations as a
  ``jobs.JobResult`` (the first call may reuse the built solver)."""

  interface: str
  model: references.SamplingModel
  run: Callable[[int, int], jobs_lib.JobResult]


def _result(job: jobs_lib.Job, solved: solver_registry.Solved, wall: float) -> jobs_lib.JobResult:
  return jobs_lib.JobResult(job, solved, computed_by=provenance.code_stamp(),
                            finished=provenance.now(), wall_seconds=wall)


def prepare_registered(name: str, game: pyspiel.Game, game_string: str, seed: int,
                       options: Optional[Mapping[str, Any]] = None) -> Prepared:
  """A registry solver on one game (``jobs.run_job``); ``SkipGame`` where it refuses the
  game."""
  spec = solver_registry.get_solver(name)
  reason = jobs_lib.refusal(name, game_string)
  if reason is not None:
    raise SkipGame(reason)
  del game, seed  # The registry builds the solver in run_job.

  def run(iterations: int, run_seed: int) -> jobs_lib.JobResult:
    job = jobs_lib.Job(NAME, game_string, name, run_seed, iterations, keep_policy=True,
                       options=jobs_lib.options_json(options) if options else "")
    outcome = jobs_lib.run_job(job)
    if isinstance(outcome, jobs_lib.Failure):
      raise ValueError(f"solver {name} on {game_string}: {outcome.message}")
    return _result(job, *outcome)

  return Prepared(f"registry solver ({spec.label})", references.sampling_model(name), run)


def prepare_external(solver: external_solvers.ExternalSolver, game: pyspiel.Game,
                     game_string: str, seed: int) -> Prepared:
  """A solver from outside the project on one game: built once with ``seed`` to find its
  interface; each run is measured like a registry run (``measures.measure_for``: the project's
  exact measure and OpenSpiel's, and the expected returns).

  Raises:
    SkipGame: its constructor, or an iteration, raised on this game (one line).
    ValueError: it offers none of the interfaces; ``external_solvers.PolicyError``: its
      average policy is not a policy of the game.
  """
  with external_solvers.seeded_globals(seed):
    first, interface = _build(solver, game, game_string, seed)
  model = references.MCCFR_SAMPLING if solver.is_sampled(interface) else (
      references.FULL_TRAVERSAL)
  built = {seed: first}
  measure = measures.measure_for(game)
  where = f"--solver {solver.name} on {game_string}"

  def run(iterations: int, run_seed: int) -> jobs_lib.JobResult:
    start = time.perf_counter()
    with external_solvers.seeded_globals(run_seed):
      instance = (built.pop(run_seed) if run_seed in built
                  else _build(solver, game, game_string, run_seed)[0])
      clock = solver_registry.SOLVER_CLOCK()
      try:
        external_solvers.run(instance, interface, iterations)
        average = instance.average_policy()
      except Exception as e:  # noqa: BLE001  (the user's solver: its message, one line)
        raise SkipGame(f"running it on {game_string} raised "
                       f"{external_solvers.first_line(e)}") from None
      seconds = solver_registry.SOLVER_CLOCK() - clock
    table = external_solvers.to_tabular(game, average, where)
    solved = solver_registry.Solved(
        measure.name, [iterations], [measure.exact(table)], [seconds],
        None if measure.openspiel is None else measure.openspiel(table), measure.returns(table),
        solver_registry.policy_table(table))
    job = jobs_lib.Job(NAME, game_string, solver.name, run_seed, iterations, keep_policy=True)
    return _result(job, solved, time.perf_counter() - start)

  return Prepared(interface.name, model, run)


def _build(solver: external_solvers.ExternalSolver, game: pyspiel.Game, game_string: str,
           seed: int) -> Tuple[Any, external_solvers.Interface]:
  try:
    return solver.build(game, game_string, seed)
  except external_solvers.BuildError as e:
    raise SkipGame(str(e)) from None


@dataclasses.dataclass
class GameCheck:
  """One game of a ``ReferenceReport``.

  Attributes:
    game: the game string.
    skipped: why the solver was not checked on it ("" if it was).
    iterations: T of each run.
    measure: "exploitability" (two players) or "NashConv".
    measured: the final measure of each seed's run, in seed order.
    run: the run that was checked (the median over seeds for a model of several).
    checks: its checks (``references.solver_run_checks``).
  """

  game: str
  skipped: str = ""
  iterations: Optional[int] = None
  measure: str = ""
  measured: Tuple[float, ...] = ()
  run: Optional[jobs_lib.JobResult] = None
  checks: List[Check] = dataclasses.field(default_factory=list)

  @property
  def passed(self) -> bool:
    return not self.skipped and all(c.passed for c in self.checks)


@dataclasses.dataclass
class ReferenceReport:
  """What ``check_solver`` found.

  Attributes:
    solver: the solver's name (``package.module:Name``, or a registry name).
    interface: the interface it was run through (``external_solvers.INTERFACES``).
    model: the sampling model it was checked with (``references.sampling_model``).
    games: one entry per game, in order.
  """

  solver: str
  interface: str
  model: references.SamplingModel
  games: List[GameCheck]

  @property
  def sampled(self) -> bool:
    """Whether it was run as a sampled solver."""
    return self.model.sampled

  @property
  def checks(self) -> List[Check]:
    return [c for g in self.games for c in g.checks]

  @property
  def failures(self) -> List[Check]:
    return [c for c in self.checks if not c.passed]

  @property
  def passed(self) -> bool:
    """Every check passed, and at least one was made."""
    return bool(self.checks) and not self.failures

  @property
  def table(self) -> pd.DataFrame:
    """One row per game: status, T, seeds, the checked run's exploitability (NashConv) and its
    tolerance, its spread over seeds, checks passed / made, and why a game was skipped."""
    rows = []
    for g in self.games:
      bound = next((c for c in g.checks if c.name.endswith(f": {g.measure}")), None)
      rows.append({
          "game": g.game,
          "status": "skipped" if g.skipped else "pass" if g.passed else "FAIL",
          "T": g.iterations, "seeds": len(g.measured) or None, "measure": g.measure or None,
          "checked run": math.nan if g.run is None else g.run.final,
          "tolerance": math.nan if bound is None else bound.tolerance,
          "min over seeds": min(g.measured) if len(g.measured) > 1 else math.nan,
          "max over seeds": max(g.measured) if len(g.measured) > 1 else math.nan,
          "checks": f"{sum(c.passed for c in g.checks)}/{len(g.checks)}" if g.checks else "-",
          "note": g.skipped})
    return pd.DataFrame(rows, columns=["game", "status", "T", "seeds", "measure", "checked run",
                                       "tolerance", "min over seeds", "max over seeds", "checks",
                                       "note"]).astype({"T": "Int64", "seeds": "Int64"})

  def __str__(self) -> str:
    checked = [g for g in self.games if not g.skipped]
    failed = [g for g in checked if not g.passed]
    how = self.model.scheme + (f": the median of {self.model.seeds} seeds is checked"
                               if self.model.seeds > 1 else ": one run")
    lines = [f"Reference check of {self.solver} ({self.interface}; {how}): "
             f"{'PASSED' if self.passed else 'FAILED'}, "
             f"{len(self.checks) - len(self.failures)}/{len(self.checks)} checks passed; "
             f"{len(failed)} of {len(checked)} games failed, "
             f"{len(self.games) - len(checked)} skipped.",
             self.table.drop(columns=["note"]).to_string(index=False, na_rep="-")]
    if self.failures:
      lines.append("Failed checks (value, reference, |value - reference| > tolerance):")
      lines += [f"  {c.name}: {c.value:.6g}, reference {c.reference:.6g}, "
                f"|gap| {abs(c.value - c.reference):.6g} > tolerance {c.tolerance:.6g} "
                f"[{c.source}]" for c in self.failures]
    lines += [f"Skipped {g.game}: {g.skipped}" for g in self.games if g.skipped]
    if not self.checks:
      lines.append("No check was made: the report does not pass.")
    return "\n".join(lines)


Solver = Union[str, Callable[..., Any], external_solvers.ExternalSolver]


def _preparer(solver: Solver, options: Optional[Mapping[str, Any]], sampled: Optional[bool]
              ) -> Tuple[str, Callable[[pyspiel.Game, str, int], Prepared]]:
  """The solver's name and the function that prepares it on a game."""
  if isinstance(solver, str) and not external_solvers.is_external(solver):
    solver_registry.get_solver(solver)  # ValueError naming the registry's solvers.
    return solver, lambda game, text, seed: prepare_registered(solver, game, text, seed, options)
  if isinstance(solver, external_solvers.ExternalSolver):
    external = solver
  elif isinstance(solver, str):
    external = external_solvers.ExternalSolver.from_spec(solver, options)
  else:
    external = external_solvers.ExternalSolver.from_factory(solver, options)
  if sampled is not None:
    external.sampled = sampled
  return external.name, lambda game, text, seed: prepare_external(external, game, text, seed)


def check_solver(solver: Solver, games: Optional[Sequence[str]] = None,
                 iterations: Optional[int] = None, quick: bool = True,
                 options: Optional[Mapping[str, Any]] = None, seed: int = 0,
                 sampled: Optional[bool] = None, imports: Sequence[str] = (),
                 reference_of: Optional[Dict[str, Dict[str, Any]]] = None
                 ) -> ReferenceReport:
  """Checks a solver against the reference equilibria (see the module docstring).

  Args:
    solver: a class or factory called with the game (and ``options``), a
      ``package.module:Name`` text naming one, a registry name (``solver_registry``), or an
      ``external_solvers.ExternalSolver`` (its own options).
    games: game strings (default ``QUICK_GAMES`` with ``quick``, else ``REFERENCE_GAMES``).
    iterations: T per run (default: ``budget``).
    quick: the quick budget (T = 200, Leduc left out of the default games).
    options: constructor keyword options.
    seed: the first seed (MCCFR solvers run ``references.MCCFR_SEEDS`` from it).
    sampled: override the detection of a sampled solver (``external_solvers``); a sampled
      solver from outside the registry is checked with ``references.MCCFR_SAMPLING``.
    imports: modules imported first, e.g. one that registers the games named in ``games``.
    reference_of: a cache of the games' references (``references.compute_reference``) by game
      string: those in it are used, those computed are added.

  Returns:
    The report: ``passed``, ``table`` (one row per game), ``failures``; ``str()`` names each
    failed check with its value, reference and tolerance.

  Raises:
    ValueError: one line: a module that does not import, a name that is not there, a solver with
      none of the interfaces, a constructor that raises on every game, a policy that is not a
      policy of the game (``external_solvers.PolicyError``), a bad game string or T.
  """
  for module in imports:
    external_solvers.import_module(module)
  if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                 or iterations <= 0):
    raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
  selected = list(games or (QUICK_GAMES if quick else REFERENCE_GAMES))
  loaded = {g: game_loader.load_game(g, two_player_zero_sum=False) for g in selected}
  name, prepare = _preparer(solver, options, sampled)
  found, interface, model, skips = [], "", references.FULL_TRAVERSAL, []
  for game_string, game in loaded.items():
    try:
      prepared = prepare(game, game_string, seed)
      interface, model = prepared.interface, prepared.model
      found.append(_check_game(prepared, game_string, seed, iterations, quick,
                               {} if reference_of is None else reference_of))
    except SkipGame as e:
      skips.append(str(e))
      found.append(GameCheck(game_string, skipped=str(e)))
  if skips and len(skips) == len(found):
    raise ValueError(f"{name} ran on none of the games: {found[0].game}: {skips[0]}")
  return ReferenceReport(name, interface, model, found)


def _check_game(prepared: Prepared, game_string: str, seed: int, iterations: Optional[int],
                quick: bool, reference_of: Dict[str, Dict[str, Any]]) -> GameCheck:
  """The runs of one game (one per seed) and the checks of the (median) run."""
  budgeted = budget(game_string, prepared.model.sampled, iterations, quick)
  if budgeted is None:
    return GameCheck(game_string, skipped=SAMPLED_LEDUC_REASON)
  runs = [prepared.run(budgeted, s) for s in seeds_of(seed, prepared.model)]
  checked = references.median_run(runs)
  if game_string not in reference_of:
    reference_of[game_string] = references.compute_reference(game_string)
  reference = reference_of[game_string]
  return GameCheck(game_string, iterations=budgeted, measure=checked.solved.measure,
                   measured=tuple(r.final for r in runs), run=checked,
                   checks=references.solver_run_checks(checked, reference, prepared.model))
