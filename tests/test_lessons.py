"""The lessons: every lesson runs, every one of its checks against PyTorch's numbers holds, and the kit
that tells them (code shown as it runs, ✓/✗ lines, narration, JSON) behaves."""
from __future__ import annotations

import ast
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from micrograd2.commands.lesson import lesson_names, load

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = list(lesson_names())


def kit() -> ModuleType:
    load(NUMBERS[0])
    return sys.modules["micrograd2.lessons._kit"]


def run_lesson(number: int, **options: Any) -> tuple[Any, str]:
    stream = io.StringIO()
    story = kit().Story(stream=stream, color=False, **options)
    return load(number).run(story), stream.getvalue()


_RESULTS: dict[int, tuple[Any, str]] = {}


def ran(number: int) -> tuple[Any, str]:
    """Each lesson run once (narrated, verbosity steps) and shared by the tests below."""
    if number not in _RESULTS:
        _RESULTS[number] = run_lesson(number)
    return _RESULTS[number]


def test_there_are_eight_lessons_numbered_from_one() -> None:
    assert NUMBERS == list(range(1, 9))


@pytest.mark.parametrize("number", NUMBERS)
def test_every_check_of_the_lesson_matches_pytorch(number: int) -> None:
    result, text = ran(number)
    failures = [f"{c.what}: got {c.got}, expected {c.expected}" for c in result.failures]
    assert not failures, failures
    assert len(result.checks) >= 8
    assert f"Lesson {number}: all {len(result.checks)} checks match PyTorch." in text


@pytest.mark.parametrize("number", NUMBERS)
def test_each_lesson_names_itself_and_has_a_diagram_and_a_goal(number: int) -> None:
    module = load(number)
    assert module.NUMBER == number
    assert module.TITLE and module.GOAL and module.__doc__
    result, text = ran(number)
    assert result.number == number and result.title == module.TITLE
    assert text.lstrip().startswith(f"Lesson {number}: {module.TITLE}")
    assert result.diagram is not None


@pytest.mark.parametrize("number", [n for n in NUMBERS if n != 1])
def test_lessons_with_a_backward_pass_narrate_it_and_keep_a_main_trace(number: int) -> None:
    result, text = ran(number)
    assert "What autograd did (the tracer's narration):" in text
    assert "backward pass" in text
    assert result.main_trace is not None
    assert any(e.kind == "backward" for e in result.main_trace.events)


@pytest.mark.parametrize("number", NUMBERS)
def test_lessons_use_only_the_public_api_and_never_read_shared(number: int) -> None:
    path = Path(load(number).__file__ or "")
    source = path.read_text(encoding="utf-8")
    assert "../shared" not in source and "PYTORCH_TRUTH" not in source and "open(" not in source
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            assert all(a.name in ("math", "re", "micrograd2") for a in node.names), ast.dump(node)
        elif isinstance(node, ast.ImportFrom):
            assert node.module in ("__future__", "_kit"), ast.dump(node)


def test_the_article_is_credited_and_its_errors_are_shown() -> None:
    shown = {n: ran(n)[1] for n in NUMBERS}
    assert "The article's code (block 1), PyTorch:" in shown[1]
    assert "NameError: name 'step' is not defined" in shown[3]  # D3
    assert "does not require grad and does not have a grad_fn" in shown[4]  # D1
    assert "SquareAndDoubleBackward" in shown[5]
    assert "0.0006551742553710938" in shown[6] and "9.997165761888027e-09" in shown[6]  # E15


def test_no_trace_runs_the_checks_without_narration() -> None:
    result, text = run_lesson(2, trace=False)
    assert result.ok
    assert "What autograd did" not in text
    assert result.main_trace is None


def test_record_keeps_the_main_trace_without_narrating() -> None:
    result, text = run_lesson(2, trace=False, record=True)
    assert "What autograd did" not in text
    assert result.main_trace is not None and result.main_trace.backward_events()


def test_verbosity_summary_is_shorter_than_full_which_shows_the_forward_ops() -> None:
    _, summary = run_lesson(3, verbosity="summary")
    _, full = run_lesson(3, verbosity="full")
    assert len(summary) < len(full)
    assert "forward" in full and "step 1" not in summary


def test_json_mode_writes_only_json_lines_events_then_checks() -> None:
    result, text = run_lesson(2, json=True)
    records = [json.loads(line) for line in text.splitlines()]
    kinds = {r["kind"] for r in records}
    assert {"forward", "backward", "accumulate", "check"} <= kinds
    assert all(r["lesson"] == 2 for r in records)
    checks = [r for r in records if r["kind"] == "check"]
    assert len(checks) == len(result.checks) and all(c["ok"] for c in checks)


def test_a_check_that_differs_is_a_cross_with_both_values() -> None:
    stream = io.StringIO()
    story = kit().Story(stream=stream, color=False)
    story.lesson(99, "test", "a goal")
    assert story.check("same", 2.0, 2.0)
    assert not story.check("x.grad", 0.0, None, torch="None")
    result = story.done()
    assert not result.ok and [c.what for c in result.failures] == ["x.grad"]
    text = stream.getvalue()
    assert "✗ x.grad: 0.0   (expected None)   PyTorch: None" in text
    assert "1 of 2 checks differ from PyTorch" in text


def test_numbers_compare_within_tolerance_and_nan_equals_nan() -> None:
    story = kit().Story(stream=io.StringIO())
    story.lesson(99, "test", "")
    assert story.check("close", 1.0 + 1e-12, 1.0)
    assert not story.check("far", 1.1, 1.0)
    assert story.check("nan", float("nan"), float("nan"))
    assert not story.check("bool is not a number", True, 1.0)
    assert story.check("lists", [1.0, None], [1.0, None])
    assert not story.check("lengths", [1.0], [1.0, 2.0])


def test_code_that_should_fail_but_does_not_is_a_failed_check() -> None:
    story = kit().Story(stream=io.StringIO())
    story.lesson(99, "test", "")
    assert story.fails("y = 1", None, RuntimeError, "boom") is None
    assert not story.result.ok


def test_lesson_code_prints_and_warnings_appear_in_the_story() -> None:
    stream = io.StringIO()
    story = kit().Story(stream=stream, color=False)
    story.lesson(99, "test", "")
    ns = story.run("import warnings\nprint('hello', 1.5)\nwarnings.warn('careful\\nmore')")
    text = stream.getvalue()
    assert "  │ print('hello', 1.5)" in text and "  hello 1.5" in text
    assert "UserWarning: careful" in text and ns["warnings"]


def test_an_ascii_terminal_gets_ok_and_fail_instead_of_ticks() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    story = kit().Story(stream=stream, color=False)
    assert story._marks == ("OK", "FAIL")


def test_colour_is_off_for_a_non_terminal_and_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not kit().Story(stream=io.StringIO()).color
    assert kit().Story(stream=io.StringIO(), color=True).color
    monkeypatch.setenv("NO_COLOR", "1")
    assert not kit()._use_color(None, sys.stdout)


def test_the_text_diagram_walks_next_functions_without_recursion() -> None:
    import micrograd2 as mg

    x = mg.Value(1.0, requires_grad=True, label="x")
    y = x
    for _ in range(5000):  # deeper than Python's recursion limit would allow a recursive walk
        y = y * 1.0
    lines = kit().graph_lines(y)
    assert lines[0] == "MulBackward0" and lines[-1].startswith("…")
    shared = kit().graph_lines(x * x)
    assert shared == ["MulBackward0", "├── AccumulateGrad → x.grad", "└── AccumulateGrad → x.grad"]
    assert kit().graph_lines(x) == ["x is a leaf: no grad_fn, nothing to walk"]


def test_a_lesson_runs_as_a_script() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "lessons" / "05_custom_function.py"), "--no-color",
                           "--verbosity", "summary"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "✓ Lesson 5: all" in done.stdout
