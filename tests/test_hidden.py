"""The teacher's hidden tests and mutants, graded by the real grader exactly as a teacher grades:
for every exercise in ``exercise list``, the model solution passes its hidden tests
(teacher/hidden/), and its mutant (teacher/mutants/) passes every public test and fails at least one hidden test.

NOTE [A mutant's layout]
A mutant is a correct workspace with one plausible mistake in it.  ``teacher/mutants/<module>.py``
replaces the exercise's own file; a folder ``teacher/mutants/<module>/`` is laid over the
workspace file by file: an engine exercise's mutant is a piece of its ``engine/`` folder
(``teacher/mutants/u1_engine_record/engine/u1_record.py``), which the exercise's sheet names
(``course_units.engine_folder``).  ``teacher/mutants/public/`` holds mutants that the PUBLIC
tests catch (fixtures of test_exercises.py and test_grader.py), not these.

The correct workspace is ``micrograd2 exercise start``'s, with every model solution
(teacher/solutions/) and the reference pieces (teacher/solution_engine/) in ``engine/``.  File
mutants share one workspace (an exercise's tests read only its own file); a folder mutant, which
may change what other exercises run on, gets a workspace of its own and is graded alone.  Each
exercise is graded with its default time limit, so a hidden test that is too slow fails here.

NOTE [Grading in parallel]
The gradings are grader calls of one unit each (one runner at a time), run as many at once as
there are CPUs (at most 4): as many runners as cores, so that an exercise's time limit, CPU time
and wall-clock time less the wait for a CPU, means on a busy CI machine what it means for a
teacher, and the units' calls share the cores evenly.
"""
from __future__ import annotations

import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from micrograd2.exercises import catalog, grader, stubs
from micrograd2.exercises.grader import ExerciseResult

TEACHER = Path(__file__).resolve().parents[1] / "teacher"
HIDDEN, MUTANTS = TEACHER / "hidden", TEACHER / "mutants"
EXERCISES = catalog.EXERCISES
NOT_FAILED = (grader.PASSED, "skipped")  # a test's outcomes that are no failure
SETUP_S = 900  # the first test graded waits for all the gradings (about 80 s of 2 free cores)

Grades = dict[str, dict[str, ExerciseResult]]  # "model" / "public" / "hidden" -> id -> result
Call = tuple[str, Path, list[str], Path | None]  # (kind, workspace, ids, hidden tests or None)


def mutant_of(exercise: catalog.Exercise) -> Path | None:
    """The exercise's mutant: a file replacing its module, or a folder laid over the workspace."""
    for path in (MUTANTS / exercise.filename, MUTANTS / exercise.name):
        if path.exists():
            return path
    return None


def correct_workspace(folder: Path) -> Path:
    """``exercise start``'s workspace with every model solution and the reference engine pieces."""
    stubs.make_workspace(folder)
    for exercise in EXERCISES:
        solution = TEACHER / "solutions" / exercise.filename
        if solution.is_file():
            shutil.copy(solution, folder / exercise.filename)
    for piece in sorted((TEACHER / "solution_engine").glob("*.py")):
        shutil.copy(piece, folder / "engine" / piece.name)
    return folder


def lay(mutant: Path, workspace: Path, exercise: catalog.Exercise) -> None:
    if mutant.is_dir():
        shutil.copytree(mutant, workspace, dirs_exist_ok=True)
    else:
        shutil.copy(mutant, workspace / exercise.filename)


def by_id(results: list[ExerciseResult]) -> dict[str, ExerciseResult]:
    return {r.id: r for r in results}


@pytest.fixture(scope="module")
def grades(tmp_path_factory: pytest.TempPathFactory) -> Grades:
    """Every grading this file checks, each exercise graded once per kind (NOTE [Grading in
    parallel])."""
    model = correct_workspace(tmp_path_factory.mktemp("model"))
    shared = correct_workspace(tmp_path_factory.mktemp("mutants"))
    files = [e for e in EXERCISES if (m := mutant_of(e)) is not None and m.is_file()]
    for exercise in files:
        lay(MUTANTS / exercise.filename, shared, exercise)
    calls: list[Call] = []
    for unit in catalog.units():
        calls.append(("model", model, [e.id for e in EXERCISES if e.unit == unit.key], HIDDEN))
        ids = [e.id for e in files if e.unit == unit.key]
        if ids:
            calls += [("public", shared, ids, None), ("hidden", shared, ids, HIDDEN)]
    for exercise in EXERCISES:
        mutant = mutant_of(exercise)
        if mutant is not None and mutant.is_dir():
            alone = correct_workspace(tmp_path_factory.mktemp(f"mutant-{exercise.name}"))
            lay(mutant, alone, exercise)
            calls += [("public", alone, [exercise.id], None),
                      ("hidden", alone, [exercise.id], HIDDEN)]
    found: Grades = {"model": {}, "public": {}, "hidden": {}}
    started = time.perf_counter()

    def grade(call: Call) -> tuple[str, list[ExerciseResult]]:
        kind, workspace, ids, tests = call
        return kind, grader.check(workspace, ids, jobs=1, tests_dir=tests)

    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        for kind, results in pool.map(grade, calls):
            found[kind].update(by_id(results))
    print(f"\ntest_hidden: {sum(map(len, found.values()))} gradings in "
          f"{time.perf_counter() - started:.1f} s")
    return found


def summary(result: ExerciseResult | None) -> str:
    if result is None:
        return "not graded"
    failed = [f"{t.name}: {t.message}" for t in result.tests if t.outcome not in NOT_FAILED]
    return f"{result.status} ({result.summary}){'; ' + failed[0] if failed else ''}"


def test_every_exercise_has_hidden_tests_and_a_mutant() -> None:
    missing = [f"{e.id} ({e.name}): " + ", ".join(
        what for what, absent in (("hidden tests", not catalog.test_files(e, HIDDEN)),
                                  ("a mutant", mutant_of(e) is None)) if absent)
        for e in EXERCISES if not catalog.test_files(e, HIDDEN) or mutant_of(e) is None]
    assert not missing, f"teacher/ lacks: {'; '.join(missing)}"
    assert not catalog.unclaimed_test_files(HIDDEN), "hidden test files that grade no exercise"


@pytest.mark.slow
@pytest.mark.timeout(SETUP_S)
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_the_model_solution_passes_the_hidden_tests(grades: Grades,
                                                    exercise: catalog.Exercise) -> None:
    result = grades["model"].get(exercise.id)
    assert result is not None and result.passed, \
        f"{exercise.id} hidden tests on the model solution: {summary(result)}"


@pytest.mark.slow
@pytest.mark.timeout(SETUP_S)
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_the_mutant_passes_the_public_tests(grades: Grades, exercise: catalog.Exercise) -> None:
    result = grades["public"].get(exercise.id)
    assert result is not None and result.passed, \
        f"{exercise.id}'s mutant ({mutant_of(exercise)}) on the public tests: {summary(result)}"


@pytest.mark.slow
@pytest.mark.timeout(SETUP_S)
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_the_mutant_fails_a_hidden_test(grades: Grades, exercise: catalog.Exercise) -> None:
    result: Any = grades["hidden"].get(exercise.id)
    assert result is not None, f"{exercise.id}'s mutant was not graded with the hidden tests"
    failed = [t for t in result.tests if t.outcome not in NOT_FAILED]
    assert result.status == grader.FAILED and failed, \
        f"{exercise.id}'s mutant ({mutant_of(exercise)}) passes the hidden tests: {summary(result)}"
    assert all(t.message.strip() for t in failed), f"{exercise.id}: a failure without a reason"
