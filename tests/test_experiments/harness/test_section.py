"""Tests of a command's parts joined into one report section (experiments.harness.section.combine)
and of the files a part writes, recorded as written (experiments.harness.outputs.Outputs)."""

import matplotlib.pyplot as plt
import pandas as pd

from experiments.harness import plotting
from experiments.harness import section
from experiments.harness.checks import Check
from experiments.harness.outputs import Outputs
from experiments.harness.section import ReportSection


def _check(name):
  return Check(name, 1.0, 1.0, 0.0, "exact")


def test_combine_joins_the_parts_in_order_under_one_title():
  first = ReportSection("a", "Intro.", ["a.png"], ["a.csv", "b.csv"], [_check("a")])
  files_only = ReportSection("b", "", [], ["c.csv"], [])
  last = ReportSection("c", "**Key.**\n\n| x |", ["c.png"], [], [_check("c1"), _check("c2")])
  joined = section.combine("all", [first, files_only, last])
  # An empty markdown adds no blank paragraph; the parts' titles are dropped.
  assert joined.title == "all"
  assert joined.markdown == "Intro.\n\n**Key.**\n\n| x |"
  assert joined.figures == ["a.png", "c.png"]
  assert joined.tables == ["a.csv", "b.csv", "c.csv"]
  assert [c.name for c in joined.checks] == ["a", "c1", "c2"]
  assert section.combine("none", []) == ReportSection("none")


def test_paragraphs_are_joined_by_one_blank_line_and_empty_ones_add_nothing():
  assert section.paragraphs(["Intro.", "", "| x |\n|---|", "Caption."]) == (
      "Intro.\n\n| x |\n|---|\n\nCaption.")
  assert section.paragraphs([]) == ""


def test_outputs_write_each_file_and_name_it_once_in_order(tmp_path):
  files = Outputs(tmp_path)
  frame = pd.DataFrame({"k": [1, 2], "v": [0.5, 0.25]})
  assert files.table(frame, "second.csv") is frame
  files.table(frame.head(1), "first.csv")
  fig, axes = plt.subplots()
  axes.plot([0, 1], [1, 0])
  files.figure(fig, "curve.png")
  pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "second.csv"), frame)
  assert len(pd.read_csv(tmp_path / "first.csv")) == 1
  assert plotting.read_figure_summary(tmp_path / "curve.png")["axes"]
  found = files.section("t", ["Intro.", "Caption."], [_check("x")])
  assert (found.title, found.markdown) == ("t", "Intro.\n\nCaption.")
  assert found.tables == ["second.csv", "first.csv"] and found.figures == ["curve.png"]
  assert [c.name for c in found.checks] == ["x"]
  files.table(frame, "third.csv")  # A later file is not added to a section already made.
  assert found.tables == ["second.csv", "first.csv"]
