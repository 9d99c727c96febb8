"""What a workspace records of its student's work besides the code: the hints shown, the predictions answered.

``micrograd2 exercise hint`` appends one line per hint it shows to ``hints.jsonl`` in the
workspace (``log_hint``); the lessons write each answered prediction to ``predictions.json``
there (lessons/tools.py, ``predict``).  ``read(workspace)`` sums both up for the reports: the
``--json`` report of one workspace and the class report (``classroom``).

NOTE [Hints and predictions are informational]
Both files are written on the student's own machine, in a folder the student owns: they can be
edited or deleted, and a hint read in the docs is never logged.  So the reports carry them as
information for the teacher, marked so, and never fold them into a grade.
"""
from __future__ import annotations

import datetime
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import catalog

HINTS_FILE = "hints.jsonl"
PREDICTIONS_FILE = "predictions.json"  # as lessons/tools.py names it
WORKSPACE_ENV = "MICROGRAD2_WORKSPACE"  # as exercises.harness and lessons/tools.py name it
INFORMATIONAL = ("informational: recorded on the student's own machine (hints.jsonl, predictions.json "
                 "in the workspace), not part of the grade")


def current_workspace() -> Path | None:
    """The workspace to log into: ``$MICROGRAD2_WORKSPACE``, else the current folder if it holds an
    exercise's file (``micrograd2 exercise start``), else None (as the lessons find it)."""
    named = os.environ.get(WORKSPACE_ENV)
    if named:
        return Path(named)
    here = Path.cwd()
    return here if any((here / e.filename).is_file() for e in catalog.EXERCISES) else None


def log_hint(workspace: Path, exercise_id: str, level: int) -> Path:
    """Append ``{"id", "level", "time"}`` to the workspace's hints.jsonl; the file's path.
    ``OSError`` if it can't be written."""
    path = workspace / HINTS_FILE
    entry = {"id": exercise_id, "level": level,
             "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\n")
    return path


@dataclass
class Activity:
    """A workspace's hints and predictions: ``hints`` maps an exercise id to the highest hint level shown;
    ``hints_used`` counts the distinct hints shown (the same hint twice counts once); ``problems`` says
    what could not be read."""

    hints_used: int = 0
    hints: dict[str, int] = field(default_factory=dict)
    predictions_right: int = 0
    predictions_answered: int = 0
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The reports' ``informational`` entry."""
        return {"note": INFORMATIONAL, "hints_used": self.hints_used, "hints": self.hints,
                "predictions": {"right": self.predictions_right, "answered": self.predictions_answered},
                "problems": self.problems}


def read(workspace: Path) -> Activity:
    """What ``workspace``'s hints.jsonl and predictions.json say (a file that is not there: nothing)."""
    activity = Activity()
    _read_hints(workspace / HINTS_FILE, activity)
    _read_predictions(workspace / PREDICTIONS_FILE, activity)
    return activity


def _read_hints(path: Path, activity: Activity) -> None:
    shown: set[tuple[str, int]] = set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    except (OSError, UnicodeDecodeError) as error:
        activity.problems.append(f"{path.name}: {error}")
        lines = []
    for number, line in enumerate(lines, start=1):
        try:
            entry = json.loads(line)
            key = (str(entry["id"]), int(entry["level"]))
        except (ValueError, TypeError, KeyError):
            if line.strip():
                activity.problems.append(f"{path.name}:{number} is not a hint entry")
            continue
        shown.add(key)
        activity.hints[key[0]] = max(key[1], activity.hints.get(key[0], 0))
    activity.hints_used = len(shown)
    activity.hints = dict(sorted(activity.hints.items(), key=lambda item: _course_order(item[0])))


def _course_order(exercise_id: str) -> int:
    return catalog.IDS.index(exercise_id) if exercise_id in catalog.IDS else len(catalog.IDS)


def _read_predictions(path: Path, activity: Activity) -> None:
    try:
        entries = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError) as error:
        activity.problems.append(f"{path.name}: {error}")
        return
    if not isinstance(entries, dict):
        activity.problems.append(f"{path.name} is not a predictions file")
        return
    answers = [e for e in entries.values() if isinstance(e, dict)]
    activity.predictions_answered = len(answers)
    activity.predictions_right = sum(e.get("right") is True for e in answers)
