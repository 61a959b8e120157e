"""``python -m experiments play``: the real program, driven through a pseudo-terminal.

Every number the program prints is recomputed here another way: hand results from Kuhn's rules
(``spiel_games.kuhn_rules``) applied to the cards and moves shown on screen; the exact match-up
values from OpenSpiel's ``expected_game_score.policy_value`` and brute force over pure strategies
(``tests/helpers.py``); hints by a recursion over the opponent's possible cards weighted by
the opponent's policy (the posterior), independent of OpenSpiel's best-response code.

Starting the program takes about 2 s, so tests share a run where they read the same one, and
the refusals of bad options run through the command line's ``main`` in this process (each also
in a subprocess, in the slow tests).
"""

import fractions
import io
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
from typing import Callable, Dict, List, Optional

from open_spiel.python.algorithms import expected_game_score
import pyspiel
import pytest

from experiments import cli
from experiments.commands import play
from experiments.commands.play import play_view
from experiments.harness import policies
import helpers
from spiel_games import kuhn_poker_referee
from spiel_games.kuhn_rules import KuhnRules

pexpect = pytest.importorskip("pexpect", reason="pexpect not installed (test extra)")

Fraction = fractions.Fraction
PROMPT = r"Your move: (.*?)  \(q quits\) > "
CHIPS = r"([+-]?\d+(?:\.\d+)?)(?: \(([+-]?\d+/\d+)\))?"
RANKS = "JQK"


class Session:
  """The program in a pseudo-terminal, with everything it printed in ``output``."""

  def __init__(self, *args: str):
    self.log = io.StringIO()
    self.child = pexpect.spawn(sys.executable, ["-m", "experiments", "play", *args],
                               encoding="utf-8", timeout=120, dimensions=(60, 200),
                               preexec_fn=helpers.default_ctrl_c)
    self.child.logfile_read = self.log

  @property
  def output(self) -> str:
    return self.log.getvalue().replace("\r\n", "\n")

  def finish(self) -> int:
    self.child.expect(pexpect.EOF)
    self.child.close()
    return self.child.exitstatus if self.child.exitstatus is not None else (
        128 + self.child.signalstatus)


def chips(decimal: str, fraction: Optional[str] = None) -> float:
  """A printed amount: its fraction when printed (exact), else its decimals."""
  return float(Fraction(fraction)) if fraction else float(decimal)


def kuhn_move(card: str, keys: str) -> str:
  """The scripted player: bets or calls with K, checks or calls with Q, checks or folds with J."""
  offered = dict(re.findall(r"(\w)=(\w+)", keys))
  if card == "K":
    return "b" if "b" in offered else "c"
  if card == "Q":
    return "c"
  return "c" if offered.get("c") == "Check" else "f"


def play_scripted(args: List[str], choose: Callable[[str, str], str] = kuhn_move,
                  on_prompt: Optional[Callable[["Session"], None]] = None) -> Session:
  """Answers every prompt with ``choose(card, keys)`` until the program ends."""
  session = Session(*args)
  card = None
  while True:
    index = session.child.expect([r"Your card\s+(\w)", PROMPT, pexpect.EOF])
    if index == 0:
      card = session.child.match.group(1)
    elif index == 1:
      if on_prompt is not None:
        on_prompt(session)
      session.child.sendline(choose(card, session.child.match.group(1)))
    else:
      break
  session.child.close()
  assert session.child.exitstatus == 0, session.output
  return session


def hands_of(output: str) -> List[str]:
  """The text of each hand."""
  return re.split(r"\n(?=Hand \d+ of \d+)", output.split("\nSummary")[0])[1:]


def betting_of(hand: str) -> str:
  """The betting sequence from the moves echoed on screen (pass = check or fold)."""
  moves = re.findall(r"^  (?:You|Opponent) (check|bet|fold|call)s?\.$", hand, re.M)
  return "".join("p" if m in ("check", "fold") else "b" for m in moves)


@pytest.fixture(scope="module")
def always_bet_match(tmp_path_factory):
  """Eight hands against always-bet in alternating seats, with a transcript: one run of the
  program (about 2 s) for the results and the exact values printed before the first hand."""
  transcript = tmp_path_factory.mktemp("always-bet") / "match.txt"
  session = play_scripted(["--opponent", "always-bet", "--seed", "5", "--hands", "8",
                           "--transcript", str(transcript)])
  return session, transcript


def test_results_follow_kuhns_rules_and_the_total_is_their_sum(always_bet_match):
  session, transcript = always_bet_match
  out = session.output
  rules = KuhnRules()
  total, results = Fraction(0), []
  hands = hands_of(out)
  assert len(hands) == 8
  for number, hand in enumerate(hands, start=1):
    seat = int(re.search(r"you are player (\d)", hand).group(1))
    assert seat == (number - 1) % 2  # Alternating seats, player 0 first.
    mine = RANKS.index(re.search(r"Your card\s+(\w)", hand).group(1))
    theirs = RANKS.index(re.search(r"Opponent's card\s+(\w)", hand).group(1))
    assert mine != theirs
    betting = betting_of(hand)
    assert rules.is_terminal(betting)
    # always-bet: every move of the opponent is a bet or a call.
    opponent_moves = [betting[i] for i in range(len(betting)) if i % 2 != seat]
    assert set(opponent_moves) == {"b"}
    cards = (mine, theirs) if seat == 0 else (theirs, mine)
    expected = Fraction(rules.returns(betting, cards)[seat])
    verdict = re.search(r"Result\s+(you win|you lose|nobody wins) ?(\S*)", hand)
    printed = {"you win": 1, "you lose": -1, "nobody wins": 0}[verdict.group(1)] * Fraction(
        verdict.group(2) or 0)
    assert printed == expected
    total += expected
    results.append(expected)
    printed_total = re.search(r"Total\s+([+-]?\d+) after (\d+) hand", hand)
    assert Fraction(printed_total.group(1)) == total and int(printed_total.group(2)) == number
  summary = re.search(r"You\s+([+-]?\d+) after 8 hands: ([+-]\d\.\d+) per hand, 95% interval "
                      r"\[([+-]\d\.\d+), ([+-]\d\.\d+)\]", out)
  mean = float(total) / 8
  spread = (sum((float(r) - mean)**2 for r in results) / 7)**0.5
  assert Fraction(summary.group(1)) == total
  assert float(summary.group(2)) == pytest.approx(mean, abs=5e-4)
  assert float(summary.group(3)) == pytest.approx(mean - 1.959964 * spread / 8**0.5, abs=5e-4)
  assert float(summary.group(4)) == pytest.approx(mean + 1.959964 * spread / 8**0.5, abs=5e-4)
  # The transcript records the same hands and summary.
  record = transcript.read_text()
  rows = re.findall(r"^hand (\d+)  seat (\d)  you (\w), opponent (\w)  \|  (.*)  \|  result "
                    r"(\S+)  total (\S+)$", record, re.M)
  assert [int(r[0]) for r in rows] == list(range(1, 9))
  assert [Fraction(r[5]) for r in rows] == results
  assert Fraction(rows[-1][6]) == total
  assert re.search(rf"You\s+{re.escape(summary.group(0)[3:].strip())}", record.split("Summary")[1])


def value_table(out: str) -> Dict[str, List[float]]:
  """{row name: [value as player 0, value as player 1]} of the printed exact values."""
  table = {}
  for name in ("an equilibrium player", "a best responder", "the game value"):
    row = re.search(rf"^  {name}.*?  {CHIPS}\s+{CHIPS}$", out, re.M)
    groups = row.groups()
    table[name] = [chips(groups[0], groups[1]), chips(groups[2], groups[3])]
  return table


def assert_values_are_policy_value_and_brute_force(out: str, game_string: str,
                                                   opponent: str) -> None:
  """The printed exact values against OpenSpiel's policy_value and brute force, in both seats."""
  table = value_table(out)
  game = pyspiel.load_game(game_string)
  reference = policies.reference_equilibrium(game)
  opponent_policy = policies.make_policy(game, opponent)
  root = game.new_initial_state()
  for seat in (0, 1):
    pair = [opponent_policy, opponent_policy]
    pair[seat] = reference.policy
    equilibrium = expected_game_score.policy_value(root, pair)[seat]
    best = helpers.best_response_value(game, opponent_policy, seat)
    value = reference.value if seat == 0 else -reference.value
    assert table["an equilibrium player"][seat] == pytest.approx(equilibrium, abs=1e-9)
    assert table["a best responder"][seat] == pytest.approx(best, abs=1e-9)
    assert table["the game value"][seat] == pytest.approx(value, abs=1e-9)


def test_printed_exact_values_equal_policy_value_and_brute_force(always_bet_match):
  session, _ = always_bet_match
  assert_values_are_policy_value_and_brute_force(session.output, "kuhn_poker_ante", "always-bet")


# Each case starts the program (about 2 s): other stakes and rules go through the same code
# (play_values, compared the same way as on Kuhn's game above) and are slow.
@pytest.mark.slow
@pytest.mark.parametrize("game_string, opponent", [
    ("kuhn_poker_ante(ante=2.0,bet=1.0)", "uniform"),
    ("kuhn_poker_ante(simplified=True)", "equilibrium")])
def test_printed_exact_values_on_other_games(game_string, opponent):
  session = Session("--game", game_string, "--opponent", opponent, "--seed", "1")
  session.child.expect(PROMPT)
  session.child.sendline("q")
  assert session.finish() == 0
  assert_values_are_policy_value_and_brute_force(session.output, game_string, opponent)


def posterior_value(rules: KuhnRules, policy, seat: int, mine: int, history: str,
                    weights: Dict[int, float]) -> float:
  """The sum over the opponent's cards c of weights[c] * (the person's chips), the person playing a
  best response: at the person's turns the action with the largest weighted value (their
  information set is the set of cards c with these weights), at the opponent's the
  opponent's policy."""
  if rules.is_terminal(history):
    return sum(w * rules.returns(history, (mine, c) if seat == 0 else (c, mine))[seat]
               for c, w in weights.items())
  if len(history) % 2 == seat:
    return max(posterior_value(rules, policy, seat, mine, history + x, weights) for x in "pb")
  total = 0.0
  for action, char in enumerate("pb"):
    moved = {c: w * policy.policy_for_key(f"{c}{history}")[action] for c, w in weights.items()}
    total += posterior_value(rules, policy, seat, mine, history + char, moved)
  return total


def test_hints_equal_the_posterior_recursion():
  """Against CFR's average policy after 30 iterations (mixed at most information sets), every
  hint equals E[chips | my card, the betting] computed by enumerating the opponent's cards."""
  game = pyspiel.load_game("kuhn_poker_ante")
  rules = KuhnRules()
  policy = policies.make_policy(game, "cfr:30")  # OpenSpiel's CFR: deterministic.
  checked = []

  def check_hints(session: Session) -> None:
    hand = session.output.rsplit("\nHand ", 1)[1]
    seat = int(re.search(r"you are player (\d)", hand).group(1))
    mine = RANKS.index(re.search(r"Your card\s+(\w)", hand).group(1))
    history = betting_of(hand)
    # Chance deals the opponent any other card with equal probability; the opponent's policy
    # then plays to the history: the unnormalised posterior.
    weights = {}
    for c in range(3):
      if c != mine:
        w = 1.0
        for i, char in enumerate(history):
          if i % 2 != seat:
            w *= policy.policy_for_key(f"{c}{history[:i]}")["pb".index(char)]
        weights[c] = w
    norm = sum(weights.values())
    block = hand.rsplit("  Hints", 1)[1]
    names = {"p": ("Check", "Fold", "Pass"), "b": ("Bet", "Call")}
    for char in "pb":
      row = re.search(rf"^\s+\w  (?:{'|'.join(names[char])})\s+{CHIPS}", block, re.M)
      expected = posterior_value(rules, policy, seat, mine, history + char, weights) / norm
      assert chips(*row.groups()) == pytest.approx(expected, abs=5e-5 if row.group(2) is None
                                                    else 1e-12)
    shown = dict(re.findall(r"(\w) (\d+)%", block.splitlines()[0]))
    for c, w in weights.items():
      assert int(shown[RANKS[c]]) == round(100 * w / norm)
    checked.append(history)

  play_scripted(["--hints", "--opponent", "cfr:30", "--seed", "11", "--hands", "12"],
                on_prompt=check_hints)
  assert len(checked) >= 10 and {"", "p", "b", "pb"} <= set(checked)


def test_referee_announcements_parse_and_bad_ones_re_ask():
  session = Session("--game", "kuhn_poker_referee", "--seat", "0", "--seed", "4", "--hands", "1")
  child = session.child
  child.expect(r"Announce P\(bet\) for J Q K, steps of 1/3 .*> ")
  child.sendline("1/2 0 1")  # Not on the grid of step 1/3.
  child.expect(r"Please type 3 probabilities, one per card, each one of 0, 1/3, 2/3, 1")
  child.expect(r"> ")
  child.sendline("1/3 0")  # Too few.
  child.expect(r"Please type 3 probabilities")
  child.expect(r"> ")
  child.sendline("1/3, 0, 1")
  child.expect(r"You announce bet: J=1/3 Q=0 K=1\.")
  while child.expect([r"Announce P\((?:bet|call)\).*> ", r"Summary"]) == 0:
    child.sendline("2/3 0.0 1")  # Decimals on the grid are fine too.
  assert session.finish() == 0
  out = session.output
  assert "You announce call: J=2/3 Q=0 K=1." in out or "You announce bet: J=2/3" in out or (
      "Opponent announces call" in out)
  # The result is the expected chips under the final belief (the referee game's payoff).
  rules = KuhnRules()
  belief = re.search(r"Final belief\s+(.*?)   \(your card first\)", out).group(1)
  history = "".join("p" if m in ("Check", "Fold") else "b"
                    for m in re.findall(r"The referee draws (\w+)\.", out))
  value = sum(Fraction(p) * Fraction(rules.returns(history, (RANKS.index(a), RANKS.index(b)))[0])
              for a, b, p in re.findall(r"(\w)(\w) (\d+(?:/\d+)?)", belief))
  verdict = re.search(r"Result\s+(you win|you lose|nobody wins) ?(.*)", out)
  sign = {"you win": 1, "you lose": -1, "nobody wins": 0}[verdict.group(1)]
  amount = re.fullmatch(CHIPS + r"?", verdict.group(2).strip() or "0")
  assert sign * chips(amount.group(1), amount.group(2)) == pytest.approx(float(value), abs=1e-12)


REFEREE_HINT = (r"^  (?:Hints)?\s+(\S+(?: \S+)*?)\s+((bet|call): J=(\S+) Q=(\S+) K=(\S+))\s+"
                + CHIPS + r"(?:   best)?$")


def test_referee_hints_show_what_to_type_and_typing_it_is_accepted():
  """Each hint row starts with the announcement as typed (one probability per card, the prompt's
  form), equal to the announcement the row names; typing a row's key announces that row, with no
  re-ask, in both seats (bet and call)."""
  session = Session("--game", "kuhn_poker_referee", "--hints", "--seed", "8", "--hands", "2")
  child = session.child
  typed = []
  while child.expect([r"Announce P\((bet|call)\) for J Q K.*> ", r"Summary"]) == 0:
    verb = child.match.group(1)
    block = session.output.rsplit("  Hints", 1)[1]
    rows = re.findall(REFEREE_HINT, "  Hints" + block, re.M)
    assert len(rows) == 5, block
    for key, _, row_verb, j, q, k, *_ in rows:
      assert row_verb == verb
      assert key.split() == [j, q, k]  # The typed form is the named announcement.
    key, name = rows[-1][:2]  # Not the first row: any row's key must work.
    child.sendline(key)
    child.expect(r"\n  (You announce [^\r\n]*|Please type [^\r\n]*)\r?\n")
    assert child.match.group(1).strip() == f"You announce {name}.", session.output
    typed.append(verb)
  assert session.finish() == 0
  assert set(typed) == {"bet", "call"}
  assert "Please type" not in session.output


@pytest.mark.parametrize("grid", [1, 3])
def test_referee_moves_are_keyed_by_the_typed_form_that_parses_back(grid):
  """Every announcement's key is what the person types for it: ``parse`` reads it back to the
  same action, and the key is the announcement's probabilities per card (its name's)."""
  game = pyspiel.load_game(f"kuhn_poker_referee(grid={grid})")
  view = play_view.view_for(game)
  state = game.new_initial_state()
  moves = view.moves(state)
  assert [m.action for m in moves] == state.legal_actions()
  assert len(moves) == (grid + 1)**3
  for move in moves:
    assert view.parse(state, move.key) == move.action
    numerators = kuhn_poker_referee.decode_announcement(move.action, grid, 3)
    assert move.key == " ".join(str(Fraction(n, grid)) for n in numerators)
    assert move.name == "bet: " + " ".join(f"{c}={v}" for c, v in zip(RANKS, move.key.split()))
  # An action id is not a way to type a move.
  assert view.parse(state, str(moves[-1].action)) is None


@pytest.fixture(scope="module")
def one_hand_after_a_bad_key() -> Session:
  """One hand as player 0 (seed 3): a bad key at the first prompt, then the hand played out. One
  run of the program (about 2 s) for the two tests below."""
  typed = []

  def bad_key_first(session: Session) -> None:
    if not typed:
      session.child.sendline("x")
      session.child.expect(r"Please type one of: c \(Check\), b \(Bet\), or q to quit\.")
      session.child.expect(PROMPT)  # Asked again: the scripted move answers this prompt.
      typed.append("x")

  return play_scripted(["--seed", "3", "--seat", "0", "--hands", "1"], on_prompt=bad_key_first)


def test_one_hand_is_counted_in_the_singular(one_hand_after_a_bad_key):
  out = one_hand_after_a_bad_key.output
  assert "1 hand, always player 0 (first to act); seed 3" in out
  assert "Hand 1 of 1   you are player 0" in out
  assert re.search(r"^  Total\s+[+-]?\d+ after 1 hand \(the 95% interval needs 2 hands\)$", out,
                   re.M)
  assert "Summary (1 hand played: 1 as player 0)" in out
  assert "1 hands" not in out


def test_transcript_in_a_read_only_folder_is_refused_before_the_match(tmp_path):
  folder = tmp_path / "read-only"
  folder.mkdir()
  folder.chmod(0o555)
  command = [sys.executable, "-m", "experiments", "play", "--seed", "1", "--transcript",
             str(folder / "t.txt")]
  if os.geteuid() == 0:  # Root writes anywhere: run the program without that privilege.
    if shutil.which("setpriv") is None:
      pytest.skip("running as root without setpriv to drop CAP_DAC_OVERRIDE")
    command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
  try:
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)
    leftovers = list(folder.iterdir())
  finally:
    folder.chmod(0o755)
  assert done.returncode == 2, done
  assert done.stdout == ""  # Nothing of the game: not even the introduction.
  assert done.stderr == (f"error: --transcript: folder {str(folder)!r} is not writable "
                         "(Permission denied); give a PATH in an existing, writable folder\n")
  assert leftovers == []


def test_transcript_in_a_writable_folder_leaves_only_the_transcript(tmp_path):
  """The up-front check of the folder removes its probe file; the transcript is written."""
  transcript = tmp_path / "t.txt"
  session = Session("--seed", "2", "--hands", "1", "--transcript", str(transcript))
  session.child.expect(PROMPT)
  session.child.sendline("q")
  assert session.finish() == 0
  assert [p.name for p in tmp_path.iterdir()] == ["t.txt"]
  assert "Summary (you quit)" in session.output
  assert "Summary (you quit)" in transcript.read_text()


def test_docs_hints_example_is_the_programs_output():
  """The ``play`` example of docs/experiments.md: its command, run in a terminal, typing the keys
  it shows in the hand it shows (``c`` in any earlier hand), prints exactly its text."""
  docs = (helpers.REPO / "docs" / "experiments.md").read_text()
  found = re.search(r"A hand with hints, the second of `python -m experiments play ([^`]*)`.*?"
                    r"\n```\n(.*?)```", docs, re.S)
  args, shown = shlex.split(found.group(1)), found.group(2)
  number = int(re.match(r"Hand (\d+) of", shown).group(1))
  keys = re.findall(r"\(q quits\) > (\S+)$", shown, re.M)
  session = Session(*args)
  hand = 0
  while True:
    # pexpect compiles patterns with re.DOTALL: "[^\n]*", not ".*", keeps a match on one line.
    index = session.child.expect([r"\nHand (\d+) of", PROMPT, r"\n  Result [^\n]*\n", pexpect.EOF])
    if index == 0:
      hand = int(session.child.match.group(1))
    elif index == 1:
      session.child.sendline(keys.pop(0) if hand == number else "c")
    elif index == 2 and hand == number:
      break
    elif index == 3:
      pytest.fail(f"hand {number} not reached:\n{session.output}")
  session.child.sendline("q")
  session.child.sendeof()
  session.finish()
  printed = re.search(rf"^Hand {number} of .*?\n  Result [^\n]*\n", session.output, re.M | re.S)
  assert keys == []
  assert printed.group(0) == shown


def test_bad_keys_re_ask_with_the_allowed_keys(one_hand_after_a_bad_key):
  # x at the first prompt: the allowed keys, the same prompt again, and the move typed there is
  # played (q typed at a prompt: test_transcript_in_a_writable_folder_leaves_only_the_transcript).
  out = one_hand_after_a_bad_key.output
  found = re.search(r"^  Your move: c=Check  b=Bet  \(q quits\) > x\n"
                    r"  Please type one of: c \(Check\), b \(Bet\), or q to quit\.\n"
                    r"  Your move: c=Check  b=Bet  \(q quits\) > ([cb])\n"
                    r"  You (check|bet)\.\n", out, re.M)
  assert {"c": "check", "b": "bet"}[found.group(1)] == found.group(2)
  assert out.count("Please type") == 1
  assert "Summary (1 hand played: 1 as player 0)" in out


def test_ctrl_c_prints_the_summary_and_exits_130(tmp_path):
  transcript = tmp_path / "t.txt"
  session = Session("--seed", "2", "--hands", "5", "--transcript", str(transcript))
  card = None
  played = 0
  while played < 2:
    index = session.child.expect([r"Your card\s+(\w)", PROMPT, r"Result\s+"])
    if index == 0:
      card = session.child.match.group(1)
    elif index == 1:
      session.child.sendline(kuhn_move(card, session.child.match.group(1)))
    else:
      played += 1
  session.child.expect(PROMPT)
  session.child.sendintr()
  assert session.finish() == 130
  out = session.output
  assert "Traceback" not in out
  assert re.search(r"Summary \(interrupted: 1 as player 0, 1 as player 1\)", out)
  assert re.search(r"You\s+\S+ after 2 hands", out)
  record = transcript.read_text()
  assert len(re.findall(r"^hand \d+ ", record, re.M)) == 2
  assert "summary (interrupted" in record.lower()


def test_ctrl_d_ends_the_match_with_status_0():
  session = Session("--seed", "2", "--hands", "3")
  session.child.expect(PROMPT)
  session.child.sendeof()
  assert session.finish() == 0
  assert "Summary (end of input)" in session.output


@pytest.mark.slow  # 3-6 s: the full suite runs it; the quick subset keeps within 3 minutes.
def test_same_seed_same_deals_whatever_the_person_plays():
  args = ["--seed", "9", "--hands", "6", "--opponent", "uniform"]
  cautious = play_scripted(args, choose=lambda card, keys: "c" if "c=Check" in keys else "f")
  bold = play_scripted(args, choose=lambda card, keys: "b" if "b=" in keys else "c")

  def deals(out):
    return [(re.search(r"Your card\s+(\w)", h).group(1),
             re.search(r"Opponent's card\s+(\w)", h).group(1)) for h in hands_of(out)]

  assert deals(cautious.output) == deals(bold.output)
  assert betting_of(cautious.output) != betting_of(bold.output)


BAD_OPTIONS = [
    (["--opponent", "nobody"], "unknown policy 'nobody'"),
    (["--hands", "0"], "--hands must be a positive integer"),
    (["--game", "no_such_game"], "unknown game 'no_such_game'"),
    (["--seat", "2"], "argument --seat: invalid choice: '2'"),
    (["--game", "tic_tac_toe(x=1)"], "bad game string"),
    # play stays two-player: three-player Kuhn is refused in one line.
    (["--game", "kuhn_poker_ante(players=3)"], "is not a two-player zero-sum sequential game"),
    (["--opponent", "cfr:many"], "ITERATIONS in SOLVER:ITERATIONS must be a positive integer"),
    (["--transcript", "/no/such/folder/t.txt"],
     "--transcript: folder '/no/such/folder' does not exist; give a PATH in an existing"),
    (["--transcript", "/"], "--transcript: '/' is a folder; give a file PATH"),
    (["--max-minutes", "0"], "argument --max-minutes: expected a finite positive number"),
    # The opponent's solver run is estimated first and refused over the budget.
    (["--opponent", "cfr:10000000", "--max-minutes", "1"],
     "the opponent's solver run estimated at"),
]


def test_the_opponents_solver_run_is_estimated_before_it_starts(capsys):
  said = []
  assert play.main(["--opponent", "cfr:10", "--hands", "1", "--seed", "1"], say=said.append,
                   ask=lambda prompt: "q") == 0
  assert re.fullmatch(r"Preparing the opponent \(cfr:10, estimated \d+ s\) and the exact "
                      r"values \.\.\.", said[0])


@pytest.mark.parametrize("args, message", BAD_OPTIONS)
def test_bad_options_give_one_error_line_and_status_2(args, message, capsys):
  """Every refusal through the command line's ``main`` in this process: the program's code path
  from its arguments to the error line, without the 2 s of starting an interpreter."""
  assert cli.main(["play", *args], prog="python -m experiments") == 2
  captured = capsys.readouterr()
  assert captured.err.count("\n") == 1 and captured.err.startswith("error: "), captured.err
  assert message in captured.err


# Each case starts the program (about 2 s): slow. The test above checks every message quick, and
# test_transcript_in_a_read_only_folder_is_refused_before_the_match the real program's status 2
# and single error line.
@pytest.mark.slow
@pytest.mark.parametrize("args, message", BAD_OPTIONS)
def test_the_program_gives_one_error_line_and_status_2(args, message):
  done = subprocess.run([sys.executable, "-m", "experiments", "play", *args], capture_output=True,
                        text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
  assert done.returncode == 2
  assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
  assert message in done.stderr


def test_scoreboard_interval_is_the_normal_one_and_absent_without_spread():
  # The 95% interval mean +- 1.96 s / sqrt(n) (normal approximation, s the sample standard
  # deviation): results +1, -1, +2 have mean 2/3 and s = sqrt(7/3).
  board = play.Scoreboard()
  for result in (1.0, -1.0, 2.0):
    board.add(0, result)
  half = play.Z_95 * math.sqrt(7 / 3) / math.sqrt(3)
  assert board.summary() == (f"+2 after 3 hands: +0.667 per hand, 95% interval "
                             f"[{2 / 3 - half:+.3f}, {2 / 3 + half:+.3f}]")
  same = play.Scoreboard()
  for _ in range(2):
    same.add(1, 1.0)
  assert same.summary().endswith("(no 95% interval while every hand gave the same result)")
