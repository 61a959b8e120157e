"""Tests of experiments.harness.plotting: solver styles, the figure description and its legend
check."""

import dataclasses

import matplotlib.colors
import matplotlib.text
import numpy as np

from algorithms.cfr import update_rules
from experiments.harness import plotting
from experiments.harness import solver_registry


def test_every_registered_solver_has_one_style_and_report_solvers_differ():
  styles = {name: plotting.solver_style(name) for name in solver_registry.available_solvers()}
  for name, style in styles.items():
    assert matplotlib.colors.is_color_like(style["color"]) and style["linestyle"], name
  # Colour is the algorithm's: OpenSpiel's CFR, its C++ CFR and ours share it, and differ in look.
  assert styles["cfr"]["color"] == styles["our_cfr"]["color"] == styles["cfr_cpp"]["color"]
  assert styles["cfr_plus"]["color"] == styles["our_cfr_plus"]["color"]
  looks = {(styles[n]["linestyle"], styles[n].get("marker")) for n in ("cfr", "our_cfr", "cfr_cpp")}
  assert len(looks) == 3
  # The solvers of the default report are told apart by colour, line style or marker.
  report = [(styles[n]["color"], styles[n]["linestyle"], styles[n].get("marker"))
            for n in solver_registry.report_solvers()]
  assert len(set(report)) == len(report)
  # CFR-AVG settings: colour by algorithm, solid for uniform, dashed for linear averaging.
  assert styles["cfr_avg_d1"]["linestyle"] == "-"
  assert styles["cfr_avg_d1_linear"]["linestyle"] == "--"
  assert styles["cfr_avg_d1"]["color"] == styles["cfr_avg_d2_linear"]["color"]
  assert styles["cfr_d_d1"]["color"] != styles["cfr_avg_d1"]["color"]
  # PCFR+, DCFR+ and PDCFR+: one colour each, none another algorithm's.
  new_rules = {styles[n]["color"] for n in ("our_pcfr_plus", "our_dcfr_plus", "our_pdcfr_plus")}
  others = {styles[n]["color"] for n in ("our_cfr", "our_cfr_plus", "our_dcfr", "our_lcfr")}
  assert len(new_rules) == 3 and not new_rules & others
  # The four MCCFR implementations share MCCFR's colour and differ in look.
  mccfr = ("mccfr_external", "mccfr_outcome", "mccfr_external_cpp", "mccfr_outcome_cpp",
           "our_mccfr_external", "our_mccfr_outcome")
  assert len({styles[n]["color"] for n in mccfr}) == 1
  assert len({(styles[n]["linestyle"], styles[n].get("marker")) for n in mccfr}) == len(mccfr)


def test_every_palette_colour_is_distinct():
  assert len({matplotlib.colors.to_hex(c) for c in plotting.PALETTE}) == len(plotting.PALETTE)
  algorithm_colors = [matplotlib.colors.to_hex(c) for a, c in plotting.ALGORITHM_COLORS.items()
                      if a != "CFR (full game)"]  # Full-game CFR is CFR.
  assert len(set(algorithm_colors)) == len(algorithm_colors)


def _figure(legend_outside: bool):
  fig, axes = plotting.subplots(1, 2, figsize=(8, 3.5))
  x = np.arange(1, 101, dtype=float)
  for ax in axes[0]:
    ax.plot(x, 1 / x, label="a")
    ax.plot(x, 1 / np.sqrt(x), label="b")
    plotting.log_log(ax, "iterations T", "exploitability", yunit="chips per hand")
  if legend_outside:
    plotting.legend_below(fig, ncol=2)
  else:
    axes[0][0].legend(loc="center")
  return fig


def test_describe_figure_finds_a_legend_over_the_data():
  inside = plotting.describe_figure(_figure(legend_outside=False))
  assert [legend["overlaps"] for legend in inside["legends"]] == [[0]]
  outside = plotting.describe_figure(_figure(legend_outside=True))
  assert [(legend["entries"], legend["overlaps"]) for legend in outside["legends"]] == [
      (["a", "b"], [])]
  # Below the axes: the legend's top is under both axes' bottoms (figure fractions).
  assert outside["legends"][0]["bbox"][3] <= min(a["bbox"][1] for a in outside["axes"])
  axes = outside["axes"][0]
  assert axes["xlabel"] == "iterations T (log scale)"
  assert axes["ylabel"] == "exploitability (chips per hand, log scale)"
  assert axes["styles"]["a"]["color"] == matplotlib.colors.to_hex(plotting.PALETTE[0])


def test_same_curve_tolerance():
  assert plotting.same_curve([0.5, 0.1], [0.5 + 1e-12, 0.1])
  assert not plotting.same_curve([0.5, 0.1], [0.5 + 1e-6, 0.1])
  assert not plotting.same_curve([0.5, 0.1], [0.5])


def test_regime_strip_is_above_the_axes():
  fig, axes = plotting.subplots(1, 1)
  ax = axes[0][0]
  ax.plot([0.1, 4.0], [0.0, 1.0])
  ax.set_xscale("log")
  ax.set_xlim(0.08, 4.0)
  plotting.mark_regimes(ax, [0.5, 1.0], ["low", "middle", "high"], ["r=1/2", "r=1"])
  fig.draw_without_rendering()
  # The text's own box (an annotation's box would include its connecting stroke).
  texts = {t.get_text(): matplotlib.text.Text.get_window_extent(t) for t in ax.texts}
  assert set(texts) == {"low", "middle", "high", "r=1/2", "r=1"}
  top = ax.get_window_extent().y1
  assert all(box.y0 >= top for box in texts.values())  # Outside the data area.
  assert texts["r=1/2"].y0 >= texts["middle"].y1 - 1  # Boundary names over the regime names.


def test_a_new_solver_needs_no_plotting_entry(monkeypatch):
  # A registry entry alone: its colour from the entry (or its algorithm's), the project's look.
  spec = dataclasses.replace(solver_registry.get_solver("our_mccfr_external"), name="our_new",
                             algorithm="new algorithm", color="#117733")
  monkeypatch.setitem(solver_registry.SOLVERS, spec.name, spec)
  style = plotting.solver_style(spec.name)
  assert style["color"] == "#117733" and style["marker"] == "o" and style["linestyle"] == "--"
  monkeypatch.setitem(solver_registry.SOLVERS, spec.name, dataclasses.replace(spec, color=None))
  assert plotting.solver_style(spec.name)["color"] == "0.3"  # an algorithm without a colour


def test_a_new_rule_takes_its_own_colour_not_its_familys(monkeypatch):
  """Issue 36: a rule added to ``update_rules.RULES`` with a registry entry whose algorithm is
  "CFR+" used to take CFR+'s colour in every figure; it takes a colour of its own."""
  cfr_plus = update_rules.RULES[1]
  new_rules = [dataclasses.replace(cfr_plus, name=f"NewRule{i}", extends="CFRPlus")
               for i in range(2)]
  monkeypatch.setattr(update_rules, "RULES", (*update_rules.RULES, *new_rules))
  for i, rule in enumerate(new_rules):
    cls = type(f"NewRule{i}Solver", (solver_registry.get_solver("our_cfr_plus").cls,),
               {"named_rule": rule})
    spec = dataclasses.replace(solver_registry.get_solver("our_cfr_plus"), name=f"our_new_{i}",
                               cls=cls, algorithm="CFR+")
    monkeypatch.setitem(solver_registry.SOLVERS, spec.name, spec)
  colors = [plotting.solver_style(f"our_new_{i}")["color"] for i in range(2)]
  known = {plotting.solver_style(n)["color"] for n in solver_registry.available_solvers()
           if not n.startswith("our_new_")}
  assert len(set(colors)) == 2 and not set(colors) & known
  assert all(matplotlib.colors.is_color_like(c) for c in colors)
  # The rules listed keep their colours: OpenSpiel's CFR+ and ours share one.
  ours, openspiel = (plotting.solver_style(n)["color"] for n in ("our_cfr_plus", "cfr_plus"))
  assert ours == openspiel == plotting.BLUE
