"""The simplified Kuhn game's utility landscape over its two free parameters, and CFR's path on it.

In the simplified (variable-ante) game ``kuhn_poker_ante(simplified=True)`` with ante S and bet B
and three cards L < M < H, player 0 passes (showdown for the antes) or bets; facing a bet player 1
folds or calls. Every choice but two is dominated or forced:

* player 1 facing a bet calls with H (a sure win of S + B instead of losing S) and folds with L
  (losing S instead of the sure loss S + B): conditionally dominant at those information sets,
  whatever player 0 holds;
* given that, player 0 bets H (S + B q against M, S against L, versus S for a pass: weakly
  dominant) and passes M (a bet loses S + B to H's call and still wins only S from L's fold:
  strictly dominated).

What is left is player 0's bluff probability p (bet with L, information state "0") and player 1's
call probability q (call with M facing a bet, "1b"). Summing the six deals (probability 1/6
each), player 0's expected utility is bilinear,

  U(p, q) = [B q + (2 S - B) p - (2 S + B) p q] / 6,

so the reduced game is the 2x2 zero-sum matrix game with rows p in {0, 1} and columns
q in {0, 1}, whose saddle point is the game's equilibrium (interior at p = B / (2 S + B),
q = (2 S - B) / (2 S + B) when 2 S > B; see ``algorithms.exact.kuhn_equilibria`` for every regime).
The tests compare U with this formula and with a direct enumeration of the deals. This module
does not trust the formula: it evaluates U exactly with OpenSpiel
(``expected_game_score.policy_value`` on the full game's ``TabularPolicy`` at the four corners;
bilinearity makes the corners determine U everywhere, which the tests check at other points),
and checks the reduction by measuring the
full game's exploitability of the reduced saddle point.

The CFR path: CFR on the full game, each iterate's current and average policies projected onto
(p, q) (their probabilities at "0" and "1b"). The field drawn with the path is the players' own
utility gradients (dU/dp, -dU/dq), the direction each player's regret pushes it; it circles the
equilibrium, so the current strategy cycles while the average spirals in. The gradient of U
itself has a saddle there.

The second figure (``experiments.commands.landscape.equilibrium_map``): the solved (p, q) over a
dense grid of antes and bets, all games solved in one batch by CFR+, against the closed form's
regimes. ``--deck-size N`` solves that grid on an N-card deck instead, against the continuous
limit (von Neumann's poker model) on range vectors; the surface and the path stay on three
cards, where the reduction to (p, q) holds.
"""

import argparse
import dataclasses
from typing import List, Tuple

from matplotlib import patheffects
import matplotlib.figure
import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel
import tqdm

from algorithms.exact import kuhn_equilibria
from algorithms.exact import regret_bounds
from experiments.commands.landscape import equilibrium_map
from experiments.commands.landscape.captions import CAPTIONS
from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import plotting
from experiments.harness import policies
from experiments.harness import solver_registry
from experiments.harness import solver_runs
from experiments.harness import tables
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

NAME = "landscape"
REPORT_ORDER = 80  # Place in the report (and in ``run``).
# No jobs or tasks: ``run`` runs it in a side process, beside the pool (``experiments.cli``).
SIDE_PROCESS = True
HELP = ("Simplified Kuhn: utility over (bluff, call) probabilities, CFR's path on it, and the "
        "solved (bluff, call) over an (ante, bet) grid.")

ITERATIONS = arguments.Budget(default=2000, quick=300)
# The estimate of a run (``estimate_seconds``), in seconds: figures and checks; reading each CFR
# iterate's (p, q) per solver iteration (besides the solver's own ``SolverSpec`` cost); the
# map's batched CFR+ per game and iteration on three cards (20 s for 40 x 40 games, 5,000
# iterations) and per game, iteration and card on range vectors (3.7 s for 12 x 12 games of 100
# cards).
_FIXED_SECONDS = 3.0
_PATH_SECONDS_PER_ITERATION = 1e-4
_MAP_SECONDS_PER_GAME_ITERATION = 2.5e-6
_MAP_SECONDS_PER_GAME_ITERATION_CARD = 5e-8
DEFAULT_SOLVER = "our_cfr"
GRID = 101

# Information states (card then betting history) and the actions the reduction fixes.
BLUFF_STATE = equilibrium_map.BLUFF_STATE  # "0": player 0 bets the lowest card w.p. p.
CALL_STATE = equilibrium_map.CALL_STATE  # "1b": player 1 calls with the middle card w.p. q.
FIXED_ACTIONS = {
    "2": 1,  # Player 0 bets the highest card (weakly dominant).
    "1": 0,  # Player 0 passes the middle card (betting it is dominated).
    "2b": 1,  # Player 1 calls with the highest card (dominant).
    "0b": 0,  # Player 1 folds the lowest card (dominant).
}


def load_game(ante: float, bet: float = 1.0) -> pyspiel.Game:
  """The simplified three-card game; ValueError for a non-positive ante or bet."""
  for name, value in (("ante", ante), ("bet", bet)):
    if not value > 0:
      raise ValueError(f"--{name} must be a positive number, got {value}")
  return game_loader.load_game(game_loader.kuhn_game_string(ante, bet, simplified=True))


def reduced_policy(game: pyspiel.Game, p: float, q: float) -> policy_lib.TabularPolicy:
  """The full game's policy with bluff probability ``p``, call probability ``q`` and every other
  choice at its dominant action."""
  pol = policy_lib.TabularPolicy(game)
  for state, probability_of_bet in {**FIXED_ACTIONS, BLUFF_STATE: p, CALL_STATE: q}.items():
    if state not in pol.state_lookup:
      raise ValueError(f"game {game} has no information state {state!r}; the landscape needs the "
                       "three-card simplified game")
    pol.action_probability_array[pol.state_lookup[state]] = [1 - probability_of_bet,
                                                             probability_of_bet]
  return pol


def utility(game: pyspiel.Game, p: float, q: float) -> float:
  """Player 0's exact expected utility U(p, q), by OpenSpiel's ``policy_value``."""
  pol = reduced_policy(game, p, q)
  return policies.expected_value(game, pol, pol)


@dataclasses.dataclass(frozen=True)
class Bilinear:
  """U(p, q) = a + b p + c q + d p q."""

  a: float
  b: float
  c: float
  d: float

  @classmethod
  def from_game(cls, game: pyspiel.Game) -> "Bilinear":
    """The coefficients from U at the four corners of the unit square (exact for bilinear U)."""
    u00, u10, u01, u11 = (utility(game, p, q) for p, q in ((0, 0), (1, 0), (0, 1), (1, 1)))
    return cls(u00, u10 - u00, u01 - u00, u11 - u10 - u01 + u00)

  def __call__(self, p, q):
    return self.a + self.b * p + self.c * q + self.d * p * q

  def gradient(self, p, q) -> Tuple[np.ndarray, np.ndarray]:
    """(dU/dp, dU/dq) = (b + d q, c + d p)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return self.b + self.d * q, self.c + self.d * p

  def saddle_point(self) -> Tuple[float, float]:
    """A saddle point (p, q) of U on [0, 1]^2: max over p, min over q (the 2x2 game's solution).

    Interior when d != 0 and (-c/d, -b/d) lies in the square (both players indifferent);
    otherwise a pure saddle at a corner (a 2x2 zero-sum game without a pure saddle point has a
    fully mixed one, so one of the two exists).
    """
    if self.d != 0:
      p, q = -self.c / self.d, -self.b / self.d
      if 0 <= p <= 1 and 0 <= q <= 1:
        return p, q
    for p in (0.0, 1.0):
      for q in (0.0, 1.0):
        if self(p, q) >= max(self(0, q), self(1, q)) and self(p, q) <= min(self(p, 0), self(p, 1)):
          return p, q
    raise AssertionError(f"no saddle point found for {self}")

  def saddle_gap(self, p: float, q: float) -> float:
    """max_p' U(p', q) - min_q' U(p, q') >= 0, zero exactly at a saddle point (the reduced
    game's NashConv)."""
    return max(self(0, q), self(1, q)) - min(self(p, 0), self(p, 1))


@dataclasses.dataclass
class Path:
  """CFR's iterates projected onto (p, q): arrays of shape (T,)."""

  current_p: np.ndarray
  current_q: np.ndarray
  average_p: np.ndarray
  average_q: np.ndarray
  average_policy: policy_lib.TabularPolicy  # The final average policy.


def cfr_path(game: pyspiel.Game, solver: str, iterations: int, seed: int = 0,
             progress: bool = False) -> Path:
  """Runs a registered CFR solver on the full game and records, after every iteration, the
  current and average policies' bet probabilities at "0" (p) and "1b" (q)."""
  instance = solver_registry.get_solver(solver).build(game, seed)
  if not hasattr(instance, "current_policy"):
    raise ValueError(f"solver {solver!r} has no current policy; use a full CFR solver such as cfr "
                     "or cfr_plus")
  out = np.empty((4, iterations))
  for t in tqdm.trange(iterations, desc="landscape CFR", disable=not progress, leave=False):
    instance.evaluate_and_update_policy()
    current = instance.current_policy()
    average = solver_runs.tabular_average_policy(game, instance)
    for row, pol in ((0, current), (2, average)):
      out[row, t] = pol.policy_for_key(BLUFF_STATE)[1]
      out[row + 1, t] = pol.policy_for_key(CALL_STATE)[1]
  return Path(*out, average_policy=average.__copy__())


def grid_frame(surface: Bilinear, points: int = GRID) -> pd.DataFrame:
  """U and its gradient on a ``points`` x ``points`` grid of the unit square."""
  p, q = np.meshgrid(np.linspace(0, 1, points), np.linspace(0, 1, points))
  du_dp, du_dq = surface.gradient(p, q)
  return pd.DataFrame({"p": p.ravel(), "q": q.ravel(), "utility": surface(p, q).ravel(),
                       "dU_dp": du_dp.ravel(), "dU_dq": du_dq.ravel()})


def path_frame(path: Path) -> pd.DataFrame:
  return pd.DataFrame({"iteration": np.arange(1, len(path.current_p) + 1),
                       "current_p": path.current_p, "current_q": path.current_q,
                       "average_p": path.average_p, "average_q": path.average_q})


CURRENT_POINTS = 150  # About this many of CFR's current strategies are drawn.
LEVEL_SET = "U = game value (the level set through the saddle)"


def plot(surface: Bilinear, path: Path, equilibrium: Tuple[float, float],
         title: str) -> matplotlib.figure.Figure:
  """Two panels over (p, q): U with the field of its gradient (a saddle at the equilibrium), and U
  with the players' own gradient field (dU/dp, -dU/dq) and CFR's current and average paths.

  The current strategy is drawn as dots at one iteration in k (about ``CURRENT_POINTS`` of
  them, darker as t grows): all of them would hide the map under a solid ring.
  """
  fine = np.linspace(0, 1, GRID)
  p, q = np.meshgrid(fine, fine)
  u = surface(p, q)
  coarse = np.linspace(0, 1, 15)
  cp, cq = np.meshgrid(coarse, coarse)
  du_dp, du_dq = surface.gradient(cp, cq)
  fig, axes = plotting.subplots(1, 2, figsize=(12, 6.0))
  axes = axes[0]
  interior = 0 < equilibrium[0] < 1 and 0 < equilibrium[1] < 1
  fields = [(du_dp, du_dq, "gradient of U: " + ("a saddle at the equilibrium" if interior else
                                                "the equilibrium is a pure saddle point")),
            (du_dp, -du_dq, "each player's own gradient (dU/dp, -dU/dq), and CFR")]
  limit = np.abs(u).max()
  for ax, (field_p, field_q, subtitle) in zip(axes, fields):
    mesh = ax.pcolormesh(p, q, u, cmap="RdBu_r", shading="auto", vmin=-limit, vmax=limit)
    ax.contour(p, q, u, levels=[surface(*equilibrium)], colors="k", linewidths=0.8,
               linestyles="--")
    ax.plot([], [], color="k", linewidth=0.8, linestyle="--", label=LEVEL_SET)
    ax.quiver(cp, cq, field_p, field_q, color="0.25", alpha=0.7)
    ax.set_title(subtitle)
    ax.set_xlabel("p: player 0 bets the lowest card (bluff)")
    ax.set_ylabel("q: player 1 calls with the middle card")
    ax.set_aspect("equal")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
  # A thin bar close to the right panel: with square panels the default padding leaves a gap.
  fig.colorbar(mesh, ax=axes, label="U(p, q): player 0's expected utility (chips per hand)",
               shrink=0.85, fraction=0.03, pad=0.02)
  step = max(1, len(path.current_p) // CURRENT_POINTS)
  shown = np.arange(0, len(path.current_p), step)
  axes[1].scatter(path.current_p[shown], path.current_q[shown], c=shown, cmap="Greys",
                  vmin=-0.3 * len(path.current_p), vmax=len(path.current_p), s=9,
                  edgecolors="none", zorder=3)
  axes[1].plot([], [], "o", color="0.3", ms=3, label="current strategy ("
               + (f"one iteration in {step}, " if step > 1 else "") + "darker later)")
  axes[1].plot(path.average_p, path.average_q, color=plotting.YELLOW, lw=2.2, zorder=4,
               path_effects=[patheffects.withStroke(linewidth=3.6, foreground="k")],
               label="average strategy")
  axes[1].plot(path.average_p[0], path.average_q[0], "o", color="k", ms=5, zorder=5,
               label="start (iteration 1)")
  for ax in axes:
    ax.plot(*equilibrium, marker="*", color=plotting.YELLOW, mec="k", ms=16, ls="none",
            clip_on=False, zorder=6, label="closed-form equilibrium (p, q)")
  plotting.legend_below(fig, ncol=3)
  fig.suptitle(title)
  return fig


@dataclasses.dataclass
class Landscape:
  """Everything the experiment computes for one game.

  Attributes:
    game: the simplified game.
    surface: U's bilinear coefficients (from OpenSpiel's policy_value).
    closed_form: the closed-form equilibrium of ``algorithms.exact.kuhn_equilibria``.
    path: CFR's projected path.
    final_nash_conv: OpenSpiel's NashConv of CFR's final average policy (full game).
  """

  game: pyspiel.Game
  surface: Bilinear
  closed_form: kuhn_equilibria.KuhnEquilibrium
  path: Path
  final_nash_conv: float

  @property
  def equilibrium(self) -> Tuple[float, float]:
    """The closed-form (p, q)."""
    return float(self.closed_form.p0_bluff), float(self.closed_form.p1_call_mid)


def compute(ante: float, bet: float, solver: str, iterations: int, seed: int = 0,
            progress: bool = False) -> Landscape:
  """Builds the surface, the closed form and CFR's path for ``kuhn_poker_ante(simplified)``."""
  if iterations < 1:
    raise ValueError(f"--iterations must be a positive integer, got {iterations}")
  game = load_game(ante, bet)
  rules = game.rules
  closed = kuhn_equilibria.kuhn_equilibrium(rules.ante, rules.bet, simplified=True)
  path = cfr_path(game, solver, iterations, seed, progress)
  return Landscape(game, Bilinear.from_game(game), closed, path,
                   float(exploitability.nash_conv(game, path.average_policy)))


def landscape_checks(land: Landscape) -> List[Check]:
  """The closed form against the OpenSpiel surface, the reduction against the full game, and
  CFR's average against its convergence bound."""
  name = str(land.game)
  p_star, q_star = land.equilibrium
  saddle = land.surface.saddle_point()
  found = [
      checks.same_number(f"landscape {name}: saddle gap of U at the closed-form (p, q)",
                         land.surface.saddle_gap(p_star, q_star), 0.0,
                         "0 at a saddle point; U from OpenSpiel policy_value, point from "
                         "kuhn_equilibria"),
      checks.same_number(f"landscape {name}: U at the closed-form (p, q)",
                         utility(land.game, p_star, q_star), float(land.closed_form.value),
                         "closed-form game value (kuhn_equilibria)"),
      checks.same_number(f"landscape {name}: full-game NashConv of the surface's saddle point",
                         exploitability.nash_conv(land.game, reduced_policy(land.game, *saddle)),
                         0.0, "0 at a full-game equilibrium (OpenSpiel nash_conv): the reduction "
                         "is exact"),
      checks.at_most(f"landscape {name}: NashConv of CFR's average after "
                     f"{len(land.path.average_p)} iterations", land.final_nash_conv,
                     regret_bounds.cfr_nash_conv_bound(land.game, len(land.path.average_p)),
                     "0 at equilibrium; CFR regret bound (Zinkevich et al. 2007)"),
  ]
  if not land.closed_form.family:  # A unique equilibrium: the surface's saddle must be it.
    found.append(checks.same_number(f"landscape {name}: |saddle point of U - closed form|",
                                    np.hypot(saddle[0] - p_star, saddle[1] - q_star), 0.0,
                                    "closed form (kuhn_equilibria)"))
  return found


def summary_markdown(land: Landscape, solver: str) -> str:
  s = land.surface
  p_star, q_star = land.equilibrium
  path = land.path
  distance = np.hypot(path.average_p[-1] - p_star, path.average_q[-1] - q_star)
  current_distance = np.hypot(path.current_p[-1] - p_star, path.current_q[-1] - q_star)
  return "\n".join([
      CAPTIONS.fill("intro", game=land.game, a=s.a, b=s.b, c=s.c, d=s.d, abs_d=abs(s.d)),
      "",
      "| point | p (P0 bets J) | q (P1 calls with Q) | U (chips per hand, player 0) |",
      "|---|---|---|---|",
      f"| closed form ({land.closed_form.regime}) | {p_star:.6f} | {q_star:.6f} | "
      f"{float(land.closed_form.value):+.6f} |",
      f"| saddle point of the OpenSpiel surface | {s.saddle_point()[0]:.6f} | "
      f"{s.saddle_point()[1]:.6f} | {s(*s.saddle_point()):+.6f} |",
      f"| {solver} average after {len(path.average_p)} iterations | {path.average_p[-1]:.6f} | "
      f"{path.average_q[-1]:.6f} | {s(path.average_p[-1], path.average_q[-1]):+.6f} |",
      f"| {solver} current after {len(path.average_p)} iterations | {path.current_p[-1]:.6f} | "
      f"{path.current_q[-1]:.6f} | {s(path.current_p[-1], path.current_q[-1]):+.6f} |",
      "",
      CAPTIONS.fill("distances", distance=distance, nash_conv=land.final_nash_conv,
                    current_distance=current_distance),
      "",
      CAPTIONS["figure"],
  ])


def figure_title(ante: float, bet: float, solver: str) -> str:
  """The title of ``plot``'s figure: the game and the solver whose path it draws."""
  return CAPTIONS.fill("figure_title", game=game_loader.kuhn_game_string(ante, bet, True),
                       solver=solver_registry.get_solver(solver).label)


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--ante", type=arguments.positive_float, default=1.0, metavar="S",
                      help="ante S (> 0; default 1)")
  parser.add_argument("--bet", type=arguments.positive_float, default=1.0, metavar="B",
                      help="bet size B (> 0; default 1)")
  parser.add_argument("--solver", type=arguments.solver_name, default=DEFAULT_SOLVER,
                      metavar="NAME", help="registered full-width CFR solver with a current "
                      f"policy (default {DEFAULT_SOLVER}, the project's CFRSolver; cfr is "
                      "OpenSpiel's)")
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help=ITERATIONS.help("CFR iterations"))
  parser.add_argument("--grid", type=GRID_POINTS, metavar="N",
                      help=equilibrium_map.GRID.help("points per axis of the (ante, bet) "
                                                     "equilibrium map, >= 2"))
  parser.add_argument("--deck-size", type=arguments.deck_size, default=equilibrium_map.DECK_SIZE,
                      metavar="N", help="cards of the equilibrium map's games (>= 2; default "
                      f"{equilibrium_map.DECK_SIZE}; another deck is compared with the "
                      "continuous limit, on range vectors: about 20 us per game and iteration "
                      "at 1,000 cards); the surface and CFR's path are three-card")


GRID_POINTS = arguments.number_type(int, lambda v: v >= 2, "an integer >= 2")
MAP_FIGURE = "landscape_equilibrium_map.png"
MAP_TABLE = "landscape_equilibrium_map.csv"


def estimate_seconds(solver: str, iterations: int, points: int, deck_size: int) -> float:
  """The estimated wall time of ``run`` (the constants above)."""
  histories = game_loader.histories(game_loader.kuhn_game_string(1.0, 1.0, True))
  path = iterations * (solver_registry.get_solver(solver).seconds_per_iteration(histories)
                       + _PATH_SECONDS_PER_ITERATION)
  per_game_iteration = (_MAP_SECONDS_PER_GAME_ITERATION if deck_size == equilibrium_map.DECK_SIZE
                        else _MAP_SECONDS_PER_GAME_ITERATION_CARD * deck_size)
  return (_FIXED_SECONDS + path
          + points**2 * equilibrium_map.ITERATIONS * per_game_iteration)


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  iterations = ITERATIONS.resolve(args.iterations, ctx.quick)
  points = equilibrium_map.GRID.resolve(args.grid, ctx.quick)
  ctx.check_estimate(estimate_seconds(args.solver, iterations, points, args.deck_size),
                     f"the path of {iterations:,} iterations and the {points} x {points} map",
                     "fewer --iterations, a smaller --grid or --deck-size")
  land = compute(args.ante, args.bet, args.solver, iterations, ctx.seed, ctx.progress)
  tables.write_csv(grid_frame(land.surface), ctx.out / "landscape_grid.csv")
  tables.write_csv(path_frame(land.path), ctx.out / "landscape_path.csv")
  plotting.save_figure(plot(land.surface, land.path, land.equilibrium,
                            figure_title(args.ante, args.bet, args.solver)),
                       ctx.out / "landscape.png")
  solved = equilibrium_map.solve_grid(points, deck_size=args.deck_size)
  tables.write_csv(solved.frame(), ctx.out / MAP_TABLE)
  plotting.save_figure(equilibrium_map.plot(solved, equilibrium_map.figure_title(solved)),
                       ctx.out / MAP_FIGURE)
  return ReportSection(
      title=f"Landscape of the simplified game (ante {args.ante:g}, bet {args.bet:g})",
      markdown=summary_markdown(land, args.solver) + "\n\n" + equilibrium_map.caption(solved),
      figures=["landscape.png", MAP_FIGURE],
      tables=["landscape_grid.csv", "landscape_path.csv", MAP_TABLE],
      checks=landscape_checks(land) + equilibrium_map.map_checks(solved))
