"""``docs/tutorial.ipynb``: executed in memory by nbclient, so that the tutorial cannot rot.

The notebook is run from a copy in memory (the committed file, stored with its outputs so that
GitHub shows the plots, is never rewritten) on the ``python3`` kernel, which jupyter_client starts
with the Python running the tests. Any cell error fails the test; the notebook's own cells assert
every number its text states. Here a few printed outputs are read back and checked against their
sources: the value of Kuhn poker, -1/18 (H. W. Kuhn, "A simplified form of poker", 1950); the
exactness of the nearest member of the Szafron-Gibson-Sturtevant family (AAMAS 2013) and player
1's value -1/48 in it; and every hand of the played match, recomputed from Kuhn's rules
(``spiel_games.kuhn_rules``).

To refresh the committed outputs after editing the notebook (top to bottom, one fresh kernel)::

  .venv/bin/python -c "import nbclient, nbformat; p = 'docs/tutorial.ipynb'; \
    nb = nbformat.read(p, 4); nbclient.NotebookClient(nb, kernel_name='python3', \
    record_timing=False, resources={'metadata': {'path': 'docs'}}).execute(); nbformat.write(nb, p)"
"""

import base64
import copy
import pathlib
import re
import sys
from typing import Dict, List

import pytest

from spiel_games.kuhn_rules import KuhnRules

nbformat = pytest.importorskip("nbformat", reason="nbformat not installed (test extra)")
nbclient = pytest.importorskip("nbclient", reason="nbclient not installed (test extra)")

NOTEBOOK = pathlib.Path(__file__).resolve().parent.parent / "docs" / "tutorial.ipynb"
MAX_BYTES = 300_000  # The committed notebook stays small enough to view on GitHub.
CELL_TIMEOUT = 600  # Seconds; a fresh clone compiles the numba kernels on first use.
NUM_FIGURES = 4  # Convergence, the two ante-sweep figures, the landscape.
PREFIX_MARK = "kernel sys.prefix: "
# The game of the played match (section 6): kuhn_poker_ante(ante=2.0,bet=1.0).
MATCH_RULES = KuhnRules(ante=2.0, bet=1.0)
HAND = re.compile(r"^hand (\d+)  seat ([01])  you ([JQK]), opponent ([JQK])  \|  (.*)  \|  "
                  r"result ([+-]?\d+)  total ([+-]?\d+)$")
MOVES = {"check": "p", "fold": "p", "bet": "b", "call": "b",
         "checks": "p", "folds": "p", "bets": "b", "calls": "b"}


def _stdout(cell) -> str:
  return "".join(o.get("text", "") for o in cell.outputs
                 if o.output_type == "stream" and o.name == "stdout")


def _tagged(nb, tag: str) -> str:
  cells = [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]
  assert len(cells) == 1, f"expected one cell tagged {tag!r}, found {len(cells)}"
  return _stdout(cells[0])


def _number_after(text: str, label: str) -> float:
  """The first number on the line that starts with ``label``."""
  match = re.search(rf"^{re.escape(label)}\s+([-+0-9.e]+)", text, re.MULTILINE)
  assert match, f"no line starting with {label!r} in:\n{text}"
  return float(match.group(1))


@pytest.fixture(scope="module")
def executed():
  """The notebook executed in memory, with one extra cell that prints the kernel's sys.prefix."""
  before = NOTEBOOK.read_bytes()
  nb = nbformat.reads(before.decode("utf-8"), as_version=4)
  run = copy.deepcopy(nb)
  run.cells.append(nbformat.v4.new_code_cell(f"import sys\nprint({PREFIX_MARK!r} + sys.prefix)"))
  client = nbclient.NotebookClient(run, timeout=CELL_TIMEOUT, kernel_name="python3",
                                   record_timing=False,
                                   resources={"metadata": {"path": str(NOTEBOOK.parent)}})
  client.execute()  # Raises CellExecutionError, with the cell and traceback, on any error.
  assert NOTEBOOK.read_bytes() == before, "executing the tutorial changed the committed file"
  return run


@pytest.mark.slow
def test_kernel_runs_the_tests_python(executed):
  assert _stdout(executed.cells[-1]).strip() == PREFIX_MARK + sys.prefix


@pytest.mark.slow
def test_kuhn_value_printed_matches_kuhn_1950(executed):
  text = _tagged(executed, "kuhn-value")
  assert _number_after(text, "CFR+ average policy") == pytest.approx(-1 / 18, abs=1e-3)
  assert _number_after(text, "sequence-form LP") == pytest.approx(-1 / 18, abs=1e-6)


@pytest.mark.slow
def test_three_player_nearest_member_is_exact(executed):
  text = _tagged(executed, "three-players")
  match = re.search(r"nearest member \(.*?\): NashConv ([-+0-9.e]+)", text)
  assert match, text
  assert float(match.group(1)) < 1e-9
  # Szafron, Gibson, Sturtevant 2013: P2 (OpenSpiel's player 1) gets -1/48 in every member.
  member_value = re.search(r"^player 1 \(P2\)\s+\S+\s+(\S+)$", text, re.MULTILINE)
  assert member_value, text
  assert float(member_value.group(1)) == pytest.approx(-1 / 48, abs=1e-6)


@pytest.mark.slow
def test_played_hands_follow_kuhns_rules(executed):
  text = _tagged(executed, "play")
  hands: List[Dict] = []
  total = 0.0
  for line in text.splitlines():
    match = HAND.match(line)
    if not match:
      continue
    number, seat, mine, theirs, events, result, shown_total = match.groups()
    seat = int(seat)
    cards = [0, 0]
    cards[seat], cards[1 - seat] = "JQK".index(mine), "JQK".index(theirs)
    history = "".join(MOVES[event.split()[1]] for event in events.split(", "))
    expected = MATCH_RULES.returns(history, cards)[seat]
    assert float(result) == expected, line
    total += expected
    assert float(shown_total) == total, line
    hands.append({"number": int(number), "seat": seat})
  assert [h["number"] for h in hands] == list(range(1, 11))
  assert [h["seat"] for h in hands] == [0, 1] * 5  # Alternating seats, player 0 first.
  summary = re.search(r"^  You\s+([+-]?\d+) after 10 hands", text, re.MULTILINE)
  assert summary, text
  assert float(summary.group(1)) == total


@pytest.mark.slow
def test_every_figure_is_shown(executed):
  images = [base64.b64decode(o.data["image/png"]) for c in executed.cells
            if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
  assert len(images) == NUM_FIGURES
  for png in images:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width >= 300 and height >= 200, (width, height)


def test_committed_notebook_is_executed_small_and_clean():
  assert NOTEBOOK.stat().st_size < MAX_BYTES
  nb = nbformat.read(NOTEBOOK, as_version=4)
  nbformat.validate(nb)
  code = [c for c in nb.cells if c.cell_type == "code"]
  assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), \
      "store the notebook executed top to bottom in one fresh kernel"
  assert not [o for c in code for o in c.outputs if o.output_type == "error"]
  assert nb.metadata["kernelspec"]["name"] == "python3"
