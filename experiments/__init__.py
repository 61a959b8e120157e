"""Experiments: convergence, reference checks, sweeps and reports."""
