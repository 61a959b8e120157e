"""Tests of experiments.docs: what is copied to docs/, and nothing when the run fails."""

import pandas as pd
import pytest

from experiments import cli
from experiments import docs
from experiments import reference_check
from experiments import report
from experiments.checks import Check
from experiments.report_section import ReportSection


def _results(folder):
  """A results folder holding every file ``publish`` reads (fake figures, one section)."""
  for experiment, name in docs.FIGURES:
    (folder / experiment).mkdir(parents=True, exist_ok=True)
    (folder / experiment / name).write_bytes(b"png " + name.encode())
  (folder / reference_check.NAME).mkdir(exist_ok=True)
  pass_fail = pd.DataFrame([{"game": "kuhn_poker", "references": "6/6", "cfr": "7/7",
                             "cs_cfr": "-"}])
  pass_fail.to_csv(folder / reference_check.NAME / reference_check.PASS_FAIL_TABLE, index=False)
  section = ReportSection(title="Reference check", checks=[Check("c", 1.0, 1.0, 0.0, "exact")])
  report.save_section(folder, report.SectionRecord(reference_check.NAME, section, 2.0))
  return folder


def test_publish_copies_figures_and_writes_tables(tmp_path):
  results, out = _results(tmp_path / "results"), tmp_path / "docs"
  docs.publish(results, out)
  for experiment, name in docs.FIGURES:
    assert (out / name).read_bytes() == (results / experiment / name).read_bytes()
  assert (out / docs.REFERENCE_CHECK).read_text() == (
      "| game | references | cfr | cs_cfr |\n|---|---|---|---|\n| kuhn_poker | 6/6 | 7/7 | - |\n")
  summary = (out / docs.SUMMARY).read_text()
  assert "| reference-check | Reference check | 1/1 |" in summary and "PASS" in summary
  assert sorted(p.name for p in out.iterdir()) == sorted(
      [n for _, n in docs.FIGURES] + [docs.SUMMARY, docs.REFERENCE_CHECK])


def test_publish_refuses_an_incomplete_results_folder(tmp_path):
  results = _results(tmp_path / "results")
  (results / "rps" / "rps_strategies.png").unlink()
  with pytest.raises(ValueError, match="rps_strategies.png"):
    docs.publish(results, tmp_path / "docs")
  assert not (tmp_path / "docs").exists()


def test_failed_run_leaves_docs_unchanged(tmp_path, monkeypatch, capsys):
  monkeypatch.setattr(cli, "main", lambda argv: 1)
  (tmp_path / "docs").mkdir()
  assert docs.main(["--out", str(tmp_path / "results"), "--docs", str(tmp_path / "docs")]) == 1
  assert list((tmp_path / "docs").iterdir()) == []
  assert "left unchanged" in capsys.readouterr().err
