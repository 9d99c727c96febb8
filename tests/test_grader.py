"""The grader: public or hidden tests in a subprocess per exercise, timeouts that say where the code was, syntax and
import errors named with file and line, nothing left running after Ctrl-C, SIGTERM or SIGKILL.  (The runner's own
tests, one exercise in one process, are in test_runner.py; the time limits' in test_bounds.py.)"""
from __future__ import annotations

import ast
import importlib.util
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from micrograd2.exercises import catalog, grader, reporting, stubs
from micrograd2.exercises.grader import CaseResult, ExerciseResult

TEACHER = Path(__file__).resolve().parents[1] / "teacher"


def solution(key: int | str) -> Path:
    """The model solution of exercise ``key`` (an alias or an id; teacher/solutions/, not installed)."""
    return TEACHER / "solutions" / catalog.get(key).filename


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> dict[int, ExerciseResult]:
    """A workspace with one kind of trouble in each of exercises 1-5 and the solutions of 6-9, graded once
    (exercises 3 and 5, infinite loops, with a 3 s timeout)."""
    ws = tmp_path_factory.mktemp("broken")
    stubs.make_workspace(ws)
    source = {n: solution(n).read_text(encoding="utf-8") for n in range(1, 10)}
    (ws / "ex01_mul_sum.py").write_text(source[1].replace("return grad * b, grad * a", "return grad * a, grad * b"))
    (ws / "ex02_activations.py").write_text(source[2].replace("import math\n", "import math\nimport not_there\n"))
    (ws / "ex03_topo_order.py").write_text(source[3].replace("    start = root.grad_fn\n",
                                                             "    while True:\n        pass\n", 1))
    (ws / "ex04_backprop.py").write_text(source[4].replace("if grad is None:", "if grad is None", 1))
    (ws / "ex05_grad_accumulation.py").write_text(source[5] + "\nwhile True:\n    pass\n")
    for number in (6, 7, 8, 9):
        shutil.copy(solution(number), ws / catalog.get(number).filename)
    (ws / "tests" / "test_ex01_mul_sum.py").write_text("def test_nothing():\n    pass\n")  # edited local tests
    results = grader.check(ws, [1, 2, 4, 6, 7, 8, 9], jobs=2) + grader.check(ws, [3, 5], timeout=3, jobs=2)
    return {catalog.get(r.id).alias or 0: r for r in results}


# A 3 s limit is reached as 3 s of CPU time, or as twice that in wall-clock time less any wait for a CPU.
SPENT_3 = ("3 s of CPU time", "6 s")


def line_of(number: int, text: str, workspace_file: str | None = None) -> int:
    """The 1-based line of the first line containing ``text`` in exercise ``number``'s model solution."""
    lines = (workspace_file or solution(number).read_text()).splitlines()
    return 1 + next(i for i, line in enumerate(lines) if text in line)


def test_a_wrong_backward_is_reported_with_the_first_differing_trace_step(broken: dict[int, ExerciseResult]) -> None:
    r = broken[1]
    assert r.status == "failed" and 0 < r.tests_passed < len(r.tests)
    line = line_of(1, "def backward")  # Mul's, the first Function of the file: where the student's error is
    assert r.summary.startswith(f"ex01_mul_sum.py:{line} in Mul.backward: step 1 of the backward walk of a * b "
                                "(x0=3.0, x1=4.0): node MulBackward (the reference's MulBackward0), output 12.0, "
                                "upstream gradient 1.0: its gradient for input 0 is 3.0, expected 4.0")
    failed = [t for t in r.tests if t.outcome == "failed"]
    assert failed[0].name == "test_mul_backward_matches_the_builtin_walk" and "expected 4.0" in failed[0].details
    assert r.details == failed[0].details


def test_edited_local_tests_do_not_change_the_grade(broken: dict[int, ExerciseResult]) -> None:
    assert broken[1].status == "failed" and len(broken[1].tests) == 5


def test_an_import_error_is_named_with_file_and_line(broken: dict[int, ExerciseResult]) -> None:
    r = broken[2]
    assert r.status == "error" and not r.tests
    line = 1 + line_of(2, "import math")
    assert r.summary == (f"ex02_activations.py:{line}: ModuleNotFoundError while importing ex02_activations.py: "
                         "No module named 'not_there'")


def test_an_infinite_loop_is_a_timeout_naming_the_test_and_the_line(broken: dict[int, ExerciseResult]) -> None:
    r = broken[3]
    assert r.status == "timeout" and r.seconds < 120  # a generous bound: the limit itself is checked below
    line = line_of(3, "start = root.grad_fn")  # where `while True: pass` was put
    assert r.summary in [f"timeout after {spent} at ex03_topo_order.py:{at} in reverse_topological_order, in "
                         "test_block1_graph_is_ordered (an infinite loop, or far too slow?)"
                         for at in (line, line + 1) for spent in SPENT_3]


def test_a_syntax_error_is_named_with_file_and_line_and_the_line_itself(broken: dict[int, ExerciseResult]) -> None:
    r = broken[4]
    line = line_of(4, "if grad is None:")
    assert r.status == "error" and r.summary.startswith(f"ex04_backprop.py:{line}: SyntaxError: ")
    assert r.details.splitlines()[1].strip() == "if grad is None"


def test_an_infinite_loop_at_import_is_a_timeout_too(broken: dict[int, ExerciseResult]) -> None:
    assert broken[5].status == "timeout" and not broken[5].tests
    assert any(broken[5].summary.startswith(f"timeout after {spent} at ex05_grad_accumulation.py:")
               for spent in SPENT_3)
    assert "in <module>, while importing ex05_grad_accumulation.py" in broken[5].summary


def test_a_name_error_in_a_test_keeps_file_line_and_message(tmp_path: Path) -> None:
    stubs.make_workspace(tmp_path)
    source = solution(7).read_text(encoding="utf-8")
    broken = source.replace("return grad_output * 4 * x", "return grad_output * 4 * y", 1)
    assert broken != source
    (tmp_path / "ex07_custom_function.py").write_text(broken)
    [r] = grader.check(tmp_path, [7])
    line = line_of(7, "return grad_output * 4 * y", broken)
    assert r.status == "failed"
    assert r.summary == f"ex07_custom_function.py:{line}: NameError: name 'y' is not defined"


def test_correct_solutions_pass(broken: dict[int, ExerciseResult]) -> None:
    for number in (6, 7, 8, 9):
        r = broken[number]
        assert r.passed and r.summary == f"all {len(r.tests)} tests passed" and r.tests_passed == len(r.tests) >= 4


@pytest.mark.slow
def test_every_model_solution_passes_within_its_default_timeout(tmp_path: Path) -> None:
    stubs.make_workspace(tmp_path)
    for e in catalog.EXERCISES:
        shutil.copy(TEACHER / "solutions" / e.filename, tmp_path / e.filename)
    for hole in ("u1_record.py", "u2_walk.py"):  # U1.3, U2.3 and U5.6 grade engine/ (course_units.py)
        shutil.copy(TEACHER / "solution_engine" / hole, tmp_path / "engine" / hole)
    results = grader.check(tmp_path, jobs=2)
    assert len(results) == len(catalog.EXERCISES)
    assert [f"{r.id} {r.status}: {r.summary}" for r in results if not r.passed] == []


def test_the_default_timeout_is_a_small_multiple_of_the_reference_time() -> None:
    tests = Path(grader.__file__).parent / "tests"
    for e in catalog.EXERCISES:
        limit = grader.default_timeout(e.id)
        assert limit == max(grader.MIN_TIMEOUT, round(4 * grader.REFERENCE_SECONDS.get(e.id, 1.0), 1))
        # importing torch (a live comparison, where it is installed) costs about 3 s of CPU time
        live = 'importorskip("torch")' in (tests / f"test_{e.name}.py").read_text(encoding="utf-8")
        assert limit < (20 if live else 10), e.id
    assert grader.default_timeout(3) == grader.default_timeout("U2.1")  # an alias


def test_each_test_has_its_own_limit_a_small_multiple_of_the_model_solutions() -> None:
    for e in catalog.EXERCISES:
        most = grader.per_test_timeout(e.id)
        assert grader.MIN_TEST_TIMEOUT <= most <= grader.default_timeout(e.id)
        assert grader.per_test_timeout(e.id, "test_anything_light") == grader.MIN_TEST_TIMEOUT
    deep = "test_a_100000_deep_chain_works_without_recursion"
    assert grader.per_test_timeout("U2.1", deep) == grader.per_test_timeout("U2.1") == 4 * 1.8
    assert grader.per_test_timeout("U2.1", "test_block1_graph_is_ordered") == grader.MIN_TEST_TIMEOUT
    for exercise_id, measured in grader.REFERENCE_TEST_CPU.items():  # each names a test that exists
        e = catalog.get(exercise_id)
        text = "".join(f.read_text(encoding="utf-8") for f in
                       (*catalog.test_files(e), *catalog.test_files(e, TEACHER / "hidden")))
        assert all(f"def {name}(" in text for name in measured), exercise_id


def test_an_infinite_loop_stops_at_its_tests_own_limit(tmp_path: Path) -> None:
    stubs.make_workspace(tmp_path)
    source = solution(3).read_text(encoding="utf-8")
    (tmp_path / "ex03_topo_order.py").write_text(source.replace("    start = root.grad_fn\n",
                                                                "    while True:\n        pass\n", 1))
    [r] = grader.check(tmp_path, ["U2.1"])
    assert r.status == "timeout" and grader.default_timeout("U2.1") > grader.MIN_TEST_TIMEOUT
    assert r.summary.startswith(f"timeout after {grader.MIN_TEST_TIMEOUT:g} s of CPU time at ex03_topo_order.py:")
    assert r.summary.endswith("in test_block1_graph_is_ordered (an infinite loop, or far too slow?)")


def test_the_stub_column_reads_to_do() -> None:
    exercise = catalog.get("U1.1")
    message = "ex01_mul_sum.py:3: NotImplementedError: Exercise U1.1: implement Mul.forward"
    tests = [CaseResult("test_a", "failed", message, message)]
    result = grader.result_of(exercise, {"finished": True, "tests": [t.__dict__ for t in tests]}, "", False, 60, 1.0)
    assert result.status == "failed" and result.summary == "to do: implement Mul.forward (ex01_mul_sum.py:3)"
    crashed = grader.result_of(exercise, None, "Fatal Python error: boom\n", False, 60, 1.0)
    assert crashed.status == "error" and crashed.summary.endswith("Fatal Python error: boom")


def test_hidden_tests_grade_with_the_same_result_and_diagnoses(tmp_path: Path) -> None:
    stubs.make_workspace(tmp_path)
    source = solution(1).read_text(encoding="utf-8")
    (tmp_path / "ex01_mul_sum.py").write_text(source.replace("return grad * b, grad * a", "return b, a"))
    shutil.copy(solution(7), tmp_path / "ex07_custom_function.py")
    hidden = TEACHER / "hidden"  # the teacher's own hidden tests
    wrong, solved = grader.check(tmp_path, ["U1.1", "U5.3"], jobs=2, tests_dir=hidden)
    counts = [catalog.count_tests(catalog.test_files(catalog.get(i), hidden)) for i in ("U1.1", "U5.3")]
    assert (wrong.id, wrong.status, wrong.tests_total) == ("U1.1", "failed", counts[0])
    assert "the upstream gradient is ignored" in wrong.details
    assert (solved.id, solved.status, solved.tests_total) == ("U5.3", "passed", counts[1])


# -- grading without optional packages (NOTE [Which skips are allowed] in runner.py) -----------------------
HAS_TORCH = importlib.util.find_spec("torch") is not None


def solved_workspace(folder: Path, *keys: str) -> Path:
    stubs.make_workspace(folder)
    for key in keys:
        shutil.copy(solution(key), folder / catalog.get(key).filename)
    return folder


def test_a_test_skipped_for_pytorch_is_not_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MICROGRAD2_NO_TORCH", "1")  # as if PyTorch were not installed
    results = grader.check(solved_workspace(tmp_path, "U4.1", "U4.2"), ["U4.1", "U4.2"], jobs=2)
    for r, live in zip(results, ("test_hvp_matches_torch", "test_the_log_and_the_clipped_gradients_match_torch")):
        assert r.status == "passed" and r.tests_passed == r.tests_total - 1, r.summary
        assert r.summary == f"skipped: PyTorch turned off (MICROGRAD2_NO_TORCH=1) ({live}); 6 tests passed"
        assert [(t.name, t.needs) for t in r.skipped] == [(live, "PyTorch")]
    row = reporting.table(results).splitlines()[2]
    assert " passed " in row and "skipped: PyTorch turned off" in row


@pytest.mark.slow  # PyTorch's import: about 3 s of CPU time per runner
@pytest.mark.skipif(not HAS_TORCH, reason="needs PyTorch installed: the live comparison runs")
def test_with_pytorch_installed_the_live_comparisons_run(tmp_path: Path) -> None:
    results = grader.check(solved_workspace(tmp_path, "U4.1", "U4.2"), ["U4.1", "U4.2"], jobs=2)
    assert [(r.status, r.tests_passed == r.tests_total, r.skipped) for r in results] == [("passed", True, [])] * 2


def test_an_exercise_whose_tests_all_skipped_is_not_graded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MICROGRAD2_NO_TORCH", "1")
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_ex07_custom_function.py").write_text(
        "import pytest\n\ndef test_live():\n    pytest.importorskip('torch')\n")
    [r] = grader.check(solved_workspace(tmp_path / "ws", "U5.3"), ["U5.3"], tests_dir=hidden)
    assert (r.status, r.passed, r.summary) == ("not graded", False, "not graded: needs PyTorch")
    assert reporting.passed_line([r]) == "0/1 exercises passed; 1 not graded: needs PyTorch"


def test_every_public_test_file_has_a_test_that_runs_without_pytorch() -> None:
    for e in catalog.EXERCISES:
        tree = ast.parse(e.test_file.read_text(encoding="utf-8"))
        tests = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")]
        free = [f for f in tests if "torch" not in ast.unparse(f)]
        assert free, f"{e.id}: every public test needs PyTorch; add one that does not (finite differences)"


def test_no_failure_is_ever_shown_without_a_reason() -> None:
    exercise = catalog.get("U1.1")
    quiet = [{"name": "test_a", "outcome": outcome, "message": "", "details": ""}
             for outcome in ("failed", "error", "skipped")]
    reports = [None, {}, {"finished": True}, {"finished": True, "tests": []}, {"timed_out": True},
               {"finished": True, "import_error": "  "}, {"finished": True, "tests": quiet},
               *({"finished": True, "tests": [{"name": "test_ok", "outcome": "passed"}, t]} for t in quiet)]
    for report in reports:
        for output in ("", "\n"):
            r = grader.result_of(exercise, report, output, False, 3.0, 0.1)
            assert r.passed or r.summary.strip(), (report, r)
            row = reporting.table([r]).splitlines()[2]
            assert r.passed or row.endswith(r.summary) or row.endswith("…")


def test_selection_reads_units_ids_and_aliases() -> None:
    assert [e.id for e in grader.selected(["U2", 7, "u2.1"])] == ["U2.1", "U2.2", "U2.3", "U5.3"]
    assert grader.selected(None) == list(catalog.EXERCISES)


def test_the_child_runs_this_micrograd2_without_outside_pytest_options(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "--collect-only")
    env = grader.child_environment(tmp_path)
    assert "PYTEST_ADDOPTS" not in env and env["MICROGRAD2_WORKSPACE"] == str(tmp_path)
    assert env["PYTHONPATH"].split(":")[0] == str(Path(grader.__file__).resolve().parents[2])


def test_a_foreign_folder_is_not_a_workspace(tmp_path: Path) -> None:
    assert not grader.is_workspace(tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    assert not grader.is_workspace(tmp_path)
    stubs.make_workspace(tmp_path / "ws")
    assert grader.is_workspace(tmp_path / "ws")


# -- a workspace that hangs everywhere: fast, and nothing left running ----------------------------------------
def hanging_workspace(folder: Path) -> Path:
    """A workspace where every exercise loops for ever as it is imported."""
    stubs.make_workspace(folder)
    for e in catalog.EXERCISES:
        path = folder / e.filename
        path.write_text(path.read_text(encoding="utf-8") + "\nwhile True:\n    pass\n", encoding="utf-8")
    return folder


def runners_of(workspace: Path) -> list[int]:
    """The pids of the live runner processes grading ``workspace`` (read from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"micrograd2.exercises.runner" in words and str(workspace).encode() in words and state != "Z":
            pids.append(int(entry.name))
    return pids


def start_grader(workspace: Path) -> subprocess.Popen[bytes]:
    """``micrograd2 exercise check WORKSPACE`` in a subprocess (Ctrl-C's default handling restored), once its
    first runners are up."""
    env = {**os.environ, "PYTHONPATH": str(Path(grader.__file__).resolve().parents[2])}
    grading = subprocess.Popen([sys.executable, "-m", "micrograd2", "exercise", "check", str(workspace), "--jobs", "2"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120  # generous: only a grader that starts nothing should reach it
    while len(runners_of(workspace)) < 2:
        assert time.monotonic() < deadline and grading.poll() is None, "the grader started no runner"
        time.sleep(0.05)
    return grading


def wait_until_gone(workspace: Path, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while runners_of(workspace) and time.monotonic() < deadline:
        time.sleep(0.05)
    return runners_of(workspace)


needs_proc = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads processes from /proc")


@pytest.mark.slow
def test_a_workspace_that_hangs_everywhere_is_graded_within_its_limits(tmp_path: Path) -> None:
    workspace = hanging_workspace(tmp_path / "ws")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    results = grader.check(workspace, jobs=2)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU time, not wall-clock time: a busy machine makes the run longer, not the runners' share of work.
    # Each runner stops at its own CPU limit (plus its start-up, under 2 s), never runs on.
    spent = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    # Each stops at its import's own limit (NOTE [A test's own limit]), not at the exercise's.
    assert spent < sum(grader.per_test_timeout(n) + 1.5 for n in catalog.IDS) < \
        sum(grader.default_timeout(n) for n in catalog.IDS)
    assert [r.status for r in results] == ["timeout"] * len(catalog.EXERCISES)
    for r in results:
        assert f"at {r.name}.py:" in r.summary and "in <module>, while importing" in r.summary


@needs_proc
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_or_ctrl_c_stops_the_grader_at_once_and_every_runner(tmp_path: Path, signum: int) -> None:
    workspace = hanging_workspace(tmp_path / "ws")
    grading = start_grader(workspace)
    sent = time.monotonic()
    grading.send_signal(signum)
    _, err = grading.communicate(timeout=120)
    # At once: waiting for the limits of the 9 hanging exercises instead would take at least 9 × 3 s of CPU
    # time on 2 jobs, 13.5 s even on a quiet machine; a busy one only makes that longer.
    assert time.monotonic() - sent < 12
    assert grading.returncode == 128 + signum
    assert "every running exercise was ended" in err.decode() and "Traceback" not in err.decode()
    assert wait_until_gone(workspace, 0.5) == []


@needs_proc
def test_runners_end_by_themselves_when_the_grader_is_killed(tmp_path: Path) -> None:
    workspace = hanging_workspace(tmp_path / "ws")
    grading = start_grader(workspace)
    grading.kill()
    grading.wait()
    assert wait_until_gone(workspace, 3) == []
