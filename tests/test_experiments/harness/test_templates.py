"""Tests of the markdown text templates (experiments.harness.templates): how a file's sections
become texts, how placeholders are filled, and the one-line errors on a file or a call that does
not fit."""

import pytest

from experiments.harness import templates

FILE = """# A command's words

A note before the first template belongs to none.

## plain

A caption wrapped
over three
lines.

## two_paragraphs

First paragraph,
wrapped.

Second one.

## numbers

{rules} rules: {first:.3g} after {iterations:,} iterations, r = {ratio:g}, braces {{kept}}.
"""


@pytest.fixture
def texts():
  return templates.Templates("pkg/captions.md", FILE)


def test_sections_become_texts_with_their_lines_joined(texts):
  assert list(texts) == ["plain", "two_paragraphs", "numbers"]
  assert texts["plain"] == "A caption wrapped over three lines."
  assert texts["two_paragraphs"] == "First paragraph, wrapped.\n\nSecond one."
  assert "note" not in texts and "plain" in texts


def test_placeholders_are_filled_with_their_format_specs(texts):
  assert texts.placeholders("numbers") == ("rules", "first", "iterations", "ratio")
  # The same text as the f-string it replaces.
  rules, first, iterations, ratio = "standard", 0.022727, 20000, 10.0
  assert texts.fill("numbers", rules=rules, first=first, iterations=iterations, ratio=ratio) == (
      f"{rules} rules: {first:.3g} after {iterations:,} iterations, r = {ratio:g}, "
      "braces {kept}.")
  assert texts.fill("numbers", rules="x", first=1, iterations=1, ratio=1).endswith(
      "braces {kept}.")


@pytest.mark.parametrize("call, message", [
    (lambda t: t["missing"],
     "pkg/captions.md: no template 'missing' (it has: plain, two_paragraphs, numbers)"),
    (lambda t: t["numbers"], "pkg/captions.md: template 'numbers' needs a value for first, "
     "iterations, ratio, rules (its placeholders: rules, first, iterations, ratio)"),
    (lambda t: t.fill("numbers", rules="x", first=1, iterations=1),
     "pkg/captions.md: template 'numbers' needs a value for ratio"),
    (lambda t: t.fill("numbers", rule="x", first=1, iterations=1, ratio=1),
     "pkg/captions.md: template 'numbers' needs a value for rules and has no placeholder rule"),
    (lambda t: t.fill("plain", figure="a.png"),
     "pkg/captions.md: template 'plain' has no placeholder figure (its placeholders: none)"),
])
def test_a_missing_template_or_value_is_a_one_line_error(texts, call, message):
  with pytest.raises(ValueError) as error:
    call(texts)
  assert str(error.value).startswith(message)
  assert "\n" not in str(error.value)


@pytest.mark.parametrize("markdown, message", [
    ("## two words\ntext", "pkg/captions.md: '## two words' is not a template heading"),
    ("## a\none\n## a\ntwo", "pkg/captions.md: template 'a' appears twice"),
    ("## a\nthe {plan.deck} cards",
     "pkg/captions.md: template 'a': placeholder {plan.deck} is not a plain name"),
    ("## a\nthe {deck!r} cards",
     "pkg/captions.md: template 'a': placeholder {deck} is not a plain name"),
    ("## a\nthe {deck:{width}} cards",
     "pkg/captions.md: template 'a': placeholder {deck} is not a plain name"),
    ("## a\nan open { brace", "pkg/captions.md: template 'a': "),
])
def test_a_file_that_does_not_fit_is_a_one_line_error(markdown, message):
  with pytest.raises(ValueError) as error:
    templates.Templates("pkg/captions.md", markdown)
  assert str(error.value).startswith(message)
  assert "\n" not in str(error.value)


def test_load_reads_the_file_installed_with_the_package():
  texts = templates.load("experiments.commands.rebel_agent")
  assert texts.source == "experiments/commands/rebel_agent/captions.md"
  assert texts["paper"].startswith("Full-game CFR and fictitious play: ")


def test_a_package_without_the_file_is_a_one_line_error():
  with pytest.raises(ValueError, match=r"^experiments/harness/captions\.md: not found \("):
    templates.load("experiments.harness")
