"""The thresholds of an N-card Kuhn policy, for comparison with the continuous game.

``continuous_kuhn`` solves the limit of ``kuhn_poker_ante`` as the deck grows; this module reads
the same quantities off a policy of the N-card game (a ``TabularPolicy`` or the per-card arrays of
the range-vector engine's ``CardPolicy``), so the two compare field by field.

N-card thresholds (``thresholds_from_policy``). Card c of an N-card deck stands for the strength
interval [c/N, (c + 1)/N]. A call threshold is one minus the calling mass, (1/N) sum_c p(c), where
p(c) is the probability of the card's action 1. The split between bluffs and value bets uses the
opponent's call threshold (bluffs are the bets with hands below every caller): the bluff
threshold is the bet mass below the split, and the value threshold is one minus the bet mass
above it, a card straddling the split being divided in proportion. For a threshold policy with
integer boundaries k_a <= k_split <= k_v these are exactly k_a / N and k_v / N; a mixed card
at a boundary contributes its probability; and masses do not depend on which member of the family
a solver returns. In the standard game player 0's call threshold after check-bet counts only
hands that check (p0_call = (1/N) sum_c [bet(c) split_below(c) + (1 - bet(c))(1 - call(c))]):
the call probability of a card that always bets is never used, and a solver may leave it at
anything (the LP leaves it uniform).

Measured against the N-card game (``sequence_form_lp`` on ``kuhn_poker_ante``, bet 1, r from
1/16 to 16, N from 10 to 80): the LP value V_N is within 0.07 (a + b) / N of V (simplified:
within 0.03 (a + b) / N, and exactly V in many cases, e.g. r = 1 with N a multiple of 10;
standard: V_N < V for r >= 1/2, N (V - V_N) about 0.1 b at r = 1, 0.2 b at r = 2, 0.3 b at r = 4,
0.4 b at r = 16), and every threshold read by ``thresholds_from_policy`` lies within 1.5 cards
(1.5 / N) of the continuous one for r in [1/2, 2], within 2.25 cards for r up to 10 (the LP:
2.18 cards at 100 cards and r = 7.2; DCFR to 1e-7: 2.25 cards at 1,000 cards and r = 4.6, the
``large-deck`` experiment). At fixed N the N-card game still has a passive
regime (value 0, nobody bluffs) at small r, shrinking with N (simplified: r <= 1/2 at N = 3, none
left at r = 0.05 for N = 20), while the continuous game has none. Solved by the range-vector
engine (DCFR to exploitability 1e-8, N = 1,000 and 10,000): standard rules, N (V_N - V) / (a + b)
= -0.0553 and -0.0555 at r = 1 (V_N - V close to -b / (9N)), -0.0711 at r = 2, -0.0278 at r = 1/2;
simplified rules, below 1e-4 in size; N times the largest threshold gap at most 1.15.
"""

import re
from typing import Dict, Mapping, Sequence

import numpy as np
from open_spiel.python import policy as policy_lib
import pyspiel

from algorithms.exact.continuous_kuhn import Thresholds
from spiel_games import kuhn_poker_ante

HISTORIES = {True: ("", "b"), False: ("", "p", "b", "pb")}
# The measured bands of the N-card game around its continuous limit (module docstring; no
# theorem gives the constants), with margins, the tolerances every comparison uses:
# |V_N - V| <= VALUE_BAND (a + b) / N (largest measured 0.071: standard rules near r = 2, decks
# of 10 to 100,000 cards, r from 0.05 to 10, by the LP and by DCFR),
VALUE_BAND = 0.08
# and every threshold within THRESHOLD_BAND cards, THRESHOLD_BAND / N of the deck (largest
# measured 2.25 cards: DCFR to 1e-8 at 1,000 cards, r = 4.6; the LP 2.18 at 100 cards, r = 7.2).
THRESHOLD_BAND = 3.0
_PROBABILITY_SLACK = 1e-9  # Solver output may stray this far outside [0, 1].


def thresholds_from_policy(probabilities: Mapping[str, Sequence[float]],
                           simplified: bool) -> Thresholds:
  """The thresholds of an N-card policy, as fractions of the deck (module docstring).

  With p_h(c) the probability of action 1 at history h with card c and split_below(s, c) the
  fraction of card c's interval [c/N, (c + 1)/N] below s:

  * p1_call = 1 - (1/N) sum_c p_b(c);
  * p0_bluff = (1/N) sum_c p(c) split_below(p1_call, c), p0_value = 1 - (1/N) sum_c p(c)
    (1 - split_below(p1_call, c)), with p = p_"" (the bets below and above the split);
  * standard game: p0_call = (1/N) sum_c [p(c) split_below(p1_call, c) + (1 - p(c))(1 -
    p_pb(c))] (the bluffs and the checked hands that fold); p1_bluff and p1_value as p0_bluff and
    p0_value from p_p, split at p0_call.

  Exact for threshold policies (integer boundaries give k / N) and comparable field by field
  with ``thresholds``.

  Args:
    probabilities: {history: array (N,) of the probability of action 1 by card} for the
      histories "" and "b" (simplified) or "", "p", "b", "pb" (standard).
    simplified: the rule set.

  Returns:
    ``Thresholds`` in floats.

  Raises:
    ValueError: for missing or extra histories, arrays of different or too short length, or a
      probability outside [0, 1].
  """
  expected = HISTORIES[bool(simplified)]
  if set(probabilities) != set(expected):
    raise ValueError(f"probabilities must have exactly the histories {list(expected)}, got "
                     f"{sorted(probabilities)}")
  arrays = {}
  for history in expected:
    p = np.asarray(probabilities[history], dtype=np.float64)
    if p.ndim != 1 or p.size < 2:
      raise ValueError(f"probabilities[{history!r}] must be a 1-d array of N >= 2 cards, got "
                       f"shape {p.shape}")
    if not (np.all(np.isfinite(p)) and p.min() >= -_PROBABILITY_SLACK
            and p.max() <= 1 + _PROBABILITY_SLACK):
      raise ValueError(f"probabilities[{history!r}] must lie in [0, 1]")
    arrays[history] = np.clip(p, 0.0, 1.0)
  n = arrays[""].size
  if any(p.size != n for p in arrays.values()):
    raise ValueError(f"probabilities must all have one length N, got "
                     f"{ {h: p.size for h, p in arrays.items()} }")
  p1_call = 1.0 - arrays["b"].sum() / n
  bet = arrays[""]
  bluffs = bet * _split_below(p1_call, n)
  p0_bluff = bluffs.sum() / n
  p0_value = 1.0 - (bet - bluffs).sum() / n
  if simplified:
    return Thresholds(simplified=True, p0_bluff=float(p0_bluff), p0_value=float(p0_value),
                      p1_call=float(p1_call))
  p0_call = (bluffs + (1.0 - bet) * (1.0 - arrays["pb"])).sum() / n
  p1_bet = arrays["p"]
  p1_bluffs = p1_bet * _split_below(p0_call, n)
  return Thresholds(simplified=False, p0_bluff=float(p0_bluff), p0_value=float(p0_value),
                    p1_call=float(p1_call), p0_call=float(p0_call),
                    p1_bluff=float(p1_bluffs.sum() / n),
                    p1_value=float(1.0 - (p1_bet - p1_bluffs).sum() / n))


def threshold_gaps(measured: Thresholds, reference: Thresholds) -> Dict[str, float]:
  """|measured - reference| field by field (e.g. N-card policy against the continuous game).

  Raises:
    ValueError: if the two are of different rule sets.
  """
  if measured.simplified != reference.simplified:
    raise ValueError("measured and reference thresholds are of different rule sets")
  ref = reference.as_dict()
  return {name: abs(float(x) - float(ref[name])) for name, x in measured.as_dict().items()}


def policy_arrays(game: pyspiel.Game,
                  policy: policy_lib.TabularPolicy) -> Dict[str, np.ndarray]:
  """The input of ``thresholds_from_policy`` read from a policy of a two-player Kuhn game.

  Args:
    game: ``kuhn_poker_ante`` (two players, any deck and rule set) or OpenSpiel's ``kuhn_poker``.
    policy: a ``TabularPolicy`` of ``game`` covering both players (e.g. an LP or CFR policy).

  Returns:
    {history: array (N,) of the probability of action 1 (bet or call) by card}.

  Raises:
    ValueError: for another game, or a policy that lacks an information state of the game.
  """
  rules = kuhn_poker_ante.rules_of(game)
  if rules is None:
    raise ValueError(f"game {game} is not a two-player Kuhn poker game; use kuhn_poker_ante "
                     "or kuhn_poker")
  histories = HISTORIES[rules.simplified]
  out = {h: np.full(rules.deck_size, np.nan) for h in histories}
  for key, index in policy.state_lookup.items():
    match = re.fullmatch(r"(\d+) ?([pb]*)", key)
    if match is None or match.group(2) not in out:
      raise ValueError(f"information state {key!r} is not one of the game's")
    out[match.group(2)][int(match.group(1))] = policy.action_probability_array[index][1]
  missing = [h for h, p in out.items() if np.isnan(p).any()]
  if missing:
    raise ValueError(f"policy lacks information states at histories {missing}")
  return out


def _split_below(split: float, n: int) -> np.ndarray:
  """The fraction of each card's interval [c/N, (c + 1)/N] below ``split``."""
  return np.clip(split * n - np.arange(n), 0.0, 1.0)
