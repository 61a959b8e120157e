"""Tests of experiments.commands.reference_data: the export validates against its JSON Schema
and every number in it is recomputed, from the file alone where possible (OpenSpiel's
exploitability and NashConv of the strategies it lists) and from the project's references."""

import fractions
import itertools
import json

import jsonschema
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
import pytest

from algorithms.exact import kuhn_equilibria
from algorithms.exact import sequence_form_lp
from experiments import cli
from experiments.commands import reference_data
from experiments.harness import game_loader
from experiments.harness import references
from experiments.harness import solver_check

Fraction = fractions.Fraction
GAMES = ["kuhn_poker", "kuhn_poker_ante(ante=0.5)", "kuhn_poker_ante(ante=1.0,simplified=True)",
         "kuhn_poker(players=3)"]


def _policy(game, states):
  """A TabularPolicy of ``game`` from {information state: [p0, p1] as fraction strings}."""
  table = policy_lib.TabularPolicy(game)
  assert set(states) == set(table.state_lookup)  # OpenSpiel's information-state strings, all.
  for state, row in table.state_lookup.items():
    table.action_probability_array[row] = [float(Fraction(p)) for p in states[state]]
  return table


def check_round_trip(data):
  """Validates ``data`` against the schema and recomputes every number of every game."""
  schema = json.loads(reference_data.SCHEMA_PATH.read_text())
  jsonschema.Draft202012Validator.check_schema(schema)
  jsonschema.Draft202012Validator(schema).validate(data)
  for game_string, entry in data["games"].items():
    game = game_loader.load_game(game_string, two_player_zero_sum=False)
    if entry["players"] > 2:
      _check_family(game, entry)
      continue
    lp = sequence_form_lp.solve_game(game)
    assert entry["lp_value"] == pytest.approx(lp.value, abs=1e-9)
    assert entry["lp_value_from_player_1"] == pytest.approx(lp.value_from_player_1, abs=1e-9)
    cf = entry["closed_form"]
    assert (cf is None) == (references.kuhn_rules_of(game) is None)
    if cf is None:
      assert entry["value"] is None and entry["value_source"] == "sequence-form LP"
      continue
    equilibrium = kuhn_equilibria.kuhn_equilibrium(cf["ante"], cf["bet"], cf["simplified"])
    assert Fraction(entry["value"]) == Fraction(cf["value"]) == equilibrium.value
    assert float(Fraction(cf["value"])) == pytest.approx(entry["lp_value"], abs=1e-9)
    assert cf["regime"] == equilibrium.regime
    states = cf["information_states"]
    default = {s: v["default"] for s, v in states.items()}
    member = _policy(game, default)  # From the file alone: an equilibrium of the game value.
    assert exploitability.exploitability(game, member) == pytest.approx(0.0, abs=1e-12)
    assert expected_game_score.policy_value(game.new_initial_state(), [member] * 2)[0] == (
        pytest.approx(float(Fraction(entry["value"])), abs=1e-12))
    ranges = references.family_ranges(references.kuhn_rules_of(game))
    for state, v in states.items():
      low, high = ranges[state]
      assert [Fraction(x) for x in v["low"]] == [1 - high, low]
      assert [Fraction(x) for x in v["high"]] == [1 - low, high]
      assert [Fraction(x) for x in v["default"]] == [
          1 - equilibrium.action_probabilities()[state], equilibrium.action_probabilities()[state]]
    params = kuhn_equilibria.family_parameters(cf["ante"], cf["bet"], cf["simplified"])
    assert cf["free_parameters"] == [{"name": p.name, "information_state": p.info_state,
                                      "low": str(p.low), "high": str(p.high)} for p in params]
    for p in cf["free_parameters"]:  # Each parameter's range is its state's family range.
      assert [p["low"], p["high"]] == [states[p["information_state"]]["low"][1],
                                       states[p["information_state"]]["high"][1]]


def _check_family(game, entry):
  """Every member's strategy from the file: NashConv 0 (OpenSpiel) and the listed values."""
  family = entry["family"]
  assert entry["values"] == family["value_formulas"]
  assert len(family["members"]) == len(references.KUHN3_GOLDEN_MEMBERS)
  for recorded, member in zip(family["members"], references.kuhn3_golden_members()):
    assert [Fraction(x) for x in recorded["parameters"]] == [
        member.parameters()[n] for n in family["parameter_names"]]
    assert [Fraction(v) for v in recorded["values"]] == list(member.values)
    table = _policy(game, recorded["information_states"])
    assert exploitability.nash_conv(game, table) == pytest.approx(0.0, abs=1e-12)
    values = expected_game_score.policy_value(game.new_initial_state(), [table] * 3)
    assert list(values) == pytest.approx([float(Fraction(v)) for v in recorded["values"]],
                                         abs=1e-12)


def test_the_export_validates_and_round_trips(tmp_path, capsys):
  out = tmp_path / "references.json"
  argv = ["reference-data", "--out", str(out)] + [a for g in GAMES for a in ("--game", g)]
  assert cli.main(argv) == 0
  assert "wrote" in capsys.readouterr().out
  data = json.loads(out.read_text())
  assert list(data["games"]) == sorted(GAMES)
  assert data["project"]["name"] == "kuhn-cfr" and data["openspiel_version"]
  check_round_trip(data)
  # A doctored number fails the schema or the round trip.
  data["games"]["kuhn_poker"]["closed_form"]["information_states"]["0"]["high"][1] = "1/4"
  with pytest.raises(AssertionError):
    check_round_trip(data)
  data["games"]["kuhn_poker"]["value"] = -0.0556
  with pytest.raises(jsonschema.ValidationError):
    check_round_trip(data)


@pytest.mark.slow(reason="every reference game with Leduc's LP (about 20 s); "
                  "test_the_export_validates_and_round_trips covers each kind of entry")
def test_the_full_export_round_trips():
  data = reference_data.build()
  assert list(data["games"]) == list(solver_check.REFERENCE_GAMES)
  check_round_trip(json.loads(json.dumps(data)))


@pytest.mark.parametrize("argv, message", [
    (["--out", "/nonexistent-folder/x.json"], "expected a file in an existing folder"),
    (["--out", "x.json", "--game", "no_such_game"], "unknown game 'no_such_game'")])
def test_bad_options_are_one_line_errors(argv, message, capsys):
  assert cli.main(["reference-data", *argv]) == 2
  err = capsys.readouterr().err
  assert message in err and err.count("\n") == 1


def frequency_verdicts(entry, probabilities, iterations, strategy_factor):
  """The reference check's frequency check reimplemented from the reference data alone (no
  project code: this function uses only the JSON entry of a game, ``member_selection`` and
  ``tolerances``): read the member off the measured probabilities of action 1, then compare
  every checked state. Returns {state: passed}."""
  form = entry["closed_form"]
  chosen = {}
  for parameter in form["free_parameters"]:
    measured = Fraction(probabilities[parameter["information_state"]])
    chosen[parameter["name"]] = min(max(measured, Fraction(parameter["low"])),
                                    Fraction(parameter["high"]))
  for constraint in form["constraints"]:  # "a <= b": a clipped to at most b.
    smaller, larger = (name.strip() for name in constraint.split("<="))
    chosen[smaller] = min(chosen[smaller], chosen[larger])

  def member(state):
    affine = form["probability_of_action_1"][state]
    return Fraction(affine["constant"]) + sum(
        Fraction(c) * chosen[name] for name, c in affine["coefficients"].items())

  tolerance = min(1.0, strategy_factor / iterations ** 0.5)
  return {s: abs(float(probabilities[s]) - float(member(s))) <= tolerance
          for s in form["checked_states"]}


def test_the_frequency_check_is_reimplemented_from_the_data_alone():
  games = ["kuhn_poker", "kuhn_poker_ante(ante=0.5)", "kuhn_poker_ante(ante=0.75)",
           "kuhn_poker_ante(ante=0.25,simplified=True)",
           "kuhn_poker_ante(ante=0.5,simplified=True)"]
  data = json.loads(json.dumps(reference_data.build(games)))
  model = data["tolerance_models"]["full-width-alternating"]
  # The parametrisation gives the listed members: the default one (every parameter at its lower
  # bound) and, at the family's corners, each state's lowest and highest probability.
  for game in games:
    form = data["games"][game]["closed_form"]
    low = {p["name"]: Fraction(p["low"]) for p in form["free_parameters"]}
    for state, affine in form["probability_of_action_1"].items():
      listed = form["information_states"][state]
      at_low = Fraction(affine["constant"]) + sum(
          Fraction(c) * low[n] for n, c in affine["coefficients"].items())
      assert at_low == Fraction(listed["default"][1])
      corners = []
      for corner in itertools.product(*[(p["low"], p["high"]) for p in form["free_parameters"]]):
        chosen = {p["name"]: Fraction(v) for p, v in zip(form["free_parameters"], corner)}
        if all(chosen[a.split("<=")[0].strip()] <= chosen[a.split("<=")[1].strip()]
               for a in form["constraints"]):
          corners.append(Fraction(affine["constant"]) + sum(
              Fraction(c) * chosen[n] for n, c in affine["coefficients"].items()))
      assert [min(corners), max(corners)] == [Fraction(listed["low"][1]),
                                              Fraction(listed["high"][1])]
  # Profiles: CFR's average at T = 200 (passes), the same with P0's K bet doctored, and OpenSpiel's
  # simultaneous-update CFR at T = 200 on ante 0.75 (fails P0's K bet and two more states).
  solver = "open_spiel.python.algorithms.cfr:_CFRSolver"
  simultaneous = {"regret_matching_plus": False, "alternating_updates": False,
                  "linear_averaging": False}
  found = 0
  for game in games:
    for options in ({}, simultaneous):
      report = solver_check.check_solver(solver, [game], options={
          "regret_matching_plus": False, "alternating_updates": True, "linear_averaging": False,
          **options}, kind="full-width-alternating")
      run = report.games[0].run
      for doctored in (False, True):
        probabilities = {s: p[1] for s, p in run.solved.policy.items()}
        if doctored:
          probabilities["2" if "simplified" not in game else "0"] = 1.0
        rules = references.kuhn_rules_of(game_loader.load_game(game))
        ours = {c.name.rpartition("[")[2].rstrip("]"): c.passed for c in references.family_checks(
            "", rules, probabilities, references.strategy_tolerance("", 200, report.model))}
        theirs = frequency_verdicts(data["games"][game], probabilities, 200,
                                    model["strategy_factor"])
        assert theirs == ours, (game, options, doctored)
        found += not all(ours.values())
  assert found >= len(games) + 1  # Every doctored profile fails, and the simultaneous run too.
