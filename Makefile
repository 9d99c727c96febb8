# The README's two commands (lessons, test), and the habits: lint (ruff, mypy, import-linter) and bench.
# Each creates .venv and installs what it needs on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: lessons test lint bench

lessons: $(VENV)/.installed
	$(PY) -m micrograd2 lesson run all

test: $(VENV)/.installed-test
	$(PY) -m pytest -q

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check micrograd2 lessons tests benchmarks docs
	$(VENV)/bin/mypy micrograd2 lessons
	$(VENV)/bin/lint-imports

# The benchmarks print their tables (bench_scalar: rows for both engine paths); they take minutes.
bench: $(VENV)/.installed-bench
	$(PY) benchmarks/bench_scalar.py
	$(PY) benchmarks/bench_tensor.py
	$(PY) benchmarks/bench_trace.py

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[test]'
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[bench]'
	touch $@
