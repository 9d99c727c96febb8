"""The list of classroom exercises (micrograd2/exercises/catalog.py): numbers, files, markers and hints.

It proves that the catalog lists one solution-bearing source and one pristine test file per exercise, numbered
from 1 in lesson order, each test file marked with its exercise's marker and each exercise with at least three
hints; that the markers are registered in the workspace's pytest.ini and in setup.cfg; and that hints and
unknown numbers answer as the CLI needs (the hint's text; ``KeyError``/``IndexError`` naming the valid ones).
"""
from __future__ import annotations

import configparser
from pathlib import Path

import pytest

from micrograd2.exercises import catalog

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = catalog.EXERCISES


def test_the_catalog_lists_one_source_and_one_test_file_per_exercise_in_lesson_order() -> None:
    assert list(catalog.NUMBERS) == list(range(1, len(EXERCISES) + 1)) and len(EXERCISES) >= 8
    assert [e.lesson for e in EXERCISES] == sorted(e.lesson for e in EXERCISES)
    assert sorted(p.name for p in catalog.SOURCES.glob("ex*.py")) == [e.filename for e in EXERCISES]
    assert sorted(p.name for p in catalog.TESTS.glob("test_*.py")) == [e.test_file.name for e in EXERCISES]
    for e in EXERCISES:
        assert e.name.startswith(f"ex{e.number:02d}_")
        assert f"pytestmark = pytest.mark.{e.marker}\n" in e.test_file.read_text(encoding="utf-8")
        assert len(e.hints) >= 3 and all(e.hints)


def test_markers_are_registered_in_the_workspace_ini_and_in_setup_cfg() -> None:
    for path, section in ((catalog.PYTEST_INI, "pytest"), (ROOT / "setup.cfg", "tool:pytest")):
        cfg = configparser.ConfigParser()
        cfg.read(path)
        registered = {line.split(":")[0].strip() for line in cfg[section]["markers"].splitlines() if line.strip()}
        assert {e.marker for e in EXERCISES} <= registered, path


def test_hints_and_unknown_numbers() -> None:
    assert catalog.hint(3, 1) == catalog.get(3).hints[0]
    assert "ctx.save_for_backward" in catalog.hint(1, 2)
    with pytest.raises(KeyError, match="valid numbers: 1-9"):
        catalog.get(42)
    with pytest.raises(IndexError, match="hints 1-3"):
        catalog.hint(1, 4)

