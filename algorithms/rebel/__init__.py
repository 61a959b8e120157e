"""ReBeL (Brown et al., NeurIPS 2020): the depth-limited public-state cut, CFR-AVG / CFR-D, leaf
solvers and the learned PBS value function."""
