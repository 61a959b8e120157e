"""The fresh process of ``footprint``: warm up, take the baseline, solve, print the record.

``python -m experiments.commands.large_deck.fresh_solve SPEC`` with SPEC the JSON of a
``solve.Spec``; the last line of its output is the ``solve.DeckSolve`` as JSON, with
``peak_bytes`` the growth of the process's resident set over the solve, at its peak
(``footprint``).
"""

import gc
import json
import sys
from typing import Sequence

from experiments.commands.large_deck import footprint
from experiments.commands.large_deck import solve


def main(argv: Sequence[str]) -> int:
  spec = solve.Spec(**json.loads(argv[0]))
  solve.warm_up(spec.simplified, spec.engine)
  gc.collect()
  baseline = footprint.reset_peak()
  solved = solve.solve(spec)
  peak_bytes = footprint.peak_since_reset() - baseline
  print(json.dumps(footprint.to_json(solve.finish(solved, float(peak_bytes)))))
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
