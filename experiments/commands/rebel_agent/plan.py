"""What one run of the rebel-agent experiment computes: the cuts, the iterations per search, the
leaf solvers and the budgets (``Plan``, ``PLANS``; ``StakesPlan`` for the large deck and its range
of stakes), and ``plan_of`` for the options."""

import argparse
import dataclasses
from typing import Optional, Tuple

from experiments.commands.rebel_agent.self_play import SelfPlayPlan

KUHN = "kuhn_poker"
ANTE = "kuhn_poker_ante(ante=2.0)"
SIMPLIFIED = "kuhn_poker_ante(ante=2.0,simplified=True)"
SIMPLIFIED_1 = "kuhn_poker_ante(simplified=True)"
DECK_13 = "kuhn_poker_ante(deck_size=13)"
# The agent's variants of measurement 0 (exact leaves): ``ReBeLAgent`` options by name, the
# paper's agent (the defaults) first.
VARIANTS = (("paper's agent (CFR-D, linear averaging)", {}),
            ("CFR-D, uniform weighting", {"weighting": "uniform"}),
            ("CFR-AVG matched, uniform (this project's)",
             {"leaf_beliefs": "average", "weighting": "uniform"}),
            ("CFR-AVG matched, linear (this project's)", {"leaf_beliefs": "average"}))
# The leaf solvers, in the order of the tables and legends.
EXACT, CFR_K, HEDGE, LEARNED = "exact LP", "CFR(k)", "Hedge", "learned"


@dataclasses.dataclass(frozen=True)
class Setting:
  """A game, the agent's lookahead d and the iterations T of its searches that are measured."""

  game: str
  lookahead: int
  iterations: Tuple[int, ...]

  @property
  def label(self) -> str:
    return f"{self.game}, lookahead {self.lookahead}"


@dataclasses.dataclass(frozen=True)
class StakesPlan:
  """Measurement 4's budget (``stakes``): one value function per cut for a range of stakes.

  Attributes:
    deck: the cards of ``kuhn_poker_ante``; the stakes are ante = r, bet = 1 for a ratio r.
    trained: the ante/bet ratios of the training data; the models cover lowest to highest.
    seen: training ratios at which the agents are measured too.
    unseen: ratios inside the range that no training example has.
    agents: (lookahead, T values) of the agents measured at every seen and unseen ratio.
    visits: (lookahead, T values) of the exact-leaf agents whose leaf PBSs join the training
      data at every training ratio.
    examples: random PBSs per leaf and training ratio.
    hidden, steps: the networks' hidden widths and Adam steps.
    timing_ratio: the ratio of the timing; timing_beliefs: random PBSs per leaf timed;
      timing_iterations: T of the timed searches; timing_decks: the decks at which the exact LP
      of leaf p is timed against an untrained network (the choice of the deck).
  """

  deck: int
  trained: Tuple[float, ...]
  seen: Tuple[float, ...]
  unseen: Tuple[float, ...]
  agents: Tuple[Tuple[int, Tuple[int, ...]], ...]
  visits: Tuple[Tuple[int, Tuple[int, ...]], ...]
  examples: int
  hidden: Tuple[int, ...]
  steps: int
  timing_ratio: float
  timing_beliefs: int
  timing_iterations: int
  timing_decks: Tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Plan:
  """One budget.

  Attributes:
    settings: the (game, lookahead, T values) measured.
    leaf_solvers: the leaf solvers (``EXACT``, ``CFR_K``, ``HEDGE``, ``LEARNED``).
    cfr_k: k of the CFR(k) leaves; hedge: (iterations, eta) of the Hedge leaves.
    error_iterations: T of the value-error study; deltas: its perturbation sizes (units of U).
    examples, hidden, steps: the learned value functions' training (LP-labelled PBSs per leaf,
      hidden widths, Adam steps).
    max_searches: the enumeration's budget of searches per agent.
    self_play: measurement 3's budget, None to leave it out.
    stakes: measurement 4's budget, None to leave it out.
    variants: measurement 0, the settings at which every ``VARIANTS`` agent is measured with
      exact leaves.
    estimates: measurement 5, the exact-leaf agents (game, lookahead, T) whose exploitability
      is estimated from sampled draws (``agent.estimate``), each beside the enumeration's
      search count; estimate_replicates: the replicates of each estimate and of its fit.
  """

  settings: Tuple[Setting, ...]
  leaf_solvers: Tuple[str, ...]
  cfr_k: int
  hedge: Tuple[int, float]
  error_iterations: int
  deltas: Tuple[float, ...]
  examples: int
  hidden: Tuple[int, ...]
  steps: int
  max_searches: int
  self_play: Optional[SelfPlayPlan]
  stakes: Optional[StakesPlan]
  estimates: Tuple[Tuple[str, int, int], ...] = ()
  estimate_replicates: int = 30
  variants: Tuple[Setting, ...] = ()


# Measurement 0's settings of the default and full budgets: the issue's four games at lookahead
# 1 and 2 (T = 1,000 where the enumeration is 1 + T searches or so; at lookahead 1 on the full
# games it is about T^2, 10^6 at T = 1,000, measured once outside the budget, docs/rebel.md).
VARIANT_SETTINGS = tuple(Setting(game, lookahead, iterations) for game, lookahead, iterations in (
    (KUHN, 1, (10, 30, 100)), (KUHN, 2, (10, 100, 1000)),
    (ANTE, 1, (10, 30, 100)), (ANTE, 2, (10, 100, 1000)),
    (SIMPLIFIED_1, 1, (10, 100, 1000)), (SIMPLIFIED_1, 2, (10, 100, 1000)),
    (DECK_13, 1, (10, 30, 100)), (DECK_13, 2, (10, 100, 1000))))

# Measurement 3: 3 cards by default (5 seeds, both kinds of target, about 10 minutes of CPU),
# 13 cards and T = 300 with --full; its --quick run is small enough for the tests.
SELF_PLAY = {
    "quick": SelfPlayPlan(decks=(3,), seeds=2, rounds=2, episodes=8, search_iterations=10,
                          train_steps=20, hidden=(16, 16), eval_every=1, curve_iterations=10,
                          final_iterations=(10,), timing_decks=(13,), timing_hands=1),
    "default": SelfPlayPlan(decks=(3,), seeds=5, rounds=20, episodes=128, search_iterations=100,
                            train_steps=500, hidden=(64, 64), eval_every=4, curve_iterations=30,
                            final_iterations=(100,)),
}
SELF_PLAY["full"] = dataclasses.replace(SELF_PLAY["default"], decks=(3, 13), rounds=40,
                                        final_iterations=(100, 300))

PLANS = {
    "quick": Plan(settings=(Setting(KUHN, 2, (10, 30)),), leaf_solvers=(EXACT, CFR_K),
                  cfr_k=30, hedge=(20, 20.0), error_iterations=30, deltas=(0.03, 0.3),
                  examples=100, hidden=(32, 32), steps=200, max_searches=2_000,
                  self_play=SELF_PLAY["quick"],
                  stakes=StakesPlan(deck=13, trained=(1.0, 2.0), seen=(2.0,), unseen=(1.5,),
                                    agents=((1, (3,)), (2, (3,))), visits=((2, (3,)),),
                                    examples=10, hidden=(16, 16), steps=50, timing_ratio=1.5,
                                    timing_beliefs=3, timing_iterations=3, timing_decks=(3,)),
                  estimates=((KUHN, 1, 10),), estimate_replicates=10,
                  variants=(Setting(KUHN, 1, (10, 30)),)),
    "default": Plan(settings=(Setting(KUHN, 1, (10, 30, 100)), Setting(KUHN, 2, (10, 100, 1000)),
                              Setting(ANTE, 1, (10, 30, 100)),
                              Setting(SIMPLIFIED, 1, (10, 100, 1000))),
                    leaf_solvers=(EXACT, CFR_K, HEDGE, LEARNED), cfr_k=100, hedge=(30, 20.0),
                    error_iterations=100, deltas=(0.01, 0.03, 0.1, 0.3), examples=300,
                    hidden=(64, 64), steps=1000, max_searches=20_000,
                    self_play=SELF_PLAY["default"],
                    stakes=StakesPlan(deck=13, trained=(0.5, 1.0, 2.0, 4.0), seen=(1.0,),
                                      unseen=(0.75, 1.5, 3.0),
                                      agents=((1, (10, 30, 100)), (2, (10, 30, 100, 300))),
                                      visits=((1, (10, 30)), (2, (10, 30, 100, 300))),
                                      examples=300, hidden=(64, 64), steps=2000, timing_ratio=1.5,
                                      timing_beliefs=100, timing_iterations=30,
                                      timing_decks=(3, 13, 26, 52)),
                    estimates=((KUHN, 1, 100), (KUHN, 1, 300)),
                    variants=VARIANT_SETTINGS),
    "full": Plan(settings=(Setting(KUHN, 1, (10, 30, 100, 300, 1000)),
                           Setting(KUHN, 2, (10, 30, 100, 300, 1000)),
                           Setting(ANTE, 1, (10, 30, 100, 300, 1000)),
                           Setting(ANTE, 2, (10, 30, 100, 300, 1000)),
                           Setting(SIMPLIFIED, 1, (10, 30, 100, 300, 1000))),
                 leaf_solvers=(EXACT, CFR_K, HEDGE, LEARNED), cfr_k=100, hedge=(30, 20.0),
                 error_iterations=300, deltas=(0.003, 0.01, 0.03, 0.1, 0.3), examples=1000,
                 hidden=(64, 64), steps=3000, max_searches=1_100_000,
                 self_play=SELF_PLAY["full"],
                 stakes=StakesPlan(deck=13, trained=(0.5, 1.0, 2.0, 4.0), seen=(1.0, 4.0),
                                   unseen=(0.75, 1.5, 3.0),
                                   agents=((1, (10, 30, 100, 300)), (2, (10, 30, 100, 300, 1000))),
                                   visits=((1, (10, 30, 100)), (2, (10, 30, 100, 300, 1000))),
                                   examples=1000, hidden=(128, 128), steps=4000,
                                   timing_ratio=1.5, timing_beliefs=300, timing_iterations=100,
                                   timing_decks=(3, 13, 26, 52)),
                 estimates=((KUHN, 1, 100), (KUHN, 1, 1000)), variants=VARIANT_SETTINGS),
}


def plan_of(args: argparse.Namespace, quick: bool) -> Tuple[str, Plan]:
  """The budget's name and plan: "full" with --full, "quick" with --quick, else "default".

  Raises:
    ValueError: for --full with --quick.
  """
  name = {(False, False): "default", (True, False): "full",
          (False, True): "quick"}.get((bool(args.full), bool(quick)))
  if name is None:
    raise ValueError("--full and --quick exclude each other; choose one")
  return name, PLANS[name]
