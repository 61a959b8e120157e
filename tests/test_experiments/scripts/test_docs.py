"""Tests of experiments.scripts.docs: what is copied to docs/, and nothing when the run fails."""

import dataclasses

import pandas as pd
import pytest

import algorithms
from algorithms.cfr import update_rules
from experiments import cli
from experiments.commands import reference_check
from experiments.harness import generated_regions
from experiments.harness import report
from experiments.harness.checks import Check
from experiments.harness.section import ReportSection
from experiments.scripts import docs
from experiments.scripts import docs_solvers
from experiments.scripts import time_to_target
import helpers


def _results(folder):
  """A results folder holding every file ``publish`` reads (fake figures, one section)."""
  for experiment, name in docs.FIGURES:
    (folder / experiment).mkdir(parents=True, exist_ok=True)
    (folder / experiment / name).write_bytes(b"png " + name.encode())
  (folder / reference_check.NAME).mkdir(exist_ok=True)
  rebel_table = pd.DataFrame([{"game": "kuhn_poker", "depth": 1, "algorithm": "CFR-AVG",
                               "weighting": "uniform", "T=3000": 0.000501234, "it/s": 14383.07}])
  rebel_table.to_csv(folder / docs.REBEL_FOLDER / "rebel" / "rebel_table.csv", index=False)
  pd.DataFrame([{"game": "kuhn_poker(players=3)", "solver": "our_cfr", "NashConv": 0.00129746,
                 "nearest member": "c11=0: beta = 0.1894"}]).to_csv(
                     folder / docs.THREE_PLAYER_RUNS, index=False)
  pass_fail = pd.DataFrame([{"game": "kuhn_poker", "references": "6/6", "cfr": "7/7",
                             "cs_cfr": "-"}])
  pass_fail.to_csv(folder / reference_check.NAME / reference_check.PASS_FAIL_TABLE, index=False)
  agent = folder / "rebel-agent"
  pd.DataFrame([{"setting": "kuhn_poker, lookahead 1", "game": "kuhn_poker", "lookahead": 1,
                 "variant": "default", "iterations": 100, "exploitability": 0.006834}]).to_csv(
                     agent / "rebel_agent_variants.csv", index=False)
  pd.DataFrame([{"deck": 3, "targets": "self-play", "T": 100,
                 "learned / exact, median": 1.0871}]).to_csv(
                     agent / "rebel_agent_self_play_ratios.csv", index=False)
  pd.DataFrame([{"deck": 13, "speed-up (exact / network)": 4.0}]).to_csv(
      agent / "rebel_agent_self_play_timing.csv", index=False)
  pd.DataFrame([{"target": "t", "measured": 0.5, "bound": 1.5, "met": "yes"}]).to_csv(
      agent / "rebel_agent_targets.csv", index=False)
  pd.DataFrame([{"game": "liars_dice", "full-game CFR": 0.0017}]).to_csv(
      agent / "rebel_agent_paper_table_summary.csv", index=False)
  section = ReportSection(title="Reference check", checks=[Check("c", 1.0, 1.0, 0.0, "exact")])
  report.save_section(folder, report.SectionRecord(reference_check.NAME, section, 2.0))
  return folder


def test_publish_copies_figures_and_writes_tables(tmp_path):
  results, out = _results(tmp_path / "results"), tmp_path / "docs"
  docs.publish(results, out)
  for experiment, name in docs.FIGURES:
    assert (out / name).read_bytes() == (results / experiment / name).read_bytes()
  assert (out / docs.REFERENCE_CHECK).read_text() == (
      "| game       | references   | cfr   | cs_cfr   |\n"
      "|:-----------|:-------------|:------|:---------|\n"
      "| kuhn_poker | 6/6          | 7/7   | -        |\n")
  # Numbers right-aligned, one format per column: exploitability to 3 significant digits, whole
  # iterations per second with a thousands separator.
  assert (out / docs.REBEL_TABLE).read_text() == (
      "| game       |   depth | algorithm   | weighting   |   T=3000 |   it/s |\n"
      "|:-----------|--------:|:------------|:------------|---------:|-------:|\n"
      "| kuhn_poker |       1 | CFR-AVG     | uniform     | 0.000501 | 14,383 |\n")
  assert (out / docs.THREE_PLAYER_TABLE).read_text() == (
      "| game                  | solver   |   NashConv | nearest member       |\n"
      "|:----------------------|:---------|-----------:|:---------------------|\n"
      "| kuhn_poker(players=3) | our_cfr  |   0.001297 | c11=0: beta = 0.1894 |\n")
  # The rebel-agent tables: measurement 0 pivoted by T, the others as written, 3 digits.
  assert (out / "rebel_agent_variants.md").read_text() == (
      "| setting                 | variant   |   T=100 |\n"
      "|:------------------------|:----------|--------:|\n"
      "| kuhn_poker, lookahead 1 | default   | 0.00683 |\n")
  assert (out / "rebel_agent_self_play.md").read_text().splitlines()[-1].endswith(" 1.09 |")
  summary = helpers.compact_tables((out / docs.SUMMARY).read_text())
  assert "| reference-check | Reference check | 1/1 |" in summary and "PASS" in summary
  assert sorted(p.name for p in out.iterdir()) == sorted(
      [n for _, n in docs.FIGURES]
      + [docs.SUMMARY, docs.REFERENCE_CHECK, docs.REBEL_TABLE, docs.THREE_PLAYER_TABLE]
      + [markdown for _, markdown, _ in docs.REBEL_AGENT_TABLES.values()])
  # Every committed figure is regenerated, the ReBeL one from its own run at 3,000 iterations.
  assert {n for _, n in docs.FIGURES} >= {"rebel.png", "landscape.png", "rps_strategies.png"}


def test_publish_refuses_an_incomplete_results_folder(tmp_path):
  results = _results(tmp_path / "results")
  (results / "rps" / "rps_strategies.png").unlink()
  with pytest.raises(ValueError, match="rps_strategies.png"):
    docs.publish(results, tmp_path / "docs")
  assert not (tmp_path / "docs").exists()


@pytest.mark.parametrize("failing", ["run", "rebel"])
def test_failed_run_leaves_docs_unchanged(tmp_path, monkeypatch, capsys, failing):
  called = []

  def fake_main(argv):
    called.append(argv)
    return 1 if argv[0] == failing else 0

  monkeypatch.setattr(cli, "main", fake_main)
  (tmp_path / "docs").mkdir()
  assert docs.main(["--out", str(tmp_path / "results"), "--docs", str(tmp_path / "docs"),
                    "--workers", "2"]) == 1
  assert list((tmp_path / "docs").iterdir()) == []
  assert f"'python -m experiments {failing}' did not pass" in capsys.readouterr().err
  assert called[0] == ["run", "--out", str(tmp_path / "results"), "--workers", "2"]
  if failing == "rebel":
    assert called[1] == ["rebel", "--iterations", "3000", "--out",
                         str(tmp_path / "results" / docs.REBEL_FOLDER), "--workers", "2"]


# Generated regions of README.md and docs/*.md (experiments.scripts.docs.GENERATORS).

CHECKOUT = helpers.REPO  # The README's and docs/'s folder.
DOCS = CHECKOUT / "docs"


def _committed():
  return {p: p.read_text() for p in docs.markdown_files(CHECKOUT)}


def test_committed_markers_are_well_formed_and_every_generator_is_used():
  """No orphan region (a marker whose name no generator has) and no unused generator."""
  used = set()
  for path, text in _committed().items():
    names = {name for name, _, _ in generated_regions.regions(text, where=str(path))}
    assert names <= set(docs.GENERATORS), f"{path}: orphan regions {names - set(docs.GENERATORS)}"
    used |= names
  assert used == set(docs.GENERATORS)


# Generators that take minutes (what-works runs OpenSpiel's C++ CFR and the C++ twin on eight
# games): compared in the full suite only. Every other generator is compared in the quick subset.
EXPENSIVE = {"what-works"}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.slow) if name in EXPENSIVE else name
    for name in sorted(docs.GENERATORS)])
def test_committed_region_equals_the_code_output(name):
  """Every generator of ``docs.GENERATORS`` (the closed forms of kuhn_equilibria and the LP, the
  three-player family, the solver registry, the rule classes and public API from
  ``update_rules.RULES``, the copies of the published tables, ...): the committed text of each of
  its regions is what ``python -m experiments.scripts.docs --tables`` writes, so a region edited
  by hand or left stale by a code change fails here."""
  wanted = docs.GENERATORS[name](DOCS).rstrip("\n") + "\n"
  bodies = [(path, text[start:end]) for path, text in _committed().items()
            for n, start, end in docs.regions(text, str(path)) if n == name]
  assert bodies
  stale = [str(path.relative_to(CHECKOUT)) for path, body in bodies if body != wanted]
  assert not stale, (f"generated region {name!r} of {', '.join(stale)} differs from the code's "
                     "output: rewrite it with 'python -m experiments.scripts.docs --tables'")


def test_closed_form_table_has_kuhns_value_and_the_lp_agrees():
  """Kuhn (1950): the standard game at ante = bet = 1 is worth -1/18 to player 0, with player 1
  bluffing J and calling with Q 1/3 of the time; the LP column is an independent solution."""
  table = helpers.compact_tables(docs.kuhn_reference_standard(DOCS))
  assert "| (1, 1) | kuhn | -1/18 | 0 | 0 | 1/3 | 1/3 | 1/3 | -0.055556 |" in table
  assert "| (2, 1) | both_bluff | -1/30 | 1/5 | 1 | 4/5 | 1/5 | 3/5 | -0.033333 |" in table


@pytest.mark.parametrize("text, message", [
    ("<!-- generated: nope -->\n<!-- end generated: nope -->\n", "unknown generated region"),
    ("<!-- end generated: summary -->\n", "without its begin"),
    ("<!-- generated: summary -->\nx\n", "has no end marker"),
    ("<!-- generated: summary -->\n<!-- generated: rebel-table -->\n", "begins inside"),
    ("<!-- generated: summary -->\n<!-- end generated: rebel-table -->\n", "without its begin"),
    ("see <!-- generated: summary -->\n<!-- end generated: summary -->\n", "alone on its line"),
])
def test_malformed_markers_are_refused(text, message):
  with pytest.raises(ValueError, match=message):
    docs.regions(text, "README.md")


def _tree(tmp_path, body):
  """A checkout with README.md holding a summary region with ``body`` and docs/summary.md."""
  (tmp_path / "docs").mkdir()
  (tmp_path / "docs" / docs.SUMMARY).write_text("| a |\n|---|\n| 1 |\n")
  readme = tmp_path / "README.md"
  readme.write_text("# T\n\n<!-- generated: summary -->\n" + body
                    + "<!-- end generated: summary -->\n\nafter\n")
  return readme


def test_stale_region_is_reported_and_rewritten(tmp_path, capsys):
  readme = _tree(tmp_path, "| old |\n")
  assert docs.stale_regions(tmp_path, tmp_path / "docs") == ["README.md: summary"]
  assert docs.main(["--check", "--docs", str(tmp_path / "docs")]) == 1
  assert "stale generated region README.md: summary" in capsys.readouterr().err
  assert docs.main(["--tables", "--docs", str(tmp_path / "docs")]) == 0
  assert readme.read_text() == ("# T\n\n<!-- generated: summary -->\n| a |\n|---|\n| 1 |\n"
                                "<!-- end generated: summary -->\n\nafter\n")
  assert docs.stale_regions(tmp_path, tmp_path / "docs") == []
  assert docs.main(["--check", "--docs", str(tmp_path / "docs")]) == 0


def test_bad_marker_is_one_error_line_and_nothing_written(tmp_path, capsys):
  readme = _tree(tmp_path, "")
  readme.write_text(readme.read_text() + "<!-- generated: typo -->\n")
  before = readme.read_text()
  assert docs.main(["--tables", "--docs", str(tmp_path / "docs")]) == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 1 and "unknown generated region 'typo'" in err
  assert readme.read_text() == before


def test_a_new_rule_makes_the_rule_tables_stale(monkeypatch):
  """Issue 36's contributor path: a rule added to ``RULES`` (here CFR+ with t^2 averaging, as a
  contributor would write it) changes the generated rule-class and public-API tables, so their
  committed regions fail ``test_committed_region_equals_the_code_output`` until
  ``python -m experiments.scripts.docs --tables`` rewrites them."""
  rule = dataclasses.replace(update_rules.RULES[1], name="CFRPlusSquare", options={"gamma": 2.0},
                             doc="CFR+ with iteration t weighing t^2 in the average.\n")
  monkeypatch.setattr(update_rules, "RULES", (*update_rules.RULES, rule))
  for name in ("rule-classes", "public-api"):
    table = docs.GENERATORS[name](DOCS)
    committed = [text[s:e] for text in _committed().values()
                 for n, s, e in docs.regions(text) if n == name]
    assert "`BatchedCFRPlusSquareSolver" in table and committed and table not in committed
  assert "`CFRPlusSquareSolver(game, *, gamma=2.0)`" in docs.GENERATORS["rule-classes"](DOCS)


def test_public_api_table_refuses_an_export_it_does_not_describe(monkeypatch):
  monkeypatch.setattr(algorithms, "__all__", [*algorithms.__all__, "NewThing"])
  with pytest.raises(ValueError, match="exported without a line: \\['NewThing'\\]"):
    docs.GENERATORS["public-api"](DOCS)


def test_time_to_target_budget_is_the_committed_runs():
  """``docs.TIME_TO_TARGET_SECONDS`` (the "> 20" cells of benchmark.md's time-to-target table)
  is the CPU budget the committed run, ``docs/time_to_target.csv``, stopped at: a run stops at
  the first checkpoint past it unless it reached the last target first
  (``time_to_target.measure``), so every checkpoint but a run's last lies below it and every run
  that missed the last target ended at or past it."""
  frame = pd.read_csv(DOCS / docs_solvers.TIME_TO_TARGET)
  budget, target = docs.TIME_TO_TARGET_SECONDS, min(time_to_target.TARGETS)
  for key, run in frame.groupby(["game", "solver", "seed"]):
    seconds = run["cpu_seconds"].to_numpy()
    assert (seconds[:-1] < budget).all(), f"{key}: a checkpoint past {budget} s before the last"
    if run["value"].iloc[-1] > target:
      assert seconds[-1] >= budget, f"{key}: stopped before {budget} s without reaching {target}"
