"""Regenerates the README's committed figures and tables in ``docs/``.

  python -m experiments.scripts.docs [--out DIR] [--docs DIR] [--workers N] [--quiet]
  python -m experiments.scripts.docs --tables | --check

runs the main job (``python -m experiments run`` at the default budget, into ``--out``, default
``results/``) and the ReBeL experiment at ``REBEL_ITERATIONS`` iterations (into
``--out``/``REBEL_FOLDER``: the README shows it above the main job's default budget); sweep jobs
already finished there by the same code are reused. When every check of both runs passed, it
copies the figures of ``FIGURES`` into ``--docs`` (default: ``docs/`` of the source checkout;
required when the package is installed, not run from a checkout) and writes four markdown
tables: ``summary.md`` (the main job's summary table), ``reference_check.md`` (the reference
check's pass/fail table, ``pass_fail.csv``), ``rebel_table.md`` (the ReBeL run's
``rebel_table.csv``: exploitability to 3 significant digits, whole iterations per second) and
``three_player_table.md`` (every three-player run: NashConv, slope, values, nearest member), and
copies the large-deck and three-player-large-deck experiments' tables (``large_deck_table.md``,
``three_player_large_deck_table.md``) with the figures. If a
check failed or an experiment crashed, ``docs/`` is left as it was and the exit code is the
failed run's.

Tables in ``README.md`` and ``docs/*.md`` are the code's output: each sits between the lines
``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->``, and ``GENERATORS[NAME]``
produces its text. The cheap ones are computed from the library (the closed-form reference
tables, the three-player family's values, the what-works table, measured on each game; the
solver registry's table; the rule classes and the public API, ``docs_api``, from
``algorithms.cfr.update_rules.RULES`` and ``algorithms.__all__``; every rule's exploitability on
Kuhn and Leduc poker, ``docs_solvers``); the
others copy what the last full run published (``summary``, ``reference-check``,
``rebel-table``) or read it (``headlines``; ``time-to-target``, the table of the committed
``time_to_target.csv``). After publishing, every region is rewritten
(atomically); ``--tables`` only rewrites them, ``--check`` only compares (exit 1 when a region
differs).
"""

import argparse
from fractions import Fraction
import pathlib
import shutil
import sys
import textwrap
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
import pandas as pd
import pyspiel

from algorithms.cfr import solvers
from algorithms.exact import kuhn3_equilibria
from algorithms.exact import kuhn_equilibria
from algorithms.exact import pbs_minimax
from algorithms.exact import sequence_form_lp
from experiments import cli
from experiments.commands import rebel
from experiments.commands import rebel_agent
from experiments.commands import reference_check
from experiments.commands import three_player_large
from experiments.harness import arguments
from experiments.harness import generated_regions
from experiments.harness import provenance
from experiments.harness import references
from experiments.harness import report
from experiments.harness import solver_registry
from experiments.harness import tables
from experiments.scripts import docs_api
from experiments.scripts import docs_solvers
from experiments.scripts import time_to_target
from spiel_games import atomic_file
from spiel_games import cpp_twin

# The checkout's docs/ folder; None in an installed copy (then --docs is required).
_CHECKOUT = provenance.source_checkout()
DEFAULT_DOCS = _CHECKOUT / "docs" if _CHECKOUT is not None else None
REBEL_ITERATIONS = 3000
REBEL_FOLDER = f"rebel-{REBEL_ITERATIONS}"  # Under --out.
# The large-deck experiment's tables, which it writes as markdown: copied with the figures.
LARGE_DECK_TABLE = "large_deck_table.md"
# (folder under --out, file): the figures the docs show, and ``LARGE_DECK_TABLE``.
FIGURES = (
    ("convergence", "convergence_kuhn_poker.png"),
    ("convergence", "convergence_leduc_poker.png"),
    ("three-player", "three_player_nash_conv.png"),
    ("three-player", "three_player_family.png"),
    ("three-player", "three_player_values_kuhn_poker_ante_players=3_ante=2.0.png"),
    ("ante-sweep", "ante_sweep_standard.png"),
    ("ante-sweep", "ante_sweep_simplified.png"),
    ("landscape", "landscape.png"),
    ("landscape", "landscape_equilibrium_map.png"),
    ("rps", "rps_strategies.png"),
    ("rps", "rps_exploitability.png"),
    (f"{REBEL_FOLDER}/{rebel.NAME}", "rebel.png"),
    ("rebel-learned", "rebel_learned_vs_exact.png"),
    ("rebel-learned", "rebel_learned_error.png"),
    ("rebel-learned", "rebel_learned_modified.png"),
    ("rebel-learned", "rebel_learned_self_play.png"),
    ("large-deck", "large_deck_limit.png"),
    ("large-deck", "large_deck_rates.png"),
    ("large-deck", "large_deck_cost.png"),
    ("large-deck", "large_deck_stakes.png"),
    ("large-deck", LARGE_DECK_TABLE),
    ("rebel-agent", "rebel_agent.png"),
    ("rebel-agent", "rebel_agent_error.png"),
    ("rebel-agent", "rebel_agent_self_play.png"),
    ("rebel-agent", "rebel_agent_stakes.png"),
    ("rebel-agent", "rebel_agent_paper_curve.png"),
    (three_player_large.NAME, three_player_large.captions.DECK_FIGURE),
    (three_player_large.NAME, three_player_large.captions.POT_FIGURE),
    (three_player_large.NAME, three_player_large.captions.VALUES_FIGURE),
    (three_player_large.NAME, three_player_large.DOCS_TABLE),
)
SUMMARY = "summary.md"
REFERENCE_CHECK = "reference_check.md"
REBEL_TABLE = "rebel_table.md"
THREE_PLAYER_TABLE = "three_player_table.md"
THREE_PLAYER_RUNS = "three-player/three_player_summary.csv"  # Under --out: every run's result.
# The rebel-agent experiment's tables that docs/rebel.md shows: region name -> (its CSV under
# --out/rebel-agent, the markdown file written into docs/, the CSV as markdown).
REBEL_AGENT_TABLES = {
    "rebel-agent-variants": ("rebel_agent_variants.csv", "rebel_agent_variants.md",
                             lambda frame: rebel_agent.variant_table(frame)),
    "rebel-agent-self-play": ("rebel_agent_self_play_ratios.csv", "rebel_agent_self_play.md",
                              lambda frame: frame),
    "rebel-agent-self-play-timing": ("rebel_agent_self_play_timing.csv",
                                     "rebel_agent_self_play_timing.md", lambda frame: frame),
    "rebel-agent-targets": ("rebel_agent_targets.csv", "rebel_agent_targets.md",
                            lambda frame: frame),
    "rebel-agent-paper-table": ("rebel_agent_paper_table_summary.csv",
                                "rebel_agent_paper_table.md", lambda frame: frame),
}
BENCHMARK = "benchmark.txt"  # The output of experiments.scripts.benchmark_cfr (one run, committed).
# The CPU budget (``--seconds``) of the time-to-target run whose checkpoints docs/ holds
# (``docs_solvers.TIME_TO_TARGET``): a target not reached within it shows as "> 20".
TIME_TO_TARGET_SECONDS = 20


# Generated regions of the markdown files (``generated_regions``): the text between
#   <!-- generated: NAME -->  and  <!-- end generated: NAME -->
# is the output of GENERATORS[NAME], rewritten by ``update_regions`` and compared by
# ``stale_regions``.
markdown_files = generated_regions.markdown_files
# Games of the what-works table: every column is measured on the game by ``what_works_row``.
WHAT_WORKS_GAMES = (
    "kuhn_poker_ante",
    "kuhn_poker_ante(ante=2.0,bet=1.0)",
    "kuhn_poker_ante(simplified=True)",
    "kuhn_poker_ante(deck_size=4)",
    "kuhn_poker_ante(players=3)",
    "kuhn_poker_ante(players=3,ante=2.0)",
    "kuhn_poker_referee(grid=1)",
    "leduc_poker",
)
WHAT_WORKS_ITERATIONS = 10  # CFR iterations of the C++ and our solver in each row.
# (ante, bet) of the closed-form reference tables: one per regime of each rule set, and more.
REFERENCE_STAKES = ((1, 1), (2, 1), (1, 2), (Fraction(1, 4), 1), (1, Fraction(1, 4)),
                    (Fraction(3, 4), 1))


def regions(text: str, where: str = "text") -> List[Tuple[str, int, int]]:
  """``generated_regions.regions`` with the names of ``GENERATORS`` the only ones allowed."""
  return generated_regions.regions(text, GENERATORS, where)


def render(text: str, docs: pathlib.Path, where: str = "text",
           cache: Optional[Dict[str, str]] = None) -> str:
  """``text`` with every generated region's body replaced by its generator's output."""
  cache = {} if cache is None else cache
  pieces, last = [], 0
  for name, start, end in regions(text, where):
    if name not in cache:
      cache[name] = GENERATORS[name](docs).rstrip("\n") + "\n"
    pieces += [text[last:start], cache[name]]
    last = end
  return "".join(pieces) + text[last:]


def _rendered(root: pathlib.Path, docs: pathlib.Path
              ) -> List[Tuple[pathlib.Path, str, str]]:
  """(file, current text, rendered text) for every markdown file under ``root``."""
  cache: Dict[str, str] = {}
  out = []
  for path in markdown_files(root):
    if path.is_file():
      text = path.read_text()
      out.append((path, text, render(text, docs, str(path.relative_to(root)), cache)))
  return out


def update_regions(root: pathlib.Path, docs: pathlib.Path) -> List[pathlib.Path]:
  """Rewrites (atomically) the generated regions of the markdown files under ``root``; returns
  the files that changed."""
  changed = []
  for path, text, rendered in _rendered(root, docs):
    if rendered != text:
      atomic_file.atomic_write_text(path, rendered)
      changed.append(path)
  return changed


def stale_regions(root: pathlib.Path, docs: pathlib.Path) -> List[str]:
  """"FILE: NAME" for every generated region whose text differs from its generator's output."""
  stale = []
  for path, text, rendered in _rendered(root, docs):
    if rendered != text:
      wanted = {(n, rendered[s:e]) for n, s, e in regions(rendered)}
      stale += [f"{path.relative_to(root)}: {n}" for n, s, e in regions(text)
                if (n, text[s:e]) not in wanted]
  return stale


def _fraction(x: Fraction) -> str:
  return str(Fraction(x))


def _zero(x: float) -> str:
  """``x`` to 4 significant digits, or "0 (< 1e-12)" for a rounding residue."""
  return "0 (< 1e-12)" if abs(x) < 1e-12 else f"{x:.4g}"


def _stakes(ante: Fraction, bet: Fraction) -> str:
  return f"({_fraction(ante)}, {_fraction(bet)})"


def _lp_value(ante: Fraction, bet: Fraction, simplified: bool) -> str:
  game = pyspiel.load_game("kuhn_poker_ante", {"ante": float(ante), "bet": float(bet),
                                                "simplified": simplified})
  return f"{sequence_form_lp.solve_game(game).value:.6f}"


def kuhn_reference_standard(docs: pathlib.Path) -> str:
  """The closed-form equilibrium (default member) and value of the standard game at
  ``REFERENCE_STAKES``, beside the sequence-form LP's value."""
  rows = []
  for ante, bet in REFERENCE_STAKES:
    eq = kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified=False)
    rows.append({"(ante, bet)": _stakes(ante, bet), "regime": eq.regime,
                 "value": _fraction(eq.value), "x_J": _fraction(eq.p0_bet[0]),
                 "x_K": _fraction(eq.p0_bet[2]), "c_Q": _fraction(eq.p0_call[1]),
                 "y_J": _fraction(eq.p1_bet[0]), "d_Q": _fraction(eq.p1_call[1]),
                 "LP value": _lp_value(ante, bet, False)})
  return tables.markdown_table(pd.DataFrame(rows))


def kuhn_reference_simplified(docs: pathlib.Path) -> str:
  """As ``kuhn_reference_standard`` for the simplified game (p = bluff J, q = call with Q)."""
  rows = []
  for ante, bet in REFERENCE_STAKES:
    eq = kuhn_equilibria.kuhn_equilibrium(ante, bet, simplified=True)
    rows.append({"(ante, bet)": _stakes(ante, bet), "regime": eq.regime,
                 "value": _fraction(eq.value), "p": _fraction(eq.p0_bet[0]),
                 "q": _fraction(eq.p1_call[1]), "LP value": _lp_value(ante, bet, True)})
  return tables.markdown_table(pd.DataFrame(rows))


def kuhn3_family_values(docs: pathlib.Path) -> str:
  """Players' values of members of the three-player family at beta = 0 and 1/4, exact, with
  OpenSpiel's NashConv of each member on ``kuhn_poker(players=3)``."""
  game = pyspiel.load_game("kuhn_poker(players=3)")
  members = [("c11=0", kuhn3_equilibria.kuhn3_equilibrium()),
             ("c11=0", kuhn3_equilibria.kuhn3_equilibrium(b11=0, b21=Fraction(1, 4))),
             ("c11=1/2", kuhn3_equilibria.kuhn3_equilibrium(c11=Fraction(1, 2),
                                                            b11=Fraction(1, 4), b21=0))]
  rows = []
  for sub_family, member in members:
    rows.append({"sub-family": sub_family, "b11": _fraction(member.b11),
                 "b21": _fraction(member.b21), "beta": _fraction(member.beta),
                 "values (P1, P2, P3)": ", ".join(_fraction(v) for v in member.values),
                 "OpenSpiel NashConv": _zero(exploitability.nash_conv(game, member.policy(game)))})
  return tables.markdown_table(pd.DataFrame(rows))


def _reference_cell(game: pyspiel.Game) -> str:
  """What exact reference the project has for ``game``, with its value(s)."""
  if game.get_type().short_name == "kuhn_poker_referee":
    return f"expectiminimax over announcements (`pbs_minimax`): {pbs_minimax.root_value(game)}"
  try:
    reference = references.reference_equilibrium(game)
  except ValueError:
    return "none known (NashConv measured)"
  if reference.values:
    return (f"{reference.source}: (" + ", ".join(_fraction(Fraction(v).limit_denominator(1000))
                                             for v in reference.values) + ")")
  if reference.source == "closed form":
    rules = references.kuhn_rules_of(game)
    value = kuhn_equilibria.game_value(rules.ante, rules.bet, rules.simplified)
    return f"closed form: {_fraction(value)}"
  return f"{reference.source}: {reference.value:.6f}"


def what_works_row(game_string: str) -> Dict[str, str]:
  """One row of the what-works table, every cell measured on the game: its number of players;
  OpenSpiel's C++ CFR run ``WHAT_WORKS_ITERATIONS`` iterations and C++ NashConv of its average;
  the engine's ``CFRSolver`` after as many iterations, compared with it; the C++ twin's NashConv of
  the uniform policy against OpenSpiel's Python NashConv on the game; the exact reference."""
  game = pyspiel.load_game(game_string)
  cpp = pyspiel.CFRSolver(game)
  ours = solvers.CFRSolver(game)
  for _ in range(WHAT_WORKS_ITERATIONS):
    cpp.evaluate_and_update_policy()
    ours.evaluate_and_update_policy()
  cpp_nash_conv = pyspiel.nash_conv(game, cpp.tabular_average_policy())
  same = abs(ours.nash_conv() - cpp_nash_conv) <= 1e-9
  twin = cpp_twin.CppTwin(game)
  uniform = policy_lib.TabularPolicy(game)
  twin_uniform = policy_lib.python_policy_to_pyspiel_policy(twin.to_twin_policy(uniform))
  twin_same = abs(pyspiel.nash_conv(twin.twin, twin_uniform)
                  - exploitability.nash_conv(game, uniform)) <= 1e-12
  return {"game": f"`{game_string}`", "players": str(game.num_players()),
          "OpenSpiel C++ CFR, NashConv": f"yes ({cpp_nash_conv:.4g} after "
                                         f"{WHAT_WORKS_ITERATIONS} it.)",
          "our CFR engine": "yes, = C++ CFR" if same else "yes, differs from C++ CFR",
          "C++ twin": "yes, same NashConv" if twin_same else "NashConv differs",
          "exact reference": _reference_cell(game)}


def what_works(docs: pathlib.Path) -> str:
  """The what-works table: one ``what_works_row`` per game of ``WHAT_WORKS_GAMES``."""
  return tables.markdown_table(pd.DataFrame([what_works_row(g) for g in WHAT_WORKS_GAMES]))


def _markdown_rows(text: str) -> List[Dict[str, str]]:
  """The rows of the first markdown table in ``text`` as {column: cell}."""
  lines = [line for line in text.splitlines() if line.startswith("|")]
  cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
  return [dict(zip(cells[0], row)) for row in cells[2:]]


def headlines(docs: pathlib.Path) -> str:
  """The README's headline numbers, read from the tables the last full run published
  (``SUMMARY``, ``REBEL_TABLE``, rebel-agent's self-play ratios) and from the benchmark's output
  (``BENCHMARK``)."""
  summary = _markdown_rows((docs / SUMMARY).read_text())
  passed = [tuple(int(x.replace(",", "")) for x in row["checks passed"].split("/"))
            for row in summary]  # Counts may carry thousands separators ("1,712/1,712").
  rebel = _markdown_rows((docs / REBEL_TABLE).read_text())
  rebel_rows = {(r["game"], r["depth"], r["algorithm"], r["weighting"]): r for r in rebel}
  last = [c for c in rebel[0] if c.startswith("T=")][-1]
  full, avg, mod = (rebel_rows[("kuhn_poker", depth, algorithm, "uniform")][last] for depth,
                    algorithm in (("full", "CFR (full game)"), ("1", "CFR-AVG"),
                                  ("1", "modified CFR-AVG")))
  targets = {r["what"]: r["measured"] for r in _markdown_rows(
      (docs / BENCHMARK).read_text().split("## Targets", 1)[1])}
  self_play = [r for r in _markdown_rows((docs / REBEL_AGENT_TABLES["rebel-agent-self-play"][1])
                                         .read_text())
               if r["targets"] == rebel_agent.self_play.BOOTSTRAPPED]
  lines = [
      f"- **{sum(p for p, _ in passed):,} of {sum(n for _, n in passed):,} checks passed** in the "
      f"last full run of the {len(summary)} experiments ([summary](docs/experiments.md"
      "#results-at-the-default-budget)): every solver against the closed forms, the LP and "
      "the three-player family; our CFR and CFR+ equal to OpenSpiel's.",
      f"- **ReBeL**: on `kuhn_poker`, CFR-AVG with a depth-1 cut reaches exploitability {avg} "
      f"after {int(last[2:]):,} iterations (full-game CFR: {full}); ReBeL's modified CFR-AVG "
      f"stalls at {mod}, and [docs/rebel_history.md](docs/rebel_history.md) explains why.",
      "- **ReBeL that learns by itself** (self-play, the network at every leaf, "
      "[docs/rebel.md](docs/rebel.md)): learned / exact-leaf agent after the last round, "
      + "; ".join(f"{r['deck']} cards at T = {r['T']}: median {r['learned / exact, median']}, "
                  f"worst {r['learned / exact, worst']} over {r['seeds']} seeds"
                  for r in self_play) + ".",
      f"- **Speed** (one run, [docs/benchmark.md](docs/benchmark.md)): vanilla CFR on "
      f"`kuhn_poker` {targets['kuhn_poker, vanilla CFR it/s']}; on `leduc_poker` "
      f"{targets['leduc_poker, vanilla CFR it/s']}.",
  ]
  return "\n".join(textwrap.fill(line, width=100, subsequent_indent="  ",
                                 break_long_words=False, break_on_hyphens=False)
                   for line in lines)


def solver_registry_table(docs: pathlib.Path) -> str:
  """Every solver of ``solver_registry.SOLVERS``: its name (``--solver``), label, class and
  options, and whether it is sampled, is the project's (runs on its engines, ``SolverSpec.ours``),
  its batched class (``SolverSpec.batch``) and whether it is in the default report."""
  def yes(flag: bool) -> str:
    return "yes" if flag else ""
  rows = [{"--solver": f"`{name}`", "label": spec.label,
           "class": f"`{spec.cls.__module__}.{spec.cls.__qualname__}`",
           "options": ", ".join(f"{k}={v}" for k, v in spec.options.items()),
           "sampled": yes(spec.sampled), "ours": yes(spec.ours),
           "batched": f"`{spec.batch.__name__}`" if spec.batch else "",
           "in report": yes(spec.in_report)}
          for name, spec in solver_registry.SOLVERS.items()]
  return tables.markdown_table(pd.DataFrame(rows))


def time_to_target_table(docs: pathlib.Path) -> str:
  """docs/benchmark.md's time-to-target table: ``time_to_target.summary`` (per game and solver,
  the median over seeds of the CPU seconds to each target) of the committed checkpoints,
  ``docs/TIME_TO_TARGET``, as ``--from-csv`` writes it."""
  frame = time_to_target.merged([docs / docs_solvers.TIME_TO_TARGET])
  return tables.markdown_table(time_to_target.summary(frame, TIME_TO_TARGET_SECONDS))


def _published(name: str) -> Callable[[pathlib.Path], str]:
  """The table ``publish`` wrote to ``docs/NAME``, as a generator."""
  def read(docs: pathlib.Path) -> str:
    return (docs / name).read_text()
  return read


GENERATORS: Dict[str, Callable[[pathlib.Path], str]] = {
    "what-works": what_works,
    "headlines": headlines,
    "solver-registry": solver_registry_table,
    "rule-classes": docs_api.rule_classes_table,
    "public-api": docs_api.public_api_table,
    "rule-exploitability": docs_solvers.rule_exploitability_table,
    "time-to-target-headline": docs_solvers.time_to_target_headline,
    "time-to-target": time_to_target_table,
    "kuhn-reference-standard": kuhn_reference_standard,
    "kuhn-reference-simplified": kuhn_reference_simplified,
    "kuhn3-family-values": kuhn3_family_values,
    "summary": _published(SUMMARY),
    "reference-check": _published(REFERENCE_CHECK),
    "rebel-table": _published(REBEL_TABLE),
    "three-player-table": _published(THREE_PLAYER_TABLE),
    "large-deck-table": _published(LARGE_DECK_TABLE),
    "three-player-large-deck-table": _published(three_player_large.DOCS_TABLE),
    **{name: _published(markdown) for name, (_, markdown, _) in REBEL_AGENT_TABLES.items()},
}


def publish(results: pathlib.Path, docs: pathlib.Path) -> None:
  """Copies the figures and writes the three tables from the results folder ``results`` to
  ``docs``.

  Raises:
    ValueError: if a figure or a table is missing from ``results``.
  """
  sources = [results / folder / name for folder, name in FIGURES]
  table = results / reference_check.NAME / reference_check.PASS_FAIL_TABLE
  rebel_table = results / REBEL_FOLDER / rebel.NAME / "rebel_table.csv"
  three_player = results / THREE_PLAYER_RUNS
  agent_tables = [results / rebel_agent.NAME / csv for csv, _, _ in REBEL_AGENT_TABLES.values()]
  missing = [str(p) for p in [*sources, table, rebel_table, three_player, *agent_tables]
             if not p.is_file()]
  if missing:
    raise ValueError(f"not in the results folder {results}: {', '.join(missing)}")
  docs.mkdir(parents=True, exist_ok=True)
  for source in sources:
    atomic_file.atomic_write(docs / source.name,
                             lambda tmp, source=source: shutil.copyfile(source, tmp))
  order = [m.NAME for m in cli.experiment_modules()]
  atomic_file.atomic_write_text(
      docs / SUMMARY, report.summary_table(report.load_sections(results, order)) + "\n")
  pass_fail = pd.read_csv(table, dtype=str, keep_default_na=False)
  atomic_file.atomic_write_text(docs / REFERENCE_CHECK, tables.markdown_table(pass_fail) + "\n")
  speeds = pd.read_csv(rebel_table)
  speeds["it/s"] = speeds["it/s"].round().astype(int)  # Whole numbers, not 1.44e+04.
  atomic_file.atomic_write_text(docs / REBEL_TABLE,
                                tables.markdown_table(speeds, digits=3) + "\n")
  runs_3p = pd.read_csv(three_player, keep_default_na=False)
  atomic_file.atomic_write_text(docs / THREE_PLAYER_TABLE,
                                tables.markdown_table(runs_3p, digits=4) + "\n")
  for source, (_, markdown, shape) in zip(agent_tables, REBEL_AGENT_TABLES.values()):
    atomic_file.atomic_write_text(docs / markdown, tables.markdown_table(
        shape(pd.read_csv(source, keep_default_na=False)), digits=3) + "\n")


def runs(out: pathlib.Path, workers: int, quiet: bool) -> Sequence[Sequence[str]]:
  """The command lines (``cli.main`` arguments) whose results ``publish`` reads."""
  common = ["--workers", str(workers)] + (["--quiet"] if quiet else [])
  return (["run", "--out", str(out), *common],
          [rebel.NAME, "--iterations", str(REBEL_ITERATIONS), "--out",
           str(out / REBEL_FOLDER), *common])


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs the main job and the ReBeL run, publishes, and rewrites the generated regions; or,
  with ``--tables``, only rewrites the regions; with ``--check``, only compares them. Returns
  the exit code (that of a run that did not pass; 1 for stale regions; 2 for errors)."""
  parser = argparse.ArgumentParser(prog="python -m experiments.scripts.docs",
                                   description=__doc__.splitlines()[0])
  parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(arguments.DEFAULT_OUT),
                      metavar="DIR", help=f"results folder (default: {arguments.DEFAULT_OUT})")
  parser.add_argument("--docs", type=pathlib.Path, default=DEFAULT_DOCS, metavar="DIR",
                      help="where the figures and tables go; README.md is read from its parent "
                      "(default: " + (f"{DEFAULT_DOCS})" if DEFAULT_DOCS
                                      else "none outside a source checkout)"))
  parser.add_argument("--workers", type=arguments.positive_int, default=1, metavar="N",
                      help="process-pool size for sweeps (default: 1)")
  parser.add_argument("--quiet", action="store_true",
                      help="one line per experiment, no progress bars")
  mode = parser.add_mutually_exclusive_group()
  mode.add_argument("--tables", action="store_true",
                    help="run nothing: only rewrite the generated regions of README.md and "
                    "docs/*.md from the code's output and the published tables")
  mode.add_argument("--check", action="store_true",
                    help="run nothing, write nothing: exit 1 if a generated region of README.md "
                    "or docs/*.md differs from what the code produces")
  args = parser.parse_args(argv)
  if args.docs is None:
    parser.error("--docs DIR is required: this is an installed copy, not a source checkout")
  root = args.docs.parent
  try:
    if args.check:
      stale = stale_regions(root, args.docs)
      for entry in stale:
        print(f"{parser.prog}: stale generated region {entry}", file=sys.stderr)
      if stale:
        print(f"{parser.prog}: error: {len(stale)} generated regions differ from the code's "
              f"output; rewrite them with '{parser.prog} --tables'", file=sys.stderr)
        return 1
      print("every generated region matches the code's output")
      return 0
    if not args.tables:
      for command in runs(args.out, args.workers, args.quiet):
        status = cli.main(list(command))
        if status != 0:
          print(f"{parser.prog}: error: 'python -m experiments {command[0]}' did not pass; "
                f"{args.docs} left unchanged", file=sys.stderr)
          return status
      publish(args.out, args.docs)
      print(f"updated {args.docs}: {', '.join(n for _, n in FIGURES)}, {SUMMARY}, "
            f"{REFERENCE_CHECK}, {REBEL_TABLE}, {THREE_PLAYER_TABLE}")
    changed = update_regions(root, args.docs)
  except ValueError as e:
    print(f"{parser.prog}: error: {e}", file=sys.stderr)
    return 2
  except OSError as e:
    print(f"{parser.prog}: error: cannot write {e.filename or args.docs} ({e.strerror or e})",
          file=sys.stderr)
    return 2
  print("generated regions rewritten in: "
        + (", ".join(str(p.relative_to(root)) for p in changed) or "none (all up to date)"))
  return 0


if __name__ == "__main__":
  sys.exit(main())
