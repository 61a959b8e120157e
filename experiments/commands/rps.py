"""Regret matching on rock-paper-scissors: fixed opponents, self-play, ReBeL's modified game.

Regret matching (Hart & Mas-Colell, "A simple adaptive procedure leading to correlated
equilibrium", Econometrica 2000) plays, at iteration t + 1, each action with probability
proportional to its positive cumulative regret

  R^t(a) = sum_{s <= t} (u^s(a) - u^s . sigma^s),   sigma^{t+1}(a) = R^t(a)^+ / sum_b R^t(b)^+,

and uniformly when no regret is positive. Here u^s is the learner's vector of expected payoffs of
its pure actions against the opponent's strategy at iteration s (full-information feedback, as in
CFR), or, when the opponent's action is sampled, the payoff column of the sampled action. The
average regret after T iterations is at most Delta sqrt(|A|) / sqrt(T), with Delta the payoff range
(Zinkevich, Johanson, Bowling, Piccione, "Regret minimization in games with incomplete
information", NIPS 2007, Theorem 2 for one information set; Cesa-Bianchi & Lugosi 2006, 2.1).

In self-play of a two-player zero-sum game, the average strategies (sigma_bar_0, sigma_bar_1) form
an epsilon-Nash equilibrium with epsilon (the NashConv) at most the sum of both players' average
regrets, so the average converges to the game's equilibrium.

Games are OpenSpiel matrix games: ``matrix_rps`` and ReBeL's modified RPS (Brown et al. 2020:
every win or loss involving scissors pays 2), built from ``matrix_rps``'s payoffs; the payoffs
are always read from the game object. References: the game's equilibrium and value by the
project's exact sequence-form LP (``algorithms.exact.sequence_form_lp``), itself checked against the
published equilibria.
"""

import argparse
import dataclasses
from typing import List, Optional, Sequence, Tuple

import matplotlib.figure
import numpy as np
import pandas as pd
import pyspiel
from scipy import sparse

from algorithms.cfr import regret_matching
from algorithms.exact import regret_bounds
from algorithms.exact import sequence_form_lp
from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import jobs as jobs_lib
from experiments.harness import plotting
from experiments.harness import tables
from experiments.harness import templates
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.section import ReportSection

NAME = "rps"
REPORT_ORDER = 50  # Place in the report (and in ``run``).
# No jobs or tasks: ``run`` runs it in a side process, beside the pool (``experiments.cli``).
SIDE_PROCESS = True
HELP = "Regret matching on rock-paper-scissors: fixed opponents, self-play, modified RPS."

ITERATIONS = arguments.Budget(default=10_000, quick=1_000)
# The report's words (paragraphs, the figures' caption, long titles and labels), in ``rps.md``
# beside this file.
CAPTIONS = templates.load(__package__, "rps.md")
# Fixed opponents (rock/paper/scissors percentages): two with a pure best response (scissors),
# one close to the other, and uniform, against which every strategy is a best response.
FIXED_OPPONENTS = {
    "0/90/10": (0.0, 0.9, 0.1),
    "10/80/10": (0.1, 0.8, 0.1),
    "uniform": (1 / 3, 1 / 3, 1 / 3),
}
SCISSORS_FACTOR = 2.0  # ReBeL's modified RPS: wins and losses involving scissors pay 2.
# Equilibria from the literature, to check the LP reference itself.
PUBLISHED_EQUILIBRIA = {  # short name: (equilibrium of both players, value, source)
    "matrix_rps": (np.full(3, 1 / 3), 0.0,
                   "uniform, value 0: the unique equilibrium of the symmetric game"),
    "matrix_rps_modified": (np.array([0.4, 0.4, 0.2]), 0.0,
                            "Brown et al. 2020 (ReBeL), modified RPS example"),
}


def _regret_matching(cumulative_regret: np.ndarray) -> np.ndarray:
  """The project's regret matching (one information set holding every action)."""
  return regret_matching.regret_matching(
      cumulative_regret, regret_matching.Blocks.from_sizes([len(cumulative_regret)]))


def rps_game() -> pyspiel.MatrixGame:
  """OpenSpiel's rock-paper-scissors matrix game."""
  return pyspiel.load_matrix_game("matrix_rps")


def modified_rps_game() -> pyspiel.MatrixGame:
  """ReBeL's modified RPS: ``matrix_rps`` with every payoff involving scissors doubled.

  Its unique equilibrium is (0.4, 0.4, 0.2) for both players, with value 0 (Brown, Bakhtin,
  Lerer, Gong, "Combining deep reinforcement learning and search for imperfect-information
  games", NeurIPS 2020, the modified RPS example of its section on public belief states).
  """
  base = rps_game()
  names = [base.row_action_name(a) for a in range(base.num_rows())]
  scissors = names.index("Scissors")
  scale = np.ones((base.num_rows(), base.num_cols()))
  scale[scissors, :] = SCISSORS_FACTOR
  scale[:, scissors] = SCISSORS_FACTOR
  return pyspiel.create_matrix_game(
      "matrix_rps_modified", "Modified rock-paper-scissors (ReBeL)", names,
      [base.col_action_name(a) for a in range(base.num_cols())],
      (base.row_utilities() * scale).tolist(), (base.col_utilities() * scale).tolist())


def payoff_range(game: pyspiel.MatrixGame) -> float:
  """Delta, the largest difference between two payoffs of one player."""
  return float(max(np.ptp(game.row_utilities()), np.ptp(game.col_utilities())))


def regret_bound(game: pyspiel.MatrixGame, iterations: np.ndarray) -> np.ndarray:
  """Regret matching's average-regret bound Delta sqrt(|A|) / sqrt(T) on ``game``
  (``regret_bounds.regret_matching_bound``, Zinkevich et al. 2007, Theorem 3)."""
  actions = max(game.num_rows(), game.num_cols())
  return regret_bounds.regret_matching_bound(payoff_range(game), actions,
                                             np.asarray(iterations))


def matrix_nash_conv(game: pyspiel.MatrixGame, row: np.ndarray, col: np.ndarray) -> float:
  """NashConv of a strategy profile: sum over players of (best-response value - value).

  Args:
    game: the matrix game.
    row: the row player's mixed strategy, or a (T, rows) array of strategies.
    col: the column player's mixed strategy, or a (T, cols) array.

  Returns:
    max_r (A y)_r - x.A.y + max_c (x.B)_c - x.B.y, with A and B the row and column payoffs
    (an array of T values for stacked strategies).
  """
  a, b = game.row_utilities(), game.col_utilities()
  row_vs = col @ a.T  # Payoff of each row action against col: (A y)_r.
  col_vs = row @ b  # Payoff of each column action against row: (x B)_c.
  value_row = np.sum(row * row_vs, axis=-1)
  value_col = np.sum(col * col_vs, axis=-1)
  return row_vs.max(axis=-1) - value_row + col_vs.max(axis=-1) - value_col


def _one_decision_constraints(actions: int) -> sparse.csr_matrix:
  """E of a player with one information set: x[empty] = 1 and sum_a x[a] - x[empty] = 0."""
  return sparse.csr_matrix([[1.0] + [0.0] * actions, [-1.0] + [1.0] * actions])


def equilibrium(game: pyspiel.MatrixGame) -> Tuple[np.ndarray, np.ndarray, float]:
  """An equilibrium (row, col) of a zero-sum matrix game and its value for the row player.

  A matrix game is a sequential game in which each player has one information set, so its
  sequence form (Koller, Megiddo, von Stengel 1996) has the empty sequence and one sequence per
  action: a realization plan is (1, mixed strategy), with constraints E = [[1, 0...0],
  [-1, 1...1]], and the payoff between sequences is A bordered by a zero row and column. The
  project's LP (``sequence_form_lp.solve_sequence_form``: max_x min_y x^T A y, one LP per player
  on HiGHS) then returns an equilibrium and the value.

  Raises:
    ValueError: if the game is not zero-sum.
  """
  a = game.row_utilities()
  if not np.array_equal(game.col_utilities(), -a):
    raise ValueError(f"game {game.get_type().short_name} is not zero-sum")
  payoff = np.zeros((a.shape[0] + 1, a.shape[1] + 1))
  payoff[1:, 1:] = a
  solution = sequence_form_lp.solve_sequence_form(
      payoff, _one_decision_constraints(a.shape[0]), _one_decision_constraints(a.shape[1]))
  row, col = solution.realization_plans
  return row[1:], col[1:], solution.value


@dataclasses.dataclass
class Run:
  """One regret-matching run.

  Attributes:
    name: the scenario, e.g. "vs 0/90/10" or "self-play".
    game: the matrix game.
    opponent: the column player's fixed mixed strategy (None in self-play).
    average: (T, actions) average strategy of the learner (the row player) after each iteration.
    average_col: (T, actions) average strategy of the column player (self-play only).
    regret: (T,) the learner's average external regret after each iteration (fixed opponent), or
      NashConv of the average profile (self-play).
  """

  name: str
  game: pyspiel.MatrixGame
  opponent: Optional[np.ndarray]
  average: np.ndarray
  average_col: Optional[np.ndarray]
  regret: np.ndarray


def _running_average(strategies: np.ndarray) -> np.ndarray:
  return np.cumsum(strategies, axis=0) / np.arange(1, len(strategies) + 1)[:, None]


def against_fixed(game: pyspiel.MatrixGame, opponent: Sequence[float], iterations: int,
                  rng: Optional[np.random.Generator] = None, name: str = "") -> Run:
  """Regret matching for the row player against a fixed column strategy.

  Args:
    game: the matrix game.
    opponent: the column player's fixed mixed strategy.
    iterations: T.
    rng: if given, the opponent's action is sampled each iteration and the learner's payoff
      vector is that action's column (sampled feedback); else the learner sees the expected
      payoffs A y.
    name: the run's label.

  Returns:
    The run; ``regret`` is max_a sum_t u^t(a) / T - sum_t u^t . sigma^t / T, the external regret
    with respect to the payoff vectors the learner saw.
  """
  opponent = np.asarray(opponent, dtype=float)
  if opponent.shape != (game.num_cols(),) or np.any(opponent < 0) or not np.isclose(
      opponent.sum(), 1.0):
    raise ValueError(f"opponent strategy must be {game.num_cols()} probabilities summing to 1, "
                     f"got {opponent.tolist()}")
  a = game.row_utilities()
  cumulative_regret = np.zeros(game.num_rows())
  cumulative_payoff = np.zeros(game.num_rows())
  earned = 0.0
  strategies = np.empty((iterations, game.num_rows()))
  regret = np.empty(iterations)
  columns = (rng.choice(game.num_cols(), size=iterations, p=opponent)
             if rng is not None else None)
  for t in range(iterations):
    sigma = _regret_matching(cumulative_regret)
    u = a[:, columns[t]] if columns is not None else a @ opponent
    cumulative_regret += u - u @ sigma
    cumulative_payoff += u
    earned += u @ sigma
    strategies[t] = sigma
    regret[t] = (cumulative_payoff.max() - earned) / (t + 1)
  return Run(name, game, opponent, _running_average(strategies), None, regret)


def self_play(game: pyspiel.MatrixGame, iterations: int, rng: np.random.Generator,
              name: str = "") -> Run:
  """Both players run regret matching with simultaneous updates (Hart & Mas-Colell 2000).

  The first strategies are drawn from a flat Dirichlet distribution (seeded): from the uniform
  profile, regret matching on RPS never moves, since every regret stays 0.

  Returns:
    The run; ``regret`` is the NashConv of the average profile after each iteration.
  """
  a, b = game.row_utilities(), game.col_utilities()
  regrets = [np.zeros(game.num_rows()), np.zeros(game.num_cols())]
  sigma = [rng.dirichlet(np.ones(game.num_rows())), rng.dirichlet(np.ones(game.num_cols()))]
  rows = np.empty((iterations, game.num_rows()))
  cols = np.empty((iterations, game.num_cols()))
  for t in range(iterations):
    if t > 0:
      sigma = [_regret_matching(regrets[0]), _regret_matching(regrets[1])]
    rows[t], cols[t] = sigma
    u_row = a @ sigma[1]
    u_col = sigma[0] @ b
    regrets[0] += u_row - u_row @ sigma[0]
    regrets[1] += u_col - u_col @ sigma[1]
  average_row, average_col = _running_average(rows), _running_average(cols)
  return Run(name, game, None, average_row, average_col,
             matrix_nash_conv(game, average_row, average_col))


def run_all(iterations: int, seed: int) -> List[Run]:
  """The five scenarios: three fixed opponents on RPS (uniform twice: expected and sampled
  feedback) and self-play on RPS and on the modified game."""
  rps, modified = rps_game(), modified_rps_game()
  runs = [against_fixed(rps, p, iterations, name=f"vs {label}")
          for label, p in FIXED_OPPONENTS.items()]
  runs.append(against_fixed(rps, FIXED_OPPONENTS["uniform"], iterations,
                            rng=np.random.default_rng(seed), name="vs uniform (sampled)"))
  runs.append(self_play(rps, iterations, np.random.default_rng(seed), name="self-play RPS"))
  runs.append(self_play(modified, iterations, np.random.default_rng(seed),
                        name="self-play modified RPS"))
  return runs


def run_checks(runs: Sequence[Run]) -> List[Check]:
  """Compares every run with exact references.

  * Fixed opponent y: the learner's average payoff against the best-response value max_a (A y)_a
    within the regret bound; where the best response is pure with gap g to the second-best
    action, the average puts probability 1 - (bound / g) or more on it, since
    regret >= (1 - sigma_bar(a*)) g.
  * Uniform opponent: every pure strategy's exact expected payoff is 0.
  * Self-play: NashConv of the average within the sum of both players' regret bounds; the value
    of the average profile equals the equilibrium value within its NashConv (each player's
    deviation gain bounds its distance to the value); the LP's equilibrium and value equal the
    published ones. (The distance of the average to the equilibrium is reported, not checked: no
    a-priori bound on it is at hand that does not restate the NashConv check.)
  """
  out = []
  for run in runs:
    t = len(run.regret)
    game = run.game
    a = game.row_utilities()
    bound = float(regret_bound(game, t))
    if run.opponent is not None:
      payoffs = a @ run.opponent
      sorted_payoffs = np.sort(payoffs)
      gap = sorted_payoffs[-1] - sorted_payoffs[-2]
      out.append(checks.within(f"rps {run.name}: average payoff vs best-response value",
                               run.average[-1] @ payoffs, payoffs.max(), bound,
                               "exact A y; regret-matching bound"))
      if gap > 0:
        best = int(np.argmax(payoffs))
        out.append(checks.within(
            f"rps {run.name}: probability of the best response {game.row_action_name(best)}",
            run.average[-1, best], 1.0, bound / gap,
            "pure best response of A y; regret bound / payoff gap"))
      else:
        out.append(checks.same_number(
            f"rps {run.name}: largest |expected payoff| of a pure strategy",
            np.abs(payoffs).max(), 0.0,
            "exact A y for uniform y (every strategy is a best response)"))
    else:
      row_eq, col_eq, value = equilibrium(game)
      conv = float(run.regret[-1])
      out.append(checks.at_most(f"rps {run.name}: NashConv of the average", conv, 2 * bound,
                                "0 at equilibrium; sum of two regret-matching bounds"))
      out.append(checks.within_nash_conv(f"rps {run.name}: value of the average profile",
                                         run.average[-1] @ a @ run.average_col[-1], value, conv,
                                         "equilibrium value (sequence-form LP)"))
      published, published_value, source = PUBLISHED_EQUILIBRIA[game.get_type().short_name]
      out.append(checks.same_number(f"rps {run.name}: max |LP equilibrium - published|",
                                    max(np.abs(row_eq - published).max(),
                                        np.abs(col_eq - published).max()), 0.0, source))
      out.append(checks.same_number(f"rps {run.name}: LP value", value, published_value, source))
  return out


def strategy_frame(runs: Sequence[Run], points: int = 200) -> pd.DataFrame:
  """Average strategies and regrets of every run at about ``points`` log-spaced iterations."""
  frames = []
  for run in runs:
    t = len(run.regret)
    index = np.array(jobs_lib.measuring_points(t, points)) - 1
    names = [run.game.row_action_name(a) for a in range(run.game.num_rows())]
    frame = pd.DataFrame(run.average[index], columns=names)
    frame.insert(0, "iteration", index + 1)
    frame.insert(0, "scenario", run.name)
    frame["regret_or_nash_conv"] = run.regret[index]
    frame["bound"] = regret_bound(run.game, frame["iteration"].to_numpy())
    frames.append(frame)
  return pd.concat(frames, ignore_index=True)


ACTION_LINES = ("-", "--", "-.")  # Rock, paper, scissors: overlapping averages stay visible.
ACTION_MARKERS = ("o", "s", "^")


def coinciding(run: "Run") -> str:
  """The actions whose average-strategy lines coincide (to 1e-9 at every iteration), e.g.
  "Rock and Paper coincide", "all three lines coincide"; "" when none do."""
  names = [run.game.row_action_name(a) for a in range(run.game.num_rows())]
  groups: List[List[str]] = []
  for a, name in enumerate(names):
    for group in groups:
      if np.allclose(run.average[:, names.index(group[0])], run.average[:, a], atol=1e-9):
        group.append(name)
        break
    else:
      groups.append([name])
  joint = [g for g in groups if len(g) > 1]
  if len(joint) == 1 and len(joint[0]) == len(names):
    return f"all {len(names)} lines coincide"
  return "; ".join(" and ".join(g) + " coincide" for g in joint)
REFERENCE = CAPTIONS["reference_label"]
UNIT = "payoff per round"


def reference_strategy(run: Run) -> Tuple[Optional[np.ndarray], str]:
  """Where the learner's average should go, and a line saying so: the equilibrium (LP) in
  self-play, the pure best response against a fixed opponent, None when every strategy is a best
  response (uniform opponent)."""
  if run.opponent is None:
    row_eq, _, _ = equilibrium(run.game)
    return row_eq, f"equilibrium {_fmt(row_eq, 2)}"
  payoffs = run.game.row_utilities() @ run.opponent
  best = np.flatnonzero(np.isclose(payoffs, payoffs.max()))
  if len(best) > 1:
    return None, "every strategy is a best response"
  return (np.eye(len(payoffs))[best[0]],
          f"best response: pure {run.game.row_action_name(int(best[0]))}")


def plot_strategies(runs: Sequence[Run]) -> matplotlib.figure.Figure:
  """One panel per run: the learner's average strategy against iterations (log x), with the
  strategy it should reach (``reference_strategy``) as grey lines."""
  cols = (len(runs) + 1) // 2
  fig, axes = plotting.subplots(2, cols, figsize=(4.2 * cols, 8.0), sharey=True)
  for ax, run in zip(axes.flat, runs):
    t = np.arange(1, len(run.regret) + 1)
    reference, subtitle = reference_strategy(run)
    if reference is not None:
      for value in sorted(set(np.round(reference, 12))):
        ax.axhline(value, color=plotting.REFERENCE_COLOR, linestyle=(0, (4, 2)), linewidth=1.2,
                   label=REFERENCE, zorder=1)
    actions = run.game.num_rows()
    # Sparse markers, staggered per action along the log axis, keep a line drawn under another
    # visible; the title names the lines that coincide.
    marks = np.unique(np.geomspace(1, len(t), 12).astype(int)) - 1
    for a in range(actions):
      ax.plot(t, run.average[:, a], label=run.game.row_action_name(a),
              color=plotting.PALETTE[a], linestyle=ACTION_LINES[a], marker=ACTION_MARKERS[a],
              markersize=5, markevery=list(marks[a::actions]), markerfacecolor="none")
    same = coinciding(run)
    ax.set_xscale("log")
    ax.set_title(f"{run.name}\n{subtitle}" + (f"\n{same} (markers mark each)" if same else ""))
    ax.set_xlabel(plotting.axis_label("iteration t", log=True))
    if ax.get_subplotspec().is_first_col():  # The rows share their y axis.
      ax.set_ylabel("probability in the average strategy")
  for ax in axes.flat[len(runs):]:
    ax.axis("off")
  plotting.legend_below(fig, ncol=4, order=[
      *(runs[0].game.row_action_name(a) for a in range(runs[0].game.num_rows())), REFERENCE])
  fig.suptitle(CAPTIONS["strategies_title"])
  return fig


def plot_exploitability(runs: Sequence[Run]) -> matplotlib.figure.Figure:
  """Log-log: self-play NashConv and fixed-opponent average regret, with their bounds (dotted:
  regret matching's bound for a fixed opponent, twice it for self-play's NashConv)."""
  fig, axes = plotting.subplots(1, 2, figsize=(11, 5.0))
  self_play_ax, fixed_ax = axes[0]
  zero = []
  for color, run in zip(plotting.PALETTE, runs):  # One colour per run, across both panels.
    ax = self_play_ax if run.average_col is not None else fixed_ax
    t = np.arange(1, len(run.regret) + 1)
    positive = run.regret > 0
    if not positive.any():
      zero.append(run.name)
      continue
    ax.plot(t[positive], run.regret[positive], label=run.name, linewidth=1.2, color=color)
    if run.average_col is not None:
      ax.plot(t, 2 * regret_bound(run.game, t), linestyle=":", linewidth=1.5, color=color,
              label=f"bound for {run.name}: " + r"$2\Delta\sqrt{3/T}$, "
              + rf"$\Delta = {payoff_range(run.game):g}$")
  fixed = [run for run in runs if run.average_col is None]
  if fixed:
    t = np.arange(1, len(fixed[0].regret) + 1)
    fixed_ax.plot(t, regret_bound(fixed[0].game, t), linestyle=":", linewidth=1.5,
                  color=plotting.REFERENCE_COLOR, label="bound for every fixed opponent: "
                  + r"$\Delta\sqrt{3/T}$, " + rf"$\Delta = {payoff_range(fixed[0].game):g}$")
  if zero:
    plotting.note(fixed_ax, "\n".join(f"{name}: regret 0 at every t\n(not drawn on a log axis)"
                                      for name in zero), corner="lower left")
  self_play_ax.set_title("self-play: NashConv of the average profile")
  fixed_ax.set_title("fixed opponents: the learner's average regret")
  plotting.log_log(self_play_ax, "iterations T", "NashConv", yunit=UNIT)
  plotting.log_log(fixed_ax, "iterations T", "average regret", yunit=UNIT)
  plotting.legend_below(fig, ncol=2)
  fig.suptitle(CAPTIONS["regret_title"])
  return fig


def _fmt(strategy: np.ndarray, digits: int = 4) -> str:
  return "(" + ", ".join(f"{p:.{digits}f}" for p in strategy) + ")"


def summary_markdown(runs: Sequence[Run]) -> str:
  """The report text: a table of final average strategies next to their references."""
  rows = ["| scenario | learner's average strategy (rock, paper, scissors) | reference "
          "| average regret, or NashConv in self-play (payoff per round) "
          "| regret-matching bound (payoff per round) |",
          "|---|---|---|---|---|"]
  for run in runs:
    t = len(run.regret)
    if run.opponent is not None:
      payoffs = run.game.row_utilities() @ run.opponent
      best = np.flatnonzero(np.isclose(payoffs, payoffs.max()))
      reference = ("any strategy (all payoffs 0)" if len(best) == len(payoffs) else
                   "pure " + run.game.row_action_name(int(best[0])))
      bound = regret_bound(run.game, t)
    else:
      row_eq, _, _ = equilibrium(run.game)
      distance = np.abs(run.average[-1] - row_eq).max()
      reference = f"equilibrium {_fmt(row_eq)}, distance {distance:.4f}"
      bound = 2 * regret_bound(run.game, t)
    rows.append(f"| {run.name} | {_fmt(run.average[-1])} | {reference} | {run.regret[-1]:.2e} "
                f"| {float(bound):.2e} |")
  return "\n".join([
      CAPTIONS.fill("intro", iterations=len(runs[0].regret)),
      "",
      *rows,
      "",
      CAPTIONS["uniform_note"],
      "",
      CAPTIONS["figures"],
  ])


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--iterations", type=arguments.positive_int, metavar="T",
                      help=ITERATIONS.help("regret-matching iterations per scenario"))


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  runs = run_all(ITERATIONS.resolve(args.iterations, ctx.quick), ctx.seed)
  tables.write_csv(strategy_frame(runs), ctx.out / "rps.csv")
  plotting.save_figure(plot_strategies(runs), ctx.out / "rps_strategies.png")
  plotting.save_figure(plot_exploitability(runs), ctx.out / "rps_exploitability.png")
  return ReportSection(
      title="Rock-paper-scissors: regret matching",
      markdown=summary_markdown(runs),
      figures=["rps_strategies.png", "rps_exploitability.png"],
      tables=["rps.csv"],
      checks=run_checks(runs))
