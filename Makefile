# The two commands of the README:
#   make run    -- the main job (experiment suite at its default budget)
#   make test   -- the test suite
# Each creates .venv and installs the project into it on first use.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test venv clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(PY) -m experiments run $(ARGS)

# The reference check (CI's guard against drift from the golden equilibria) runs first, so that
# pytest's summary is the last line printed.
test: $(STAMP)
	$(PY) -m experiments reference-check --quick --quiet --out results/ci
	$(PY) -m pytest -q $(ARGS)

clean:
	rm -rf $(VENV) results
