"""The list of classroom exercises (micrograd2/exercises/catalog.py): units, ids, aliases, files, markers, hints.

It proves that the catalog lists one stub and one public test file per exercise, in unit order and numbered
1, 2… within each unit, each test file marked with its unit's and its own marker and each exercise with at least
three hints; that today's numbers 1-9 are aliases of U1.1-U5.5; that a unit without exercises is not listed;
that the markers are registered in the workspace's pytest.ini and in setup.cfg; that ``select`` reads a unit,
an id or an alias; that hidden tests are found by file name; that docs/course_plan.md gives each unit the
catalog's hours; and that hints and unknown keys answer as the CLI
needs (the hint's text; ``KeyError``/``IndexError`` naming the valid ones).
"""
from __future__ import annotations

import configparser
from pathlib import Path

import pytest

from micrograd2.exercises import catalog

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = catalog.EXERCISES


def test_the_catalog_lists_one_stub_and_one_test_file_per_exercise_in_unit_order() -> None:
    order = [u.key for u in catalog.UNITS]
    assert [order.index(e.unit) for e in EXERCISES] == sorted(order.index(e.unit) for e in EXERCISES)
    for unit in catalog.units():  # numbered 1, 2…, or from 0 where a unit opens with a warm-up (U1.0)
        indices = [e.index for e in EXERCISES if e.unit == unit.key]
        assert indices[0] in (0, 1) and indices == list(range(indices[0], indices[0] + len(indices)))
    assert len(set(catalog.IDS)) == len(EXERCISES) >= 9 and len({e.name for e in EXERCISES}) == len(EXERCISES)
    assert sorted(p.name for p in catalog.SOURCES.glob("*.py")) == sorted(e.filename for e in EXERCISES)
    assert sorted(p.name for p in catalog.TESTS.glob("test_*.py")) == sorted(e.test_file.name for e in EXERCISES)
    for e in EXERCISES:
        marks = f"pytestmark = [pytest.mark.{e.unit_marker}, pytest.mark.{e.marker}]\n"
        assert marks in e.test_file.read_text(encoding="utf-8"), e.id
        assert len(e.hints) >= 3 and all(e.hints)


def test_todays_numbers_are_aliases_and_units_without_exercises_are_not_listed() -> None:
    assert [catalog.get(n).id for n in range(1, 10)] == ["U1.1", "U1.2", "U2.1", "U2.2", "U5.1", "U5.2", "U5.3",
                                                         "U5.4", "U5.5"]
    assert catalog.get("3") is catalog.get("u2.1") is catalog.get("U2.1")
    assert {u.key for u in catalog.units()} == {e.unit for e in EXERCISES}
    assert [u.key for u in catalog.UNITS] == ["U0", "U1", "U2", "U3", "U4", "U5"]


def test_a_unit_may_open_with_exercise_0() -> None:
    assert catalog.get("U1.0").index == 0 and catalog.get("u1.0").name == "u1_value_from_scratch"
    assert [e.id for e in catalog.select("U1")][:2] == ["U1.0", "U1.1"]
    assert catalog.get("U1.0").marker == "u1_0" and catalog.get(1).id == "U1.1"


def test_select_reads_a_unit_an_id_or_an_alias() -> None:
    assert [e.id for e in catalog.select("U2")][:2] == ["U2.1", "U2.2"]  # U2.3: the engine's walk
    assert [e.id for e in catalog.select("u5.3")] == ["U5.3"] and [e.id for e in catalog.select(7)] == ["U5.3"]
    with pytest.raises(KeyError, match="valid: units U"):
        catalog.select("U9")


def test_markers_are_registered_in_the_workspace_ini_and_in_setup_cfg() -> None:
    for path, section in ((catalog.PYTEST_INI, "pytest"), (ROOT / "setup.cfg", "tool:pytest")):
        cfg = configparser.ConfigParser()
        cfg.read(path)
        registered = {line.split(":")[0].strip() for line in cfg[section]["markers"].splitlines() if line.strip()}
        assert {e.marker for e in EXERCISES} | {e.unit_marker for e in EXERCISES} <= registered, path


def test_hidden_tests_are_found_by_file_name(tmp_path: Path) -> None:
    e = catalog.get("U2.1")
    for name in ("test_ex03_topo_order.py", "test_ex03_topo_order_deep.py", "test_ex03_topo_orderly.py",
                 "test_misnamed.py", "notes.py"):
        (tmp_path / name).write_text("")
    assert catalog.test_files(e) == [e.test_file]
    assert [p.name for p in catalog.test_files(e, tmp_path)] == ["test_ex03_topo_order.py",
                                                                 "test_ex03_topo_order_deep.py"]
    assert catalog.test_files(catalog.get("U1.1"), tmp_path) == []
    assert [p.name for p in catalog.unclaimed_test_files(tmp_path)] == ["test_ex03_topo_orderly.py",
                                                                        "test_misnamed.py"]
    assert catalog.count_tests([e.test_file]) == e.test_count >= 4


def test_the_course_plan_gives_each_unit_its_hours() -> None:
    plan = (ROOT / "docs" / "course_plan.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line.split("|")[3].strip() for line in plan.splitlines()
            if line.startswith("| U")}
    assert rows == {u.key: f"{u.hours:g}" for u in catalog.UNITS}
    assert f"({sum(u.hours for u in catalog.UNITS):g} hours of student work)" in plan


def test_hints_and_unknown_keys() -> None:
    assert catalog.hint(3, 1) == catalog.get("U2.1").hints[0] == catalog.hint("U2.1")
    assert "ctx.save_for_backward" in catalog.hint(1, 2)
    with pytest.raises(KeyError, match="no exercise 42; valid: units .*U1, U2.*; ids .*U1.1, U1.2.*; aliases 1-9"):
        catalog.get(42)
    with pytest.raises(IndexError, match="exercise U1.1 has hints 1-3"):
        catalog.hint(1, 4)
