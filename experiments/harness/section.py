"""The unit every experiment hands to the report: text, tables, figures and reference checks."""

import dataclasses
from typing import List, Optional

from experiments.harness.checks import Check


@dataclasses.dataclass
class ReportSection:
  """An experiment's contribution to the report.

  Attributes:
    title: the section heading.
    markdown: the section's text (may contain markdown tables).
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
