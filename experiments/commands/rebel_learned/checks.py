"""The experiment's checks on the results frame, and the bounds they state (with the margins
measured)."""

import math
from typing import Dict, List

import pandas as pd

from experiments.commands.rebel_learned.plan import Plan
from experiments.commands.rebel_learned.results import finals
from experiments.harness import checks
from experiments.harness.checks import Check

# Stated bounds per budget: the final supervised model's held-out mean error, the learned
# search's trunk exploitability, the last self-play round's median on-path error and median
# trunk exploitability. Measured worst over base seeds (--seed) 0-4 with --quick: 0.067, 0.031,
# 0.23, 0.060; 0-2 at the default budget: 0.017, 0.035 (the simplified game, whose trunk moves
# most when the learned values smooth the kink of the exact ones; the other cuts <= 0.0095),
# 0.028, 0.00061; 0 with --full: 0.0060, 0.038 (ante 2, depth 1; the trunk does not improve with
# a larger network), 0.041, 0.00062. Bounds 1.4-3x those.
BOUNDS = {
    "quick": {"held_out_mean": 0.1, "learned_trunk": 0.05, "self_play_path": 0.4,
              "self_play_trunk": 0.1},
    "default": {"held_out_mean": 0.04, "learned_trunk": 0.05, "self_play_path": 0.06,
                "self_play_trunk": 0.002},
    "full": {"held_out_mean": 0.015, "learned_trunk": 0.06, "self_play_path": 0.1,
             "self_play_trunk": 0.002},
}
# Modified CFR-AVG at the plan's T: with exact LP leaves it stalls at 0.02-0.06 on every cut with
# a leaf (README, rebel section: flat from T = 10 to 3000); with Hedge leaves it is below
# HEDGE_MODIFIED_BOUND at T >= 300 (measured 0.013-0.035 at T = 300, 0.005-0.023 at 1000).
STALL_RANGE = (0.02, 0.07)
HEDGE_MODIFIED_BOUND = 0.05


def experiment_checks(frame: pd.DataFrame, bounds: Dict[str, float],
                      plan: Plan) -> List[Check]:
  """The experiment's checks (the package docstring lists them) on the results frame."""
  found = []
  last = finals(frame)
  for row in last.drop_duplicates(["job", "game", "depth"]).itertuples(index=False):
    label = " ".join(str(x) for x in (
        row.game, f"depth {row.depth}", row.leaves, row.variant, row.label, f"seed {row.seed}",
        f"round {row.round}" if row.round >= 0 else "") if x)
    found.append(checks.same_number(f"{label} T={row.iteration}: engine exploitability",
                                    row.exploitability, row.openspiel,
                                    "OpenSpiel exploitability.exploitability"))
    if not math.isnan(row.trunk):
      # By construction: the trunk's guarantee maximises over every continuation with the trunk
      # fixed (``trunk_exploitability``), the run's own among them (equal when it is a best one).
      found.append(checks.at_most(f"{label}: trunk exploitability <= exploitability",
                                  row.trunk, row.exploitability + checks.ROUNDING,
                                  "the trunk with its best continuation is at most as "
                                  "exploitable as with any continuation",
                                  by_construction=True))
  data = frame[frame.part == "convergence"]
  for (game, depth), here in data.groupby(["game", "depth"], sort=False):
    exact = here[here.leaves == "exact"].set_index("iteration").exploitability
    perfect = here[here.leaves == "perfect"].set_index("iteration").exploitability
    if len(exact) and len(perfect):
      # By construction: the perfect leaves are the exact LP's values and continuation served
      # through the value-function interface (``sweep.PERFECT_LEAVES``).
      found.append(checks.same_number(
          f"{game} depth {depth}: perfect value function = exact CFR-AVG (largest difference "
          "over the curve)", float((perfect - exact).abs().max()), 0.0,
          "CFR-AVG with the exact LP leaves", by_construction=True))
  errors_rows = finals(frame[frame.part == "error"])
  for row in errors_rows[errors_rows.leaves == "perturbed"].itertuples(index=False):
    label = f"{row.game} depth {row.depth} {row.label}"
    # By construction: every per-deal value is off by at most delta U_leaf <= delta U
    # (``smooth_perturbation``), so every belief-weighted counterfactual value is too.
    found.append(checks.at_most(f"{label}: held-out and on-path max value error <= delta U",
                                max(row.err_max, row.path_err_max), row.bound + checks.ROUNDING,
                                "construction of PerturbedValueFunction",
                                by_construction=True))
    found.append(checks.at_most(
        f"{label}: exploitability - exact leaves' <= 2 delta U",
        max(0.0, row.exploitability - row.exact_exploitability), 2 * row.bound,
        "an equilibrium of a game with leaf payoffs off by <= e is a 2e-equilibrium"))
  learned = errors_rows[(errors_rows.leaves == "learned") &
                        (errors_rows.label == f"steps={plan.steps[-1]}")]
  for row in learned.itertuples(index=False):
    label = f"{row.game} depth {row.depth} learned {row.label} seed {row.seed}"
    found.append(checks.at_most(f"{label}: held-out mean value error", row.err_mean,
                                bounds["held_out_mean"], "stated bound (BOUNDS)"))
    found.append(checks.at_most(f"{label}: trunk exploitability", row.trunk,
                                bounds["learned_trunk"], "stated bound (BOUNDS)"))
  modified = finals(frame[frame.part == "modified"])
  for row in modified.itertuples(index=False):
    label = f"{row.game} depth {row.depth} {row.variant} CFR-AVG {row.leaves} leaves"
    if row.variant == "modified" and row.leaves == "exact":
      low, high = STALL_RANGE
      found.append(checks.within(f"{label}: stalls", row.exploitability, (low + high) / 2,
                                 (high - low) / 2, "README rebel section: 0.02-0.06, flat"))
    if row.variant == "modified" and row.leaves == "Hedge" and row.iteration >= 300:
      found.append(checks.at_most(f"{label}: converges", row.exploitability,
                                  HEDGE_MODIFIED_BOUND, "stated bound (HEDGE_MODIFIED_BOUND)"))
  self_play = finals(frame[frame.part == "self-play"])
  if len(self_play):
    final = self_play[self_play["round"] == self_play["round"].max()]
    found.append(checks.at_most("self-play, last round: median on-path value error",
                                float(final.path_err_mean.median()), bounds["self_play_path"],
                                "stated bound (BOUNDS)"))
    found.append(checks.at_most("self-play, last round: median trunk exploitability",
                                float(final.trunk.median()), bounds["self_play_trunk"],
                                "stated bound (BOUNDS)"))
  return found
