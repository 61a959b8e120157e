"""The report of a results folder, rendered from the experiments' saved sections.

Every experiment run into a results folder ``DIR`` leaves its ``SectionRecord`` in
``DIR/<experiment>/section.json``: what it returned (``ReportSection``), its status, its time, its
budget (``--quick`` or not, and the options given), its jobs (reused and computed) and the code
that computed it. ``render_report`` collects all of them into ``DIR/report.md``: the code that
computed the numbers (one line if every section agrees, else a note that sections differ and a
line in each), a table of contents, a summary (checks passed, whether the sections' budgets
differ, and a table of what was solved, checks passed, the worst distance to a reference relative
to its tolerance, budget, jobs, time, status), the failed checks and errors, then each section
with its provenance, budget, text, figures, tables and checks. A section stays short: its text
keeps its first (key) table, while a later long table moves with its caption to
``<experiment>/report_tables.md`` (``split_tables``); a long list of checks is summarised by
reference source with its failed checks in full, every row going to ``<experiment>/checks.md``
(``write_checks``); every check of a section is in ``<experiment>/checks.csv``, linked. Running
one experiment again into the same folder replaces its section only.

A ``section.json`` that cannot be read (damaged, or written by an incompatible version) is never
dropped: ``load_sections`` returns it as an ``UNREADABLE`` record, which the report shows in the
summary and in a section of its own, and which makes the run fail.
"""

import dataclasses
import json
import math
import pathlib
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pandas as pd

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
# A section with more checks than this shows a table per reference source and its failed checks;
# every row is in CHECKS_MD and CHECKS_CSV of its folder, linked.
INLINE_CHECKS_UP_TO = 12
CHECKS_CSV = "checks.csv"
CHECKS_MD = "checks.md"
# A section's first markdown table (its key table) stays in the report; a later one of more rows
# than this moves, with its caption, to MOVED_TABLES_MD of its folder, linked.
INLINE_TABLE_ROWS = 12
MOVED_TABLES_MD = "report_tables.md"
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
    interrupted: the run was stopped (Ctrl-C, a signal, the deadline) before the experiment
      finished.
    jobs: the sweep counts (``context.SweepStats`` as a dict; empty without jobs).
    code: the code that computed the section (``provenance.code_stamp()``).
    finished: when the section was saved (ISO 8601).
    budget: the budget it ran at: {"quick": bool, "options": [the options given explicitly,
      as command-line text]}; empty in sections saved before budgets were recorded.
    missing: one line per optional dependency that was not installed, with what it left out
      and how to install it (``section.OptionalDependency.missing_text``).
    allow_no_checks: the run accepted a section without checks (``--allow-no-checks``).
    stopped: what stopped it, if ``interrupted`` (``stopping.reason``: "interrupted", "terminated
      by SIGTERM", "stopped at the --max-minutes 1 deadline"); "" in sections saved before it
      was recorded.
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
  stopped: str = ""
  unreadable: Optional[str] = None

  @property
  def stop_text(self) -> str:
    """What stopped the experiment ("interrupted" if not recorded)."""
    return self.stopped or "interrupted"

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
  """``_worst_ratio`` of each group of checks in one format (``tables.column_format``), "-" for
  none."""
  ratios = [_worst_ratio(g) for g in groups]
  fmt = tables.column_format([r for r in ratios if r is not None])
  return ["-" if r is None else fmt(r) for r in ratios]


def _result(check: Check) -> str:
  text = "pass" if check.passed else "**FAIL**"
  return text + " (holds by construction)" if check.by_construction else text


def checks_frame(checks: Sequence[Check]) -> pd.DataFrame:
  """One row per check, the numbers as they are: what ``CHECKS_CSV`` holds."""
  return pd.DataFrame({
      "check": [c.name for c in checks], "value": [c.value for c in checks],
      "reference": [c.reference for c in checks],
      "abs. difference": [abs(c.value - c.reference) for c in checks],
      "tolerance": [c.tolerance for c in checks], "reference source": [c.source for c in checks],
      "by construction": [c.by_construction for c in checks],
      "passed": [c.passed for c in checks]})


_NUMBERS = ("value", "reference", "abs. difference", "tolerance")


def checks_table(checks: Sequence[Check]) -> str:
  """A markdown table of checks: value, reference, distance, tolerance, source, result; each
  number column in one format (``tables.column_format``)."""
  frame = checks_frame(checks)
  for column in _NUMBERS:
    frame[column] = frame[column].map(tables.column_format(frame[column]))
  frame["result"] = [_result(c) for c in checks]
  return tables.markdown_table(frame.drop(columns=["by construction", "passed"]), right=_NUMBERS)


def sources_table(checks: Sequence[Check]) -> str:
  """A markdown table of checks grouped by reference source: how many, how many passed, the
  worst distance relative to the tolerance (checks that hold by construction apart)."""
  groups: Dict[tuple, List[Check]] = {}
  for c in checks:
    groups.setdefault((c.source, c.by_construction), []).append(c)
  worst = _worst_column([[] if built else found for (_, built), found in groups.items()])
  frame = pd.DataFrame({
      "reference source": [source for source, _ in groups],
      "checks": [len(found) for found in groups.values()],
      "passed": [sum(c.passed for c in found) for found in groups.values()],
      _WORST: ["holds by construction" if built else ratio
               for ((_, built), ratio) in zip(groups, worst)]})
  return tables.markdown_table(frame, right=[_WORST])


def _hold(built: Sequence[Check]) -> str:
  return "holds" if len(built) == 1 else "hold"


def checks_block(checks: Sequence[Check], experiment: str) -> List[str]:
  """A section's checks for the report: ``checks_sentence``; all rows when they are few, else a
  table per reference source and the failed checks in full; a link to every row
  (``write_checks``)."""
  failed = [c for c in checks if not c.passed]
  lines = ["### Checks", "", checks_sentence(checks)]
  csv = f"[`{experiment}/{CHECKS_CSV}`]({experiment}/{CHECKS_CSV})"
  if len(checks) <= INLINE_CHECKS_UP_TO:
    return lines + ["", checks_table(checks), "", f"The same rows as CSV: {csv}."]
  lines += ["", sources_table(checks)]
  if failed:
    lines += ["", f"Failed checks ({len(failed):,}):", "", checks_table(failed)]
  return lines + ["", f"All {len(checks):,} checks, one per row: "
                  f"[`{experiment}/{CHECKS_MD}`]({experiment}/{CHECKS_MD}) (CSV: {csv})."]


def checks_sentence(checks: Sequence[Check]) -> str:
  """How many checks passed, the worst distance to a reference, and how many hold by
  construction."""
  failed = [c for c in checks if not c.passed]
  built = [c for c in checks if c.by_construction]
  text = f"{len(checks) - len(failed):,} of {len(checks):,} checks passed"
  if len(built) < len(checks):
    text += f"; worst abs. difference / tolerance {_worst(checks)} (a check passes at 1 or less)"
  if built:
    text += (f". {len(built)} of them {_hold(built)} by construction (identities or bounds of "
             "the method, a guard against bugs rather than a comparison with an independent "
             f"reference) and {'is' if len(built) == 1 else 'are'} left out of the worst distance")
  return text + "."


def write_checks(folder: pathlib.Path, record: SectionRecord) -> None:
  """Writes every check of ``record`` to ``folder/<experiment>/CHECKS_CSV`` (the numbers as they
  are) and, when the report does not show them all (more than ``INLINE_CHECKS_UP_TO``), to
  ``CHECKS_MD`` (the report's table), atomically; removes a file it does not write."""
  sub = pathlib.Path(folder) / record.experiment
  checks = record.section.checks
  if checks:
    sub.mkdir(parents=True, exist_ok=True)
    tables.write_csv(checks_frame(checks), sub / CHECKS_CSV)
  else:
    (sub / CHECKS_CSV).unlink(missing_ok=True)
  if len(checks) > INLINE_CHECKS_UP_TO:
    atomic_file.atomic_write_text(sub / CHECKS_MD, "\n".join(
        [f"# {record.section.title}: every check", "", checks_sentence(checks), "",
         checks_table(checks)]) + "\n")
  else:
    (sub / CHECKS_MD).unlink(missing_ok=True)


def _blocks(markdown: str) -> List[List[str]]:
  """``markdown``'s paragraphs: runs of lines between blank lines (a fenced code block whole)."""
  blocks: List[List[str]] = [[]]
  fenced = False
  for line in markdown.strip().splitlines():
    if line.startswith("```"):
      fenced = not fenced
    if not line.strip() and not fenced:
      blocks.append([])
    else:
      blocks[-1].append(line)
  return [b for b in blocks if b]


def _is_table(block: Sequence[str]) -> bool:
  return len(block) >= 2 and all(line.startswith("|") for line in block)


def split_tables(markdown: str, experiment: str) -> Tuple[str, str]:
  """``markdown`` for the report and the tables moved out of it (for ``MOVED_TABLES_MD``).

  The first table stays; a later one of more than ``INLINE_TABLE_ROWS`` rows moves with its
  caption (the paragraph before it) and its footnote (a paragraph after it on missing numbers,
  ``tables.markdown_table``'s), and a line linking to it takes its place.
  """
  blocks = _blocks(markdown)
  kept: List[List[str]] = []
  moved: List[str] = []
  seen_table = False
  i = 0
  while i < len(blocks):
    block = blocks[i]
    if not _is_table(block):
      kept.append(block)
      i += 1
      continue
    rows = len(block) - 2
    if not seen_table or rows <= INLINE_TABLE_ROWS:
      seen_table = True
      kept.append(block)
      i += 1
      continue
    number = sum(line.startswith('<a id="table-') for line in moved) + 1
    caption = kept.pop() if kept and not _is_table(kept[-1]) else []
    footnote = blocks[i + 1] if i + 1 < len(blocks) and blocks[i + 1][0].startswith(
        tables.MISSING) else []
    moved += [f'<a id="table-{number}"></a>', "", *caption, *([""] if caption else []), *block,
              *([""] if footnote else []), *footnote, ""]
    where = f"{experiment}/{MOVED_TABLES_MD}"
    kept.append(caption + [""] * bool(caption) + [
        f"The table ({rows:,} rows): [`{where}`, table {number}]({where}#table-{number})."])
    i += 2 if footnote else 1
  return "\n\n".join("\n".join(b) for b in kept), "\n".join(moved).rstrip()


def _write_moved(folder: pathlib.Path, record: SectionRecord, moved: str) -> None:
  """Writes the tables ``split_tables`` moved out of the record's section to
  ``folder/<experiment>/MOVED_TABLES_MD`` atomically; removes that file when none moved."""
  path = pathlib.Path(folder) / record.experiment / MOVED_TABLES_MD
  if not moved:
    path.unlink(missing_ok=True)
    return
  atomic_file.atomic_write_text(path, f"# {record.section.title}: long tables\n\n{moved}\n")


def summary_table(records: Sequence[SectionRecord]) -> str:
  """One row per experiment: what it solved, checks passed, worst distance/tolerance (checks that
  hold by construction left out), budget, jobs, time, status."""
  frame = pd.DataFrame({
      "experiment": [r.experiment for r in records],
      "what was solved": [r.section.title for r in records],
      "checks passed": [f"{sum(c.passed for c in r.section.checks):,}/{len(r.section.checks):,}"
                        for r in records],
      _WORST: _worst_column([r.section.checks for r in records]),
      "budget": [r.budget_text() for r in records], "jobs": [r.jobs_text() for r in records],
      "time (s)": ["-" if r.unreadable is not None else f"{r.seconds:,.1f}" for r in records],
      "status": [r.status for r in records]})
  return tables.markdown_table(frame, right=["checks passed", _WORST, "jobs", "time (s)"])


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
          [f"{record.stop_text} before it finished; rerun the same command to resume"]
          if record.interrupted else []
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
    if manifest.get("stopped"):
      out += [f"**The last command was {manifest['stopped']}**"
              + (": not run, " + ", ".join(f"`{n}`" for n in manifest["not_run"])
                 if manifest.get("not_run") else "")
              + "; rerun the same command to resume.", ""]
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
    out += ["### Failed checks", ""]
    if len(failed) <= INLINE_CHECKS_UP_TO:
      out += [checks_table(failed), ""]
    else:  # Each section lists its own in full.
      out += [f"{len(failed):,} failed checks, listed in full in their sections: " + ", ".join(
          f"[{r.experiment}](#{anchor(r)}) ({n:,})" for r in records
          if (n := sum(not c.passed for c in r.section.checks))) + ".", ""]
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
      out += [f"**{r.stop_text[0].upper() + r.stop_text[1:]}** before it finished; the "
              f"finished results are kept in `{r.experiment}/jobs/`; rerun the same command to "
              "resume.", ""]
    if s.markdown:
      markdown, moved = split_tables(s.markdown, r.experiment)
      out += [markdown, ""]
    _write_moved(folder, r, moved if s.markdown else "")
    for fig in s.figures:
      out += [f"![{fig}]({r.experiment}/{fig})", ""]
    if s.tables:
      out += ["Tables: " + ", ".join(f"[{t}]({r.experiment}/{t})" for t in s.tables), ""]
    write_checks(folder, r)
    if s.checks:
      out += checks_block(s.checks, r.experiment) + [""]
  path = folder / REPORT_NAME
  atomic_file.atomic_write_text(path, "\n".join(out).rstrip() + "\n")
  return path
