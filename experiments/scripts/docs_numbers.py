"""Counts the decimal numbers typed by hand in ``README.md`` and ``docs/*.md``.

  python -m experiments.scripts.docs_numbers [--root DIR]

A number in the docs should come from a program (a generated region, ``generated_regions``, or a
table file the docs script writes) or be asserted by a test; a number typed by hand drifts. A
"decimal number" is ``DECIMAL``: digits, a point, digits, not preceded by a letter, a digit, an
underscore or a point (0.0683, the 1.19 of 1.19e-3, the 2.0 of ``ante=2.0``; not 1,000, 1/18 or
1e-4), the definition of issue 36's count (1,982 when it was filed). Counted outside the bodies
of generated regions, outside history passages (``HISTORY``: a past measurement with the commit
it was made at) and outside the files that are a generated region's whole body (the tables the
docs script publishes and includes: ``summary.md``, ``rebel_table.md``, ...). Prints the
count per file, most first, and the total;
``tests/test_experiments/scripts/test_docs_numbers.py`` keeps the total under a committed
ceiling.
"""

import argparse
import pathlib
import re
import sys
from typing import Dict, List, Optional, Sequence, Tuple

from experiments.harness import generated_regions
from experiments.harness import provenance
from experiments.harness import script_runner

DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+")
# A history passage: a blockquote (indented in a list item or not) whose first line is
# "> History, measured at commit <hash>: ..." (the numbers of a past measurement, kept as a
# record, not as today's result), with the blockquote lines that follow it.
HISTORY = re.compile(r"^ *> History, measured at commit ([0-9a-f]{7,40})\b")


def history_passages(text: str) -> List[Tuple[str, List[str]]]:
  """The history passages of ``text`` as (commit, lines), and, as ("", lines), the runs of
  lines between them."""
  passages: List[Tuple[str, List[str]]] = [("", [])]
  for line in text.splitlines():
    match = HISTORY.match(line)
    if match:
      passages.append((match.group(1), [line]))
    elif passages[-1][0] and not line.lstrip(" ").startswith(">"):
      passages.append(("", [line]))
    else:
      passages[-1][1].append(line)
  return passages


def hand_typed(text: str) -> str:
  """``text`` without the bodies of its generated regions and without its history passages."""
  pieces, last = [], 0
  for _, start, end in generated_regions.regions(text):
    pieces.append(text[last:start])
    last = end
  return "\n".join(line for commit, lines in history_passages("".join(pieces) + text[last:])
                   if not commit for line in lines)


def hand_typed_counts(root: pathlib.Path) -> Dict[str, int]:
  """{file relative to ``root``: its hand-typed decimal numbers} for ``README.md`` and
  ``docs/*.md``, leaving out the files that are the whole body of a generated region."""
  texts = {path: path.read_text() for path in generated_regions.markdown_files(root)
           if path.is_file()}
  bodies = {text[start:end].strip() for text in texts.values()
            for _, start, end in generated_regions.regions(text)}
  return {str(path.relative_to(root)): len(DECIMAL.findall(hand_typed(text)))
          for path, text in texts.items() if text.strip() not in bodies}


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Prints the hand-typed decimal numbers per file and their total; returns the exit status."""
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.docs_numbers",
                                   description=__doc__.splitlines()[0])
  checkout = provenance.source_checkout()
  parser.add_argument("--root", type=pathlib.Path, default=checkout, metavar="DIR",
                      help="the folder of README.md and docs/ (default: this source checkout)")
  args = parser.parse_args(argv)
  if args.root is None or not (args.root / "README.md").is_file():
    parser.error(f"--root {args.root}: no README.md there; give the checkout's folder")
  try:
    counts = hand_typed_counts(args.root)
  except ValueError as e:  # A malformed marker.
    print(f"{parser.prog}: error: {e}", file=sys.stderr)
    return 2
  lines: List[str] = [f"{n:6,}  {name}" for name, n in
                      sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
  print("\n".join(lines + [f"{sum(counts.values()):6,}  total"]))
  return 0


if __name__ == "__main__":
  script_runner.run(main)
