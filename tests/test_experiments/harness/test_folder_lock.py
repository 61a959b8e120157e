"""Tests of the results folder's lock (experiments.harness.folder_lock) with real processes: a
second run into a folder in use is refused in one line naming the first (exit 2), and a lock left
by a killed run is taken over."""

import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

from experiments.harness import folder_lock

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _experiments(*argv: str, **options) -> subprocess.Popen:
  env = dict(os.environ, PYTHONPATH=str(ROOT))
  return subprocess.Popen([sys.executable, "-m", "experiments", *argv], cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **options)


def _wait_for_holder(path: pathlib.Path, pid: int, timeout: float = 120.0) -> folder_lock.Holder:
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    if path.exists():
      holder = folder_lock.Holder.parse(path.read_text())
      if holder is not None and holder.pid == pid:
        return holder
    time.sleep(0.2)
  raise AssertionError(f"process {pid} did not take {path}")


def test_a_second_run_is_refused_and_a_killed_runs_lock_is_taken_over(tmp_path):
  out = tmp_path / "results"
  # A run that lasts (its solver run is estimated at hours, accepted by --max-minutes).
  first = _experiments("head-to-head", "--p0", "cfr:100000000", "--max-minutes", "100000",
                       "--quiet", "--out", str(out))
  try:
    holder = _wait_for_holder(out / folder_lock.LOCK_NAME, first.pid)
    assert "head-to-head --p0 cfr:100000000" in holder.command
    second = _experiments("head-to-head", "--quick", "--quiet", "--out", str(out))
    _, err = second.communicate(timeout=120)
    assert second.returncode == 2
    assert err.count("\n") == 1, err
    assert re.fullmatch(
        rf"python -m experiments head-to-head: error: {re.escape(str(out))} is in use by another "
        rf"run \(process {first.pid}, started [-0-9T:+]+: .*head-to-head --p0 cfr:100000000.*\); "
        r"wait for it to finish or choose another --out\n", err.replace(
            "kuhn-experiments", "python -m experiments"), flags=re.S), err
    assert not (out / "head-to-head" / "section.json").exists()  # Nothing of the second run.
    first.send_signal(signal.SIGKILL)  # Killed: its lock file stays, unlocked.
    first.wait(timeout=60)
    assert (out / folder_lock.LOCK_NAME).exists()
    third = _experiments("head-to-head", "--p0", "uniform", "--p1", "uniform", "--hands", "50",
                         "--quiet", "--out", str(out))
    _, err = third.communicate(timeout=300)
    assert third.returncode == 0, err
    assert f"taking over the lock of {out} left by process {first.pid}" in err
    assert (out / "head-to-head" / "section.json").exists()
    assert not (out / folder_lock.LOCK_NAME).exists()  # Removed when the run ends.
  finally:
    if first.poll() is None:
      first.kill()
      first.wait()


def test_the_lock_is_held_for_the_block_and_removed_after(tmp_path):
  with folder_lock.hold(tmp_path, "this test") as me:
    assert me.pid == os.getpid()
    # Another process cannot take it, and reads who holds it. (Not read here: closing any file
    # of the lock's in the holding process would release a POSIX lock.)
    probe = subprocess.run(
        [sys.executable, "-c", "import sys; from experiments.harness import folder_lock\n"
         "try:\n  with folder_lock.hold(sys.argv[1]): pass\n"
         "except folder_lock.FolderInUse as e:\n  print(e)", str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert f"in use by another run (process {os.getpid()}, started {me.started}: this test)" \
        in probe.stdout
  assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["", "garbage", "\n\n"])
def test_an_unreadable_lock_file_is_no_holder(text):
  assert folder_lock.Holder.parse(text) is None


def test_a_symlink_at_the_lock_is_refused_and_its_target_untouched(tmp_path):
  target = tmp_path / "precious.txt"
  target.write_text("keep me")
  folder = tmp_path / "results"
  folder.mkdir()
  (folder / folder_lock.LOCK_NAME).symlink_to(target)
  with pytest.raises(folder_lock.FolderInUse, match="is a symbolic link"):
    with folder_lock.hold(folder):
      pass
  assert target.read_text() == "keep me"
  assert (folder / folder_lock.LOCK_NAME).is_symlink()  # Not removed either: not the run's.
