"""The large-deck experiment's text: the opening paragraph, the figures' captions, and its tables
as the report (and ``docs/large_deck.md``) show them, headers in words with units."""

from typing import Sequence

import pandas as pd

from algorithms.exact import deck_thresholds
from experiments.commands.large_deck import frames
from experiments.commands.large_deck import plan
from experiments.commands.large_deck import sweep
from experiments.harness import tables

TITLE = "Large decks: N-card Kuhn poker against its continuous limit"
LIMIT_FIGURE = "large_deck_limit.png"
RATES_FIGURE = "large_deck_rates.png"
COST_FIGURE = "large_deck_cost.png"
STAKES_FIGURE = "large_deck_stakes.png"
DOCS_TABLE = "large_deck_table.md"  # The tables docs/large_deck.md shows (scripts/docs.py).

NOT_RESOLVED = ("not resolved: V lies in the interval [-BR_1, BR_0] that holds V_N, or closer "
                "to it than its width, the NashConv")
NOT_MEASURED = (f"not measured: the engine's estimate is below "
                f"{plan.FRESH_PROCESS_MIN_BYTES / frames.MEBIBYTE:g} MiB (the solve ran in this "
                "process), or the platform cannot reset a process's peak memory (not Linux)")
NO_FIT = f"fewer than {frames.MIN_FIT_POINTS} resolved decks"


def _sweep_text(series: Sequence[sweep.Series]) -> str:
  """e.g. "at r = 1 on decks of 13, 25, 100 and 1,000 cards" for each ratio swept."""
  by_ratio = {s.ratio: s.decks for s in series}
  return "; ".join(f"at r = {ratio:g} on decks of " + ", ".join(f"{d:,}" for d in decks[:-1])
                   + f" and {decks[-1]:,} cards" for ratio, decks in by_ratio.items())


def intro(series: Sequence[sweep.Series]) -> str:
  """The opening paragraph."""
  return " ".join([
      "Two-player Kuhn poker with a deck of N cards, `kuhn_poker_ante(deck_size=N, ante=a,",
      "bet=b)` with b = 1 chip and r = a / b, solved on the range-vector engine (work and",
      "memory linear in N; `docs/range_engine.md`) and compared with the game it approaches as",
      "N grows, in which the two hands are independent uniform strengths on [0, 1]: von",
      "Neumann's poker model for the simplified rules (von Neumann and Morgenstern 1944; value",
      "a^2 b / ((a + b)(4a + b))) and its standard-rules twin (value",
      "-a^2 b^2 / ((2a + b)^2 (a + b)), Kuhn's -1/18 at a = b), both exact in",
      f"`algorithms/exact/continuous_kuhn.py`. Both rule sets {_sweep_text(series)}, each",
      "solved by discounted CFR until its exact exploitability is at most",
      f"min({plan.short(plan.TARGET_CAP)}, kappa / N) chips per hand, kappa =",
      f"{plan.short(plan.KAPPA[False])} (standard) or {plan.short(plan.KAPPA[True])}",
      "(simplified): the N-card effects are",
      "one card in size, and the simplified rules' average policy needs the tighter target",
      "before its thresholds settle (`experiments/commands/large_deck/plan.py`). Thresholds",
      "are read as masses of the betting and calling hands",
      "(`algorithms/exact/deck_thresholds.py`); the value V_N of the N-card game lies in",
      "[-BR_1, BR_0] (the best responses to the average policy). Checked: each solve's",
      "exploitability against its target, against OpenSpiel's exploitability of the same",
      f"policy up to {plan.OPENSPIEL_MAX_CARDS} cards, and its value against the sequence-form",
      f"LP up to {plan.LP_MAX_CARDS} cards; the value within {deck_thresholds.VALUE_BAND:g}",
      f"(a + b) / N and every threshold within {deck_thresholds.THRESHOLD_BAND:g} cards of the",
      "continuous game; the fitted rates; the memory against the engines' estimates."])


LIMIT_CAPTION = (
    f"`{LIMIT_FIGURE}`: one row per rule set. Left: each threshold of the solved policy at "
    "r = 1 against N (markers), with the continuous game's (dashed, same colour). Right: player "
    "0's value over the continuous game's, V_N / V, against N at each ratio (filled: r = 1, "
    "open: r = 2; V is negative in the standard rules, so a ratio above 1 is a value below V). "
    "What to see: every threshold and the value settle on the continuous game's within a few "
    "hundred cards.")
RATES_CAPTION = (
    f"`{RATES_FIGURE}`: left, |V - V_N| against N (open triangles: gaps the solve does not "
    "resolve to within a factor 2, drawn at their bound); right, the largest threshold gap, "
    "with the one-card line 1/N; dashed (r = 1) and dash-dotted (other r): least-squares fits "
    "C N^-k (table below). What to see: the standard rules' value gap is first order, about "
    "b / (9N) at r = 1; the simplified rules' is 0 or second order; every threshold stays "
    "within about one card of its limit, so its gap falls as 1/N.")
COST_CAPTION = (
    f"`{COST_FIGURE}`: both engines solve the standard game at r = 1 to the same targets; "
    "left, CPU time per iteration (the solve's CPU time to its target divided by its "
    "iterations, exploitability checks every "
    f"{plan.CHECK_EVERY} iterations included); right, the peak memory the solve adds, measured "
    "in a fresh process (its resident set's peak; "
    f"only where the engine's estimate is at least "
    f"{plan.FRESH_PROCESS_MIN_BYTES / frames.MEBIBYTE:g} MiB), with each engine's own "
    "estimate dashed. What to see: the flat engine's time and memory grow as N^2 (its "
    f"histories, 9N^2) and it refuses decks beyond {plan.FLAT_LARGEST_DECK} cards; the range "
    "engine's grow as N.")
STAKES_CAPTION = (
    f"`{STAKES_FIGURE}`: one deck at ratios r from {plan.STAKES_RANGE[0]:g} to "
    f"{plan.STAKES_RANGE[1]:g} (log scale), each rule set solved as one batch "
    "(`BatchedCFRPlusSolver`); circles: the solved thresholds (left) and value (right), "
    "lines: the continuous game. What to see: the solved points lie on the curves at every "
    "ratio, the standard rules' value below V by a first-order gap too small to see here "
    "(the stakes grid's line below the tables gives the largest N |V - V_N| / (a + b)).")


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
    lines.append(
        f"{rules} rules: largest N |V - V_N| / (a + b) {first_order:.3g} (checked <= "
        f"{deck_thresholds.VALUE_BAND:g} plus the NashConv), largest threshold gap "
        f"{worst.threshold_gap_cards:.2f} cards ({worst.worst_threshold} at r = "
        f"{worst.ratio:.3g}), CFR+ iterations {group.iterations.min():,} to "
        f"{group.iterations.max():,}.")
  return (" ".join(lines) + f" Both batches took {cpu_seconds:.1f} s of CPU time, exploitability "
          f"checks every {plan.CHECK_EVERY} iterations included.")


def speedup_line(cost: pd.DataFrame) -> str:
  found = frames.speedups(cost)
  if not found:
    return ""
  return ("CPU time per iteration, flat over range: " + ", ".join(
      f"{s:.1f}x at {n:,} cards" for n, s in found) + " (the iteration counts differ on small "
      "decks, where exact regret ties are broken by rounding differently on the two engines).")


def docs_tables(solves: pd.DataFrame, rates: pd.DataFrame) -> str:
  """The markdown of ``DOCS_TABLE``: the fitted rates, and every solve at the main ratio."""
  main = solves[solves.ratio == plan.MAIN_RATIO]
  return "\n".join([
      tables.markdown_table(rates_table(rates), digits=3, missing=NO_FIT), "",
      f"Every solve at r = {plan.MAIN_RATIO:g}:", "",
      tables.markdown_table(series_table(main), digits=4, missing=NOT_RESOLVED)]) + "\n"


def report_markdown(series: Sequence[sweep.Series], solves: pd.DataFrame,
                    rates: pd.DataFrame, cost: pd.DataFrame, grid: pd.DataFrame,
                    grid_cpu: float) -> str:
  """The section's text: the opening, the captions, the tables."""
  return "\n".join([
      intro(series), "",
      "**Figures.** " + " ".join((LIMIT_CAPTION, RATES_CAPTION, COST_CAPTION, STAKES_CAPTION)),
      "",
      "**Rates** of the distances to the continuous game (least squares of log distance on "
      "log N; the value's over the decks where its gap is resolved):", "",
      tables.markdown_table(rates_table(rates), digits=3, missing=NO_FIT), "",
      "**Every solve** of the sweep:", "",
      tables.markdown_table(series_table(solves), digits=4, missing=NOT_RESOLVED), "",
      "**Cost** of the two engines on the standard rules at r = 1:", "",
      tables.markdown_table(cost_table(cost), digits=3, missing=NOT_MEASURED), "",
      speedup_line(cost), "",
      f"**Stakes grid** ({int(grid.cards.iloc[0]):,} cards, {len(grid) // 2} ratios per rule "
      f"set): " + stakes_summary(grid, grid_cpu)])
