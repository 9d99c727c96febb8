"""Run one exercise's pristine tests against a student's module, in this process, and write a JSON report.

The grader starts it in a subprocess (so a student's infinite loop can be
killed): ``python -m micrograd2.exercises.runner N WORKSPACE REPORT.json``.
The report is rewritten after every test, with the test running now under
``"running"``, so a grader that had to kill the process still knows how far it got.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest

from . import catalog, harness


def one_line(text: str, limit: int = 200) -> str:
    """The first line of ``text``, at most ``limit`` characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def where_in(error: BaseException, workspace: Path) -> str:
    """`` (file.py, line N)`` for the innermost frame of ``error`` in the student's workspace, else ``""``."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if _inside(f.filename, workspace)]
    return f" ({Path(frames[-1].filename).name}, line {frames[-1].lineno})" if frames else ""


def _inside(filename: str, folder: Path) -> bool:
    try:
        return Path(filename).resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError):
        return False


def explain(error: BaseException, workspace: Path) -> str:
    """A failed test's message: a ``Mistake`` speaks for itself; other errors get their type and place."""
    if isinstance(error, harness.Mistake):
        return str(error)
    return f"{type(error).__name__}: {error}{where_in(error, workspace)}"


def import_problem(exercise: catalog.Exercise, workspace: Path) -> str | None:
    """Why the student's module can't be imported (missing file, syntax error…, with file and line), or None."""
    path = workspace / exercise.filename
    if not path.is_file():
        return (f"{exercise.filename} is missing from {workspace} "
                "(`micrograd2 exercise start --force DIR` writes fresh stubs)")
    try:
        harness.load_student(exercise.name)
    except SyntaxError as error:
        name = Path(error.filename).name if error.filename else exercise.filename
        return f"{type(error).__name__} in {name}, line {error.lineno}: {error.msg}"
    except BaseException as error:  # noqa: B036 - a student's module may raise anything, SystemExit included
        place = where_in(error, workspace) or f" ({exercise.filename})"
        return f"{type(error).__name__} while importing {exercise.filename}{place}: {error}"
    return None


class Collector:
    """A pytest plugin that keeps each test's outcome and message and saves the report as it goes."""

    def __init__(self, report: dict[str, Any], path: Path, workspace: Path) -> None:
        self.report, self.path, self.workspace = report, path, workspace

    def save(self) -> None:
        self.path.write_text(json.dumps(self.report, indent=1), encoding="utf-8")

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


def run(number: int, workspace: Path, report_path: Path) -> dict[str, Any]:
    """Import the student's module for exercise ``number``, run its pristine tests, write and return the report."""
    exercise = catalog.get(number)
    workspace = workspace.resolve()
    os.environ[harness.WORKSPACE_ENV] = str(workspace)
    report: dict[str, Any] = {"number": number, "import_error": None, "tests": [], "running": None}
    collector = Collector(report, report_path, workspace)
    report["running"] = f"while importing {exercise.filename}"
    collector.save()
    report["import_error"] = import_problem(exercise, workspace)
    report["running"] = None
    if report["import_error"] is None:
        args = [str(exercise.test_file), "-q", "--tb=no", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                "--noconftest",
                "-c", str(catalog.PYTEST_INI), "--rootdir", str(catalog.HERE), "-o", "addopts="]
        report["exit_code"] = int(pytest.main(args, plugins=[collector]))
    report["finished"] = True
    collector.save()
    return report


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3:
        print("usage: python -m micrograd2.exercises.runner N WORKSPACE REPORT.json", file=sys.stderr)
        return 2
    run(int(args[0]), Path(args[1]), Path(args[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
