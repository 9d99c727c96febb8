"""Run one exercise's tests against a student's module, in this process, and write a JSON report.

The grader starts it in a subprocess (so a student's infinite loop can be
stopped): ``python -m micrograd2.exercises.runner ID WORKSPACE REPORT.json LIMIT [--tests DIR]``
(``DIR``: a teacher's hidden tests instead of the public ones).
The report is rewritten after every test, with the test running now under
``"running"``, so a grader that had to kill the process still knows how far it
got.  The run bounds itself (``bounds.guard``): after ``LIMIT`` seconds of CPU
time it writes ``"timed_out": true`` and where the student's code was, and it
ends as soon as the grader is gone.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

import pytest

from . import bounds, catalog, harness
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
    (``ex02_activations.py:7: NameError: name 'w' is not defined``)."""
    if isinstance(error, (harness.Mistake, harness.MissingModule)):
        return str(error)
    if isinstance(error, SyntaxError) and error.filename and bounds.is_inside(error.filename, workspace):
        return _syntax_error(error)
    at = where_in(error, workspace)
    return f"{at + ': ' if at else ''}{type(error).__name__}: {error}"


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


class Collector:
    """A pytest plugin that keeps each test's outcome and message and saves the report as it goes."""

    def __init__(self, report: dict[str, Any], path: Path, workspace: Path) -> None:
        self.report, self.path, self.workspace = report, path, workspace
        self.lock = threading.Lock()  # the watchdog's last save must not be overwritten

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
        self.report["running"] = f"in {nodeid.split('::')[-1]}"
        self.save()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        outcome = yield
        result = outcome.get_result()
        if result.when == "call" or (result.failed and result.when == "setup"):
            entry = {"name": item.name, "outcome": result.outcome, "message": "", "details": ""}
            if result.failed and call.excinfo is not None:
                text = explain(call.excinfo.value, self.workspace)
                entry["message"], entry["details"] = one_line(text), text
            self.report["tests"].append(entry)
            self.report["running"] = None
            self.save()

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            text = str(report.longrepr)
            self.report["tests"].append({"name": "collection", "outcome": "error",
                                         "message": one_line(text.strip().splitlines()[-1]), "details": text})
            self.save()


def run(key: str | int, workspace: Path, report_path: Path, limit: float | None = None,
        tests_dir: Path | None = None) -> dict[str, Any]:
    """Import the student's module for exercise ``key`` (an id or an alias), run its tests (the public ones,
    or the hidden ones of ``tests_dir``), write and return the report.

    With a ``limit`` (seconds of CPU time), the run bounds itself as ``bounds.guard`` says."""
    exercise = catalog.get(key)
    workspace = workspace.resolve()
    os.environ[harness.WORKSPACE_ENV] = str(workspace)
    report: dict[str, Any] = {"id": exercise.id, "import_error": None, "tests": [], "running": None,
                              "timed_out": False, "where": ""}
    test_files = catalog.test_files(exercise, tests_dir)
    collector = Collector(report, report_path, workspace)
    report["running"] = f"while importing {exercise.filename}"
    collector.save()
    if limit is not None:
        grader_pid = os.environ.get(GRADER_PID_ENV, "")
        bounds.guard(limit, workspace, collector.timed_out, int(grader_pid) if grader_pid.isdigit() else None)
    report["import_error"] = import_problem(exercise, workspace)
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


USAGE = ("usage: python -m micrograd2.exercises.runner ID WORKSPACE REPORT.json [CPU_SECONDS] "
         "[--tests DIR]")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    tests_dir = None
    if "--tests" in args:
        at = args.index("--tests")
        if at + 1 >= len(args):
            print(USAGE, file=sys.stderr)
            return 2
        tests_dir = Path(args.pop(at + 1))
        args.pop(at)
    if len(args) not in (3, 4):
        print(USAGE, file=sys.stderr)
        return 2
    limit = float(args[3]) if len(args) == 4 else None
    run(args[0], Path(args[1]), Path(args[2]), limit, tests_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
