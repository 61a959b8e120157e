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

Each solver is held to the tolerance model of its kind (``solver_kinds``: full width with
alternating or simultaneous updates, chance-sampled, external- or outcome-sampled, unknown),
declared with ``kind=`` or detected (``solver_kinds.detect``; a registry entry's is known). Sampled
solvers run ``SAMPLED_BUDGET_FACTOR`` T iterations: chance sampling one seed with its own factors;
MCCFR (and an unknown kind: the loosest model) ``solver_kinds.MCCFR_SEEDS`` seeds, the run of
median exploitability (NashConv) checked and no frequency checked, or every run with
``seeds_must_all_pass``; the report shows the spread over seeds. They are not run on Leduc poker
unless ``iterations`` is given.

A run that raises, or returns an average policy that is not a policy of the game, fails its game
(the report's line names the error); only a constructor that raises skips a game (its message is
the stated reason). With ``max_minutes`` runs stop between iterations once the time has passed:
what finished is checked, the rest is reported as cut, and the report does not pass.
"""

import dataclasses
import math
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd
import pyspiel

from experiments.harness import arguments
from experiments.harness import deadline as deadline_lib
from experiments.harness import external_solvers
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import measures
from experiments.harness import provenance
from experiments.harness import references
from experiments.harness import solver_kinds
from experiments.harness import solver_registry
from experiments.harness import solver_runs
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
# The quick games of a solver from outside the project (a CI gate of another project): Leduc poker
# too, at LEDUC_ITERATIONS, the one cheap game found on which an average policy not weighted by
# the player's reach fails (tests/external_solvers/reach_bugs.py, UnweightedAverageCFR: 1.15 times
# the exploitability tolerance at T = 60, where the correct SimpleCFR reaches 0.74; on every Kuhn
# game, 3 to 6 cards, at T = 10 to 3000 it stays within 1.3 times the correct run's
# exploitability and inside the tolerance). About 10 s for a Python CFR of OpenSpiel's speed.
OUTSIDE_QUICK_GAMES = REFERENCE_GAMES
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


def seeds_of(seed: int, model: solver_kinds.ToleranceModel) -> List[int]:
  """The seeds a solver runs with: ``model.seeds`` from ``seed``."""
  return list(range(seed, seed + model.seeds))


class SkipGame(ValueError):
  """A solver refuses one game: its constructor raised, with its message as the stated reason
  (the report names the game as skipped)."""


class RunError(ValueError):
  """A solver raised while running on one game, or returned an average policy that is not a
  policy of the game (``policy``): that game fails, its line naming the error (never a skip)."""

  def __init__(self, message: str, policy: bool = False):
    super().__init__(message)
    self.policy = policy


class Cut(Exception):
  """The deadline passed during a run (``deadline.Deadline``): the run stopped between
  iterations; the game is reported as cut."""


@dataclasses.dataclass
class Prepared:
  """A solver ready on one game: its interface, its tolerance model (``solver_kinds``), and
  ``run(T, seed)``, one run of T iterations as a ``jobs.JobResult`` (the first call may reuse the
  built solver; ``Cut`` where the deadline passed during it)."""

  interface: str
  model: solver_kinds.ToleranceModel
  run: Callable[[int, int], jobs_lib.JobResult]


def _result(job: jobs_lib.Job, solved: solver_runs.Solved, wall: float) -> jobs_lib.JobResult:
  return jobs_lib.JobResult(job, solved, computed_by=provenance.code_stamp(),
                            finished=provenance.now(), wall_seconds=wall)


def prepare_registered(name: str, game: pyspiel.Game, game_string: str, seed: int,
                       options: Optional[Mapping[str, Any]] = None,
                       model: Optional[solver_kinds.ToleranceModel] = None) -> Prepared:
  """A registry solver on one game (``jobs.run_job``); ``SkipGame`` where it refuses the
  game. ``model``: a declared kind's, else the registry entry's (``references.sampling_model``).
  A registry run is one call of the project's engine: the deadline is checked between runs."""
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
      raise RunError(f"solver {name} on {game_string}: {outcome.message}")
    return _result(job, *outcome)

  return Prepared(f"registry solver ({spec.label})", references.sampling_model(name, model), run)


def prepare_external(solver: external_solvers.ExternalSolver, game: pyspiel.Game,
                     game_string: str, seed: int,
                     model: Optional[solver_kinds.ToleranceModel] = None,
                     until: Optional[deadline_lib.Deadline] = None) -> Prepared:
  """A solver from outside the project on one game: built once with ``seed`` to find its
  interface and, unless ``model`` (a declared kind's) is given, its kind
  (``solver_kinds.detect``); each run stops between iterations once ``until`` has passed
  (``Cut``) and is measured like a registry run (``measures.measure_for``: the project's
  computation of the measure and OpenSpiel's, and the expected returns).

  Raises:
    SkipGame: its constructor raised on this game (one line: the refusal's stated reason).
    ValueError: it offers none of the interfaces.
  The returned ``run`` raises ``RunError`` (one line) where an iteration or ``average_policy``
  raised, or the average policy is not a policy of the game (``external_solvers.PolicyError``).
  """
  with external_solvers.seeded_globals(seed):
    first, interface = _build(solver, game, game_string, seed)
  model = model or solver_kinds.detect(first, solver.is_sampled(interface))
  until = until or deadline_lib.Deadline()
  built = {seed: first}
  measure = measures.measure_for(game)
  where = f"--solver {solver.name} on {game_string}"

  def run(iterations: int, run_seed: int) -> jobs_lib.JobResult:
    start = time.perf_counter()
    with external_solvers.seeded_globals(run_seed):
      instance = (built.pop(run_seed) if run_seed in built
                  else _build(solver, game, game_string, run_seed)[0])
      clock = solver_runs.SOLVER_CLOCK()
      try:
        done = external_solvers.run(instance, interface, iterations, until.passed)
        average = instance.average_policy() if done == iterations else None
      except Exception as e:  # noqa: BLE001  (the user's solver: its message, one line)
        raise RunError(f"running it on {game_string} raised "
                       f"{external_solvers.first_line(e)}") from None
      if average is None:
        raise Cut(f"the time limit passed after {done} of {iterations} iterations (seed "
                  f"{run_seed})")
      seconds = solver_runs.SOLVER_CLOCK() - clock
    try:
      table = external_solvers.to_tabular(game, average, where)
    except external_solvers.PolicyError as e:
      raise RunError(str(e), policy=True) from None
    solved = solver_runs.Solved(
        measure.name, [iterations], [measure.ours(table)], [seconds],
        None if measure.openspiel is None else measure.openspiel(table), measure.returns(table),
        solver_runs.policy_table(table))
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
    skipped: why the solver was not checked on it ("" if it was): its constructor refused the
      game, or the check leaves it out (a sampled solver on Leduc poker at the default budget).
    error: the error its run raised ("" if none): the game fails (``failed_game``).
    policy_error: whether ``error`` is an average policy that is not a policy of the game.
    cut: why its runs did not finish within the time limit ("" if they did): not passed.
    iterations: T of each run.
    measure: "exploitability" (two players) or "NashConv".
    measured: the final measure of each seed's run, in seed order.
    run: the run that was checked (the median over seeds for a model of several).
    checks: its checks (``references.solver_run_checks``, or the one failed ``error_check``).
  """

  game: str
  skipped: str = ""
  error: str = ""
  policy_error: bool = False
  cut: str = ""
  iterations: Optional[int] = None
  measure: str = ""
  measured: Tuple[float, ...] = ()
  run: Optional[jobs_lib.JobResult] = None
  checks: List[Check] = dataclasses.field(default_factory=list)

  @property
  def passed(self) -> bool:
    return (not self.skipped and not self.error and not self.cut
            and all(c.passed for c in self.checks))

  @property
  def status(self) -> str:
    return ("skipped" if self.skipped else "cut" if self.cut else "pass" if self.passed
            else "FAIL")


ERROR_SOURCE = "a run that raises fails its game"
CUT_SOURCE = "a run cut by the time limit (--max-minutes) is not a pass"


def unfinished_check(label: str, what: str, source: str) -> Check:
  """The failed check of a run that did not finish (it raised, or the time limit cut it): named
  by ``what``, 1 run unfinished where 0 may be."""
  return Check(f"{label}: {what}", 1.0, 0.0, 0.0, source)


def failed_game(game_string: str, solver: str, iterations: Optional[int], error: str = "",
                cut: str = "") -> GameCheck:
  """The ``GameCheck`` of a game whose run raised ``error``, or that the time limit ``cut``."""
  label = f"{game_string} {solver}" + (f" T={iterations}" if iterations else "")
  check = (unfinished_check(label, f"the run raised: {error}", ERROR_SOURCE) if error else
           unfinished_check(label, f"cut: {cut}", CUT_SOURCE))
  return GameCheck(game_string, error=error, cut=cut, iterations=iterations, checks=[check])


@dataclasses.dataclass(repr=False)
class ReferenceReport:
  """What ``check_solver`` found.

  Attributes:
    solver: the solver's name (``package.module:Name``, or a registry name).
    interface: the interface it was run through (``external_solvers.INTERFACES``).
    model: the tolerance model it was checked with (``solver_kinds``).
    games: one entry per game, in order.
    kind: the kind it was declared as (``solver_kinds.KINDS``), or None where the model was
      detected (``solver_kinds.detect``) or is the registry entry's.
  """

  solver: str
  interface: str
  model: solver_kinds.ToleranceModel
  games: List[GameCheck]
  kind: Optional[str] = None

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
    """Every check passed and at least one was made (a run that raised or was cut by the time
    limit is a failed check)."""
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
          "status": g.status,
          "T": g.iterations, "seeds": len(g.measured) or None, "measure": g.measure or None,
          "checked run": math.nan if g.run is None else g.run.final,
          "tolerance": math.nan if bound is None else bound.tolerance,
          "min over seeds": min(g.measured) if len(g.measured) > 1 else math.nan,
          "max over seeds": max(g.measured) if len(g.measured) > 1 else math.nan,
          "checks": f"{sum(c.passed for c in g.checks)}/{len(g.checks)}" if g.checks else "-",
          "note": g.skipped or g.error or g.cut})
    return pd.DataFrame(rows, columns=["game", "status", "T", "seeds", "measure", "checked run",
                                       "tolerance", "min over seeds", "max over seeds", "checks",
                                       "note"]).astype({"T": "Int64", "seeds": "Int64"})

  def __str__(self) -> str:
    checked = [g for g in self.games if not (g.skipped or g.cut)]
    failed = [g for g in checked if not g.passed]
    cut = [g for g in self.games if g.cut]
    kind = (f"declared {self.kind}" if self.kind else "the registry entry's kind"
            if self.interface.startswith("registry solver") else "kind not declared: detected")
    how = (f"{self.model.scheme} ({kind})"
           + (f": every run of {self.model.seeds} seeds is checked" if self.model.every_run
              else f": the median of {self.model.seeds} seeds is checked"
              if self.model.seeds > 1 else ": one run"))
    lines = [f"Reference check of {self.solver} ({self.interface}; {how}): "
             f"{'PASSED' if self.passed else 'FAILED'}, "
             f"{len(self.checks) - len(self.failures)}/{len(self.checks)} checks passed; "
             f"{len(failed)} of {len(checked)} games failed, "
             f"{sum(bool(g.skipped) for g in self.games)} skipped"
             + (f", {len(cut)} cut by the time limit." if cut else "."),
             self.table.drop(columns=["note"]).to_string(index=False, na_rep="-")]
    if self.failures:
      lines.append("Failed checks (value, reference, |value - reference| > tolerance):")
      lines += [f"  {c.name}" if c.source in (ERROR_SOURCE, CUT_SOURCE) else
                f"  {c.name}: {c.value:.6g}, reference {c.reference:.6g}, "
                f"|gap| {abs(c.value - c.reference):.6g} > tolerance {c.tolerance:.6g} "
                f"[{c.source}]" for c in self.failures]
    lines += [f"Skipped {g.game}: {g.skipped}" for g in self.games if g.skipped]
    lines += [f"Cut {g.game}: {g.cut}" for g in cut]
    if not self.checks:
      lines.append("No check was made: the report does not pass.")
    return "\n".join(lines)

  def __repr__(self) -> str:
    """``str``: the report itself, as an assertion message (pytest shows the first 240
    characters of a message that is not a string; ``assert report.passed, str(report)`` shows
    all of it)."""
    return str(self)


Solver = Union[str, Callable[..., Any], external_solvers.ExternalSolver]


def _preparer(solver: Solver, options: Optional[Mapping[str, Any]], sampled: Optional[bool],
              model: Optional[solver_kinds.ToleranceModel], until: deadline_lib.Deadline
              ) -> Tuple[str, Callable[[pyspiel.Game, str, int], Prepared]]:
  """The solver's name and the function that prepares it on a game.

  Raises:
    ValueError: one line, for an object that is neither a text nor callable.
  """
  if isinstance(solver, str) and not external_solvers.is_external(solver):
    solver_registry.get_solver(solver)  # ValueError naming the registry's solvers.
    return solver, lambda game, text, seed: prepare_registered(solver, game, text, seed, options,
                                                               model)
  if isinstance(solver, external_solvers.ExternalSolver):
    external = solver
  elif isinstance(solver, str):
    external = external_solvers.ExternalSolver.from_spec(solver, options)
  elif callable(solver):
    external = external_solvers.ExternalSolver.from_factory(solver, options)
  else:
    raise ValueError(f"solver {solver!r} ({type(solver).__name__}) is not callable: expected a "
                     "class or factory called with the game, a 'package.module:Name' text or a "
                     "registry name")
  if sampled is not None:
    external.sampled = sampled
  return external.name, lambda game, text, seed: prepare_external(external, game, text, seed,
                                                                  model, until)


def game_list(games: Optional[Sequence[str]], quick: bool, outside: bool = True) -> List[str]:
  """The games to check: ``games``, or by default ``REFERENCE_GAMES``, or with ``quick``
  ``OUTSIDE_QUICK_GAMES`` for solvers from ``outside`` the project, else ``QUICK_GAMES``.

  Raises:
    ValueError: one line, for a single string (a list is expected: the fix is shown) or an empty
      list.
  """
  if games is None:
    return list(REFERENCE_GAMES if not quick else OUTSIDE_QUICK_GAMES if outside
                else QUICK_GAMES)
  if isinstance(games, str):
    raise ValueError(f"games must be a list of game strings, got the string {games!r}; write "
                     f"games=[{games!r}]")
  selected = list(games)
  if not selected:
    raise ValueError("games is empty: give at least one game string, or leave games out for "
                     "the default games")
  return selected


def check_solver(solver: Solver, games: Optional[Sequence[str]] = None,
                 iterations: Optional[int] = None, quick: bool = True,
                 options: Optional[Mapping[str, Any]] = None, seed: int = 0,
                 sampled: Optional[bool] = None, imports: Sequence[str] = (),
                 reference_of: Optional[Dict[str, Dict[str, Any]]] = None,
                 kind: Optional[str] = None, seeds_must_all_pass: bool = False,
                 max_minutes: Optional[float] = None) -> ReferenceReport:
  """Checks a solver against the reference equilibria (see the module docstring).

  Args:
    solver: a class or factory called with the game (and ``options``), a
      ``package.module:Name`` text naming one, a registry name (``solver_registry``), or an
      ``external_solvers.ExternalSolver`` (its own options).
    games: a list of game strings (default ``QUICK_GAMES`` with ``quick``, else
      ``REFERENCE_GAMES``).
    iterations: T per run (default: ``budget``).
    quick: the quick budget (T = 200, Leduc left out of the default games).
    options: constructor keyword options.
    seed: the first seed (MCCFR solvers run ``solver_kinds.MCCFR_SEEDS`` from it).
    sampled: override the detection of a sampled solver (``external_solvers``); a sampled
      solver whose kind is not declared is checked with ``solver_kinds.MCCFR_SAMPLING``.
    imports: modules imported first, e.g. one that registers the games named in ``games``.
    reference_of: a cache of the games' references (``references.compute_reference``) by game
      string: those in it are used, those computed are added.
    kind: the solver's kind, one of ``solver_kinds.KINDS`` (default: detected,
      ``solver_kinds.detect``), which sets the tolerance model.
    seeds_must_all_pass: a sampled solver runs at least ``solver_kinds.MCCFR_SEEDS`` seeds and
      every run is checked (``ToleranceModel.all_seeds``), not the median one (a full-width
      solver's one run is checked as always).
    max_minutes: the wall-clock limit (``deadline.Deadline``): runs stop between iterations
      once it has passed; what finished is checked, the rest reported as cut (not passed).

  Returns:
    The report: ``passed``, ``table`` (one row per game), ``failures``; ``str()`` names each
    failed check with its value, reference and tolerance, and each run that raised.

  Raises:
    ValueError: one line: a module that does not import, a name that is not there, a solver with
      none of the interfaces, a constructor that raises on every game or an average policy that
      is not a policy of the game on every game, a bad game list, kind or T. A run that raises,
      or a policy error on some games, fails those games (``GameCheck.error``); the others are
      checked and reported.
  """
  for module in imports:
    external_solvers.import_module(module)
  if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                 or iterations <= 0):
    raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
  selected = game_list(games, quick, outside=not (isinstance(solver, str)
                                                 and not external_solvers.is_external(solver)))
  declared = None if kind is None else solver_kinds.model_of(kind)
  until = deadline_lib.Deadline.after_minutes(max_minutes)
  loaded = {g: game_loader.load_game(g, two_player_zero_sum=False) for g in selected}
  for game_string, game in loaded.items():
    references.check_has_reference(game_string, game)
  name, prepare = _preparer(solver, options, sampled, declared, until)
  found, interface, model = [], "", declared or solver_kinds.FULL_WIDTH_ALTERNATING
  for game_string, game in loaded.items():
    if until.passed():
      found.append(failed_game(game_string, name, None,
                               cut="not started: the time limit had passed"))
      continue
    try:
      prepared = prepare(game, game_string, seed)
      if seeds_must_all_pass and prepared.model.sampled:
        prepared.model = prepared.model.all_seeds(solver_kinds.MCCFR_SEEDS)
      interface, model = prepared.interface, prepared.model
      found.append(_check_game(prepared, name, game_string, seed, iterations, quick,
                               {} if reference_of is None else reference_of))
    except SkipGame as e:
      found.append(GameCheck(game_string, skipped=str(e)))
  # Refused, or not returning a policy, on every game: a problem of the solver's interface or
  # options (one line), not a report. Runs that raised fail their games in the report.
  problems = [g for g in found if g.skipped or g.policy_error]
  if problems and len(problems) == len(found):
    first = problems[0]
    raise ValueError(f"{name} ran on none of the games: {first.game}: "
                     f"{first.skipped or first.error}")
  return ReferenceReport(name, interface, model, found, kind)


def _check_game(prepared: Prepared, solver: str, game_string: str, seed: int,
                iterations: Optional[int], quick: bool,
                reference_of: Dict[str, Dict[str, Any]]) -> GameCheck:
  """The runs of one game (one per seed) and the checks of the median run (of every run where
  the model says ``every_run``); a run that raises fails the game (``failed_game``), one the
  deadline cut leaves it cut."""
  model = prepared.model
  budgeted = budget(game_string, model.sampled, iterations, quick)
  if budgeted is None:
    return GameCheck(game_string, skipped=SAMPLED_LEDUC_REASON)
  try:
    runs = [prepared.run(budgeted, s) for s in seeds_of(seed, model)]
  except RunError as e:
    failed = failed_game(game_string, solver, budgeted, error=str(e))
    failed.policy_error = e.policy
    return failed
  except Cut as e:
    return failed_game(game_string, solver, budgeted, cut=str(e))
  checked = references.median_run(runs)
  if game_string not in reference_of:
    reference_of[game_string] = references.compute_reference(game_string)
  reference = reference_of[game_string]
  if not model.every_run:
    found = references.solver_run_checks(checked, reference, model)
  else:
    found = [dataclasses.replace(c, name=f"seed {r.job.seed}: {c.name}") for r in runs
             for c in references.solver_run_checks(r, reference, model)]
    checked = max(runs, key=lambda r: r.final)
  return GameCheck(game_string, iterations=budgeted, measure=checked.solved.measure,
                   measured=tuple(r.final for r in runs), run=checked, checks=found)
