"""``micrograd2.lessons.checks``: checks compare, count and word what they compared honestly (PyTorch run
live, its recorded output, or the lesson's own numbers); ``raises`` shows the error; the summary ends a
failing script with status 1."""
from __future__ import annotations

import io
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.lessons import checks
from micrograd2.lessons.pytorch import NO_TORCH, error_of
from micrograd2.lessons.session import start_session


@pytest.fixture
def fresh() -> Any:
    stream = io.StringIO()
    yield start_session(stream=stream, strict=False), stream
    start_session()


def test_a_check_that_differs_is_a_cross_with_both_values(fresh: Any) -> None:
    session, stream = fresh
    checks.check("same", 2.0, 2.0, recorded="tensor(2.)")
    checks.check("x.grad", 0.0, None, recorded="None")
    assert [c.ok for c in session.checks] == [True, False]
    assert "✗ x.grad: 0.0   (expected None)   PyTorch (recorded): None" in stream.getvalue()
    checks.summary("Lesson 99")
    assert "✗ Lesson 99: 2 checks: 2 against PyTorch's recorded output; 1 fail." in stream.getvalue()


def test_a_live_pytorch_value_is_compared_too_and_counted_as_live(fresh: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    monkeypatch.setattr(checks, "live_torch", lambda: object())  # as if PyTorch were installed
    checks.check("agrees with both", 9.0, 9.0, torch=lambda: 9.0, recorded="never shown when live")
    checks.check("the lesson agrees, PyTorch does not", 9.0, 9.0, torch=lambda: 12.0)
    checks.check("no counterpart", 1, 1)
    assert [c.ok for c in session.checks] == [True, False, True]
    assert [c.against for c in session.checks] == ["live", "live", None]
    line = checks.summary_line(session.checks, "2.13", "Lesson 9")
    assert line == ("Lesson 9: 3 checks: 2 against PyTorch 2.13 run live, 1 lesson-only; "
                    "1 fail.")


def test_without_pytorch_the_recorded_output_is_shown_and_the_function_never_called(
        fresh: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    monkeypatch.setenv(NO_TORCH, "1")
    checks.check("x.grad", 9.0, 9.0, torch=lambda: 1 / 0, recorded="tensor([9.])")
    assert session.checks[-1].against == "recorded" and "PyTorch (recorded): tensor([9.])" in stream.getvalue()


def test_a_recorded_output_for_other_inputs_does_not_apply_and_is_not_counted(
        fresh: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    monkeypatch.setenv(NO_TORCH, "1")
    for passes in (3, 4):
        checks.check(f"after {passes}", passes * 3.0, passes * 3.0, inputs={"passes": passes},
                    recorded=checks.Recorded("tensor([9.])", passes=3))
    assert [c.against for c in session.checks] == ["recorded", None]
    assert "✓ after 4: 12.0   PyTorch (recorded): tensor([9.]) for passes=3: does not apply to these inputs, " \
           "not counted" in stream.getvalue()
    assert "1 against PyTorch's recorded output, 1 lesson-only" \
        in checks.summary_line(session.checks, None)


def test_a_scalar_value_stands_for_pytorchs_one_element_tensor_only(fresh: Any,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    session, _ = fresh
    monkeypatch.setattr(checks, "live_torch", lambda: object())
    checks.check("Value vs tensor([9.])", mg.Value(9.0), 9.0, torch=lambda: [9.0])
    checks.check("a list vs a list", [9.0], [9.0], torch=lambda: [[9.0]])
    assert [c.ok for c in session.checks] == [True, False]


def test_the_old_pytorch_argument_still_works_with_a_deprecation_warning(fresh: Any) -> None:
    session, _ = fresh
    with pytest.warns(DeprecationWarning, match="torch=lambda"):
        checks.check("recorded", 1.0, 1.0, pytorch="tensor(1.)")
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="torch=lambda"):
        checks.check("x", 1.0, 1.0, pytorch=1.0)
    assert session.checks[-1].against == "recorded"


def test_raises_shows_the_error_and_marks_micrograd2s_advice_as_its_own(fresh: Any,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    session, stream = fresh
    x = mg.Value(2.0, requires_grad=True)
    z = x * x
    z.backward()
    monkeypatch.setattr(checks, "live_torch", lambda: object())
    with checks.raises("a second backward", RuntimeError, "a second time",
                      torch=lambda: error_of(lambda: (_ for _ in ()).throw(RuntimeError("… a second time …")))):
        z.backward()
    text = stream.getvalue()
    assert "  RuntimeError: Trying to backward through the graph a second time" in text
    assert "[micrograd2's advice, not printed by PyTorch] What to do:" in text
    assert "RuntimeError: Trying" in text.split("What to do:")[0]  # PyTorch's words come first, apart
    assert session.checks[-1].ok and session.checks[-1].against == "live"
    with checks.raises("nothing raised", RuntimeError, "boom"):
        pass
    assert not session.checks[-1].ok and session.checks[-1].got == "no error"


def test_summary_ends_a_python_run_with_status_1_only_on_failure() -> None:
    start_session(stream=io.StringIO())
    checks.check("fine", 1, 1)
    assert checks.summary("L").failures == []
    checks.check("bad", 1, 2)
    with pytest.raises(SystemExit, match="1 fail"):
        checks.summary("L")
    start_session()
