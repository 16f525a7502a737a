# The two commands of the README: `make figures` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: setup figures test test-cluster bench report
setup: $(VENV)/.installed

# --no-compile: Python compiles what it imports on first use; compiling every file of every package
# up front took 30 of the 48 s of installing.
$(VENV)/.installed: envs/requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet --no-compile -r envs/requirements.txt
	$(VENV)/bin/pip install --quiet --no-deps -e .
	touch $@

figures: setup  ## regenerate every figure at paper scale, with its claims
	snakemake --profile workflow/profiles/default --cores 8

test: setup  ## the test suite, one worker per core, each taking whole test files
	pytest -q -n auto --dist loadfile

test-cluster: setup  ## the smoke workflow on a single-node SLURM cluster set up here (root, Debian)
	tests/cluster/slurm_smoke.sh

bench: setup  ## agent-steps per second of every kernel and its Python reference
	delayed-bandits bench

report: setup
	snakemake --report report.html
