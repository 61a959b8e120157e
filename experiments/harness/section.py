"""The unit every experiment hands to the report: text, tables, figures and reference checks
(``combine`` joins the sections of a command's parts into one); and the optional dependencies
whose absence leaves checks out (an experiment declares them in ``OPTIONAL_DEPENDENCIES``; the
CLI says on the console which are missing, with the command that installs them)."""

import dataclasses
import importlib.util
from typing import Iterable, List, Optional, Sequence

from experiments.harness.checks import Check


@dataclasses.dataclass
class ReportSection:
  """An experiment's contribution to the report.

  Attributes:
    title: the section heading.
    markdown: the section's text (may contain markdown tables: the report shows the first, its
      key table, and moves a later long one to a file it links, ``report.split_tables``).
    figures: paths of PNG files, relative to the experiment's folder.
    tables: paths of CSV files, relative to the experiment's folder.
    checks: reference checks; the report's pass/fail table collects them.
  """

  title: str
  markdown: str = ""
  figures: List[str] = dataclasses.field(default_factory=list)
  tables: List[str] = dataclasses.field(default_factory=list)
  checks: List[Check] = dataclasses.field(default_factory=list)

  @property
  def passed(self) -> Optional[bool]:
    """True if every check passed, False if one failed, None if there are no checks."""
    if not self.checks:
      return None
    return all(c.passed for c in self.checks)


def paragraphs(texts: Iterable[str]) -> str:
  """A section's markdown from its paragraphs (text, tables, captions): joined by blank lines,
  an empty one adding nothing."""
  return "\n\n".join(t for t in texts if t)


def combine(title: str, sections: Sequence[ReportSection]) -> ReportSection:
  """One section of ``sections`` in order, under ``title`` (their own titles dropped): their
  markdown as paragraphs (``paragraphs``), their figures, tables and checks one after
  another."""
  return ReportSection(
      title=title, markdown=paragraphs(s.markdown for s in sections),
      figures=[f for s in sections for f in s.figures],
      tables=[t for s in sections for t in s.tables],
      checks=[c for s in sections for c in s.checks])


@dataclasses.dataclass(frozen=True)
class OptionalDependency:
  """A package an experiment runs without, leaving out what needs it.

  Attributes:
    module: the module to import, e.g. "torch".
    name: its name for a person, e.g. "PyTorch".
    install: the command that installs it, e.g. "pip install -e '.[learn]'".
    needed_for: what is left out without it, e.g. "the learned value functions and their checks".
  """

  module: str
  name: str
  install: str
  needed_for: str

  def installed(self) -> bool:
    return importlib.util.find_spec(self.module) is not None

  def missing_text(self) -> str:
    """One line: what is missing, what it leaves out, how to install it."""
    return (f"{self.name} is not installed, so {self.needed_for} are left out; install it with "
            f"{self.install}")


# PyTorch: the learned value functions of ReBeL (the ``learn`` extra).
TORCH = OptionalDependency("torch", "PyTorch", "pip install -e '.[learn]'",
                           "the learned value functions and their checks")
