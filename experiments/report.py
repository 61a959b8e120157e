"""The report of a results folder, rendered from the experiments' ``ReportSection``s.

Every experiment run into a results folder ``DIR`` leaves its section in
``DIR/<experiment>/section.json``; ``render_report`` collects all of them into ``DIR/report.md``:
a summary table (what was solved, how many reference checks passed, the largest distance to a
reference relative to its tolerance, pass/fail), the list of failed checks, then each section with
its figures embedded, its tables linked and its checks tabulated. Running one experiment again
into the same folder replaces its section and re-renders the report.
"""

import dataclasses
import json
import math
import pathlib
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from algorithms import atomic_file
from experiments.report_section import Check, ReportSection

REPORT_NAME = "report.md"
SECTION_NAME = "section.json"


@dataclasses.dataclass
class SectionRecord:
  """An experiment's section as saved in the results folder.

  Attributes:
    experiment: the experiment's NAME (also its subfolder).
    section: what the experiment returned (paths relative to its subfolder).
    seconds: wall time of the experiment.
    error: one-line description of the exception if the experiment crashed, else None.
  """

  experiment: str
  section: ReportSection
  seconds: float
  error: Optional[str] = None

  @property
  def status(self) -> str:
    if self.error is not None:
      return "ERROR"
    passed = self.section.passed
    return "no checks" if passed is None else "PASS" if passed else "FAIL"


def save_section(folder: pathlib.Path, record: SectionRecord) -> pathlib.Path:
  """Writes ``record`` to ``folder/<experiment>/section.json`` atomically."""
  sub = pathlib.Path(folder) / record.experiment
  sub.mkdir(parents=True, exist_ok=True)
  path = sub / SECTION_NAME
  atomic_file.atomic_write_json(path, dataclasses.asdict(record))
  return path


def load_sections(folder: pathlib.Path, order: Sequence[str]) -> List[SectionRecord]:
  """The sections saved in ``folder``: those named in ``order`` first, in that order."""
  folder = pathlib.Path(folder)
  names = [p.parent.name for p in folder.glob(f"*/{SECTION_NAME}")]
  names.sort(key=lambda n: (order.index(n) if n in order else len(order), n))
  records = []
  for name in names:
    raw = json.loads((folder / name / SECTION_NAME).read_text(encoding="utf-8"))
    section = dict(raw["section"])
    section["checks"] = [Check(**c) for c in section["checks"]]
    records.append(SectionRecord(experiment=raw["experiment"], section=ReportSection(**section),
                                 seconds=raw["seconds"], error=raw["error"]))
  return records


def _num(x: float) -> str:
  return "nan" if math.isnan(x) else f"{x:.6g}"


def markdown_table(frame: pd.DataFrame, digits: int = 4) -> str:
  """A markdown table of ``frame`` (index dropped), floats to ``digits`` significant digits."""
  def cell(x: Any) -> str:
    if isinstance(x, (float, np.floating)):
      return f"{x:.{digits}g}"
    return str(x)
  lines = ["| " + " | ".join(str(c) for c in frame.columns) + " |",
           "|" + "---|" * len(frame.columns)]
  for row in frame.itertuples(index=False):
    lines.append("| " + " | ".join(cell(x) for x in row) + " |")
  return "\n".join(lines)


def write_csv(frame: pd.DataFrame, path: pathlib.Path) -> None:
  """Writes ``frame`` (index dropped) as a CSV file at ``path`` atomically."""
  atomic_file.atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))


def _ratio(check: Check) -> float:
  """|value - reference| / tolerance (0/0 counts as 0)."""
  diff = abs(check.value - check.reference)
  if check.tolerance == 0:
    return 0.0 if diff == 0 else math.inf
  return diff / check.tolerance


def checks_table(checks: Sequence[Check]) -> str:
  """A markdown table of checks: value, reference, distance, tolerance, source, result."""
  lines = ["| check | value | reference | abs. difference | tolerance | reference source "
           "| result |",
           "|---|---:|---:|---:|---:|---|---|"]
  for c in checks:
    lines.append(f"| {c.name} | {_num(c.value)} | {_num(c.reference)} | "
                 f"{_num(abs(c.value - c.reference))} | {_num(c.tolerance)} | {c.source} | "
                 f"{'pass' if c.passed else '**FAIL**'} |")
  return "\n".join(lines)


def summary_table(records: Sequence[SectionRecord]) -> str:
  """One row per experiment: what it solved, checks passed, worst distance/tolerance, status."""
  lines = ["| experiment | what was solved | checks passed | worst abs. difference / tolerance "
           "| time (s) | status |", "|---|---|---:|---:|---:|---|"]
  for r in records:
    checks = r.section.checks
    passed = sum(c.passed for c in checks)
    worst = _num(max(_ratio(c) for c in checks)) if checks else "-"
    lines.append(f"| {r.experiment} | {r.section.title} | {passed}/{len(checks)} | {worst} | "
                 f"{r.seconds:.1f} | {r.status} |")
  return "\n".join(lines)


def overall_status(records: Sequence[SectionRecord]) -> bool:
  """True when no experiment crashed and no check failed."""
  return all(r.status in ("PASS", "no checks") for r in records)


def render_report(folder: pathlib.Path, order: Sequence[str],
                  manifest: Optional[Dict[str, Any]] = None) -> pathlib.Path:
  """Writes ``folder/report.md`` from every section saved in ``folder`` and returns its path.

  Args:
    folder: the results folder.
    order: experiment names in the order their sections should appear.
    manifest: the folder's manifest, for the header (command, commit, times).
  """
  folder = pathlib.Path(folder)
  records = load_sections(folder, order)
  out = ["# Kuhn poker CFR experiments: report", ""]
  if manifest:
    git = manifest.get("git") or {}
    commit = git.get("commit", "unknown")[:12] + (" (with local changes)" if git.get("dirty")
                                                  else "")
    out += [f"Command: `{' '.join(manifest['command'])}`; started {manifest['start']}, ended "
            f"{manifest.get('end')}; code commit {commit}; details in `manifest.json`.", ""]
  all_checks = [c for r in records for c in r.section.checks]
  failed = [(r.experiment, c) for r in records for c in r.section.checks if not c.passed]
  errors = [r for r in records if r.error is not None]
  verdict = "PASS" if overall_status(records) else "FAIL"
  out += ["## Summary", "",
          f"**{verdict}**: {len(all_checks) - len(failed)} of {len(all_checks)} reference checks "
          f"passed, {len(errors)} experiment(s) crashed. A check passes when "
          "|value - reference| <= tolerance.", "", summary_table(records), ""]
  if failed:
    out += ["### Failed checks", "", checks_table([c for _, c in failed]), ""]
  for r in errors:
    out += [f"- **{r.experiment} crashed**: {r.error}"]
  for r in records:
    s = r.section
    out += ["", f"## {s.title}", "", f"Experiment `{r.experiment}`, files in `{r.experiment}/`.",
            ""]
    if r.error is not None:
      out += [f"**Crashed**: {r.error}", ""]
    if s.markdown:
      out += [s.markdown.strip(), ""]
    for fig in s.figures:
      out += [f"![{fig}]({r.experiment}/{fig})", ""]
    if s.tables:
      out += ["Tables: " + ", ".join(f"[{t}]({r.experiment}/{t})" for t in s.tables), ""]
    if s.checks:
      out += ["### Checks", "", checks_table(s.checks), ""]
  path = folder / REPORT_NAME
  atomic_file.atomic_write_text(path, "\n".join(out).rstrip() + "\n")
  return path
