"""Regenerates the README's committed figures and tables in ``docs/``.

  python -m experiments.docs [--out DIR] [--docs DIR] [--workers N] [--quiet]

runs the main job (``python -m experiments run`` at the default budget, into ``--out``, default
``results/``) and the ReBeL experiment at ``REBEL_ITERATIONS`` iterations (into
``--out``/``REBEL_FOLDER``: the README shows it above the main job's default budget); sweep jobs
already finished there by the same code are reused. When every check of both runs passed, it
copies the figures of ``FIGURES`` into ``--docs`` (default: ``docs/`` of the source checkout;
required when the package is installed, not run from a checkout) and writes three markdown
tables: ``summary.md`` (the main job's summary table), ``reference_check.md`` (the reference
check's pass/fail table, ``pass_fail.csv``) and ``rebel_table.md`` (the ReBeL run's
``rebel_table.csv``: exploitability to 3 significant digits, whole iterations per second). If a
check failed or an experiment crashed, ``docs/`` is left as it was and the exit code is the
failed run's.
"""

import argparse
import pathlib
import shutil
import sys
from typing import Optional, Sequence

import pandas as pd

from experiments import arguments
from experiments import cli
from experiments import provenance
from experiments import rebel
from experiments import reference_check
from experiments import report
from experiments import tables
from spiel_games import atomic_file

# The checkout's docs/ folder; None in an installed copy (then --docs is required).
_CHECKOUT = provenance.source_checkout()
DEFAULT_DOCS = _CHECKOUT / "docs" if _CHECKOUT is not None else None
REBEL_ITERATIONS = 3000
REBEL_FOLDER = f"rebel-{REBEL_ITERATIONS}"  # Under --out.
# (folder under --out, figure): the figures the README shows.
FIGURES = (
    ("convergence", "convergence_kuhn_poker.png"),
    ("convergence", "convergence_leduc_poker.png"),
    ("ante-sweep", "ante_sweep_standard.png"),
    ("ante-sweep", "ante_sweep_simplified.png"),
    ("landscape", "landscape.png"),
    ("rps", "rps_strategies.png"),
    ("rps", "rps_exploitability.png"),
    (f"{REBEL_FOLDER}/{rebel.NAME}", "rebel.png"),
    ("rebel-learned", "rebel_learned_vs_exact.png"),
    ("rebel-learned", "rebel_learned_error.png"),
    ("rebel-learned", "rebel_learned_modified.png"),
    ("rebel-learned", "rebel_learned_self_play.png"),
)
SUMMARY = "summary.md"
REFERENCE_CHECK = "reference_check.md"
REBEL_TABLE = "rebel_table.md"


def publish(results: pathlib.Path, docs: pathlib.Path) -> None:
  """Copies the figures and writes the three tables from the results folder ``results`` to
  ``docs``.

  Raises:
    ValueError: if a figure or a table is missing from ``results``.
  """
  sources = [results / folder / name for folder, name in FIGURES]
  table = results / reference_check.NAME / reference_check.PASS_FAIL_TABLE
  rebel_table = results / REBEL_FOLDER / rebel.NAME / "rebel_table.csv"
  missing = [str(p) for p in [*sources, table, rebel_table] if not p.is_file()]
  if missing:
    raise ValueError(f"not in the results folder {results}: {', '.join(missing)}")
  docs.mkdir(parents=True, exist_ok=True)
  for source in sources:
    atomic_file.atomic_write(docs / source.name,
                             lambda tmp, source=source: shutil.copyfile(source, tmp))
  order = [m.NAME for m in cli.experiment_modules()]
  atomic_file.atomic_write_text(
      docs / SUMMARY, report.summary_table(report.load_sections(results, order)) + "\n")
  pass_fail = pd.read_csv(table, dtype=str, keep_default_na=False)
  atomic_file.atomic_write_text(docs / REFERENCE_CHECK, tables.markdown_table(pass_fail) + "\n")
  speeds = pd.read_csv(rebel_table)
  speeds["it/s"] = speeds["it/s"].round().astype(int)  # Whole numbers, not 1.44e+04.
  atomic_file.atomic_write_text(docs / REBEL_TABLE,
                                tables.markdown_table(speeds, digits=3) + "\n")


def runs(out: pathlib.Path, workers: int, quiet: bool) -> Sequence[Sequence[str]]:
  """The command lines (``cli.main`` arguments) whose results ``publish`` reads."""
  common = ["--workers", str(workers)] + (["--quiet"] if quiet else [])
  return (["run", "--out", str(out), *common],
          [rebel.NAME, "--iterations", str(REBEL_ITERATIONS), "--out",
           str(out / REBEL_FOLDER), *common])


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs the main job and the ReBeL run, then publishes; returns the exit code (that of a run
  that did not pass, 2 for errors)."""
  parser = argparse.ArgumentParser(prog="python -m experiments.docs",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(arguments.DEFAULT_OUT),
                      metavar="DIR", help=f"results folder (default: {arguments.DEFAULT_OUT})")
  parser.add_argument("--docs", type=pathlib.Path, default=DEFAULT_DOCS, metavar="DIR",
                      help="where the figures and tables go (default: "
                      + (f"{DEFAULT_DOCS})" if DEFAULT_DOCS else "none outside a source checkout)"))
  parser.add_argument("--workers", type=arguments.positive_int, default=1, metavar="N",
                      help="process-pool size for sweeps (default: 1)")
  parser.add_argument("--quiet", action="store_true",
                      help="one line per experiment, no progress bars")
  args = parser.parse_args(argv)
  if args.docs is None:
    parser.error("--docs DIR is required: this is an installed copy, not a source checkout")
  for command in runs(args.out, args.workers, args.quiet):
    status = cli.main(list(command))
    if status != 0:
      print(f"{parser.prog}: error: 'python -m experiments {command[0]}' did not pass; "
            f"{args.docs} left unchanged", file=sys.stderr)
      return status
  try:
    publish(args.out, args.docs)
  except ValueError as e:
    print(f"{parser.prog}: error: {e}", file=sys.stderr)
    return 2
  except OSError as e:
    print(f"{parser.prog}: error: cannot write {e.filename or args.docs} ({e.strerror or e})",
          file=sys.stderr)
    return 2
  print(f"updated {args.docs}: {', '.join(n for _, n in FIGURES)}, {SUMMARY}, {REFERENCE_CHECK}, "
        f"{REBEL_TABLE}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
