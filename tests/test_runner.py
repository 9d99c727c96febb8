"""One exercise's tests against a student's module (micrograd2/exercises/runner.py), and its JSON report.

It proves that ``import_problem`` says how to restore a missing file and names an error at import with file
and line; that ``explain`` lets a ``Mistake`` speak for itself and gives any other error its place in the
student's workspace, its type and its message (a syntax error with the offending line); that
``python -m micrograd2.exercises.runner ID WORKSPACE REPORT.json`` writes a finished report with one entry per
public test (all passed on the model solution, each stub's "implement ..." on the stub), and with
``--tests DIR`` one per hidden test of DIR; and that a wrong command line is answered with its usage and
exit code 2.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from micrograd2.exercises import catalog, harness, runner, stubs
from micrograd2.exercises.harness import Mistake

ROOT = Path(__file__).resolve().parent.parent
TEACHER = ROOT / "teacher"


def test_a_missing_file_is_an_error_that_says_how_to_restore_it(tmp_path: Path) -> None:
    problem = runner.import_problem(catalog.get("U5.1"), tmp_path)
    assert problem is not None and problem.startswith("ex05_grad_accumulation.py is missing from")
    assert "micrograd2 exercise start --force" in problem


def test_an_error_at_import_is_named_with_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(harness.WORKSPACE_ENV, str(tmp_path))
    monkeypatch.setattr(sys, "path", list(sys.path))  # the student's folder joins sys.path
    exercise = catalog.get("U5.1")
    (tmp_path / exercise.filename).write_text("import math\n\nRATE = 1 / 0\n")
    assert runner.import_problem(exercise, tmp_path) == (
        "ex05_grad_accumulation.py:3: ZeroDivisionError while importing ex05_grad_accumulation.py: division by zero")
    (tmp_path / exercise.filename).write_text("def f(:\n    pass\n")
    problem = runner.import_problem(exercise, tmp_path)
    assert problem is not None and problem.startswith("ex05_grad_accumulation.py:1: SyntaxError: ")
    assert problem.splitlines()[1] == "    def f(:"
    assert exercise.name not in sys.modules  # a module that failed to import is not kept


def test_explain_gives_a_mistake_as_it_is_and_other_errors_their_place_type_and_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert runner.explain(Mistake("x0.grad is 3.0, expected 6.0"), tmp_path) == "x0.grad is 3.0, expected 6.0"
    (tmp_path / "student.py").write_text("def f(x):\n    return x * w\n")
    f = harness.load_module(tmp_path / "student.py", "student_for_explain").f
    with pytest.raises(NameError) as caught:
        f(2.0)
    assert runner.explain(caught.value, tmp_path) == "student.py:2: NameError: name 'w' is not defined"
    assert runner.explain(caught.value, tmp_path / "elsewhere") == "NameError: name 'w' is not defined"
    sys.modules.pop("student_for_explain")


def runner_report(key: str, workspace: Path, report: Path, *more: str) -> dict:
    """``python -m micrograd2.exercises.runner ID WORKSPACE REPORT`` as the grader starts it; the report it wrote."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, "-m", "micrograd2.exercises.runner", key, str(workspace),
                           str(report), *more], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text())


def test_a_run_writes_a_finished_report_with_every_test(tmp_path: Path) -> None:
    stubs.make_workspace(tmp_path / "ws")
    exercise = catalog.get("U5.3")
    on_stub = runner_report("7", tmp_path / "ws", tmp_path / "stub.json")  # an alias works too
    shutil.copy(TEACHER / "solutions" / exercise.filename, tmp_path / "ws" / exercise.filename)
    solved = runner_report("U5.3", tmp_path / "ws", tmp_path / "solved.json")
    names = [t["name"] for t in solved["tests"]]
    assert len(names) == exercise.test_file.read_text().count("\ndef test_") >= 4
    for report in (on_stub, solved):
        assert (report["id"], report["finished"], report["timed_out"], report["import_error"]) == (
            "U5.3", True, False, None)
        assert report["running"] is None and [t["name"] for t in report["tests"]] == names
    assert [t["outcome"] for t in solved["tests"]] == ["passed"] * len(names) and solved["exit_code"] == 0
    assert all(t["outcome"] == "failed" for t in on_stub["tests"]) and on_stub["exit_code"] == 1
    assert any(f"{exercise.filename}:" in t["message"] and "NotImplementedError: Exercise U5.3: " in t["message"]
               for t in on_stub["tests"])
    assert not (tmp_path / "solved.partial").exists()  # written whole, then moved into place


def test_hidden_tests_replace_the_public_ones(tmp_path: Path) -> None:
    stubs.make_workspace(tmp_path / "ws")
    exercise = catalog.get("U5.3")
    shutil.copy(TEACHER / "solutions" / exercise.filename, tmp_path / "ws" / exercise.filename)
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "test_ex07_custom_function_more.py").write_text(
        "import micrograd2 as mg\nfrom micrograd2.exercises.harness import load_student\n\n"
        "def test_hypot():\n    hypot = load_student('ex07_custom_function').Hypot\n"
        "    assert hypot.apply(mg.Value(3.0), mg.Value(4.0)).data == 5.0\n\n"
        "def test_two():\n    pass\n")
    hidden = runner_report("U5.3", tmp_path / "ws", tmp_path / "hidden.json", "--tests", str(tmp_path / "hidden"))
    assert [t["name"] for t in hidden["tests"]] == ["test_hypot", "test_two"]
    assert [t["outcome"] for t in hidden["tests"]] == ["passed", "passed"] and hidden["exit_code"] == 0
    none = runner_report("U2.1", tmp_path / "ws", tmp_path / "none.json", "--tests", str(tmp_path / "hidden"))
    assert none["import_error"].endswith("holds no test_ex03_topo_order*.py for exercise U2.1") and not none["tests"]


# -- skips: NOTE [Which skips are allowed] in runner.py -----------------------------------------------------
SKIPPING_TESTS = """\
import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import load_student


def student():
    return load_student("ex07_custom_function")


def test_runs():
    assert student().Hypot.apply(mg.Value(3.0), mg.Value(4.0)).data == 5.0


def test_live_against_torch():
    pytest.importorskip("torch")
    assert False, "not reached: torch is turned off"


@pytest.mark.skip(reason="later")
def test_marked_skip():
    pass


def test_student_skips():
    student().skip_me()


def test_student_importorskips():
    student().needs_torch()


def test_a_bare_assertion_error():
    student().fail_silently()
"""
STUDENT_EXTRAS = """

def skip_me():
    import pytest
    pytest.skip("not today")


def needs_torch():
    import pytest
    pytest.importorskip("torch")


def fail_silently():
    raise AssertionError()
"""


def test_only_the_tests_own_importorskip_may_skip_and_no_failure_lacks_a_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(runner.NO_TORCH, "1")  # torch absent, installed or not
    stubs.make_workspace(tmp_path / "ws")
    student = tmp_path / "ws" / "ex07_custom_function.py"
    student.write_text((TEACHER / "solutions" / student.name).read_text() + STUDENT_EXTRAS)
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "test_ex07_custom_function.py").write_text(SKIPPING_TESTS)
    report = runner_report("U5.3", tmp_path / "ws", tmp_path / "r.json", "--tests", str(tmp_path / "hidden"))
    tests = {t["name"]: t for t in report["tests"]}
    assert [t["outcome"] for t in report["tests"]] == ["passed", "skipped", "failed", "failed", "failed", "failed"]
    assert tests["test_live_against_torch"]["message"] == "skipped: PyTorch turned off (MICROGRAD2_NO_TORCH=1)"
    assert tests["test_live_against_torch"]["needs"] == "PyTorch"
    assert tests["test_marked_skip"]["message"] == (
        "the test was skipped (later), and a skip is not a pass: only the test's own pytest.importorskip of a "
        "missing optional package may skip it")
    lines = student.read_text().splitlines()
    at = 1 + lines.index('    pytest.skip("not today")')
    assert tests["test_student_skips"]["message"].startswith(
        f"ex07_custom_function.py:{at}: the test was skipped (not today), and a skip is not a pass")
    assert tests["test_student_skips"]["message"].endswith("; remove the skip from your code")
    assert "a skip is not a pass" in tests["test_student_importorskips"]["message"]
    assert tests["test_a_bare_assertion_error"]["message"] == (
        f"ex07_custom_function.py:{len(lines)}: AssertionError (an assert with no message)")
    assert all(t["message"] for t in report["tests"] if t["outcome"] != "passed")


def test_a_test_file_skipped_whole_by_its_importorskip_is_recorded_as_such(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(runner.NO_TORCH, "1")
    stubs.make_workspace(tmp_path / "ws")
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "test_ex07_custom_function.py").write_text(
        "import pytest\n\ntorch = pytest.importorskip('torch')\n\ndef test_x():\n    pass\n")
    (tmp_path / "hidden" / "test_ex01_mul_sum.py").write_text(
        "import pytest\n\npytest.skip('not yet', allow_module_level=True)\n\ndef test_x():\n    pass\n")
    whole = runner_report("U5.3", tmp_path / "ws", tmp_path / "a.json", "--tests", str(tmp_path / "hidden"))
    assert [(t["name"], t["outcome"], t["needs"]) for t in whole["tests"]] == [
        ("collecting test_ex07_custom_function.py", "skipped", "PyTorch")]
    other = runner_report("U1.1", tmp_path / "ws", tmp_path / "b.json", "--tests", str(tmp_path / "hidden"))
    [entry] = other["tests"]
    assert entry["outcome"] == "failed" and entry["message"].startswith("the test was skipped (not yet), and a skip")


def test_a_missing_module_fails_each_test_with_where_it_looked(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(harness.WORKSPACE_ENV, raising=False)
    with pytest.raises(harness.MissingModule) as caught:
        harness.load_student("ex01_mul_sum", str(tmp_path / "tests" / "test_ex01_mul_sum.py"))
    assert runner.explain(caught.value, tmp_path) == (f"ex01_mul_sum.py is missing from {tmp_path}: this exercise "
                                                      "fails until it is there (`micrograd2 exercise start --force "
                                                      "DIR` writes fresh stubs)")


def test_a_wrong_command_line_gets_its_usage_and_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert runner.main(["7"]) == 2 and runner.main(["7", "ws", "r.json", "--tests"]) == 2
    assert capsys.readouterr().err.startswith("usage: python -m micrograd2.exercises.runner ID WORKSPACE REPORT.json")
