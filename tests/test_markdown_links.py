"""Every relative link, image and repository path named in README.md and docs/*.md exists.

Links are checked the way GitHub renders them: a target relative to the file's folder, and an
anchor (``#...``) against the slugs of the target's headings (lower case, punctuation other than
``-`` and ``_`` dropped, spaces turned into ``-``). Paths in code spans that start with a top
folder of the repository (``algorithms/...``) must exist too.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_CODE_PATH = re.compile(r"`((?:spiel_games|algorithms|experiments|tests|docs)/[\w./-]*)`")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
  """GitHub's anchor of a heading."""
  text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
  return text.replace(" ", "-")


def anchors(path: pathlib.Path) -> set:
  text = _FENCE.sub("", path.read_text())
  return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}


def links(path: pathlib.Path):
  text = _FENCE.sub("", path.read_text())
  return [m.group(1) for m in _LINK.finditer(text)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
  bad = []
  for target in links(path):
    if re.match(r"^[a-z]+:", target):
      continue  # http:, https:, mailto:
    file_part, _, anchor = target.partition("#")
    resolved = (path.parent / file_part).resolve() if file_part else path
    if not resolved.exists():
      bad.append(f"{target}: no such file")
    elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
      bad.append(f"{target}: no heading with anchor #{anchor}")
  assert not bad, bad


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_repository_paths_in_code_spans_exist(path):
  missing = [p for p in _CODE_PATH.findall(path.read_text()) if not (ROOT / p).exists()]
  assert not missing, missing


def test_slug_follows_github():
  assert slug("C++ twins and `.efg` export (`spiel_games/cpp_twin.py`)") == (
      "c-twins-and-efg-export-spiel_gamescpp_twinpy")
  assert slug("What works with it") == "what-works-with-it"


def test_a_broken_link_is_found(tmp_path):
  page = tmp_path / "page.md"
  page.write_text("# Title\n\n[x](missing.md) [y](#title) ![z](#nope)\n\n"
                  "```\n[w](in-code.md)\n```\n")
  assert links(page) == ["missing.md", "#title", "#nope"]
  assert "title" in anchors(page) and "nope" not in anchors(page)
