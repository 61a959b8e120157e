"""Tests of the commands' words kept in markdown (a package's ``captions.md``, filled in by its
``captions.py``; ``NAME.md`` beside a single-module command ``NAME.py``, filled in by it; both
through experiments.harness.templates): every template is used, every one with placeholders is
filled from the plans the command runs with (quick, default and full budgets), nothing is left
unfilled, the plan's numbers are in the text, and pyproject.toml installs every file."""

import ast
import dataclasses
import fnmatch
import importlib
import itertools
import pathlib
import re
import types

import numpy as np
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pytest

from algorithms.exact import deck_thresholds
from experiments.harness import game_loader
from experiments.harness import policies
from experiments.harness import references
from experiments.harness import solver_kinds
from experiments.harness import solver_registry
from experiments.harness import templates
import helpers

# Command packages: their words in captions.md, loaded by their captions.py.
PACKAGES = ("landscape", "large_deck", "play", "rebel_agent", "rebel_learned", "three_player",
            "three_player_large")
# Single-module commands: experiments/commands/NAME.py reads NAME.md beside it.
MODULES = ("ante_sweep", "convergence", "head_to_head", "rebel", "reference_check",
           "reference_data", "rps", "strategy_tables")
COMMANDS = pathlib.Path(importlib.import_module("experiments.commands").__file__).parent
# A line that markdown would show as a list item, quote, heading or table row, not as part of the
# paragraph around it.
BLOCK_START = re.compile(r"([-*+>#|]|\d+[.)])( |$)")


def _captions(name):
  """The module whose ``CAPTIONS`` holds the command's words: a package's ``captions``, or the
  single-module command itself."""
  return importlib.import_module(
      f"experiments.commands.{name}" + (".captions" if name in PACKAGES else ""))


def _markdown(name) -> pathlib.Path:
  return COMMANDS / name / templates.CAPTIONS_FILE if name in PACKAGES else COMMANDS / f"{name}.md"


def _strings_in_code(name):
  """Every string constant in the command's Python files."""
  found = set()
  for path in (COMMANDS / name).glob("*.py") if name in PACKAGES else [COMMANDS / f"{name}.py"]:
    found |= {node.value for node in ast.walk(ast.parse(path.read_text()))
              if isinstance(node, ast.Constant) and isinstance(node.value, str)}
  return found


@pytest.mark.parametrize("name", PACKAGES + MODULES)
def test_every_template_is_used_by_its_command(name):
  unused = [key for key in _captions(name).CAPTIONS if key not in _strings_in_code(name)]
  assert not unused, f"templates of {_markdown(name).name} no code uses"


def test_every_command_with_a_markdown_file_is_tested():
  found = {path.parent.name if path.name == templates.CAPTIONS_FILE else path.stem
           for path in COMMANDS.glob("**/*.md")}
  assert found == set(PACKAGES + MODULES)


def test_pyproject_installs_every_markdown_file():
  """A non-editable install ships the files (``templates.load`` reads the installed package)."""
  tomllib = pytest.importorskip("tomllib")  # Python >= 3.11.
  data = tomllib.loads((helpers.REPO / "pyproject.toml").read_text(encoding="utf-8"))
  package_data = data["tool"]["setuptools"]["package-data"]
  for name in PACKAGES + MODULES:
    path = _markdown(name)
    package = ".".join(path.parent.relative_to(helpers.REPO).parts)
    patterns = package_data["*"] + package_data.get(package, [])
    assert any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns), path


@pytest.mark.parametrize("name", PACKAGES + MODULES)
def test_the_markdown_shows_each_paragraph_as_the_report_does(name):
  lines = _markdown(name).read_text().splitlines()
  body = lines[next(i for i, ln in enumerate(lines) if ln.startswith("## ")):]
  assert not [ln for ln in body if not ln.startswith("## ") and BLOCK_START.match(ln)]
  assert not [ln for ln in body if ln != ln.rstrip() or len(ln) > 100]


def _large_deck(budget):
  from experiments.commands.large_deck import captions
  from experiments.commands.large_deck import plan
  from experiments.commands.large_deck import sweep
  quick = budget == "quick"
  series = sweep.plan_series(quick, plan.MAX_CARDS.resolve(quick))
  intro = captions.intro(series)
  for s in series:
    assert f"at r = {s.ratio:g} on decks of " + ", ".join(f"{d:,}" for d in s.decks[:-1]) in intro
  assert f"min({plan.short(plan.TARGET_CAP)}, kappa / N)" in intro
  figures = captions.figure_captions()
  assert f"beyond {plan.FLAT_LARGEST_DECK} cards" in figures
  assert f"every {plan.CHECK_EVERY} iterations" in figures
  assert "below 4 MiB" in captions.NOT_MEASURED  # plan.FRESH_PROCESS_MIN_BYTES = 4 * 2**20.
  assert captions.NO_FIT == "fewer than 3 resolved decks"  # frames.MIN_FIT_POINTS = 3.
  # Two rule sets at two ratios on 250 cards: N |V - V_N| / (a + b) = 250 * 1e-4 / 1.1 = 0.0227
  # at r = 0.1 (0.00455 at r = 10); threshold gaps 0.3 and 0.9 cards.
  grid = pd.DataFrame({"rules": ["standard", "standard", "simplified", "simplified"],
                       "cards": [250] * 4, "value_gap": [1e-4, -2e-4, 0.0, 0.0],
                       "ratio": [0.1, 10.0, 0.1, 10.0], "threshold_gap_cards": [0.3, 0.9, 0.2, 0.1],
                       "worst_threshold": ["p0_bluff", "p1_call", "p0_bluff", "p1_call"],
                       "iterations": [1000, 20000, 300, 4000]})
  summary = captions.stakes_summary(grid, 12.34)
  assert summary.startswith(
      "standard rules: largest N |V - V_N| / (a + b) 0.0227 (checked <= "
      f"{deck_thresholds.VALUE_BAND:g} plus the NashConv), largest threshold gap 0.90 cards "
      "(p1_call at r = 10), CFR+ iterations 1,000 to 20,000. simplified rules: ")
  assert summary.endswith(f"Both batches took 12.3 s of CPU time, exploitability checks every "
                          f"{plan.CHECK_EVERY} iterations included.")
  cost = pd.DataFrame({"engine": ["flat", "range"], "cards": [25, 25], "iterations": [100, 200],
                       "cpu_seconds": [3.0, 0.5]})
  assert captions.speedup_line(cost).startswith(  # (3 / 100) / (0.5 / 200) = 12.
      "CPU time per iteration, flat over range: 12.0x at 25 cards (the iteration counts")
  solves = pd.DataFrame({"rules": ["standard"], "ratio": [1.0], "cards": [13], "target": [1e-7],
                         "iterations": [100], "exploitability": [1e-8], "value_gap": [1e-3],
                         "value_resolved": [False], "threshold_gap_cards": [0.5],
                         "worst_threshold": ["p0_bluff"], "cpu_seconds": [0.1]})
  rates = pd.DataFrame({"rules": ["standard"], "ratio": [1.0], "distance": ["value"],
                        "points": [0], "smallest_deck": [0], "largest_deck": [0],
                        "k": [float("nan")], "C": [float("nan")]})
  cost = cost.assign(histories=[5400, 100], peak_mib=[float("nan"), 1.0], estimate_mib=[1.0, 1.0])
  report = captions.report_markdown(series, solves, rates, cost, grid, 12.34)
  assert report.startswith(intro + "\n\n" + figures + "\n\n")
  assert f"**Stakes grid** (250 cards, 2 ratios per rule set): {summary}" in report
  for note in (captions.NOT_RESOLVED, captions.NOT_MEASURED, captions.NO_FIT):
    assert f"n/a: {note}." in report
  assert "Every solve at r = 1:" in captions.docs_tables(solves, rates)
  return [intro, figures, summary, captions.speedup_line(cost)]


def _rebel_agent(budget):
  from experiments.commands.rebel_agent import captions
  from experiments.commands.rebel_agent import learned as learned_leaves
  from experiments.commands.rebel_agent import paper_learned
  from experiments.commands.rebel_agent import paper_table
  from experiments.commands.rebel_agent import plan
  chosen = plan.PLANS[budget]
  self_play = captions.self_play_intro(chosen.self_play)
  stakes = captions.stakes_intro(chosen.stakes)
  assert (f"{chosen.self_play.rounds} rounds of {chosen.self_play.episodes} episodes, searches of "
          f"T = {chosen.self_play.search_iterations}") in self_play
  assert f"**Measurement 4: {chosen.stakes.deck} cards" in stakes
  assert f"and {captions.ratios(chosen.stakes.unseen)} (never seen)" in stakes
  # The default budget runs no learned leaves on Liar's Dice: its template with the full plan.
  learned = paper_learned.PLANS[budget] or paper_learned.PLANS["full"]
  intro = captions.paper_learned_intro(learned)
  assert (f"on {learned.game}** (lookahead {learned.lookahead}, T = {learned.iterations}" in intro
          and f"for {learned.rounds} rounds of {learned.episodes} episodes" in intro)
  # Self-play's T: the agents' unless the plan sets its own.
  for trained_at in (None, 4):
    text = captions.paper_learned_intro(
        dataclasses.replace(learned, self_play_iterations=trained_at))
    assert " ".join(text.split()).count(
        f"episodes of searches with T = {trained_at or learned.iterations}, then") == 1
  plan7 = paper_table.plan_for(budget, None)
  paper = captions.paper_intro(plan7)
  assert all(f"{run.game}: T = {run.iterations}, {run.replicates} strategies" in paper
             for run in plan7.runs)
  assert f"union gap of {plan7.leaf_tolerance:g} times" in paper
  # Measurement 6 (none at the default budget): the full plan, whose ratios are drawn (the
  # clause on drawn ratios), and the quick one, whose are not.
  sixes = [learned_leaves.PLANS["full"], learned_leaves.PLANS["quick"]]
  six = [captions.learned_intro(p) for p in sixes]
  for p, text in zip(sixes, six):
    assert f"after {p.rounds} on-policy rounds, {p.seeds} training seeds" in text
    assert (f"at {p.sampled} ratios drawn afresh" in text) == bool(p.sampled)
  return [self_play, stakes, intro, paper] + six


def _rebel_learned(budget):
  from experiments.commands.rebel_learned import captions
  from experiments.commands.rebel_learned import plan
  chosen = plan.PLANS[budget]
  store = types.SimpleNamespace(computed=3, reused=1)
  with_torch = captions.intro("rebel-learned", chosen, budget, store, True)
  without = captions.intro("rebel-learned", chosen, budget, store, False)
  assert with_torch.startswith(f"Budget: {budget} (T = {chosen.iterations} iterations per search")
  assert f"iterations {chosen.path_iterations // 2 + 1}-{chosen.path_iterations};" in with_torch
  assert without.startswith(with_torch + " PyTorch is not installed")
  return [with_torch, without]


def _three_player(budget):
  from experiments.commands.three_player import captions
  from experiments.commands.three_player import plan
  quick = budget == "quick"
  iterations, seeds = plan.ITERATIONS.resolve(None, quick), plan.SEEDS.resolve(None, quick)
  intro = captions.intro_paragraph(iterations, seeds, 3,
                                   plan.PYTHON_GAME_ITERATIONS.resolve(None, quick))
  assert f"T = {iterations} iterations" in intro and f"({3}..{3 + seeds - 1})" in intro
  summary = captions.report_markdown("intro", pd.DataFrame(), pd.DataFrame({"T": [1]}), ["A."])
  assert f"`{plan.NON_UNIT_GAME}`, which has no published closed form" in summary
  assert summary.endswith("Figures: A.")
  figures = [captions.CAPTIONS.fill(key, figure=f"{key}.png") for key in
             ("nash_conv_figure", "family_figure")]
  figures.append(captions.CAPTIONS.fill("values_figure", figure="v.png", game=plan.NON_UNIT_GAME))
  return [intro, *figures, *captions.MISSING, *captions.MISSING.values()]


def _three_player_large(budget):
  from experiments.commands.three_player_large import captions
  from experiments.commands.three_player_large import plan
  quick = budget == "quick"
  decks, pots = plan.DECKS.resolve(None, quick), plan.POTS.resolve(None, quick)
  intro = captions.intro(decks, pots, plan.POT_CARDS.resolve(None, quick))
  assert "Decks " + ", ".join(f"{d:,}" for d in decks) + " at P = 3" in intro
  assert f"{plan.ITERATIONS:,} iterations from {plan.LARGE_MIN_CARDS} cards on" in intro
  solves = pd.DataFrame({column: [1.0] for column in (
      "cards", "pot", "nash_conv", "openspiel_nash_conv", "flat_nash_conv", "u0", "u1", "u2",
      "mid_range_node", "mid_range_low", "mid_range_high", "cpu_seconds")})
  rates = pd.DataFrame({"distance": ["values"], "points": [3], "k": [1.0], "C": [0.5]})
  report = captions.report_markdown(decks, pots, 300, solves, solves, rates)
  for figure in (captions.DECK_FIGURE, captions.POT_FIGURE, captions.VALUES_FIGURE):
    assert f"\n\n`{figure}`: " in report
  return [intro]


def _ante_sweep(budget):
  from experiments.commands import ante_sweep
  quick = budget == "quick"
  antes, bets = (ante_sweep.QUICK_ANTES, ante_sweep.QUICK_BETS) if quick else (ante_sweep.ANTES,
                                                                               ante_sweep.BETS)
  iterations = ante_sweep.ITERATIONS.resolve(None, quick)
  label = solver_registry.get_solver(ante_sweep.DEFAULT_SOLVER).label
  no_runs = pd.DataFrame({"simplified": []})
  three, deck = (ante_sweep.report_markdown(no_runs, label, iterations, antes, bets, deck)
                 for deck in (ante_sweep.DECK_SIZE, 13))
  assert three.startswith(f"{label}, T = {iterations}, on kuhn_poker_ante over antes "
                          + ", ".join(map(str, antes)) + " (bet 1) and bets "
                          + ", ".join(map(str, bets)) + " (ante 1), both rule sets.")
  assert ("on kuhn_poker_ante with 13 cards over" in deck
          and f"within {deck_thresholds.VALUE_BAND:g} (ante + bet) / 13 plus" in deck)
  titles = [ante_sweep.figure_title(simplified, deck)
            for simplified in (False, True) for deck in (ante_sweep.DECK_SIZE, 13)]
  assert titles[3] == "simplified Kuhn poker, 13 cards: solved value vs the continuous limit"
  return [three, deck, *titles]


def _convergence(budget):
  from experiments.commands import convergence
  seeds = convergence.SEEDS.resolve(None, budget == "quick")
  three = "kuhn_poker(players=3)"
  ties = convergence.tie_note({three: ["0", "1"]}, pd.DataFrame({"game": [], "solver": []}))
  assert ties.startswith(" Implementations of one algorithm") and f"{three} (tie at 0, 1)" in ties
  big = "kuhn_poker_ante(deck_size=200)"
  report = convergence.report_markdown(pd.DataFrame({"game": [three]}), seeds, 3, [three], ties,
                                       [big])
  assert f"over {seeds} seeds (3..{3 + seeds - 1}). Games that are not two-player" in report
  assert f"above {game_loader.LP_MAX_HISTORIES:,} histories: {big}" in report
  return [ties, report]


def _head_to_head(budget):
  from experiments.commands import head_to_head
  hands = head_to_head.HANDS.resolve(None, budget == "quick")
  # Player 0's mean 0, its interval's half-width 1.96 / sqrt(N).
  returns = np.tile([[1.0, -1.0], [-1.0, 1.0]], (hands // 2, 1))
  names = (head_to_head.DEFAULT_P0, head_to_head.DEFAULT_P1)
  inside, outside = (head_to_head.summary_markdown(head_to_head.Result(
      head_to_head.DEFAULT_GAME, names, returns, exact, head_to_head.z_value(1)), 1)
      for exact in ((0.0, 0.0), (0.5, -0.5)))
  three = head_to_head.summary_markdown(head_to_head.Result(
      "kuhn_poker(players=3)", ("uniform",) * 3, np.hstack([returns, np.zeros((len(returns), 1))]),
      (0.0, 0.0, 0.0), head_to_head.z_value(2)), 2)
  assert f"on `{head_to_head.DEFAULT_GAME}`, {len(returns)} hands played" in inside
  assert inside.endswith("(Bonferroni, z = 1.960). The exact expected value "
                         "(`expected_game_score.policy_value`) lies in its interval.")
  assert "of player(s) 0 lies OUTSIDE the interval" in outside
  assert "over players 0-1 (player 2's return is fixed by the others' in a constant-sum" in three
  return [inside, outside, three]


def _landscape(budget):
  from experiments.commands import landscape
  from experiments.commands.landscape import equilibrium_map
  iterations = landscape.ITERATIONS.resolve(None, True)
  land = landscape.compute(1.0, 1.0, landscape.DEFAULT_SOLVER, iterations)
  summary = landscape.summary_markdown(land, landscape.DEFAULT_SOLVER)
  assert f"U(p, q) = {land.surface.a:+.6f} {land.surface.b:+.6f} p" in summary
  assert f"| {landscape.DEFAULT_SOLVER} average after {iterations} iterations |" in summary
  title = landscape.figure_title(1.0, 1.0, landscape.DEFAULT_SOLVER)
  texts = [summary, title]
  points = equilibrium_map.GRID.resolve(None, True)
  for deck in (equilibrium_map.DECK_SIZE, 13):
    solved = equilibrium_map.solve_grid(points, deck_size=deck)
    caption = equilibrium_map.caption(solved)
    assert caption.startswith(f"**Equilibrium map** ({points} x {points} = {points**2} games")
    assert f"after T = {equilibrium_map.ITERATIONS}: distance" in caption
    texts += [caption, equilibrium_map.figure_title(solved)]
  assert f"with 13 cards over (ante, bet): {points**2} games" in texts[-1]
  return texts


def _play(budget):
  from experiments.commands import play
  said = []
  answers = itertools.cycle(["0 0 0", "1 1 1"])
  for opponent in ("equilibrium", "uniform"):
    assert play.main(["--game", "kuhn_poker_referee", "--opponent", opponent, "--hints",
                      "--hands", "1", "--seed", "1"], say=said.append,
                     ask=lambda prompt: next(answers)) == 0
  out = "\n".join(said)
  assert "in steps of 1/3, and the\nreferee draws your action" in out
  assert "Hints: the exact expected chips of each move against the opponent's policy, " \
      "given\nwhat you know, if you then play the subgame-perfect equilibrium" in out
  assert f"nodes, over {play.play_values.MAX_EXACT_NODES:,})" in out
  return [out]


def _rebel(budget):
  from experiments.commands import rebel
  iterations = rebel.ITERATIONS.resolve(None, budget == "quick")
  marks = [t for t in rebel.TABLE_ITERATIONS if t <= iterations]
  frame = pd.DataFrame({"game": rebel.GAMES[0], "depth": 1, "algorithm": "CFR-D",
                        "weighting": "uniform", "iteration": [1, *marks],
                        "exploitability": 0.1, "seconds": 1.0})
  leafless = rebel.leafless_cuts(rebel.GAMES[2:], rebel.DEPTHS[1:])
  report = rebel.report_markdown(rebel.summary_table(frame, iterations), leafless)
  assert (f"reduce to CFR there): {rebel.GAMES[2]} at depth {rebel.DEPTHS[1]}\n\n**Figure**"
          in report)
  return [report]


def _reference_check(budget):
  from experiments.commands import reference_check
  family = references.compute_reference("kuhn_poker(players=3)")
  runs = pd.DataFrame(columns=["game", "solver", "T"])
  report = reference_check.report_markdown(
      reference_check.pass_fail_frame({"kuhn_poker": []}, {}, ["our_cfr"]), runs, runs, [],
      [family], runs)
  assert f"golden file `experiments/harness/golden/{references.GOLDEN_PATH.name}`" in report
  assert f"Sampled solvers run {solver_registry.SAMPLED_BUDGET_FACTOR}x the iterations" in report
  assert f"MCCFR: {solver_kinds.MCCFR_SEEDS} seeds, the run of median" in report
  assert (f"{len(family['family']['members'])} members are recorded in the golden file" in report
          and f"MCCFR: {solver_kinds.MCCFR_N_PLAYER_FACTOR:g}x both" in report)
  return [report]


def _reference_data(budget):
  from experiments.commands import reference_data
  data = reference_data.build(["kuhn_poker"])
  assert data["description"].endswith("; actions 0: check or fold, 1: bet or call.")
  assert list(data["tolerances"]) == list(reference_data.TOLERANCES)
  return [data["description"], data["rules"], *data["tolerances"].values()]


def _rps(budget):
  from experiments.commands import rps
  iterations = rps.ITERATIONS.resolve(None, budget == "quick")
  report = rps.summary_markdown(rps.run_all(iterations, 0))
  assert report.startswith(f"Regret matching (Hart & Mas-Colell 2000), {iterations} iterations,")
  return [report]


def _strategy_tables(budget):
  from experiments.commands import strategy_tables
  texts = []
  games = [game_loader.load_game(g, two_player_zero_sum=False)
           for g in ("kuhn_poker_ante", "kuhn_poker(players=3)", "kuhn_poker(players=4)")]
  for game in games:
    pol = policies.make_policy(game, "uniform", 0)
    reference = strategy_tables.reference_for(game, pol)
    frame = strategy_tables.strategy_table(
        game, pol, reference.policy if reference is not None else None)
    texts.append(strategy_tables.report_markdown(game, "uniform", pol, reference, frame,
                                                 exploitability.nash_conv(game, pol)))
  assert texts[0].startswith(f"The policy `uniform` on `{games[0]}`, beside the reference")
  assert "\n\nLargest difference: " in texts[0]
  assert "(3 players: NashConv " in texts[1] and ", beside the reference equilibrium: " in texts[1]
  assert "; no equilibrium of this game is known, so the table shows the policy alone." in texts[2]
  return texts


RENDER = {"ante_sweep": _ante_sweep, "convergence": _convergence, "head_to_head": _head_to_head,
          "landscape": _landscape, "large_deck": _large_deck, "play": _play, "rebel": _rebel,
          "rebel_agent": _rebel_agent, "rebel_learned": _rebel_learned,
          "reference_check": _reference_check, "reference_data": _reference_data, "rps": _rps,
          "strategy_tables": _strategy_tables, "three_player": _three_player,
          "three_player_large": _three_player_large}
BUDGETS = {"rebel_agent": ("quick", "default", "full"),
           "rebel_learned": ("quick", "default", "full"),
           # Their text does not depend on the budget (or is measured at --quick only: the
           # default landscape's path and map take some 20 seconds).
           **{name: ("default",) for name in ("landscape", "play", "reference_check",
                                              "reference_data", "strategy_tables")}}
# Templates a module fills once, on import (the texts ``_large_deck`` checks).
FILLED_ON_IMPORT = {"large_deck": {"not_measured", "no_fit"}}


@pytest.mark.parametrize("name, budget", [(name, budget) for name in PACKAGES + MODULES
                                          for budget in BUDGETS.get(name, ("quick", "default"))])
def test_every_template_fills_from_the_plan_with_nothing_left_over(name, budget, monkeypatch):
  texts = _captions(name).CAPTIONS
  filled = set()
  fill = texts.fill

  def recorded(key, **values):
    filled.add(key)
    return fill(key, **values)

  monkeypatch.setattr(texts, "fill", recorded)
  rendered = RENDER[name](budget) + [texts[key] for key in texts if not texts.placeholders(key)]
  # Every template with placeholders is filled by the command's own functions above.
  filled |= FILLED_ON_IMPORT.get(name, set())
  assert {key for key in texts if texts.placeholders(key)} <= filled
  for text in rendered:
    assert text and not re.search(r"[{}]", text), text
