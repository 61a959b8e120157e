"""LiteEFG 1.0's solvers behind OpenSpiel's loop, for the benchmarks (optional dependency).

LiteEFG (``pip install -e .[bench]``) builds a solver as a computation graph over a game it
walks once through pyspiel. Each of its baselines is run in the loop of its own
``baselines/utils.py``: ``graph.update_graph(env)``, then ``env.update_strategy(strategy)``, and
its averages are measured by ``env.exploitability(strategy, averaging)``, the per-player
best-response gains (their sum is NashConv). ``BASELINES`` lists, per baseline, the module, the
strategy that module's ``__main__`` reports and the averaging it measures, as its own scripts do:

* ``cfr``: vanilla CFR (``CFR``), uniform average ("avg-iterate");
* ``cfr_plus``: CFR+ (``CFRplus``, Tammelin 2014), linear average ("linear-avg-iterate");
* ``dcfr``: discounted CFR (``DCFR``, Brown and Sandholm 2019, alpha 1.5, beta 0, gamma 2), its
  internal discounted average ("average-iterate" strategy, measured as "last-iterate");
* ``pcfr_plus``: predictive CFR+ (``PCFR``, Farina, Kroer, Sandholm 2021), linear average.
"""

import dataclasses
import importlib
import os
import sys
import tempfile
import time
from typing import Callable, Dict, Optional

import pyspiel


@dataclasses.dataclass(frozen=True)
class Baseline:
  """One LiteEFG baseline: its module, the strategy it reports and the averaging measured."""

  module: str
  strategy_type: Optional[str]  # ``graph.current_strategy``'s argument; None: its default
  averaging: str  # ``env.exploitability``'s convergence type


BASELINES: Dict[str, Baseline] = {
    "cfr": Baseline("CFR", None, "avg-iterate"),
    "cfr_plus": Baseline("CFRplus", None, "linear-avg-iterate"),
    "dcfr": Baseline("DCFR", "average-iterate", "last-iterate"),
    "pcfr_plus": Baseline("PCFR", None, "linear-avg-iterate"),
}


def liteefg_available() -> bool:
  """Whether LiteEFG can be imported (the ``bench`` extra)."""
  try:
    import LiteEFG  # noqa: F401, PLC0415  (optional: the bench extra)
  except ImportError:
    return False
  return True


def quietly(build: Callable[[], object]) -> object:
  """``build()`` with its prints to stdout swallowed (LiteEFG announces every graph)."""
  saved, sys.stdout = sys.stdout, open(os.devnull, "w")  # noqa: SIM115
  try:
    return build()
  finally:
    sys.stdout.close()
    sys.stdout = saved


class LiteEFGSolver:
  """A LiteEFG baseline on one game, with OpenSpiel's ``evaluate_and_update_policy``.

  ``OpenSpielEnv`` walks the game once through pyspiel (Python games included) and writes it to
  a file under ``~/game_instances``; HOME points to a temporary folder meanwhile, so nothing is
  left in the user's home and no stale file is reused. Every LiteEFG baseline here updates
  player 1 then player 2 (``update_graph``), i.e. alternating updates.

  Attributes:
    load_seconds: CPU seconds of the game walk.
  """

  def __init__(self, game: pyspiel.Game, baseline: str = "cfr"):
    if baseline not in BASELINES:
      raise ValueError(f"baseline must be one of {', '.join(BASELINES)}; got {baseline!r}")
    import LiteEFG  # noqa: PLC0415  (optional: the bench extra)
    self._baseline = BASELINES[baseline]
    module = importlib.import_module(f"LiteEFG.baselines.{self._baseline.module}")
    home = os.environ.get("HOME")
    with tempfile.TemporaryDirectory() as folder:
      os.environ["HOME"] = folder
      try:
        start = time.process_time()
        self.env = quietly(lambda: LiteEFG.OpenSpielEnv(game, traverse_type="Enumerate",
                                                        regenerate=True))
        self.load_seconds = time.process_time() - start
      finally:
        if home is None:
          del os.environ["HOME"]
        else:
          os.environ["HOME"] = home
    self.graph = quietly(module.graph)
    self.env.set_graph(self.graph)

  def _strategy(self):
    if self._baseline.strategy_type is None:
      return self.graph.current_strategy()
    return self.graph.current_strategy(self._baseline.strategy_type)

  def evaluate_and_update_policy(self) -> None:
    """One iteration, as the baseline's own training loop runs it."""
    self.graph.update_graph(self.env)
    self.env.update_strategy(self._strategy(), update_best=False)

  def average_nash_conv(self) -> float:
    """LiteEFG's own measure of the reported average: the sum of the best-response gains."""
    return float(sum(self.env.exploitability(self._strategy(), self._baseline.averaging)))
