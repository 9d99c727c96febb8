"""Run one exercise's tests against a student's module, in this process, and write a JSON report.

The grader starts it in a subprocess (so a student's infinite loop can be
stopped): ``python -m micrograd2.exercises.runner ID WORKSPACE REPORT.json LIMIT [TEST_LIMIT] [--per-test]
[--tests DIR]`` (``DIR``: a teacher's hidden tests instead of the public ones; ``--per-test``: each
test's limit is its own, ``grader.per_test_timeout``, at most ``TEST_LIMIT``).
The report is rewritten after every test, with the test running now under
``"running"``, so a grader that had to kill the process still knows how far it
got.  The run bounds itself (``bounds.guard``): after ``LIMIT`` seconds of CPU
time (or ``TEST_LIMIT`` in one test, or in the import of the student's module) it
writes ``"timed_out": true`` and where the student's code was, and it ends as
soon as the grader is gone.

NOTE [Which skips are allowed]
A test may skip only by calling ``pytest.importorskip`` itself (in the test file, or at its
top) for an optional package that is missing: PyTorch, for a live comparison.  That test is
recorded as ``"skipped"`` with the reason ("skipped: PyTorch not installed") and the package
(``"needs"``); the grader passes the exercise on its other tests.  Any other skip (a skip
marker, ``pytest.skip`` or ``importorskip`` called by the student's code) is recorded as a
failure that says it is not a pass.  ``MICROGRAD2_NO_TORCH=1`` grades as if PyTorch were not
installed (as the lessons do), so a teacher can check that the grade holds without it.
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from . import bounds, catalog, grader, harness
from .grader import GRADER_PID_ENV, one_line


def place(filename: str, lineno: int | None) -> str:
    """``file.py:LINE`` (the file's name only: it is in the student's workspace)."""
    return f"{Path(filename).name}:{lineno}"


def where_in(error: BaseException, workspace: Path) -> str:
    """``file.py:LINE`` of the innermost frame of ``error`` in the student's workspace, else ``""``."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if bounds.is_inside(f.filename, workspace)]
    return place(frames[-1].filename, frames[-1].lineno) if frames else ""


def explain(error: BaseException, workspace: Path) -> str:
    """A failed test's message: a ``Mistake`` speaks for itself; other errors get their place, type and message
    (``ex02_activations.py:7: NameError: name 'w' is not defined``).  Never empty."""
    if isinstance(error, (harness.Mistake, harness.MissingModule)) and str(error).strip():
        return str(error)
    if isinstance(error, SyntaxError) and error.filename and bounds.is_inside(error.filename, workspace):
        return _syntax_error(error)
    at = where_in(error, workspace)
    said = str(error)
    text = f"{at + ': ' if at else ''}{type(error).__name__}{': ' + said if said else ''}"
    return text if said or not isinstance(error, AssertionError) else f"{text} (an assert with no message)"


def _syntax_error(error: SyntaxError) -> str:
    """``file.py:LINE: SyntaxError: message``, then the offending line."""
    text = f"{place(error.filename or '?', error.lineno)}: {type(error).__name__}: {error.msg}"
    if error.text and error.text.strip():
        text += f"\n    {error.text.strip()}"
    return text


def import_problem(exercise: catalog.Exercise, workspace: Path) -> str | None:
    """Why the student's module can't be imported (missing file, syntax error…, with file and line), or None."""
    path = workspace / exercise.filename
    if not path.is_file():
        return (f"{exercise.filename} is missing from {workspace} "
                "(`micrograd2 exercise start --force DIR` writes fresh stubs)")
    try:
        harness.load_student(exercise.name)
    except SyntaxError as error:
        return _syntax_error(error)
    except BaseException as error:  # noqa: B036 - a student's module may raise anything, SystemExit included
        at = where_in(error, workspace) or exercise.filename
        return f"{at}: {type(error).__name__} while importing {exercise.filename}: {error}"
    return None


# -- skips (NOTE [Which skips are allowed]) ------------------------------------------------------
NO_TORCH = "MICROGRAD2_NO_TORCH"  # 1: grade as if PyTorch were not installed (lessons/tools.py reads it too)
PACKAGES = {"torch": "PyTorch", "numpy": "NumPy", "matplotlib": "matplotlib", "sklearn": "scikit-learn",
            "pycuda": "PyCUDA"}  # a module's name as a student knows the package
COULD_NOT_IMPORT = re.compile(r"could not import '([\w.]+)'")  # pytest.importorskip's own words


def package(module: str) -> str:
    """``PyTorch`` for ``torch``: the package a module belongs to, by its usual name."""
    return PACKAGES.get(module.split(".")[0], module)


def why_missing(module: str) -> str:
    """``PyTorch not installed``, or ``PyTorch turned off (MICROGRAD2_NO_TORCH=1)``."""
    if module.split(".")[0] == "torch" and os.environ.get(NO_TORCH):
        return f"{package(module)} turned off ({NO_TORCH}=1)"
    return f"{package(module)} not installed"


def block_torch_if_asked() -> None:
    """With ``MICROGRAD2_NO_TORCH`` set, ``import torch`` fails here as if PyTorch were not installed."""
    if os.environ.get(NO_TORCH) and "torch" not in sys.modules:
        sys.modules["torch"] = None  # type: ignore[assignment]  # Python's way to make an import fail


def importorskip_module(tb: TracebackType | None, test_files: set[Path]) -> str | None:
    """The module that ``pytest.importorskip``, called by one of ``test_files`` itself, could not import
    (the skip traceback ``tb`` ends there); ``None`` for any other skip."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for caller, frame in zip(frames, frames[1:]):
        if (frame.f_code.co_name == "importorskip" and Path(frame.f_code.co_filename).name == "outcomes.py"
                and Path(caller.f_code.co_filename).resolve() in test_files):
            module = frame.f_locals.get("modname")
            return module if isinstance(module, str) else None
    return None


def allowed_skip(module: str, reason: str) -> dict[str, str]:
    """The entry of a test skipped because ``module`` is missing: ``skipped: PyTorch not installed``."""
    said = why_missing(module) if COULD_NOT_IMPORT.match(reason) else f"{package(module)}: {reason}"
    return {"outcome": "skipped", "message": f"skipped: {said}", "details": f"skipped: {said}",
            "needs": package(module)}


def not_a_pass(reason: str, at: str) -> str:
    """Why a skip that ``pytest.importorskip`` in the tests did not make fails the test."""
    text = (f"{at + ': ' if at else ''}the test was skipped{f' ({reason})' if reason else ''}, and a skip is "
            "not a pass: only the test's own pytest.importorskip of a missing optional package may skip it")
    return text + ("; remove the skip from your code" if at else "")


class Collector:
    """A pytest plugin that keeps each test's outcome and message and saves the report as it goes."""

    def __init__(self, report: dict[str, Any], path: Path, workspace: Path, test_files: list[Path],
                 per_test: bool = False) -> None:
        self.report, self.path, self.workspace = report, path, workspace
        self.test_files = {p.resolve() for p in test_files}
        self.lock = threading.Lock()  # the watchdog's last save must not be overwritten
        self.phases = bounds.Phases(None)  # each test's own limit, once ``bounds.guard`` set one
        self.per_test = per_test  # each test's limit is its own (grader.per_test_timeout), not the most

    def save(self) -> None:
        with self.lock:
            self._write()

    def _write(self) -> None:
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(self.report, indent=1), encoding="utf-8")
        os.replace(partial, self.path)  # the grader never reads half a report

    def timed_out(self, where: str, spent: str) -> None:
        """The watchdog's last word: the run is out of time (``spent``), at ``where``.  Keeps the lock (the
        process ends)."""
        self.lock.acquire(timeout=1.0)
        self.report["timed_out"], self.report["where"], self.report["spent"] = True, where, spent
        self._write()

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        name = nodeid.split("::")[-1]
        self.report["running"] = f"in {name}"
        self.save()
        own = grader.per_test_timeout(self.report["id"], name) if self.per_test else None
        self.phases.begin(own)  # the test's own limit starts (NOTE [A test's own limit] in bounds.py)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self.phases.end()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        outcome = yield
        result = outcome.get_result()
        if result.when == "call" or (result.when == "setup" and not result.passed):
            self.report["tests"].append({"name": item.name, **self.outcome_of(result, call)})
            self.report["running"] = None
            self.save()

    def outcome_of(self, result: Any, call: Any) -> dict[str, str]:
        """A test's outcome and what to say about it: never a failure without a reason."""
        error = call.excinfo.value if call.excinfo is not None else None
        if result.skipped:
            reason = str(getattr(error, "msg", None) or error or "").strip()
            module = importorskip_module(call.excinfo.tb, self.test_files) if error is not None else None
            if module is not None:
                return allowed_skip(module, reason)
            text = not_a_pass(reason, where_in(error, self.workspace) if error is not None else "")
        elif result.failed:
            text = explain(error, self.workspace) if error is not None else \
                (str(result.longreprtext).strip() or "failed, without a reason given by pytest")
        else:
            return {"outcome": result.outcome, "message": "", "details": ""}
        return {"outcome": "failed", "message": one_line(text), "details": text}

    def pytest_collectreport(self, report: Any) -> None:
        """A test file that failed to collect is an error; one skipped whole, a skip (NOTE above)."""
        whole = report.longrepr
        text = str(whole[2] if isinstance(whole, tuple) else whole or "").strip()
        crash = str(whole[0]) if isinstance(whole, tuple) else ""
        names = [p.name for p in self.test_files if str(p) == crash or p.name == Path(report.nodeid).name]
        name = f"collecting {names[0]}" if names else "collection"
        if report.failed:
            lines = text.splitlines() or ["collection failed"]
            entry = {"outcome": "error", "message": one_line(lines[-1]), "details": text or lines[-1]}
        elif report.skipped:  # only an importorskip at the file's top may do that
            reason = text.removeprefix("Skipped: ")
            found = COULD_NOT_IMPORT.match(reason)
            said = not_a_pass(reason, "")
            entry = allowed_skip(found[1], reason) if found else {
                "outcome": "failed", "message": one_line(said), "details": said}
        else:
            return
        self.report["tests"].append({"name": name, **entry})
        self.save()


def run(key: str | int, workspace: Path, report_path: Path, limit: float | None = None,
        tests_dir: Path | None = None, test_limit: float | None = None,
        per_test: bool = False) -> dict[str, Any]:
    """Import the student's module for exercise ``key`` (an id or an alias), run its tests (the public ones,
    or the hidden ones of ``tests_dir``), write and return the report.

    With a ``limit`` (seconds of CPU time), the run bounds itself as ``bounds.guard`` says; with a
    ``test_limit`` too, the import and each test have that much CPU time of their own (``per_test``:
    each test at most its own ``grader.per_test_timeout``)."""
    exercise = catalog.get(key)
    workspace = workspace.resolve()
    os.environ[harness.WORKSPACE_ENV] = str(workspace)
    report: dict[str, Any] = {"id": exercise.id, "import_error": None, "tests": [], "running": None,
                              "timed_out": False, "where": ""}
    test_files = catalog.test_files(exercise, tests_dir)
    collector = Collector(report, report_path, workspace, test_files, per_test)
    block_torch_if_asked()
    report["running"] = f"while importing {exercise.filename}"
    collector.save()
    if limit is not None:
        grader_pid = os.environ.get(GRADER_PID_ENV, "")
        collector.phases = bounds.guard(limit, workspace, collector.timed_out,
                                        int(grader_pid) if grader_pid.isdigit() else None, test_limit)
    collector.phases.begin()
    report["import_error"] = import_problem(exercise, workspace)
    collector.phases.end()
    report["running"] = None
    if report["import_error"] is None and not test_files:
        report["import_error"] = (f"{tests_dir} holds no test_{exercise.name}*.py for exercise "
                                  f"{exercise.id}")
    if report["import_error"] is None:
        args = [*map(str, test_files), "-q", "--tb=no", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                "--noconftest", "-p", "no:timeout",
                "-c", str(catalog.PYTEST_INI), "--rootdir", str(catalog.HERE), "-o", "addopts="]
        report["exit_code"] = int(pytest.main(args, plugins=[collector]))
    report["finished"] = True
    collector.save()
    return report


USAGE = ("usage: python -m micrograd2.exercises.runner ID WORKSPACE REPORT.json "
         "[CPU_SECONDS [TEST_CPU_SECONDS]] [--per-test] [--tests DIR]")


def main(argv: list[str] | None = None) -> int:
    from ..autograd import pieces
    from ..course.engine import choose_from_environment
    from ..scalar import Value

    if choose_from_environment() is None:  # --engine DIR: the tests run on the student's pieces,
        pieces.choose(Value, pieces.REFERENCE)  # else on the reference path, as a student reads
    args = list(sys.argv[1:] if argv is None else argv)
    per_test = grader.PER_TEST_FLAG in args
    args = [a for a in args if a != grader.PER_TEST_FLAG]
    tests_dir = None
    if "--tests" in args:
        at = args.index("--tests")
        if at + 1 >= len(args):
            print(USAGE, file=sys.stderr)
            return 2
        tests_dir = Path(args.pop(at + 1))
        args.pop(at)
    if len(args) not in (3, 4, 5):
        print(USAGE, file=sys.stderr)
        return 2
    limit = float(args[3]) if len(args) >= 4 else None
    test_limit = float(args[4]) if len(args) == 5 else None
    run(args[0], Path(args[1]), Path(args[2]), limit, tests_dir, test_limit, per_test)
    return 0


if __name__ == "__main__":
    sys.exit(main())
