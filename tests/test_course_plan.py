"""docs/course_plan.md's estimate of the hours: its table is recomputed from the teacher's folder.

For each unit it counts E, the exercises; L, the model solutions' lines of code (non-blank,
non-comment lines between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` in teacher/solutions/, and
for the engine exercises U1.3 and U2.3 the function bodies of teacher/solution_engine/'s
u1_record.py and u2_walk.py; U3's pieces are counted once, in U3's exercises); and T, the public
tests.  The estimate is low = (10·E + 1.5·L + 2·T) / 60 and high = (15·E + 2·L + 3·T) / 60 hours,
and a unit's hours (the catalog's, which ``exercise list`` prints) are their mean to the half hour.
The test fails when the plan's table, or the catalog, no longer says what the files give: the
failure prints the rows it expected.
"""

from __future__ import annotations

import ast
from pathlib import Path

from micrograd2.exercises import catalog, stubs

ROOT = Path(__file__).resolve().parent.parent
TEACHER = ROOT / "teacher"
ENGINE_PIECES = {
    "U1.3": "u1_record.py",
    "U2.3": "u2_walk.py",
}  # the student writes them in engine/


def code(lines: list[str]) -> int:
    """How many of ``lines`` are code: neither blank nor a comment."""
    return sum(bool(line.strip()) and not line.strip().startswith("#") for line in lines)


def function_bodies(path: Path) -> int:
    """The lines of code in the bodies of a file's top-level functions, docstrings left out."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    total = 0
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            if body:
                total += code(lines[body[0].lineno - 1 : node.end_lineno])
    return total


def solution_size(exercise: catalog.Exercise) -> int:
    """L for one exercise."""
    solution = TEACHER / "solutions" / exercise.filename
    size = code(stubs.solution_lines(solution.read_text(encoding="utf-8")))
    piece = ENGINE_PIECES.get(exercise.id)
    return size + (function_bodies(TEACHER / "solution_engine" / piece) if piece else 0)


def estimate(e: int, lines: int, tests: int) -> tuple[float, float, float]:
    """(low, high, hours): the formula of the module's docstring."""
    low, high = (10 * e + 1.5 * lines + 2 * tests) / 60, (15 * e + 2 * lines + 3 * tests) / 60
    return low, high, round(low + high) / 2  # the mean, to the half hour


def expected_rows() -> dict[str, str]:
    rows = {}
    totals = [0, 0, 0, 0.0, 0.0, 0.0]
    for unit in catalog.units():
        exercises = [x for x in catalog.EXERCISES if x.unit == unit.key]
        e, lines, tests = (
            len(exercises),
            sum(map(solution_size, exercises)),
            sum(x.test_count for x in exercises),
        )
        low, high, hours = estimate(e, lines, tests)
        rows[unit.key] = (
            f"| {unit.key} | {e} | {hours:g} | {lines} | {tests} | {low:.1f} | {high:.1f} |"
        )
        totals = [a + b for a, b in zip(totals, (e, lines, tests, low, high, hours))]
    e, lines, tests, low, high, hours = totals
    rows["all"] = f"| all | {e:g} | {hours:g} | {lines:g} | {tests:g} | {low:.1f} | {high:.1f} |"
    return rows


def test_the_plans_estimate_is_what_the_teachers_folder_gives() -> None:
    plan = (ROOT / "docs" / "course_plan.md").read_text(encoding="utf-8").splitlines()
    expected = expected_rows()
    stale = [row for row in expected.values() if row not in plan]
    assert not stale, (
        "docs/course_plan.md's estimate is stale; its rows should read:\n"
        + "\n".join(expected.values())
    )


def test_each_units_hours_in_the_catalog_are_the_estimate() -> None:
    for unit in catalog.units():
        exercises = [x for x in catalog.EXERCISES if x.unit == unit.key]
        _, _, hours = estimate(
            len(exercises),
            sum(map(solution_size, exercises)),
            sum(x.test_count for x in exercises),
        )
        assert unit.hours == hours, unit.key


def test_the_counts_read_code_lines_only(tmp_path: Path) -> None:
    assert code(["    x = 1", "", "    # why", "    return x  # done"]) == 2
    (tmp_path / "piece.py").write_text(
        'def f(a):\n    """Doc."""\n    # a note\n    b = a\n\n    return b\n\n'
        "def g():\n    return 1\n",
        encoding="utf-8",
    )
    assert function_bodies(tmp_path / "piece.py") == 3
    assert solution_size(catalog.get("U1.0")) > 0
