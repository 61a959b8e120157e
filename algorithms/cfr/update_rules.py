"""The update rules of CFR and its variants, and the solver classes each named rule gets.

``UpdateRule`` says which variant an engine runs (the fields ``rule_kernel.end_block_update``
reads); its constructors build the rules of the papers. ``RULES`` names the rules that have
solver classes: each ``NamedRule`` gives ``solvers`` a single-game class ``<name>Solver`` and
``batched_solver`` a class ``Batched<name>Solver`` of B games, with the entry's options and
docstring, both exported by ``algorithms``. A new rule is one constructor here and one entry in
``RULES`` (and, to run it in the experiments, one entry of the harness's solver registry).
"""

import dataclasses
import functools
from typing import Any, Callable, Dict, Mapping, Optional

import numpy as np

from algorithms.cfr.rule_kernel import KernelRule


@dataclasses.dataclass(frozen=True)
class UpdateRule:
  """Which CFR variant an engine runs.

  The rules of ``rule_kernel.end_block_update`` (which states their maths) are these fields'
  combinations: CFR (the defaults), CFR+ (``regret_matching_plus``, gamma 1), DCFR and LCFR
  (the discounts), DCFR+ (RM+ and the discounts), PCFR+ (RM+ and ``predictive``), SAPCFR+
  (PCFR+ with ``prediction_weight`` 1/3), APCFR+ (PCFR+ with ``adaptive_asymmetry``) and
  PDCFR+ (RM+, the discounts and ``predictive``).

  Attributes:
    alternating_updates: update player 0, refresh the policy, then player 1, ... (OpenSpiel's
      default); otherwise every player from the same policy.
    regret_matching_plus: clip cumulative regrets at 0 after each update (CFR+).
    averaging_gamma: the average policy weights iteration t by t^gamma (0: uniform, 1: linear).
    discount_alpha, discount_beta: discounted CFR's regret discounts, or None for no discount.
    discount_constant: c in the discounts t^alpha / (t^alpha + c), t^beta / (t^beta + c)
      (1 in the papers; 1.5 in the DCFR+ code of Xu et al.).
    predictive: regret matching of R + m instead of R, with the prediction m = lambda r of
      predictive RM+ (PCFR+, SAPCFR+, PDCFR+); full-width passes only.
    prediction_weight: lambda, the weight of the last instantaneous regret r in the prediction
      of a predictive rule: 1 in PCFR+ and PDCFR+ (m = r, Farina et al. 2021), 1 / (1 + alpha)
      in SAPCFR+ (Meng et al. 2026's asymmetric step sizes, alpha = 2); unused otherwise.
    adaptive_asymmetry: APCFR+ (Meng et al. 2026): the prediction weight is 1 / (1 + alpha_I),
      alpha_I learned at each information set from its history (``rule_kernel.
      adaptive_weight``, its state ``memory``) and capped at this value (alpha_max = 5 in the
      paper); None: the fixed ``prediction_weight``. A predictive rule only.
  """

  alternating_updates: bool = True
  regret_matching_plus: bool = False
  averaging_gamma: float = 0.0
  discount_alpha: Optional[float] = None
  discount_beta: Optional[float] = None
  discount_constant: float = 1.0
  predictive: bool = False
  prediction_weight: float = 1.0
  adaptive_asymmetry: Optional[float] = None

  def __post_init__(self):
    if (self.discount_alpha is None) != (self.discount_beta is None):
      raise ValueError("discount_alpha and discount_beta must both be set or both be None")
    if self.averaging_gamma < 0:
      raise ValueError(f"averaging_gamma must be >= 0, got {self.averaging_gamma}")
    if not self.discount_constant > 0:
      raise ValueError(f"discount_constant must be > 0, got {self.discount_constant}")
    if not self.prediction_weight > 0:
      raise ValueError(f"prediction_weight must be > 0, got {self.prediction_weight}")
    if self.adaptive_asymmetry is not None and not (self.predictive
                                                    and self.adaptive_asymmetry >= 0):
      raise ValueError("adaptive_asymmetry needs a predictive rule and a cap >= 0, got "
                       f"{self.adaptive_asymmetry} (predictive={self.predictive})")

  @classmethod
  def from_options(cls, alternating_updates: bool = True, linear_averaging: bool = False,
                   regret_matching_plus: bool = False) -> "UpdateRule":
    """The rule of OpenSpiel's ``cfr._CFRSolver`` options: linear averaging is gamma = 1."""
    return cls(alternating_updates=alternating_updates, regret_matching_plus=regret_matching_plus,
               averaging_gamma=1.0 if linear_averaging else 0.0)

  @classmethod
  def dcfr(cls, alpha: float, beta: float, gamma: float) -> "UpdateRule":
    """Discounted CFR (Brown and Sandholm, AAAI 2019): regret matching, alternating updates,
    R >= 0 scaled by t^alpha / (t^alpha + 1) and R < 0 by t^beta / (t^beta + 1) after each
    update, iteration t weighing t^gamma in the average (linear CFR: alpha = beta = gamma = 1)."""
    return cls(alternating_updates=True, averaging_gamma=gamma, discount_alpha=alpha,
               discount_beta=beta)

  @classmethod
  def pcfr_plus(cls, gamma: float, prediction_weight: float = 1.0) -> "UpdateRule":
    """Predictive CFR+ (Farina, Kroer and Sandholm, AAAI 2021): PRM+ with the prediction
    m_{t+1} = lambda r_t (lambda = ``prediction_weight``, 1 in the paper), alternating
    updates, iteration t weighing t^gamma in the average."""
    return cls(alternating_updates=True, regret_matching_plus=True, averaging_gamma=gamma,
               predictive=True, prediction_weight=prediction_weight)

  @classmethod
  def sapcfr_plus(cls, alpha: float, gamma: float) -> "UpdateRule":
    """Simple asymmetric PCFR+ (Meng, Yang, Zhang, Ge and Gao, "Faster game solving via
    asymmetry of step sizes", AAAI 2026, arXiv 2503.12770): PCFR+ whose prediction takes the
    step 1 / (1 + alpha) of the regrets' step, m_{t+1} = r_t / (1 + alpha)."""
    if not alpha >= 0:
      raise ValueError(f"alpha must be >= 0, got {alpha}")
    return cls.pcfr_plus(gamma, prediction_weight=1.0 / (1.0 + alpha))

  @classmethod
  def apcfr_plus(cls, alpha_max: float, gamma: float) -> "UpdateRule":
    """Asymmetric PCFR+ (Meng et al., AAAI 2026): PCFR+ whose prediction at information set
    I takes the step 1 / (1 + alpha_I) of the regrets', alpha_I adapted per set and capped at
    ``alpha_max`` (``rule_kernel.end_block_update``)."""
    if not alpha_max >= 0:
      raise ValueError(f"alpha_max must be >= 0, got {alpha_max}")
    return dataclasses.replace(cls.pcfr_plus(gamma), adaptive_asymmetry=alpha_max)

  @classmethod
  def dcfr_plus(cls, alpha: float, gamma: float, discount_constant: float = 1.0,
                predictive: bool = False) -> "UpdateRule":
    """DCFR+, or PDCFR+ when ``predictive`` (Xu et al., IJCAI 2024): RM+ (predictive RM+) on
    regrets discounted by d(t) = t^alpha / (t^alpha + c), alternating updates, iteration t
    weighing t^gamma in the average."""
    # beta = alpha: RM+ leaves no negative regret, so only d(t) = t^alpha / (t^alpha + c) acts.
    return cls(alternating_updates=True, regret_matching_plus=True, averaging_gamma=gamma,
               discount_alpha=alpha, discount_beta=alpha, discount_constant=discount_constant,
               predictive=predictive)

  def memory(self, size: int) -> np.ndarray:
    """The rule's state over ``size`` sequences, zeros, the kernels' ``memory`` argument:
    APCFR+'s (4 ``size``,) (``rule_kernel.adaptive_weight``), (0, 0) for the other rules (the
    kernels tell the two by ndim, ``rule_kernel.end_block_update``)."""
    if self.adaptive_asymmetry is not None:
      return np.zeros(4 * size)
    return np.zeros((0, 0))

  def kernel_rule(self) -> KernelRule:
    """The rule in the kernel's types."""
    discount = self.discount_alpha is not None
    return KernelRule(alternating=bool(self.alternating_updates),
                      regret_matching_plus=bool(self.regret_matching_plus),
                      averaging_gamma=float(self.averaging_gamma), discount=discount,
                      discount_alpha=float(self.discount_alpha) if discount else 0.0,
                      discount_beta=float(self.discount_beta) if discount else 0.0,
                      discount_constant=float(self.discount_constant),
                      predictive=bool(self.predictive),
                      prediction_weight=float(self.prediction_weight),
                      adaptive=self.adaptive_asymmetry is not None,
                      asymmetry_max=float(self.adaptive_asymmetry or 0.0))


@dataclasses.dataclass(frozen=True)
class NamedRule:
  """A rule with solver classes: ``<name>Solver`` (one game) and ``Batched<name>Solver``.

  Attributes:
    name: the classes' stem ("CFRPlus": ``CFRPlusSolver``, ``BatchedCFRPlusSolver``).
    make: the rule from the options, ``make(**options)``.
    options: the classes' keyword options and their defaults; a value passed is converted to
      its default's type (``float(alpha)``, ``bool(alternating_updates)``), recorded by
      ``options()`` and kept as an attribute of that name.
    doc: the classes' docstring: the algorithm, its paper and its defaults.
    extends: the stem of the rule this one specialises (CFR+ of CFR, LCFR of DCFR): its classes
      subclass that rule's, as OpenSpiel's ``CFRPlusSolver`` is a CFR solver; None if none.
  """

  name: str
  make: Callable[..., UpdateRule]
  options: Mapping[str, Any]
  doc: str
  extends: Optional[str] = None

  def converted(self, options: Mapping[str, Any]) -> dict:
    """Every option of the rule, given in ``options`` or default, converted to its default's
    type."""
    return {key: type(default)(options.get(key, default))
            for key, default in self.options.items()}


RULES = (
    NamedRule("CFR", UpdateRule.from_options,
              {"alternating_updates": True, "linear_averaging": False,
               "regret_matching_plus": False},
              """Vanilla CFR (Zinkevich et al., NeurIPS 2007) as OpenSpiel's ``cfr.CFRSolver``.

  Defaults as OpenSpiel's: alternating updates, regret matching, uniform averaging. The options
  of OpenSpiel's ``cfr._CFRSolver`` are accepted as keywords.
  """),
    NamedRule("CFRPlus", functools.partial(UpdateRule.from_options, True, True, True), {},
              """CFR+ (Tammelin 2014) as OpenSpiel's ``cfr.CFRPlusSolver``: RM+, alternating
  updates, linear averaging.
  """, extends="CFR"),
    NamedRule("DCFR", UpdateRule.dcfr, {"alpha": 1.5, "beta": 0.0, "gamma": 2.0},
              """Discounted CFR (Brown and Sandholm, AAAI 2019) as OpenSpiel's
  ``discounted_cfr.DCFRSolver``.

  After each player's update its positive regrets are scaled by t^alpha / (t^alpha + 1), its
  negative ones by t^beta / (t^beta + 1); iteration t weighs t^gamma in the average policy.
  """),
    NamedRule("LCFR", functools.partial(UpdateRule.dcfr, 1.0, 1.0, 1.0), {},
              """Linear CFR (Brown and Sandholm 2019): DCFR with alpha = beta = gamma = 1.
  """, extends="DCFR"),
    NamedRule("PCFRPlus", UpdateRule.pcfr_plus, {"gamma": 2.0},
              """Predictive CFR+ (Farina, Kroer and Sandholm, "Faster game solving via
  predictive Blackwell approachability: connecting regret matching and mirror descent",
  AAAI 2021).

  CFR with predictive regret matching+ (PRM+) at every information set, the prediction of the
  next instantaneous regret being the last one, m_{t+1} = r_t:
  R_t = [R_{t-1} + r_t]^+ and sigma_{t+1} = RM([R_t + r_t]^+) (``rule_kernel.end_block_update``),
  with alternating updates and the average policy weighting iteration t by t^gamma (gamma = 2,
  quadratic averaging, as in the paper's experiments and the PCFR+ of Xu et al.'s released
  code; its README also runs gamma = 5). Full-width passes only.
  """),
    NamedRule("SAPCFRPlus", UpdateRule.sapcfr_plus, {"alpha": 2.0, "gamma": 2.0},
              """Simple asymmetric predictive CFR+ (Meng, Yang, Zhang, Ge and Gao, "Faster game
  solving via asymmetry of step sizes", AAAI 2026, arXiv 2503.12770; its first version's
  title: "Asynchronous predictive counterfactual regret minimization+").

  PCFR+ whose prediction steps 1 / (1 + alpha) as far as the accumulated regrets:
  R_t = [R_{t-1} + r_t]^+ and sigma_{t+1} = RM([R_t + r_t / (1 + alpha)]^+)
  (``rule_kernel.end_block_update`` with the prediction weight 1 / (1 + alpha)), alternating
  updates, iteration t weighing t^gamma in the average policy. Defaults alpha = 2 (the
  paper's fixed asymmetry) and gamma = 2 (PCFR+'s averaging). alpha = 0 is PCFR+.
  Full-width passes only.
  """),
    NamedRule("APCFRPlus", UpdateRule.apcfr_plus, {"alpha_max": 5.0, "gamma": 2.0},
              """Asymmetric predictive CFR+ (Meng, Yang, Zhang, Ge and Gao, "Faster game solving
  via asymmetry of step sizes", AAAI 2026, arXiv 2503.12770).

  SAPCFR+ with the asymmetry learned at each information set I: R_t = [R_{t-1} + r_t]^+ and
  sigma_{t+1} = RM([R_t + r_t / (1 + alpha_I)]^+), alpha_I = min(sqrt(E_I / M_I), alpha_max)
  with E_I = sum_tau ||r_tau - r_{tau-1}||^2 (the last regret's error as a prediction of the
  next) and M_I = sum_tau ||R_tau - R_{tau-1}||^2 (the regrets' movement), over the set's
  updates so far (r_0 = 0; alpha_I = alpha_max where M_I = 0), as the issue's transcription of
  the paper states it (``rule_kernel.end_block_update``); alternating updates, iteration t
  weighing t^gamma in the average policy. Defaults alpha_max = 5, gamma = 2 (PCFR+'s
  averaging). Full-width passes only.
  """),
    NamedRule("DCFRPlus", UpdateRule.dcfr_plus,
              {"alpha": 1.5, "gamma": 4.0, "discount_constant": 1.0},
              """DCFR+ (Xu, Li, Liu, Fu, Fu, Xing and Cheng, "Minimizing weighted
  counterfactual regret with optimistic online mirror descent", IJCAI 2024; found earlier by
  AutoCFR, Xu et al., AAAI 2022).

  RM+ on discounted regrets: Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+ with
  d(t) = t^alpha / (t^alpha + c), sigma_{t+1} = RM(Rhat_t), alternating updates, iteration t
  weighing t^gamma in the average policy (``rule_kernel.end_block_update``; the stored regrets
  are d(t) Rhat_t). Defaults alpha = 1.5, gamma = 4 as in the paper and the authors' code. The
  paper's discount has c = 1 (the default); the authors' released code (``dcfr_plus.py`` of
  PDCFRPlus, and AutoCFR's DCFR+) divides by (t - 1)^alpha + 1.5: ``discount_constant=1.5``
  reproduces it (on ``kuhn_poker`` AutoCFR's published exploitability after 1,000 iterations,
  1.1488812e-4, test_predictive_rules.py). Full-width passes only.
  """),
    NamedRule("PDCFRPlus", functools.partial(UpdateRule.dcfr_plus, predictive=True),
              {"alpha": 2.3, "gamma": 5.0},
              """PDCFR+ (Xu, Li, Liu, Fu, Fu, Xing and Cheng, "Minimizing weighted
  counterfactual regret with optimistic online mirror descent", IJCAI 2024).

  Predictive (optimistic) RM+ on discounted regrets, with d(t) = t^alpha / (t^alpha + 1):
  Rhat_t = [d(t - 1) Rhat_{t-1} + r_t]^+ and sigma_{t+1} = RM([d(t) Rhat_t + m_{t+1}]^+) with
  the prediction m_{t+1} = r_t (``rule_kernel.end_block_update``; the stored regrets are
  d(t) Rhat_t), alternating updates, iteration t weighing t^gamma in the average policy.
  Defaults alpha = 2.3, gamma = 5 as in the paper and the authors' code. Full-width passes only.
  """),
)


def rule_classes(root: type, prefix: str, module: str) -> Dict[str, type]:
  """One subclass of ``root`` per entry of ``RULES``, named ``<prefix><name>Solver``.

  A class's constructor takes ``root``'s first argument (the game, or the games), the entry's
  options as keywords (defaults and conversion of ``NamedRule.converted``, kept as attributes
  of their names) and any other keyword of ``root``'s constructor (``tree``, ``max_nodes``,
  ``engine``), and calls ``root.__init__(first, rule, **keywords)``; its ``options()`` returns
  the entry's options. An entry that ``extends`` another subclasses that entry's class.

  Args:
    root: ``solvers.EngineSolver`` or ``batched_solver.BatchedEngineSolver``.
    prefix: "" or "Batched".
    module: the module that binds the classes under their names (pickling finds them there).

  Returns:
    The classes by name, in the order of ``RULES``.
  """
  by_stem: Dict[str, type] = {}
  for named in RULES:
    batch_doc = (f"{named.name}Solver's rule on B games of one tree shape at once, each game's "
                 f"results those of its own {named.name}Solver run.\n\n  " if prefix else "")

    def __init__(self, first, *, _named=named, **keywords):
      values = _named.converted({key: keywords.pop(key) for key in list(keywords)
                                 if key in _named.options})
      for key, value in values.items():
        setattr(self, key, value)
      root.__init__(self, first, _named.make(**values), **keywords)

    def options(self, _named=named) -> dict:
      return {key: getattr(self, key) for key in _named.options}

    by_stem[named.name] = type(f"{prefix}{named.name}Solver",
                               (by_stem.get(named.extends, root),),
                               {"__init__": __init__, "options": options, "__module__": module,
                                "__doc__": batch_doc + named.doc, "named_rule": named})
  return {cls.__name__: cls for cls in by_stem.values()}
