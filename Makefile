# The README's two commands (lessons, test), the student's install (dist), and the habits: lint (ruff,
# mypy, import-linter) and bench.
# lessons, test, lint and bench create .venv and install what they need on first use; dist and
# playground use .venv's Python when it is there (else python3).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: lessons test lint bench dist playground playground-serve

lessons: $(VENV)/.installed
	$(PY) -m micrograd2 lesson run all

test: $(VENV)/.installed-test
	$(PY) -m pytest -q

# The playground's Python (its worker's module, server and wheel fetcher): linted and typed too.
PLAYGROUND_PYTHON := playground/src/playground.py playground/serve.py playground/wheels.py

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check micrograd2 lessons tests benchmarks docs tools teacher playground
	$(VENV)/bin/mypy micrograd2 lessons $(PLAYGROUND_PYTHON)
	$(VENV)/bin/lint-imports

# The benchmarks print their tables (bench_scalar: rows for both engine paths); they take minutes.
bench: $(VENV)/.installed-bench
	$(PY) benchmarks/bench_scalar.py
	$(PY) benchmarks/bench_tensor.py
	$(PY) benchmarks/bench_trace.py

# The student's install (README.md, "Who installs what"): micrograd2's sdist and wheel in dist/,
# built by tools/dist.py from a copy of the checkout, without the teacher's folder or the tests
# (tests/test_dist.py proves it holds no answer).  It needs setuptools>=61 and wheel (the test extra).
BUILD_PY ?= $(if $(wildcard $(PY)),$(PY),$(PYTHON))

dist:
	$(BUILD_PY) tools/dist.py dist

# The browser playground (README.md, "In the browser"): build/playground/, a static folder that any
# web server can host; playground-serve serves it on 127.0.0.1 with the headers that let Stop interrupt.
# It installs the wheel that `make dist` built: one build for students, on a machine or in the page.
PLAYGROUND_PY ?= $(BUILD_PY)

playground:
	$(MAKE) --no-print-directory dist BUILD_PY=$(PLAYGROUND_PY)
	mkdir -p build/playground-node
	cp playground/package.json playground/package-lock.json build/playground-node/
	cd build/playground-node && npm ci --no-audit --no-fund --loglevel=error
	rm -rf build/playground
	$(PLAYGROUND_PY) playground/wheels.py build/playground/wheels dist
	node playground/build.mjs build/playground build/playground-node

playground-serve:  # serves what `make playground` built (it says so if nothing was)
	$(PLAYGROUND_PY) playground/serve.py build/playground

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
