"""Grade a class: every workspace in a folder, into one CSV of cells and one JSON with every reason.

``grade_class(folder, which)`` takes each immediate subfolder of ``folder`` that is a workspace as
one student, keyed by the folder's name (any other folder is listed as skipped), and grades them
together: ``grader.grade`` runs one exercise of one workspace per runner, a few at a time, each
under its own time limit.  ``csv_rows`` is the CSV: the student, one cell per exercise in list
order (``pass``, ``fail``, ``not graded``, ``to do``, ``error``), then passed k/n, hints used and
predictions right/answered; ``as_json`` adds every reason.  ``table`` is what the terminal shows.

NOTE [To do]
An exercise is "to do" when every file the student writes for it is still as ``exercise start``
wrote it (the stub, ``stubs.workspace_files``; line endings and trailing blanks aside).  It is not
run: a fresh workspace is graded at once.  The student's file is the exercise's own, except for
the engine exercises whose sheet only states the task (``catalog.ENGINE_FILES``): there it is the
hole's module in ``engine/``.  A missing file is not "to do": the grader says it is missing ("error").
"""
from __future__ import annotations

import csv
import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from . import activity, catalog, grader, stubs
from .catalog import student_files  # NOTE [To do]
from .grader import ERROR, FAILED, NOT_GRADED, PASSED, TIMEOUT, ExerciseResult

TO_DO = "to do"
CELLS = {PASSED: "pass", FAILED: "fail", TIMEOUT: "fail", ERROR: "error", NOT_GRADED: "not graded"}
HINTS_COLUMN = "hints used (informational)"
PREDICTIONS_COLUMN = "predictions right/answered (informational)"


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").splitlines()).strip()


def untouched(workspace: Path, exercise: catalog.Exercise, fresh: dict[str, str]) -> bool:
    """Whether every file the student writes for ``exercise`` is still ``fresh``'s (the stubs)."""
    for relative in student_files(exercise):
        path = workspace / relative
        try:
            if not path.is_file() or _normal(path.read_text(encoding="utf-8")) != _normal(fresh[relative]):
                return False
        except (OSError, UnicodeDecodeError):
            return False  # graded, so that the reason shows
    return True


@dataclass
class Student:
    """One workspace's grade: ``results`` for the exercises run, ``to_do`` for those not begun."""

    name: str
    workspace: Path
    results: dict[str, ExerciseResult] = field(default_factory=dict)
    to_do: list[str] = field(default_factory=list)
    activity: activity.Activity = field(default_factory=activity.Activity)

    def cell(self, exercise_id: str) -> str:
        """``pass``, ``fail``, ``not graded``, ``to do`` or ``error``."""
        if exercise_id in self.to_do:
            return TO_DO
        return CELLS[self.results[exercise_id].status]

    def reason(self, exercise_id: str) -> str:
        if exercise_id in self.to_do:
            files = ", ".join(student_files(catalog.get(exercise_id)))
            return f"to do: {files} still as `micrograd2 exercise start` wrote it"
        return self.results[exercise_id].summary


@dataclass
class ClassReport:
    """A class's grade: the ``students`` in name order, the ``exercises`` graded (ids, list order) and the
    folders ``skipped`` (name -> why)."""

    folder: Path
    exercises: list[str]
    students: list[Student]
    skipped: dict[str, str]
    tests_dir: Path | None = None
    timeout: float | None = None

    def passed(self, student: Student) -> int:
        return sum(student.cell(i) == "pass" for i in self.exercises)


def find_workspaces(folder: Path) -> tuple[list[tuple[str, Path]], dict[str, str]]:
    """``folder``'s immediate subfolders: the workspaces (name, path), and the others (name -> why)."""
    workspaces, skipped = [], {}
    for path in sorted(p for p in folder.iterdir() if p.is_dir()):
        if grader.is_workspace(path):
            workspaces.append((path.name, path.resolve()))
        else:
            skipped[path.name] = "not a workspace (no exercise file in it)"
    return workspaces, skipped


def grade_class(folder: Path, which: Sequence[str | int] | None = None, timeout: float | None = None,
                jobs: int | None = None, status: grader.Status | None = None,
                tests_dir: Path | None = None) -> ClassReport:
    """Grade every workspace of ``folder`` (the exercises ``which`` names, all by default; public tests,
    or the hidden ones of ``tests_dir``), ``jobs`` runners at a time (default: one per CPU)."""
    workspaces, skipped = find_workspaces(folder)
    exercises = grader.selected(which)
    fresh = stubs.workspace_files()
    students = {path: Student(name, path, activity=activity.read(path)) for name, path in workspaces}
    tasks: list[grader.Task] = []
    for path, student in students.items():
        for exercise in exercises:
            if untouched(path, exercise, fresh):
                student.to_do.append(exercise.id)
            else:
                tasks.append((path, exercise))
    for path, result in grader.grade(tasks, timeout, jobs, status, tests_dir):
        students[path].results[result.id] = result
    return ClassReport(folder.resolve(), [e.id for e in exercises], list(students.values()), skipped,
                       tests_dir.resolve() if tests_dir is not None else None, timeout)


def csv_rows(report: ClassReport) -> list[list[str]]:
    """The header, then one row per student: cells, passed k/n, hints used, predictions right/answered."""
    rows = [["student", *report.exercises, "passed", HINTS_COLUMN, PREDICTIONS_COLUMN]]
    for s in report.students:
        done = s.activity
        rows.append([s.name, *(s.cell(i) for i in report.exercises),
                     f"{report.passed(s)}/{len(report.exercises)}", str(done.hints_used),
                     f"{done.predictions_right}/{done.predictions_answered}"])
    return rows


def as_json(report: ClassReport) -> dict[str, Any]:
    """Every student's cells and every reason, the tests used, the skipped folders."""
    from .. import __version__

    return {
        "micrograd2": __version__,
        "class": str(report.folder),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "tests": "public" if report.tests_dir is None else str(report.tests_dir),
        "timeout_s": report.timeout,
        "exercises": report.exercises,
        "informational": activity.INFORMATIONAL,
        "students": [_student_json(report, s) for s in report.students],
        "skipped": [{"folder": name, "why": why} for name, why in report.skipped.items()],
    }


def _student_json(report: ClassReport, s: Student) -> dict[str, Any]:
    exercises = []
    for i in report.exercises:
        entry: dict[str, Any] = {"id": i, "cell": s.cell(i), "reason": s.reason(i)}
        if i in s.results:
            r = s.results[i]
            entry.update(status=r.status, details=r.details, seconds=r.seconds, tests_passed=r.tests_passed,
                         tests_total=r.tests_total, tests=[t.__dict__ for t in r.tests])
        exercises.append(entry)
    return {"student": s.name, "workspace": str(s.workspace), "passed": report.passed(s),
            "total": len(report.exercises), "exercises": exercises, "informational": s.activity.as_json()}


def write(report: ClassReport, csv_path: Path, json_path: Path) -> None:
    """Write the CSV and the JSON (``OSError`` if either can't be written)."""
    for path in (csv_path, json_path):
        path.parent.mkdir(parents=True, exist_ok=True)
    with open(csv_path, "w", encoding="utf-8", newline="") as out:
        csv.writer(out).writerows(csv_rows(report))
    json_path.write_text(json.dumps(as_json(report), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def table(report: ClassReport) -> str:
    """The terminal's summary: one line per student (passed, hints, predictions, what is not passed),
    then the skipped folders."""
    width = max([len("student"), *(len(s.name) for s in report.students)])
    lines = [f"{'student':<{width}}  passed  hints  predictions  not passed"]
    for s in report.students:
        missing = ", ".join(f"{i} {s.cell(i)}" for i in report.exercises if s.cell(i) != "pass")
        done = s.activity
        lines.append(f"{s.name:<{width}}  {report.passed(s):>2}/{len(report.exercises):<3}  "
                     f"{done.hints_used:>5}  {done.predictions_right:>5}/{done.predictions_answered:<5}  "
                     f"{missing or '-'}".rstrip())
    lines.insert(1, "-" * max(len(line) for line in lines))
    for name, why in report.skipped.items():
        lines.append(f"skipped {name}/: {why}")
    return "\n".join(lines)
