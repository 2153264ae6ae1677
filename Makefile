# Two entry points for a fresh machine: `make run` (main job) and `make test` (the test suite).
# Both create .venv and install compeval with every optional part first.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup run quick test bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first, pinned: an unpinned torch pulls the CUDA build (gigabytes) on Linux.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[all,test]'
	touch $@

run: setup
	@echo "make run: the default run (3 models, every default task) takes about 34 minutes on a quiet 2-core CPU"
	@echo "  by --plan's estimate (encoding 27, evaluation 7; \`compeval run --plan\` prints it for your machine),"
	@echo "  and can take twice that or more when other jobs share the cores."
	@echo "  A first look in about 2 minutes: make quick (compeval run --quick: one task per suite, reduced sizes)."
	$(VENV)/bin/compeval run $(ARGS)

quick: setup
	$(VENV)/bin/compeval run --quick $(ARGS)

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

bench: setup
	$(PY) benchmarks/sts_benchmark.py

clean:
	rm -rf $(VENV) results results-quick
