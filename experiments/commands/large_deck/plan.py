"""The large-deck experiment's budgets: which decks, stakes and engines, and to what exploitability.

Every N-card game is ``kuhn_poker_ante(deck_size=N, ante=a, bet=b, simplified=...)`` with two
players and bet b = 1 chip; the stakes are named by r = a / b (the games are homogeneous in
(a, b): strategies depend on r only, payoffs scale with b).

The exploitability target of a sweep solve, ``target``: the N-card effects are of the size of
one card, 1/N of the strength range, so the target shrinks with N, epsilon(N) = min(1e-7,
kappa / N) chips per hand. kappa is the largest value at which the average policy's thresholds
sit within about 0.1 card of where tighter solves put them, measured with discounted CFR at
N = 100,000, r = 1: standard rules, largest threshold gap 0.76 card at 1e-7 and 0.67 at 1e-9
(kappa = 1e-2, so 1e-7 up to 100,000 cards); simplified rules, 3.1 cards at 1e-7, 1.2 at 1e-8,
0.33 at 1e-9 and 0.31 at 2e-10 (kappa = 1e-4: 1e-7 up to 1,000 cards, 1e-9 at 100,000). The
value needs less: its N-card gap is of order b / N (standard rules) and is resolved once the
solve's NashConv, 2 epsilon, is below half of it (``limits``).
"""

import dataclasses
import re
from typing import Generic, Tuple, TypeVar

from experiments.harness import arguments
from spiel_games.kuhn_rules import KuhnRules

NAME = "large-deck"
BET = 1.0  # Chips; every game's bet (the stakes are named by r = ante / bet).
MAIN_RATIO = 1.0  # r of Kuhn's game, the sweep's main series (both rule sets, every deck).
RULE_SETS = (True, False)  # simplified, standard: the order of every table and figure.
RULES_NAME = {True: "simplified", False: "standard"}

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Scale(Generic[T]):
  """A setting with a default and a ``--quick`` value."""

  default: T
  quick: T

  def resolve(self, quick: bool) -> T:
    return self.quick if quick else self.default


# The decks of the N sweep (up to --max-cards), the ratios r swept (the first is MAIN_RATIO),
# and the largest deck of the other ratios (their 100,000-card solves would add about 30 s).
DECKS = Scale((13, 25, 50, 100, 250, 1000, 10_000, 100_000), (13, 25, 100, 1000))
RATIOS = Scale((MAIN_RATIO, 2.0), (MAIN_RATIO,))
OTHER_RATIO_MAX_CARDS = 10_000
# Decks of the flat engine in the cost comparison (up to --flat-max-cards).
FLAT_DECKS = (13, 25, 50, 100, 200)
MAX_CARDS = Scale(100_000, 1000)
FLAT_MAX_CARDS = Scale(200, 25)
# The stakes grid: STAKES_POINTS ratios r = 10^x, x evenly spaced in [-1, 1], on one deck.
STAKES_CARDS = Scale(1000, 250)
STAKES_POINTS = Scale(15, 7)
STAKES_RANGE = (0.1, 10.0)
# CFR+ on the batch (BatchedCFRPlusSolver) to
# this exploitability (chips per hand): at 1,000 cards a card is 1e-3 of the deck and the value's
# N-card effects are of order 1e-4 chips, so 1e-6 resolves both (the grid then costs about 8 s;
# 1e-7 would cost 30 s).
STAKES_TARGET = 1e-6

# The sweep's solver: discounted CFR (Brown and Sandholm, AAAI 2019) with its default
# alpha = 1.5, beta = 0, gamma = 2, the fastest of the project's solvers on these games.
TARGET_CAP = 1e-7  # Chips per hand.
KAPPA = {True: 1e-4, False: 1e-2}  # Chips per hand times cards (module docstring).
CHECK_EVERY = 50  # Iterations between two exact exploitability measurements.
MAX_ITERATIONS = 500_000  # A solve that has not reached its target by then stops (and fails).
# The cost comparison measures a solve's peak memory, in a fresh process, where the engine's own
# estimate is at least this (four times the measurement's resolution of about a megabyte,
# ``footprint``); smaller solves run in this process, their memory below the resolution.
FRESH_PROCESS_MIN_BYTES = 4 * 2**20
# Smallest deck: ``engine="auto"`` runs the range vectors from 13 cards on.
MIN_CARDS = 13
# Independent references on the small decks: OpenSpiel's exploitability of the same average
# policy (a walk of every history: 3.4 s at 50 cards, standard rules) and the sequence-form LP
# (0.7 s at 250 cards).
OPENSPIEL_MAX_CARDS = 50
LP_MAX_CARDS = 250
# Largest --max-cards: a range-vector run of a million cards holds about 640 MB.
LARGEST_DECK = 1_000_000
# Largest --flat-max-cards: the flat engine refuses trees over 2,000,000 histories (standard
# rules: 9 N^2 - 8 N + 1 histories for N cards, so 471 cards).
FLAT_LARGEST_DECK = 471


def short(x: float) -> str:
  """A power of ten (or a one-digit multiple) as text, e.g. 1e-7 (Python writes 1e-07)."""
  return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{x:.0e}").replace("e+", "e")


def target(cards: int, simplified: bool) -> float:
  """The sweep's exploitability target epsilon(N) = min(1e-7, kappa / N) (module docstring)."""
  return min(TARGET_CAP, KAPPA[simplified] / cards)


def rules(cards: int, ratio: float, simplified: bool) -> KuhnRules:
  """The two-player rules of an N-card game at r = ante / bet, bet ``BET``."""
  return KuhnRules(ante=float(ratio) * BET, bet=BET, deck_size=int(cards),
                   simplified=bool(simplified))


def decks_up_to(decks: Tuple[int, ...], largest: int) -> Tuple[int, ...]:
  """The decks of ``decks`` below ``largest``, then ``largest``."""
  return tuple(d for d in decks if d < largest) + (largest,)


def stakes_ratios(points: int) -> Tuple[float, ...]:
  """``points`` ratios r = 10^x, x evenly spaced over log10 of ``STAKES_RANGE`` (r = 1 among
  them when ``points`` is odd)."""
  low, high = STAKES_RANGE
  step = (high / low) ** (1 / (points - 1))
  return tuple(float(low * step**i) for i in range(points))


stakes_points_type = arguments.number_type(int, lambda v: 3 <= v <= 101,
                                           "an integer from 3 to 101")
