"""Stubs and workspaces (micrograd2/exercises/stubs.py): the solutions cut out, a fresh student workspace written.

It proves that ``strip_solutions`` replaces each ``# BEGIN SOLUTION``/``# END SOLUTION`` block by one
``raise NotImplementedError`` naming the method (or the block's own words) and refuses unbalanced markers; that
the shipped stubs are the ones made from the model solutions (teacher/solutions/, not installed), and
``python -m micrograd2.exercises.stubs --check`` says so; that every exercise's stub compiles, raises for its
exercise and holds no line of the solution; and that a workspace holds the stubs, the public tests, a README
and a pytest.ini, refuses to overwrite, and with ``force`` writes fresh stubs while keeping the student's
other files.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from micrograd2.exercises import catalog, stubs

EXERCISES = catalog.EXERCISES
SOLUTIONS = Path(__file__).resolve().parents[1] / "teacher" / "solutions"
CUT = [e for e in EXERCISES if (SOLUTIONS / e.filename).is_file()]  # every exercise but U0's paper ones


def test_strip_solutions_replaces_each_block_by_one_raise_naming_the_method() -> None:
    source = (
        "class Mul:\n"
        "    def forward(ctx, a, b):\n"
        "        \"\"\"doc\"\"\"\n"
        "        # BEGIN SOLUTION\n"
        "        return a * b\n"
        "        # END SOLUTION\n"
        "\n"
        "def f(x):\n"
        "    y = 1\n"
        "    # BEGIN SOLUTION: compute y from x\n"
        "    y = x\n"
        "    # END SOLUTION\n"
        "    return y\n"
    )
    stub = stubs.strip_solutions(source, "U2.2")
    assert 'raise NotImplementedError("Exercise U2.2: implement Mul.forward")' in stub
    assert '    raise NotImplementedError("Exercise U2.2: compute y from x")\n    return y\n' in stub
    assert "a * b" not in stub and "y = x" not in stub and "SOLUTION" not in stub
    assert stubs.solution_lines(source) == ["return a * b", "y = x"]


@pytest.mark.parametrize("source, problem", [
    ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n", "inside the block"),
    ("# END SOLUTION\n", "without a"),
    ("def f():\n    # BEGIN SOLUTION\n    pass\n", "never closed"),
])
def test_strip_solutions_rejects_unbalanced_markers(source: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        stubs.strip_solutions(source, "U1.1")


def test_every_exercise_but_the_paper_ones_has_a_model_solution_outside_the_package() -> None:
    assert {e.id for e in EXERCISES if e not in CUT} <= {e.id for e in EXERCISES if e.unit == "U0"}
    assert not list(catalog.SOURCES.rglob("*solution*")) and stubs.BEGIN not in "".join(
        p.read_text(encoding="utf-8") for p in catalog.SOURCES.glob("*.py"))


def test_the_shipped_stubs_are_made_from_the_model_solutions(capsys: pytest.CaptureFixture[str]) -> None:
    assert stubs.stale_stubs(SOLUTIONS) == []
    assert stubs.main([str(SOLUTIONS), "--check"]) == 0
    assert capsys.readouterr().out == "0 stub(s) out of date\n"


@pytest.mark.parametrize("exercise", CUT, ids=lambda e: e.name)
def test_each_stub_compiles_raises_for_its_exercise_and_holds_no_solution(exercise: catalog.Exercise) -> None:
    source = (SOLUTIONS / exercise.filename).read_text(encoding="utf-8")
    stub = stubs.stub(exercise)
    compile(stub, exercise.filename, "exec")
    assert f'raise NotImplementedError("Exercise {exercise.id}: ' in stub
    assert "SOLUTION" not in stub
    blocks = source.count(stubs.BEGIN)
    assert blocks >= 1 and stub.count("raise NotImplementedError(") == blocks
    assert len(stub.splitlines()) == len(source.splitlines()) - len(stubs.solution_lines(source)) - blocks - \
        sum(1 for line in _block_lines(source) if not line.strip())


def _block_lines(source: str) -> list[str]:
    inside, lines = False, []
    for line in source.splitlines():
        if stubs.BEGIN in line:
            inside = True
        elif stubs.END in line:
            inside = False
        elif inside:
            lines.append(line)
    return lines


def test_a_workspace_holds_stubs_tests_readme_and_ini_but_no_solution(tmp_path: Path) -> None:
    written = stubs.make_workspace(tmp_path / "class1")
    names = sorted(str(p.relative_to(tmp_path / "class1")) for p in written)
    assert "README.md" in names and "pytest.ini" in names
    for e in EXERCISES:
        assert (tmp_path / "class1" / e.filename).read_text(encoding="utf-8") == stubs.stub(e)
        assert (tmp_path / "class1" / "tests" / e.test_file.name).read_text() == e.test_file.read_text()
    readme = (tmp_path / "class1" / "README.md").read_text(encoding="utf-8")
    assert all(e.title in readme for e in EXERCISES) and "{exercise_table}" not in readme
    assert "| U1.1 | `ex01_mul_sum.py` |" in readme  # the file each exercise is written in
    assert "| U1.3 | `engine/u1_record.py` (the task: `u1_engine_record.py`) |" in readme
    with pytest.raises(FileExistsError):
        stubs.make_workspace(tmp_path / "class1")
    (tmp_path / "class1" / "notes.txt").write_text("mine")
    (tmp_path / "class1" / "ex01_mul_sum.py").write_text("edited")
    stubs.make_workspace(tmp_path / "class1", force=True)
    assert (tmp_path / "class1" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "class1" / "ex01_mul_sum.py").read_text() == stubs.stub(catalog.get("U1.1"))

