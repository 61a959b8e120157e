"""Tests of experiments.harness.provenance against git: the fingerprint covers every source file
of the three packages, and the checkout and its commit are found from the installed modules."""

import subprocess

from experiments.harness import provenance
import helpers


def _git(*args):
  return subprocess.run(["git", *args], cwd=helpers.REPO, capture_output=True, text=True,
                        check=True).stdout


def test_fingerprint_covers_every_tracked_source_file():
  # git's list of the packages' .py and .json files is the independent reference; a wrong root
  # (e.g. after the module moved a folder down) finds none of them.
  tracked = {p for p in _git("ls-files", *provenance.SOURCE_PACKAGES).split()
             if p.endswith((".py", ".json"))}
  assert tracked and tracked <= set(provenance.source_files())


def test_checkout_and_commit_are_found():
  assert provenance.source_checkout() == helpers.REPO
  assert provenance.git_commit()["commit"] == _git("rev-parse", "HEAD").strip()
