"""The grader: pristine tests in a subprocess per exercise, timeouts, syntax and import errors named with file
and line, a summary table ending in ``K/N exercises passed``, and a JSON report."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from micrograd2.exercises import catalog, grader, runner, stubs
from micrograd2.exercises.grader import CaseResult, ExerciseResult


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> dict[int, ExerciseResult]:
    """A workspace with one kind of trouble in each of exercises 1-5 and the solutions of 6-9, graded once
    (exercises 3 and 5, infinite loops, with a 3 s timeout)."""
    ws = tmp_path_factory.mktemp("broken")
    stubs.make_workspace(ws)
    source = {e.number: e.source.read_text(encoding="utf-8") for e in catalog.EXERCISES}
    (ws / "ex01_mul_sum.py").write_text(source[1].replace("return grad * b, grad * a", "return grad * a, grad * b"))
    (ws / "ex02_activations.py").write_text(source[2].replace("import math\n", "import math\nimport not_there\n"))
    (ws / "ex03_topo_order.py").write_text(source[3].replace("    start = root.grad_fn\n",
                                                             "    while True:\n        pass\n", 1))
    (ws / "ex04_backprop.py").write_text(source[4].replace("if grad is None:", "if grad is None", 1))
    (ws / "ex05_grad_accumulation.py").write_text(source[5] + "\nwhile True:\n    pass\n")
    for number in (6, 7, 8, 9):
        shutil.copy(catalog.get(number).source, ws / catalog.get(number).filename)
    (ws / "tests" / "test_ex01_mul_sum.py").write_text("def test_nothing():\n    pass\n")  # edited local tests
    results = grader.check(ws, [1, 2, 4, 6, 7, 8, 9], jobs=2) + grader.check(ws, [3, 5], timeout=3, jobs=2)
    return {r.number: r for r in sorted(results, key=lambda r: r.number)}


def test_a_wrong_backward_is_reported_with_the_first_differing_trace_step(broken: dict[int, ExerciseResult]) -> None:
    r = broken[1]
    assert r.status == "failed" and 0 < r.tests_passed < len(r.tests)
    assert r.summary.startswith("step 1 of the backward walk of a * b (x0=3.0, x1=4.0): node MulBackward (the "
                                "reference's MulBackward0), output 12.0, upstream gradient 1.0: its gradient for "
                                "input 0 is 3.0, expected 4.0")
    failed = [t for t in r.tests if t.outcome == "failed"]
    assert failed[0].name == "test_mul_backward_matches_the_builtin_walk" and "expected 4.0" in failed[0].details


def test_edited_local_tests_do_not_change_the_grade(broken: dict[int, ExerciseResult]) -> None:
    assert broken[1].status == "failed" and len(broken[1].tests) == 5


def test_an_import_error_is_named_with_file_and_line(broken: dict[int, ExerciseResult]) -> None:
    r = broken[2]
    assert r.status == "error" and not r.tests
    line = 2 + catalog.get(2).source.read_text().splitlines().index("import math")
    assert r.summary == (f"ModuleNotFoundError while importing ex02_activations.py (ex02_activations.py, line {line}): "
                         "No module named 'not_there'")


def test_an_infinite_loop_is_a_timeout_naming_the_test_not_a_hang(broken: dict[int, ExerciseResult]) -> None:
    r = broken[3]
    assert r.status == "timeout" and r.seconds < 30
    assert r.summary == ("timeout: no result after 3 s in test_block1_graph_is_ordered (an infinite loop, or far "
                         "too slow?)")


def test_a_syntax_error_is_named_with_file_and_line(broken: dict[int, ExerciseResult]) -> None:
    r = broken[4]
    line = 1 + next(i for i, text in enumerate(catalog.get(4).source.read_text().splitlines())
                    if "if grad is None:" in text)
    assert r.status == "error" and r.summary.startswith(f"SyntaxError in ex04_backprop.py, line {line}: ")


def test_an_infinite_loop_at_import_is_a_timeout_too(broken: dict[int, ExerciseResult]) -> None:
    assert broken[5].status == "timeout" and not broken[5].tests
    assert broken[5].summary.startswith("timeout: no result after 3 s while importing ex05_grad_accumulation.py")


def test_a_missing_file_is_an_error_that_says_how_to_restore_it(tmp_path: Path) -> None:
    problem = runner.import_problem(catalog.get(5), tmp_path)
    assert problem is not None and problem.startswith("ex05_grad_accumulation.py is missing from")
    assert "micrograd2 exercise start --force" in problem


def test_correct_solutions_pass(broken: dict[int, ExerciseResult]) -> None:
    for number in (6, 7, 8, 9):
        r = broken[number]
        assert r.passed and r.summary == f"all {len(r.tests)} tests passed" and r.tests_passed == len(r.tests) >= 4


def test_the_table_has_a_row_per_exercise_and_ends_with_the_count(broken: dict[int, ExerciseResult]) -> None:
    text = grader.table(list(broken.values()), width=100)
    lines = text.splitlines()
    assert lines[-1] == "4/9 exercises passed"
    assert len(lines) == 2 + 9 + 1 and all(len(line) <= 100 for line in lines)
    assert lines[2].startswith(" 1  Mul and Sum as Functions") and "failed" in lines[2] and "3/5" in lines[2]
    assert "timeout" in lines[4] and "error" in lines[3]


def test_the_json_report_lists_every_test(broken: dict[int, ExerciseResult], tmp_path: Path) -> None:
    path = tmp_path / "out" / "report.json"
    grader.write_report(path, grader.report(list(broken.values()), tmp_path, 4))
    data = json.loads(path.read_text())
    assert data["passed"] == 4 and data["total"] == 9 and data["timeout_s"] == 4
    first = data["exercises"][0]
    assert first["number"] == 1 and first["status"] == "failed" and first["tests_total"] == 5
    assert {"name", "outcome", "message", "details"} <= set(first["tests"][0])


def test_the_what_failed_column_reads_not_done_yet_for_a_stub() -> None:
    exercise = catalog.get(1)
    message = "NotImplementedError: Exercise 1: implement Mul.forward (ex01_mul_sum.py, line 3)"
    tests = [CaseResult("test_a", "failed", message)]
    result = grader._result(exercise, {"finished": True, "tests": [t.__dict__ for t in tests]}, "", False, 60, 1.0)
    assert result.status == "failed" and result.summary == "to do: implement Mul.forward (line 3)"
    crashed = grader._result(exercise, None, "Fatal Python error: boom\n", False, 60, 1.0)
    assert crashed.status == "error" and crashed.summary.endswith("Fatal Python error: boom")


def test_the_child_runs_this_micrograd2_without_outside_pytest_options(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "--collect-only")
    env = grader.child_environment(tmp_path)
    assert "PYTEST_ADDOPTS" not in env and env["MICROGRAD2_WORKSPACE"] == str(tmp_path)
    assert env["PYTHONPATH"].split(":")[0] == str(Path(grader.__file__).resolve().parents[2])
