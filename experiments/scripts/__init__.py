"""Stand-alone scripts (benchmarks, diagnostics, the docs generator), each run as
python -m experiments.scripts.NAME."""
