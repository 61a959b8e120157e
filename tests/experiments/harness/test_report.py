"""Tests of the report (experiments.harness.report): it never claims a commit that did not compute
the numbers below it, and it says per experiment how many jobs were reused and from when."""

from experiments.harness import report
from experiments.harness.checks import Check
from experiments.harness.section import ReportSection

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
  assert "| x | x | 1/1 | 0 | 3 (2 reused) | 1.0 | PASS |" in (
      tmp_path / report.REPORT_NAME).read_text()


def test_summary_line_names_the_first_failures():
  record = _record("x", CODE_A, passed=False)
  assert report.summary_line(record) == (
      "x: FAIL, 0/1 checks passed, jobs -, 1.0 s; failed: c")
  record.job_failures = ["j1", "j2", "j3"]
  assert report.summary_line(record).endswith("; j1; j2; j3; +1 more")
  assert record.status == "ERROR"
