"""The unit every experiment hands to the report: text, tables, figures and reference checks."""

import dataclasses
from typing import List, Optional


@dataclasses.dataclass
class Check:
  """One number compared with an independent reference.

  Attributes:
    name: what is compared, e.g. "value kuhn_poker_ante(ante=2.0) cfr".
    value: the measured number.
    reference: the reference number.
    tolerance: the allowed absolute difference.
    source: where the reference comes from, e.g. "closed form", "sequence-form LP".
  """

  name: str
  value: float
  reference: float
  tolerance: float
  source: str

  @property
  def passed(self) -> bool:
    return abs(self.value - self.reference) <= self.tolerance


@dataclasses.dataclass
class ReportSection:
  """An experiment's contribution to the report.

  Attributes:
    title: the section heading.
    markdown: the section's text (may contain markdown tables).
    figures: paths of PNG files, relative to the results folder.
    tables: paths of CSV files, relative to the results folder.
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
