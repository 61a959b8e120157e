"""Exact references: closed-form Kuhn equilibria, the three-player Kuhn family, the sequence-form
LP, exact NashConv in fractions, regret bounds and the referee game's expectiminimax."""
