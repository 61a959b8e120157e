"""Tests of experiments.harness.script_runner: how the stand-alone scripts end (status, Ctrl-C)."""

import pytest

from experiments.harness import script_runner


def test_run_exits_with_the_status_of_main():
  with pytest.raises(SystemExit) as exit_info:
    script_runner.run(lambda: 3)
  assert exit_info.value.code == 3


def test_ctrl_c_is_one_line_and_status_130(capsys):
  # 130 = 128 + SIGINT (2), the shell's status for a process ended by Ctrl-C.
  def interrupted() -> int:
    raise KeyboardInterrupt

  with pytest.raises(SystemExit) as exit_info:
    script_runner.run(interrupted)
  assert exit_info.value.code == 130
  assert capsys.readouterr().err == "interrupted\n"
