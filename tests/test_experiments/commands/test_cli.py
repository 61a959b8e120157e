"""Tests of the command line (experiments.cli): bad options, help texts, the results folder and
the report."""

import argparse
import json
import re
import types

import pytest

from experiments import cli
from experiments.harness import checks
from experiments.harness import context
from experiments.harness import plotting
from experiments.harness import provenance
from experiments.harness import report
from experiments.harness import section as section_lib
from experiments.harness.section import ReportSection
import helpers


@pytest.mark.parametrize("argv, message", [
    (["convergence", "--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["convergence", "--game", "kuhn_poker(ante=2.0)"], "bad game string"),
    (["convergence", "--game", "kuhn_poker_ante(ante=-1.0)"], "bad game string"),
    (["convergence", "--game", "matrix_rps"], "not a sequential game"),
    (["convergence", "--game", "kuhn_poker(players=3)", "--solver", "cfr_avg_d1"],
     "needs a two-player zero-sum game; kuhn_poker(players=3) has 3 players"),
    (["reference-check", "--game", "kuhn_poker(players=4)", "--solver", "cfr_d_d2"],
     "needs a two-player zero-sum game; kuhn_poker(players=4) has 4 players"),
    (["reference-check", "--solver", "no_such_solver"], "unknown solver 'no_such_solver'"),
    (["convergence", "--iterations", "-5"], "expected a positive integer, got -5"),
    (["ante-sweep", "--iterations", "0"], "expected a positive integer, got 0"),
    (["ante-sweep", "--ante", "-0.5"], "expected a finite positive number"),
    (["convergence", "--seed", "-1"], "expected an integer >= 0"),
    (["convergence", "--workers", "0"], "expected an integer from 1 to 256, got 0"),
    (["convergence", "--workers", "1e23"], "expected an integer from 1 to 256, got '1e23'"),
    (["convergence", "--workers", "100000"], "expected an integer from 1 to 256, got 100000"),
    (["run", "--workers", "100000000000000000000000"], "expected an integer from 1 to 256"),
    (["convergence", "--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["large-deck", "--max-cards", "12"], "expected an integer from 13 to 1,000,000"),
    (["convergence", "--max-minutes", "0"], "expected a finite positive number"),
    (["rps", "--iterations", "0"], "expected a positive integer, got 0"),
    (["landscape", "--solver", "no_such_solver"], "unknown solver 'no_such_solver'"),
    (["landscape", "--bet", "inf"], "expected a finite positive number"),
    (["head-to-head", "--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["head-to-head", "--hands", "0"], "expected a positive integer, got 0"),
    (["head-to-head", "--p0", "bogus"], "unknown policy 'bogus'"),
    (["strategy-tables", "--game", "kuhn_poker_ante(ante=0.0)"], "bad game string"),
    (["strategy-tables", "--game", "leduc_poker"], "Kuhn game"),
    (["convergence", "--game", "tic_tac_toe"], "--game tic_tac_toe: a perfect-information game"),
    (["large-deck", "--max-minutes", "0.2"], "over the limit --max-minutes 0.2"),
    (["three-player-large-deck", "--max-minutes", "0.2"], "over the limit --max-minutes 0.2"),
    (["landscape", "--max-minutes", "0.2"], "over the limit --max-minutes 0.2"),
    (["no-such-command"], "invalid choice"),
])
def test_bad_arguments_fail_cleanly(argv, message, tmp_path, capsys):
  out = tmp_path / "results"
  assert cli.main(argv + ["--out", str(out)]) == 2
  err = capsys.readouterr().err
  assert message in err
  assert len(err.strip().splitlines()) == 1 and "error:" in err  # One line, no usage block.
  assert "Traceback" not in err and "OpenSpiel exception" not in err
  assert not out.exists()  # Nothing half-written.


def test_help_lists_every_command_and_names_the_program(capsys):
  assert cli.main(["--help"]) == 0
  text = capsys.readouterr().out
  assert text.startswith("usage: kuhn-experiments ")  # The console script's own name.
  for name in ["run", "reference-check", "convergence", "ante-sweep", "rebel"]:
    assert name in text
  assert cli.main(["--help"], prog="python -m experiments") == 0
  assert capsys.readouterr().out.startswith("usage: python -m experiments ")


def _options(parser: argparse.ArgumentParser):
  return [a for a in parser._actions if a.option_strings and a.dest != "help"]


@pytest.mark.parametrize("command", ["run"] + [m.NAME for m in cli.experiment_modules()])
def test_every_help_text_is_formatted_and_states_its_default(command, capsys):
  assert cli.main([command, "--help"]) == 0
  text = capsys.readouterr().out
  assert "%%" not in text and "%(" not in text
  for option in ["--quick", "--out", "--seed", "--quiet", "--fresh", "--workers", "--dask",
                 "--dask-timeout", "--max-minutes"]:
    assert option in text
  parser = cli.build_parser(cli.experiment_modules())
  sub = parser._subparsers._group_actions[0].choices[command]
  for action in _options(sub):
    if isinstance(action, argparse._StoreTrueAction):
      continue  # A flag: off unless given.
    assert "default" in (action.help or ""), f"{command} {action.option_strings[0]}"


def test_head_to_head_help_shows_its_percent_sign_and_defaults(capsys):
  assert cli.main(["head-to-head", "--help"]) == 0
  text = " ".join(capsys.readouterr().out.split())
  assert "with a 95% interval" in text
  assert "(default: kuhn_poker_ante)" in text and "(default: cfr:1000)" in text
  assert "(default: equilibrium)" in text


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
  out = tmp_path_factory.mktemp("run") / "results"
  code = cli.main(["run", "--quick", "--quiet", "--only", "ante-sweep", "--only", "rps",
                   "--out", str(out)])
  return code, out


@pytest.mark.slow
def test_run_writes_report_manifest_and_sections(quick_run):
  code, out = quick_run
  assert code == 0
  text = (out / report.REPORT_NAME).read_text()
  assert "## Summary" in text and "**PASS**" in text
  stamp = provenance.code_stamp()
  assert f"code fingerprint {stamp['fingerprint']}" in text
  records = report.load_sections(out, ["ante-sweep", "rps"])
  assert [r.experiment for r in records] == ["ante-sweep", "rps"]
  assert records[0].jobs["computed"] == records[0].jobs["total"] == 10
  assert records[1].jobs["total"] == 0  # rps runs no sweep.
  for r in records:
    assert r.status == "PASS" and r.section.checks and r.code == stamp
    for figure in r.section.figures:  # Embedded, and drawn with labelled axes and series.
      assert f"]({r.experiment}/{figure})" in text
      summary = plotting.read_figure_summary(out / r.experiment / figure)
      assert summary["axes"] and all(a["xlabel"] and a["lines"] for a in summary["axes"])
    for table in r.section.tables:
      assert (out / r.experiment / table).exists()
  data = json.loads((out / provenance.MANIFEST_NAME).read_text())
  assert data["command"][1:3] == ["run", "--quick"]
  assert data["seeds"] == {"seed": 0}
  assert data["machine"]["cpu_count"] >= 1 and data["packages"]["open_spiel"]
  assert data["start"] <= data["end"]
  assert {name: e["status"] for name, e in data["experiments"].items()} == {
      "ante-sweep": "PASS", "rps": "PASS"}
  assert data["experiments"]["ante-sweep"]["code"] == stamp
  assert (out / "ante-sweep" / provenance.MANIFEST_NAME).exists()
  assert not list(out.rglob("*.tmp"))  # Atomic writes leave no temporary files.


@pytest.mark.slow
def test_quick_report_has_contents_no_nan_and_checks_in_files(quick_run):
  _, out = quick_run
  text = helpers.compact_tables((out / report.REPORT_NAME).read_text())
  assert not re.search(r"\bnan\b", text, re.IGNORECASE)
  lines = text.splitlines()
  links = re.findall(r"^- \[(.*)\]\(#([^)]+)\)", text, re.M)
  assert [target for _, target in links] == ["ante-sweep", "rps"]
  assert lines.index("## Summary") < lines.index("## Contents")
  for title, target in links:
    at = lines.index(f'<a id="{target}"></a>')
    assert lines[at + 2] == f"## {title}"
  # The ante sweep's rule sets in tables of their own: no cell for a state a game lacks.
  assert "**Standard rules.**" in text and "**Simplified rules.**" in text
  assert "| sweep | ante (chips) | bet (chips) | regime | P0 bets J (bluff) [0] | P1 calls a " \
         "bet with Q [1b] | game value / bet (player 0) |" in text
  # 55 and 16 checks: a table per reference source, the rows in files of their folders.
  for name, count in (("ante-sweep", 55), ("rps", 16)):
    assert (f"All {count} checks, one per row: [`{name}/checks.md`]({name}/checks.md) (CSV: "
            f"[`{name}/checks.csv`]({name}/checks.csv)).") in text
    assert len((out / name / report.CHECKS_CSV).read_text().splitlines()) == count + 1
  assert "| reference source | checks | passed | worst abs. difference / tolerance |" in text
  assert "Every section ran at the same budget: quick (`--quick`)." in text


@pytest.mark.slow
def test_rerun_resumes_and_keeps_other_sections(quick_run, capsys):
  code, out = quick_run
  jobs = sorted((out / "ante-sweep" / "jobs").iterdir())
  stamps = [p.stat().st_mtime_ns for p in jobs]
  assert cli.main(["ante-sweep", "--quick", "--quiet", "--out", str(out)]) == 0
  assert [p.stat().st_mtime_ns for p in jobs] == stamps  # Finished jobs were not rerun.
  line = capsys.readouterr().out.strip()
  assert line.startswith("ante-sweep: PASS") and f"({len(jobs)} reused)" in line
  assert len(line.splitlines()) == 1  # --quiet: one line per experiment.
  text = (out / report.REPORT_NAME).read_text()
  assert "## Rock-paper-scissors" in text  # The other experiment's section stays in the report.
  assert f"{len(jobs)} reused (finished" in text
  # --fresh recomputes every job.
  assert cli.main(["ante-sweep", "--quick", "--quiet", "--fresh", "--out", str(out)]) == 0
  assert all(a != b for a, b in zip([p.stat().st_mtime_ns for p in jobs], stamps))
  assert "(0 reused)" in capsys.readouterr().out


# Two stand-in experiments, so that the command line's own behaviour is tested in a second:
# "alpha" writes the figure named by --figure and one saved job result, "beta" runs a small sweep.
def _fake_experiment(name, order, run):
  module = types.ModuleType(name)
  module.NAME, module.HELP, module.REPORT_ORDER, module.run = name, f"{name} (test)", order, run

  def add_arguments(parser):
    parser.add_argument("--figure", default="first.png", help="figure name (default first.png)")
    parser.add_argument("--fail", action="store_true", help="raise a bad-option ValueError")
  module.add_arguments = add_arguments
  return module


def _alpha(args, ctx):
  if args.fail:
    raise ValueError("bad option")
  (ctx.out / args.figure).write_bytes(b"png")
  (ctx.out / "jobs").mkdir(exist_ok=True)
  saved = ctx.out / "jobs" / "kept.json"
  if not saved.exists():
    saved.write_text("{}")
  return ReportSection(title="Alpha", figures=[args.figure],
                       checks=[checks.same_number("alpha number", 1.0, 1.0, "exact")])


def _beta(args, ctx):
  results = ctx.run_jobs(helpers.sweep_jobs()[:2], description="beta sweep")
  return ReportSection(title="Beta (b=1)", markdown="Beta's text.", checks=[
      checks.at_most(f"{r.job.solver} exploitability", r.final, 10.0, "a loose bound")
      for r in results] + [checks.at_most("trunk <= whole", 0.5, 0.5, "a restriction",
                                          by_construction=True)])


@pytest.fixture
def fakes(monkeypatch):
  modules = [_fake_experiment("alpha", 1, _alpha), _fake_experiment("beta", 2, _beta)]
  monkeypatch.setattr(cli, "experiment_modules", lambda: modules)
  return modules


def _report(out):
  return helpers.compact_tables((out / report.REPORT_NAME).read_text())


def test_a_corrupt_section_is_shown_named_and_fails_the_run(fakes, tmp_path, capsys):
  out = tmp_path / "r"
  assert cli.main(["alpha", "--quiet", "--out", str(out)]) == 0
  (out / "alpha" / report.SECTION_NAME).write_text("{broken")
  assert cli.main(["beta", "--quiet", "--out", str(out)]) == 1  # A section is lost.
  err = capsys.readouterr().err.strip().splitlines()
  assert len(err) == 1 and err[0].startswith("kuhn-experiments beta: warning: alpha/section.json "
                                             "cannot be read (JSONDecodeError: ")
  text = _report(out)
  assert "**FAIL**" in text
  assert "| alpha | alpha: section file cannot be read | 0/0 | - | - | - | - | UNREADABLE |" in text
  assert "- **alpha**: alpha/section.json cannot be read (JSONDecodeError" in text
  assert "run the experiment `alpha` into this folder again to replace it" in text
  assert "## Beta (b=1)" in text  # The readable section is still there.
  data = json.loads((out / provenance.MANIFEST_NAME).read_text())
  assert data["experiments"]["alpha"]["status"] == report.UNREADABLE
  # A section of another version (a field this one does not know) is unreadable too, not dropped.
  saved = json.loads((out / "beta" / report.SECTION_NAME).read_text())
  (out / "beta" / report.SECTION_NAME).write_text(json.dumps({**saved, "new_field": 1}))
  records = report.load_sections(out, ["alpha", "beta"])
  assert [(r.experiment, r.status) for r in records] == [("alpha", report.UNREADABLE),
                                                         ("beta", report.UNREADABLE)]
  assert "unexpected keyword argument 'new_field'" in records[1].unreadable


def test_a_rerun_replaces_the_folder_but_keeps_saved_work(fakes, tmp_path):
  out = tmp_path / "r"
  assert cli.main(["alpha", "--quiet", "--out", str(out)]) == 0
  kept = (out / "alpha" / "jobs" / "kept.json").stat().st_mtime_ns
  (out / "alpha" / "error.log").write_text("from an earlier crash")
  # A bad option changes nothing.
  assert cli.main(["alpha", "--quiet", "--fail", "--figure", "second.png", "--out", str(out)]) == 2
  assert sorted(p.name for p in (out / "alpha").iterdir()) == [
      "checks.csv", "error.log", "first.png", "jobs", "manifest.json", "section.json"]
  assert cli.main(["alpha", "--quiet", "--figure", "second.png", "--out", str(out)]) == 0
  assert sorted(p.name for p in (out / "alpha").iterdir()) == [
      "checks.csv", "jobs", "manifest.json", "second.png", "section.json"]
  assert (out / "alpha" / "jobs" / "kept.json").stat().st_mtime_ns == kept
  assert "![second.png](alpha/second.png)" in _report(out)


def test_every_section_names_its_budget_and_the_summary_says_when_they_differ(fakes, tmp_path):
  out = tmp_path / "r"
  assert cli.main(["run", "--quiet", "--out", str(out)]) == 0
  text = _report(out)
  assert "Every section ran at the same budget: default." in text
  assert text.count("Budget: default. Computed ") == 2
  assert cli.main(["alpha", "--quick", "--quiet", "--figure", "b c.png", "--seed", "3", "--out",
                   str(out)]) == 0
  text = _report(out)
  assert ("**The sections ran at different budgets**, so their numbers are not like for like "
          "(iterations, seeds, games): quick (`--quick`), with `--figure 'b c.png' --seed 3`: "
          "alpha; default: beta.") in text
  assert "Budget: quick (`--quick`), with `--figure 'b c.png' --seed 3`. Computed " in text
  assert "| quick (`--quick`), with `--figure 'b c.png' --seed 3` | - |" in text  # Summary.


def test_empty_out_is_refused_and_nothing_is_written(fakes, tmp_path, monkeypatch, capsys):
  monkeypatch.chdir(tmp_path)
  for out in ["", "  "]:
    assert cli.main(["alpha", "--out", out]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].endswith(f"error: argument --out: expected a folder path, e.g. results or . "
                              f"for the current folder, got {out!r}")
    assert sum("error:" in line for line in lines) == 1
  assert cli.main(["run", "--out", ""]) == 2
  assert list(tmp_path.iterdir()) == []


def test_without_a_terminal_each_experiment_says_when_it_starts_and_ends(fakes, tmp_path,
                                                                         monkeypatch, capsys):
  monkeypatch.setattr(context, "LOG_INTERVAL", 0.0)  # A progress line after every job.
  assert cli.main(["run", "--quick", "--out", str(tmp_path)]) == 0
  out = capsys.readouterr().out
  stamped = [line for line in out.splitlines() if line.startswith("[")]
  assert all(re.match(r"\[\d\d:\d\d:\d\d\] ", line) for line in stamped)
  # (The heartbeat's "still running" lines and the count of histories, here at once, are tested
  # in test_context.py.)
  lines = [line.split("] ", 1)[1] for line in stamped
           if "still running" not in line and "counting the histories" not in line]
  assert lines[0] == "alpha: started, budget quick (--quick)"
  assert lines[1].startswith("alpha: done, PASS, 1/1 checks passed, jobs -, ")
  assert lines[2] == "beta: started, budget quick (--quick)"
  assert re.fullmatch(r"beta: beta sweep: 2 jobs, 0 reused, 2 to run, estimated \d+ s on \d "
                      r"worker\(s\)", lines[3])
  for line, done in zip(lines[4:7], range(3)):  # tqdm's bar as lines, elapsed and remaining.
    assert re.fullmatch(rf"beta: beta sweep: {done} of 2 jobs done, \d\d:\d\d elapsed, about "
                        r"(\d+ s|\d+ min|\d+\.\d h) left", line), line
  assert lines[7].startswith("beta: done, PASS, 3/3 checks passed, jobs 2 (0 reused), ")
  # --quiet: one line per experiment, no progress lines.
  assert cli.main(["run", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
  assert [line.split(":")[0] for line in capsys.readouterr().out.splitlines()] == [
      "alpha", "beta"]


def test_report_has_contents_and_sets_identities_apart(fakes, tmp_path):
  assert cli.main(["run", "--quiet", "--out", str(tmp_path)]) == 0
  text = _report(tmp_path)
  lines = text.splitlines()
  assert lines.index("## Summary") < lines.index("## Contents")  # The summary first.
  contents = lines[lines.index("## Contents") + 2:lines.index("## Contents") + 4]
  assert contents == ["- [Alpha](#alpha): PASS, 1/1 checks passed",
                      "- [Beta (b=1)](#beta): PASS, 3/3 checks passed"]
  for line in contents:  # Each link leads to an anchor right before the section's heading.
    target, title = re.search(r"\(#([^)]+)\)", line).group(1), line[3:line.index("](")]
    at = lines.index(f'<a id="{target}"></a>')
    assert lines[at + 2] == f"## {title}"
  # The bound that holds by construction (0.5 <= 0.5) is not the worst distance (1.0); the
  # loose bounds' are a few hundredths.
  beta = next(line for line in lines if line.startswith("| beta |"))
  worst = float(beta.split("|")[4])
  assert 0 < worst < 0.1
  # (Each column in one format, its decimals set by its smallest number.)
  assert re.search(r"\| trunk <= whole \| 0\.50* \| 0 \| 0\.50* \| 0\.50* \| a restriction \| "
                   r"pass \(holds by construction\) \|", text)
  assert "1 of them holds by construction" in text


def _unchecked(args, ctx):
  return ReportSection(title="Nothing checked")


def test_zero_checks_is_not_a_pass_unless_asked_for(monkeypatch, tmp_path, capsys):
  gamma = _fake_experiment("gamma", 3, _unchecked)
  monkeypatch.setattr(cli, "experiment_modules", lambda: [gamma])
  out = tmp_path / "r"
  assert cli.main(["gamma", "--out", str(out)]) == 1
  printed = helpers.compact_tables(capsys.readouterr().out)
  assert "| gamma | Nothing checked | 0/0 | - | default | - |" in printed
  assert "| NO CHECKS |" in printed
  assert f"gamma: {report.NO_CHECKS_ADVICE}" in printed
  text = _report(out)
  assert "**NO CHECKS**: 0 of 0 checks passed, 0 experiment(s) crashed" in text
  assert f"- **gamma**: {report.NO_CHECKS_ADVICE}" in text
  assert cli.main(["gamma", "--allow-no-checks", "--quiet", "--out", str(out)]) == 0
  assert capsys.readouterr().out.startswith("gamma: no checks (allowed), 0/0 checks passed")
  assert "**PASS**: 0 of 0 checks passed" in _report(out)


def test_a_missing_optional_dependency_is_said_on_the_console(monkeypatch, tmp_path, capsys):
  alpha = _fake_experiment("alpha", 1, _alpha)
  absent = section_lib.OptionalDependency("no_such_module_xyz", "Xyz", "pip install xyz",
                                          "the xyz checks")
  alpha.OPTIONAL_DEPENDENCIES = (absent, section_lib.OptionalDependency(
      "json", "JSON", "(built in)", "nothing"))
  monkeypatch.setattr(cli, "experiment_modules", lambda: [alpha])
  assert cli.main(["alpha", "--out", str(tmp_path)]) == 0  # Its remaining checks passed.
  captured = capsys.readouterr()
  line = ("Xyz is not installed, so the xyz checks are left out; install it with pip install "
          "xyz")
  assert captured.err.splitlines() == [f"alpha: note: {line}"]  # At once, on stderr.
  assert f"alpha: {line}" in captured.out.splitlines()  # Again under the summary.
  assert f"- **alpha**: {line}" in _report(tmp_path)
  assert section_lib.TORCH.install == "pip install -e '.[learn]'"
