"""The CFR engine: the compiled kernel, the passes over the tree arrays, update rules, and the
OpenSpiel-compatible solvers built on them (full-width, chance-sampled, batched)."""
