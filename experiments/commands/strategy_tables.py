"""Strategy tables: a policy on a Kuhn game as a readable table beside the reference equilibrium.

Any number of players (``kuhn_poker(players=N)``, ``kuhn_poker_ante(players=N, ...)``).

One row per information state and action: the player, the card (``KuhnRules.card_name``), the
betting so far and the action in poker words (``KuhnRules.action_name``: Check/Bet, Fold/Call),
the policy's probability, the reference equilibrium's and the difference.

The reference is the closed form of ``algorithms.exact.kuhn_equilibria`` for three cards, else the
sequence-form LP's equilibrium (``experiments.harness.references.reference_equilibrium``). Where the
closed-form equilibrium is a family (e.g. Kuhn's alpha in [0, 1/3] at ante = bet), the reference is
the family member nearest the policy: each free parameter set to the policy's own probability at
that information state, clipped to the parameter's range, so that the differences show how far
the policy is from the family, not from an arbitrary member. An LP equilibrium is one member of
a possibly larger set, so non-zero differences against it need not mean a worse policy; the
value and NashConv checks decide.

Three-player Kuhn poker at ante = bet = 1: the reference is the member of the
Szafron-Gibson-Sturtevant family nearest the policy (``kuhn3_equilibria.nearest_member``, least
squares over the 48 information states). Other games with more than two players have no known
equilibrium: the table shows the policy alone. With more than two players there is no game value
to check and no exploitability; the checks are the reference's NashConv (0) and the policy's
NashConv on the tree against OpenSpiel's ``nash_conv``.
"""

import argparse
from typing import Dict, List, Optional, Tuple

import numpy as np
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel

import algorithms
from algorithms.exact import kuhn3_equilibria
from algorithms.exact import kuhn_equilibria
from experiments.harness import arguments
from experiments.harness import checks
from experiments.harness import game_loader
from experiments.harness import policies
from experiments.harness import references
from experiments.harness import tables
from experiments.harness import templates
from experiments.harness.checks import Check
from experiments.harness.context import Context
from experiments.harness.section import ReportSection
from spiel_games import kuhn_poker_ante
from spiel_games import kuhn_rules

NAME = "strategy-tables"
REPORT_ORDER = 70  # Place in the report (and in ``run``).
# No jobs or tasks: ``run`` runs it in a side process, beside the pool (``experiments.cli``).
SIDE_PROCESS = True
HELP = "A solver's average policy as a readable table beside the reference equilibrium."

ITERATIONS = arguments.Budget(default=2000, quick=300)  # Of the default policy, cfr:T.
# Why a table has no reference (``table_markdown``): a game with more than two players other than
# three-player Kuhn poker at ante = bet = 1 (module docstring).
NO_REFERENCE = "no equilibrium of this game is known"
# The report's words, in ``strategy_tables.md`` beside this file.
CAPTIONS = templates.load(__package__, "strategy_tables.md")


def rules_of(game: pyspiel.Game) -> kuhn_rules.KuhnRules:
  """The game's ``KuhnRules`` (any number of players); ValueError for a game that is not a Kuhn
  game."""
  rules = kuhn_poker_ante.rules_of(game, num_players=None)
  if rules is None:
    raise ValueError(f"strategy tables need a Kuhn game (kuhn_poker or kuhn_poker_ante), got "
                     f"{game}")
  return rules


def information_states(game: pyspiel.Game) -> Dict[str, Tuple[int, int, str]]:
  """{information state string: (player, card, betting history)}, from one walk of the game.

  The card is the chance outcome dealt to the player (OpenSpiel's Kuhn games deal player 0's card,
  then player 1's, ...); the betting history is the player actions so far as "p"/"b" characters.
  """
  num_players = game.num_players()
  out = {}
  stack = [game.new_initial_state()]
  while stack:
    state = stack.pop()
    if state.is_terminal():
      continue
    if not state.is_chance_node():
      player = state.current_player()
      history = state.history()
      betting = "".join(kuhn_rules.ACTION_CHARS[a] for a in history[num_players:])
      out.setdefault(state.information_state_string(player), (player, history[player], betting))
    stack.extend(state.child(a) for a in state.legal_actions())
  return out


def reference_for(game: pyspiel.Game,
                  pol: policy_lib.TabularPolicy) -> Optional[references.Reference]:
  """The reference equilibrium nearest ``pol`` (see the module docstring), or None for a game with
  more than two players and no known equilibrium."""
  rules = rules_of(game)
  if references.has_kuhn3_family(game):
    nearest = kuhn3_equilibria.nearest_member(pol)
    return references.kuhn3_reference(
        game, nearest.member, "Szafron-Gibson-Sturtevant family, nearest member ("
        + references.describe_member(nearest.member) + f"; distance {nearest.distance:.4f})")
  if rules.num_players > 2:
    return None
  if rules.deck_size != 3:
    return references.reference_equilibrium(game)
  closed = kuhn_equilibria.member_matching(rules.ante, rules.bet, rules.simplified,
                                           references.policy_probabilities(pol))
  member = ", ".join(f"{k} = {float(v):.4f}" for k, v in closed.family.items())
  return references.Reference(closed.policy(game), float(closed.value),
                            f"closed form ({closed.regime}" + (f"; {member}" if member else "")
                            + ")")


def strategy_table(game: pyspiel.Game, pol: policy_lib.TabularPolicy,
                   reference: Optional[policy_lib.TabularPolicy]) -> pd.DataFrame:
  """One row per (information state, action), sorted by player, betting history and card; the
  reference and difference columns are NaN without a reference."""
  rules = rules_of(game)
  rows = []
  for key, (player, card, betting) in information_states(game).items():
    for action in (kuhn_rules.PASS, kuhn_rules.BET):
      probability = float(pol.policy_for_key(key)[action])
      expected = (float(reference.policy_for_key(key)[action]) if reference is not None
                  else np.nan)
      rows.append({
          "player": player, "card": rules.card_name(card), "card_index": card,
          "history": betting, "betting": betting_words(rules, betting),
          "action": rules.action_name(betting, action), "action_index": action, "info_state": key,
          "probability": probability, "reference": expected, "difference": probability - expected})
  frame = pd.DataFrame(rows)
  frame["history_length"] = frame["history"].str.len()
  frame = frame.sort_values(["player", "history_length", "history", "card_index", "action_index"])
  return frame.drop(columns="history_length").reset_index(drop=True)


def betting_words(rules: kuhn_rules.KuhnRules, betting: str) -> str:
  """The betting so far in poker words, e.g. "pb" -> "Check, Bet"; "-" before any action."""
  words = [rules.action_name(betting[:i], kuhn_rules.ACTION_CHARS.index(c))
           for i, c in enumerate(betting)]
  return ", ".join(words) or "-"


def table_markdown(frame: pd.DataFrame) -> str:
  """A markdown table (``tables.markdown_table``) with one row per information state: the
  policy's and the reference's probabilities, and their largest absolute difference to 4
  decimals (missing, with a footnote, where no reference is known)."""
  difference = "largest abs. difference in probability"
  rows = []
  for (player, _, _, _), group in frame.groupby(
      ["player", frame["history"].str.len(), "history", "card_index"], sort=True):
    has_reference = not group["reference"].isna().all()
    rows.append({
        "player": player, "card": group["card"].iloc[0],
        "betting so far": group["betting"].iloc[0],
        "policy": ", ".join(f"{a} {p:.3f}" for a, p in zip(group["action"], group["probability"])),
        "reference": ", ".join(f"{a} {p:.3f}" for a, p in zip(group["action"], group["reference"]))
        if has_reference else None,
        difference: f"{group['difference'].abs().max():.4f}" if has_reference else None})
  return tables.markdown_table(pd.DataFrame(rows), missing=NO_REFERENCE, right=[difference])


def table_checks(game: pyspiel.Game, name: str, pol: policy_lib.TabularPolicy,
                 reference: Optional[references.Reference]) -> List[Check]:
  """The reference is an equilibrium, and the policy's value is the game value within the
  policy's NashConv (|u(sigma) - v| <= max_i (BR_i - u_i) <= NashConv in a zero-sum game).

  With more than two players: the reference (if any) has NashConv 0, and the policy's NashConv
  on the game tree (``algorithms.TreeEvaluator``) equals OpenSpiel's ``nash_conv``.
  """
  nash_conv = float(exploitability.nash_conv(game, pol))
  if game.num_players() > 2:
    found = [checks.same_number(f"strategy table {game}: NashConv of {name} on the tree",
                                algorithms.TreeEvaluator(game).nash_conv(pol), nash_conv,
                                "OpenSpiel exploitability.nash_conv")]
    if reference is not None:
      found.append(checks.same_number(
          f"strategy table {game}: NashConv of the reference",
          exploitability.nash_conv(game, reference.policy), 0.0,
          f"0 at equilibrium (OpenSpiel nash_conv); reference: {reference.source}"))
    return found
  return [
      checks.same_number(f"strategy table {game}: NashConv of the reference",
                         exploitability.nash_conv(game, reference.policy), 0.0,
                         f"0 at equilibrium (OpenSpiel nash_conv); reference: {reference.source}"),
      checks.within_nash_conv(f"strategy table {game}: value of {name}",
                              policies.expected_value(game, pol, pol), reference.value, nash_conv,
                              f"{reference.source} value"),
  ]


def report_markdown(game: pyspiel.Game, name: str, pol: policy_lib.TabularPolicy,
                    reference: Optional[references.Reference], frame: pd.DataFrame,
                    nash_conv: float) -> str:
  """The section's text: the policy ``name`` beside its reference (with more than two players
  its values and ``nash_conv``, OpenSpiel's NashConv of it, the first of ``table_checks``),
  ``strategy_table``'s ``frame`` as a table (``table_markdown``) and the largest difference from
  the reference."""
  if game.num_players() == 2:
    intro = CAPTIONS.fill("intro", name=name, game=game, source=reference.source,
                          value=reference.value)
  else:
    values = policies.expected_values(game, [pol] * game.num_players())
    intro = CAPTIONS.fill(
        "n_player_intro", name=name, game=game, players=game.num_players(),
        nash_conv=nash_conv, values=", ".join(f"{v:+.5f}" for v in values),
        reference=CAPTIONS.fill("n_player_reference", source=reference.source,
                                values=", ".join(f"{v:+.5f}" for v in reference.values))
        if reference is not None else CAPTIONS["n_player_no_reference"])
  lines = [intro + " " + CAPTIONS["probabilities"], "", table_markdown(frame)]
  if reference is not None:
    largest = frame.loc[frame["difference"].abs().idxmax()]
    lines += ["", CAPTIONS.fill("largest_difference", difference=largest["difference"],
                                action=largest["action"], card=largest["card"],
                                betting=largest["betting"], player=largest["player"])]
  return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--game", type=arguments.any_game_string, default="kuhn_poker_ante",
                      metavar="GAME_STRING", help="a Kuhn game string, any number of players "
                      "(kuhn_poker(...) or kuhn_poker_ante(...); default: kuhn_poker_ante)")
  parser.add_argument("--policy", default=None,
                      help=f"the policy to tabulate: {', '.join(policies.POLICY_NAMES)} (default "
                      f"cfr:{ITERATIONS.default}, cfr:{ITERATIONS.quick} with --quick; our_cfr "
                      "with more than two players)")


def default_policy(game: pyspiel.Game, quick: bool) -> str:
  """OpenSpiel's CFR after ``ITERATIONS`` for two players; the engine's CFR (the same algorithm,
  ``our_cfr``) with more, where OpenSpiel's Python CFR on a Python game is too slow (about 20
  iterations per second with three players)."""
  solver = "cfr" if game.num_players() == 2 else "our_cfr"
  return f"{solver}:{ITERATIONS.resolve(None, quick)}"


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  game = game_loader.load_game(args.game, two_player_zero_sum=False)
  rules_of(game)
  name = args.policy or default_policy(game, ctx.quick)
  policies.check_name(name)
  pol = policies.make_policy(game, name, ctx.seed, progress=ctx.progress)
  reference = reference_for(game, pol)
  frame = strategy_table(game, pol, reference.policy if reference is not None else None)
  tables.write_csv(frame, ctx.out / "strategy_table.csv")
  found = table_checks(game, name, pol, reference)
  return ReportSection(title=f"Strategy table: {name} on {args.game}",
                       markdown=report_markdown(game, name, pol, reference, frame,
                                                found[0].reference),
                       tables=["strategy_table.csv"], checks=found)
