"""A policy as a plain JSON file, keyed by information-state string.

File layout::

  {"format": "kuhn-cfr-policy", "version": 1, "game": "<str(game)>",
   "policy": {"<information state>": {"actions": [0, 1], "probabilities": [0.7, 0.3]}, ...}}

Only legal actions are listed. ``load_policy`` rebuilds a ``policy.TabularPolicy`` for the game
and refuses a file for another game, with missing or extra information states, other legal
actions, or probabilities that are negative, not finite or do not sum to 1.
"""

import json
import math

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.file_formats.checkpoint import check_format
from spiel_games.atomic_file import atomic_write_json

FORMAT = "kuhn-cfr-policy"
VERSION = 1
_SUM_TOLERANCE = 1e-9


def save_policy(path: str, policy: policy_lib.TabularPolicy) -> None:
  """Writes ``policy`` (a ``TabularPolicy``) to ``path`` as JSON, atomically."""
  table = {}
  mask = policy.legal_actions_mask.astype(bool)
  for key, row in policy.state_lookup.items():
    actions = np.flatnonzero(mask[row])
    probs = policy.action_probability_array[row, actions]
    table[key] = {"actions": [int(a) for a in actions], "probabilities": [float(p) for p in probs]}
  doc = {"format": FORMAT, "version": VERSION, "game": str(policy.game), "policy": table}
  atomic_write_json(path, doc)


def load_policy(path: str, game: pyspiel.Game) -> policy_lib.TabularPolicy:
  """Reads a policy file written by ``save_policy`` into a ``TabularPolicy`` of ``game``.

  Raises:
    ValueError: one line naming the problem (unreadable file, other format or game, keys or
      actions that do not match the game, invalid probabilities).
  """
  try:
    with open(path, encoding="utf-8") as f:
      doc = json.load(f)
  except FileNotFoundError:
    raise ValueError(f"{path}: no such policy file") from None
  except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
    raise ValueError(f"{path}: not a readable JSON policy file ({type(e).__name__})") from None
  check_format(path, doc, FORMAT, VERSION)
  if doc.get("game") != str(game):
    raise ValueError(f"{path}: policy is for game {doc.get('game')!r}, not {str(game)!r}")
  table = doc.get("policy")
  if not isinstance(table, dict):
    raise ValueError(f"{path}: 'policy' must be an object keyed by information state")
  policy = policy_lib.TabularPolicy(game)
  missing = set(policy.state_lookup) - set(table)
  extra = set(table) - set(policy.state_lookup)
  if missing or extra:
    example = sorted(missing or extra)[0]
    raise ValueError(f"{path}: information states do not match the game ({len(missing)} "
                     f"missing, {len(extra)} unknown, e.g. {example!r})")
  mask = policy.legal_actions_mask.astype(bool)
  for key, row in policy.state_lookup.items():
    entry = table[key]
    legal = [int(a) for a in np.flatnonzero(mask[row])]
    if not isinstance(entry, dict) or entry.get("actions") != legal:
      raise ValueError(f"{path}: actions of {key!r} must be the legal actions {legal}")
    probs = entry.get("probabilities")
    if (not isinstance(probs, list) or len(probs) != len(legal) or
        not all(isinstance(p, (int, float)) and math.isfinite(p) and p >= 0 for p in probs) or
        abs(sum(probs) - 1.0) > _SUM_TOLERANCE):
      raise ValueError(f"{path}: probabilities of {key!r} must be {len(legal)} non-negative "
                       "numbers summing to 1")
    policy.action_probability_array[row] = 0.0
    policy.action_probability_array[row, legal] = probs
  return policy
