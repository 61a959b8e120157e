"""The references as data for other languages: ``python -m experiments reference-data --out FILE``.

Writes one JSON file (the schema ``experiments/harness/golden/reference_data.schema.json``,
JSON Schema draft 2020-12) with every game of the reference check
(``solver_check.REFERENCE_GAMES``, or those named with ``--game``), recomputed by
``references.compute_reference``:

* two players: the sequence-form LP's value from both players' programs (Koller, Megiddo, von
  Stengel, STOC 1994), and for three-card Kuhn games the closed form (H. W. Kuhn, 1950, for any
  ante and bet, ``algorithms.exact.kuhn_equilibria``): the exact value, the regime, the free
  parameters with their ranges, and per information state (OpenSpiel's information-state string)
  the probabilities of both actions (0: check or fold, 1: bet or call) in the default member and
  their lowest and highest values over the equilibrium family;
* three-player Kuhn poker at ante = bet = 1: the Szafron-Gibson-Sturtevant family's value
  formulas and the recorded members (AAMAS 2013, ``algorithms.exact.kuhn3_equilibria``), each with
  its parameters, exact values and its strategy at every information state.

Everything needed to reimplement the reference check elsewhere is in the file (version 2): the
rules of every game (ante, bet, deck, players, simplified, with the rules and the
information-state string format in words), each closed-form family's parametrisation (every
state's probability of action 1 as an affine function of the free parameters, with the joint
constraints and how the reference check reads a member off a measured policy), the states whose
frequencies are checked, and the tolerance model of every solver kind
(``experiments.harness.solver_kinds``) with the formulas of the tolerances.

Exact numbers are rationals written as strings ("-1/18"); LP values are floats. The file names
the project's version and commit and OpenSpiel's version. Bad options: one ``error:`` line, exit
2; the file is written atomically (temp file + rename).
"""

import argparse
import fractions
import importlib.metadata
import itertools
import pathlib
import sys
from typing import Any, Dict, List, Optional, Sequence

from algorithms.exact import kuhn_equilibria
from experiments.harness import game_loader
from experiments.harness import provenance
from experiments.harness import references
from experiments.harness import solver_check
from experiments.harness import solver_kinds
from experiments.harness import solver_registry
from experiments.harness import templates
from spiel_games import atomic_file
from spiel_games import kuhn_poker_ante
from spiel_games import kuhn_rules

NAME = "reference-data"
HELP = ("write the reference equilibria (values, family bounds per information state, LP values, "
        "three-player members) as one JSON file for other languages")
FORMAT = "kuhn-cfr-reference-data"
VERSION = 2
SCHEMA_PATH = references.GOLDEN_PATH.parent / "reference_data.schema.json"
ACTIONS = ["check or fold", "bet or call"]

Fraction = fractions.Fraction
# The file's texts (rules, formats, tolerances in words), in ``reference_data.md`` beside this
# file.
CAPTIONS = templates.load(__package__, "reference_data.md")
# The file's ``tolerances``: each checked quantity's tolerance in words (its template's key).
TOLERANCES = ("exploitability", "value", "frequencies", "nash_conv", "family_values", "runs")


def _pair(p: Any) -> List[str]:
  """[P(action 0), P(action 1)] as exact strings, from P(action 1)."""
  q = Fraction(p)
  return [str(1 - q), str(q)]


def parametrisation(ante: Any, bet: Any, simplified: bool) -> Dict[str, Dict[str, Any]]:
  """Every information state's probability of action 1 over the family, as the affine function
  constant + sum_k coefficient_k theta_k of the free parameters theta (exact strings).

  The probabilities are affine in the parameters (``kuhn_equilibria``), so the constant is the
  member with every parameter at its lower bound and each coefficient the change of the
  probability between two valid members that differ in that parameter only (the other
  parameters at a corner of their box where both satisfy the joint constraints).
  """
  params = kuhn_equilibria.family_parameters(ante, bet, simplified)

  def member(values: Sequence[Fraction]) -> Optional[Dict[str, Fraction]]:
    try:
      return kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified, **{
          p.name: v for p, v in zip(params, values)}).action_probabilities()
    except ValueError:  # A joint constraint such as p1_call_mid <= p1_bluff is broken.
      return None

  base = member([p.low for p in params])
  slopes: Dict[str, Dict[str, Fraction]] = {}
  for k, param in enumerate(params):
    others = [(q.low, q.high) for q in params]
    for corner in itertools.product(*others):
      low = member([param.low if i == k else v for i, v in enumerate(corner)])
      high = member([param.high if i == k else v for i, v in enumerate(corner)])
      if low is not None and high is not None:
        slopes[param.name] = {s: (high[s] - low[s]) / (param.high - param.low) for s in base}
        break
  return {s: {"constant": str(base[s] - sum(slopes[p.name][s] * p.low for p in params)),
              "coefficients": {p.name: str(slopes[p.name][s]) for p in params
                               if slopes[p.name][s] != 0}}
          for s in sorted(base)}


def closed_form_entry(closed_form: Dict[str, Any]) -> Dict[str, Any]:
  """The closed form of ``references.compute_reference`` with per-action probabilities: the
  default member and the family's lowest and highest probability of each action; the family's
  parametrisation (``parametrisation``), its joint constraints and the checked states."""
  params = kuhn_equilibria.family_parameters(closed_form["ante"], closed_form["bet"],
                                             closed_form["simplified"])
  rules = kuhn_rules.KuhnRules(ante=closed_form["ante"], bet=closed_form["bet"],
                               simplified=closed_form["simplified"])
  states = {}
  for state, p in closed_form["default_member"].items():
    low, high = closed_form["family"][state]
    states[state] = {"default": _pair(p), "low": [str(1 - Fraction(high)), low],
                     "high": [str(1 - Fraction(low)), high]}
  return {"ante": closed_form["ante"], "bet": closed_form["bet"],
          "simplified": closed_form["simplified"], "regime": closed_form["regime"],
          "value": closed_form["value"],
          "free_parameters": [{"name": p.name, "information_state": p.info_state, "low": str(p.low),
                               "high": str(p.high)} for p in params],
          "constraints": [p.constraint for p in params if p.constraint],
          "probability_of_action_1": parametrisation(closed_form["ante"], closed_form["bet"],
                                                     closed_form["simplified"]),
          "checked_states": references.checked_states(rules),
          "information_states": states}


def family_entry(family: Dict[str, Any]) -> Dict[str, Any]:
  """The three-player family of ``references.compute_reference`` with each member's strategy
  (per information state, both actions, exact)."""
  members = []
  for entry in family["members"]:
    member = references.kuhn3_member_from_golden(entry, family["parameter_names"])
    members.append({**entry, "information_states": {
        s: _pair(p) for s, p in sorted(member.action_probabilities().items())}})
  return {**family, "members": members}


def rules_entry(game_string: str) -> Dict[str, Any]:
  """The game's rules (null for a game that is not a Kuhn game) and its utility range
  max - min, the Delta of the tolerances."""
  game = game_loader.load_game(game_string, two_player_zero_sum=False)
  rules = kuhn_poker_ante.rules_of(game, num_players=None)
  return {"rules": None if rules is None else {
      "ante": float(rules.ante), "bet": float(rules.bet), "deck_size": rules.deck_size,
      "players": game.num_players(), "simplified": rules.simplified},
      "utility_range": game.max_utility() - game.min_utility()}


def tolerance_models() -> Dict[str, Dict[str, Any]]:
  """The tolerance model of every solver kind (``solver_kinds.KINDS``)."""
  return {kind: {"scheme": m.scheme, "sampled": m.sampled, "seeds": m.seeds,
                 "iterations_multiplier": (solver_registry.SAMPLED_BUDGET_FACTOR if m.sampled
                                           else 1),
                 "checked_run": "median" if m.seeds > 1 else "the only one",
                 "exploitability_factor": m.factor,
                 "exploitability_factor_every_run": m.run_factor or m.factor,
                 "strategy_factor": m.strategy_factor, "n_player_factor": m.n_player_factor}
          for kind, m in solver_kinds.KINDS.items()}


def game_entry(game_string: str) -> Dict[str, Any]:
  """One game's references (see the module docstring)."""
  reference = references.compute_reference(game_string)
  if reference.get("players", 2) > 2:
    family = reference["family"]
    return {**rules_entry(game_string), "players": reference["players"], "value": None,
            "values": None if family is None else family["value_formulas"],
            "family": None if family is None else family_entry(family)}
  cf = reference["closed_form"]
  return {**rules_entry(game_string), "players": 2, "value": None if cf is None else cf["value"],
          "value_source": "closed form" if cf is not None else "sequence-form LP",
          "lp_value": reference["lp_value"],
          "lp_value_from_player_1": reference["lp_value_from_player_1"],
          "closed_form": None if cf is None else closed_form_entry(cf)}


def _version(package: str) -> Optional[str]:
  try:
    return importlib.metadata.version(package)
  except importlib.metadata.PackageNotFoundError:
    return None


def build(games: Sequence[str] = solver_check.REFERENCE_GAMES) -> Dict[str, Any]:
  """The whole file's data."""
  commit = provenance.git_commit()
  return {
      "format": FORMAT, "version": VERSION,
      "description": CAPTIONS.fill("description", actions=", ".join(
          f"{i}: {a}" for i, a in enumerate(ACTIONS))),
      "generated_by": f"python -m experiments {NAME}",
      "project": {"name": "kuhn-cfr", "version": _version("kuhn-cfr"),
                  "commit": None if commit is None else commit.get("commit")},
      "openspiel_version": _version("open_spiel"),
      "actions": ACTIONS,
      "rules": CAPTIONS["rules"],
      "information_state_format": CAPTIONS["information_state_format"],
      "member_selection": CAPTIONS["member_selection"],
      "tolerances": {key: CAPTIONS[key] for key in TOLERANCES},
      "tolerance_models": tolerance_models(),
      "games": {g: game_entry(g) for g in games}}


def build_parser(prog: str) -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(prog=prog, description=HELP)
  parser.add_argument("--out", required=True, type=pathlib.Path, metavar="FILE.json",
                      help="the JSON file to write")
  parser.add_argument("--game", action="append", metavar="GAME_STRING",
                      help="game (repeatable; default: the reference check's games, "
                      + ", ".join(solver_check.REFERENCE_GAMES) + ")")
  return parser


def main(argv: Optional[Sequence[str]] = None,
         prog: str = f"python -m experiments {NAME}") -> int:
  """Writes the file; returns the exit status (0 written, 1 not writable, 2 bad options)."""
  args = build_parser(prog).parse_args(argv)
  try:
    for game in args.game or ():
      game_loader.load_game(game, two_player_zero_sum=False)
    if args.out.is_dir() or not args.out.parent.is_dir():
      raise ValueError(f"--out {args.out}: expected a file in an existing folder")
    data = build(args.game or solver_check.REFERENCE_GAMES)
  except ValueError as e:
    print(f"{prog}: error: {e}", file=sys.stderr)
    return 2
  try:
    atomic_file.atomic_write_json(args.out, data)
  except OSError as e:
    print(f"{prog}: error: {e.strerror or e}: {args.out}", file=sys.stderr)
    return 1
  print(f"wrote {args.out} ({len(data['games'])} games)")
  return 0
