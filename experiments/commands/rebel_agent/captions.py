"""The rebel-agent experiment's words: the caption of every table and figure of its report
section (``CAPTIONS``) and the sentences that introduce measurements 3 and 4 from their plans."""

from experiments.commands.rebel_agent.plan import StakesPlan
from experiments.commands.rebel_agent.self_play import SelfPlayPlan

CAPTIONS = {
    "variants": (
        "**Measurement 0: the paper's agent and the other variants, exact LP leaves** "
        "(exploitability in chips per hand; the agent's exact behaviour strategy). The paper's "
        "agent (the default): CFR-D search, play and pass on the drawn iteration's current "
        "policy, linear weighting, iteration t drawn with probability proportional to t. "
        "CFR-D with uniform weighting is the paper's search with w_t = 1. CFR-AVG matched "
        "(leaf beliefs from the average policy, play and pass on the drawn iteration's average) "
        "is this project's construction. Full-game CFR with linear averaging and Linear CFR "
        "(regrets and average weighted by t) after T iterations are the references of the "
        "T = 1,000 target."),
    "convergence": (
        "**Figure** (one panel per game and lookahead; log-log). Exploitability in chips per hand "
        "against the iterations T of every search. Solid with dots: ReBeL's agent (a new search "
        "wherever the previous one's horizon ends, its behaviour strategy the exact mixture over "
        "its draws); dashed with crosses: the stitched policy of one CFR-AVG search (its trunk "
        "average, the leaf solver's continuation below the cut); black: full-game CFR after T "
        "iterations. Colour = leaf values: green exact LP, blue CFR(k), purple Hedge, orange "
        "learned. What to see: with exact, CFR(k) and Hedge leaves the agent falls with T (with "
        "exact leaves near full-game CFR; Hedge levels off at the bias of its smoothed leaf "
        "values), above the stitched policy of one search, whose continuation is an exact (or "
        "k-iteration) leaf solution rather than a T-iteration search; with the learned values "
        "(supervised, no self-play) both rise with T."),
    "self_play": (
        "**Figure** (one panel per deck; log y). The agent's exploitability (lookahead 1, its "
        "exact behaviour strategy) against the self-play episodes played, with the network at "
        "every leaf and one value per player and card (ReBeL's layout). Orange: ReBeL's "
        "Algorithm 1, each visited PBS's target the search's own mean root values with the next "
        "cut's network at its leaves; blue: the supervised diagnostic, the same kind of episodes "
        "with each visited PBS labelled by the exact LP. Median and min-max band over the "
        "seeds; green: the exact-leaf agent at the same T; dotted grey: the target's bound on "
        "the median. What to see: both fall and flatten; the gap between them is what "
        "bootstrapping costs."),
    "self_play_timing": (
        "CPU seconds per hand of the agent playing itself (lookahead 1, every search run), exact "
        "leaves against the network at every leaf in ReBeL's layout (its cost does not depend "
        "on its weights), per deck; machine-dependent, the ratio is the point."),
    "stakes": (
        "**Figure** (rows: lookahead; columns: stakes, trained on or unseen; log-log). The "
        "agent's exploitability against the iterations T of every search, with exact LP leaves "
        "(green) and with the one value function per cut for the whole range of stakes "
        "(orange); dotted grey: twice the exact-leaf agent, the target's bound. What to see: "
        "whether the learned agent stays under the dotted line at stakes it never saw, and "
        "where it stops falling with T (its value errors, not T, then set its exploitability)."),
    "timing": (
        "CPU time of one leaf evaluation (mean over random PBSs, after a warm-up call), of "
        "whole searches (least of 3 runs) and of the whole agent (every search of its "
        "enumeration), exact solver against the network; the exact solver is the sequence-form "
        "LP where both players act below the leaf and a best response where one does. "
        "Machine-dependent; the ratio is the point."),
    "decks": (
        "The choice of the deck: CPU time of one evaluation of the two-player leaf p by the "
        "exact LP and by an untrained network of the models' widths (its cost does not depend "
        "on its weights), per deck size, at the timing's stakes."),
    "estimate": (
        "Measurement 5, beyond the enumeration: the exact-leaf agent's exploitability estimated "
        "from sampled draws (`algorithms/rebel/agent/estimate.py`). No unbiased estimator of "
        "the exploitability itself exists from sampled draws (it is a maximum over responses); "
        "the estimate is unbiased for the exploitability by a fixed response, the best "
        "response to a behaviour fitted from independent replicates, which is at most the "
        "agent's exploitability: the interval (Student's t, 95%) has its low end as a lower "
        "confidence bound. The plug-in (the fitted behaviour's own exploitability) is biased "
        "upward. The root search's draws are enumerated, the deeper searches' sampled, one "
        "draw per replicate. Where the enumeration fits the budget, its exact value stands "
        "beside the estimate (a 95% interval misses it about one time in twenty: 378 of 400 "
        "seeds covered at T = 100); beyond it, only the estimate exists. Both methods run the "
        "root search's T searches at p, so both grow as T^2; the estimate saves the T^2 "
        "searches below them."),
    "error": (
        "**Figure** (one panel per game and lookahead; log-log). Exploitability against the mean "
        "on-path value error (the largest counterfactual-value error at the leaf PBSs that the "
        "exact-leaf agent evaluates, chips), at one T. Blue: exact values plus a smooth "
        "perturbation of known size (filled: the agent; hollow, dotted: the stitched policy); "
        "orange squares: the learned values; dotted green: the agent with exact leaves; dashed "
        "grey: least squares through the exact agent's point, its slope in the corner."),
    "paper": (
        "Full-game CFR and fictitious play: OpenSpiel's exploitability of their average policy "
        "after that many iterations. ReBeL, paper protocol: the agent as ReBeL's released "
        "evaluation runs it (CFR-D searches of depth 2 with Linear CFR and alternating updates, "
        "T rounds: the released code's 1,024 single-player steps are T = 512; the drawn round's "
        "current policy played and passed on), scored as that evaluation scores it: the "
        "exploitability of the average of the sampled strategies (each a fresh draw at every "
        "search), an upper estimate in expectation that falls as the strategies averaged grow "
        "(the paper averages 1,024). Lower bound: the lower end of a 95% interval of the "
        "exploitability by fixed best responses, at most the agent's own. The paper's ReBeL "
        "(CFR-D) column is its Liar's Dice table as secondary summaries give it (the table was "
        "not readable here); its runs use a learned value network at the leaves, these exact "
        "leaves, so ours should be no worse at the same T and number of strategies."),
    "paper_curve": (
        "**Figure** (one panel per game; log-log). The paper protocol's estimate against the "
        "number of sampled strategies averaged: median and min-max band over the seeds (green), "
        "full-game CFR after its iterations (black), the paper's ReBeL number at 1,024 "
        "strategies (dashed grey). What to see: the estimate falls, not monotonically, as more "
        "strategies are averaged; a value read off at a few strategies says little about the "
        "agent, and only the right end compares with the paper's."),
}


def ratios(values) -> str:
  return ", ".join(f"{r:g}" for r in values)


def self_play_intro(plan: SelfPlayPlan) -> str:
  """The text before measurement 3's table: the budget of every run."""
  return (f"**Measurement 3: ReBeL that learns by itself.** Lookahead 1, the network at every "
          f"leaf (one value per player and card, models {plan.hidden}); per deck, kind of "
          f"target and seed: {plan.rounds} rounds of {plan.episodes} episodes, searches of "
          f"T = {plan.search_iterations}, {plan.train_steps} Adam steps per round and model. "
          "After the last round, learned / exact-leaf agent at the same T (exploitability in "
          "chips per hand):")


def stakes_intro(plan: StakesPlan) -> str:
  """The text before measurement 4's table: the deck, the stakes and the models' training."""
  visits = "; ".join(f"lookahead {d}, T = {ratios(ts)}" for d, ts in plan.visits)
  return (f"**Measurement 4: {plan.deck} cards, one value function per cut for ante/bet "
          f"{min(plan.trained):g} to {max(plan.trained):g}.** Models {plan.hidden}, "
          f"{plan.steps} Adam steps, trained at ante/bet {ratios(plan.trained)} (bet 1) on "
          f"{plan.examples} random PBSs per leaf and every leaf PBS of the exact-leaf agent "
          f"({visits}), all labelled by the exact LP; measured at {ratios(plan.seen)} (trained "
          f"on) and {ratios(plan.unseen)} (never seen). Exploitability in chips per hand:")
