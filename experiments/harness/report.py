"""The report of a results folder, rendered from the experiments' saved sections.

Every experiment run into a results folder ``DIR`` leaves its ``SectionRecord`` in
``DIR/<experiment>/section.json``: what it returned (``ReportSection``), its status, its time, its
budget (``--quick`` or not, and the options given), its jobs (reused and computed) and the code
that computed it. ``render_report`` collects all of them into ``DIR/report.md``: the code that
computed the numbers (one line if every section agrees, else a note that sections differ and a
line in each), a table of contents, a summary (checks passed, whether the sections' budgets
differ, and a table of what was solved, checks passed, the worst distance to a reference relative
to its tolerance, budget, jobs, time, status), the failed checks and errors, then each section
with its provenance, budget, text, figures, tables and checks (a long list of checks is
summarised by reference source and folded). Running one experiment again into the same folder
replaces its section only.

A ``section.json`` that cannot be read (damaged, or written by an incompatible version) is never
dropped: ``load_sections`` returns it as an ``UNREADABLE`` record, which the report shows in the
summary and in a section of its own, and which makes the run fail.
"""

import dataclasses
import json
import math
import pathlib
from typing import Any, Callable, Dict, List, Optional, Sequence

from experiments.harness import provenance
from experiments.harness import tables
from experiments.harness.checks import Check
from experiments.harness.section import ReportSection
from spiel_games import atomic_file

REPORT_NAME = "report.md"
SECTION_NAME = "section.json"
INTERRUPTED = "INTERRUPTED"
UNREADABLE = "UNREADABLE"
# A section that made no check: not a pass unless the run asked for none (``--allow-no-checks``).
NO_CHECKS = "NO CHECKS"
NO_CHECKS_ALLOWED = "no checks (allowed)"
# A section with more checks than this shows a table per reference source and folds the rows.
FOLD_CHECKS_ABOVE = 12
_WORST = "worst abs. difference / tolerance"


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
    budget: the budget it ran at: {"quick": bool, "options": [the options given explicitly,
      as command-line text]}; empty in sections saved before budgets were recorded.
    missing: one line per optional dependency that was not installed, with what it left out
      and how to install it (``section.OptionalDependency.missing_text``).
    allow_no_checks: the run accepted a section without checks (``--allow-no-checks``).
    unreadable: why its ``section.json`` could not be read (set by ``load_sections`` only; the
      other fields are then empty).
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
  budget: Dict[str, Any] = dataclasses.field(default_factory=dict)
  missing: List[str] = dataclasses.field(default_factory=list)
  allow_no_checks: bool = False
  unreadable: Optional[str] = None

  @property
  def status(self) -> str:
    if self.unreadable is not None:
      return UNREADABLE
    if self.interrupted:
      return INTERRUPTED
    if self.error is not None or self.job_failures:
      return "ERROR"
    passed = self.section.passed
    if passed is None:
      return NO_CHECKS_ALLOWED if self.allow_no_checks else NO_CHECKS
    return "PASS" if passed else "FAIL"

  def jobs_text(self) -> str:
    """e.g. "42 (40 reused)", or "-" without jobs."""
    total = self.jobs.get("total", 0)
    if not total:
      return "-"
    return f"{total:,} ({self.jobs.get('reused', 0):,} reused)"

  def budget_text(self) -> str:
    """``describe_budget`` of the record's budget ("-" if unreadable)."""
    return "-" if self.unreadable is not None else describe_budget(self.budget)

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


def describe_budget(budget: Dict[str, Any], code: bool = True) -> str:
  """e.g. "quick (`--quick`)", "default, with `--iterations 3000`", or "not recorded" (for a
  section saved before budgets were recorded); without backticks unless ``code``."""
  if not budget:
    return "not recorded"
  tick = "`" if code else ""
  text = f"quick ({tick}--quick{tick})" if budget.get("quick") else "default"
  options = budget.get("options") or []
  return text + (f", with {tick}" + " ".join(options) + tick if options else "")


def save_section(folder: pathlib.Path, record: SectionRecord) -> pathlib.Path:
  """Writes ``record`` to ``folder/<experiment>/section.json`` atomically."""
  sub = pathlib.Path(folder) / record.experiment
  sub.mkdir(parents=True, exist_ok=True)
  path = sub / SECTION_NAME
  saved = dataclasses.asdict(record)
  saved.pop("unreadable")  # Said of a file when it is read, never saved in it.
  atomic_file.atomic_write_json(path, saved)
  return path


def read_section(path: pathlib.Path) -> SectionRecord:
  """The record saved at ``path`` (``folder/<experiment>/section.json``).

  Raises:
    OSError, ValueError, KeyError, TypeError, AttributeError: the file cannot be read, is not
      JSON, or does not hold a section of this version for the experiment of its folder.
  """
  raw = json.loads(path.read_text(encoding="utf-8"))
  if not isinstance(raw, dict):
    raise TypeError(f"expected a JSON object, found {type(raw).__name__}")
  section = dict(raw.pop("section"))
  section["checks"] = [Check(**c) for c in section["checks"]]
  record = SectionRecord(section=ReportSection(**section), **raw)
  if record.experiment != path.parent.name:
    raise ValueError(f"it holds the section of {record.experiment!r}")
  return record


def unreadable_record(name: str, error: BaseException) -> SectionRecord:
  """The record standing for ``name``'s section file that could not be read."""
  lines = str(error).strip().splitlines()
  why = f"{type(error).__name__}" + (f": {lines[0]}" if lines else "")
  return SectionRecord(name, ReportSection(title=f"{name}: section file cannot be read"), 0.0,
                       unreadable=f"{name}/{SECTION_NAME} cannot be read ({why})")


def load_sections(folder: pathlib.Path, order: Sequence[str]) -> List[SectionRecord]:
  """The sections saved in ``folder``: those named in ``order`` first, in that order. A section
  file that cannot be read is returned as an ``UNREADABLE`` record (``unreadable_record``)."""
  folder = pathlib.Path(folder)
  names = [p.parent.name for p in folder.glob(f"*/{SECTION_NAME}")
           if not p.parent.name.startswith(".")]
  names.sort(key=lambda n: (order.index(n) if n in order else len(order), n))
  records = []
  for name in names:
    try:
      records.append(read_section(folder / name / SECTION_NAME))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
      records.append(unreadable_record(name, e))
  return records


def unreadable_advice(record: SectionRecord) -> str:
  """What an unreadable section means and how to replace it."""
  return (f"{record.unreadable}; its results (files in `{record.experiment}/`) are not in this "
          f"report; run the experiment `{record.experiment}` into this folder again to replace it")


def _num(x: float) -> str:
  return "not a number" if math.isnan(x) else f"{x:.6g}"


def column_format(values: Sequence[float]) -> Callable[[float], str]:
  """One number format for a column of the report: whole numbers with thousands separators;
  else, when every nonzero magnitude lies in [1e-4, 1e6), fixed point with the decimals that show
  the smallest to four significant digits (at most eight; thousands separators); else scientific
  with four significant digits. NaN shows as "not a number" in any."""
  finite = [abs(v) for v in values if math.isfinite(v)]
  if all(v == int(v) for v in finite):
    fmt = "{:,.0f}"
  elif all(1e-4 <= v < 1e6 for v in finite if v):
    decimals = min(8, max(3 - math.floor(math.log10(v)) for v in finite if v))
    fmt = f"{{:,.{decimals}f}}"
  else:
    fmt = "{:.3e}"
  return lambda x: "not a number" if math.isnan(x) else str(x) if math.isinf(x) else fmt.format(x)


def _ratio(check: Check) -> float:
  """|value - reference| / tolerance (0/0 counts as 0)."""
  diff = abs(check.value - check.reference)
  if check.tolerance == 0:
    return 0.0 if diff == 0 else math.inf
  return diff / check.tolerance


def _worst_ratio(checks: Sequence[Check]) -> Optional[float]:
  """The largest ``_ratio`` of the checks against a reference (those that hold by construction
  left out), or None."""
  compared = [c for c in checks if not c.by_construction]
  return max(_ratio(c) for c in compared) if compared else None


def _worst(checks: Sequence[Check]) -> str:
  """``_worst_ratio`` for a sentence, or "-"."""
  worst = _worst_ratio(checks)
  return "-" if worst is None else _num(worst)


def _worst_column(groups: Sequence[Sequence[Check]]) -> List[str]:
  """``_worst_ratio`` of each group of checks in one format (``column_format``), "-" for none."""
  ratios = [_worst_ratio(g) for g in groups]
  fmt = column_format([r for r in ratios if r is not None])
  return ["-" if r is None else fmt(r) for r in ratios]


def _result(check: Check) -> str:
  text = "pass" if check.passed else "**FAIL**"
  return text + " (holds by construction)" if check.by_construction else text


def checks_table(checks: Sequence[Check]) -> str:
  """A markdown table of checks: value, reference, distance, tolerance, source, result."""
  lines = ["| check | value | reference | abs. difference | tolerance | reference source "
           "| result |",
           "|---|---:|---:|---:|---:|---|---|"]
  columns = [[c.value for c in checks], [c.reference for c in checks],
             [abs(c.value - c.reference) for c in checks], [c.tolerance for c in checks]]
  value, reference, difference, tolerance = (column_format(v) for v in columns)
  for c in checks:
    lines.append(f"| {tables.escape(c.name)} | {value(c.value)} | {reference(c.reference)} | "
                 f"{difference(abs(c.value - c.reference))} | {tolerance(c.tolerance)} | "
                 f"{tables.escape(c.source)} | {_result(c)} |")
  return "\n".join(lines)


def sources_table(checks: Sequence[Check]) -> str:
  """A markdown table of checks grouped by reference source: how many, how many passed, the
  worst distance relative to the tolerance (checks that hold by construction apart)."""
  groups: Dict[tuple, List[Check]] = {}
  for c in checks:
    groups.setdefault((c.source, c.by_construction), []).append(c)
  lines = [f"| reference source | checks | passed | {_WORST} |", "|---|---:|---:|---:|"]
  worst = _worst_column([[] if built else found for (_, built), found in groups.items()])
  for ((source, built), found), ratio in zip(groups.items(), worst):
    lines.append(f"| {tables.escape(source)} | {len(found):,} | {sum(c.passed for c in found):,} "
                 f"| {'holds by construction' if built else ratio} |")
  return "\n".join(lines)


def _hold(built: Sequence[Check]) -> str:
  return "holds" if len(built) == 1 else "hold"


def checks_block(checks: Sequence[Check]) -> List[str]:
  """A section's checks for the report: a sentence; all rows when they are few, else a table per
  reference source, the failed checks, and every row folded (``<details>``)."""
  failed = [c for c in checks if not c.passed]
  built = [c for c in checks if c.by_construction]
  text = f"{len(checks) - len(failed):,} of {len(checks):,} checks passed"
  if len(built) < len(checks):
    text += f"; worst abs. difference / tolerance {_worst(checks)} (a check passes at 1 or less)"
  if built:
    text += (f". {len(built)} of them {_hold(built)} by construction (identities or bounds of "
             "the method, a guard against bugs rather than a comparison with an independent "
             f"reference) and {'is' if len(built) == 1 else 'are'} left out of the worst distance")
  lines = ["### Checks", "", text + "."]
  if len(checks) <= FOLD_CHECKS_ABOVE:
    return lines + ["", checks_table(checks)]
  lines += ["", sources_table(checks)]
  if failed:
    lines += ["", "Failed checks:", "", checks_table(failed)]
  return lines + [""] + _folded(f"All {len(checks):,} checks, one per row", checks_table(checks))


def _folded(summary: str, table: str, fold: bool = True) -> List[str]:
  """``table`` in a ``<details>`` block titled ``summary`` (or as it is, without ``fold``)."""
  if not fold:
    return [table]
  return [f"<details><summary>{summary}</summary>", "", table, "", "</details>"]


def summary_table(records: Sequence[SectionRecord]) -> str:
  """One row per experiment: what it solved, checks passed, worst distance/tolerance (checks that
  hold by construction left out), budget, jobs, time, status."""
  lines = [f"| experiment | what was solved | checks passed | {_WORST} | budget | jobs "
           "| time (s) | status |", "|---|---|---:|---:|---|---:|---:|---|"]
  worst = _worst_column([r.section.checks for r in records])
  for r, ratio in zip(records, worst):
    checks = r.section.checks
    passed = sum(c.passed for c in checks)
    seconds = "-" if r.unreadable is not None else f"{r.seconds:,.1f}"
    lines.append(f"| {r.experiment} | {tables.escape(r.section.title)} | "
                 f"{passed:,}/{len(checks):,} | {ratio} | {r.budget_text()} | {r.jobs_text()} | "
                 f"{seconds} | {r.status} |")
  return "\n".join(lines)


def outcome_text(record: SectionRecord, shown_failures: int = 3) -> str:
  """An experiment's outcome in one line: status, checks, jobs, time, and the first failures or
  errors."""
  checks = record.section.checks
  failed = [c for c in checks if not c.passed]
  line = (f"{record.status}, {len(checks) - len(failed)}/{len(checks)} checks passed, jobs "
          f"{record.jobs_text()}, {record.seconds:.1f} s")
  problems = ([record.unreadable] if record.unreadable else []) + (
      [record.error] if record.error else []) + record.job_failures + [
          f"failed: {c.name}" for c in failed] + left_out(record)
  if problems:
    more = len(problems) - shown_failures
    line += "; " + "; ".join(problems[:shown_failures]) + (f"; +{more} more" if more > 0 else "")
  return line


def summary_line(record: SectionRecord, shown_failures: int = 3) -> str:
  """One line for an experiment: its name and ``outcome_text``."""
  return f"{record.experiment}: {outcome_text(record, shown_failures)}"


def overall_status(records: Sequence[SectionRecord]) -> bool:
  """True when no experiment crashed, failed a job or a check, was interrupted or made no check
  (unless the run allowed that), and every section could be read."""
  return all(r.status in ("PASS", NO_CHECKS_ALLOWED) for r in records)


def verdict_of(records: Sequence[SectionRecord]) -> str:
  """PASS (``overall_status``); NO CHECKS when the only fault is sections without checks; else
  FAIL."""
  if overall_status(records):
    return "PASS"
  return NO_CHECKS if all(r.status in ("PASS", NO_CHECKS, NO_CHECKS_ALLOWED)
                          for r in records) else "FAIL"


def budget_note(records: Sequence[SectionRecord]) -> str:
  """A sentence on the sections' budgets: the one they share, or which ran at which."""
  budgets: Dict[str, List[str]] = {}
  for r in records:
    if r.unreadable is None:
      budgets.setdefault(r.budget_text(), []).append(r.experiment)
  if not budgets:
    return ""
  if len(budgets) == 1:
    return f"Every section ran at the same budget: {next(iter(budgets))}."
  return ("**The sections ran at different budgets**, so their numbers are not like for like "
          "(iterations, seeds, games): " + "; ".join(
              f"{text}: {', '.join(names)}" for text, names in budgets.items())
          + ". Run them again with the same options to compare them.")


def _code_header(records: Sequence[SectionRecord]) -> str:
  """The header line naming the code that computed the sections below it."""
  records = [r for r in records if r.unreadable is None]
  codes = {provenance.describe_code(r.code) for r in records if r.code}
  if len(codes) == 1 and all(r.code for r in records):
    job_codes = {c for r in records for c in r.jobs.get("code", {})}
    if job_codes <= codes:
      return f"Every number below was computed by {codes.pop()}."
  return ("The sections below were computed by different code (or kept from earlier runs); "
          "each section names the code that computed it.")


def anchor(record: SectionRecord) -> str:
  """The id of the anchor before the record's heading (the experiment's name)."""
  return record.experiment


NO_CHECKS_ADVICE = ("made no reference check, so nothing it printed was compared with a "
                    "reference (a game or solver outside every check?); --allow-no-checks accepts "
                    "that")


def left_out(record: SectionRecord) -> List[str]:
  """What the record lacks: no checks at all, and the optional dependencies that were missing."""
  return ([NO_CHECKS_ADVICE] if record.status == NO_CHECKS else []) + record.missing


def _problems(record: SectionRecord) -> List[str]:
  return ([unreadable_advice(record)] if record.unreadable else []) + (
      [record.error] if record.error else []) + record.job_failures + (
          ["interrupted; rerun the same command to resume"] if record.interrupted else []
      ) + left_out(record)


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
  built = [c for c in all_checks if c.by_construction]
  failed = [c for c in all_checks if not c.passed]
  errors = [r for r in records if r.status in ("ERROR", INTERRUPTED, UNREADABLE)]
  unchecked = [r for r in records if r.status == NO_CHECKS]
  verdict = verdict_of(records)
  out += ["## Summary", "",
          f"**{verdict}**: {len(all_checks) - len(failed):,} of {len(all_checks):,} checks passed, "
          f"{len(errors)} experiment(s) crashed, had failed jobs, were interrupted or could not "
          f"be read, {len(unchecked)} made no check. A check passes when |value - reference| <= "
          "tolerance"
          + (f"; {len(built)} of the checks {_hold(built)} by construction (identities or "
             "bounds of the method, guards against bugs) and "
             f"{'is' if len(built) == 1 else 'are'} left out of the worst distance below"
             if built else "") + ".", ""]
  note = budget_note(records)
  out += [note, ""] if note else []
  out += [summary_table(records), ""]
  if failed:
    out += ["### Failed checks", ""] + _folded(
        f"{len(failed):,} failed checks", checks_table(failed), len(failed) > FOLD_CHECKS_ABOVE)
    out += [""]
  for r in records:
    if _problems(r):
      out += [f"- **{r.experiment}**: " + "; ".join(_problems(r))]
  out += ["", "## Contents", ""] + [
      f"- [{r.section.title}](#{anchor(r)}): {r.status}" + (
          "" if r.unreadable is not None else
          f", {sum(c.passed for c in r.section.checks):,}/{len(r.section.checks):,} checks passed")
      for r in records] + [""]
  for r in records:
    s = r.section
    out += ["", f'<a id="{anchor(r)}"></a>', "", f"## {s.title}", ""]
    if r.unreadable is not None:
      out += [f"**Section file unreadable**: {unreadable_advice(r)}.", ""]
      continue
    out += [f"Experiment `{r.experiment}`, files in `{r.experiment}/`. Budget: "
            f"{r.budget_text()}. " + r.provenance_text(), ""]
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
      out += checks_block(s.checks) + [""]
  path = folder / REPORT_NAME
  atomic_file.atomic_write_text(path, "\n".join(out).rstrip() + "\n")
  return path
