"""Ante sweep: solved bluff and call frequencies and game values against the closed forms.

For both rule sets of three-card Kuhn poker (standard, and simplified: player 0's pass ends the
hand), a solver runs on ``kuhn_poker_ante`` over a range of antes a (bet b = 1) and of bets
(a = 1). Payoffs are homogeneous in (a, b), so the equilibria depend on r = a / b only, and the
value scales with b: each quantity is plotted against r, the value as value / b, with the closed
form of ``algorithms.exact.kuhn_equilibria`` (H. W. Kuhn 1950 for r = 1; the variable-ante closed
forms for the rest) drawn as a line, or as a band where the equilibrium is a family, and the regime
boundaries marked.

Checks, for every solved game (``references.solver_run_checks``, as in the reference check; a
sampled solver runs the seeds of its sampling model and its median run is drawn and checked):
exploitability within its tolerance, value within NashConv of the closed-form value, and each
frequency within the strategy tolerance of the family member selected by the solved free
parameters.

``--deck-size N`` sweeps the same stakes on an N-card deck. The checked frequencies are
three-card information states, so another deck draws and checks the value only: against the
sequence-form LP where the tree is small enough, else against the continuous limit of
``algorithms.exact.continuous_kuhn`` (N -> infinity; von Neumann's poker model for the
simplified rules) within ``deck_thresholds.VALUE_BAND`` (ante + bet) / N, drawn as the
line. From 13 cards on the solvers run on range vectors (``algorithms.cfr.solver_backends``):
O(N) work and memory per iteration, so 1,000 cards cost a few seconds (no policy table is kept
there; its OpenSpiel ``TabularPolicy`` would take O(N^2) memory).
"""

import argparse
from typing import Dict, List, Sequence, Tuple

import matplotlib.figure
import numpy as np
import pandas as pd

from algorithms.exact import continuous_kuhn
from algorithms.exact import deck_thresholds
from algorithms.exact import kuhn_equilibria
from experiments.harness import arguments
from experiments.harness import game_loader
from experiments.harness import jobs as jobs_lib
from experiments.harness import plotting
from experiments.harness import references
from experiments.harness import solver_check
from experiments.harness import solver_registry
from experiments.harness import tables
from experiments.harness import templates
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.section import ReportSection
from spiel_games import kuhn_rules

NAME = "ante-sweep"
REPORT_ORDER = 40  # Place in the report (and in ``run``).
HELP = "Solved bluff/call frequencies and game values over antes and bets, against closed forms."

ANTES = (0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1.0, 1.25, 1.5, 2.0, 3.0)  # With bet 1.
BETS = (0.5, 1.5, 4.0)  # With ante 1: r = 2, 2/3, 1/4.
QUICK_ANTES = (0.25, 0.75, 1.0, 2.0)
QUICK_BETS = (4.0,)
DEFAULT_SOLVER = "our_cfr_plus"
ITERATIONS = arguments.Budget(default=1000, quick=300)
VALUE = "value / bet"
R_GRID = np.geomspace(0.08, 4.0, 300)
DECK_SIZE = 3  # The deck of the closed forms (``kuhn_equilibria``).
# The report's words (paragraphs, the figures' captions and titles), in ``ante_sweep.md`` beside
# this file.
CAPTIONS = templates.load(__package__, "ante_sweep.md")


def sweep_games(antes: Sequence[float], bets: Sequence[float],
                deck_size: int = DECK_SIZE) -> List[Tuple[str, str]]:
  """(game string, sweep name) for both rule sets: antes with bet 1, bets with ante 1."""
  return [(game_loader.kuhn_game_string(a, b, simplified, deck_size), kind)
          for simplified in (False, True)
          for kind, pairs in (("ante", [(a, 1.0) for a in antes]),
                              ("bet", [(1.0, b) for b in bets]))
          for a, b in pairs]


def quantities(simplified: bool, deck_size: int = DECK_SIZE) -> Dict[str, str]:
  """The plotted quantities: checked information states (probability of bet/call; three cards
  only), and value."""
  value = {VALUE: "game value / bet (player 0)"}
  if deck_size != DECK_SIZE:
    return value
  return {**references.checked_states(kuhn_rules.KuhnRules(simplified=simplified)), **value}


def closed_form_curves(simplified: bool, deck_size: int = DECK_SIZE) -> pd.DataFrame:
  """Closed-form [low, high] of every quantity on ``R_GRID`` and at the point regimes; on another
  deck the value of the continuous limit (``continuous_kuhn``) on ``R_GRID``."""
  if deck_size != DECK_SIZE:
    return pd.DataFrame([{"r": r, "quantity": VALUE, "low": value, "high": value}
                         for r in R_GRID.tolist()
                         for value in [float(continuous_kuhn.game_value(r, 1.0, simplified))]])
  ratios = sorted(set(R_GRID.tolist()) | {0.5, 1.0})
  rows = []
  for r in ratios:
    rules = kuhn_rules.KuhnRules(ante=r, bet=1.0, simplified=simplified)
    ranges = references.family_ranges(rules)
    value = float(kuhn_equilibria.game_value(r, 1.0, simplified))
    for q in quantities(simplified):
      low, high = (value, value) if q == VALUE else (float(x) for x in ranges[q])
      rows.append({"r": r, "quantity": q, "low": low, "high": high})
  return pd.DataFrame(rows)


def solved_frame(results: Sequence[jobs_lib.JobResult], kinds: Dict[str, str]) -> pd.DataFrame:
  """One row per solved game and quantity: rule set, sweep, ante, bet, r, the closed form's
  regime (three cards; None on other decks), solved number."""
  rows = []
  for r in results:
    rules = game_loader.load_game(r.job.game).rules
    base = {"game": r.job.game, "simplified": rules.simplified, "sweep": kinds[r.job.game],
            "ante": rules.ante, "bet": rules.bet, "r": rules.ante / rules.bet,
            "regime": (kuhn_equilibria.regime_of(rules.ante, rules.bet, rules.simplified).name
                       if rules.deck_size == DECK_SIZE else None)}
    for q in quantities(rules.simplified, rules.deck_size):
      solved = r.value / rules.bet if q == VALUE else r.solved.policy[q][1]
      rows.append({**base, "quantity": q, "solved": solved})
  return pd.DataFrame(rows, columns=["game", "simplified", "sweep", "ante", "bet", "r", "regime",
                                     "quantity", "solved"])


# How each sweep's solved points are drawn: different shapes, fills and colours.
SWEEP_MARKERS = {
    "ante": {"marker": "o", "color": plotting.VERMILLION, "s": 22},
    "bet": {"marker": "^", "facecolors": "none", "edgecolors": plotting.BLACK, "s": 44,
            "linewidths": 1.0},
}
# Names of the regimes (kuhn_equilibria.Regime.name) in the figures.
REGIME_NAMES = {"passive": "passive", "passive_edge": "edge", "p1_bluffs": "P1 bluffs",
                "kuhn": "Kuhn", "both_bluff": "both bluff", "bluffing": "bluffing"}


def y_label(state: str) -> str:
  """The y label of a quantity's panel: action 1 is a call facing a bet, else a bet."""
  if state == VALUE:
    return "game value / bet (bets per hand)"
  return "probability of calling" if state.endswith("b") else "probability of betting"


def _ratio_text(r) -> str:
  return str(r) if r.denominator != 1 else str(r.numerator)


def plot_rule_set(curves: pd.DataFrame, solved: pd.DataFrame, simplified: bool,
                  solver: str, deck_size: int = DECK_SIZE) -> matplotlib.figure.Figure:
  """One panel per quantity: closed form (line or family band), solved points, regimes; on
  another deck the value against its continuous limit (one regime, no family)."""
  names = quantities(simplified, deck_size)
  cols = min(3, len(names))
  rows = -(-len(names) // cols)
  fig, axes = plotting.subplots(rows, cols, figsize=(4.4 * cols, 3.5 * rows + 1.0))
  three_cards = deck_size == DECK_SIZE
  regimes = kuhn_equilibria.regimes(simplified) if three_cards else []
  boundaries = sorted({float(g.low) for g in regimes if g.low > 0})
  points = [g for g in regimes if g.is_point]
  label = solver_registry.get_solver(solver).label
  for ax, (q, title) in zip(axes.flat, names.items()):
    c = curves[curves.quantity == q]
    wide = (c.high - c.low > 1e-12).to_numpy()
    # A band where the family is wide over a range of r (at one r it is the segment below).
    if three_cards and (wide[1:] & wide[:-1]).any():
      ax.fill_between(c.r, c.low, c.high, color=plotting.SKY_BLUE, alpha=0.35, linewidth=0,
                      label="closed-form family (any point is an equilibrium)")
    ax.plot(c.r, c.low, color=plotting.BLUE, linewidth=1.2,
            label="closed form" if three_cards else "continuous limit (N -> infinity)")
    ax.plot(c.r, c.high, color=plotting.BLUE, linewidth=1.2)
    for i, point in enumerate(points):  # Point regimes: the family is a vertical segment.
      at = c[c.r == float(point.low)]
      ax.plot([float(point.low)] * 2, [at.low.iloc[0], at.high.iloc[0]],
              color=plotting.BLUE, linewidth=3, solid_capstyle="butt",
              label="_" if i else "closed-form family at a point regime (r = "
              + ", ".join(_ratio_text(g.low) for g in points) + ")")
    s = solved[solved.quantity == q]
    for kind, style in SWEEP_MARKERS.items():
      k = s[s.sweep == kind]
      ax.scatter(k.r, k.solved, zorder=4, label=f"{label}, {kind} sweep ("
                 + ("ante varies, bet 1)" if kind == "ante" else "bet varies, ante 1)"), **style)
    ax.set_xscale("log")
    ax.set_xticks([0.1, 0.25, 0.5, 1, 2, 4], ["0.1", "0.25", "1/2", "1", "2", "4"])
    ax.set_xticks([], minor=True)
    ax.set_xlabel(plotting.axis_label("r = ante / bet", log=True))
    ax.set_ylabel(y_label(q))
    ax.set_title(f"{title} [{q}]" if q != VALUE else title,
                 pad=plotting.REGIME_TITLE_PAD if three_cards else None)
    if three_cards:
      plotting.mark_regimes(ax, boundaries,
                            [REGIME_NAMES[g.name] for g in regimes if not g.is_point],
                            [f"{REGIME_NAMES[g.name]} r={_ratio_text(g.low)}" for g in points])
  for ax in axes.flat[len(names):]:
    ax.axis("off")
  plotting.legend_below(fig, ncol=2)
  fig.suptitle(figure_title(simplified, deck_size))
  return fig


def figure_title(simplified: bool, deck_size: int = DECK_SIZE) -> str:
  """A rule set's figure title: against the closed form on three cards, else the limit."""
  rule_set = "simplified" if simplified else "standard"
  if deck_size == DECK_SIZE:
    return CAPTIONS.fill("figure_title", rule_set=rule_set)
  return CAPTIONS.fill("limit_figure_title", rule_set=rule_set, deck=deck_size)


def report_table(solved: pd.DataFrame, simplified: bool,
                 deck_size: int = DECK_SIZE) -> pd.DataFrame:
  """The report's table of one rule set: a row per game, a column per plotted quantity, headed
  in words (``quantities``, the regime as in the figures; three cards only)."""
  names = quantities(simplified, deck_size)
  keys = ["sweep", "ante", "bet"] + (["regime"] if deck_size == DECK_SIZE else [])
  rows = solved[solved.simplified == simplified]
  table = rows.pivot_table(index=keys, columns="quantity", values="solved").reset_index()
  table["sweep"] = table.sweep.map({"ante": "ante varies", "bet": "bet varies"})
  if "regime" in keys:
    table["regime"] = table.regime.map(REGIME_NAMES)
  headers = {"sweep": "sweep", "ante": "ante (chips)", "bet": "bet (chips)",
             "regime": "regime", VALUE: "game value / bet (player 0)"}
  headers.update({q: f"{title} [{q}]" for q, title in names.items() if q != VALUE})
  return table[[*keys, *names]].rename(columns=headers)


def report_markdown(solved: pd.DataFrame, solver: str, iterations: int, antes: Sequence[float],
                    bets: Sequence[float], deck: int = DECK_SIZE) -> str:
  """The section's text: the run (``solver``'s label, T, the stakes, the deck), each rule set's
  table (``report_table``) and the figures' caption."""
  games = (f"on kuhn_poker_ante with {deck} cards" if deck != DECK_SIZE else
           "on kuhn_poker_ante")
  explained = (CAPTIONS["three_card_note"] if deck == DECK_SIZE else
               CAPTIONS.fill("deck_note", band=deck_thresholds.VALUE_BAND, deck=deck))
  return (
      CAPTIONS.fill("intro", solver=solver, iterations=iterations, games=games,
                    antes=", ".join(map(str, antes)), bets=", ".join(map(str, bets)))
      + f" {explained}\n\n"
      + "\n\n".join(f"**{'Simplified' if simplified else 'Standard'} rules.**\n\n"
                     + tables.markdown_table(report_table(solved, simplified, deck), digits=4)
                     for simplified in (False, True) if (solved.simplified == simplified).any())
      + "\n\n" + CAPTIONS["figures" if deck == DECK_SIZE else "limit_figures"])


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--solver", type=arguments.solver_name, default=DEFAULT_SOLVER,
                      metavar="NAME", help=f"solver (default {DEFAULT_SOLVER}; one of "
                      + ", ".join(solver_registry.available_solvers()) + ")")
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help=ITERATIONS.help("iterations per game"))
  parser.add_argument("--ante", action="append", type=arguments.positive_float, metavar="A",
                      help="ante to sweep with bet 1 (repeatable; default: "
                      + ", ".join(map(str, ANTES)) + "; with --quick "
                      + ", ".join(map(str, QUICK_ANTES)) + ")")
  parser.add_argument("--bet", action="append", type=arguments.positive_float, metavar="B",
                      help="bet to sweep with ante 1 (repeatable; default: "
                      + ", ".join(map(str, BETS)) + "; with --quick "
                      + ", ".join(map(str, QUICK_BETS)) + ")")
  parser.add_argument("--deck-size", type=arguments.deck_size, default=DECK_SIZE, metavar="N",
                      help=f"cards in the deck (>= 2; default {DECK_SIZE}, the closed forms' game;"
                      " other decks check the value only, from 13 cards on range vectors)")


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  antes = args.ante or (QUICK_ANTES if ctx.quick else ANTES)
  bets = args.bet or (QUICK_BETS if ctx.quick else BETS)
  iterations = ITERATIONS.resolve(args.iterations, ctx.quick)
  if solver_registry.get_solver(args.solver).sampled:
    iterations *= solver_registry.SAMPLED_BUDGET_FACTOR
  deck = args.deck_size
  kinds = dict(sweep_games(antes, bets, deck))
  # Each rule set's games share one tree shape: solved as one batch where the solver allows. The
  # policy tables hold the checked three-card frequencies.
  # A sampled solver runs the seeds of its sampling model and its median run is the one drawn
  # and checked (``references.checked_runs``), as in the reference check.
  seeds = solver_check.seeds_of(ctx.seed, references.sampling_model(args.solver))
  results = references.checked_runs(ctx.run_jobs(
      [jobs_lib.Job(NAME, g, args.solver, s, iterations, keep_policy=deck == DECK_SIZE)
       for g in kinds for s in seeds], batch=True))
  solved = solved_frame(results, kinds)
  tables.write_csv(solved, ctx.out / "ante_sweep.csv")
  figures = []
  for simplified in (False, True):
    name = f"ante_sweep_{'simplified' if simplified else 'standard'}.png"
    plotting.save_figure(plot_rule_set(closed_form_curves(simplified, deck),
                                       solved[solved.simplified == simplified], simplified,
                                       args.solver, deck), ctx.out / name)
    figures.append(name)
  found: List[Check] = []
  for result in results:
    found += references.solver_run_checks(result, references.compute_reference(result.job.game))
  markdown = report_markdown(solved, solver_registry.get_solver(args.solver).label, iterations,
                             antes, bets, deck)
  title = ("Ante sweep: solved strategies and values against closed forms" if deck == DECK_SIZE
           else f"Ante sweep, {deck} cards: solved values against the references")
  return ReportSection(title=title,
                       markdown=markdown, figures=figures, tables=["ante_sweep.csv"],
                       checks=found)
