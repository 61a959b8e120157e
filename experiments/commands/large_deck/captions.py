"""The large-deck experiment's text: the opening paragraph, the figures' captions, and its tables
as the report (and ``docs/large_deck.md``) show them, headers in words with units. The words of
the paragraphs, captions, headings and notes are in ``captions.md`` beside this file; this module
fills in the plan's and the results' numbers."""

from typing import Sequence

import pandas as pd

from algorithms.exact import deck_thresholds
from experiments.commands.large_deck import frames
from experiments.commands.large_deck import plan
from experiments.commands.large_deck import sweep
from experiments.harness import tables
from experiments.harness import templates

TITLE = "Large decks: N-card Kuhn poker against its continuous limit"
LIMIT_FIGURE = "large_deck_limit.png"
RATES_FIGURE = "large_deck_rates.png"
COST_FIGURE = "large_deck_cost.png"
STAKES_FIGURE = "large_deck_stakes.png"
DOCS_TABLE = "large_deck_table.md"  # The tables docs/large_deck.md shows (scripts/docs.py).
# The estimate below which a solve runs in this process, so its memory is not measured.
FRESH_MIB = plan.FRESH_PROCESS_MIN_BYTES / frames.MEBIBYTE

# The report's words (captions, paragraphs, headings, notes), in ``captions.md`` beside this file.
CAPTIONS = templates.load(__package__)
# Why a table's cell is missing (its footnote).
NOT_RESOLVED = CAPTIONS["not_resolved"]
NOT_MEASURED = CAPTIONS.fill("not_measured", fresh_mib=FRESH_MIB)
NO_FIT = CAPTIONS.fill("no_fit", points=frames.MIN_FIT_POINTS)


def _sweep_text(series: Sequence[sweep.Series]) -> str:
  """e.g. "at r = 1 on decks of 13, 25, 100 and 1,000 cards" for each ratio swept."""
  by_ratio = {s.ratio: s.decks for s in series}
  return "; ".join(f"at r = {ratio:g} on decks of " + ", ".join(f"{d:,}" for d in decks[:-1])
                   + f" and {decks[-1]:,} cards" for ratio, decks in by_ratio.items())


def intro(series: Sequence[sweep.Series]) -> str:
  """The opening paragraph."""
  return CAPTIONS.fill(
      "intro", sweep=_sweep_text(series), target_cap=plan.short(plan.TARGET_CAP),
      kappa_standard=plan.short(plan.KAPPA[False]), kappa_simplified=plan.short(plan.KAPPA[True]),
      openspiel_max_cards=plan.OPENSPIEL_MAX_CARDS, lp_max_cards=plan.LP_MAX_CARDS,
      value_band=deck_thresholds.VALUE_BAND, threshold_band=deck_thresholds.THRESHOLD_BAND)


def figure_captions() -> str:
  """The four figures' captions, after their heading."""
  return " ".join([
      CAPTIONS["figures"], CAPTIONS.fill("limit_figure", figure=LIMIT_FIGURE),
      CAPTIONS.fill("rates_figure", figure=RATES_FIGURE),
      CAPTIONS.fill("cost_figure", figure=COST_FIGURE, check_every=plan.CHECK_EVERY,
                fresh_mib=FRESH_MIB, flat_largest=plan.FLAT_LARGEST_DECK),
      CAPTIONS.fill("stakes_figure", figure=STAKES_FIGURE, lowest=plan.STAKES_RANGE[0],
                highest=plan.STAKES_RANGE[1])])


def series_table(solves: pd.DataFrame) -> pd.DataFrame:
  """Every solve of the sweep, as the report shows it."""
  return pd.DataFrame({
      "rules": solves.rules, "r = ante / bet": solves.ratio, "deck N (cards)": solves.cards,
      "target (chips per hand)": solves.target, "DCFR iterations": solves.iterations,
      "exploitability (chips per hand)": solves.exploitability,
      "N (V - V_N) (chips per hand times cards)": (solves.cards * solves.value_gap).where(
          solves.value_resolved),
      "largest threshold gap (cards)": solves.threshold_gap_cards,
      "at threshold": solves.worst_threshold, "CPU time (s)": solves.cpu_seconds})


def rates_table(rates: pd.DataFrame) -> pd.DataFrame:
  return pd.DataFrame({
      "rules": rates.rules, "r = ante / bet": rates.ratio, "distance": rates.distance,
      "decks fitted": rates.points,
      "smallest to largest deck (cards)": [f"{a:,} to {b:,}" if n else "-" for a, b, n in
                                           zip(rates["smallest_deck"], rates["largest_deck"],
                                               rates.points)],
      "rate k (distance = C N^-k)": rates.k, "constant C": rates.C})


def cost_table(cost: pd.DataFrame) -> pd.DataFrame:
  return pd.DataFrame({
      "engine": cost.engine, "deck N (cards)": cost.cards, "histories": cost.histories,
      "DCFR iterations": cost.iterations, "CPU time (s)": cost.cpu_seconds,
      "CPU time per iteration (ms)": 1e3 * cost.cpu_seconds / cost.iterations,
      "peak memory (MiB)": cost.peak_mib, "engine's estimate (MiB)": cost.estimate_mib})


def stakes_summary(grid: pd.DataFrame, cpu_seconds: float) -> str:
  """One line per rule set: the largest distances over the grid, and the batch's cost."""
  lines = []
  for rules, group in grid.groupby("rules", sort=False):
    first_order = (group.cards * group.value_gap.abs() / (group.ratio + 1) / plan.BET).max()
    worst = group.loc[group.threshold_gap_cards.idxmax()]
    lines.append(CAPTIONS.fill(
        "stakes_rules", rules=rules, first_order=first_order,
        value_band=deck_thresholds.VALUE_BAND, gap=worst.threshold_gap_cards,
        threshold=worst.worst_threshold, ratio=worst.ratio, fewest=group.iterations.min(),
        most=group.iterations.max()))
  lines.append(CAPTIONS.fill("stakes_cost", cpu_seconds=cpu_seconds, check_every=plan.CHECK_EVERY))
  return " ".join(lines)


def speedup_line(cost: pd.DataFrame) -> str:
  found = frames.speedups(cost)
  if not found:
    return ""
  return CAPTIONS.fill("speedup", speedups=", ".join(f"{s:.1f}x at {n:,} cards" for n, s in found))


def docs_tables(solves: pd.DataFrame, rates: pd.DataFrame) -> str:
  """The markdown of ``DOCS_TABLE``: the fitted rates, and every solve at the main ratio."""
  main = solves[solves.ratio == plan.MAIN_RATIO]
  return "\n".join([
      tables.markdown_table(rates_table(rates), digits=3, missing=NO_FIT), "",
      CAPTIONS.fill("main_ratio_heading", ratio=plan.MAIN_RATIO), "",
      tables.markdown_table(series_table(main), digits=4, missing=NOT_RESOLVED)]) + "\n"


def report_markdown(series: Sequence[sweep.Series], solves: pd.DataFrame,
                    rates: pd.DataFrame, cost: pd.DataFrame, grid: pd.DataFrame,
                    grid_cpu: float) -> str:
  """The section's text: the opening, the captions, the tables."""
  return "\n".join([
      intro(series), "", figure_captions(), "", CAPTIONS["rates_heading"], "",
      tables.markdown_table(rates_table(rates), digits=3, missing=NO_FIT), "",
      CAPTIONS["solves_heading"], "",
      tables.markdown_table(series_table(solves), digits=4, missing=NOT_RESOLVED), "",
      CAPTIONS["cost_heading"], "",
      tables.markdown_table(cost_table(cost), digits=3, missing=NOT_MEASURED), "",
      speedup_line(cost), "",
      CAPTIONS.fill("stakes_heading", cards=int(grid.cards.iloc[0]), ratios=len(grid) // 2) + " "
      + stakes_summary(grid, grid_cpu)])
