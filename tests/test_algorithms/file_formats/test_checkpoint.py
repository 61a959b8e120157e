"""Checkpoints (exact resume, bad files) and policy files."""

import json
import os
import zipfile

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel
import pytest

import algorithms
from algorithms.cfr.solvers import SOLVERS
from algorithms.file_formats import checkpoint
from algorithms.file_formats import policy_io
import spiel_games  # noqa: F401  (registers the project's games with pyspiel)


def make(name, game):
  if name == "ChanceSamplingCFRSolver":
    return SOLVERS[name](game, seed=11)
  return SOLVERS[name](game)


@pytest.mark.parametrize("name", sorted(SOLVERS))
@pytest.mark.parametrize("game_string", ["kuhn_poker_ante(ante=2.0)", "leduc_poker",
                                         "kuhn_poker(players=3)"])
def test_resume_is_exact(tmp_path, name, game_string):
  game = pyspiel.load_game(game_string)
  straight = make(name, game).solve(40)
  first = make(name, game).solve(25)
  path = str(tmp_path / "run.npz")
  first.save(path)
  resumed = type(first).load(path).solve(15)  # Game loaded from the file's game string.
  assert resumed.iteration == 40
  for attr in ("regrets", "cumulative", "sigma"):
    np.testing.assert_array_equal(getattr(resumed.engine, attr), getattr(straight.engine, attr))
  np.testing.assert_array_equal(resumed.average_policy().action_probability_array,
                                straight.average_policy().action_probability_array)
  assert os.listdir(tmp_path) == ["run.npz"]  # No temporary file left behind.


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
  game = pyspiel.load_game("kuhn_poker")
  path = str(tmp_path_factory.mktemp("ckpt") / "good.npz")
  algorithms.ChanceSamplingCFRSolver(game, seed=1).solve(10).save(path)
  return game, path


def test_truncated_file(saved, tmp_path):
  _, path = saved
  with open(path, "rb") as f:
    data = f.read()
  bad = tmp_path / "truncated.npz"
  bad.write_bytes(data[:len(data) // 2])
  with pytest.raises(ValueError, match="not a readable checkpoint"):
    algorithms.ChanceSamplingCFRSolver.load(str(bad))


def test_corrupt_array(saved, tmp_path):
  _, path = saved
  # Rewrite the archive with one array changed but the header kept: the digest catches it.
  bad = tmp_path / "corrupt.npz"
  with np.load(path) as data:
    contents = {k: data[k] for k in data.files}
  contents["regrets"] = contents["regrets"] + 1.0
  np.savez(bad, **contents)
  with pytest.raises(ValueError, match="do not match their recorded digest"):
    algorithms.ChanceSamplingCFRSolver.load(str(bad))
  # Flipped bytes inside the zip: zip's CRC check fails.
  with open(path, "rb") as f:
    raw = bytearray(f.read())
  raw[len(raw) // 3] ^= 0xFF
  flipped = tmp_path / "flipped.npz"
  flipped.write_bytes(bytes(raw))
  with pytest.raises(ValueError, match="corrupt|not a readable checkpoint|not a kuhn-cfr"):
    algorithms.ChanceSamplingCFRSolver.load(str(flipped))


def test_foreign_files(tmp_path):
  text = tmp_path / "notes.npz"
  text.write_text("hello")
  with pytest.raises(ValueError, match="not a readable checkpoint"):
    algorithms.CFRSolver.load(str(text))
  other = tmp_path / "other.npz"
  np.savez(other, weights=np.ones(3))
  with pytest.raises(ValueError, match="no JSON header"):
    algorithms.CFRSolver.load(str(other))
  with pytest.raises(ValueError, match="no such checkpoint"):
    algorithms.CFRSolver.load(str(tmp_path / "missing.npz"))
  future = tmp_path / "future.npz"
  checkpoint.write_checkpoint(str(future), {"game": "kuhn_poker()"}, {"regrets": np.ones(2)})
  with zipfile.ZipFile(future) as z:
    assert "header.npy" in z.namelist()
  with np.load(future) as data:
    header = json.loads(str(data["header"]))
  for version in (99, 1):  # Version 1 files also held the current policy ("sigma").
    header["version"] = version
    np.savez(future, header=np.array(json.dumps(header)), regrets=np.ones(2))
    with pytest.raises(ValueError, match=f"version {version} is not supported \\(supported: 2\\)"):
      algorithms.CFRSolver.load(str(future))


def test_wrong_game_or_solver(saved):
  _, path = saved
  with pytest.raises(ValueError, match="checkpoint is for game 'kuhn_poker\\(\\)'"):
    algorithms.ChanceSamplingCFRSolver.load(path, game=pyspiel.load_game("leduc_poker"))
  with pytest.raises(ValueError, match="cannot be loaded as CFRSolver"):
    algorithms.CFRSolver.load(path)


def test_bad_random_state(saved, tmp_path):
  # The header is outside the arrays' digest: a damaged random state must still be refused.
  _, path = saved
  header, arrays = checkpoint.read_checkpoint(path)
  for state in (None, {"bit_generator": "MT19937"}):
    bad = str(tmp_path / "bad_rng.npz")
    checkpoint.write_checkpoint(bad, dict(header, rng_state=state), arrays)
    with pytest.raises(ValueError, match="random state is not a PCG64 state"):
      algorithms.ChanceSamplingCFRSolver.load(bad)


def test_header_missing_a_field(saved, tmp_path):
  # The header is outside the arrays' digest: a header without a required field is refused in
  # one line instead of failing later with a KeyError.
  _, path = saved
  header, arrays = checkpoint.read_checkpoint(path)
  for field in ("game", "options", "iteration"):
    bad = str(tmp_path / f"no_{field}.npz")
    checkpoint.write_checkpoint(bad, {k: v for k, v in header.items() if k != field}, arrays)
    with pytest.raises(ValueError, match=f"checkpoint header lacks {field}"):
      algorithms.ChanceSamplingCFRSolver.load(bad)


def test_policy_file_round_trip(saved, tmp_path):
  game, _ = saved
  solver = algorithms.CFRSolver(game).solve(20)
  path = str(tmp_path / "policy.json")
  policy_io.save_policy(path, solver.average_policy())
  loaded = policy_io.load_policy(path, game)
  assert isinstance(loaded, policy_lib.TabularPolicy)
  np.testing.assert_array_equal(loaded.action_probability_array,
                                solver.average_policy().action_probability_array)
  with open(path, encoding="utf-8") as f:
    assert json.load(f)["policy"]["0pb"]["actions"] == [0, 1]


def test_policy_file_errors(saved, tmp_path):
  game, _ = saved
  path = tmp_path / "policy.json"
  policy_io.save_policy(str(path), policy_lib.TabularPolicy(game))
  with pytest.raises(ValueError, match="policy is for game 'kuhn_poker\\(\\)'"):
    policy_io.load_policy(str(path), pyspiel.load_game("kuhn_poker_ante(deck_size=4)"))
  good = json.loads(path.read_text())

  def edited(change):
    """Writes a copy of the good file changed by ``change(doc)`` and returns its path."""
    doc = json.loads(json.dumps(good))
    change(doc)
    path.write_text(json.dumps(doc))
    return str(path)

  cases = [
      (lambda d: d["policy"].pop("0pb"), "1 missing, 0 unknown, e.g. '0pb'"),
      (lambda d: d["policy"]["0"].update(probabilities=[0.7, 0.7]),
       "non-negative numbers summing to 1"),
      (lambda d: d["policy"]["0"].update(actions=[1, 0]), "must be the legal actions \\[0, 1\\]"),
      (lambda d: d.update(format="other"), "not a kuhn-cfr-policy file"),
      (lambda d: d.update(version=2), "kuhn-cfr-policy version 2 is not supported"),
  ]
  for change, message in cases:
    with pytest.raises(ValueError, match=message):
      policy_io.load_policy(edited(change), game)
  path.write_text("{not json")
  with pytest.raises(ValueError, match="not a readable JSON policy file"):
    policy_io.load_policy(str(path), game)
