"""Grade a student workspace: each exercise's tests in a subprocess with a time limit.

``check(workspace, which)`` runs ``runner`` once per exercise, a few at a
time, and returns one ``ExerciseResult`` each (``reporting`` turns them into
the table, the diagnoses and the JSON a teacher collects).  The tests come from
the installed package (the public tests), or from a teacher's folder
(``tests_dir``: the hidden tests, ``catalog.test_files``), never from the
workspace, so editing the workspace's copy of the tests cannot change a grade.

Time: each test may use a small multiple of the model solution's slowest test
(``per_test_timeout``), and each exercise in all a small multiple of the
model solution's run (``default_timeout``), so a workspace that hangs everywhere
is graded in under a minute (NOTE [A test's own limit] in bounds.py).  Nothing
is left running: the runners stop themselves at their limit and when the grader
is gone (``bounds``), and ``check`` ends every runner it started, process group
and all, when it returns, on Ctrl-C and on SIGTERM.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from . import bounds, catalog, harness

PASSED, FAILED, TIMEOUT, ERROR = "passed", "failed", "timeout", "error"
NOT_GRADED = "not graded"  # every test skipped for a missing optional package (NOTE in runner.py)
SKIPPED = "skipped"  # a test's outcome: allowed only through the tests' own pytest.importorskip

# Wall-clock seconds the model solution's run takes (start-up included) on a 2-core CI machine.
REFERENCE_SECONDS = {"U1.1": 0.8, "U1.2": 0.8, "U2.1": 2.0, "U2.2": 0.7, "U5.1": 0.5, "U5.2": 0.5, "U5.3": 0.5,
                     "U5.4": 0.5, "U5.5": 1.4, "U1.0": 0.8,
                     "U1.3": 2.4, "U2.3": 2.4, "U5.6": 2.4,  # U1.3, U2.3, U5.6: each runs new processes,
                     # whose wait for a CPU on a busy machine counts against the wall-clock limit
                     "U4.1": 4.0, "U4.2": 3.3, "U4.3": 0.7, "U4.4": 0.5,  # U4.1, U4.2: torch imported
                     "U3.1": 1.5, "U3.2": 1.5, "U3.3": 1.5, "U3.4": 1.5, "U3.5": 1.0}  # U3: gradcheck
# CPU seconds of the model solution's tests (public and hidden, teacher/hidden) that take over 0.3 s,
# by exercise and test function, measured on a 2-core machine; every other test takes under 0.3 s.
REFERENCE_TEST_CPU = {
    "U2.1": {"test_a_100000_deep_chain_works_without_recursion": 1.8,
             "test_a_ladder_of_diamonds_without_recursion_or_revisits": 0.45},
    "U2.3": {"test_a_100000_node_chain_works_without_recursion": 0.45},
    "U4.1": {"test_hvp_matches_torch": 1.8},  # importing torch, where it is installed
    "U4.2": {"test_the_log_and_the_clipped_gradients_match_torch": 1.2},  # importing torch
    "U5.5": {"test_fit_separates_the_moons": 0.7, "test_fit_on_another_draw": 0.45},
}
TIMEOUT_FACTOR = 4.0
MIN_TIMEOUT = 3.0
MIN_TEST_TIMEOUT = 1.5  # a student's `import torch` at the top of a module takes about 2 s on a slow laptop
GRACE_S = 2.0  # past its own wall-clock limit, the grader kills a runner that has not stopped itself
POLL_S = 0.05
GRADER_PID_ENV = "MICROGRAD2_GRADER_PID"  # tells a runner whose end to watch for (it may start after it)
PER_TEST_FLAG = "--per-test"  # the runner lowers each test's limit to its own (per_test_timeout)


def default_timeout(key: str | int) -> float:
    """Seconds of CPU time exercise ``key`` (an id or an alias) may use: ``TIMEOUT_FACTOR`` × its model
    solution's, at least ``MIN_TIMEOUT``."""
    return max(MIN_TIMEOUT, round(TIMEOUT_FACTOR * REFERENCE_SECONDS.get(catalog.get(key).id, 1.0), 1))


def per_test_timeout(key: str | int, test: str | None = None) -> float:
    """Seconds of CPU time the test ``test`` (a test function's name) of exercise ``key`` may use
    (NOTE [A test's own limit] in bounds.py): ``TIMEOUT_FACTOR`` × the model solution's, at least
    ``MIN_TEST_TIMEOUT``, never more than the exercise's own limit.  Without ``test``: the most
    any test of the exercise may use, which the import of the student's module may use too."""
    exercise = catalog.get(key)
    measured = REFERENCE_TEST_CPU.get(exercise.id, {})
    seconds = measured.get(test.split("[")[0], 0.0) if test is not None else max(measured.values(), default=0.0)
    own = max(MIN_TEST_TIMEOUT, round(TIMEOUT_FACTOR * seconds, 1))
    return min(own, default_timeout(exercise.id))


def one_line(text: str, limit: int = 300) -> str:
    """The first line of ``text``, at most ``limit`` characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass
class CaseResult:
    """One test case: its name, ``passed``/``failed``/``error``/``skipped``, what failed or why it was
    skipped (one line, and in full), and for a skip the package it needs (``PyTorch``)."""

    name: str
    outcome: str
    message: str = ""
    details: str = ""
    needs: str = ""


@dataclass
class ExerciseResult:
    """One exercise's grade (``id``: ``U2.1``): ``status`` is passed, failed, timeout, error or not graded (its
    tests all skipped for a missing optional package); ``summary`` says why in one line (never empty unless
    passed without a skip), ``details`` in full; ``timeout`` is the limit it ran under (seconds of CPU time),
    ``test_timeout`` the most one test, or the import of the module, may use (0.0: no such limit)."""

    id: str
    name: str
    title: str
    status: str
    summary: str
    seconds: float
    tests_total: int
    tests: list[CaseResult] = field(default_factory=list)
    details: str = ""
    timeout: float = 0.0
    test_timeout: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def tests_passed(self) -> int:
        return sum(t.outcome == PASSED for t in self.tests)

    @property
    def skipped(self) -> list[CaseResult]:
        """The tests skipped for a missing optional package."""
        return [t for t in self.tests if t.outcome == SKIPPED]


def is_workspace(directory: Path) -> bool:
    """Whether ``directory`` holds at least one exercise's file (an empty or foreign folder holds none)."""
    return any((directory / e.filename).is_file() for e in catalog.EXERCISES)


def child_environment(workspace: Path) -> dict[str, str]:
    """The environment of a test run: this micrograd2 first on the path, no pytest options from outside."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    package_root = str(Path(harness.__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[harness.WORKSPACE_ENV] = str(workspace)
    env[GRADER_PID_ENV] = str(os.getpid())
    return env


class Run:
    """One exercise's runner process: started at once, polled, and ended with its whole process group."""

    def __init__(self, exercise: catalog.Exercise, workspace: Path, timeout: float,
                 tests_dir: Path | None = None, test_timeout: float | None = None,
                 per_test: bool = False) -> None:
        """``test_timeout``: what the import and any one test may use (default ``timeout``);
        ``per_test``: each test at most its own ``per_test_timeout``."""
        self.exercise, self.workspace, self.timeout = exercise, workspace, timeout
        self.test_timeout = timeout if test_timeout is None else test_timeout
        self.test_files = catalog.test_files(exercise, tests_dir)
        self.folder = tempfile.TemporaryDirectory(prefix="mg2-grade-")
        tmp = Path(self.folder.name)
        self.report_path, self.log_path = tmp / "report.json", tmp / "output.txt"
        command = [sys.executable, "-m", "micrograd2.exercises.runner", exercise.id, str(workspace),
                   str(self.report_path), repr(timeout), repr(self.test_timeout)]
        if per_test:
            command.append(PER_TEST_FLAG)
        if tests_dir is not None:
            command += ["--tests", str(tests_dir)]
        self.started = time.monotonic()
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(command, cwd=tmp, env=child_environment(workspace),
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        self.clock = bounds.WaitClock(self.process.pid)  # wall-clock time less the runner's wait for a CPU
        self.killed = False

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def done(self) -> bool:
        """Whether the run has ended (killing it, with all it started, once it is past its wall-clock limit)."""
        if self.process.poll() is not None:
            return True
        if self.clock.seconds() > bounds.wall_limit(self.timeout) + GRACE_S:
            self.kill()
            self.killed = True
            return True
        return False

    def kill(self) -> None:
        """End the runner and every process it started (its own process group)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        except AttributeError:  # pragma: no cover - Windows
            self.process.kill()
        self.process.wait()

    def result(self) -> ExerciseResult:
        """The grade, from the runner's report and output; removes the run's files."""
        try:
            report = _read_json(self.report_path)
            output = self.log_path.read_text(encoding="utf-8", errors="replace")
        finally:
            self.close()
        result = result_of(self.exercise, report, output, self.killed, self.timeout, self.elapsed,
                           catalog.count_tests(self.test_files))
        result.test_timeout = self.test_timeout
        return result

    def close(self) -> None:
        self.folder.cleanup()


Status = Callable[[Sequence[Run], int, int], None]  # (running, finished, total) -> show it


def check(workspace: Path, which: Sequence[str | int] | None = None, timeout: float | None = None,
          jobs: int | None = None, status: Status | None = None,
          tests_dir: Path | None = None) -> list[ExerciseResult]:
    """Grade the exercises ``which`` names (ids, aliases or units; all by default) of ``workspace``, ``jobs``
    runners at a time (default: up to 4), with their public tests or the hidden tests of ``tests_dir``.

    ``timeout`` (seconds of CPU time per test, and per exercise in all) defaults to
    ``per_test_timeout`` and ``default_timeout``; ``status(running,
    finished, total)`` is called as runs start and end and every ``POLL_S`` seconds in between.  Ctrl-C
    (``KeyboardInterrupt``) and SIGTERM (``Stopped``) end every runner before they propagate."""
    workspace = workspace.resolve()
    tasks = [(workspace, exercise) for exercise in selected(which)]
    return [r for _, r in grade(tasks, timeout, jobs or min(4, os.cpu_count() or 1), status, tests_dir)]


Task = tuple[Path, catalog.Exercise]  # a workspace and one of its exercises


def grade(tasks: Sequence[Task], timeout: float | None = None, jobs: int | None = None,
          status: Status | None = None, tests_dir: Path | None = None) -> list[tuple[Path, ExerciseResult]]:
    """Grade each (workspace, exercise) of ``tasks``, ``jobs`` runners at a time (default: one per CPU),
    whichever workspace they belong to; the results in the order of ``tasks``.  The rest as ``check``."""
    tests_dir = tests_dir.resolve() if tests_dir is not None else None
    pending = deque((workspace.resolve(), exercise) for workspace, exercise in tasks)
    order = {(workspace, exercise.id): i for i, (workspace, exercise) in enumerate(pending)}
    total, jobs = len(pending), max(1, jobs or os.cpu_count() or 1)
    running: list[Run] = []
    results: list[tuple[Path, ExerciseResult]] = []
    try:
        with _sigterm_stops():
            while pending or running:
                while pending and len(running) < jobs:
                    workspace, exercise = pending.popleft()
                    limit = timeout or default_timeout(exercise.id)  # --timeout: per test and in all
                    test_limit = timeout or per_test_timeout(exercise.id)
                    running.append(Run(exercise, workspace, limit, tests_dir, test_limit, per_test=not timeout))
                for run in [r for r in running if r.done()]:
                    running.remove(run)
                    results.append((run.workspace, run.result()))
                if status is not None:
                    status(running, len(results), total)
                if running:
                    time.sleep(POLL_S)
    finally:
        for run in running:
            run.kill()
            run.close()
    return sorted(results, key=lambda done: order[done[0], done[1].id])


def selected(which: Sequence[str | int] | None) -> list[catalog.Exercise]:
    """The exercises ``which`` names (``catalog.select`` of each), in course order, each once."""
    if not which:
        return list(catalog.EXERCISES)
    chosen = {e.id for key in which for e in catalog.select(key)}
    return [e for e in catalog.EXERCISES if e.id in chosen]


class Stopped(KeyboardInterrupt):
    """The grader received SIGTERM (every runner has been ended)."""


@contextmanager
def _sigterm_stops() -> Iterator[None]:
    """While grading, SIGTERM raises ``Stopped`` (so ``check`` ends its runners, as on Ctrl-C)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise Stopped("SIGTERM")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def result_of(exercise: catalog.Exercise, report: dict[str, Any] | None, output: str, killed: bool,
              timeout: float, seconds: float, test_count: int | None = None) -> ExerciseResult:
    """The table's row and diagnosis for one exercise: the runner's ``report`` (``None`` if it gave
    none), what it printed, whether it was ``killed`` at its ``timeout``, and how long it took.
    The browser playground grades with it too."""
    tests = [CaseResult(**t) for t in (report or {}).get("tests", [])]
    counted = exercise.test_count if test_count is None else test_count
    result = ExerciseResult(exercise.id, exercise.name, exercise.title, FAILED, "", round(seconds, 2),
                            max(counted, len(tests)), tests, timeout=timeout)
    report = report or {}
    if killed or report.get("timed_out"):
        result.status = TIMEOUT
        result.summary = _timeout_summary(report, timeout)
        result.details = result.summary
    elif not report.get("finished"):
        last = one_line(output.strip().splitlines()[-1]) if output.strip() else "no output"
        result.status, result.summary = ERROR, f"the test run stopped without a report: {last}"
        result.details = output.strip() or result.summary
    elif report.get("import_error"):
        result.status, result.details = ERROR, report["import_error"]
        result.summary = one_line(result.details)
    elif not tests:
        result.status, result.summary = ERROR, "no test ran"
    elif all(t.outcome == SKIPPED for t in tests):
        needs = " and ".join(dict.fromkeys(t.needs or "an optional package" for t in tests))
        result.status, result.summary = NOT_GRADED, f"not graded: needs {needs}"
        result.details = "; ".join(f"{t.name}: {t.message}" for t in tests)
    elif all(t.outcome in (PASSED, SKIPPED) for t in tests):
        result.status, result.summary = PASSED, _passed_summary(tests)
    else:
        first = next(t for t in tests if t.outcome not in (PASSED, SKIPPED))
        said = f"{first.name} {first.outcome}, without a message"
        result.summary = _what_failed(first.message) or said
        result.details = _what_failed(first.details) or result.summary
    if result.status != PASSED and not result.summary.strip():  # no failure without a reason
        result.summary = f"{result.status}, without a message (run pytest in the workspace to see more)"
    return result


def _passed_summary(tests: Sequence[CaseResult]) -> str:
    """``all 7 tests passed``, or ``skipped: PyTorch not installed (test_x); 6 tests passed``."""
    skipped = [t for t in tests if t.outcome == SKIPPED]
    if not skipped:
        return f"all {len(tests)} tests passed"
    reasons = {t.message: [s.name for s in skipped if s.message == t.message] for t in skipped}
    said = "; ".join(f"{message} ({', '.join(names)})" for message, names in reasons.items())
    ran = len(tests) - len(skipped)
    return f"{said}; {ran} test{'s' if ran != 1 else ''} passed"


def _timeout_summary(report: dict[str, Any], timeout: float) -> str:
    """``timeout after 3 s of CPU time at ex03_topo_order.py:14 in topo_order, in test_x (…?)``."""
    running, where = report.get("running"), report.get("where")
    spent = report.get("spent") or f"{bounds.wall_limit(timeout) + GRACE_S:g} s"  # "": the grader killed it
    text = f"timeout after {spent}"
    if where:
        text += f" at {where}"
    if running:
        text += f"{',' if where else ''} {running}"
    return text + " (an infinite loop, or far too slow?)"


STUB = re.compile(r"^(?:(?P<at>\S+:\d+): )?NotImplementedError: Exercise (?:U\d+\.\d+|\d+): (?P<what>.*)$",
                  re.DOTALL)


def _what_failed(message: str) -> str:
    """A stub's ``NotImplementedError`` reads ``to do: implement Mul.forward (ex01_mul_sum.py:3)``; anything
    else is kept."""
    match = STUB.match(message)
    if match is None:
        return message
    at = f" ({match['at']})" if match["at"] else ""
    return f"to do: {match['what']}{at}"
