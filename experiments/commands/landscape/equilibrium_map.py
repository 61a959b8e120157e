"""The simplified Kuhn game's solved equilibrium over a dense (ante, bet) grid, by batched CFR+.

The ``landscape`` command's second figure. On an N x N grid of antes S and bets B (chips, each
in {2k / N : k = 1..N}, so 2S = B falls on grid points) every game
``kuhn_poker_ante(ante=S, bet=B, simplified=True)`` has the same tree and different payoffs, so
all N^2 games are solved by one ``algorithms.BatchedCFRPlusSolver`` (CFR+: Tammelin, "Solving
large imperfect information games using CFR+", arXiv 2014), one compiled call per measuring point;
each game's policies are those of solving it alone with ``algorithms.CFRPlusSolver`` for the same
iterations (``solve_alone``; the tests compare them).

What is drawn and checked per grid point is the average policy's bluff probability p (player 0
bets the lowest card, information state "0") and call probability q (player 1 calls a bet with
the middle card, "1b") against the closed form of ``algorithms.exact.kuhn_equilibria`` (module
docstring, simplified game, D = 2S + B):

* passive, 2S < B: p = q = 0;
* passive_edge, 2S = B: a family, p in [0, 1/2], q = 0;
* bluffing, 2S > B: p = B / D, q = (2S - B) / D, unique.

The distance to the closed form is max(|p - p*|, |q - q*|) to the family member nearest in p
(``kuhn_equilibria.member_matching``; the equilibrium itself where it is unique), and the
exploitability is the kernel's exact one (cross-checked against OpenSpiel's at the worst point).

On a deck of N != 3 cards (``deck_size``) the coordinates are those of von Neumann's poker model,
the continuous limit of the simplified game (``algorithms.exact.continuous_kuhn``: player 0 bets
with strengths below alpha or above beta, player 1 calls above gamma): alpha, the mass of player
0's bets below player 1's call threshold (its bluffs), and gamma = 1 - (1/N) sum_c pi(call | c),
the call threshold as the mass of the hands that fold, read off the N-card policy by
``algorithms.exact.deck_thresholds.thresholds_from_policy``, against alpha* = S B / ((S + B)
(4S + B)) and gamma* = B (3S + B) / ((S + B)(4S + B)). A threshold read off N cards is resolved
to about one card, so the tolerance grows by ``THRESHOLD_FACTOR`` / N. These batches run on range
vectors (``algorithms.cfr.range_engine``), O(N) per game and iteration (about 20 us at 1,000
cards: the 12 x 12 grid of --quick took 14 CPU s, the default 40 x 40 grid takes some 3
minutes), and the exploitability at the worst point is checked against OpenSpiel's where its
walk is short enough (``measures.openspiel_walkable``: up to 70 cards).
"""

import dataclasses
import time
from typing import List, Optional, Sequence, Tuple

import matplotlib.colors
import matplotlib.figure
import numpy as np
import pandas as pd

import algorithms
from algorithms.cfr import solver_backends
from algorithms.cfr.range_engine import CardPolicy
from algorithms.exact import continuous_kuhn
from algorithms.exact import deck_thresholds
from algorithms.exact import kuhn_equilibria
from experiments.commands.landscape.captions import CAPTIONS
from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import measures
from experiments.harness import plotting
from experiments.harness import solver_registry
from experiments.harness.checks import Check
from spiel_games import kuhn_poker_ante
from spiel_games.kuhn_rules import KuhnRules

BLUFF_STATE = "0"  # Player 0 holds the lowest card: bets with probability p.
CALL_STATE = "1b"  # Player 1 holds the middle card facing a bet: calls with probability q.

GRID = arguments.Budget(default=40, quick=12)  # Points per axis.
MAX_STAKE = 2.0  # Chips: the largest ante and bet of the grid.
SOLVER = "our_cfr_plus"  # Its registry entry names the batched class (SolverSpec.batch).
ITERATIONS = 5000  # Per game, in both budgets: the batch costs ~1 us per game and iteration.
MEASURE_AT = (250, 500, 1000, 2000, 5000)  # Iterations at which the grid is measured.
# Issue 9's target for batched solving: every (ante, bet) variant to exploitability <= 1e-4.
EXPLOITABILITY_BOUND = 1e-4
# Largest distance of a solved (p, q) from the closed form allowed after ITERATIONS iterations:
# about 3x the largest measured on the default 40 x 40 grid (3.0e-4, in the bluffing regime), so
# CFR+'s residual passes while a wrong regime or formula (distances of order 0.1) fails. A
# stated tolerance, not a bound: the distance of an average strategy from the equilibrium has
# no a-priori bound in terms of T (near 2S = B the game is ill-conditioned: q* -> 0).
STRATEGY_TOLERANCE = 1e-3
# On N != 3 cards the tolerance is STRATEGY_TOLERANCE + THRESHOLD_FACTOR / N: a threshold read
# off N cards is resolved to about one card. Largest measured distance after ITERATIONS
# iterations: 0.91 / N (N = 13), 0.92 / N (N = 50) and 0.95 / N (N = 100) on the 40 x 40 grid
# (at bet 0.05, where gamma* lies inside the weakest cards), 0.81 / N (N = 1,000, 12 x 12
# grid); a margin of 2.
THRESHOLD_FACTOR = 2.0
DECK_SIZE = 3  # The three-card game of the closed form and of the coordinates (p, q).
ERROR_FLOOR = 1e-12  # Distances below this are drawn at it (the log colour scale has no 0).


@dataclasses.dataclass(frozen=True)
class Coordinates:
  """The two numbers the map reads off each point's policy, as its figure names them.

  Attributes:
    p_title, q_title: the titles of their panels.
    p_label, q_label: their colour bars' labels.
    p_top: the top of p's colour scale (q's is 1).
    p_levels, q_levels: the contour levels drawn.
    contours: the legend entry of the solved contours.
    distance: the title of the distance panel.
  """

  p_title: str
  q_title: str
  p_label: str
  q_label: str
  p_top: float
  p_levels: Tuple[float, ...]
  q_levels: Tuple[float, ...]
  contours: str
  distance: str


THREE_CARD_COORDINATES = Coordinates(
    CAPTIONS["three_card_p_title"], CAPTIONS["three_card_q_title"], "probability of betting",
    "probability of calling", 0.5, (0.1, 0.2, 0.3, 0.4), (0.2, 0.4, 0.6, 0.8),
    CAPTIONS["three_card_contours"], CAPTIONS["three_card_distance"])
LIMIT_COORDINATES = Coordinates(
    CAPTIONS["limit_p_title"], CAPTIONS["limit_q_title"], "mass of the deck", "mass of the deck",
    0.15, (0.02, 0.04, 0.06, 0.08, 0.1), (0.2, 0.4, 0.6, 0.8), CAPTIONS["limit_contours"],
    CAPTIONS["limit_distance"])


def coordinates(deck_size: int) -> Coordinates:
  """(p, q) on three cards, von Neumann's (alpha, gamma) on any other deck (module docstring)."""
  return THREE_CARD_COORDINATES if deck_size == DECK_SIZE else LIMIT_COORDINATES


def strategy_tolerance(deck_size: int) -> float:
  """The largest distance to the closed form allowed (``STRATEGY_TOLERANCE``,
  ``THRESHOLD_FACTOR``)."""
  return STRATEGY_TOLERANCE + (0.0 if deck_size == DECK_SIZE else THRESHOLD_FACTOR / deck_size)


def stakes(points: int) -> np.ndarray:
  """The grid's antes (and bets): MAX_STAKE k / points for k = 1..points, in chips."""
  if points < 2:
    raise ValueError(f"grid points per axis must be an integer >= 2, got {points}")
  return MAX_STAKE * np.arange(1, points + 1) / points


def grid_rules(points: int, deck_size: int = DECK_SIZE
               ) -> Tuple[np.ndarray, np.ndarray, List[KuhnRules]]:
  """Ante and bet of every grid point (bet-major: point i has ante[i % N], bet[i // N]) and their
  simplified rules with ``deck_size`` cards."""
  axis = stakes(points)
  bet, ante = (m.ravel() for m in np.meshgrid(axis, axis, indexing="ij"))
  return ante, bet, [KuhnRules(ante=float(a), bet=float(b), deck_size=deck_size,
                               simplified=True) for a, b in zip(ante, bet)]


def bluff_and_call(pol) -> Tuple[float, float]:
  """(p, q): a policy's probabilities of betting at "0" and of calling at "1b"."""
  return float(pol.policy_for_key(BLUFF_STATE)[1]), float(pol.policy_for_key(CALL_STATE)[1])


def bluff_and_call_thresholds(policy: CardPolicy) -> Tuple[float, float]:
  """(alpha, gamma) of an N-card policy of the simplified game (module docstring), read by
  ``deck_thresholds.thresholds_from_policy``."""
  read = deck_thresholds.thresholds_from_policy(policy.bet_probabilities(), simplified=True)
  return float(read.p0_bluff), float(read.p1_call)


def closed_form(ante: float, bet: float, deck_size: int = DECK_SIZE) -> Tuple[float, float, bool]:
  """(p*, q*, family) at a grid point: the three-card closed form (the family's lowest p at
  2S = B), or on another deck von Neumann's (alpha*, gamma*) of the continuous limit, unique."""
  if deck_size == DECK_SIZE:
    member = kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified=True)
    return float(member.p0_bluff), float(member.p1_call_mid), bool(member.family)
  limit = continuous_kuhn.thresholds(ante, bet, simplified=True)
  return float(limit.p0_bluff), float(limit.p1_call), False


def distance_to_closed_form(ante: float, bet: float, p: float, q: float,
                            deck_size: int = DECK_SIZE) -> float:
  """max(|p - p*|, |q - q*|) for the closed-form member (p*, q*) nearest in p (the equilibrium
  where it is unique; on another deck the continuous limit's (alpha*, gamma*))."""
  if deck_size != DECK_SIZE:
    p_star, q_star, _ = closed_form(ante, bet, deck_size)
    return max(abs(p - p_star), abs(q - q_star))
  member = kuhn_equilibria.member_matching(ante, bet, True, {BLUFF_STATE: p, CALL_STATE: q})
  return max(abs(p - float(member.p0_bluff)), abs(q - float(member.p1_call_mid)))


@dataclasses.dataclass
class EquilibriumMap:
  """The solved grid. Per-point arrays have shape (N^2,), in ``grid_rules``' order.

  Attributes:
    points: N, grid points per axis.
    iterations: CFR+ iterations per game.
    deck_size: the games' cards.
    ante, bet: each point's ante and bet (chips).
    p, q: the average policy's bluff and call probabilities (on another deck than three cards
      alpha and gamma, ``thresholds``).
    p_closed, q_closed: the closed form (the family's lowest p at 2S = B; ``closed_form``).
    family: True where the closed form is a family (2S = B).
    distance: distance to the closed form (``distance_to_closed_form``).
    exploitability: exact exploitability of the average policy (chips per hand).
    convergence: per measuring point, the grid's largest exploitability and distance.
    seconds: wall time of the batched solve (building the batch, iterating, measuring).
    cpu_seconds: the process's CPU time for the same.
    openspiel_exploitability: OpenSpiel's exploitability of the average policy at the point of
      largest exploitability (``worst``); None where its walk is too long
      (``measures.openspiel_walkable``).
  """

  points: int
  iterations: int
  deck_size: int
  ante: np.ndarray
  bet: np.ndarray
  p: np.ndarray
  q: np.ndarray
  p_closed: np.ndarray
  q_closed: np.ndarray
  family: np.ndarray
  distance: np.ndarray
  exploitability: np.ndarray
  convergence: pd.DataFrame
  seconds: float
  cpu_seconds: float
  openspiel_exploitability: Optional[float]

  @property
  def worst(self) -> int:
    """The point of largest exploitability."""
    return int(np.argmax(self.exploitability))

  def frame(self) -> pd.DataFrame:
    """One row per grid point (the figure's CSV table)."""
    return pd.DataFrame({"ante": self.ante, "bet": self.bet, "p": self.p, "q": self.q,
                         "p_closed_form": self.p_closed, "q_closed_form": self.q_closed,
                         "family": self.family, "distance": self.distance,
                         "exploitability": self.exploitability})


def solve_grid(points: int, iterations: int = ITERATIONS,
               measure_at: Sequence[int] = MEASURE_AT,
               deck_size: int = DECK_SIZE) -> EquilibriumMap:
  """Solves every game of the ``points`` x ``points`` grid with ``deck_size`` cards by batched
  CFR+ for ``iterations`` iterations, one compiled call per measuring point (those of
  ``measure_at`` below ``iterations``, and ``iterations``); on another deck than three cards on
  range vectors.

  Raises:
    ValueError: for a bad grid or T, or a batch whose range vectors need more than
      ``solver_backends.DEFAULT_MAX_BYTES`` (before any work).
  """
  if iterations < 1:
    raise ValueError(f"iterations must be a positive integer, got {iterations}")
  ante, bet, rules = grid_rules(points, deck_size)
  closed = np.array([closed_form(r.ante, r.bet, deck_size) for r in rules])
  games = [kuhn_poker_ante.game_from_rules(r) for r in rules]
  start, start_cpu = time.perf_counter(), time.process_time()
  batched = solver_registry.get_solver(SOLVER).batch
  if deck_size == DECK_SIZE:
    batch = batched(games)
  else:
    need = len(games) * solver_backends.range_memory(solver_backends.card_tree_of(games[0]))
    if need > solver_backends.DEFAULT_MAX_BYTES:
      raise ValueError(f"equilibrium map: {len(games)} games of {deck_size} cards need about "
                       f"{need / 2**30:.1f} GiB of range vectors, over the limit "
                       f"{solver_backends.DEFAULT_MAX_BYTES / 2**30:.1f} GiB; choose a smaller "
                       "--grid or --deck-size")
    batch = batched(games, engine="range")

  def read(i: int) -> Tuple[float, float]:
    if deck_size == DECK_SIZE:
      return bluff_and_call(batch.average_policy(i))
    return bluff_and_call_thresholds(batch.range_engine.policy(i))

  rows, done = [], 0
  for mark in sorted({t for t in measure_at if 0 < t < iterations} | {iterations}):
    batch.solve(mark - done)
    done = mark
    solved = np.array([read(i) for i in range(len(rules))])
    distance = np.array([distance_to_closed_form(r.ante, r.bet, p, q, deck_size)
                         for r, (p, q) in zip(rules, solved)])
    exploitabilities = batch.exploitabilities()
    rows.append({"iterations": mark, "max_exploitability": exploitabilities.max(),
                 "max_distance": distance.max()})
  seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - start_cpu
  worst = int(np.argmax(exploitabilities))
  openspiel = measures.measure_for(batch.game(worst)).openspiel
  return EquilibriumMap(
      points=points, iterations=iterations, deck_size=deck_size, ante=ante, bet=bet,
      p=solved[:, 0], q=solved[:, 1], p_closed=closed[:, 0], q_closed=closed[:, 1],
      family=closed[:, 2].astype(bool), distance=distance, exploitability=exploitabilities,
      convergence=pd.DataFrame(rows), seconds=seconds, cpu_seconds=cpu_seconds,
      openspiel_exploitability=None if openspiel is None else openspiel(
          batch.average_policy(worst)))


def solve_alone(ante: float, bet: float, iterations: int) -> Tuple[float, float]:
  """(p, q) of ``algorithms.CFRPlusSolver`` run alone on one game of the grid (the reference
  the batch equals, and the one-game-at-a-time timing)."""
  game = game_loader.load_game(game_loader.kuhn_game_string(ante, bet, simplified=True))
  return bluff_and_call(algorithms.CFRPlusSolver(game).solve(iterations).average_policy())


def map_checks(solved: EquilibriumMap) -> List[Check]:
  """Every point's (p, q) against the closed form, the grid's exploitability against the
  batched-solving target (``EXPLOITABILITY_BOUND``, docs/benchmark.md), and the kernel's
  exploitability against OpenSpiel's (where its walk is short enough)."""
  three_cards = solved.deck_size == DECK_SIZE
  label = (f"equilibrium map {solved.points}x{solved.points}"
           f"{'' if three_cards else f', {solved.deck_size} cards'}, CFR+ T={solved.iterations}")
  reference = ("closed form (kuhn_equilibria)" if three_cards else
               "continuous limit (continuous_kuhn: von Neumann's alpha and gamma)")
  unique, family = ~solved.family, solved.family
  found = [checks.within(f"{label}: max |(p, q) - closed form| over the {unique.sum()} games "
                         "whose closed form is unique", solved.distance[unique].max(), 0.0,
                         strategy_tolerance(solved.deck_size), f"{reference}; tolerance stated "
                         "in experiments/commands/landscape/equilibrium_map.py")]
  if family.any():
    found.append(checks.within(f"{label}: max distance of (p, q) from the family p in [0, 1/2], "
                               f"q = 0 over the {family.sum()} games with 2S = B",
                               solved.distance[family].max(), 0.0, STRATEGY_TOLERANCE,
                               "closed-form family (kuhn_equilibria)"))
  worst = solved.worst
  found.append(checks.at_most(f"{label}: max exploitability over {len(solved.ante)} games",
                              solved.exploitability.max(), EXPLOITABILITY_BOUND,
                              "0 at equilibrium; bound: the batched-solving target of "
                              "docs/benchmark.md"))
  if solved.openspiel_exploitability is not None:
    found.append(checks.same_number(
        f"{label}: exploitability at ante {solved.ante[worst]:g}, bet {solved.bet[worst]:g} (the "
        "largest), kernel vs OpenSpiel", solved.exploitability[worst],
        solved.openspiel_exploitability, "OpenSpiel exploitability of the same average policy"))
  return found


def _draw_regimes(ax) -> None:
  """The closed form's regime boundary 2S = B, and the regime names on either side."""
  ax.plot([0, MAX_STAKE / 2], [0, MAX_STAKE], color="w", lw=2.6, zorder=3)
  ax.plot([0, MAX_STAKE / 2], [0, MAX_STAKE], color="k", lw=1.2, ls="--", zorder=4,
          label=CAPTIONS["boundary_label"])
  for x, y, text in ((0.3, 0.85, "passive\n2S < B"), (0.72, 0.22, "bluffing\n2S > B")):
    ax.text(x * MAX_STAKE, y * MAX_STAKE, text, ha="center", va="center", fontsize=9,
            bbox={"boxstyle": "round", "fc": "w", "ec": "0.6", "alpha": 0.85})


def figure_title(solved: EquilibriumMap) -> str:
  """The figure's title."""
  deck = "" if solved.deck_size == DECK_SIZE else f" with {solved.deck_size} cards"
  return CAPTIONS.fill("map_title", deck=deck, games=len(solved.ante),
                       solver=solver_registry.get_solver(SOLVER).label,
                       iterations=solved.iterations)


SOLVED_CONTOURS = {"color": plotting.ORANGE, "lw": 2.6, "ls": "-"}
CLOSED_CONTOURS = {"color": plotting.BLACK, "lw": 1.1, "ls": ":"}


def _log_norm(values: np.ndarray, top: float) -> matplotlib.colors.LogNorm:
  """A log colour scale from the decade below the smallest value to ``top`` (or the largest
  value, if larger)."""
  low = 10.0 ** np.floor(np.log10(max(values.min(), ERROR_FLOOR)))
  return matplotlib.colors.LogNorm(low, max(top, values.max()))


def plot(solved: EquilibriumMap, title: str) -> matplotlib.figure.Figure:
  """Four heat maps over (ante, bet): the solved p and q (with the closed form's contours), the
  distance to the closed form and the exploitability (log colour scales), each with the regime
  boundary (three cards; the continuous limit has one regime)."""
  n = solved.points
  names = coordinates(solved.deck_size)

  def grid(values: np.ndarray) -> np.ndarray:  # Rows: bets; columns: antes.
    return np.asarray(values, dtype=float).reshape(n, n)

  ante, bet = grid(solved.ante), grid(solved.bet)
  bluffing = grid(solved.q_closed) > 0
  fig, axes = plotting.subplots(2, 2, figsize=(11.5, 10.5))
  panels = [
      (solved.p, solved.p_closed, names.p_title, names.p_label,
       matplotlib.colors.Normalize(0, names.p_top), "viridis", names.p_levels),
      (solved.q, solved.q_closed, names.q_title, names.q_label,
       matplotlib.colors.Normalize(0, 1), "viridis", names.q_levels),
      (np.maximum(solved.distance, ERROR_FLOOR), None, names.distance,
       plotting.axis_label("distance", log=True),
       _log_norm(np.maximum(solved.distance, ERROR_FLOOR), 1e-2), "magma", None),
      (solved.exploitability, None, "exploitability of the average policy",
       plotting.axis_label("exploitability", "chips per hand", log=True),
       _log_norm(solved.exploitability, 1e-3), "magma", None),
  ]
  for ax, (values, closed, subtitle, bar, norm, cmap, levels) in zip(axes.flat, panels):
    mesh = ax.pcolormesh(ante, bet, grid(values), norm=norm, cmap=cmap, shading="nearest")
    fig.colorbar(mesh, ax=ax, label=bar, shrink=0.9)
    if levels is not None:  # In the bluffing regime only: p jumps from 1/2 to 0 across 2S = B.
      for data, style in ((values, SOLVED_CONTOURS), (closed, CLOSED_CONTOURS)):
        lines = ax.contour(ante, bet, np.where(bluffing, grid(data), np.nan), levels=levels,
                           colors=style["color"], linewidths=style["lw"], linestyles=style["ls"])
      # Each closed-form contour carries its level, written on the line near the top right.
      ax.clabel(lines, fmt=lambda level: f"{level:g}", fontsize=8, inline=True)
      ax.plot([], [], **SOLVED_CONTOURS, label=names.contours)
      ax.plot([], [], **CLOSED_CONTOURS, label="the same contours of the closed form")
    if solved.deck_size == DECK_SIZE:
      _draw_regimes(ax)
    ax.set_title(subtitle)
    ax.set_xlabel(plotting.axis_label("ante S", "chips"))
    ax.set_ylabel(plotting.axis_label("bet B", "chips"))
    ax.set_aspect("equal")
    step = MAX_STAKE / n
    ax.set_xlim(step / 2, MAX_STAKE + step / 2)
    ax.set_ylim(step / 2, MAX_STAKE + step / 2)
  plotting.legend_below(fig, ncol=2)
  fig.suptitle(title)
  return fig


def caption(solved: EquilibriumMap) -> str:
  """The figure's caption and the timing line for the report section."""
  last = solved.convergence.iloc[-1]
  three_cards = solved.deck_size == DECK_SIZE
  deck = "" if three_cards else f", deck_size={solved.deck_size}"
  return "\n".join([
      CAPTIONS.fill("map_intro", points=solved.points, games=len(solved.ante), deck=deck,
                    low=MAX_STAKE / solved.points, high=MAX_STAKE,
                    solver=solver_registry.get_solver(SOLVER).label,
                    iterations=solved.iterations)
      + " " + CAPTIONS["three_card_map" if three_cards else "limit_map"],
      "",
      CAPTIONS.fill("map_largest", iterations=int(last.iterations), distance=last.max_distance,
                    tolerance=strategy_tolerance(solved.deck_size),
                    exploitability=last.max_exploitability, bound=EXPLOITABILITY_BOUND),
      "",
      "| iterations T | largest exploitability (chips per hand) "
      "| largest distance max(abs(p - p*), abs(q - q*)) to the closed form |",
      "|---|---|---|",
      *(f"| {int(r.iterations)} | {r.max_exploitability:.2e} | {r.max_distance:.2e} |"
        for r in solved.convergence.itertuples()),
      "",
      CAPTIONS.fill("map_timing", games=len(solved.ante), iterations=solved.iterations,
                    points=len(solved.convergence), seconds=solved.seconds,
                    cpu_seconds=solved.cpu_seconds),
  ])
