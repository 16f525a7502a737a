# The two commands of the README: `make figures` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
# Every package of the environment, with its version and sha256 hashes: `make lock` writes it from
# envs/requirements.in, `make setup` installs it and nothing else (docs/environment.md).
LOCK := envs/requirements.lock
# `make wheelhouse` downloads the locked packages once; where they are, setup installs from them
# alone, with no index and no network.
WHEELHOUSE := wheelhouse
PIP_SOURCE = $(if $(wildcard $(WHEELHOUSE)/*.whl),--no-index --find-links $(WHEELHOUSE))

.PHONY: setup figures arena-full test test-slow lint test-cluster test-offline bench report lab lock wheelhouse
setup: $(VENV)/.installed

# The lock is installed by two pips at once, each on every other package (awk counts the lines
# that start a requirement): with --no-deps no two of them write the same files, and the venv
# holds the same files as one pip's, in half the time (docs/environment.md). A failed half fails
# the target.
# The packages are byte-compiled once here: where PYTHONDONTWRITEBYTECODE is set (as on the
# development machine) nothing else would, and every job would compile its imports. compileall
# does it on every core and skips the packages' own test suites, which nothing here imports;
# pip would compile everything, on one core.
# --no-build-isolation: the package is built with the locked setuptools. The lock's sha256 goes
# into every provenance record.
PIP_LOCKED = $(VENV)/bin/python -m pip install --quiet --no-compile --require-hashes --no-deps $(PIP_SOURCE)
$(VENV)/.installed: $(LOCK) pyproject.toml
	$(PYTHON) -m venv --clear $(VENV)
	for half in 0 1; do awk -v half=$$half '/^[^ #]/ {n++} n % 2 == half' $(LOCK) > $(VENV)/lock-$$half.txt; done
	$(PIP_LOCKED) -r $(VENV)/lock-0.txt & first=$$!; \
		$(PIP_LOCKED) -r $(VENV)/lock-1.txt; second=$$?; wait $$first && exit $$second
	$(VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation $(PIP_SOURCE) -e .
	$(VENV)/bin/python -m pip check
	$(VENV)/bin/python -c "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())" $(LOCK) > $(VENV)/lock.sha256
	@# the bytecode, and every kernel compiled once into numba's cache (src/**/__pycache__), at
	@# once: otherwise the first parallel jobs of a run (or test workers) each compile the same
	@# kernels. A failure of either fails the target.
	$(VENV)/bin/python -m compileall -q -j 0 -x '/tests?/' $(VENV)/lib & compiling=$$!; \
		$(VENV)/bin/delayed-bandits bench --horizon 20 --replications 1 --reference-replications 1 > /dev/null; \
		warmed=$$?; wait $$compiling && exit $$warmed
	touch $@

lock: setup  ## resolve envs/requirements.in into envs/requirements.lock, with every hash
	uv pip compile envs/requirements.in --generate-hashes --universal --python-version 3.11 \
		--output-file $(LOCK) --quiet

wheelhouse: $(LOCK)  ## download every locked package into wheelhouse/, for a setup with no index
	$(PYTHON) -m pip download --quiet --require-hashes --no-deps --dest $(WHEELHOUSE) -r $(LOCK)

figures: setup  ## regenerate every figure at paper scale, with its claims
	snakemake --profile workflow/profiles/default

# -n logical: one worker per logical CPU (-n auto counts physical cores where psutil is installed)
# The arena at research power (config/arena-full.yaml, outputs under full/): within 2.5 CPU-hours,
# about 75 minutes on 2 cores (its cost, from its jobs' logs, in docs/arena.md); on a cluster,
# the same overlay with the SLURM profile (docs/cluster.md).
arena-full: setup  ## the citable full-scale arena run, its figures, leaderboard and claims
	snakemake arena --profile workflow/profiles/default --configfile config/arena-full.yaml

# Both test targets write each test's time (test-times/, read by `delayed-bandits quote speed`).
test: setup  ## the tests but the end-to-end tier, one worker per CPU, each taking whole test files
	pytest -q -n logical --dist loadfile --no-loadscope-reorder -m "not slow" --junitxml=test-times/fast.xml

test-slow: setup  ## the end-to-end tier (marked slow: the smoke run, workflow runs), as CI runs it
	pytest -q -n logical --dist loadfile --no-loadscope-reorder -m slow --junitxml=test-times/slow.xml

lint: setup  ## ruff (checks and format) on src/ and tests/, snakefmt on the Snakefile and rules
	ruff check src tests
	ruff format --check src tests
	snakefmt --check Snakefile workflow/rules

test-cluster: setup  ## the smoke workflow on a single-node SLURM cluster set up here (root, Debian)
	tests/cluster/slurm_smoke.sh

test-offline:  ## a fresh clone set up from a wheelhouse with the network off (root, unshare)
	tests/offline/setup_offline.sh

bench: setup  ## agent-steps per second of every kernel and its Python reference
	delayed-bandits bench

# The report of the run that was made: paper scale (results/claims.md, made by `make figures`),
# else the smoke scale (the quick check); SCALE=smoke or SCALE=paper chooses.
SCALE ?= $(if $(wildcard results/claims.md),paper,$(if $(wildcard smoke/results/claims.md),smoke))
report: setup  ## the Snakemake report of the finished run: report.html, or smoke/report.html
ifeq ($(SCALE),paper)
	snakemake --report report.html
else ifeq ($(SCALE),smoke)
	snakemake --report smoke/report.html --configfile config/smoke.yaml
else
	@echo "make report: no finished run to report on. Run \`make figures\` (paper scale, then" \
		"report.html) or the quick check \`snakemake --cores 2 --configfile config/smoke.yaml\`" \
		"(smoke scale, then smoke/report.html) first." >&2
	@exit 1
endif

# The kernels start in notebooks/, so the notebooks read ../results, or $DELAYED_BANDITS_RESULTS.
# LAB_ARGS adds options, e.g. LAB_ARGS="--no-browser --port=8888" on a remote machine; as root
# (a container) JupyterLab needs --allow-root, which is added.
lab: setup  ## JupyterLab on notebooks/, which read the results of `make figures`
	jupyter lab --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)
