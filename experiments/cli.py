"""Command line: ``python -m experiments <command> [options]`` (script ``kuhn-experiments``).

Every experiment module listed in ``EXPERIMENT_MODULES`` follows one protocol: ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> ReportSection``; each becomes a subcommand. The
command ``run`` runs all of them (or those named with ``--only``) with their default options. All
commands take the common options ``--quick``, ``--out DIR``, ``--seed N``, ``--quiet``,
``--workers N`` and ``--dask ADDRESS``.

An experiment writes into ``DIR/<NAME>/``; the CLI saves its section there, writes the manifests
(``DIR/manifest.json`` and ``DIR/<NAME>/manifest.json``) and re-renders ``DIR/report.md`` from
every section in ``DIR``. Exit codes: 0 when every check passed, 1 when a check failed or an
experiment crashed, 2 for bad options (message on stderr, nothing written).
"""

import argparse
import importlib
import pathlib
import shutil
import sys
import time
import traceback
from types import ModuleType
from typing import Any, Callable, List, Optional, Sequence

import tqdm

from experiments import manifest
from experiments import report
from experiments import solver_registry
from experiments.report_section import ReportSection

# The experiments, in report order. A new experiment is one entry here.
EXPERIMENT_MODULES = (
    "experiments.reference_check",
    "experiments.convergence",
    "experiments.ante_sweep",
    "experiments.rps",
    "experiments.head_to_head",
    "experiments.strategy_tables",
    "experiments.landscape",
    "experiments.rebel",
)
RUN = "run"
DEFAULT_OUT = "results"


def _number_type(convert: Callable[[str], Any], allowed: Callable[[Any], bool],
                 description: str) -> Callable[[str], Any]:
  """An argparse type: ``convert(text)``, rejected unless ``allowed``, with a one-line message."""

  def parse(text: str):
    try:
      value = convert(text)
    except ValueError:
      raise argparse.ArgumentTypeError(f"expected {description}, got {text!r}") from None
    if not allowed(value):
      raise argparse.ArgumentTypeError(f"expected {description}, got {text}")
    return value

  parse.__name__ = description  # argparse names the type in its own messages.
  return parse


positive_int = _number_type(int, lambda v: v > 0, "a positive integer")
positive_float = _number_type(float, lambda v: 0 < v < float("inf"), "a finite positive number")
nonnegative_int = _number_type(int, lambda v: v >= 0, "an integer >= 0")


def _checked_text(check: Callable[[str], Any], description: str) -> Callable[[str], str]:
  """An argparse type: ``text`` itself once ``check(text)`` accepts it; its ValueError becomes
  argparse's one-line message."""

  def parse(text: str) -> str:
    try:
      check(text)
    except ValueError as e:
      raise argparse.ArgumentTypeError(str(e)) from None
    return text

  parse.__name__ = description
  return parse


# An OpenSpiel game string CFR applies to (checked by loading it).
game_string = _checked_text(solver_registry.load_game, "game string")
# The name of a registered solver.
solver_name = _checked_text(solver_registry.get_solver, "solver name")


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
  """The options every command takes."""
  parser.add_argument("--quick", action="store_true",
                      help="small budget (about a minute for the whole suite)")
  parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(DEFAULT_OUT),
                      metavar="DIR", help=f"results folder (default: {DEFAULT_OUT})")
  parser.add_argument("--seed", type=nonnegative_int, default=0, metavar="N",
                      help="base random seed (default: 0)")
  parser.add_argument("--quiet", action="store_true", help="no progress bars")
  parser.add_argument("--workers", type=positive_int, default=1, metavar="N",
                      help="process-pool size for sweeps (default: 1)")
  parser.add_argument("--dask", metavar="ADDRESS", default=None,
                      help="run sweeps on the Dask cluster at ADDRESS (needs pip install "
                      "'.[dask]'); --workers is then ignored")


def experiment_modules() -> List[ModuleType]:
  """The experiment modules of ``EXPERIMENT_MODULES``, imported."""
  return [importlib.import_module(name) for name in EXPERIMENT_MODULES]


def _experiment_parser(module: ModuleType, parser: argparse.ArgumentParser
                       ) -> argparse.ArgumentParser:
  add_common_arguments(parser)
  module.add_arguments(parser)
  return parser


def build_parser(modules: Sequence[ModuleType]) -> argparse.ArgumentParser:
  """The parser with one subcommand per experiment and the command ``run``."""
  parser = argparse.ArgumentParser(
      prog="python -m experiments",
      description="Kuhn poker CFR experiments. Results, figures and report.md go to --out.")
  commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
  run_parser = commands.add_parser(
      RUN, help="run every experiment at its default budget and write the report",
      description="Run every experiment with its default options and write DIR/report.md.")
  add_common_arguments(run_parser)
  run_parser.add_argument("--only", action="append", metavar="NAME",
                          choices=[m.NAME for m in modules],
                          help="run only this experiment (repeatable)")
  for module in modules:
    text = module.HELP.replace("%", "%%")  # argparse %-formats help strings.
    _experiment_parser(module, commands.add_parser(module.NAME, help=text, description=text))
  return parser


def _common_argv(args: argparse.Namespace) -> List[str]:
  """The common options of ``args`` as command-line arguments."""
  argv = ["--seed", str(args.seed), "--workers", str(args.workers), "--out", str(args.out)]
  argv += ["--quick"] if args.quick else []
  argv += ["--quiet"] if args.quiet else []
  argv += ["--dask", args.dask] if args.dask else []
  return argv


def _run_one(module: ModuleType, args: argparse.Namespace, root: pathlib.Path,
             propagate_value_error: bool) -> report.SectionRecord:
  """Runs one experiment into ``root/NAME`` and saves its section and manifest.

  A crash is recorded in the section; a ValueError (bad option) propagates when asked, after
  removing the experiment's folder if this call created it.
  """
  sub = root / module.NAME
  created = not sub.exists()
  sub.mkdir(parents=True, exist_ok=True)
  args.out = sub
  start, clock = manifest.now(), time.perf_counter()
  error = None
  try:
    section = module.run(args)
  except ValueError:
    if propagate_value_error:
      if created:
        shutil.rmtree(sub, ignore_errors=True)
      raise
    error, section = _crash(module)
  except Exception:  # pylint: disable=broad-except  (recorded in the report, exit code 1)
    error, section = _crash(module)
  record = report.SectionRecord(module.NAME, section, time.perf_counter() - clock, error)
  report.save_section(root, record)
  manifest.write_manifest(sub, manifest.build_manifest(
      args.argv, {"seed": args.seed}, start,
      manifest.now(), experiment=module.NAME, status=record.status))
  return record


def _crash(module: ModuleType):
  traceback.print_exc()
  kind, value = sys.exc_info()[:2]
  return f"{kind.__name__}: {value}", ReportSection(title=f"{module.NAME} (crashed)")


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs a command; returns the exit code (0 all checks passed, 1 failures, 2 bad options)."""
  argv = sys.argv[1:] if argv is None else list(argv)
  modules = experiment_modules()
  parser = build_parser(modules)
  try:
    args = parser.parse_args(argv)
  except SystemExit as e:  # --help, or an argparse error already printed on stderr.
    return int(e.code or 0)
  args.argv = argv
  root = pathlib.Path(args.out)
  root_created = not root.exists()
  by_name = {m.NAME: m for m in modules}
  if args.command == RUN:
    selected = [m for m in modules if not args.only or m.NAME in args.only]
    per_module = []
    for module in selected:
      sub_args = _experiment_parser(module, argparse.ArgumentParser()).parse_args(
          _common_argv(args))
      sub_args.argv = args.argv
      per_module.append((module, sub_args))
  else:
    per_module = [(by_name[args.command], args)]
  start = manifest.now()
  root.mkdir(parents=True, exist_ok=True)
  records = []
  try:
    for module, module_args in tqdm.tqdm(per_module, desc="experiments", disable=args.quiet
                                         or len(per_module) == 1):
      records.append(_run_one(module, module_args, root, args.command != RUN))
  except ValueError as e:
    if root_created and not any(root.iterdir()):
      root.rmdir()
    print(f"{parser.prog} {args.command}: error: {e}", file=sys.stderr)
    return 2
  run_manifest = manifest.build_manifest(
      argv, {"seed": args.seed}, start, manifest.now(),
      experiments={r.experiment: r.status for r in records})
  manifest.write_manifest(root, run_manifest)
  path = report.render_report(root, [m.NAME for m in modules], run_manifest)
  _print_outcome(records, path, detailed=args.command != RUN)
  return 0 if report.overall_status(records) else 1


def _print_outcome(records: Sequence[report.SectionRecord], path: pathlib.Path,
                   detailed: bool) -> None:
  """Prints the pass/fail table of this invocation's experiments and where the report is."""
  print(report.summary_table(records))
  checks = [c for r in records for c in r.section.checks]
  shown = checks if detailed else [c for c in checks if not c.passed]
  if shown:
    print()
    print(report.checks_table(shown))
  print(f"\nreport: {path}")
