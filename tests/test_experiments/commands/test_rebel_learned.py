"""Tests of the ``rebel-learned`` experiment (experiments/commands/rebel_learned/__init__.py).

References: the experiment's own checks (OpenSpiel's exploitability, exact CFR-AVG for the perfect
value function, the trunk exploitability's LP), checked here to pass on a real run and to fail on
tampered results; the figures through their saved descriptions. The learned parts need PyTorch.
"""

import argparse
import copy
import re

import numpy as np
import pandas as pd
import pytest

from experiments import cli
from experiments.commands import rebel_learned
from experiments.commands.rebel_agent import learned
from experiments.commands.rebel_learned import figures
from experiments.commands.rebel_learned import report_tables
from experiments.commands.rebel_learned import sweep
from experiments.harness import jobs
from experiments.harness import plotting
from experiments.harness import report
from experiments.harness import solver_registry

pytest.importorskip("torch", reason="PyTorch not installed (the 'learn' extra: "
                    "pip install -e '.[learn]')")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
  out = tmp_path_factory.mktemp("results")
  code = cli.main([rebel_learned.NAME, "--quick", "--quiet", "--out", str(out)])
  return code, out, out / rebel_learned.NAME


def _frame(folder) -> pd.DataFrame:
  return pd.read_csv(folder / "rebel_learned.csv", keep_default_na=True).fillna(
      {"label": ""})


@pytest.mark.slow
def test_quick_run_passes_its_checks_and_writes_every_output(quick_run):
  code, out, folder = quick_run
  assert code == 0  # Every check passed.
  (record,) = report.load_sections(out, [rebel_learned.NAME])
  plan = rebel_learned.PLANS["quick"]
  names = [c.name for c in record.section.checks]
  assert any("perfect value function = exact CFR-AVG" in n for n in names)
  assert any("trunk exploitability <= exploitability" in n for n in names)
  assert any("<= delta U" in n for n in names) and any("stalls" in n for n in names)
  assert sum("engine exploitability" in n for n in names) == record.jobs["total"]
  for name in ("rebel_learned_vs_exact.csv", "rebel_learned_error.csv",
               "rebel_learned_modified.csv", "rebel_learned_self_play.csv", "rebel_learned.csv"):
    assert (folder / name).exists()
  models = sorted(p.name for p in (folder / "models").iterdir())
  assert len(models) == len(plan.steps) + plan.seeds * (plan.rounds + 1)
  table = pd.read_csv(folder / "rebel_learned_self_play.csv")
  assert list(table["round"]) == list(range(plan.rounds + 1))
  errors = pd.read_csv(folder / "rebel_learned_error.csv")
  assert set(errors.label) == {f"delta={d:g}" for d in plan.deltas} | {
      f"steps={n}" for n in plan.steps}


def _table_headers(markdown: str):
  """The header cells of every markdown table in ``markdown``."""
  lines = markdown.splitlines()
  return [[c.strip() for c in lines[k - 1].strip("|").split("|")]
          for k, line in enumerate(lines) if k and re.fullmatch(r"\|(:?-+:?\|)+", line)]


def test_markdown_headers_are_words_with_units():
  for column in ("err_mean", "err_max", "path_err_mean", "path_err_max", "trunk", "T=10",
                 "exploitability", "on-path err (max)", "trunk (median)"):
    assert "chips" in report_tables.header(column), column
  assert report_tables.header("T=300") == "exploitability at T=300 (chips per hand)"
  assert report_tables.header("depth") == "depth limit"
  assert set(report_tables.MISSING) <= set(report_tables.HEADERS.values())


@pytest.mark.slow
def test_report_section_has_no_nan_and_no_code_name_headers(quick_run):
  _, out, folder = quick_run
  (record,) = report.load_sections(out, [rebel_learned.NAME])
  markdown = record.section.markdown
  assert not re.search(r"\bnan\b", markdown, re.IGNORECASE)
  headers = _table_headers(markdown)
  assert len(headers) == 4  # One table per figure.
  csv_columns = set()
  for name in ("rebel_learned_vs_exact.csv", "rebel_learned_error.csv",
               "rebel_learned_modified.csv", "rebel_learned_self_play.csv"):
    csv_columns |= set(pd.read_csv(folder / name).columns) - {"game", "seed"}
  for cells in headers:
    for cell in cells:
      assert not re.fullmatch(r"[a-z]+(_[a-z]+)+|T=\d+", cell), cell  # err_mean, final_median.
      assert cell not in csv_columns, cell  # Renamed in words.
  # Every missing number is explained: the trunk of full-game CFR (no depth limit).
  assert "n/a in trunk with its best continuation" in markdown
  assert "full-game CFR has no depth limit, so no trunk" in markdown
  assert "perfect (the same exact LP values served through the value-function" in markdown
  # The CSV files keep their short column names.
  assert {"err_mean", "path_err_max", "trunk"} <= set(
      pd.read_csv(folder / "rebel_learned_error.csv").columns)


@pytest.mark.slow
def test_checks_that_hold_by_construction_are_marked(quick_run):
  _, out, _ = quick_run
  (record,) = report.load_sections(out, [rebel_learned.NAME])
  built = {c.name for c in record.section.checks if c.by_construction}
  assert built and all(("trunk exploitability <= exploitability" in n
                        or "perfect value function = exact CFR-AVG" in n
                        or "max value error <= delta U" in n) for n in built)
  assert any("perfect value function" in n for n in built)
  assert not any(c.by_construction for c in record.section.checks
                 if "engine exploitability" in c.name or "2 delta U" in c.name)


@pytest.mark.slow
def test_figures_show_the_series_the_captions_name(quick_run):
  _, _, folder = quick_run
  summary = plotting.read_figure_summary(folder / "rebel_learned_vs_exact.png")
  assert summary["title"].startswith("CFR-AVG with learned vs exact leaf values")
  (axes,) = summary["axes"]
  assert axes["title"] == "kuhn_poker, depth 2"
  assert (axes["xscale"], axes["yscale"]) == ("log", "log")
  assert axes["xlabel"] == "iterations T (log scale)" and "chips" in axes["ylabel"]
  for line in ("full-game CFR", "CFR-AVG, exact LP leaves", "CFR-AVG, learned leaves",
               r"$O(1/\sqrt{T})$ guide", "learned leaves: trunk with its best continuation"):
    assert line in axes["lines"]
  summary = plotting.read_figure_summary(folder / "rebel_learned_error.png")
  (axes,) = summary["axes"]
  assert axes["xlabel"] == "on-path mean value error e (chips, log scale)"
  assert "least-squares line through 0 (smooth-error series)" in axes["lines"]
  assert "exact leaves, same T" in axes["lines"]
  summary = plotting.read_figure_summary(folder / "rebel_learned_modified.png")
  (axes,) = summary["axes"]
  assert {f"{v} CFR-AVG, {leaves} leaves" for v in ("standard", "modified")
          for leaves in ("exact LP", "Hedge", "learned")} <= set(axes["lines"])
  summary = plotting.read_figure_summary(folder / "rebel_learned_self_play.png")
  assert [a["xlabel"] for a in summary["axes"]] == ["self-play round (0: untrained)"] * 2
  assert summary["axes"][1]["lines"][:2] == [
      "search policy (learned leaves, LP continuation)", "its trunk with the best continuation"]
  assert summary["axes"][0]["collections"] == 2  # The min-max bands of the two errors.


@pytest.mark.slow
def test_checks_fail_on_tampered_results(quick_run):
  # Negative controls: each tampering breaks exactly the check that guards it.
  _, _, folder = quick_run
  frame = _frame(folder)
  bounds, plan = rebel_learned.BOUNDS["quick"], rebel_learned.PLANS["quick"]
  assert all(c.passed for c in rebel_learned.experiment_checks(frame, bounds, plan))

  def failed(tampered):
    return [c.name for c in rebel_learned.experiment_checks(tampered, bounds, plan)
            if not c.passed]

  perfect = copy.deepcopy(frame)
  perfect.loc[perfect.leaves == "perfect", "exploitability"] += 1e-6
  assert any("perfect value function = exact CFR-AVG" in n for n in failed(perfect))
  trunk = copy.deepcopy(frame)
  rows = (trunk.leaves == "exact") & trunk.trunk.notna()
  trunk.loc[rows, "trunk"] = trunk.loc[rows, "exploitability"] + 1e-3
  assert any("trunk exploitability <= exploitability" in n for n in failed(trunk))
  perturbed = copy.deepcopy(frame)
  perturbed.loc[perturbed.leaves == "perturbed", "path_err_max"] *= 10
  assert any("max value error <= delta U" in n for n in failed(perturbed))
  engine = copy.deepcopy(frame)
  engine.loc[engine.openspiel.notna(), "openspiel"] += 1e-6
  assert all("engine exploitability" in n for n in failed(engine)) and failed(engine)


@pytest.mark.slow
def test_rerun_reuses_every_job_model_and_data_set(quick_run, capsys):
  code, out, folder = quick_run
  assert cli.main([rebel_learned.NAME, "--quick", "--quiet", "--out", str(out)]) == 0
  line = capsys.readouterr().out
  (record,) = report.load_sections(out, [rebel_learned.NAME])
  assert record.jobs["reused"] == record.jobs["total"] > 0, line
  assert "Data sets and models: 0 computed" in record.section.markdown


@pytest.mark.slow
def test_without_pytorch_the_learned_parts_are_left_out_and_said_so(tmp_path, monkeypatch):
  monkeypatch.setattr(rebel_learned, "torch_available", lambda: False)
  assert cli.main([rebel_learned.NAME, "--quick", "--quiet", "--out", str(tmp_path)]) == 0
  (record,) = report.load_sections(tmp_path, [rebel_learned.NAME])
  assert "PyTorch is not installed" in record.section.markdown
  assert "rebel_learned_self_play.png" not in record.section.figures
  assert not (tmp_path / rebel_learned.NAME / "models").exists()
  summary = plotting.read_figure_summary(tmp_path / rebel_learned.NAME /
                                         "rebel_learned_modified.png")
  assert "modified CFR-AVG, learned leaves" not in summary["axes"][0]["lines"]
  assert "modified CFR-AVG, Hedge leaves" in summary["axes"][0]["lines"]


def test_every_search_is_a_registry_entry_with_a_leaf_solver_option():
  for depth in (1, 2):
    for variant in ("standard", "modified"):
      spec = solver_registry.get_solver(sweep.solver_name(depth, variant))
      assert spec.options["depth_limit"] == depth and spec.options["variant"] == variant
  job = jobs.Job(rebel_learned.NAME, "kuhn_poker", "cfr_avg_d2", 0, 30, options=jobs.options_json(
      {"leaf_solver": sweep.perturbed_leaves(0.0, 0)}))
  solved, _ = jobs.run_job(job)
  reference, _ = jobs.run_job(jobs.Job(rebel_learned.NAME, "kuhn_poker", "cfr_avg_d2", 0, 30))
  # delta = 0: the exact values behind the value-function interface, the exact run.
  assert solved.curve == pytest.approx(reference.curve, abs=1e-12)
  assert job.key != jobs.Job(rebel_learned.NAME, "kuhn_poker", "cfr_avg_d2", 0, 30).key
  with pytest.raises(ValueError, match="job options must be a JSON object"):
    jobs.Job(rebel_learned.NAME, "kuhn_poker", "cfr_avg_d2", 0, 30, options="[1]")


def test_plans_and_overrides():
  args = argparse.Namespace(full=False, iterations=50, rounds=None, seeds=4)
  name, plan = rebel_learned.plan_of(args, quick=True)
  assert name == "quick" and plan.iterations == 50 and plan.seeds == 4
  assert plan.rounds == rebel_learned.PLANS["quick"].rounds
  with pytest.raises(ValueError, match="--full and --quick exclude each other"):
    rebel_learned.plan_of(argparse.Namespace(full=True, iterations=None, rounds=None,
                                             seeds=None), quick=True)
  for plan in rebel_learned.PLANS.values():
    assert set(plan.modified_cuts) <= set(rebel_learned.PLANS["full"].modified_cuts)


@pytest.mark.parametrize("argv,message", [(["--full", "--quick"], "exclude each other"),
                                          (["--iterations", "0"], "positive integer"),
                                          (["--rounds", "x"], "positive integer")])
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, argv, message):
  assert cli.main([rebel_learned.NAME, "--quiet", "--out", str(tmp_path / "r")] + argv) == 2
  last = capsys.readouterr().err.strip().splitlines()[-1]
  assert "error" in last and message in last


def test_self_play_figure_labels_fit_and_do_not_crowd():
  # Three rounds of two seeds over about one decade: where matplotlib labelled minor log ticks.
  rows = [{"part": "self-play", "round": r, "seed": s, "err_mean": 0.9 / (1 + 3 * r) + 0.01 * s,
           "path_err_mean": 1.1 / (1 + 2 * r), "exploitability": 0.22 / (1 + r) + 0.01 * s,
           "trunk": 0.2 / (1 + 2 * r), "openspiel": np.nan}
          for r in range(3) for s in range(2)]
  rows.append({"part": "self-play-reference", "round": np.nan, "seed": 0, "err_mean": np.nan,
               "path_err_mean": np.nan, "exploitability": 0.023, "trunk": 0.019,
               "openspiel": 0.023})
  fig = figures.plot_self_play(pd.DataFrame(rows), ("kuhn_poker", 2), 2)
  fig.draw_without_rendering()
  renderer = fig.canvas.get_renderer()
  for ax in fig.axes:
    label = ax.yaxis.label.get_window_extent(renderer)
    assert label.height <= ax.get_window_extent(renderer).height  # Within the panel's height.
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_visible() and t.get_text()]
    assert 2 <= len(labels) <= 6, labels  # 1, 2, 5 times powers of ten, in plain numbers.
    assert all("times" not in t and "^" not in t for t in labels), labels
    assert not any(t.get_text() for t in ax.get_yminorticklabels())
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks == [0, 1, 2]  # Whole rounds.


def test_learned_agent_table_and_targets_from_a_constructed_frame():
  # rebel-agent's measurement 6 (experiments/commands/rebel_agent/learned.py): learned / exact
  # per seed, its median, best and worst over the seeds, and the targets' bounds (1.5 at T = 100
  # and 2 at T = 300 on trained stakes, 2 on unseen ones), hand-computed.
  plan = learned.PLANS["quick"]
  exact = [{"deck": 3, "stakes": 1.0, "trained on": "yes", "T": t, "leaves": learned.EXACT,
            "seed": -1, "round": -1, "exploitability": e} for t, e in ((100, 0.01), (300, 0.004))]
  rows = [{"deck": 3, "stakes": 1.0, "trained on": "yes", "T": 100, "leaves": learned.LEARNED,
           "seed": s, "round": plan.rounds, "exploitability": 0.01 * r,
           "counterfactual error": 0.1, "infostate error": 0.2}
          for s, r in enumerate((1.2, 1.4, 1.6))]
  rows.append({"deck": 3, "stakes": 1.0, "trained on": "yes", "T": 300, "leaves": learned.LEARNED,
               "seed": 0, "round": plan.rounds, "exploitability": 0.004 * 2.5,
               "counterfactual error": 0.1, "infostate error": 0.2})
  table = learned.ratio_table(pd.DataFrame(exact + rows))
  at_100 = table[table["T"] == 100].iloc[0]
  assert at_100["learned / exact (median)"] == pytest.approx(1.4)
  assert at_100["learned / exact (best seed)"] == pytest.approx(1.2)
  assert at_100["learned / exact (worst seed)"] == pytest.approx(1.6)
  assert at_100["seeds"] == 3
  targets = learned.target_rows(table, plan)
  assert [(t["bound"], t["met"]) for t in targets] == [(1.5, "yes"), (2.0, "no")]
  assert "worst 1.60" in targets[0]["target"]


def test_learned_agent_asks_networks_only_at_two_player_leaves():
  # kuhn_poker: the cut at depth 1 has leaves p (both act) and b (player 1 alone); the cut at
  # depth 2 only pb (player 0 alone). With exact one-player leaves, lookahead 1 needs the depth-1
  # network, lookahead 2 none.
  assert learned.learned_depths("kuhn_poker", 1) == [1]
  assert learned.learned_depths("kuhn_poker", 2) == []


def test_round_ratios_cover_the_trained_range_and_never_draw_an_unseen_ratio():
  # measurement 6's on-policy rounds at 13 cards: the trained ratios, then one ratio per equal
  # stratum of log [0.5, 4] (3 octaves, K = 6: half an octave each), fresh per seed and round.
  case = learned.Case(13, (0.5, 1.0, 2.0, 4.0), (1.0,), (1.5, 3.0))
  ratios = learned.round_ratios(case, 6, seed=0, index=1)
  assert ratios[:4] == case.trained
  drawn = np.log2(ratios[4:]) - np.log2(0.5)
  np.testing.assert_array_equal(np.floor(drawn / 0.5), np.arange(6))
  assert not set(ratios) & set(case.unseen)
  assert learned.round_ratios(case, 6, seed=0, index=1) == ratios
  assert learned.round_ratios(case, 6, seed=0, index=2) != ratios
  assert learned.round_ratios(case, 6, seed=1, index=1) != ratios
  assert learned.round_ratios(case, 0, seed=0, index=1) == case.trained
  one = learned.Case(3, (1.0,), (1.0,))
  assert learned.round_ratios(one, 6, seed=0, index=1) == (1.0,)
  # A case whose unseen ratio is one the generator draws is refused, not trained on.
  hit = learned.Case(13, case.trained, (1.0,), (ratios[6],))
  with pytest.raises(ValueError, match="unseen ratio"):
    learned.round_ratios(hit, 6, seed=0, index=1)
