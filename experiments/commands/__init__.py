"""The experiments: one module (or package) per command of the CLI, in report order by
REPORT_ORDER. A command imports the harness, never another command."""
