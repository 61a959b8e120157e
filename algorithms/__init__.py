"""CFR solvers, exact equilibria and exploitability for two-player zero-sum OpenSpiel games."""
