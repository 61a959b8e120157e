"""The report's text: the section's opening paragraph, built from the plan (``intro``), and the
captions of the four figures (``CAPTIONS``), with the explanations and the literature they cite."""

from experiments.commands.rebel_learned.artifacts import Store
from experiments.commands.rebel_learned.plan import Plan


def intro(experiment: str, plan: Plan, budget: str, store: Store, learn: bool) -> str:
  """The opening paragraph: the budget, the networks and data sets, what was computed or reused
  (``experiment``: the command's name, for the long version's command line)."""
  text = (f"Budget: {budget} (T = {plan.iterations} iterations per search; networks "
          f"{' x '.join(map(str, plan.hidden))}, LayerNorm, GELU, Huber loss, trained on "
          f"{plan.examples} LP-labelled PBSs per leaf for {', '.join(map(str, plan.steps))} "
          f"steps; held-out set {plan.held_out} PBSs per leaf of the same distribution; "
          f"on-path set: the leaf PBSs exact CFR-AVG visits in iterations "
          f"{plan.path_iterations // 2 + 1}-{plan.path_iterations}; {plan.model_seeds} model(s) "
          f"per cut; self-play: {plan.seeds} seeds, {plan.rounds} rounds of {plan.episodes} "
          f"episodes and {plan.train_steps} training steps, each model measured by a search of "
          f"T = {plan.eval_iterations}). Data sets and models: {store.computed} computed, "
          f"{store.reused} reused. The long version: `python -m experiments {experiment} --full` "
          "(T = 1000, five cuts, 2 x 256 networks; 9 minutes with --workers 2).")
  if not learn:
    text += (" PyTorch is not installed, so the learned value functions and self-play were left "
             "out (pip install -e '.[learn]').")
  return text


CAPTIONS = {
    "learned_vs_exact": (
        "**Learned vs exact leaves** (`rebel_learned_vs_exact.png`). Exploitability "
        "(OpenSpiel's) of CFR-AVG's average policy against iterations T, one panel per game "
        "and cut: exact LP leaves (green), the trained value function's leaf values (orange; "
        "median and min-max band when there are several models), full-game CFR (black), "
        "O(1/sqrt T) guide (dashed). Triangles: the final trunk completed by its best "
        "continuation (the table's last column). What to see: with learned leaves the trunk "
        "is nearly as good as with exact ones, but the reported policy is not. Its continuation "
        "below the leaves is the exact LP's at each iteration's leaf PBS, and the trunk "
        "converges to where the MODEL makes the opponent indifferent, a little off the exact "
        "indifference point; there the exact leaf solution is a pure best response, so the "
        "averaged continuation becomes pure and exploitable, far more than the value error "
        "suggests (the orange curve turns up after T = 30-100). Every iteration is measured: "
        "the exploitability of standard CFR-AVG's average oscillates, with a period of 10 to 25 "
        "iterations near T = 100 (kuhn_poker depth 1, exact leaves: 0.0006 at T = 101, 0.0038 "
        "at 106), and the curves draw that oscillation rather than a few points of it. "
        "The table's rows: full-game CFR "
        "(one run of the game, listed under each of its cuts' depth limits though it has none, "
        "so it has no trunk); exact (the exact LP's leaf values and continuation); perfect (the "
        "same exact LP values served through the value-function interface that the learned and "
        "perturbed values go through: identical to exact by construction, shown to check that "
        "interface); learned (the model after the last training budget, the median over the "
        "models' seeds when there are several)."),
    "error": (
        "**Exploitability against the value error** (`rebel_learned_error.png`). x: the value "
        "error e on the on-path beliefs (the leaf PBSs exact CFR-AVG visits): the mean over "
        "them of the largest error of a counterfactual value, in chips (the table also has the "
        "maxima and the held-out set's). Blue: the exact values plus a smooth perturbation of "
        "size delta U (U the leaf's largest payoff), filled: exploitability of the average "
        "policy, hollow: its trunk with the best continuation; orange squares: the trained "
        "models (every budget and seed); dotted: exact leaves at the same T; dashed grey: "
        "least-squares line through 0 of the blue series (slope in the corner). What to see: "
        "above the exact run's convergence floor, the exploitability grows about linearly with "
        "a smooth error at depth 2 and in the simplified game, with slopes near 0.1-0.2, far "
        "below the fixed-payoff bound 2 that the checks apply (Kovarik et al., 'Value functions "
        "for depth-limited solving in zero-sum imperfect-information games', arXiv 1906.06412, "
        "2019, found roughly linear dependence); at depth 1 of kuhn_poker and of ante 2 it "
        "stays flat up to an error as large as the exact values' jump at the equilibrium "
        "belief, then jumps: the kink of the exact value function pins the trunk at the "
        "indifference point, and a smooth error smaller than the kink cannot move it. The "
        "learned models lie above the blue series at the same error: a network smooths the "
        "kink itself, which moves the indifference point; and their on-path errors are many "
        "times their held-out errors, because uniformly drawn reaches rarely produce the "
        "corner beliefs of equilibrium play. The table: one row per series at the final T; "
        "perturbed rows, the exact values plus the perturbation of size delta U (seed: the "
        "perturbation's); learned rows, a trained model after the given training steps (seed: "
        "the model's); the value error's mean and max over the held-out set and over the "
        "on-path set."),
    "modified": (
        "**Modified CFR-AVG** (`rebel_learned_modified.png`; solid: modified, de-averaged "
        "leaf values; dotted: standard; green: exact LP leaves, purple: Hedge leaves, orange: "
        "learned values). Why it stalls with exact leaves: the de-averaged values telescope, "
        "sum_k w_k v^k = W_T V^T, and V^T is linear in the opponent's average trunk reach "
        "(W_T pibar^T = sum_k w_k pi^k), so the trunk's cumulative regrets are exactly those of "
        "CFR against the LATEST leaf solution, as if it had been played in every past "
        "iteration, while the average policy averages all the leaf solutions. An equilibrium "
        "trunk makes the opponent indifferent at the leaf; there the exact LP solution (and "
        "CFRLeafSolver(50), whose regret matching plays the best response from its second "
        "iteration on) jumps between vertices, the trunk follows whichever vertex came last, "
        "and nothing ties the averaged continuation to the trunk: the trunk converges (small "
        "trunk exploitability), the averaged continuation does not (kuhn_poker depth 1: player "
        "1 calls a bet holding Q with the probability of the table's last column; 1/3 in every "
        "equilibrium). The "
        "de-averaging itself is exact. Hedge leaves are continuous in the belief, so the "
        "latest solution converges with the beliefs and modified CFR-AVG converges, more slowly "
        "than standard CFR-AVG with the same leaves. The learned values are smooth too: "
        "modified CFR-AVG's trunk converges as standard's does, and both reported policies "
        "carry the LP continuation's problem of the first figure. The table: one row per cut, "
        "leaf values (exact LP, Hedge, or the first model seed's model after the last "
        "training budget) and variant."),
    "self_play": (
        "**Self-play** (`rebel_learned_self_play.png`; ReBeL's Algorithm 1 on one cut: CFR-AVG "
        "search with the current model at the root, a random iteration drawn uniformly, one "
        "exploring player per episode (probability 0.25), a CFR(100) search at the visited leaf "
        "PBS as the target, training on the replay buffer). Left: the model's value error on "
        "the held-out set and on the on-path beliefs; right: exploitability of CFR-AVG with the "
        "model's leaf values and of its trunk with the best continuation; median and min-max "
        "band over the seeds; green: exact leaves at the same T. What to see: self-play's "
        "targets lie where the search goes, so the on-path error falls with the rounds to "
        "below the supervised models' (trained on uniformly drawn reaches), and the search "
        "policy's exploitability falls with it to near the exact leaves'. The table: one row "
        "per round (0: the untrained model); the replay buffer's examples; the value errors "
        "(each the mean over its set) and the exploitabilities, median, min or max over the "
        "seeds."),
}
