"""Learning a PBS value function: the value function, its training data, training with PyTorch and
ReBeL self-play."""
