"""The imports of the project flow one way, and no module imports itself through a circle.

Read from the source with ``ast`` (every ``import`` and ``from ... import``, at module level or
inside a function, under ``TYPE_CHECKING`` too); nothing is imported to find them. The rules:

* packages: ``spiel_games`` <- ``algorithms`` <- ``experiments``;
* subpackages of ``algorithms``, each importing only those below it (``LAYERS``):
  ``tree`` and ``file_formats`` <- ``cfr`` and ``exact`` <- ``rebel``; no module of a subpackage
  imports the package's public API (``algorithms/__init__.py``), which imports them;
* ``experiments``: the harness (``experiments.harness``) imports no command, script or the CLI;
  a command (a module or package directly under ``experiments.commands``) or a script
  (``experiments.scripts.*``) imports the harness and its own package only; the drivers (the CLI,
  ``experiments.__main__``, and a script that drives the CLI, i.e. imports it) may import
  commands. Which modules are commands is read from the folders, as the CLI finds them;
* no circle of imports among the project's modules (a package's ``__init__`` included).
"""

import ast
import pathlib
from typing import Dict, List, Set

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("spiel_games", "algorithms", "experiments")
# The layers each package may import (besides itself).
ALLOWED = {"spiel_games": set(), "algorithms": {"spiel_games"},
           "experiments": {"spiel_games", "algorithms"}}
# The subpackages of algorithms and the subpackages each may import (besides itself).
LAYERS = {"algorithms.tree": set(), "algorithms.file_formats": set(),
          "algorithms.cfr": {"algorithms.tree", "algorithms.file_formats"},
          "algorithms.exact": {"algorithms.tree"},
          "algorithms.rebel": {"algorithms.tree", "algorithms.file_formats", "algorithms.cfr",
                               "algorithms.exact"}}
HARNESS, COMMANDS, SCRIPTS = "experiments.harness", "experiments.commands", "experiments.scripts"


def module_name(path: pathlib.Path) -> str:
  parts = path.relative_to(ROOT).with_suffix("").parts
  return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> Dict[str, ast.Module]:
  """Every module of the three packages, subpackages included, by dotted name, parsed."""
  return {module_name(path): ast.parse(path.read_text(), filename=str(path))
          for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


MODULES = project_modules()


def imported(name: str, tree: ast.Module, known=MODULES) -> Set[str]:
  """The project modules that module ``name`` imports, as dotted names.

  ``from P import x`` counts as importing the module ``P.x`` where that is a module, else ``P``
  (a name of ``P``); relative imports are resolved against ``name``'s package.
  """
  is_package = any(n.startswith(name + ".") for n in known) or name in PACKAGES
  package = name if is_package else name.rpartition(".")[0]
  out = set()
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      out.update(alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
      base = node.module or ""
      if node.level:
        anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
      out.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                 for alias in node.names)
  return {m for m in out if m.split(".")[0] in PACKAGES}


def touches(deps: Set[str], module: str) -> bool:
  """Whether ``deps`` imports ``module`` or something inside it."""
  return any(d == module or d.startswith(module + ".") for d in deps)


def unit(name: str) -> str:
  """The command or script ``name`` belongs to (a command package counts as one), else ``name``."""
  parts = name.split(".")
  return ".".join(parts[:3]) if name.startswith((COMMANDS + ".", SCRIPTS + ".")) else name


IMPORTS = {name: imported(name, tree) for name, tree in MODULES.items()}
CLI = "experiments.cli"
UNITS = {unit(n) for n in MODULES if n.startswith((COMMANDS + ".", SCRIPTS + "."))}
DRIVERS = {CLI, "experiments.__main__"} | {n for n in MODULES
                                          if n.startswith(SCRIPTS + ".") and CLI in IMPORTS[n]}


def cycles() -> List[List[str]]:
  """Every circle of imports among the project's modules (one per strongly connected set)."""
  index, low, stack, on_stack, found = {}, {}, [], set(), []

  def visit(v: str) -> None:  # Tarjan's strongly connected components.
    index[v] = low[v] = len(index)
    stack.append(v)
    on_stack.add(v)
    for w in sorted(IMPORTS.get(v, ())):
      if w not in MODULES:
        continue
      if w not in index:
        visit(w)
        low[v] = min(low[v], low[w])
      elif w in on_stack:
        low[v] = min(low[v], index[w])
    if low[v] == index[v]:
      component = []
      while True:
        w = stack.pop()
        on_stack.discard(w)
        component.append(w)
        if w == v:
          break
      if len(component) > 1 or v in IMPORTS.get(v, ()):
        found.append(sorted(component))

  for v in sorted(MODULES):
    if v not in index:
      visit(v)
  return found


def test_the_layout_is_read():
  # The commands as the CLI finds them, the scripts, and the subpackages, from the folders.
  assert {"experiments.commands.convergence", "experiments.commands.rebel",
          "experiments.commands.play", "experiments.commands.rebel_learned",
          "experiments.scripts.benchmark_cfr"} <= UNITS
  assert {CLI, "experiments.__main__", "experiments.scripts.docs"} <= DRIVERS
  assert not any(n.startswith(HARNESS) for n in UNITS)
  assert {n.rpartition(".")[0] for n in MODULES
          if n.startswith("algorithms.") and n.count(".") >= 2} >= set(LAYERS)


def test_the_commands_are_the_clis():
  from experiments import cli  # Imported here: the rest of this file reads sources only.
  found = {m.__name__ for m in cli.command_modules()}
  assert found == {u for u in UNITS if u.startswith(COMMANDS + ".")}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_upward_import(name):
  layer = name.split(".")[0]
  upward = sorted(d for d in IMPORTS[name] if d.split(".")[0] not in ALLOWED[layer] | {layer})
  assert not upward, f"{name} (layer {layer}) imports {upward}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if any(touches({n}, s) for s in LAYERS)))
def test_algorithm_subpackages_import_down(name):
  own = next(s for s in LAYERS if name == s or name.startswith(s + "."))
  bad = sorted(d for d in IMPORTS[name] if d.startswith("algorithms")
               and not touches({d}, own) and not any(touches({d}, s) for s in LAYERS[own]))
  assert not bad, f"{name} ({own}) imports {bad}; it may import {sorted(LAYERS[own])}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith(HARNESS)))
def test_the_harness_imports_no_command(name):
  bad = sorted(d for d in IMPORTS[name] if touches({d}, COMMANDS) or touches({d}, SCRIPTS)
               or d == CLI)
  assert not bad, f"{name} imports {bad}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if unit(n) in UNITS
                                        and n not in DRIVERS))
def test_no_command_imports_another(name):
  others = sorted(u for u in UNITS - {unit(name)} if touches(IMPORTS[name], u))
  assert not others, f"{name} imports the command or script module(s) {others}"
  assert CLI not in IMPORTS[name], f"{name} imports the CLI but is not a driver"


def test_no_test_folder_shadows_a_package():
  # pytest puts tests/ on sys.path (for helpers.py); a folder tests/algorithms would then be
  # imported as a namespace package named algorithms, in place of an editable install's package
  # (with the `pytest` script, whose sys.path lacks the checkout).
  assert not {p.name for p in (ROOT / "tests").iterdir() if p.is_dir()} & set(PACKAGES)


def test_no_import_cycle():
  assert not cycles(), f"circles of imports: {cycles()}"


def test_the_checks_see_a_violation():
  known = {"experiments.harness.game_loader", "algorithms.tree.game_tree", "spiel_games.kuhn_rules"}
  tree = ast.parse("from experiments.harness import game_loader\nimport algorithms.tree.game_tree\n"
                   "def f():\n  from . import kuhn_rules\n")
  assert imported("spiel_games.x", tree, known) == known
  assert touches({"experiments.commands.rebel.run"}, "experiments.commands.rebel")
  assert not touches({"experiments.commands.rebel_learned"}, "experiments.commands.rebel")
  assert unit("experiments.commands.rebel_learned.figures") == "experiments.commands.rebel_learned"
  IMPORTS["algorithms.tree.game_tree"].add("algorithms.tree.tree_layout")  # A circle, added...
  try:
    assert ["algorithms.tree.game_tree", "algorithms.tree.tree_layout"] in cycles()
  finally:  # ... and taken away.
    IMPORTS["algorithms.tree.game_tree"].discard("algorithms.tree.tree_layout")
