"""Solvers from outside the project, for the tests of ``reference-check --solver module:Name`` and
``check_solver``: imported only by those names, as another repository's solvers would be."""
