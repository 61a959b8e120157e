"""The three-player large-deck experiment's budgets: decks, pot sizes, the solver and its budget.

Every game is ``kuhn_poker_ante(players=3, deck_size=N, ante=P/3, bet=1)``: three players, an
N-card deck, one bet of 1 chip, and an initial pot P = 3 ante, the pot size of Billingham's
papers (J. Billingham, "Equilibrium solutions of three player Kuhn poker with N > 3 cards",
arXiv 1802.04670, 2018: standard three-player Kuhn poker is N = 4, P = 3). Strategies depend
on P only (the games are homogeneous in ante and bet).

One rule and one budget everywhere, so that what changes with N or P is the game's, not the
solver's: CFR+ (Tammelin 2014) for ``ITERATIONS`` iterations on the range-vector engine. CFR
has no three-player guarantee; every solve is certified by its exact NashConv. Measured with
this budget (CPU seconds on a loaded 2-core machine): 0.2 s at 300 cards, 0.75 s at 1,000,
13 s at 10,000, 49 s at 30,000 and 175 s (391 MB) at 100,000 cards, NashConv 4.6e-6 to
6.4e-6 from 100 cards on; on 5 to 8 cards CFR+ stalls (NashConv 1e-3 to 4e-3 after 1,000 to
40,000 iterations, as do discounted and linear CFR; predictive CFR+ reaches 2e-4 to 3e-7).
"""

from experiments.harness.arguments import Budget
from spiel_games.kuhn_rules import KuhnRules

NAME = "three-player-large-deck"
PLAYERS = 3
BET = 1.0
MAIN_POT = 3.0  # Standard three-player Kuhn poker: each player antes 1.
ITERATIONS = 4000  # CFR+ iterations of every solve (module docstring).
SOLVER = "CFR+"

# The N sweep at P = MAIN_POT, and the pot sweep on one deck (default, --quick).
DECKS = Budget((4, 5, 6, 8, 13, 25, 50, 100, 300, 1000, 3000, 10_000),
               (4, 6, 13, 50, 300, 1000))
POTS = Budget((1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0), (1.5, 3.0, 6.0, 12.0))
POT_CARDS = Budget(1000, 300)
# Independent evaluations of the same average policy: OpenSpiel's nash_conv walks every history
# (0.4 s at 4 cards, 5 s at 8, 30 s at 13), the flat engine's tree evaluator (0.5 s at 20 cards).
OPENSPIEL_MAX_CARDS = Budget(6, 4)
FLAT_MAX_CARDS = 25
# The range of --max-cards: from standard three-player Kuhn poker's deck to a million cards.
SMALLEST_DECK = 4
LARGEST_DECK = 1_000_000
# The smallest deck read as "large" (the structure and rate fits): the decks below it are the
# small-deck regime where CFR+ stalls (module docstring).
LARGE_MIN_CARDS = 13
# A component of a betting (or calling) set: a run of cards whose probability of action 1 is
# above BET_EPSILON, runs closer than MERGE_GAP of the deck merged (a mixed range at N = 100
# dips below BET_EPSILON on single cards).
BET_EPSILON = 0.02
MERGE_GAP = 0.03


def rules(cards: int, pot: float) -> KuhnRules:
  """The rules of the N-card game with initial pot ``pot``."""
  return KuhnRules(ante=float(pot) / PLAYERS, bet=BET, deck_size=int(cards), num_players=PLAYERS)
