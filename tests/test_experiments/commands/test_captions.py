"""Tests of the commands' words kept in markdown (``captions.md`` beside each command, filled in by
its ``captions.py`` through experiments.harness.templates): every template is used, every one with
placeholders is filled from the plans the command runs with (quick, default and full budgets),
nothing is left unfilled, and the plan's numbers are in the text."""

import ast
import importlib
import pathlib
import re
import types

import pandas as pd
import pytest

from algorithms.exact import deck_thresholds

PACKAGES = ("large_deck", "rebel_agent", "rebel_learned", "three_player", "three_player_large")
COMMANDS = pathlib.Path(importlib.import_module("experiments.commands").__file__).parent
# A line that markdown would show as a list item, quote, heading or table row, not as part of the
# paragraph around it.
BLOCK_START = re.compile(r"([-*+>#|]|\d+[.)])( |$)")


def _captions(name):
  return importlib.import_module(f"experiments.commands.{name}.captions")


def _strings_in_code(name):
  """Every string constant in the package's Python files."""
  found = set()
  for path in (COMMANDS / name).glob("*.py"):
    found |= {node.value for node in ast.walk(ast.parse(path.read_text()))
              if isinstance(node, ast.Constant) and isinstance(node.value, str)}
  return found


@pytest.mark.parametrize("name", PACKAGES)
def test_every_template_is_used_by_its_command(name):
  unused = [key for key in _captions(name).CAPTIONS if key not in _strings_in_code(name)]
  assert not unused, f"templates of {name}/captions.md no code uses"


@pytest.mark.parametrize("name", PACKAGES)
def test_the_markdown_shows_each_paragraph_as_the_report_does(name):
  lines = (COMMANDS / name / "captions.md").read_text().splitlines()
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


RENDER = {"large_deck": _large_deck, "rebel_agent": _rebel_agent, "rebel_learned": _rebel_learned,
          "three_player": _three_player, "three_player_large": _three_player_large}
BUDGETS = {"rebel_agent": ("quick", "default", "full"),
           "rebel_learned": ("quick", "default", "full")}
# Templates a module fills once, on import (the texts ``_large_deck`` checks).
FILLED_ON_IMPORT = {"large_deck": {"not_measured", "no_fit"}}


@pytest.mark.parametrize("name, budget", [(name, budget) for name in PACKAGES
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
