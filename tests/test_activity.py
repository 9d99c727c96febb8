"""A workspace's own records (micrograd2/exercises/activity.py): each hint shown appended to hints.jsonl, the
lessons' predictions.json read back, distinct hints counted once, a damaged file reported and not fatal."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from micrograd2.exercises import activity, stubs


def test_hints_are_appended_and_counted_once_each(tmp_path: Path) -> None:
    for exercise_id, level in (("U2.1", 1), ("U2.1", 2), ("U2.1", 1), ("U1.1", 3)):
        assert activity.log_hint(tmp_path, exercise_id, level) == tmp_path / activity.HINTS_FILE
    lines = (tmp_path / activity.HINTS_FILE).read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["id"] == "U2.1"
    found = activity.read(tmp_path)
    assert found.hints_used == 3 and found.hints == {"U1.1": 3, "U2.1": 2}  # course order, highest level
    assert found.problems == []


def test_predictions_are_counted_right_out_of_answered(tmp_path: Path) -> None:
    entries = {"a": {"right": True}, "b": {"right": False}, "c": {"right": None}, "d": {"right": True}}
    (tmp_path / activity.PREDICTIONS_FILE).write_text(json.dumps(entries))
    found = activity.read(tmp_path)
    assert (found.predictions_right, found.predictions_answered) == (2, 4)
    assert found.as_json()["predictions"] == {"right": 2, "answered": 4}
    assert activity.read(tmp_path / "nowhere").as_json()["hints_used"] == 0  # nothing recorded: zeros


def test_a_damaged_record_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / activity.HINTS_FILE).write_text('{"id": "U1.1", "level": 1}\nnot json\n{"id": "U1.2"}\n\n')
    (tmp_path / activity.PREDICTIONS_FILE).write_text("[1, 2]")
    found = activity.read(tmp_path)
    assert found.hints_used == 1 and found.predictions_answered == 0
    assert found.problems == ["hints.jsonl:2 is not a hint entry", "hints.jsonl:3 is not a hint entry",
                              "predictions.json is not a predictions file"]


def test_the_files_are_the_ones_the_lessons_and_the_grader_name() -> None:
    from lessons import tools
    from micrograd2.exercises import harness

    assert activity.PREDICTIONS_FILE == tools.PREDICTIONS_FILE
    assert activity.WORKSPACE_ENV == tools.WORKSPACE_ENV == harness.WORKSPACE_ENV


def test_the_workspace_is_the_named_one_else_the_current_folder_if_it_is_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(activity.WORKSPACE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert activity.current_workspace() is None
    stubs.make_workspace(tmp_path / "ws")
    monkeypatch.chdir(tmp_path / "ws")
    assert activity.current_workspace() == tmp_path / "ws"
    monkeypatch.setenv(activity.WORKSPACE_ENV, str(tmp_path / "other"))
    assert activity.current_workspace() == tmp_path / "other"
