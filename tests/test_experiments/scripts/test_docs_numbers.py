"""Tests of experiments.scripts.docs_numbers: the hand-typed decimal numbers of README.md and
docs/*.md, and the ceiling their total may not rise above."""

import subprocess

import pytest

from experiments.commands import three_player_large
from experiments.scripts import docs
from experiments.scripts import docs_numbers
import helpers

# The committed ceiling of hand-typed decimal numbers in README.md and docs/*.md: the count when
# the ceiling was last lowered. Lower it as pages move their numbers into generated regions (or
# mark them as history); never raise it.
CEILING = 263


def test_hand_typed_numbers_stay_under_the_ceiling():
  counts = docs_numbers.hand_typed_counts(helpers.REPO)
  assert sum(counts.values()) <= CEILING, (
      f"{sum(counts.values())} hand-typed decimal numbers, over the ceiling {CEILING}: put new "
      "numbers in a generated region (experiments/scripts/docs.py) or mark them as history; "
      "per file: python -m experiments.scripts.docs_numbers")


def test_a_decimal_number_is_digits_point_digits():
  text = ("0.0683 and 1.19e-3, ante=2.0, T = 3,000 (1,000), 1/18, 1e-4, v1.2, x1.5, "
          "section 3.2.1, 12.")
  assert docs_numbers.DECIMAL.findall(text) == ["0.0683", "1.19", "2.0", "3.2"]


def test_generated_regions_and_published_tables_are_not_counted(tmp_path):
  (tmp_path / "docs").mkdir()
  (tmp_path / "docs" / "table.md").write_text("| a |\n|---|\n| 1.5 |\n")
  (tmp_path / "docs" / "page.md").write_text(
      "x 0.25\n<!-- generated: t -->\n| a |\n|---|\n| 1.5 |\n<!-- end generated: t -->\n2.5\n")
  (tmp_path / "README.md").write_text("3.5 and 4.5 <!-- not a marker -->\n")
  assert docs_numbers.hand_typed_counts(tmp_path) == {"README.md": 2, "docs/page.md": 2}
  assert docs_numbers.main(["--root", str(tmp_path)]) == 0


def test_the_files_left_out_are_the_tables_the_docs_script_publishes():
  counted = set(docs_numbers.hand_typed_counts(helpers.REPO))
  left_out = {str(p.relative_to(helpers.REPO)) for p in docs.markdown_files(helpers.REPO)} - counted
  assert left_out == {f"docs/{name}" for name in (
      docs.SUMMARY, docs.REFERENCE_CHECK, docs.REBEL_TABLE, docs.THREE_PLAYER_TABLE,
      docs.LARGE_DECK_TABLE, three_player_large.DOCS_TABLE,
      *(markdown for _, markdown, _ in docs.REBEL_AGENT_TABLES.values()))}


def test_bad_root_is_one_error_line(tmp_path, capsys):
  with pytest.raises(SystemExit) as exit_info:
    docs_numbers.main(["--root", str(tmp_path)])
  assert exit_info.value.code == 2 and "no README.md" in capsys.readouterr().err


def test_history_passages_are_not_counted_and_name_a_commit_of_the_repository():
  text = ("a 1.5\n> History, measured at commit 1234abc: 2.5 and 3.5\n> 4.5\n\n> 5.5\n6.5\n"
          "> History, measured at 7.5\n- item 8.5\n\n  > History, measured at commit 1234abc: 9.5\n"
          "  > 10.5\n  11.5\n")
  assert docs_numbers.DECIMAL.findall(docs_numbers.hand_typed(text)) == [
      "1.5", "5.5", "6.5", "7.5", "8.5", "11.5"]
  commits = {commit for path in docs.markdown_files(helpers.REPO)
             for commit, _ in docs_numbers.history_passages(path.read_text()) if commit}
  for commit in commits:  # Each names a commit of this repository's history.
    found = subprocess.run(["git", "-C", str(helpers.REPO), "cat-file", "-e",
                            f"{commit}^{{commit}}"], capture_output=True, check=False)
    assert found.returncode == 0, f"history passage names commit {commit}, not in the repository"
