# The two commands of the README: `make figures` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: setup figures test lint test-cluster bench report lab
setup: $(VENV)/.installed

# pip byte-compiles the packages, most of setup's time; keep it: where PYTHONDONTWRITEBYTECODE is
# set (as on the development machine) nothing else would, and every job would compile its imports.
$(VENV)/.installed: envs/requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r envs/requirements.txt
	$(VENV)/bin/pip install --quiet --no-deps -e .
	@# every kernel compiled once into numba's cache (src/**/__pycache__), about 20 s: otherwise
	@# the first parallel jobs of a run (or test workers) each compile the same kernels
	$(VENV)/bin/delayed-bandits bench --horizon 20 --replications 1 --reference-replications 1 > /dev/null
	touch $@

figures: setup  ## regenerate every figure at paper scale, with its claims
	snakemake --profile workflow/profiles/default --cores 8

# -n logical: one worker per logical CPU (-n auto counts physical cores where psutil is installed)
test: setup  ## the test suite, one worker per CPU, each taking whole test files
	pytest -q -n logical --dist loadfile

lint: setup  ## ruff (checks and format) on src/ and tests/, snakefmt on the Snakefile and rules
	ruff check src tests
	ruff format --check src tests
	snakefmt --check Snakefile workflow/rules

test-cluster: setup  ## the smoke workflow on a single-node SLURM cluster set up here (root, Debian)
	tests/cluster/slurm_smoke.sh

bench: setup  ## agent-steps per second of every kernel and its Python reference
	delayed-bandits bench

report: setup
	snakemake --report report.html

# The kernels start in notebooks/, so the notebooks read ../results, or $DELAYED_BANDITS_RESULTS.
# LAB_ARGS adds options, e.g. LAB_ARGS="--no-browser --port=8888" on a remote machine; as root
# (a container) JupyterLab needs --allow-root, which is added.
lab: setup  ## JupyterLab on notebooks/, which read the results of `make figures`
	jupyter lab --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)
