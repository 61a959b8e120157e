# The two commands of the README:
#   make run    -- the main job (experiment suite at its default budget)
#   make test   -- the linter, the reference check and the test suite
# Each creates .venv and installs the project into it on first use.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The paths `ruff check` covers (configured in pyproject.toml). To be widened to the whole
# repository (`.`) once the other packages are clean under it.
LINT_PATHS := experiments tests/test_experiments_*.py tests/test_properties.py

.PHONY: run test venv clean

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,learn,gambit]"
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(PY) -m experiments run $(ARGS)

# The linter, then the reference check (CI's guard against drift from the golden equilibria, on
# both cores; its output is shown only if it fails), then pytest, whose summary is the last line
# printed. Every step runs; the exit status is 1 if any failed.
test: $(STAMP)
	@status=0; \
	$(PY) -m ruff check --quiet $(LINT_PATHS) || status=1; \
	mkdir -p results; \
	$(PY) -m experiments reference-check --quick --workers 2 --out results/ci > results/ci.log 2>&1 \
	  || { cat results/ci.log; status=1; }; \
	$(PY) -m pytest -q $(ARGS) || status=1; \
	exit $$status

clean:
	rm -rf $(VENV) results
