"""ReBeL's agent: a depth-limited search at every public state it reaches, and its exact
behaviour strategy."""
