"""The three-player large-deck experiment's budgets: decks, pot sizes, the solver and its budget.

Every game is ``kuhn_poker_ante(players=3, deck_size=N, ante=P/3, bet=1)``: three players, an
N-card deck, one bet of 1 chip, and an initial pot P = 3 ante, the pot size of Billingham's
papers (J. Billingham, "Equilibrium solutions of three player Kuhn poker with N > 3 cards",
arXiv 1802.04670, 2018: standard three-player Kuhn poker is N = 4, P = 3). Strategies depend
on P only (the games are homogeneous in ante and bet).

One rule everywhere, so that what changes with N or P is the game's, not the solver's:
predictive CFR+ (PCFR+, Farina, Kroer and Sandholm, AAAI 2021; the project's default gamma = 2)
on the range-vector engine, for ``ITERATIONS`` iterations from ``LARGE_MIN_CARDS`` cards on and
``SMALL_DECK_ITERATIONS`` below (``iterations``). CFR has no three-player guarantee; every
solve is certified by its exact NashConv, at most 1e-4 on every deck and pot (``checks``).
Why PCFR+ (experiments/scripts/three_player_stall.py, docs/three_player_large_deck.md): on 5 to
8 cards the current iterates of CFR+, DCFR, DCFR+ and linear CFR cycle, and the average of a
cycle is not an equilibrium (NashConv 2e-4 to 4e-3 after 300,000 iterations, not falling);
PCFR+'s prediction damps the cycle. Measured NashConv of PCFR+ (P = 3): 3.9e-5 at 13 cards and
at most 2.6e-5 from 25 to 10,000 cards after 4,000 iterations (3.9e-5 on 1,000 cards at P = 12,
the pot sweep's largest); after 300,000 iterations 2e-10 on 4 cards, 1.1e-7 on 5, 9.7e-6 on 6
and 4.5e-8 on 8 (on 7 cards, not in the sweep, 5e-4: no rule tried certifies it). Costs (CPU
seconds on a loaded 2-core machine): 0.2 s at 300 cards, 0.6 s at 1,000, 6 s at 10,000.
"""

from experiments.harness.arguments import Budget
from spiel_games.kuhn_rules import KuhnRules

NAME = "three-player-large-deck"
PLAYERS = 3
BET = 1.0
MAIN_POT = 3.0  # Standard three-player Kuhn poker: each player antes 1.
ITERATIONS = 4000  # PCFR+ iterations from LARGE_MIN_CARDS cards on (module docstring).
SMALL_DECK_ITERATIONS = 300_000  # Below LARGE_MIN_CARDS, where the rules cycle.
SOLVER = "PCFR+"

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
# small-deck regime where the rules cycle and PCFR+ needs SMALL_DECK_ITERATIONS (module
# docstring).
LARGE_MIN_CARDS = 13
# A card plays action 1 (bet, or call facing a bet) at a node when the equilibrium says so: the
# action is a best one for that card, its counterfactual value within INDIFFERENCE of the better
# action's (chips per hand, given the card: ``solve.action_gaps``), and the solve plays it with
# probability above PLAYED (a guard against the average's leftovers, 10 times below the
# smallest mixed bet measured: 0.002, player 0's card 4 of 8). Runs closer than MERGE_GAP of
# the deck are merged.
INDIFFERENCE = 1e-4
PLAYED = 2e-4
MERGE_GAP = 0.03


def iterations(cards: int) -> int:
  """PCFR+'s budget on an N-card deck (module docstring)."""
  return ITERATIONS if cards >= LARGE_MIN_CARDS else SMALL_DECK_ITERATIONS


def rules(cards: int, pot: float) -> KuhnRules:
  """The rules of the N-card game with initial pot ``pot``."""
  return KuhnRules(ante=float(pot) / PLAYERS, bet=BET, deck_size=int(cards), num_players=PLAYERS)
