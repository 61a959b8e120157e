"""Leaf solvers for depth-limited CFR: from a leaf public belief state to a continuation policy and
values (exact LP, CFR(k), Hedge, value functions), and their JSON descriptions."""
