"""Shared pytest setup: figures are drawn off-screen, as the command line draws them
(``experiments.cli.main`` selects the Agg backend), whatever display the machine has."""

import matplotlib

matplotlib.use("Agg")
