"""Command line: ``python -m experiments <command> [options]`` (script ``kuhn-experiments``).

The commands are the modules (or packages) of ``experiments.commands``, found there by
``command_modules``: adding a command is adding a module. An experiment follows one protocol:
``NAME``, ``HELP``, ``REPORT_ORDER`` (its place in the report), ``add_arguments(parser)`` and
``run(args, ctx) -> ReportSection`` with ``ctx`` an ``experiments.harness.context.Context`` (its
folder, budget, seed, executor and sweep runner); each becomes a subcommand. An interactive
command (``play``) has ``NAME``, ``HELP`` and ``main(argv, prog) -> int`` instead, and writes no
report section. The command ``run`` runs all of them (or those named with ``--only``) with
their default options. Every command takes the common options of
``arguments.add_common_arguments``.

An experiment writes into ``DIR/<NAME>/``; the CLI saves its section there with the code that
computed it and the budget it ran at, writes the manifests (``DIR/manifest.json`` and
``DIR/<NAME>/manifest.json``) and re-renders ``DIR/report.md`` from every section in ``DIR``. A
rerun replaces the experiment's folder as a whole: once its new section is saved, the files of
the earlier run that it did not write again (figures, tables, logs) are removed; the saved work
in ``context.KEPT_FOLDERS`` (``jobs/``...) is kept for reuse. A section in ``DIR`` that cannot be
read is shown as unreadable in the report and named in one line on stderr (exit 1).

Without a terminal (a log file, a pipe, ``make``) and without ``--quiet``, each experiment prints
a line when it starts and when it ends, its sweeps a line with their estimated time, and a line at
least once a minute while it runs (``context.plain_progress``, ``Context.heartbeat``), so that a
log shows where a long run is.

Nothing a person does ends in a traceback: bad options (``arguments.ArgumentParser``: one line,
no usage block) and ``--out`` problems (an empty ``--out``, which would be the current folder; a
symbolic link or an entry of the wrong kind where the run writes, ``prepare_out``) print one
``error:`` line (exit 2, nothing written); an experiment that crashes or a job that raises is
recorded in the report with its error (the traceback goes to ``DIR/<NAME>/error.log``) and the
rest goes on (exit 1); Ctrl-C, SIGTERM, SIGHUP and the ``--max-minutes`` deadline
(``stopping``) print one line saying what was kept and what was not run, render the report from
what finished and exit with 130, 143, 129 or 1; a closed standard output stops the printing, not
the run; ``--workers`` above the CPU count is capped unless ``--oversubscribe``;
a lost Dask cluster prints one line (exit 1); a second run into a folder in use prints one line
naming the run that holds it (``folder_lock``; exit 2). Exit 0 when every check passed, every
experiment made at least one check (or ``--allow-no-checks`` was given) and every section in
``DIR`` could be read. An experiment that lists ``OPTIONAL_DEPENDENCIES``
(``section.OptionalDependency``) says on stderr which are missing, what that leaves out and how to
install them, and the summary says it again.
"""

import argparse
import contextlib
import dataclasses
import importlib
import multiprocessing
import os
import pathlib
import pkgutil
import shlex
import shutil
import signal
import sys
import tempfile
import time
import traceback
from types import ModuleType
from typing import Any, Dict, List, Optional, Sequence, Tuple

import matplotlib
import tqdm

from experiments import commands
from experiments.harness import arguments
from experiments.harness import context
from experiments.harness import executors
from experiments.harness import folder_lock
from experiments.harness import provenance
from experiments.harness import report
from experiments.harness import stopping
from experiments.harness.deadline import Deadline
from experiments.harness.section import ReportSection
from spiel_games import atomic_file

RUN = "run"
PROG = "kuhn-experiments"
ERROR_LOG = "error.log"
MAX_FAILED_CHECKS_SHOWN = 40
# After a stop signal to the main process, the side process gets this many seconds to stop by
# itself (a terminal's Ctrl-C reaches both) before the signal is passed on (``_join_side``).
_SIDE_GRACE = 2.0


def command_modules() -> List[ModuleType]:
  """Every module and package directly under ``experiments.commands``, imported, by name."""
  return [importlib.import_module(f"{commands.__name__}.{info.name}")
          for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name)]


def experiment_modules() -> List[ModuleType]:
  """The experiments among the commands (those with ``run``), in report order."""
  return sorted((m for m in command_modules() if hasattr(m, "run")),
                key=lambda m: m.REPORT_ORDER)


def interactive_modules() -> List[ModuleType]:
  """The interactive commands (those with ``main`` and no ``run``), by name."""
  return [m for m in command_modules() if hasattr(m, "main") and not hasattr(m, "run")]


def _experiment_parser(module: ModuleType, parser: argparse.ArgumentParser
                       ) -> argparse.ArgumentParser:
  arguments.add_common_arguments(parser)
  module.add_arguments(parser)
  return parser


def build_parser(modules: Sequence[ModuleType], prog: str = PROG) -> argparse.ArgumentParser:
  """The parser with one subcommand per experiment and the command ``run`` (its errors one line,
  ``arguments.ArgumentParser``)."""
  parser = arguments.ArgumentParser(
      prog=prog,
      description="Kuhn poker CFR experiments. Results, figures and report.md go to --out.")
  subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
  run_parser = subparsers.add_parser(
      RUN, help="run every experiment at its default budget and write the report",
      description="Run every experiment with its default options and write DIR/report.md.")
  arguments.add_common_arguments(run_parser)
  run_parser.add_argument("--only", action="append", metavar="NAME",
                          choices=[m.NAME for m in modules],
                          help="run only this experiment (repeatable; default: all of "
                          + ", ".join(m.NAME for m in modules) + ")")
  for module in interactive_modules():
    subparsers.add_parser(module.NAME, add_help=False,
                        help=f"{module.HELP} ({prog} {module.NAME} --help)")
  for module in modules:
    # argparse %-formats a subcommand's help (so % is escaped) but not its description.
    _experiment_parser(module, subparsers.add_parser(
        module.NAME, help=module.HELP.replace("%", "%%"), description=module.HELP))
  return parser


def _common_argv(args: argparse.Namespace) -> List[str]:
  """The common options of ``args`` as command-line arguments."""
  argv = ["--seed", str(args.seed), "--workers", str(args.workers), "--out", str(args.out),
          "--max-minutes", repr(args.max_minutes), "--dask-timeout", repr(args.dask_timeout)]
  argv += ["--quick"] if args.quick else []
  argv += ["--quiet"] if args.quiet else []
  argv += ["--fresh"] if args.fresh else []
  argv += ["--oversubscribe"] if args.oversubscribe else []
  argv += ["--allow-no-checks"] if args.allow_no_checks else []
  argv += ["--dask", args.dask] if args.dask else []
  return argv


def prepare_out(root: pathlib.Path, names: Sequence[str]) -> bool:
  """Creates the results folder if needed and checks that it can be written.

  Returns:
    True if this call created it.

  Raises:
    ValueError: one line naming the problem (a file in the way, no permission, ...).
  """
  if root.exists() and not root.is_dir():
    raise ValueError(f"--out {root}: exists and is not a folder")
  for name in names:
    _check_entry(root / name, "folder", f"the experiment {name} needs a folder of that name")
    _check_entry(root / name / context.JOBS_FOLDER, "folder", "its saved results go there")
    _check_entry(root / name / report.SECTION_NAME, "file", "its section is saved there")
  for name in (report.REPORT_NAME, provenance.MANIFEST_NAME, folder_lock.LOCK_NAME):
    _check_entry(root / name, "file", "the run writes it")
  created = not root.exists()
  try:
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=root):
      pass
  except OSError as e:
    raise ValueError(f"--out {root}: cannot write there ({e.strerror or e})") from None
  return created


def _check_entry(path: pathlib.Path, kind: str, why: str) -> None:
  """Refuses ``path`` if it is a symbolic link (the run never writes, reads or deletes through
  one: it could point outside the results folder) or exists as the wrong ``kind`` ("file" or
  "folder"), in one line saying ``why`` it must be a ``kind``."""
  if path.is_symlink():
    raise ValueError(f"--out: {path} is a symbolic link; {why}, and the run does not follow "
                     "links in the results folder: remove it or choose another --out")
  if path.exists() and path.is_dir() != (kind == "folder"):
    raise ValueError(f"--out: {path} is a {'folder' if path.is_dir() else 'file'}, not a {kind}; "
                     f"{why}: remove it or choose another --out")


def _remove_temporaries(root: pathlib.Path) -> None:
  """Removes the temporary files of atomic writes (``.NAME.XXXX.tmp``) that a killed run left in
  ``root``, its experiments' folders and their ``jobs/`` (called with the folder's lock held, so
  that no live run is writing them; links are removed, never followed)."""
  folders = [root]
  for sub in (p for p in root.iterdir() if p.is_dir() and not p.is_symlink()):
    folders += [sub] + [sub / name for name in context.KEPT_FOLDERS
                        if (sub / name).is_dir() and not (sub / name).is_symlink()]
  for folder in folders:
    for stale in folder.glob(".*.tmp"):
      with contextlib.suppress(OSError):
        if not stale.is_dir() or stale.is_symlink():
          stale.unlink()


def budget(module: ModuleType, args: argparse.Namespace) -> Dict[str, Any]:
  """The budget an experiment runs at (``report.SectionRecord.budget``): ``--quick`` or not, and
  its own options given with a value other than their default, and the seed if not 0, as
  command-line text."""
  parser = argparse.ArgumentParser(add_help=False)
  module.add_arguments(parser)
  options = []
  for action in parser._actions:  # (argparse has no public list of its options)
    value = getattr(args, action.dest, action.default)
    if not action.option_strings or value == action.default:
      continue
    option = action.option_strings[-1]
    if action.nargs == 0:  # A flag.
      options.append(option)
    else:
      options += [f"{option} {shlex.quote(str(v))}"
                  for v in (value if isinstance(value, list) else [value])]
  if args.seed:
    options.append(f"--seed {args.seed}")
  return {"quick": bool(args.quick), "options": options}


def _snapshot(sub: pathlib.Path) -> Dict[pathlib.Path, Tuple[int, int, int]]:
  """The files in ``sub`` outside ``context.KEPT_FOLDERS``, each with what tells whether it was
  written again (inode, modification time, size)."""
  found = {}
  for path in sub.rglob("*"):
    relative = path.relative_to(sub)
    if relative.parts[0] in context.KEPT_FOLDERS or not (path.is_file() or path.is_symlink()):
      continue
    stat = path.lstat()
    found[path] = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
  return found


def _remove_stale(sub: pathlib.Path, before: Dict[pathlib.Path, Tuple[int, int, int]]) -> None:
  """Removes the files of ``before`` that were not written again, and the folders (outside
  ``context.KEPT_FOLDERS``) left empty: what remains is what the last run wrote."""
  for path, identity in before.items():
    with contextlib.suppress(OSError):
      stat = path.lstat()
      if (stat.st_ino, stat.st_mtime_ns, stat.st_size) == identity:
        path.unlink()
  folders = {p.parent for p in before if p.parent != sub}
  for folder in sorted(folders, key=lambda f: len(f.parts), reverse=True):
    with contextlib.suppress(OSError):
      folder.rmdir()  # Only if empty.


@dataclasses.dataclass
class _Outcome:
  """How one experiment ended, for ``main``."""

  record: report.SectionRecord
  stop: Optional[KeyboardInterrupt] = None  # What stopped it (``stopping``), if anything did.
  lost: Optional[str] = None  # One line, if the executor was lost.


def _run_one(module: ModuleType, args: argparse.Namespace, root: pathlib.Path,
             executor, bad_option_propagates: bool, deadline: Deadline,
             bars: bool = True) -> _Outcome:
  """Runs one experiment into ``root/NAME``, saves its section, manifest and error logs
  (``bars``: its progress bars on a terminal; off in the side process).

  A ValueError (a bad option) propagates when asked, after removing the experiment's folder if
  this call created it; any other exception is recorded as a crash.
  """
  sub = root / module.NAME
  created = not sub.exists()
  sub.mkdir(parents=True, exist_ok=True)
  earlier = _snapshot(sub)
  plain = context.plain_progress(args.quiet)
  ctx = context.Context(module.NAME, sub, seed=args.seed, quick=args.quick,
                        progress=bars and context.terminal_progress(args.quiet), fresh=args.fresh,
                        max_minutes=args.max_minutes, executor=executor,
                        log=context.log_line if plain else None, deadline=deadline)
  spent = budget(module, args)
  ctx.note(f"started, budget {report.describe_budget(spent, code=False)}")
  missing = [d.missing_text() for d in getattr(module, "OPTIONAL_DEPENDENCIES", ())
             if not d.installed()]
  for text in missing:
    print(f"{module.NAME}: note: {text}", file=sys.stderr, flush=True)
  start, clock = provenance.now(), time.perf_counter()
  error, stop, lost = None, None, None
  section = ReportSection(title=module.NAME)
  try:
    with ctx.heartbeat():
      section = module.run(args, ctx)
  except ValueError as e:
    if bad_option_propagates:
      if created:
        shutil.rmtree(sub, ignore_errors=True)
      raise
    error = _crash(sub, e)
  except KeyboardInterrupt as e:  # Ctrl-C, SIGTERM, SIGHUP or the deadline (``stopping``).
    stop = e
    section = ReportSection(title=f"{module.NAME} ({stopping.reason(e)})")
  except executors.ExecutorLost as e:
    lost = str(e)
    error = lost
  except Exception as e:  # noqa: BLE001  (recorded in the report; the other experiments go on)
    error = _crash(sub, e)
  if error is not None and stop is None:
    section = ReportSection(title=f"{module.NAME} (crashed)")
  if ctx.failures:
    atomic_file.atomic_write_text(sub / "job_errors.log", "\n".join(
        f"{line}\n{f.traceback}" for line, f in zip(context.describe_failures(ctx.failures),
                                                      ctx.failures)))
  record = report.SectionRecord(
      module.NAME, section, time.perf_counter() - clock, error,
      job_failures=context.describe_failures(ctx.failures), interrupted=stop is not None,
      stopped="" if stop is None else stopping.reason(stop),
      jobs=dataclasses.asdict(ctx.stats), code=provenance.code_stamp(),
      finished=provenance.now(), budget=spent, missing=missing,
      allow_no_checks=args.allow_no_checks)
  report.save_section(root, record)
  provenance.write_manifest(sub, provenance.build_manifest(
      args.argv, args.prog, {"seed": args.seed}, start, provenance.now(),
      experiment=module.NAME, status=record.status, code=record.code, jobs=record.jobs))
  _remove_stale(sub, earlier)
  ctx.note(f"done, {report.outcome_text(record)}")
  return _Outcome(record, stop, lost)


def _crash(sub: pathlib.Path, e: BaseException) -> str:
  """Writes the traceback to ``sub/error.log`` and returns the one-line error."""
  with contextlib.suppress(OSError):
    atomic_file.atomic_write_text(sub / ERROR_LOG, traceback.format_exc())
  lines = str(e).strip().splitlines()
  return (f"{type(e).__name__}: {lines[0] if lines else ''}".rstrip(": ")
          + f" (traceback in {sub / ERROR_LOG})")


def _selected(args: argparse.Namespace, modules: Sequence[ModuleType]
              ) -> List[Tuple[ModuleType, argparse.Namespace]]:
  """The (module, its options) pairs of the command."""
  if args.command != RUN:
    return [(next(m for m in modules if m.NAME == args.command), args)]
  selected = []
  for module in modules:
    if not args.only or module.NAME in args.only:
      sub_args = _experiment_parser(module, arguments.ArgumentParser()).parse_args(
          _common_argv(args))
      sub_args.argv, sub_args.prog = args.argv, args.prog
      selected.append((module, sub_args))
  return selected


def main(argv: Optional[Sequence[str]] = None, prog: str = PROG,
         started: Optional[float] = None) -> int:
  """Runs a command (``started``: when its process started, ``time.monotonic()``, the start of
  its ``--max-minutes`` deadline; default now); returns the exit code (0 all checks passed, 1
  failures or errors or work cut by the deadline, 2 bad options, 130 interrupted, 128 + N after
  signal N: 143 SIGTERM, 129 SIGHUP)."""
  argv = sys.argv[1:] if argv is None else list(argv)
  matplotlib.use("Agg")  # Figures go to files only, with or without a display.
  with stopping.closed_pipes_ignored():
    try:
      with stopping.handled():
        return _main(argv, prog, started)
    except KeyboardInterrupt as e:  # Outside an experiment (importing, writing the report).
      print(f"{prog}: {stopping.reason(e)}; rerun the same command to resume", file=sys.stderr)
      return stopping.exit_status(e)


def _main(argv: List[str], prog: str, started: Optional[float]) -> int:
  for module in interactive_modules():  # Interactive: it writes no report section.
    if argv[:1] == [module.NAME]:
      return module.main(argv[1:], prog=f"{prog} {module.NAME}")
  modules = experiment_modules()
  parser = build_parser(modules, prog)
  try:
    args = parser.parse_args(argv)
  except SystemExit as e:  # --help, or an argparse error already printed on stderr.
    return int(e.code or 0)
  args.argv, args.prog = argv, prog
  deadline = Deadline.after_minutes(args.max_minutes, since=started)
  root = pathlib.Path(args.out)
  per_module = _selected(args, modules)
  error_prefix = f"{prog} {args.command}: error:"
  try:
    root_created = prepare_out(root, [m.NAME for m, _ in per_module])
  except ValueError as e:
    print(f"{error_prefix} {e}", file=sys.stderr)
    return 2
  workers, capped = executors.capped_workers(args.workers, args.oversubscribe)
  if capped and not args.dask:
    print(f"{prog}: note: {capped}", file=sys.stderr)
  with contextlib.ExitStack() as held:
    try:
      held.enter_context(folder_lock.hold(
          root, f"{prog} {shlex.join(argv)}", lambda left: print(
              f"{prog}: note: taking over the lock of {root} left by {left.text()}, which no "
              "longer runs", file=sys.stderr)))
      _remove_temporaries(root)
      start = provenance.now()
      outcomes, stop = _run_selected(args, root, per_module, workers, deadline, start)
    except ValueError as e:  # In use, a bad option or an unreachable executor: before any work.
      held.close()  # The lock file goes first.
      if root_created and not any(root.iterdir()):
        root.rmdir()
      print(f"{error_prefix} {e}", file=sys.stderr)
      return 2
    except OSError as e:
      print(f"{error_prefix} {e.strerror or e}: {e.filename or root}", file=sys.stderr)
      return 1
    try:
      return _finish(args, root, modules, outcomes, start, stop, len(per_module))
    except OSError as e:
      print(f"{error_prefix} cannot write the report ({e.strerror or e}: {e.filename or root})",
            file=sys.stderr)
      return 1


def _run_selected(args: argparse.Namespace, root: pathlib.Path,
                  per_module: Sequence[Tuple[ModuleType, argparse.Namespace]], workers: int,
                  deadline: Deadline, start: str
                  ) -> Tuple[List[_Outcome], Optional[KeyboardInterrupt]]:
  """Runs the selected experiments into ``root`` on ``workers`` processes, until one loses its
  executor or the run is stopped (Ctrl-C, SIGTERM, SIGHUP, or ``deadline``, checked before each
  experiment and raised by an alarm in one: ``stopping``); returns their outcomes and what
  stopped the run, if anything did."""
  outcomes: List[_Outcome] = []
  side = None
  beside = [(m, a) for m, a in per_module if getattr(m, "SIDE_PROCESS", False)]
  try:
    with stopping.handled(deadline, args.max_minutes), executors.make_executor(
        workers, args.dask, args.dask_timeout) as executor:
      if args.command == RUN and executor.parallelism > 1 and len(beside) < len(per_module):
        side = _start_side(beside, args, root, deadline)
      for module, module_args in tqdm.tqdm(
          per_module, desc="experiments", leave=False,
          disable=len(per_module) == 1 or not context.terminal_progress(args.quiet)):
        if side is not None and any(module is m for m, _ in beside):
          continue
        if deadline.passed():
          raise stopping.DeadlinePassed(args.max_minutes)
        outcome = _run_one(module, module_args, root, executor,
                           bad_option_propagates=args.command != RUN, deadline=deadline)
        outcomes.append(outcome)
        if args.quiet:
          print(report.summary_line(outcome.record), flush=True)
        if outcome.stop is not None:
          raise outcome.stop
        if outcome.lost:
          break
      _join_side(side)
  except KeyboardInterrupt as e:
    _join_side(side, e)
    return _in_order(per_module, outcomes + _side_outcomes(side, root, beside, start, args)), e
  found = _side_outcomes(side, root, beside, start, args)
  return (_in_order(per_module, outcomes + found),
          next((o.stop for o in found if o.stop is not None), None))


def _side_run(beside: Sequence[Tuple[ModuleType, argparse.Namespace]],
              args: argparse.Namespace, root: pathlib.Path, deadline: Deadline) -> None:
  """The side process (``_start_side``): runs ``beside`` one after the other, as the main
  process runs the others, without progress bars or ``--quiet`` lines (``_side_outcomes``);
  its alarm is its own (timers are not inherited)."""
  stopping.unblocked()
  with contextlib.suppress(KeyboardInterrupt), stopping.handled(deadline, args.max_minutes):
    for module, module_args in beside:
      if deadline.passed():
        return
      outcome = _run_one(module, module_args, root, executors.Serial(), False, deadline,
                         bars=False)
      if outcome.stop is not None:
        return


def _start_side(beside, args, root, deadline):
  """Starts the side process: the experiments that use no executor (``SIDE_PROCESS``) run there,
  beside the pool's experiments, so that the machine's cores are busy while they run (issue:
  the main job on both cores). Forked: it shares the loaded modules and the parsed options."""
  process = multiprocessing.get_context("fork").Process(
      target=_side_run, args=(beside, args, root, deadline), name="experiments-side")
  with stopping.held():
    process.start()
  return process


def _join_side(side, stop: Optional[KeyboardInterrupt] = None) -> None:
  """Waits for the side process. After ``stop`` it stops too: by its own alarm at the deadline;
  by the same Ctrl-C from a terminal, else (a signal sent to the main process alone) by the
  signal passed on after ``_SIDE_GRACE`` seconds; it saves what it finished."""
  if side is None:
    return
  try:
    if stop is not None and not isinstance(stop, stopping.DeadlinePassed):
      side.join(_SIDE_GRACE)
      if side.is_alive():
        os.kill(side.pid, getattr(stop, "signum", signal.SIGINT))
    side.join()
  except KeyboardInterrupt:  # Another Ctrl-C: stop it now.
    side.kill()
    side.join()


def _side_outcomes(side, root: pathlib.Path, beside, start: str,
                   args: argparse.Namespace) -> List[_Outcome]:
  """The outcomes of the side process's experiments: the sections it saved in this run (those
  finished since ``start``), with what stopped each that was stopped; with ``--quiet``, their
  lines are printed here (the side process prints none)."""
  if side is None:
    return []
  found = []
  for module, _ in beside:
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError, AttributeError):
      record = report.read_section(root / module.NAME / report.SECTION_NAME)
      if record.finished >= start:
        stop = None
        if record.interrupted:
          stop = (stopping.DeadlinePassed(args.max_minutes) if "deadline" in record.stopped
                  else KeyboardInterrupt())
        found.append(_Outcome(record, stop))
        if args.quiet:
          print(report.summary_line(record), flush=True)
  return found


def _in_order(per_module, outcomes: List[_Outcome]) -> List[_Outcome]:
  """``outcomes`` in the order of the selected experiments."""
  order = [m.NAME for m, _ in per_module]
  return sorted(outcomes, key=lambda o: order.index(o.record.experiment))


def _finish(args: argparse.Namespace, root: pathlib.Path, modules: Sequence[ModuleType],
            outcomes: Sequence[_Outcome], start: str, stop: Optional[KeyboardInterrupt],
            selected: int) -> int:
  """Writes the manifest and the report, prints the outcome and returns the exit code."""
  records = [o.record for o in outcomes]
  order = [m.NAME for m in modules]
  sections = report.load_sections(root, order)
  unreadable = [r for r in sections if r.unreadable is not None]
  for r in unreadable:
    print(f"{args.prog} {args.command}: warning: {report.unreadable_advice(r)} (shown as "
          f"{report.UNREADABLE} in the report)", file=sys.stderr)
  ran = {r.experiment for r in records}
  not_run = [] if stop is None else [m.NAME for m, _ in _selected(args, modules)
                                     if m.NAME not in ran]
  run_manifest = provenance.build_manifest(
      args.argv, args.prog, {"seed": args.seed}, start, provenance.now(),
      experiments={r.experiment: {"status": r.status, "code": r.code, "jobs": r.jobs,
                                  "finished": r.finished} for r in sections},
      **({"stopped": stopping.reason(stop), "not_run": not_run} if stop is not None else {}))
  provenance.write_manifest(root, run_manifest)
  path = report.render_report(root, order, run_manifest)
  if not args.quiet:
    _print_outcome(records, path)
  last = outcomes[-1] if outcomes else None
  if stop is not None:
    cut = next((o for o in outcomes if o.stop is not None and o.record.jobs.get("total")), None)
    stats = cut.record.jobs if cut is not None else {}
    kept = (f"{stats['reused'] + stats['computed']} of {stats['total']} "
            f"{cut.record.experiment} results kept, " if cut is not None else "")
    finished = sum(o.stop is None for o in outcomes)
    print(f"{stopping.reason(stop)}: {kept}{finished} of {selected} experiments finished"
          + (f", not run: {', '.join(not_run)}" if not_run else "")
          + f"; report {path}; rerun the same command to resume"
          + (" (with a larger --max-minutes to finish)"
             if isinstance(stop, stopping.DeadlinePassed) else ""), file=sys.stderr)
    return stopping.exit_status(stop)
  if last is not None and last.lost:
    print(f"{args.prog} {args.command}: error: {last.lost}; finished results are kept, rerun the "
          "same command to resume", file=sys.stderr)
    return 1
  return 0 if report.overall_status(records) and not unreadable else 1


def _print_outcome(records: Sequence[report.SectionRecord], path: pathlib.Path) -> None:
  """Prints the pass/fail table of this invocation's experiments, the failed checks and errors,
  and where the report is."""
  print(report.summary_table(records))
  failed = [c for r in records for c in r.section.checks if not c.passed]
  if failed:
    print()
    print(report.checks_table(failed[:MAX_FAILED_CHECKS_SHOWN]))
    if len(failed) > MAX_FAILED_CHECKS_SHOWN:
      print(f"... and {len(failed) - MAX_FAILED_CHECKS_SHOWN} more failed checks in the report")
  for r in records:
    for problem in ([r.error] if r.error else []) + r.job_failures + report.left_out(r):
      print(f"{r.experiment}: {problem}")
  print(f"\nreport: {path}")
