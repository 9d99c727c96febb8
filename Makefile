# The README's two commands.  Each creates .venv and installs what it needs on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: lessons test

lessons: $(VENV)/.installed
	$(PY) -m micrograd2 lesson run all

test: $(VENV)/.installed-test
	$(PY) -m pytest -q

$(VENV)/.installed: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[test]'
	touch $@
