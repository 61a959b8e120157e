"""Exports a game to Gambit's extensive-form ``.efg`` format, with exact rational numbers.

Gambit (McKelvey, McLennan, Turocy, "Gambit: Software Tools for Game Theory",
www.gambit-project.org) reads a game tree written in preorder, one node a line (format "EFG 2 R",
documented with Gambit as "The extensive game (.efg) file format")::

  EFG 2 R "title" { "Player 1" "Player 2" } "comment"
  c "name" CHANCE_INFOSET "" { "label" PROBABILITY ... } 0
  p "name" PLAYER INFOSET "infoset name" { "label" ... } 0
  t "name" OUTCOME "" { PAYOFF, PAYOFF }

Numbers are written exactly: each chance probability and payoff, a float in the game, is written
as the rational ``p/q`` whose nearest double is that float, with the smallest denominator on the
ladder 10, 100, ..., 10**15 that works (``exact_rational``; ``1/6`` for a deal from six cards);
the probabilities of each chance node must add up to exactly 1 as rationals. Both Gambit and
OpenSpiel's ``efg_game`` parser read ``p/q``; OpenSpiel's reads p and q as 32-bit integers, so a
number whose rational does not fit is written as the shortest decimal that rounds to the same
double instead. OpenSpiel's own exporter (``open_spiel.python.algorithms.gambit``) writes
16-decimal floats, so 1/3 there is 0.3333333333333333.

Information sets are numbered per player in order of first appearance and named by the game's
``information_state_string``; each chance node and each terminal node has its own number.
Action labels are the game's ``action_to_string`` when they name each action id consistently
across the whole tree, else the action ids. At every node the actions are listed in the order in
which OpenSpiel's parser numbers them (labels seen before, by their number, then new labels),
because ``efg_game`` sorts each node's action ids without reordering its children.

Command line (the file is written atomically)::

  python -m spiel_games.efg_export "kuhn_poker_ante(deck_size=4)" kuhn4.efg
"""

import argparse
import dataclasses
import fractions
import math
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import pyspiel

import spiel_games  # noqa: F401  (registers the project's games with pyspiel)
from spiel_games.atomic_file import atomic_write_text

Fraction = fractions.Fraction

MAX_NODES = 1_000_000
_INT32_MAX = 2**31 - 1
CHANCE = pyspiel.PlayerId.CHANCE


def exact_rational(x: float) -> Fraction:
  """The rational that the float ``x`` stands for: for k = 1, 2, ..., 15 the fraction closest to
  x with denominator at most 10**k, the first whose nearest double is x; else x's exact binary
  value. E.g. 1/3 for ``1.0 / 3``, 5/18 for ``5 / 18``, 3/2 for 1.5.

  Raises:
    ValueError: if ``x`` is not finite.
  """
  if not math.isfinite(x):
    raise ValueError(f"cannot write {x!r} in an .efg file")
  exact = Fraction(x)
  for k in range(1, 16):
    candidate = exact.limit_denominator(10**k)
    if float(candidate) == x:
      return candidate
  return exact


def format_number(value: Fraction) -> str:
  """``p/q`` (or ``p``) if both fit OpenSpiel's 32-bit parser, else the shortest decimal."""
  if abs(value.numerator) <= _INT32_MAX and value.denominator <= _INT32_MAX:
    return str(value)
  return repr(float(value))


def _quote(text: str) -> str:
  """A quoted .efg label; OpenSpiel's parser reads no escapes, so ``"`` becomes ``'``."""
  return '"' + str(text).replace('"', "'") + '"'


def _check_game(game: pyspiel.Game) -> None:
  game_type = game.get_type()
  if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise ValueError(f"{game}: only sequential games can be exported, this one is "
                     f"{game_type.dynamics}")
  if game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
    raise ValueError(f"{game}: chance outcomes must be explicit, this game only samples them")


def action_labels(game: pyspiel.Game, max_nodes: int = MAX_NODES
                  ) -> Tuple[Callable[[pyspiel.State, int], str], int]:
  """How actions are labelled in the export, and the number of nodes of the tree.

  Chance outcomes and player actions are labelled separately. A kind keeps the game's
  ``action_to_string`` when that string is the same for an action id everywhere in the tree and
  differs between ids; otherwise its labels are the ids themselves.

  Returns:
    ``label(state, action)`` for a non-terminal ``state``, and the number of nodes.

  Raises:
    ValueError: if the tree has more than ``max_nodes`` nodes.
  """
  strings: Dict[bool, Dict[int, set]] = {True: {}, False: {}}
  count = 0
  stack = [game.new_initial_state()]
  while stack:
    state = stack.pop()
    count += 1
    if count > max_nodes:
      raise ValueError(f"{game}: the game tree has more than {max_nodes} nodes; raise the "
                       "limit (max_nodes / --max-nodes) to export it anyway")
    if state.is_terminal():
      continue
    player = state.current_player()
    kind = strings[player == CHANCE]
    for action in state.legal_actions():
      kind.setdefault(action, set()).add(state.action_to_string(player, action))
      stack.append(state.child(action))
  readable = {}
  for is_chance, table in strings.items():
    names = [next(iter(s)) for s in table.values() if len(s) == 1]
    readable[is_chance] = len(names) == len(table) and len(set(names)) == len(names)

  def label(state: pyspiel.State, action: int) -> str:
    player = state.current_player()
    if readable[player == CHANCE]:
      return state.action_to_string(player, action)
    return str(action)

  return label, count


@dataclasses.dataclass
class EfgExport:
  """An exported game.

  Attributes:
    text: the .efg file's content.
    label: ``label(state, action)``, the .efg label of an action of the game.
    num_nodes: number of nodes of the tree.
  """

  text: str
  label: Callable[[pyspiel.State, int], str]
  num_nodes: int


def export_efg(game: pyspiel.Game, max_nodes: int = MAX_NODES) -> EfgExport:
  """Writes the whole tree of ``game`` in Gambit's .efg format (see the module docstring).

  Args:
    game: a finite sequential game with explicit chance (any number of players).
    max_nodes: refuse trees with more nodes than this.

  Returns:
    The export (text and action labels).

  Raises:
    ValueError: one line: a simultaneous or sampled-chance game, a tree larger than
      ``max_nodes``, a chance node whose probabilities (as rationals) do not sum to 1, or a
      number that is not finite.
  """
  _check_game(game)
  label, num_nodes = action_labels(game, max_nodes)
  lines: List[str] = []
  players = " ".join(_quote(f"Player {p + 1}") for p in range(game.num_players()))
  lines.append(f"EFG 2 R {_quote(game)} {{ {players} }}")
  lines.append(_quote(f"The OpenSpiel game {game}, exported by spiel_games.efg_export. "
                      "Chance probabilities and payoffs are exact rationals."))
  # OpenSpiel's parser numbers labels in order of first appearance (separately for chance).
  label_ids: Dict[bool, Dict[str, int]] = {True: {}, False: {}}
  infosets: List[Dict[str, int]] = [{} for _ in range(game.num_players())]
  counters = {"chance": 0, "terminal": 0}

  def parser_order(state: pyspiel.State) -> List[Tuple[int, str]]:
    """The legal actions with their labels, seen labels first by number, then new ones."""
    ids = label_ids[state.is_chance_node()]
    pairs = [(a, label(state, a)) for a in state.legal_actions()]
    seen = sorted((p for p in pairs if p[1] in ids), key=lambda p: ids[p[1]])
    new = [p for p in pairs if p[1] not in ids]
    for _, text in new:
      ids[text] = len(ids)
    return seen + new

  def node_name(state: pyspiel.State) -> str:
    text = str(state)
    return text if len(text) <= 40 and "\n" not in text else ""

  stack: List[Tuple[pyspiel.State, int]] = [(game.new_initial_state(), 0)]
  while stack:
    state, depth = stack.pop()
    indent = " " * depth
    if state.is_terminal():
      counters["terminal"] += 1
      payoffs = ", ".join(format_number(exact_rational(r)) for r in state.returns())
      lines.append(f"{indent}t {_quote(node_name(state))} {counters['terminal']} \"\" "
                   f"{{ {payoffs} }}")
      continue
    ordered = parser_order(state)
    if state.is_chance_node():
      probs = dict(state.chance_outcomes())
      rationals = [exact_rational(probs[a]) for a, _ in ordered]
      if sum(rationals) != 1:
        raise ValueError(f"{game}: chance probabilities at state {state!r} sum to "
                         f"{sum(rationals)} as rationals, not 1: {[str(r) for r in rationals]}")
      counters["chance"] += 1
      cells = " ".join(f"{_quote(text)} {format_number(p)}"
                       for (_, text), p in zip(ordered, rationals))
      lines.append(f"{indent}c {_quote(node_name(state))} {counters['chance']} \"\" "
                   f"{{ {cells} }} 0")
    else:
      player = state.current_player()
      key = state.information_state_string(player)
      number = infosets[player].setdefault(key, len(infosets[player]) + 1)
      cells = " ".join(_quote(text) for _, text in ordered)
      lines.append(f"{indent}p {_quote(node_name(state))} {player + 1} {number} {_quote(key)} "
                   f"{{ {cells} }} 0")
    for action, _ in reversed(ordered):  # A stack: the first child is written next.
      stack.append((state.child(action), depth + 1))
  return EfgExport("\n".join(lines) + "\n", label, num_nodes)


def write_efg(game: pyspiel.Game, path: str, max_nodes: int = MAX_NODES) -> EfgExport:
  """Exports ``game`` (``export_efg``) and writes the file atomically."""
  export = export_efg(game, max_nodes)
  atomic_write_text(path, export.text)
  return export


def main(argv: Optional[Sequence[str]] = None) -> int:
  """``python -m spiel_games.efg_export GAME_STRING OUT.efg``; returns the exit status."""
  parser = argparse.ArgumentParser(
      prog="python -m spiel_games.efg_export",
      description="Write a game's tree in Gambit's .efg format with exact rational numbers.")
  parser.add_argument("game", metavar="GAME_STRING", help='e.g. "kuhn_poker_ante(ante=2.0)"')
  parser.add_argument("out", metavar="OUT.efg", help="file to write (atomically)")
  parser.add_argument("--max-nodes", type=int, default=MAX_NODES,
                      help=f"refuse trees with more nodes (default {MAX_NODES})")
  args = parser.parse_args(argv)
  name = args.game.split("(", 1)[0].strip()
  if name not in pyspiel.registered_names():  # pyspiel would print all names to stderr.
    print(f"error: cannot load game {args.game!r}: unknown game {name!r} "
          "(names: pyspiel.registered_names())", file=sys.stderr)
    return 2
  try:
    game = pyspiel.load_game(args.game)
  except (pyspiel.SpielError, ValueError) as e:
    print(f"error: cannot load game {args.game!r}: {str(e).splitlines()[0]}", file=sys.stderr)
    return 2
  try:
    export = write_efg(game, args.out, args.max_nodes)
  except ValueError as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  except OSError as e:
    print(f"error: cannot write {args.out}: {e.strerror}", file=sys.stderr)
    return 2
  print(f"wrote {args.out}: {export.num_nodes} nodes of {game}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
