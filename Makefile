# The two commands of the README:
#   make run    -- the main job (experiment suite at its default budget)
#   make test   -- the linter, the reference check and the test suite
# Each creates .venv and installs the project into it on first use.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test venv clean

# Installed once, and again only when pyproject.toml (the dependencies) changes: an edit of this
# Makefile or of the code does not reinstall (the install is editable).
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,learn,gambit]"
	touch $(STAMP)

venv: $(STAMP)

# Every CPU by default (--workers: the CPU count, capped by the available memory).
run: $(STAMP)
	$(PY) -m experiments run $(ARGS)

# The linter on the whole repository (configured in pyproject.toml), then the reference check
# (CI's guard against drift from the golden equilibria, on both cores; its output is shown only if
# it fails), then pytest in one process per core (pytest-xdist's -n auto), whose summary is the
# last line printed. Every step runs; the exit status is 1 if any failed.
test: $(STAMP)
	@status=0; \
	$(PY) -m ruff check --quiet . || status=1; \
	mkdir -p results; \
	$(PY) -m experiments reference-check --quick --workers 2 --out results/ci > results/ci.log 2>&1 \
	  || { cat results/ci.log; status=1; }; \
	$(PY) -m pytest -q -n auto --dist worksteal $(ARGS) || status=1; \
	exit $$status

clean:
	rm -rf $(VENV) results
