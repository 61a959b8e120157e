"""The imports of the project flow one way: spiel_games <- algorithms <- experiments.

Read from the source with ``ast`` (every ``import`` and ``from ... import``, at module level or
inside a function), nothing is imported to find them. The rules:

* ``spiel_games`` imports neither ``algorithms`` nor ``experiments``;
* ``algorithms`` does not import ``experiments``;
* a command module of ``experiments`` (a subcommand of the CLI: ``cli.EXPERIMENT_MODULES`` and
  ``play``; or a stand-alone script, a module with a ``__main__`` block) imports no other command
  module, and the shared modules of ``experiments`` (arguments, games, jobs, ...) import none;
  only the drivers, ``experiments.cli`` and the modules that run the CLI's commands through it
  (they import ``experiments.cli``), import command modules.
"""

import ast
import pathlib
from typing import Dict, Set

import pytest

from experiments import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("spiel_games", "algorithms", "experiments")
# The layers each package may import (besides itself).
ALLOWED = {"spiel_games": set(), "algorithms": {"spiel_games"},
           "experiments": {"spiel_games", "algorithms"}}


def module_name(path: pathlib.Path) -> str:
  parts = path.relative_to(ROOT).with_suffix("").parts
  return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> Dict[str, ast.Module]:
  """Every module of the three packages, by dotted name, parsed."""
  return {module_name(path): ast.parse(path.read_text(), filename=str(path))
          for package in PACKAGES for path in sorted((ROOT / package).glob("*.py"))}


def imported(name: str, tree: ast.Module) -> Set[str]:
  """The project modules (or packages) that module ``name`` imports, as dotted names.

  ``from P import x`` counts as importing ``P.x`` (a submodule, or a name of ``P``); relative
  imports are resolved against ``name``'s package.
  """
  package = name if name in PACKAGES else name.rpartition(".")[0]
  out = set()
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      out.update(alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
      base = node.module or ""
      if node.level:
        anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
      out.update(f"{base}.{alias.name}" for alias in node.names)
  return {m for m in out if m.split(".")[0] in PACKAGES}


def has_main_block(tree: ast.Module) -> bool:
  """Whether the module ends in ``if __name__ == "__main__":`` (a stand-alone script)."""
  return any(isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)
             for node in tree.body)


def touches(deps: Set[str], module: str) -> bool:
  """Whether ``deps`` imports ``module`` or a name from it."""
  return any(d == module or d.startswith(module + ".") for d in deps)


MODULES = project_modules()
IMPORTS = {name: imported(name, tree) for name, tree in MODULES.items()}
# The modules that run commands: the CLI, and every module that drives it (imports it).
DRIVERS = {cli.__name__} | {name for name, deps in IMPORTS.items() if touches(deps, cli.__name__)}
COMMANDS = (set(cli.EXPERIMENT_MODULES) | {cli.play.__name__}
            | {name for name, tree in MODULES.items()
               if name.startswith("experiments.") and has_main_block(tree)}) - DRIVERS


def test_the_registry_is_read():
  # The CLI's subcommands and the stand-alone scripts, as the CLI and the sources list them.
  assert {"experiments.convergence", "experiments.rebel", "experiments.play",
          "experiments.benchmark_cfr"} <= COMMANDS
  assert {"experiments.cli", "experiments.__main__"} <= DRIVERS
  assert not COMMANDS & {"experiments.games", "experiments.jobs", "experiments.arguments"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_upward_import(name):
  layer = name.split(".")[0]
  upward = sorted(d for d in IMPORTS[name]
                  if d.split(".")[0] not in ALLOWED[layer] | {layer})
  assert not upward, f"{name} (layer {layer}) imports {upward}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES
                                        if n.startswith("experiments") and n not in DRIVERS))
def test_no_experiment_imports_a_command_module(name):
  others = sorted(c for c in COMMANDS - {name} if touches(IMPORTS[name], c))
  assert not others, f"{name} imports the command module(s) {others}"


def test_the_checks_see_an_upward_import():
  tree = ast.parse("from experiments import games\nimport algorithms.game_tree\n"
                   "def f():\n  from . import kuhn_rules\n")
  assert imported("spiel_games.x", tree) == {"experiments.games", "algorithms.game_tree",
                                             "spiel_games.kuhn_rules"}
  assert touches({"experiments.rebel.run"}, "experiments.rebel")
  assert not touches({"experiments.rebel_learned"}, "experiments.rebel")
