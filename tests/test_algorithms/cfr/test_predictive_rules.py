"""PCFR+, SAPCFR+, APCFR+, DCFR+ and PDCFR+ against plain implementations of the papers'
equations.

The references:

* ``PaperSolver`` below, written from the papers' update equations alone (no project code): a
  recursive walk over OpenSpiel states per player pass, as OpenSpiel's ``cfr.py``, with the
  regrets, policies and average numerators in dictionaries keyed by information-state string.
  PCFR+ is predictive RM+ at every information set with the prediction m_{t+1} = r_t (Farina,
  Kroer and Sandholm, AAAI 2021): R_t = [R_{t-1} + r_t]^+, sigma_{t+1} = RM([R_t + r_t]^+).
  SAPCFR+ (Meng, Yang, Zhang, Ge and Gao, AAAI 2026, arXiv 2503.12770) steps the prediction
  1 / (1 + alpha) as far: sigma_{t+1} = RM([R_t + r_t / (1 + alpha)]^+), alpha = 2. APCFR+
  (same paper, as issue 35 transcribes it) learns alpha per information set:
  alpha_I = min(sqrt(sum_tau ||r_tau - r_{tau-1}||^2 / sum_tau ||R_tau - R_{tau-1}||^2), 5),
  r_0 = 0, 5 where the denominator is 0.
  DCFR+ and PDCFR+ are Xu, Li, Liu, Fu, Fu, Xing and Cheng (IJCAI 2024):
  Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+ with d(t) = t^alpha / (t^alpha + 1), and
  sigma_{t+1} = RM(Rhat_t) (DCFR+) or RM([d(t) Rhat_t + r_t]^+) (PDCFR+). The average policy is
  the papers' recursion xbar_t = xbar_{t-1} ((t - 1) / t)^gamma + pi_i(I) sigma_t (Brown and
  Sandholm, AAAI 2019), which the engine keeps unnormalised as sum_t t^gamma pi_i(I) sigma_t.
  Alternating updates: player 0's pass, then player 1's against player 0's new policy, ...
* The authors' published exploitability files (numbers cited where asserted): AutoCFR (Xu, Li,
  Fu, Fu, Xing, AAAI 2022), github.com/rpSebastian/AutoCFR at commit 9b55c9a,
  ``models/games/kuhn_poker/DCFRPlus_kuhn_poker.csv``; DDCFR (Xu et al., ICLR 2024),
  github.com/rpSebastian/DDCFR at commit 75f2f5a, ``results/{CFRPlus,DCFR}/KuhnPoker/data.csv``.
  No such file of PCFR+ or PDCFR+ was found (github.com/rpSebastian/PDCFRPlus holds code only).
"""

import math

import numpy as np
import pyspiel
import pytest

import algorithms
from algorithms.cfr import cfr_kernel
from algorithms.cfr.cfr_engine import CFREngine
from algorithms.cfr.cfr_engine import UpdateRule
from algorithms.tree.game_tree import GameTree
from algorithms.tree.tree_layout import TreeArrays
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)

# The papers' defaults: PCFR+ gamma = 2 (quadratic averaging); SAPCFR+ alpha = 2 (the step
# asymmetry), gamma = 2; DCFR+ alpha = 1.5, gamma = 4; PDCFR+ alpha = 2.3, gamma = 5 (Xu et al.
# 2024 and their code's defaults).
SOLVERS = {
    "pcfr+": (algorithms.PCFRPlusSolver, dict(alpha=0.0, gamma=2.0)),
    "sapcfr+": (algorithms.SAPCFRPlusSolver, dict(alpha=2.0, gamma=2.0)),
    "apcfr+": (algorithms.APCFRPlusSolver, dict(alpha=5.0, gamma=2.0)),
    "dcfr+": (algorithms.DCFRPlusSolver, dict(alpha=1.5, gamma=4.0)),
    "pdcfr+": (algorithms.PDCFRPlusSolver, dict(alpha=2.3, gamma=5.0)),
}
TOLERANCE = 1e-12
# The paper-equation test's tolerance per rule. SAPCFR+'s: on kuhn_poker(players=3) its current
# policy leaves PaperSolver's by rounding amplified at a set whose [R + r / 3]^+ sums to nearly 0
# (measured largest difference 1.3e-14 at 10 iterations, 9.3e-12 at 60, 3.7e-10 at 80, 1.7e-10 at
# 100, back to 3.8e-12 at 200; average policy 2.0e-12 and regrets 8.3e-12 at 100); kuhn_poker
# and leduc_poker stay within 3e-14. APCFR+ stays within 1e-13 on all three (measured).
TOLERANCES = {"pcfr+": TOLERANCE, "sapcfr+": 1e-9, "apcfr+": TOLERANCE, "dcfr+": TOLERANCE,
              "pdcfr+": TOLERANCE}


class PaperSolver:
  """One of the three rules, computed as the papers state it (module docstring)."""

  def __init__(self, game, rule, alpha, gamma):
    self.game, self.rule, self.alpha, self.gamma = game, rule, alpha, gamma
    self.actions, self.player = {}, {}  # information-state string -> legal actions, player
    self._discover(game.new_initial_state())
    self.regrets = {key: [0.0] * len(a) for key, a in self.actions.items()}  # R, or Rhat
    self.policy = {key: [1.0 / len(a)] * len(a) for key, a in self.actions.items()}
    self.average = {key: [0.0] * len(a) for key, a in self.actions.items()}  # xbar, unnormalised
    # APCFR+: r_{t-1} per set, and the sums of ||r_t - r_{t-1}||^2 and ||R_t - R_{t-1}||^2.
    self.last = {key: [0.0] * len(a) for key, a in self.actions.items()}
    self.error = {key: 0.0 for key in self.actions}
    self.movement = {key: 0.0 for key in self.actions}
    self.t = 0

  def _discover(self, state):
    if state.is_terminal():
      return
    if state.is_chance_node():
      for action, _ in state.chance_outcomes():
        self._discover(state.child(action))
      return
    key = state.information_state_string()
    self.actions[key] = state.legal_actions()
    self.player[key] = state.current_player()
    for action in state.legal_actions():
      self._discover(state.child(action))

  def discount(self, t):
    """d(t) = t^alpha / (t^alpha + 1), d(0) = 0."""
    return t**self.alpha / (t**self.alpha + 1.0)

  def iterate(self):
    self.t += 1
    for player in range(self.game.num_players()):
      instant, own_reach = {}, {}
      self._value(self.game.new_initial_state(), player, 1.0, 1.0, instant, own_reach)
      for key in instant:
        self._update(key, instant[key], own_reach[key])

  def _value(self, state, player, own, others, instant, own_reach):
    """The player's expected utility below ``state``; r(I, a) += pi_{-i}(h) (v(ha) - v(h))."""
    if state.is_terminal():
      return state.returns()[player]
    if state.is_chance_node():
      return sum(p * self._value(state.child(a), player, own, others * p, instant, own_reach)
                 for a, p in state.chance_outcomes())
    key = state.information_state_string()
    sigma = self.policy[key]
    children = [state.child(a) for a in self.actions[key]]
    if state.current_player() != player:
      return sum(s * self._value(child, player, own, others * s, instant, own_reach)
                 for s, child in zip(sigma, children))
    values = [self._value(child, player, own * s, others, instant, own_reach)
              for s, child in zip(sigma, children)]
    value = sum(s * v for s, v in zip(sigma, values))
    regrets = instant.setdefault(key, [0.0] * len(values))
    for k, v in enumerate(values):
      regrets[k] += others * (v - value)
    own_reach[key] = own  # pi_i(I), the same at every history of I (perfect recall)
    return value

  def _update(self, key, r, reach):
    t, sigma = self.t, self.policy[key]
    # xbar_t = xbar_{t-1} ((t - 1) / t)^gamma + pi_i(I) sigma_t
    self.average[key] = [x * ((t - 1) / t)**self.gamma + reach * s
                         for x, s in zip(self.average[key], sigma)]
    if self.rule in ("pcfr+", "sapcfr+", "apcfr+"):
      # m = r (PCFR+), or r / (1 + alpha) (SAPCFR+'s asymmetric step; APCFR+'s alpha_I)
      regrets = [max(big_r + small_r, 0.0) for big_r, small_r in zip(self.regrets[key], r)]
      step = 1.0 if self.rule == "pcfr+" else 1.0 / (1.0 + self.alpha)
      if self.rule == "apcfr+":
        for k in range(len(r)):  # the squared norms, added action by action
          self.error[key] += (r[k] - self.last[key][k])**2
          self.movement[key] += (regrets[k] - self.regrets[key][k])**2
        self.last[key] = list(r)
        ratio = (self.error[key] / self.movement[key] if self.movement[key] > 0 else math.inf)
        step = 1.0 / (1.0 + min(math.sqrt(ratio), self.alpha))
      predicted = [max(big_r + step * small_r, 0.0) for big_r, small_r in zip(regrets, r)]
    else:  # Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+
      regrets = [max(self.discount(t - 1) * big_r + small_r, 0.0)
                 for big_r, small_r in zip(self.regrets[key], r)]
      predicted = regrets if self.rule == "dcfr+" else [
          max(self.discount(t) * big_r + small_r, 0.0) for big_r, small_r in zip(regrets, r)]
    self.regrets[key] = regrets
    total = sum(predicted)
    self.policy[key] = ([p / total for p in predicted] if total > 0
                        else [1.0 / len(predicted)] * len(predicted))

  def stored_regret_scale(self):
    """The engine keeps d(t) Rhat_t for the discounted rules (``end_block_update``), R_t else."""
    return 1.0 if self.rule in ("pcfr+", "sapcfr+", "apcfr+") else self.discount(self.t)


def assert_equal_to_paper(solver, reference, tolerance):
  average, current = solver.average_policy(), solver.current_policy()
  nodes = solver._info_state_nodes  # pylint: disable=protected-access
  scale = reference.stored_regret_scale()
  largest = max(max(map(abs, r)) for r in reference.regrets.values())
  for key, actions in reference.actions.items():
    row = average.state_lookup[key]
    total = sum(reference.average[key])
    for k, action in enumerate(actions):
      assert average.action_probability_array[row, action] == pytest.approx(
          reference.average[key][k] / total, abs=tolerance)
      assert current.action_probability_array[row, action] == pytest.approx(
          reference.policy[key][k], abs=tolerance)
      assert nodes[key].cumulative_regret[action] == pytest.approx(
          scale * reference.regrets[key][k], abs=tolerance * max(1.0, scale * largest))


# Leduc is compared over 20 iterations: there the three rules amplify rounding, as CFR+ does
# (test_solvers.py compares Leduc CFR+ with OpenSpiel over 50). Measured largest differences
# (average policy, current policy) between the engine and PaperSolver: DCFR+ 6.6e-14 and
# 1.5e-13 at 20 iterations, 8.3e-12 and 1.2e-10 at 30, 3.0e-2 and 0.2 at 100; PCFR+ 7.8e-14 and
# 1.9e-13 at 20, 3.0e-9 and 2.7e-8 at 100; PDCFR+ 1.1e-13 and 7.5e-13 at 20, 5.8e-12 and
# 1.7e-11 at 100. Both are rounding: PaperSolver in 50-digit decimal arithmetic (the same
# walk) is left by both float runs, growing alike from about 1e-14 at 10 iterations (DCFR+'s
# average policy: 1.8e-9 for the engine and 4.6e-10 for the float PaperSolver at 40 iterations,
# 3.1e-2 and 1.5e-3 at 100). Kuhn poker (2 and 3 players) stays within 2e-13 over 100
# iterations (measured).
@pytest.mark.parametrize("game_string,iterations", [
    ("kuhn_poker", 100), ("kuhn_poker(players=3)", 100), ("leduc_poker", 20)])
@pytest.mark.parametrize("rule", sorted(SOLVERS))
def test_equal_to_the_papers_equations(game_string, iterations, rule):
  game = pyspiel.load_game(game_string)
  cls, parameters = SOLVERS[rule]
  solver, reference = cls(game, engine="flat"), PaperSolver(game, rule, **parameters)
  for _ in range(iterations):
    solver.evaluate_and_update_policy()
    reference.iterate()
  assert_equal_to_paper(solver, reference, TOLERANCES[rule])


@pytest.mark.parametrize("rule", sorted(SOLVERS))
def test_flat_and_range_engines_agree(rule):
  # The range-vector engine calls the same per-block rule (rule_kernel.end_block_update) on
  # sums grouped by card; measured after 200 iterations: policies within 4.2e-14.
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=14)")
  cls, _ = SOLVERS[rule]
  flat, ranged = cls(game, engine="flat"), cls(game, engine="range")
  assert (flat.engine_name, ranged.engine_name) == ("flat", "range")
  flat.solve(200)
  ranged.solve(200)
  for ours, theirs in ((flat.average_policy(), ranged.average_policy()),
                       (flat.current_policy(), ranged.current_policy())):
    assert np.abs(ours.action_probability_array
                  - theirs.action_probability_array).max() <= TOLERANCE
  assert ranged.exploitability() == pytest.approx(flat.exploitability(), abs=1e-13)
  flat_nodes, range_nodes = flat._info_state_nodes, ranged._info_state_nodes  # pylint: disable=protected-access
  for key, node in flat_nodes.items():
    assert range_nodes[key].cumulative_regret == pytest.approx(node.cumulative_regret,
                                                               abs=TOLERANCE)


@pytest.mark.parametrize("engine", ["flat", "range"])
@pytest.mark.parametrize("rule", sorted(SOLVERS))
def test_save_and_load_resume_bit_for_bit(tmp_path, engine, rule):
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=14)")
  cls, _ = SOLVERS[rule]
  straight = cls(game, engine=engine).solve(30)
  first = cls(game, engine=engine).solve(10)
  first.save(tmp_path / "run.ckpt")
  resumed = cls.load(tmp_path / "run.ckpt")
  assert (resumed.engine_name, resumed.options()) == (engine, first.options())
  np.testing.assert_array_equal(resumed.engine.sigma, first.engine.sigma)
  resumed.solve(20)
  for name in ("regrets", "cumulative", "sigma"):
    np.testing.assert_array_equal(getattr(resumed.engine, name), getattr(straight.engine, name))


@pytest.mark.parametrize("rule", ["pcfr+", "pdcfr+", "apcfr+"])
def test_predictive_checkpoint_needs_its_policy(tmp_path, rule):
  # sigma = RM(R + m) with m the last instantaneous regrets: R alone does not give it back.
  game = pyspiel.load_game("kuhn_poker")
  cls, _ = SOLVERS[rule]
  solver = cls(game).solve(10)
  solver.save(tmp_path / "run.ckpt")
  header, arrays = algorithms.checkpoint.read_checkpoint(tmp_path / "run.ckpt")
  restarted = CFREngine(solver.engine.arrays, solver.engine.rule)
  restarted.restore(10, arrays["regrets"], arrays["cumulative"])
  assert np.abs(restarted.sigma - arrays["policy"]).max() > 0.01  # RM(R) is not the policy
  del arrays["policy"]
  for key in ("format", "version", "sha256"):
    del header[key]
  algorithms.checkpoint.write_checkpoint(tmp_path / "old.ckpt", header, arrays)
  with pytest.raises(ValueError, match="array 'policy' missing"):
    cls.load(tmp_path / "old.ckpt")


@pytest.mark.parametrize("engine", ["flat", "range"])
def test_apcfr_plus_checkpoint_needs_its_memory(tmp_path, engine):
  # APCFR+'s alpha_I depends on every past update of I: its sums and last regrets are saved
  # (rule_memory) and a checkpoint without them is refused.
  game = pyspiel.load_game("kuhn_poker_ante(deck_size=14)")
  solver = algorithms.APCFRPlusSolver(game, engine=engine).solve(10)
  assert np.abs(solver.engine.memory).max() > 0
  solver.save(tmp_path / "run.ckpt")
  header, arrays = algorithms.checkpoint.read_checkpoint(tmp_path / "run.ckpt")
  np.testing.assert_array_equal(arrays["rule_memory"], solver.engine.memory.reshape(-1))
  del arrays["rule_memory"]
  for key in ("format", "version", "sha256"):
    del header[key]
  algorithms.checkpoint.write_checkpoint(tmp_path / "old.ckpt", header, arrays)
  with pytest.raises(ValueError, match="array 'rule_memory' missing"):
    algorithms.APCFRPlusSolver.load(tmp_path / "old.ckpt")


def test_batched_kernel_runs_the_rules_per_game():
  # cfr_kernel.exact_batch (BatchedCFRSolver's kernel) with PDCFR+'s rule: each game equals its
  # own engine bit for bit.
  games = [pyspiel.load_game(f"kuhn_poker_ante(ante={a})") for a in (1.0, 2.0)]
  arrays = [TreeArrays(GameTree.from_game(g)) for g in games]
  rule = UpdateRule(regret_matching_plus=True, averaging_gamma=5.0, discount_alpha=2.3,
                    discount_beta=2.3, predictive=True)
  alone = [CFREngine(a, rule) for a in arrays]
  sigma = np.stack([e.sigma for e in alone])
  regrets, cumulative = np.zeros_like(sigma), np.zeros_like(sigma)
  iterations = np.zeros(2, dtype=np.int64)
  cfr_kernel.exact_batch(arrays[0].kernel, rule.kernel_rule(),
                         np.stack([a.weighted_utility for a in arrays]), sigma, regrets,
                         cumulative, np.zeros((2, 0, 0)), iterations, np.arange(2), 30)
  for b, engine in enumerate(alone):
    engine.solve(30)
    np.testing.assert_array_equal(sigma[b], engine.sigma)
    np.testing.assert_array_equal(regrets[b], engine.regrets)
    np.testing.assert_array_equal(cumulative[b], engine.cumulative)


def exploitabilities(solver, checkpoints):
  done, out = 0, []
  for n in checkpoints:
    solver.solve(n - done)
    done = n
    out.append(solver.exploitability())
  return out


def test_convergence_on_kuhn_against_cfr_plus():
  # Measured exploitability on kuhn_poker after 10 / 100 / 1,000 iterations: CFR+ 3.27e-2 /
  # 1.19e-3 / 8.74e-5; PCFR+ 2.02e-2 / 2.32e-5 / 2.35e-8; DCFR+ 2.13e-2 / 1.52e-3 / 1.18e-4;
  # PDCFR+ 2.95e-2 / 1.10e-7 / 1.13e-13; SAPCFR+ 9.89e-3 / 1.05e-5 / 1.07e-8. The predictive
  # rules beat CFR+ by orders of magnitude, and SAPCFR+ PCFR+ (Meng et al. 2026 report it faster
  # than PCFR+ on Kuhn);
  # DCFR+ does not on Kuhn at 1,000 iterations, nor does the authors' own DCFR+: 1.1489e-4 in
  # AutoCFR's file against 8.7365e-5 for CFR+ in DDCFR's (module docstring).
  game = pyspiel.load_game("kuhn_poker")
  checkpoints = (10, 100, 1000)
  cfr_plus = exploitabilities(algorithms.CFRPlusSolver(game), checkpoints)
  runs = {rule: exploitabilities(cls(game), checkpoints) for rule, (cls, _) in SOLVERS.items()}
  for values in runs.values():
    assert values[0] > values[1] > values[2]
  assert runs["pcfr+"][2] < cfr_plus[2] / 1000
  assert runs["sapcfr+"][2] < runs["pcfr+"][2] / 2
  assert runs["apcfr+"][2] < runs["pcfr+"][2] / 2  # measured 1.07e-8, its alphas near 2
  assert runs["pdcfr+"][2] < cfr_plus[2] / 1e6
  assert cfr_plus[2] < runs["dcfr+"][2] < 2 * cfr_plus[2]


def test_asymmetric_rules_beat_pcfr_plus_on_leduc():
  # Measured exploitability on leduc_poker after 100 / 1,000 iterations: CFR+ 1.34e-2 /
  # 2.50e-4, PCFR+ 1.98e-2 / 7.11e-4, SAPCFR+ 1.29e-2 / 1.92e-4, APCFR+ 1.27e-2 / 1.83e-4.
  # Meng et al. (AAAI 2026) built both for games where PCFR+'s prediction misleads it; Leduc
  # is one here.
  game = pyspiel.load_game("leduc_poker")
  pcfr, sapcfr, apcfr = (exploitabilities(cls(game), (100, 1000))
                         for cls in (algorithms.PCFRPlusSolver, algorithms.SAPCFRPlusSolver,
                                     algorithms.APCFRPlusSolver))
  for ours in (sapcfr, apcfr):
    assert ours[0] < pcfr[0] and ours[1] < pcfr[1] / 3


@pytest.mark.parametrize("cls,options,iterations,published,relative", [
    # AutoCFR's DCFR+ divides by (t - 1)^1.5 + 1.5 (DCFRPlusSolver docstring); measured relative
    # differences 1.2e-13 and 3.1e-12.
    (algorithms.DCFRPlusSolver, {"discount_constant": 1.5}, 100, 0.0016241986189111657, 1e-12),
    (algorithms.DCFRPlusSolver, {"discount_constant": 1.5}, 1000, 0.00011488812334822796, 1e-11),
    # Sanity checks on the same walk: CFR+ (measured 8.7e-13) and DCFR, whose runs amplify
    # rounding more (measured 1.1e-10 at 100 iterations, 3.1e-9 at 1,000).
    (algorithms.CFRPlusSolver, {}, 1000, 8.736532252065499e-05, 1e-11),
    (algorithms.DCFRSolver, {}, 1000, 0.0001465002281534622, 1e-8),
])
def test_authors_published_exploitability_on_kuhn(cls, options, iterations, published,
                                                  relative):
  solver = cls(pyspiel.load_game("kuhn_poker"), **options).solve(iterations)
  assert solver.exploitability() == pytest.approx(published, rel=relative)


def test_bad_arguments():
  with pytest.raises(ValueError, match="discount_constant must be > 0, got 0.0"):
    algorithms.DCFRPlusSolver(pyspiel.load_game("kuhn_poker"), discount_constant=0.0)
  arrays = TreeArrays(GameTree.from_game(pyspiel.load_game("kuhn_poker")))
  with pytest.raises(ValueError, match="predictive rules .* need full-width passes"):
    CFREngine(arrays, UpdateRule(predictive=True)).iterate_sampled(None, np.zeros((2, 2)))
