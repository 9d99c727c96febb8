"""Grade a student workspace: each exercise's pristine tests in a subprocess with a timeout, then a table.

``check(workspace, numbers)`` runs ``runner`` once per exercise (a few at a
time), kills a run that exceeds its timeout (a student's infinite loop is
reported as a timeout, never a hang) and returns one ``ExerciseResult`` each;
``table`` prints them, ``report`` makes the JSON a teacher collects.  The tests
come from the installed package, never from the workspace, so editing the
workspace's copy of the tests cannot change a grade.
"""
from __future__ import annotations

import datetime
import getpass
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from . import catalog, harness
from .runner import one_line

PASSED, FAILED, TIMEOUT, ERROR = "passed", "failed", "timeout", "error"
DEFAULT_TIMEOUT = 60.0


@dataclass
class CaseResult:
    """One pristine test case: its name, ``passed``/``failed``/``error``, and what failed (one line, and in full)."""

    name: str
    outcome: str
    message: str = ""
    details: str = ""


@dataclass
class ExerciseResult:
    """One exercise's grade: ``status`` is passed, failed, timeout or error; ``summary`` says why in one line."""

    number: int
    name: str
    title: str
    status: str
    summary: str
    seconds: float
    tests_total: int
    tests: list[CaseResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def tests_passed(self) -> int:
        return sum(t.outcome == PASSED for t in self.tests)


def child_environment(workspace: Path) -> dict[str, str]:
    """The environment of a test run: this micrograd2 first on the path, no pytest options from outside."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    package_root = str(Path(harness.__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[harness.WORKSPACE_ENV] = str(workspace)
    return env


def run_exercise(exercise: catalog.Exercise, workspace: Path, timeout: float = DEFAULT_TIMEOUT) -> ExerciseResult:
    """Run ``exercise``'s pristine tests on ``workspace`` in a subprocess killed after ``timeout`` seconds."""
    workspace = workspace.resolve()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mg2-grade-") as tmp:
        report_path, log_path = Path(tmp) / "report.json", Path(tmp) / "output.txt"
        command = [sys.executable, "-m", "micrograd2.exercises.runner", str(exercise.number), str(workspace),
                   str(report_path)]
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command, cwd=tmp, env=child_environment(workspace), stdin=subprocess.DEVNULL,
                                       stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            timed_out = _wait(process, timeout)
        report = _read_json(report_path)
        output = log_path.read_text(encoding="utf-8", errors="replace")
    return _result(exercise, report, output, timed_out, timeout, time.monotonic() - started)


def _wait(process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for ``process``; on timeout kill it and all it started.  True if it timed out."""
    try:
        process.wait(timeout=timeout)
        return False
    except subprocess.TimeoutExpired:
        if hasattr(os, "killpg"):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:  # pragma: no cover - Windows
            process.kill()
        process.wait()
        return True


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _result(exercise: catalog.Exercise, report: dict[str, Any] | None, output: str, timed_out: bool,
            timeout: float, seconds: float) -> ExerciseResult:
    tests = [CaseResult(**t) for t in (report or {}).get("tests", [])]
    result = ExerciseResult(exercise.number, exercise.name, exercise.title, FAILED, "", round(seconds, 2),
                            max(exercise.test_count, len(tests)), tests)
    if timed_out:
        running = (report or {}).get("running")
        where = f" {running}" if running else ""
        result.status = TIMEOUT
        result.summary = f"timeout: no result after {timeout:g} s{where} (an infinite loop, or far too slow?)"
    elif report is None or not report.get("finished"):
        last = one_line(output.strip().splitlines()[-1]) if output.strip() else "no output"
        result.status, result.summary = ERROR, f"the test run stopped without a report: {last}"
    elif report.get("import_error"):
        result.status, result.summary = ERROR, report["import_error"]
    elif not tests:
        result.status, result.summary = ERROR, "no test ran"
    elif all(t.outcome == PASSED for t in tests):
        result.status, result.summary = PASSED, f"all {len(tests)} tests passed"
    else:
        result.summary = _what_failed(next(t for t in tests if t.outcome != PASSED).message, exercise)
    return result


def _what_failed(message: str, exercise: catalog.Exercise) -> str:
    """A failed test's message for the table: a stub's ``NotImplementedError`` reads "to do: …", and a
    place in the exercise's own file is just its line."""
    message = message.replace(f"({exercise.filename}, line ", "(line ")
    prefix = "NotImplementedError: Exercise "
    if message.startswith(prefix):
        return "to do: " + message[len(prefix):].split(": ", 1)[-1]
    return message


def check(workspace: Path, numbers: Sequence[int] | None = None, timeout: float = DEFAULT_TIMEOUT,
          jobs: int | None = None) -> list[ExerciseResult]:
    """Grade exercises ``numbers`` (all by default) of ``workspace``, ``jobs`` subprocesses at a time."""
    exercises = [catalog.get(n) for n in (numbers or catalog.NUMBERS)]
    jobs = max(1, jobs or min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda e: run_exercise(e, workspace, timeout), exercises))


# -- showing the grade ---------------------------------------------------------------------------------
def table(results: Sequence[ExerciseResult], width: int = 120) -> str:
    """The summary table, one row per exercise, ending with ``K/N exercises passed``."""
    title_width = max(len(r.title) for r in results)
    rows = [f" #  {'exercise':<{title_width}}  {'result':<7}  tests  what failed"]
    for r in results:
        detail = "" if r.passed else r.summary
        counted = f"{r.tests_passed:>2}/{r.tests_total:<2}"
        row = f"{r.number:>2}  {r.title:<{title_width}}  {r.status:<7}  {counted}  {detail}"
        rows.append(row.rstrip() if len(row) <= width else row[: width - 1] + "…")
    rows.insert(1, "-" * max(len(row) for row in rows))
    rows.append(f"{sum(r.passed for r in results)}/{len(results)} exercises passed")
    return "\n".join(rows)


def report(results: Sequence[ExerciseResult], workspace: Path, timeout: float) -> dict[str, Any]:
    """The machine-readable report (``--json FILE``): who, when, which workspace, and every test's outcome."""
    from .. import __version__

    try:
        user = getpass.getuser()
    except Exception:  # no user name in some containers
        user = None
    return {
        "micrograd2": __version__,
        "workspace": str(workspace.resolve()),
        "user": user,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "timeout_s": timeout,
        "passed": sum(r.passed for r in results),
        "total": len(results),
        "exercises": [{**asdict(r), "tests_passed": r.tests_passed} for r in results],
    }


def write_report(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
