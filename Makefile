# Two commands do all the set-up on a fresh machine (Python >= 3.10 with venv):
#   make example   create .venv, install iaa-engine, and report on the bundled crowd example
#   make test      create .venv, install iaa-engine with its test dependencies, and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: example test bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

PLUGINS := $(wildcard plugins/*/pyproject.toml)

# The main job needs only the core (numpy, pandas, pyarrow, scipy): seconds to install, no plugins, no peers.
# setuptools announces every editable install of a flat layout with an information-only "Editable installation."
# banner (not a warning about this project); it is filtered by its text here and below, every real warning shows.
$(VENV)/.installed-core: pyproject.toml | $(BIN)/python
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(PLUGINS) | $(BIN)/python
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e ".[dev]" \
	  $(foreach p,$(PLUGINS),-e "$(dir $(p))")
	# irrCAC (a reference implementation for Fleiss/Gwet/Conger on missing data) pins scipy==1.12, which would
	# drag numpy below 2; its code runs on current scipy, so it is installed without its pins.
	$(BIN)/python -m pip install --quiet --no-deps "irrCAC==0.4.4"
	touch $@

example: $(VENV)/.installed-core
	$(BIN)/iaa report iaa_engine/examples/crowd.csv
	@echo
	@echo "Next: iaa is installed in $(VENV), not on your PATH. Either type $(BIN)/iaa, or activate the venv once per shell:"
	@echo "  . $(BIN)/activate"
	@echo "  iaa report your_annotations.csv     # your own file: a long table with columns item, annotator, label"
	@echo "  iaa report --help                   # the options; iaa --help lists the other commands"
	@echo "A walkthrough from a first report to gold labels: docs/team-lead.md"

# The suite runs in parallel worker processes (pytest-xdist); the tests that share a file's module-scoped fixture
# (a Label Studio server, a LibreOffice recalculation) stay on one worker, so it is started once (tests/conftest.py). The Label Studio server (its own venv and a migrated
# data directory, cached under ~/.cache/iaa-engine) is prepared first, so no worker waits on the install.
# PYTEST_WORKERS=0 runs the suite in one process.
PYTEST_WORKERS ?= 4
test: $(VENV)/.installed-dev
	bash scripts/system-deps.sh
	$(BIN)/python -c "from iaa_label_studio.testing import prepared; prepared()" \
	  || echo "make test: the Label Studio server could not be prepared; its tests will say why"
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --hypothesis-profile=make-test

docs: $(VENV)/.installed-dev
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "docs: open docs/_build/html/index.html"

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis docs/_build docs/api/generated
