"""``micrograd2.lessons.predictions``: a question asked before its result, the answer judged and recorded
in the workspace's predictions.json; a typed answer is read as the kind of the result."""
from __future__ import annotations

import io
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.lessons import checks, predictions
from micrograd2.lessons.session import start_session


@pytest.fixture
def fresh() -> Any:
    stream = io.StringIO()
    yield start_session(stream=stream, strict=False), stream
    start_session()


@pytest.fixture
def workspace(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv(predictions.WORKSPACE_ENV, str(tmp_path))
    return tmp_path


def recorded_predictions(folder: Any) -> dict[str, Any]:
    import json

    return json.loads((folder / predictions.PREDICTIONS_FILE).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_a_notebook_answer_is_judged_and_recorded_in_the_workspace(fresh: Any, workspace: Any) -> None:
    session, stream = fresh
    right = predictions.predict("q.grad", "x.grad after three backwards?", answer=9)
    assert right.reveal(mg.Value(9.0)) is True
    wrong = predictions.predict("q.none", "w.grad after zero_grad()?", answer=0.0)
    assert wrong.reveal(None) is False
    text = stream.getvalue()
    assert "  ? Predict: x.grad after three backwards?" in text
    assert "✓ you predicted 9: right; it is 9.0" in text and "✗ you predicted 0.0: not it; it is None" in text
    entries = recorded_predictions(workspace)
    assert entries["q.grad"]["answer"] == 9 and entries["q.grad"]["right"] is True
    assert entries["q.none"]["right"] is False and entries["q.none"]["time"].endswith("+00:00")
    checks.check("a check", 1, 1)
    checks.summary("L")
    assert f"predictions: 1 of 2 right (recorded in {workspace / predictions.PREDICTIONS_FILE})" in stream.getvalue()
    assert "L: 1 checks:" in stream.getvalue()  # predictions are not checks


def test_a_new_answer_replaces_the_entry_of_its_question(fresh: Any, workspace: Any) -> None:
    predictions.predict("q", "?", 3.0, answer=2)
    predictions.predict("q", "?", 3.0, answer="3")
    assert list(recorded_predictions(workspace)) == ["q"] and recorded_predictions(workspace)["q"]["right"]


def test_without_an_answer_the_question_is_printed_and_nothing_waits_or_is_recorded(
        fresh: Any, workspace: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    monkeypatch.setattr("builtins.input", lambda *a: pytest.fail("a non-interactive run must not wait"))
    first = predictions.predict("q1", "first?")
    assert first.reveal(9.0) is None
    predictions.predict("q2", "second?", 3.0)  # judged at once: nothing to judge
    lines = stream.getvalue().splitlines()
    assert lines[0] == "  ? Predict: first?" and lines[1].startswith("    · it is 9.0 (no prediction:")
    assert lines[3] == "    · it is 3.0"  # how to answer is said once
    assert len(lines) == 4 and not (workspace / predictions.PREDICTIONS_FILE).exists()


def test_interactive_waits_for_the_typed_answer(fresh: Any, workspace: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    session.interactive = True
    typed = iter(["tensor([9.])", "", "(B)"])
    monkeypatch.setattr("builtins.input", lambda *a: next(typed))
    assert predictions.predict("q1", "x.grad?").reveal(9.0) is True
    assert predictions.predict("q2", "skipped?").reveal(1.0) is None  # an empty line: no answer
    assert predictions.predict("q3", "which?", "b").right is True
    assert "    your prediction: " in stream.getvalue()
    assert set(recorded_predictions(workspace)) == {"q1", "q3"}


@pytest.mark.parametrize(("typed", "expected", "right"), [
    ("9", 9.0, True), ("9.0001", 9.0, True), ("8", 9.0, False), ("tensor([9.])", [9.0], True),
    ("None", None, True), ("0", None, False), ("6, 12", [6.0, 12.0], True), ("b)", "b", True),
    ("a", "b", False), ("yes", True, True), ("nan", float("nan"), True), ("-inf", float("-inf"), True)])
def test_a_typed_answer_is_read_as_the_kind_of_the_result(typed: str, expected: Any, right: bool) -> None:
    assert predictions._guessed(typed, expected, 1e-3) is right


def test_answers_are_recorded_in_the_current_workspace_or_nowhere(tmp_path: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from micrograd2.exercises import catalog

    monkeypatch.delenv(predictions.WORKSPACE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert predictions.predictions_file() is None
    (tmp_path / catalog.EXERCISES[0].filename).write_text("", encoding="utf-8")
    assert predictions.predictions_file() == tmp_path / predictions.PREDICTIONS_FILE
