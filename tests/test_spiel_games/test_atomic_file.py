"""Tests of spiel_games.atomic_file: whole files or nothing, readable by everyone."""

import json
import os
import stat

import pytest

from spiel_games import atomic_file


def test_failed_write_leaves_the_folder_as_it_was(tmp_path):
  target = tmp_path / "out.txt"
  atomic_file.atomic_write_text(target, "old")

  for error in (OSError, KeyboardInterrupt):
    def fail(tmp, error=error):
      tmp.write_text("half")
      raise error("interrupted")
    with pytest.raises(error):
      atomic_file.atomic_write(target, fail)
    assert os.listdir(tmp_path) == ["out.txt"] and target.read_text() == "old"


def test_text_and_json_replace_the_file_with_mode_0644(tmp_path):
  target = tmp_path / "out.json"
  atomic_file.atomic_write_text(target, "whole")
  assert target.read_text() == "whole"
  atomic_file.atomic_write_json(target, {"b": 1, "a": [2]})
  assert target.read_text() == '{\n "a": [\n  2\n ],\n "b": 1\n}\n'
  assert json.loads(target.read_text()) == {"a": [2], "b": 1}
  assert stat.S_IMODE(target.stat().st_mode) == 0o644
  assert os.listdir(tmp_path) == ["out.json"]


def test_write_callback_gets_a_path_in_the_target_folder(tmp_path):
  seen = []
  atomic_file.atomic_write(tmp_path / "x.bin", lambda tmp: seen.append(tmp) or
                           tmp.write_bytes(b"\0\1"))
  assert seen[0].parent == tmp_path and seen[0].name.startswith(".x.bin.")
  assert (tmp_path / "x.bin").read_bytes() == b"\0\1"
