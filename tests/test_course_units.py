"""The engine exercises U1.3, U2.3 and U5.6 (micrograd2/exercises/course_units.py): their public
tests catch deliberately wrong engines with the message meant for them, and a student's fresh
workspace fails with "not implemented yet: <hole>" until the holes are filled.

A wrong engine is the reference solution of the holes (teacher/solution_engine) with one
edit, in a workspace-like folder: the model solution's sheet next to ``engine/``, so the sheet's
``engine_folder()`` names that folder (NOTE [Where the tests find the engine]). The lesson runs
start new processes: those tests are marked slow.
"""
from __future__ import annotations

import importlib.util
import inspect
import itertools
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable

import pytest
from test_course_engine import BFS_WALK  # the wrong walk the engine tests use too

from micrograd2.exercises import catalog, course_units, harness
from micrograd2.exercises.harness import Mistake

ROOT = Path(__file__).resolve().parent.parent
SOLUTION_ENGINE = ROOT / "teacher" / "solution_engine"
SOLUTIONS = ROOT / "teacher" / "solutions"
ENGINE_EXERCISES = ("U1.3", "U2.3", "U5.6")
_names = itertools.count()


RECURSIVE_COUNT = '''def count_dependencies(roots):
    """Depth first, by recursion."""
    deps = {root: 0 for root in roots}

    def visit(node):
        for nxt, _ in node.next_functions:
            if nxt is not None:
                if nxt not in deps:
                    deps[nxt] = 0
                    visit(nxt)
                deps[nxt] += 1

    for root in roots:
        visit(root)
    return deps


def unused_count('''

NO_GRAD_IGNORED = ("if not mg.is_grad_enabled() or not any(needing):", "if not any(needing):")
ASSIGNS = ("variable.grad + grad", "grad")

# (exercise, what is wrong, engine file, its text, the wrong text, the test, the message meant for it)
ENGINE_MUTANTS = [
    ("U1.3", "record ignores no_grad", "u1_record.py", *NO_GRAD_IGNORED,
     "test_nothing_is_recorded_under_no_grad", "under `with mg.no_grad():` record(x * w) returned"),
    ("U1.3", "record records every op", "u1_record.py", "not any(needing)", "False",
     "test_no_input_that_requires_grad_records_nothing", "but no input requires grad: return None"),
    ("U1.3", "a constant gets a gradient edge", "u1_record.py", "gradient_edge(x) if need else",
     "gradient_edge(x) if isinstance(x, Variable) else",
     "test_an_input_that_requires_grad_gets_its_gradient_edge", "should be (None, 0)"),
    ("U1.3", "edges as lists, x's numbered 1", "u1_record.py", "gradient_edge(x) if need else (None, 0)",
     "[gradient_edge(x)[0], 1] if need else [None, 0]",  # read as pairs, named (NOTE [An edge is read as a pair])
     "test_an_input_that_requires_grad_gets_its_gradient_edge", "(AccumulateGrad, 0), got (AccumulateGrad, 1)"),
    ("U1.3", "a node where its edge belongs", "u1_record.py", "gradient_edge(x) if need else",
     "gradient_edge(x)[0] if need else",  # not a pair: a Mistake that says so, not a TypeError
     "test_an_input_that_requires_grad_gets_its_gradient_edge",
     "should be gradient_edge(x) = (AccumulateGrad, 0), got <"),
    ("U1.3", "record unfilled", "u1_record.py", None, None,
     "test_an_input_that_requires_grad_gets_its_gradient_edge", "not implemented yet: record (U1)"),
    ("U2.3", "a breadth-first walk", "u2_walk.py", "def walk(", BFS_WALK,
     "test_walk_visits_each_node_once_after_all_its_consumers",
     "a breadth-first walk visits it as soon as the first gradient arrives"),
    ("U2.3", "the ready node created first first", "u2_walk.py",
     "heapq.heappush(ready, (-nxt.sequence_nr(),", "heapq.heappush(ready, (nxt.sequence_nr(),",
     "test_walk_visits_the_ready_node_created_last_first",
     "the one created last, Q, comes first"),
    ("U2.3", "accumulate assigns", "u2_walk.py", *ASSIGNS, "test_accumulate_adds_never_assigns",
     "gave 3.0, expected 5.0: add the new gradient to the old .grad, never assign it"),
    ("U2.3", "a recursive count_dependencies", "u2_walk.py", "def count_dependencies(",
     RECURSIVE_COUNT, "test_a_100000_node_chain_works_without_recursion",
     "RecursionError on a chain of 100000 nodes"),
    ("U2.3", "walk assigns what edges deliver", "u2_walk.py",
     "buffer[nxt] = grad if nxt not in buffer else buffer[nxt] + grad", "buffer[nxt] = grad",
     "test_walk_visits_each_node_with_the_sum_of_what_it_received", "ADD what each edge delivers"),
    ("U2.3", "count_dependencies unfilled", "u2_walk.py", None, None,
     "test_count_dependencies_counts_the_edges_into_each_node",
     "not implemented yet: count_dependencies (U2)"),
    ("U5.6", "record unfilled", "u1_record.py", None, None,
     "test_every_hole_of_u1_and_u2_is_filled", "not implemented yet: record:"),
]

# the same wrong engines, through a lesson on them (a new process: slow)
LESSON_MUTANTS = [
    ("U1.3", "record ignores no_grad", "u1_record.py", *NO_GRAD_IGNORED,
     "test_lesson_1_passes_on_your_engine",
     "record (U1) differs from the reference: (x * w).requires_grad under no_grad: got True"),
    ("U2.3", "a breadth-first walk", "u2_walk.py", "def walk(", BFS_WALK,
     "test_lesson_2_passes_on_your_engine",
     "walk (U2) differs from the reference: the order of visits"),
    ("U2.3", "accumulate assigns", "u2_walk.py", *ASSIGNS, "test_lesson_3_passes_on_your_engine",
     "accumulate (U2) differs from the reference: x.grad after two backward passes"),
    ("U5.6", "accumulate assigns", "u2_walk.py", *ASSIGNS,
     "test_one_train_step_matches_micrograd2s_own_engine",
     "accumulate (U2) differs from the reference: x.grad after two backward passes"),
    ("U5.6", "a breadth-first walk", "u2_walk.py", "def walk(", BFS_WALK,
     "test_one_train_step_matches_micrograd2s_own_engine",
     "walk (U2) differs from the reference: the order of visits"),
]


def public_test(exercise_id: str, name: str) -> Callable[[ModuleType], None]:
    """The public test ``name`` of exercise ``exercise_id``, from the pristine file."""
    exercise = catalog.get(exercise_id)
    spec = importlib.util.spec_from_file_location(f"public_{next(_names)}", exercise.test_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    test = getattr(module, name)
    assert inspect.isfunction(test)
    return test


def workspace(tmp_path: Path, exercise_id: str, file: str | None = None, right: str | None = None,
              wrong: str | None = None, stub: bool = False) -> ModuleType:
    """The model solution's sheet of ``exercise_id`` next to ``engine/``: the reference holes,
    with ``right`` made ``wrong`` in ``file`` (or ``file`` the stub's, with ``stub``)."""
    exercise = catalog.get(exercise_id)
    folder = tmp_path / f"ws{next(_names)}"
    shutil.copytree(SOLUTION_ENGINE, folder / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    if file is not None and stub:
        shutil.copy(ROOT / "micrograd2" / "course" / "stubs" / file, folder / "engine" / file)
    elif file is not None:
        text = (folder / "engine" / file).read_text(encoding="utf-8")
        assert text.count(right) == 1, f"{right!r} should occur once in {file}"
        (folder / "engine" / file).write_text(text.replace(right, wrong), encoding="utf-8")
    sheet = folder / exercise.filename
    shutil.copy(SOLUTIONS / exercise.filename, sheet)
    return harness.load_module(sheet, f"{exercise.name}__{next(_names)}")


def caught(exercise_id: str, test_name: str, student: ModuleType) -> str:
    """The message of the ``Mistake`` the public test raises on ``student`` (it must raise one)."""
    try:
        public_test(exercise_id, test_name)(student)
    except Mistake as error:
        return str(error)
    raise AssertionError(f"{test_name} passed on a wrong engine")


@pytest.mark.parametrize("exercise_id, wrong, file, right, mistake, test_name, message",
                         ENGINE_MUTANTS, ids=[f"{m[0]}-{m[1]}" for m in ENGINE_MUTANTS])
def test_a_wrong_engine_is_caught_by_a_direct_test(exercise_id: str, wrong: str, file: str,
                                                   right: str | None, mistake: str | None,
                                                   test_name: str, message: str,
                                                   tmp_path: Path) -> None:
    student = workspace(tmp_path, exercise_id, file, right, mistake, stub=right is None)
    got = caught(exercise_id, test_name, student)
    assert message in got, f"{wrong}: the message was {got!r}"


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id, wrong, file, right, mistake, test_name, message",
                         LESSON_MUTANTS, ids=[f"{m[0]}-{m[1]}" for m in LESSON_MUTANTS])
def test_a_wrong_engine_is_named_by_the_lesson_run_on_it(exercise_id: str, wrong: str, file: str,
                                                         right: str, mistake: str, test_name: str,
                                                         message: str, tmp_path: Path) -> None:
    got = caught(exercise_id, test_name, workspace(tmp_path, exercise_id, file, right, mistake))
    assert message in got, f"{wrong}: the message was {got!r}"


def test_every_engine_exercise_has_wrong_engines() -> None:
    engine = {e.id for e in catalog.EXERCISES if e.name.startswith(("u1_engine", "u2_engine",
                                                                     "u5_engine"))}
    assert engine == set(ENGINE_EXERCISES)
    assert {m[0] for m in ENGINE_MUTANTS} == engine == {m[0] for m in LESSON_MUTANTS}


def test_the_sheet_names_the_engine_next_to_it_and_the_stub_nothing_else(tmp_path: Path) -> None:
    student = workspace(tmp_path, "U1.3")
    assert course_units.engine_folder(student) == Path(student.__file__).parent / "engine"
    exercise = catalog.get("U1.3")
    alone = tmp_path / "alone" / exercise.filename
    alone.parent.mkdir()
    alone.write_text(exercise.stub_file.read_text(encoding="utf-8"), encoding="utf-8")
    stub = harness.load_module(alone, f"{exercise.name}__{next(_names)}")
    with pytest.raises(NotImplementedError, match="no engine/ next to this file"):
        course_units.engine_folder(stub)


def test_a_hole_is_taken_from_the_first_module_that_defines_it(tmp_path: Path) -> None:
    folder = tmp_path / "engine"
    folder.mkdir()
    (folder / "a_helpers.py").write_text("def accumulate(variable, grad):\n    return 'a'\n")
    (folder / "b_more.py").write_text("def accumulate(variable, grad):\n    return 'b'\n")
    function, path = course_units.student_holes(folder)["accumulate"]
    assert function(None, None) == "a" and path.name == "a_helpers.py"


def micrograd2(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m micrograd2 ARGS`` in a new process, no engine set."""
    env = {k: v for k, v in course_units.environment(SOLUTION_ENGINE).items()
           if k not in ("MICROGRAD2_REFERENCE", "MICROGRAD2_ENGINE")}
    return subprocess.run([sys.executable, "-m", "micrograd2", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_student_fails_on_the_stubs_and_passes_with_the_holes_filled(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert micrograd2("exercise", "start", str(ws)).returncode == 0
    done = micrograd2("exercise", "check", str(ws), "U1", "-v")
    assert done.returncode == 1 and "not implemented yet: record (U1)" in done.stdout
    for file in ("u1_record.py", "u2_walk.py"):
        shutil.copy(SOLUTION_ENGINE / file, ws / "engine" / file)
    shutil.copy(SOLUTIONS / "u5_engine_capstone.py", ws / "u5_engine_capstone.py")
    for exercise_id in ENGINE_EXERCISES:
        done = micrograd2("exercise", "check", str(ws), exercise_id)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
