"""Strategy tables: a policy on a Kuhn game as a readable table beside the reference equilibrium.

One row per information state and action: the player, the card (``KuhnRules.card_name``), the
betting so far and the action in poker words (``KuhnRules.action_name``: Check/Bet, Fold/Call),
the policy's probability, the reference equilibrium's and the difference.

The reference is the closed form of ``algorithms.kuhn_equilibria`` for three cards, else the
sequence-form LP's equilibrium (``experiments.references.reference_equilibrium``). Where the
closed-form equilibrium is a family (e.g. Kuhn's alpha in [0, 1/3] at ante = bet), the reference is
the family member nearest the policy: each free parameter set to the policy's own probability at
that information state, clipped to the parameter's range, so that the differences show how far
the policy is from the family, not from an arbitrary member. An LP equilibrium is one member of
a possibly larger set, so non-zero differences against it need not mean a worse policy; the
value and NashConv checks decide.
"""

import argparse
from typing import Dict, List, Tuple

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel

from algorithms import kuhn_equilibria
from experiments import arguments
from experiments import checks
from experiments import games
from experiments import policies
from experiments import references
from experiments import tables
from experiments.checks import Check
from experiments.context import Context
from experiments.report_section import ReportSection
from spiel_games import kuhn_poker_ante
from spiel_games import kuhn_rules

NAME = "strategy-tables"
HELP = "A solver's average policy as a readable table beside the reference equilibrium."

ITERATIONS = arguments.Budget(default=2000, quick=300)  # Of the default policy, cfr:T.


def rules_of(game: pyspiel.Game) -> kuhn_rules.KuhnRules:
  """The game's ``KuhnRules``; ValueError for a game that is not a two-player Kuhn game."""
  rules = kuhn_poker_ante.rules_of(game)
  if rules is None:
    raise ValueError(f"strategy tables need a Kuhn game (kuhn_poker or kuhn_poker_ante), got "
                     f"{game}")
  return rules


def information_states(game: pyspiel.Game) -> Dict[str, Tuple[int, int, str]]:
  """{information state string: (player, card, betting history)}, from one walk of the game.

  The card is the chance outcome dealt to the player (OpenSpiel's Kuhn games deal player 0's card,
  then player 1's); the betting history is the player actions so far as "p"/"b" characters.
  """
  out = {}
  stack = [game.new_initial_state()]
  while stack:
    state = stack.pop()
    if state.is_terminal():
      continue
    if not state.is_chance_node():
      player = state.current_player()
      history = state.history()
      betting = "".join(kuhn_rules.ACTION_CHARS[a] for a in history[2:])
      out.setdefault(state.information_state_string(player), (player, history[player], betting))
    stack.extend(state.child(a) for a in state.legal_actions())
  return out


def reference_for(game: pyspiel.Game,
                  pol: policy_lib.TabularPolicy) -> references.Reference:
  """The reference equilibrium nearest ``pol`` (see the module docstring)."""
  rules = rules_of(game)
  if rules.deck_size != 3:
    return references.reference_equilibrium(game)
  closed = kuhn_equilibria.member_matching(rules.ante, rules.bet, rules.simplified,
                                           references.policy_probabilities(pol))
  member = ", ".join(f"{k} = {float(v):.4f}" for k, v in closed.family.items())
  return references.Reference(closed.policy(game), float(closed.value),
                            f"closed form ({closed.regime}" + (f"; {member}" if member else "")
                            + ")")


def strategy_table(game: pyspiel.Game, pol: policy_lib.TabularPolicy,
                   reference: policy_lib.TabularPolicy) -> pd.DataFrame:
  """One row per (information state, action), sorted by player, betting history and card."""
  rules = rules_of(game)
  rows = []
  for key, (player, card, betting) in information_states(game).items():
    for action in (kuhn_rules.PASS, kuhn_rules.BET):
      probability = float(pol.policy_for_key(key)[action])
      expected = float(reference.policy_for_key(key)[action])
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
  """A markdown table with one row per information state."""
  lines = ["| player | card | betting so far | policy | reference | max abs difference |",
           "|---|---|---|---|---|---|"]
  for (player, _, _, _), group in frame.groupby(
      ["player", frame["history"].str.len(), "history", "card_index"], sort=True):
    policy_text = ", ".join(f"{a} {p:.3f}" for a, p in zip(group["action"], group["probability"]))
    reference_text = ", ".join(f"{a} {p:.3f}" for a, p in zip(group["action"], group["reference"]))
    lines.append(f"| {player} | {group['card'].iloc[0]} | {group['betting'].iloc[0]} | "
                 f"{policy_text} | {reference_text} | {group['difference'].abs().max():.4f} |")
  return "\n".join(lines)


def table_checks(game: pyspiel.Game, name: str, pol: policy_lib.TabularPolicy,
                 reference: references.Reference) -> List[Check]:
  """The reference is an equilibrium, and the policy's value is the game value within the
  policy's NashConv (|u(sigma) - v| <= max_i (BR_i - u_i) <= NashConv in a zero-sum game)."""
  nash_conv = float(exploitability.nash_conv(game, pol))
  return [
      checks.same_number(f"strategy table {game}: NashConv of the reference",
                         exploitability.nash_conv(game, reference.policy), 0.0,
                         f"0 at equilibrium (OpenSpiel nash_conv); reference: {reference.source}"),
      checks.within_nash_conv(f"strategy table {game}: value of {name}",
                              policies.expected_value(game, pol, pol), reference.value, nash_conv,
                              f"{reference.source} value"),
  ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("--game", type=arguments.game_string, default="kuhn_poker_ante",
                      metavar="GAME_STRING", help="a Kuhn game string (kuhn_poker or "
                      "kuhn_poker_ante(...); default: kuhn_poker_ante)")
  parser.add_argument("--policy", default=None,
                      help=f"the policy to tabulate: {', '.join(policies.POLICY_NAMES)} (default "
                      f"cfr:{ITERATIONS.default}, cfr:{ITERATIONS.quick} with --quick)")


def run(args: argparse.Namespace, ctx: Context) -> ReportSection:
  name = args.policy or f"cfr:{ITERATIONS.resolve(None, ctx.quick)}"
  policies.check_name(name)
  game = games.load_game(args.game)
  rules_of(game)
  pol = policies.make_policy(game, name, ctx.seed, progress=ctx.progress)
  reference = reference_for(game, pol)
  frame = strategy_table(game, pol, reference.policy)
  tables.write_csv(frame, ctx.out / "strategy_table.csv")
  largest = frame.loc[frame["difference"].abs().idxmax()]
  return ReportSection(
      title=f"Strategy table: {name} on {args.game}",
      markdown="\n".join([
          f"The policy `{name}` on `{game}`, beside the reference equilibrium: "
          f"{reference.source}, value {reference.value:+.6f} for player 0. Probabilities are "
          "of each action at each information state (a player's card and the betting so far).",
          "",
          table_markdown(frame),
          "",
          f"Largest difference: {largest['difference']:+.4f} ({largest['action']} with "
          f"{largest['card']} after {largest['betting']}, player {largest['player']}).",
      ]),
      tables=["strategy_table.csv"],
      checks=table_checks(game, name, pol, reference))
