# Two commands do all the set-up on a fresh machine (Python >= 3.10 with venv):
#   make example   create .venv, install iaa-engine, and report on the bundled crowd example
#   make test      create .venv, install iaa-engine with its test dependencies, and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: example test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

example: $(VENV)/.installed-dev
	$(BIN)/iaa report iaa_engine/examples/crowd.csv

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
