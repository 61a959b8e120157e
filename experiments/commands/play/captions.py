"""The play command's longer terminal texts, in ``captions.md`` beside this file (``CAPTIONS``):
each paragraph of a template is one line on the terminal (``lines``)."""

from typing import List

from experiments.harness import templates

CAPTIONS = templates.load(__package__)


def lines(key: str, **values) -> List[str]:
  """Template ``key`` filled with ``values``, as the terminal's lines: one per paragraph."""
  return CAPTIONS.fill(key, **values).split("\n\n")
