"""``micrograd2.lessons.tools``: checks compare, count and word what they compared honestly (PyTorch run
live, its recorded output, or the lesson's own numbers); errors are shown as Python prints them with
micrograd2's advice marked as its own; the summary ends a failing script with status 1."""
from __future__ import annotations

import io
import shutil
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.lessons import tools


@pytest.fixture
def fresh() -> Any:
    stream = io.StringIO()
    yield tools.start_session(stream=stream, strict=False), stream
    tools.start_session()


def test_a_check_that_differs_is_a_cross_with_both_values(fresh: Any) -> None:
    session, stream = fresh
    tools.check("same", 2.0, 2.0, recorded="tensor(2.)")
    tools.check("x.grad", 0.0, None, recorded="None")
    assert [c.ok for c in session.checks] == [True, False]
    assert "✗ x.grad: 0.0   (expected None)   PyTorch (recorded): None" in stream.getvalue()
    tools.summary("Lesson 99")
    assert "✗ Lesson 99: 2 checks: 2 against PyTorch's recorded output; 1 fail." in stream.getvalue()


def test_numbers_compare_within_tolerance_and_nan_equals_nan(fresh: Any) -> None:
    session, _ = fresh
    tools.check("close", 1.0 + 1e-12, 1.0)
    tools.check("nan", float("nan"), float("nan"))
    tools.check("lists", [1.0, None], [1.0, None])
    tools.check("a Value by its number", mg.Value(3.0), 3.0)
    tools.check("a Tensor by its numbers", mg.tensor([1.0, 2.0]), [1.0, 2.0])
    assert all(c.ok for c in session.checks)
    tools.check("far", 1.1, 1.0)
    tools.check("bool is not a number", True, 1.0)
    tools.check("lengths", [1.0], [1.0, 2.0])
    tools.check("a one-element list is not its item", [9.0], 9.0)
    tools.check("nor an item a one-element list", 9.0, [9.0])
    assert [c.ok for c in session.checks[-5:]] == [False] * 5


def test_a_live_pytorch_value_is_compared_too_and_counted_as_live(fresh: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    monkeypatch.setattr(tools, "live_torch", lambda: object())  # as if PyTorch were installed
    tools.check("agrees with both", 9.0, 9.0, torch=lambda: 9.0, recorded="never shown when live")
    tools.check("the lesson agrees, PyTorch does not", 9.0, 9.0, torch=lambda: 12.0)
    tools.check("no counterpart", 1, 1)
    assert [c.ok for c in session.checks] == [True, False, True]
    assert [c.against for c in session.checks] == ["live", "live", None]
    line = tools.summary_line(session.checks, "2.13", "Lesson 9")
    assert line == ("Lesson 9: 3 checks: 2 against PyTorch 2.13 run live, 1 against the lesson's own numbers only; "
                    "1 fail.")


def test_without_pytorch_the_recorded_output_is_shown_and_the_function_never_called(
        fresh: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    monkeypatch.setenv(tools.NO_TORCH, "1")
    tools.check("x.grad", 9.0, 9.0, torch=lambda: 1 / 0, recorded="tensor([9.])")
    assert session.checks[-1].against == "recorded" and "PyTorch (recorded): tensor([9.])" in stream.getvalue()


def test_a_recorded_output_for_other_inputs_does_not_apply_and_is_not_counted(
        fresh: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    monkeypatch.setenv(tools.NO_TORCH, "1")
    for passes in (3, 4):
        tools.check(f"after {passes}", passes * 3.0, passes * 3.0, inputs={"passes": passes},
                    recorded=tools.Recorded("tensor([9.])", passes=3))
    assert [c.against for c in session.checks] == ["recorded", None]
    assert "✓ after 4: 12.0   PyTorch (recorded): tensor([9.]) for passes=3: does not apply to these inputs, " \
           "not counted" in stream.getvalue()
    assert "1 against PyTorch's recorded output, 1 against the lesson's own numbers only" \
        in tools.summary_line(session.checks, None)


def test_a_scalar_value_stands_for_pytorchs_one_element_tensor_only(fresh: Any,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    session, _ = fresh
    monkeypatch.setattr(tools, "live_torch", lambda: object())
    tools.check("Value vs tensor([9.])", mg.Value(9.0), 9.0, torch=lambda: [9.0])
    tools.check("a list vs a list", [9.0], [9.0], torch=lambda: [[9.0]])
    assert [c.ok for c in session.checks] == [True, False]


def test_the_old_pytorch_argument_still_works_with_a_deprecation_warning(fresh: Any) -> None:
    session, _ = fresh
    with pytest.warns(DeprecationWarning, match="torch=lambda"):
        tools.check("recorded", 1.0, 1.0, pytorch="tensor(1.)")
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="torch=lambda"):
        tools.check("x", 1.0, 1.0, pytorch=1.0)
    assert session.checks[-1].against == "recorded"


def test_raises_shows_the_error_and_marks_micrograd2s_advice_as_its_own(fresh: Any,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    x = mg.Value(2.0, requires_grad=True)
    z = x * x
    z.backward()
    monkeypatch.setattr(tools, "live_torch", lambda: object())
    with tools.raises("a second backward", RuntimeError, "a second time",
                      torch=lambda: tools.error_of(lambda: (_ for _ in ()).throw(RuntimeError("… a second time …")))):
        z.backward()
    text = stream.getvalue()
    assert "  RuntimeError: Trying to backward through the graph a second time" in text
    assert "[micrograd2's advice, not printed by PyTorch] What to do:" in text
    assert "RuntimeError: Trying" in text.split("What to do:")[0]  # PyTorch's words come first, apart
    assert session.checks[-1].ok and session.checks[-1].against == "live"
    with tools.raises("nothing raised", RuntimeError, "boom"):
        pass
    assert not session.checks[-1].ok and session.checks[-1].got == "no error"


def test_summary_ends_a_python_run_with_status_1_only_on_failure() -> None:
    tools.start_session(stream=io.StringIO())
    tools.check("fine", 1, 1)
    assert tools.summary("L").failures == []
    tools.check("bad", 1, 2)
    with pytest.raises(SystemExit, match="1 fail"):
        tools.summary("L")
    tools.start_session()


def test_live_torch_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tools.NO_TORCH, "1")
    assert tools.live_torch() is None


def test_the_text_graph_walks_next_functions_without_recursion(fresh: Any) -> None:
    x = mg.Value(1.0, requires_grad=True, label="x")
    y = x
    for _ in range(5000):  # deeper than Python's recursion limit would allow a recursive walk
        y = y * 1.0
    lines = tools.graph_lines(y)
    assert lines[0] == "MulBackward0" and lines[-1].startswith("…")
    assert tools.graph_lines(x * x) == ["MulBackward0", "├── AccumulateGrad → x.grad", "└── AccumulateGrad → x.grad"]
    assert tools.graph_lines(x) == ["x is a leaf: no grad_fn, nothing to walk"]
    diagram = tools.show_graph(x * 2)
    assert fresh[0].graph is not None and "the autograd graph" in repr(diagram)
    if shutil.which("dot"):
        assert "<svg" in (diagram._repr_svg_() or "")


def test_an_ascii_terminal_gets_ok_and_fail_instead_of_ticks() -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    assert tools._mark(True, stream) == "OK" and tools._mark(False, stream) == "FAIL"


def test_a_summary_ends_the_session_so_the_next_lesson_counts_its_own_checks() -> None:
    stream = io.StringIO()
    first = tools.start_session(stream=stream, strict=False)
    tools.check("one", 1, 1)
    tools.check("two", 2, 2)
    tools.summary("Lesson A")
    tools.check("three", 3, 3)  # the next lesson, in the same process, with no start_session between
    second = tools.session()
    tools.summary("Lesson B")
    assert second is not first and len(first.checks) == 2 and len(second.checks) == 1
    assert second.stream is stream and not second.strict  # the options carry over
    assert "Lesson A: 2 checks:" in stream.getvalue() and "Lesson B: 1 checks:" in stream.getvalue()
    tools.start_session()


def test_lesson_scripts_run_one_after_another_in_one_process_count_their_own(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import runpy

    from micrograd2.commands import lesson as lesson_command

    script = ("from micrograd2.lessons.tools import check, summary\n"
              "for i in range({n}):\n    check(f'c{{i}}', i, i)\n"
              "summary('{name}')\n")
    paths = []
    for name, n in (("a", 3), ("b", 2)):
        paths.append(tmp_path / f"{name}.py")
        paths[-1].write_text("# %%\n" + script.format(n=n, name=name), encoding="utf-8")
    tools.start_session()
    for path in paths:  # as plain scripts, in one interpreter (a notebook kernel, the playground)
        runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert "✓ a: 3 checks:" in out and "✓ b: 2 checks:" in out
    done = [lesson_command._run_one(p, lesson_command.Options(trace=False)) for p in paths]  # the CLI's way
    assert [len(r.checks) for r in done] == [3, 2]
    lesson_command._overall(done, as_json=False)
    assert "All 2 lessons: 5 checks:" in capsys.readouterr().out
    tools.start_session()


# -- predictions (predict before you run) ---------------------------------------------------------
@pytest.fixture
def workspace(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv(tools.WORKSPACE_ENV, str(tmp_path))
    return tmp_path


def recorded_predictions(folder: Any) -> dict[str, Any]:
    import json

    return json.loads((folder / tools.PREDICTIONS_FILE).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_a_notebook_answer_is_judged_and_recorded_in_the_workspace(fresh: Any, workspace: Any) -> None:
    session, stream = fresh
    right = tools.predict("q.grad", "x.grad after three backwards?", answer=9)
    assert right.reveal(mg.Value(9.0)) is True
    wrong = tools.predict("q.none", "w.grad after zero_grad()?", answer=0.0)
    assert wrong.reveal(None) is False
    text = stream.getvalue()
    assert "  ? Predict: x.grad after three backwards?" in text
    assert "✓ you predicted 9: right; it is 9.0" in text and "✗ you predicted 0.0: not it; it is None" in text
    entries = recorded_predictions(workspace)
    assert entries["q.grad"]["answer"] == 9 and entries["q.grad"]["right"] is True
    assert entries["q.none"]["right"] is False and entries["q.none"]["time"].endswith("+00:00")
    tools.check("a check", 1, 1)
    tools.summary("L")
    assert f"predictions: 1 of 2 right (recorded in {workspace / tools.PREDICTIONS_FILE})" in stream.getvalue()
    assert "L: 1 checks:" in stream.getvalue()  # predictions are not checks


def test_a_new_answer_replaces_the_entry_of_its_question(fresh: Any, workspace: Any) -> None:
    tools.predict("q", "?", 3.0, answer=2)
    tools.predict("q", "?", 3.0, answer="3")
    assert list(recorded_predictions(workspace)) == ["q"] and recorded_predictions(workspace)["q"]["right"]


def test_without_an_answer_the_question_is_printed_and_nothing_waits_or_is_recorded(
        fresh: Any, workspace: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    monkeypatch.setattr("builtins.input", lambda *a: pytest.fail("a non-interactive run must not wait"))
    first = tools.predict("q1", "first?")
    assert first.reveal(9.0) is None
    tools.predict("q2", "second?", 3.0)  # judged at once: nothing to judge
    lines = stream.getvalue().splitlines()
    assert lines[0] == "  ? Predict: first?" and lines[1].startswith("    · it is 9.0 (no prediction:")
    assert lines[3] == "    · it is 3.0"  # how to answer is said once
    assert len(lines) == 4 and not (workspace / tools.PREDICTIONS_FILE).exists()


def test_interactive_waits_for_the_typed_answer(fresh: Any, workspace: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    session.interactive = True
    typed = iter(["tensor([9.])", "", "(B)"])
    monkeypatch.setattr("builtins.input", lambda *a: next(typed))
    assert tools.predict("q1", "x.grad?").reveal(9.0) is True
    assert tools.predict("q2", "skipped?").reveal(1.0) is None  # an empty line: no answer
    assert tools.predict("q3", "which?", "b").right is True
    assert "    your prediction: " in stream.getvalue()
    assert set(recorded_predictions(workspace)) == {"q1", "q3"}


@pytest.mark.parametrize(("typed", "expected", "right"), [
    ("9", 9.0, True), ("9.0001", 9.0, True), ("8", 9.0, False), ("tensor([9.])", [9.0], True),
    ("None", None, True), ("0", None, False), ("6, 12", [6.0, 12.0], True), ("b)", "b", True),
    ("a", "b", False), ("yes", True, True), ("nan", float("nan"), True), ("-inf", float("-inf"), True)])
def test_a_typed_answer_is_read_as_the_kind_of_the_result(typed: str, expected: Any, right: bool) -> None:
    assert tools._guessed(typed, expected, 1e-3) is right


def test_answers_are_recorded_in_the_current_workspace_or_nowhere(tmp_path: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from micrograd2.exercises import catalog

    monkeypatch.delenv(tools.WORKSPACE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert tools.predictions_file() is None
    (tmp_path / catalog.EXERCISES[0].filename).write_text("", encoding="utf-8")
    assert tools.predictions_file() == tmp_path / tools.PREDICTIONS_FILE
