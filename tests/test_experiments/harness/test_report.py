"""Tests of the report (experiments.harness.report): it never claims a commit that did not compute
the numbers below it, it says per experiment how many jobs were reused and from when, it never
drops a section it cannot read, it keeps a section short (long lists of checks and later long
tables in files of its folder, linked); and of the markdown tables (experiments.harness.tables),
which never show a raw nan and show each number column in one format."""

import math
import re

import numpy as np
import pandas as pd

from experiments.harness import checks
from experiments.harness import report
from experiments.harness import tables
from experiments.harness.checks import Check
from experiments.harness.section import ReportSection
import helpers

CODE_A = {"fingerprint": "aaaa", "commit": "1" * 40, "dirty": False}
CODE_B = {"fingerprint": "bbbb", "commit": "2" * 40, "dirty": True}
A, B = "commit 111111111111, code fingerprint aaaa", ("commit 222222222222 (with local changes), "
                                                     "code fingerprint bbbb")


def _record(name, code, jobs=None, passed=True):
  check = Check("c", 1.0, 1.0 if passed else 2.0, 0.0, "exact")
  return report.SectionRecord(name, ReportSection(title=name, checks=[check]), 1.0,
                              jobs=jobs or {}, code=code, finished="2026-01-02T03:04:05+00:00")


def _header(folder):
  return (folder / report.REPORT_NAME).read_text().splitlines()[2]


def test_one_code_is_named_in_the_header(tmp_path):
  report.save_section(tmp_path, _record("x", CODE_A))
  report.save_section(tmp_path, _record("y", CODE_A, {"total": 2, "reused": 0, "computed": 2,
                                                      "code": {A: 2}}))
  report.render_report(tmp_path, ["x", "y"])
  assert _header(tmp_path) == f"Every number below was computed by {A}."


def test_sections_of_different_code_are_named_each(tmp_path):
  report.save_section(tmp_path, _record("x", CODE_A))
  report.save_section(tmp_path, _record("y", CODE_B))
  report.render_report(tmp_path, ["x", "y"])
  text = (tmp_path / report.REPORT_NAME).read_text()
  assert _header(tmp_path).startswith("The sections below were computed by different code")
  assert "1111" not in _header(tmp_path) and "2222" not in _header(tmp_path)
  assert f"Computed 2026-01-02T03:04:05+00:00 by {A}." in text
  assert f"Computed 2026-01-02T03:04:05+00:00 by {B}." in text


def test_reused_jobs_of_another_commit_are_named_with_their_times(tmp_path):
  # Same fingerprint (the same code), but the reused jobs were computed at an earlier commit.
  earlier = "commit 000000000000, code fingerprint aaaa"
  jobs = {"total": 3, "reused": 2, "computed": 1, "failed": 0,
          "reused_finished": ["2026-01-01T00:00:00+00:00", "2026-01-01T00:05:00+00:00"],
          "code": {earlier: 2, A: 1}}
  record = _record("x", CODE_A, jobs)
  report.save_section(tmp_path, record)
  report.render_report(tmp_path, ["x"])
  assert _header(tmp_path).startswith("The sections below were computed by different code")
  assert record.provenance_text() == (
      f"Computed 2026-01-02T03:04:05+00:00 by {A}. Jobs: 3, 2 reused (finished "
      "2026-01-01T00:00:00+00:00 to 2026-01-01T00:05:00+00:00), 1 computed in this run; job "
      f"results computed by {earlier} (2); {A} (1).")
  assert record.jobs_text() == "3 (2 reused)"
  assert "| x | x | 1/1 | 0 | not recorded | 3 (2 reused) | 1.0 | PASS |" in helpers.compact_tables(
      (tmp_path / report.REPORT_NAME).read_text())


def test_summary_line_names_the_first_failures():
  record = _record("x", CODE_A, passed=False)
  assert report.summary_line(record) == (
      "x: FAIL, 0/1 checks passed, jobs -, 1.0 s; failed: c")
  record.job_failures = ["j1", "j2", "j3"]
  assert report.summary_line(record).endswith("; j1; j2; j3; +1 more")
  assert record.status == "ERROR"


def test_an_unreadable_section_is_a_record_not_a_gap(tmp_path):
  report.save_section(tmp_path, _record("x", CODE_A))
  report.save_section(tmp_path, _record("y", CODE_A))
  (tmp_path / "x" / report.SECTION_NAME).write_text("{broken")
  (tmp_path / "z").mkdir()
  (tmp_path / "z" / report.SECTION_NAME).write_text("[1, 2]")
  records = report.load_sections(tmp_path, ["x", "y", "z"])
  assert [(r.experiment, r.status) for r in records] == [
      ("x", report.UNREADABLE), ("y", "PASS"), ("z", report.UNREADABLE)]
  assert records[0].unreadable.startswith("x/section.json cannot be read (JSONDecodeError: ")
  assert records[2].unreadable == ("z/section.json cannot be read (TypeError: expected a JSON "
                                   "object, found list)")
  assert not report.overall_status(records)
  report.render_report(tmp_path, ["x", "y", "z"])
  text = (tmp_path / report.REPORT_NAME).read_text()
  assert "**FAIL**" in text and "- [x: section file cannot be read](#x): UNREADABLE" in text
  assert ("## x: section file cannot be read\n\n**Section file unreadable**: "
          f"{records[0].unreadable}") in text
  # A section copied into another experiment's folder would link to the wrong files.
  (tmp_path / "w").mkdir()
  (tmp_path / "y" / report.SECTION_NAME).rename(tmp_path / "w" / report.SECTION_NAME)
  assert report.load_sections(tmp_path, [])[0].unreadable == (
      "w/section.json cannot be read (ValueError: it holds the section of 'y')")


def _check(i, source="exact", passed=True, by_construction=False):
  return checks.Check(f"c{i}", 1.0, 1.0 + i / 100 if passed else 5.0, 0.5, source,
                      by_construction)


def test_long_check_lists_are_summarised_by_source_and_written_to_files(tmp_path):
  few = [_check(i) for i in range(report.INLINE_CHECKS_UP_TO)]
  text = helpers.compact_tables("\n".join(report.checks_block(few, "x")))
  assert len(re.findall(r"\n\| c\d+ ", text)) == len(few)  # Inline, one row each.
  assert text.endswith("The same rows as CSV: [`x/checks.csv`](x/checks.csv).")
  many = ([_check(i) for i in range(20)] + [_check(20, "LP", passed=False)]
          + [_check(21, "a bound", by_construction=True)])
  lines = report.checks_block(many, "x")
  text = helpers.compact_tables("\n".join(lines))
  assert lines[2] == ("21 of 22 checks passed; worst abs. difference / tolerance 8 (a check "
                      "passes at 1 or less). 1 of them holds by construction (identities or "
                      "bounds of the method, a guard against bugs rather than a comparison with "
                      "an independent reference) and is left out of the worst distance.")
  # One number format per column: fixed point to four significant digits of its smallest.
  assert ("| exact | 20 | 20 | 0.3800 |\n| LP | 1 | 0 | 8.0000 |\n"
          "| a bound | 1 | 1 | holds by construction |") in text
  assert "Failed checks (1):\n\n| check |" in text
  assert "| c20 | 1 | 5 | 4 | 0.5000 | LP | **FAIL** |" in text  # The failed one, in full.
  assert len(re.findall(r"\n\| c\d+ ", text)) == 1  # The others are in the files only.
  assert text.endswith("All 22 checks, one per row: [`x/checks.md`](x/checks.md) "
                       "(CSV: [`x/checks.csv`](x/checks.csv)).")
  record = _record("x", CODE_A)
  record.section.checks = many
  report.save_section(tmp_path, record)
  report.render_report(tmp_path, ["x"])
  rows = helpers.compact_tables((tmp_path / "x" / report.CHECKS_MD).read_text())
  assert len(re.findall(r"\n\| c\d+ ", rows)) == 22
  assert "| c20 | 1 | 5.000 | 4.00000 | 0.5000 | LP | **FAIL** |" in rows
  assert "| c21 | 1 | 1.210 | 0.21000 | 0.5000 | a bound | pass (holds by construction) |" in rows
  frame = pd.read_csv(tmp_path / "x" / report.CHECKS_CSV)  # Every check, numbers unrounded.
  assert list(frame.check) == [c.name for c in many]
  assert list(frame.passed) == [c.passed for c in many]
  assert list(frame.reference) == [c.reference for c in many]
  assert list(frame["by construction"]) == [c.by_construction for c in many]
  # A rerun whose section has no checks left leaves no stale files.
  record.section.checks = []
  report.save_section(tmp_path, record)
  report.render_report(tmp_path, ["x"])
  assert not (tmp_path / "x" / report.CHECKS_CSV).exists()
  assert not (tmp_path / "x" / report.CHECKS_MD).exists()


def test_many_failed_checks_are_counted_at_the_top_and_listed_in_their_sections(tmp_path):
  for name in ("x", "y"):
    record = _record(name, CODE_A)
    record.section.checks = [_check(i, passed=False) for i in range(10)]
    report.save_section(tmp_path, record)
  report.render_report(tmp_path, ["x", "y"])
  text = helpers.compact_tables((tmp_path / report.REPORT_NAME).read_text())
  assert ("### Failed checks\n\n20 failed checks, listed in full in their sections: "
          "[x](#x) (10), [y](#y) (10).") in text
  assert len(re.findall(r"\n\| c\d+ .*\*\*FAIL\*\* \|", text)) == 20


def test_a_later_long_table_moves_to_a_linked_file(tmp_path):
  def table(rows):
    return tables.markdown_table(pd.DataFrame({"k": range(rows), "v": [0.5] * rows}))
  markdown = "\n\n".join(["Intro.", "**Key.** Caption one.", table(20), "**Long.** Caption two.",
                           tables.markdown_table(pd.DataFrame({"k": range(13), "v": [None] * 13})),
                           "Short:", table(3), "The end."])
  kept, moved = report.split_tables(markdown, "x")
  assert kept.count("\n|") == 22 + 5  # The first table, long as it is, and the short one.
  assert ("**Long.** Caption two.\n\nThe table (13 rows): [`x/report_tables.md`, table 1]"
          "(x/report_tables.md#table-1).\n\nShort:") in kept
  assert "n/a" not in kept and kept.endswith("The end.")
  assert moved.startswith('<a id="table-1"></a>\n\n**Long.** Caption two.\n\n|   k |')
  assert moved.endswith("n/a: no value for this row.")
  record = _record("x", CODE_A)
  record.section.markdown = markdown
  report.save_section(tmp_path, record)
  report.render_report(tmp_path, ["x"])
  assert (tmp_path / "x" / report.MOVED_TABLES_MD).read_text().count("\n|") == 15
  record.section.markdown = "Intro."  # Nothing moved any more: the file goes.
  report.save_section(tmp_path, record)
  report.render_report(tmp_path, ["x"])
  assert not (tmp_path / "x" / report.MOVED_TABLES_MD).exists()


def test_a_check_that_holds_by_construction_is_not_the_worst_distance(tmp_path):
  record = _record("x", CODE_A)
  record.section.checks = [_check(10), _check(49, "a bound", by_construction=True)]
  report.save_section(tmp_path, record)
  report.render_report(tmp_path, ["x"])
  row = next(line for line in helpers.compact_tables(
      (tmp_path / report.REPORT_NAME).read_text()).splitlines() if line.startswith("| x |"))
  assert row.split(" | ")[3] == "0.2000"  # 0.1 / 0.5, not the identity's 0.49 / 0.5.
  record.section.checks = [_check(49, "a bound", by_construction=True)]
  assert "| 1/1 | - |" in helpers.compact_tables(report.summary_table([record]))
  # A failed identity still fails.
  record.section.checks = [checks.at_most("t <= e", 0.3, 0.2, "bound", by_construction=True)]
  assert record.status == "FAIL"


def test_markdown_tables_never_show_a_raw_nan():
  frame = pd.DataFrame({"game": ["a", "b", "c"], "trunk": [0.5, math.nan, np.float32("nan")],
                        "it/s": [1.0, 2.0, None]})
  text = tables.markdown_table(frame, missing={"trunk": "full-game CFR has no trunk"})
  assert not re.search(r"\bnan\b", text, re.I)
  assert text.splitlines() == [
      "| game   |   trunk |   it/s |",
      "|:-------|--------:|-------:|",  # Numbers right-aligned.
      "| a      |  0.5000 |      1 |", "| b      |     n/a |      2 |",
      "| c      |     n/a |    n/a |", "",
      "n/a in trunk: full-game CFR has no trunk; n/a in it/s: no value for this row."]
  assert helpers.compact_tables(tables.markdown_table(frame[:1])).splitlines()[-1] == (
      "| a | 0.5000 | 1 |")  # No footnote.
  assert helpers.compact_tables(tables.markdown_table(frame[1:2], missing="not measured")
                                ).endswith("| b | n/a | 2 |\n\nn/a: not measured.")


def test_a_bar_in_a_cell_does_not_split_it():
  # "|x|" in a check's name would end its cell and shift every column after it.
  row = report.checks_table([checks.within("max |x - y|", 1.0, 1.0, 0.1, "a | b")]).splitlines()[2]
  assert helpers.compact_tables(row) == r"| max \|x - y\| | 1 | 1 | 0 | 0.1000 | a \| b | pass |"
  assert len(re.split(r"(?<!\\)\|", row)) == 9  # Seven cells between eight bars.
  frame = pd.DataFrame({"a|b": ["|p|"]})
  assert tables.markdown_table(frame).splitlines() == [r"| a\|b   |", "|:-------|", r"| \|p\|  |"]


def test_a_column_has_one_number_format_with_thousands_separators():
  assert [tables.column_format([0.742892, 5.27356e-07])(x) for x in (0.742892, 5.27356e-07)] == [
      "7.429e-01", "5.274e-07"]  # Not 0.742892 beside 5.27356e-07.
  assert [tables.column_format([1234.5, 0.25])(x) for x in (1234.5, 0.25)] == [
      "1,234.5000", "0.2500"]
  assert tables.column_format([1e6, 2e3])(1e6) == "1,000,000"
  assert tables.column_format([1.5])(math.nan) == "not a number"
  assert tables.column_format([0.000501, 0.0123], digits=3)(0.000501) == "0.000501"
  # markdown_table: the same, per column; text cells of a mixed column left as they are.
  frame = pd.DataFrame({"n": [1234567, 12], "x": [0.742892, 5.27356e-07], "m": ["-", 0.25]})
  assert helpers.compact_tables(tables.markdown_table(frame)).splitlines()[2:] == [
      "| 1,234,567 | 7.429e-01 | - |", "| 12 | 5.274e-07 | 0.2500 |"]
