"""The harness every experiment shares: arguments, game loading, the solver registry, jobs and
executors, exact references and checks, measures, tables, plots, the report and provenance."""
