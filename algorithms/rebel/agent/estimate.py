"""ReBeL's agent where its draws are too many to enumerate: a lower confidence bound of its
exploitability from sampled draws, and a plug-in estimate biased upward.

The agent is a mixture of deterministic agents D (one draw fixed at every search it could run);
its behaviour strategy has the realization plan X = E_D[x^D] (``behaviour``). Its exploitability

    e(X) = (max_b0 v_0(b0, X_1) + max_b1 v_1(b1, X_0) - c) / 2,

v_i(b, X_{-i}) = sum_z u_i(z) pi_c(z) y_b(seq_i(z)) X_{-i}(seq_{-i}(z)) the value of the plan y_b
of response b against the agent's plan and c the utility sum, is a maximum of linear functions
of X. An estimator that sees the plans x^D of n independent draws of D cannot be unbiased for it
in general: from n independent draws only the functionals of their law that are polynomials of
degree <= n are unbiasedly estimable (Halmos, "The theory of unbiased estimation", Annals of
Mathematical Statistics 17, 1946), and e is a maximum over the finitely many pure responses,
piecewise linear and not a polynomial. What can be estimated without bias is a linear
functional of X, and the one used here is the exploitability by a FIXED response b^ = (b^0, b^1):

    e(b^; X) = (v_0(b^0, X_1) + v_1(b^1, X_0) - c) / 2  <=  e(X)  for every b^,

with equality when b^ best-responds to X. ``estimate_exploitability``:

1. draws ``fit_replicates`` replicate plans X~_r (``behaviour.mixed_plans``: exact over the draws
   of the first ``exact_levels`` levels of searches, one sampled draw per replicate below; each
   E[X~_r] = X) and mixes them, X^ = mean_r X~_r (a realization plan, unbiased for X);
2. takes b^i, player i's pure best response to X^_{-i} (``leaves.solvers.best_response``);
3. draws ``replicates`` further replicates, independent of the first (each replicate's draws are
   fresh draws from the agent's own probabilities), and forms
   Z_r = e(b^; X~_r): given b^, E[Z_r] = e(b^; X) (linearity), so mean_r Z_r is unbiased for
   e(b^; X), and mean +- t_{n-1, (1 + confidence) / 2} s / sqrt(n) (Student's t interval, s the
   sample standard deviation) covers it with probability -> ``confidence`` as n grows. Its lower
   end is then a lower confidence bound of e(X) at level (1 + confidence) / 2, whatever b^.

The plug-in e(X^) is reported beside it: max is convex, so by Jensen's inequality
E[e(X^)] >= e(E[X^]) = e(X); it is biased UPWARD, an upper estimate in expectation, not a bound.
With ``exact_levels=0`` it is the estimate of ReBeL's released evaluation (facebookresearch/rebel,
commit 7960a42, csrc/liars_dice/recursive_eval.cc and recursive_solving.cc: ``num_repeats``
sampled strategies, each a fresh draw at every search, mixed by their reaches), which its
README.md says is averaged "to get an upper bound for the exploitability": one in expectation
only. The truth lies, in expectation, between e(b^; X) and e(X^).

Why draws and not hands. Z_r averages exactly over the cards and both players' actions (tree
sums over the terminals), so its only randomness is the agent's draws. A hand's payoff also
carries the cards and the actions: on ``kuhn_poker`` at lookahead 1 and T = 100, with b^ the best
response to the exact X, a hand of b^ against the agent has standard deviation 1.58 chips (b^ in
seat 0) and 1.19 (seat 1) (exact: E[u^2] - E[u]^2, both linear in X), so a pair of hands, one
per seat, estimates e(b^; X) with standard deviation 0.99, against 0.0044 for one replicate Z_r
at ``exact_levels=1``: the same standard error needs about 5 x 10^4 times as many pairs of hands
as replicates, and every hand searches too.

Why the first level is enumerated (``exact_levels=1``, the default). The agent's low
exploitability comes from cancellation between draws at the root: on ``kuhn_poker`` at
lookahead 1 and T = 100, with b^ the best response to the exact X, E[Z | root draw t] jumps
between about +0.09 and -0.16 from one t to the next (two regimes of the searches at "p";
standard deviation 0.117 over t) while e(X) = 0.0074; sampling root draws would need about
(2 x 0.117 / eps)^2 of them for a half-width eps, more than T root draws below eps = 0.02. The
root search is one search, and enumerating its T draws runs the T searches below it once; their
own draws are sampled. Measured (same setting and b^,
standard deviation of one Z_r): 0.128 with every draw sampled, 0.036 with 10 systematically
spaced root draws, 0.0044 with the root enumerated.

Cost. The enumeration runs ``behaviour.search_count(agent)`` searches; the estimate at most
``estimate_search_count(agent, replicates + fit_replicates, exact_levels)``. On ``kuhn_poker``
(any ante, bet or deck) at lookahead 1, with R replicates in all and the root enumerated:
1 + 2T + T^2 against at most 1 + 2T + T min(R, T) searches. Both run the T searches at "p" (T
iterations each, two leaf calls per iteration; 0.16 CPU s each at T = 1,000), so both grow as
T^2; the estimate saves the T^2 searches at "pb" (one compiled call each, about 0.2 ms with the
walk). Measured at T = 1,000 (CPU seconds on this machine): the enumeration (1,002,001 searches)
377 s, the estimate with 30 + 30 replicates (60,273 searches) 187 s, its 95% interval
[0.00143, 0.00237] covering the exact e(b^; X) = e(X) = 0.00157. With every draw sampled a
replicate costs one search at "p", but its standard deviation at T = 1,000 is 0.054 (0.0013
with the root enumerated): a half-width of 0.0005 would take about 5 x 10^4 replicates.

The interval. A t interval is used rather than Hoeffding's or the empirical Bernstein bound
(Maurer, Pontil, COLT 2009), which hold for every n: Z_r lies in a range of R = 4 chips on
``kuhn_poker``, and their range terms, R sqrt(ln(2 / alpha) / (2n)) and
7 R ln(2 / alpha) / (3(n - 1)) at alpha = 0.05, are 1.0 and 1.2 chips at n = 30, two orders of
magnitude above the exploitabilities measured. The t interval's coverage is measured instead:
378 of 400 seeds (94.5%) on ``kuhn_poker`` at lookahead 1, T = 100, 30 replicates; with b^ held
fixed, 954 of 1,000 intervals; Z_r is close to normal there (skewness 0.00, excess kurtosis
0.04 over 3,000 replicates).
"""

import dataclasses
from typing import Optional, Tuple

import numpy as np
from scipy import stats

from algorithms.cfr import tree_passes
from algorithms.cfr.tree_exploitability import TreeEvaluator
from algorithms.rebel.agent.agent import ReBeLAgent
from algorithms.rebel.agent.behaviour import mixed_plans
from algorithms.rebel.agent.behaviour import plan_to_policy
from algorithms.rebel.agent.behaviour import search_count
from algorithms.rebel.agent.search_game import SearchGame
from algorithms.rebel.leaves.solvers import best_response


@dataclasses.dataclass(frozen=True)
class ExploitabilityEstimate:
  """The agent's exploitability estimated from sampled draws (module docstring).

  Attributes:
    value: mean_r Z_r, unbiased for e(b^; X), the exploitability of the agent by the fixed
      responses b^ (at most its exploitability).
    interval: (low, high), Student's t interval of e(b^; X) at ``confidence``; ``low`` is a lower
      confidence bound of the agent's exploitability at level (1 + confidence) / 2.
    standard_error: s / sqrt(n) of ``value``.
    plug_in: e(X^), the exploitability of the fitted behaviour (biased upward).
    plug_in_curve: ((n, e(X^_n)), ...), the plug-in of the mean of the first n fit replicates
      for n = 1, 2, 4, ... and ``fit_replicates``: how the upward bias falls as more sampled
      strategies are averaged (one draw of the sequence; not monotone in general).
    behaviour: float array (G,), the fitted behaviour strategy (X^ as a behaviour strategy).
    responses: float array (G,), b^: player 0's pure best response to X^_1 on player 0's
      sequences, player 1's to X^_0 on player 1's.
    replicates: n, the replicates of ``value``; fit_replicates: those of X^.
    exact_levels: the levels of searches whose draws are enumerated.
    confidence: the interval's level.
    searches: the searches run.
  """

  value: float
  interval: Tuple[float, float]
  standard_error: float
  plug_in: float
  plug_in_curve: Tuple[Tuple[int, float], ...]
  behaviour: np.ndarray
  responses: np.ndarray
  replicates: int
  fit_replicates: int
  exact_levels: int
  confidence: float
  searches: int


def _check_integer(name: str, value, minimum: int) -> None:
  if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
    raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def estimate_search_count(agent: ReBeLAgent, replicates: int, exact_levels: int,
                          game: Optional[SearchGame] = None, level: int = 0) -> int:
  """An upper bound of the searches ``mixed_plans`` runs for ``replicates`` replicates.

  A search at an enumerated level starts every draw's searches, as in the enumeration; a search
  at the first sampled level is reached by every replicate, and below it each replicate follows
  one draw path (``search_count`` with one play per search), capped by the enumeration's count.
  """
  game = game if game is not None else agent.cuts.root()
  if level >= exact_levels:
    one_path = search_count(agent, game, plays=lambda _: 1)
    return min(search_count(agent, game), 1 + replicates * (one_path - 1))
  below = sum(estimate_search_count(agent, replicates, exact_levels,
                                    agent.cuts.at(leaf.leaf, game.depth + agent.lookahead),
                                    level + 1)
              for leaf in game.leaves)
  return 1 + agent.num_plays(game) * below


def response_exploitability(agent: ReBeLAgent, responses: np.ndarray,
                            plans: np.ndarray) -> np.ndarray:
  """e(b; X) = (v_0(b0, X_1) + v_1(b1, X_0) - c) / 2 for each row X of ``plans`` (R, G).

  v_0(b0, X_1) = sum_z u_0(z) pi_c(z) y_0(seq_0(z)) X_1(seq_1(z)) with y the realization plan of
  ``responses`` (G,), and likewise for player 1: linear in X.
  """
  full = agent.arrays
  y = tree_passes.realization(full, responses)
  seq0, seq1 = full.terminal_seq[:, 0], full.terminal_seq[:, 1]
  weighted = full.weighted_utility  # u_i(z) pi_c(z)
  v0 = plans[:, seq1] @ (weighted[:, 0] * y[seq0])
  v1 = plans[:, seq0] @ (weighted[:, 1] * y[seq1])
  return (v0 + v1 - float(full.tree.utility_sum)) / 2


def estimate_exploitability(agent: ReBeLAgent, replicates: int = 30,
                            fit_replicates: Optional[int] = None, exact_levels: int = 1,
                            confidence: float = 0.95, seed: int = 0) -> ExploitabilityEstimate:
  """Estimates the agent's exploitability from sampled draws (module docstring).

  Args:
    agent: the agent (its options fix the searches and the draws' probabilities).
    replicates: n >= 2, the replicates Z_r of the interval.
    fit_replicates: the replicates of X^ (default ``replicates``).
    exact_levels: the levels of searches whose draws are enumerated (0: every draw sampled;
      at least the depth of the search chain: every draw enumerated, the exact value).
    confidence: the interval's level, in (0, 1).
    seed: the seed of numpy's generator of every sampled draw.

  Raises:
    ValueError: for an argument outside its range.
  """
  _check_integer("replicates", replicates, 2)
  fit_replicates = replicates if fit_replicates is None else fit_replicates
  _check_integer("fit_replicates", fit_replicates, 1)
  _check_integer("exact_levels", exact_levels, 0)
  _check_integer("seed", seed, 0)
  if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or \
      not 0 < confidence < 1:
    raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
  rng = np.random.default_rng(seed)
  # Fit and evaluation replicates in one walk (shared searches, independent draws).
  plans, searches = mixed_plans(agent, fit_replicates + replicates, int(exact_levels), rng)
  fitted = plans[:fit_replicates].mean(axis=0)  # X^, unbiased for X
  behaviour = plan_to_policy(agent, fitted)
  full = agent.arrays
  responses = np.where(full.player_mask[1] > 0,
                       best_response(full, full.weighted_utility, behaviour, 1),
                       best_response(full, full.weighted_utility, behaviour, 0))
  z = response_exploitability(agent, responses, plans[fit_replicates:])
  value, error = float(z.mean()), float(z.std(ddof=1) / np.sqrt(replicates))
  half = float(stats.t.ppf((1 + confidence) / 2, replicates - 1)) * error
  evaluator = TreeEvaluator(full)
  sizes = sorted({2 ** k for k in range(int(np.log2(fit_replicates)) + 1)} | {fit_replicates})
  curve = tuple((n, evaluator.exploitability(plan_to_policy(agent, plans[:n].mean(axis=0))))
                for n in sizes[:-1]) + ((fit_replicates, evaluator.exploitability(behaviour)),)
  return ExploitabilityEstimate(
      value=value, interval=(value - half, value + half), standard_error=error,
      plug_in=curve[-1][1], plug_in_curve=curve, behaviour=behaviour,
      responses=responses, replicates=int(replicates), fit_replicates=int(fit_replicates),
      exact_levels=int(exact_levels), confidence=float(confidence), searches=searches)
