"""The report of a results folder, rendered from the experiments' saved sections.

Every experiment run into a results folder ``DIR`` leaves its ``SectionRecord`` in
``DIR/<experiment>/section.json``: what it returned (``ReportSection``), its status, its time, its
jobs (reused and computed) and the code that computed it. ``render_report`` collects all of them
into ``DIR/report.md``: the code that computed the numbers (one line if every section agrees,
else a note that sections differ and a line in each), a summary table (what was solved, checks
passed, the worst distance to a reference relative to its tolerance, jobs, time, status), the
failed checks and errors, then each section with its provenance, text, figures, tables and
checks. Running one experiment again into the same folder replaces its section only.
"""

import dataclasses
import json
import math
import pathlib
from typing import Any, Dict, List, Optional, Sequence

from experiments.harness import provenance
from experiments.harness.checks import Check
from experiments.harness.section import ReportSection
from spiel_games import atomic_file

REPORT_NAME = "report.md"
SECTION_NAME = "section.json"
INTERRUPTED = "INTERRUPTED"


@dataclasses.dataclass
class SectionRecord:
  """An experiment's section as saved in the results folder.

  Attributes:
    experiment: the experiment's NAME (also its subfolder).
    section: what the experiment returned (paths relative to its subfolder).
    seconds: wall time of the experiment in the invocation that saved it.
    error: one-line description of the exception if the experiment crashed, else None.
    job_failures: one line per job that raised (the rest of the sweep went on).
    interrupted: the run was interrupted (Ctrl-C) before the experiment finished.
    jobs: the sweep counts (``context.SweepStats`` as a dict; empty without jobs).
    code: the code that computed the section (``provenance.code_stamp()``).
    finished: when the section was saved (ISO 8601).
  """

  experiment: str
  section: ReportSection
  seconds: float
  error: Optional[str] = None
  job_failures: List[str] = dataclasses.field(default_factory=list)
  interrupted: bool = False
  jobs: Dict[str, Any] = dataclasses.field(default_factory=dict)
  code: Dict[str, Any] = dataclasses.field(default_factory=dict)
  finished: str = ""

  @property
  def status(self) -> str:
    if self.interrupted:
      return INTERRUPTED
    if self.error is not None or self.job_failures:
      return "ERROR"
    passed = self.section.passed
    return "no checks" if passed is None else "PASS" if passed else "FAIL"

  def jobs_text(self) -> str:
    """e.g. "42 (40 reused)", or "-" without jobs."""
    total = self.jobs.get("total", 0)
    if not total:
      return "-"
    return f"{total} ({self.jobs.get('reused', 0)} reused)"

  def provenance_text(self) -> str:
    """Which code computed the section and its jobs, and when."""
    text = f"Computed {self.finished or 'at an unknown time'} by "
    text += provenance.describe_code(self.code) if self.code else "unrecorded code"
    total = self.jobs.get("total", 0)
    if total:
      reused = self.jobs.get("reused", 0)
      finished = self.jobs.get("reused_finished", [])
      text += f". Jobs: {total}, {reused} reused"
      if finished:
        first, last = min(finished), max(finished)
        text += f" (finished {first}" + ("" if first == last else f" to {last}") + ")"
      text += f", {self.jobs.get('computed', 0)} computed in this run"
      code = self.jobs.get("code", {})
      if len(code) > 1 or (code and next(iter(code)) != provenance.describe_code(self.code)):
        text += "; job results computed by " + "; ".join(f"{c} ({n})" for c, n in code.items())
    return text + "."


def save_section(folder: pathlib.Path, record: SectionRecord) -> pathlib.Path:
  """Writes ``record`` to ``folder/<experiment>/section.json`` atomically."""
  sub = pathlib.Path(folder) / record.experiment
  sub.mkdir(parents=True, exist_ok=True)
  path = sub / SECTION_NAME
  atomic_file.atomic_write_json(path, dataclasses.asdict(record))
  return path


def load_sections(folder: pathlib.Path, order: Sequence[str]) -> List[SectionRecord]:
  """The sections saved in ``folder``: those named in ``order`` first, in that order. A section
  file that cannot be read (e.g. from an older version) is skipped."""
  folder = pathlib.Path(folder)
  names = [p.parent.name for p in folder.glob(f"*/{SECTION_NAME}")]
  names.sort(key=lambda n: (order.index(n) if n in order else len(order), n))
  records = []
  for name in names:
    try:
      raw = json.loads((folder / name / SECTION_NAME).read_text(encoding="utf-8"))
      section = dict(raw.pop("section"))
      section["checks"] = [Check(**c) for c in section["checks"]]
      records.append(SectionRecord(section=ReportSection(**section), **raw))
    except (OSError, ValueError, KeyError, TypeError):
      continue
  return records


def _num(x: float) -> str:
  return "nan" if math.isnan(x) else f"{x:.6g}"


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
  """One row per experiment: what it solved, checks passed, worst distance/tolerance, jobs, time,
  status."""
  lines = ["| experiment | what was solved | checks passed | worst abs. difference / tolerance "
           "| jobs | time (s) | status |", "|---|---|---:|---:|---:|---:|---|"]
  for r in records:
    checks = r.section.checks
    passed = sum(c.passed for c in checks)
    worst = _num(max(_ratio(c) for c in checks)) if checks else "-"
    lines.append(f"| {r.experiment} | {r.section.title} | {passed}/{len(checks)} | {worst} | "
                 f"{r.jobs_text()} | {r.seconds:.1f} | {r.status} |")
  return "\n".join(lines)


def summary_line(record: SectionRecord, shown_failures: int = 3) -> str:
  """One line for an experiment: status, checks, jobs, time, and the first failures or errors."""
  checks = record.section.checks
  failed = [c for c in checks if not c.passed]
  line = (f"{record.experiment}: {record.status}, {len(checks) - len(failed)}/{len(checks)} "
          f"checks passed, jobs {record.jobs_text()}, {record.seconds:.1f} s")
  problems = ([record.error] if record.error else []) + record.job_failures + [
      f"failed: {c.name}" for c in failed]
  if problems:
    more = len(problems) - shown_failures
    line += "; " + "; ".join(problems[:shown_failures]) + (f"; +{more} more" if more > 0 else "")
  return line


def overall_status(records: Sequence[SectionRecord]) -> bool:
  """True when no experiment crashed, failed a job or a check, or was interrupted."""
  return all(r.status in ("PASS", "no checks") for r in records)


def _code_header(records: Sequence[SectionRecord]) -> str:
  """The header line naming the code that computed the sections below it."""
  codes = {provenance.describe_code(r.code) for r in records if r.code}
  if len(codes) == 1 and all(r.code for r in records):
    job_codes = {c for r in records for c in r.jobs.get("code", {})}
    if job_codes <= codes:
      return f"Every number below was computed by {codes.pop()}."
  return ("The sections below were computed by different code (or kept from earlier runs); "
          "each section names the code that computed it.")


def render_report(folder: pathlib.Path, order: Sequence[str],
                  manifest: Optional[Dict[str, Any]] = None) -> pathlib.Path:
  """Writes ``folder/report.md`` from every section saved in ``folder`` and returns its path.

  Args:
    folder: the results folder.
    order: experiment names in the order their sections should appear.
    manifest: the last invocation's manifest (command and times) for the header.
  """
  folder = pathlib.Path(folder)
  records = load_sections(folder, order)
  out = ["# Kuhn poker CFR experiments: report", ""]
  if manifest:
    out += [f"Last command: `{' '.join(manifest['command'])}`; started {manifest['start']}, "
            f"ended {manifest.get('end')}; details in `manifest.json`.", ""]
  out += [_code_header(records), ""]
  all_checks = [c for r in records for c in r.section.checks]
  failed = [c for r in records for c in r.section.checks if not c.passed]
  errors = [r for r in records if r.status in ("ERROR", INTERRUPTED)]
  verdict = "PASS" if overall_status(records) else "FAIL"
  out += ["## Summary", "",
          f"**{verdict}**: {len(all_checks) - len(failed)} of {len(all_checks)} reference checks "
          f"passed, {len(errors)} experiment(s) crashed, had failed jobs or were interrupted. A "
          "check passes when |value - reference| <= tolerance.", "", summary_table(records), ""]
  if failed:
    out += ["### Failed checks", "", checks_table(failed), ""]
  for r in errors:
    out += [f"- **{r.experiment}**: " + "; ".join(
        ([r.error] if r.error else []) + r.job_failures
        + (["interrupted; rerun the same command to resume"] if r.interrupted else []))]
  for r in records:
    s = r.section
    out += ["", f"## {s.title}", "", f"Experiment `{r.experiment}`, files in `{r.experiment}/`. "
            + r.provenance_text(), ""]
    if r.error is not None:
      out += [f"**Crashed**: {r.error}", ""]
    if r.job_failures:
      out += ["**Jobs that failed** (the others went on):", ""]
      out += [f"- {line}" for line in r.job_failures] + [""]
    if r.interrupted:
      out += ["**Interrupted** before it finished; the finished jobs are kept in "
              f"`{r.experiment}/jobs/`; rerun the same command to resume.", ""]
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
