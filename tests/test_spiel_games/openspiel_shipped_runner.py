"""Runs the unittest cases of one test module file and writes each test's outcome as JSON.

Usage: ``python openspiel_shipped_runner.py MODULE_FILE OUTPUT_JSON [SKIP_JSON]``. Used by
``test_openspiel_shipped.py`` to run OpenSpiel's shipped test modules (absltest or plain unittest)
in a subprocess of their own. The module is loaded under a name other than ``__main__``, so its
``absltest.main()`` does not run; absl flags are parsed at their defaults first, as
``absltest.main`` would.

The output maps each test (``Class.test_name``) to ``{"outcome": ..., "detail": ...}``: outcome
``passed``, ``failed``, ``error`` or ``skipped``, detail the last line of the traceback or the
skip reason. It is rewritten after every test, with ``running`` for the test under way, so that
when a test kills the process (a segmentation fault in C++ code) the caller knows which one did
and can run the rest again, passing the tests already done in ``SKIP_JSON`` (a JSON list). A
module that fails to import gives the single test ``<import>``.
"""

import importlib.util
import json
import os
import sys
import traceback
import unittest

from absl import flags


def test_key(test: unittest.TestCase) -> str:
  """``Class.test_name``: no module name, and no parameter values, which absl's parameterized
  tests append to the id and which name objects differently from run to run (addresses, a
  game's full parameter string); absl numbers the variants instead."""
  return test.id().split(".", 1)[1].split(" ", 1)[0]


class _Recorder(unittest.TestResult):
  """Records one outcome per test and writes them all to ``path`` after every change."""

  def __init__(self, path: str):
    super().__init__()
    self.path = path
    self.outcomes = {}

  def _write(self) -> None:
    """Whole or not at all (a crash may come at any time): a temporary file, then a rename."""
    with open(self.path + ".tmp", "w", encoding="utf-8") as f:
      json.dump(self.outcomes, f, indent=1, sort_keys=True)
    os.replace(self.path + ".tmp", self.path)

  def _set(self, test, outcome: str, err=None, detail: str = "") -> None:
    if err is not None:
      lines = "".join(traceback.format_exception(*err)).strip().splitlines()
      detail = lines[-1] if lines else ""
    self.outcomes[test_key(test)] = {"outcome": outcome, "detail": detail[:500]}
    self._write()

  def startTest(self, test):
    super().startTest(test)
    self._set(test, "running")

  def addSuccess(self, test):
    if self.outcomes[test_key(test)]["outcome"] == "running":  # No failed subtest.
      self._set(test, "passed")

  def addFailure(self, test, err):
    self._set(test, "failed", err)

  def addError(self, test, err):
    self._set(test, "error", err)

  def addSkip(self, test, reason):
    self._set(test, "skipped", detail=reason)

  def addExpectedFailure(self, test, err):
    self._set(test, "passed")

  def addUnexpectedSuccess(self, test):
    self._set(test, "failed", detail="unexpected success")

  def addSubTest(self, test, subtest, err):
    if err is not None:
      self._set(test, "failed", err)


def _flatten(suite: unittest.TestSuite):
  for item in suite:
    if isinstance(item, unittest.TestSuite):
      yield from _flatten(item)
    else:
      yield item


def main(module_file: str, output_json: str, skip_json: str = "") -> None:
  flags.FLAGS(sys.argv[:1], known_only=True)
  skip = set()
  if skip_json:
    with open(skip_json, encoding="utf-8") as f:
      skip = set(json.load(f))
  recorder = _Recorder(output_json)
  recorder._write()  # pylint: disable=protected-access
  try:
    spec = importlib.util.spec_from_file_location("shipped_test_module", module_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    tests = list(_flatten(unittest.defaultTestLoader.loadTestsFromModule(module)))
  except Exception:  # pylint: disable=broad-except  (reported as the module's one outcome)
    lines = traceback.format_exc().strip().splitlines()
    recorder.outcomes["<import>"] = {"outcome": "error", "detail": lines[-1]}
    recorder._write()  # pylint: disable=protected-access
    return
  # A flat suite still runs each class's setUpClass and tearDownClass around its tests.
  unittest.TestSuite([t for t in tests if test_key(t) not in skip]).run(recorder)


if __name__ == "__main__":
  main(*sys.argv[1:])
