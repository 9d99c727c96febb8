"""The lessons: every lesson runs and every one of its checks passes; the lesson scripts run with plain
``python`` from a copy anywhere, follow a student's edits, and point errors at their own lines; and the
lesson tools (``micrograd2.lessons.tools``) compare, count and word their checks honestly."""
from __future__ import annotations

import ast
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.commands import lesson as lesson_command
from micrograd2.commands.lesson_cells import cells, header, is_script
from micrograd2.lessons import tools

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = list(lesson_command.lesson_names())
SCRIPTS = [n for n in NUMBERS if is_script(lesson_command.source(n))]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
HAS_TORCH = __import__("importlib").util.find_spec("torch") is not None

_RUNS: dict[int, tuple[Any, str]] = {}


def ran(number: int, capsys: pytest.CaptureFixture[str]) -> tuple[Any, str]:
    """Each lesson run once by the runner (narrated, verbosity steps), shared by the tests below."""
    if number not in _RUNS:
        capsys.readouterr()
        result = lesson_command._run_one(number, lesson_command.Options())
        _RUNS[number] = (result, capsys.readouterr().out)
    return _RUNS[number]


def run_python(path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=path.parent,
                          env={**ENV, **env}, timeout=300)


# -- every lesson ------------------------------------------------------------------------------------------
def test_there_are_eight_lessons_numbered_from_one() -> None:
    assert NUMBERS == list(range(1, 9))


@pytest.mark.parametrize("number", NUMBERS)
def test_every_check_of_the_lesson_passes(number: int, capsys: pytest.CaptureFixture[str]) -> None:
    result, text = ran(number, capsys)
    assert result.problem is None, result.problem
    assert len(result.checks) >= 8
    assert all(c.ok for c in result.checks)


@pytest.mark.parametrize("number", SCRIPTS)
def test_a_script_lesson_says_honestly_what_its_checks_compared(number: int,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    result, text = ran(number, capsys)
    live = sum(c.against == "live" for c in result.checks)
    assert re.search(rf"✓ Lesson {number}: {len(result.checks)} checks: .*; all pass\.\n", text)
    if HAS_TORCH:
        assert live >= 3 and f"{live} against PyTorch 2.13 run live" in text
    assert "PYTORCH_TRUTH" not in text and not re.search(r"\bE\d+\b", text)  # no codes users can't look up


@pytest.mark.parametrize("number", SCRIPTS)
def test_a_script_lesson_has_a_header_short_cells_and_short_functions(number: int) -> None:
    text = lesson_command.source(number)
    about = header(text, "")
    assert about.number == number and about.title and about.goal
    for cell in cells(text):
        if cell.kind == "code":
            assert cell.source.count("\n") <= 45, f"the cell at line {cell.line} is long"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert (node.end_lineno or 0) - node.lineno < 40, node.name


@pytest.mark.parametrize("number", SCRIPTS)
def test_a_script_lesson_imports_only_micrograd2_and_runs_no_code_from_strings_but_the_snippet(
        number: int) -> None:
    text = lesson_command.source(number)
    assert "../shared" not in text and "open(" not in text and "_kit" not in text
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert all(a.name.split(".")[0] == "micrograd2" for a in node.names), ast.dump(node)
        elif isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] == "micrograd2", ast.dump(node)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "exec"]
    assert [ast.unparse(c.args[0]) for c in calls] in ([], ["ARTICLE_SNIPPET"])


@pytest.mark.parametrize("number", [n for n in SCRIPTS if n != 1])
def test_lessons_with_a_backward_pass_narrate_it_under_its_cell(number: int,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, text = ran(number, capsys)
    assert "What autograd did (the tracer's narration):" in text and "backward pass" in text
    assert text.index("  │ ") < text.index("What autograd did")  # source first, narration after


def test_the_article_is_credited_and_its_errors_are_shown(capsys: pytest.CaptureFixture[str]) -> None:
    shown = {n: ran(n, capsys)[1] for n in NUMBERS}
    assert "PyTorch Autograd Deep Dive: From Dynamic Computation Graphs to" in shown[1]
    assert re.search(r"quote it in order to correct\s+it", shown[1])
    assert "NameError: name 'step' is not defined" in shown[3]  # D3
    assert "does not require grad and does not have a grad_fn" in shown[4]  # D1
    assert "SquareAndDoubleBackward" in shown[5]


# -- lesson 3 as a student uses it ------------------------------------------------------------------------
LESSON_3 = ROOT / "lessons" / "03_accumulation.py"


def test_lesson_3_runs_with_python_from_a_copy_elsewhere(tmp_path: Path) -> None:
    copy = tmp_path / "my3.py"
    shutil.copy(LESSON_3, copy)
    done = run_python(copy)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"✓ Lesson 3: \d+ checks: .*; all pass\.", done.stdout)


@pytest.mark.parametrize("no_torch", ["", "1"])
def test_lesson_3_follows_an_edit_of_its_loop(tmp_path: Path, no_torch: str) -> None:
    text = LESSON_3.read_text(encoding="utf-8")
    assert text.count("\nfor i in range(3):") == 1  # the code (the article's, quoted in prose, starts "# ")
    copy = tmp_path / "my3.py"
    copy.write_text(text.replace("\nfor i in range(3):", "\nfor i in range(4):"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "micrograd2", "lesson", "run", str(copy), "--no-color",
                           "--verbosity", "summary"], capture_output=True, text=True, cwd=tmp_path,
                          env={**ENV, "MICROGRAD2_NO_TORCH": no_torch}, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "✓ x.grad after 4 backwards = 4·w: 12.0" in done.stdout
    assert "✓ w.grad after 4 backwards = 4·x: 8.0" in done.stdout
    assert ("run live" in done.stdout) == (HAS_TORCH and not no_torch)


def test_a_failing_check_makes_the_python_run_exit_1_with_the_reason(tmp_path: Path) -> None:
    copy = tmp_path / "broken3.py"
    text = LESSON_3.read_text(encoding="utf-8")
    copy.write_text(text.replace("passes * w.item(),", "passes * w.item() + 1,", 1), encoding="utf-8")
    done = run_python(copy)
    assert done.returncode == 1
    assert "✗ x.grad after 3 backwards" in done.stdout
    assert "1 fail." in done.stderr and "Traceback" not in done.stderr


def test_an_error_in_a_lesson_points_at_its_own_line(tmp_path: Path) -> None:
    copy = tmp_path / "oops.py"
    text = LESSON_3.read_text(encoding="utf-8").replace("passes = i + 1", "passes = i + undefined_name", 1)
    copy.write_text(text, encoding="utf-8")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "undefined_name" in t)
    done = subprocess.run([sys.executable, "-m", "micrograd2", "lesson", "run", str(copy), "--no-trace"],
                          capture_output=True, text=True, cwd=tmp_path, env=ENV, timeout=300)
    assert done.returncode == 1
    assert f'File "{copy}", line {line}, in <module>' in done.stderr
    assert f"oops.py stopped: NameError: name 'undefined_name' is not defined (at oops.py, line {line})" \
        in done.stderr


# -- the tools --------------------------------------------------------------------------------------------
@pytest.fixture
def fresh() -> Any:
    stream = io.StringIO()
    yield tools.start_session(stream=stream, strict=False), stream
    tools.start_session()


def test_a_check_that_differs_is_a_cross_with_both_values(fresh: Any) -> None:
    session, stream = fresh
    tools.check("same", 2.0, 2.0, pytorch="tensor(2.)")
    tools.check("x.grad", 0.0, None, pytorch="None")
    assert [c.ok for c in session.checks] == [True, False]
    assert "✗ x.grad: 0.0   (expected None)   PyTorch (recorded): None" in stream.getvalue()
    tools.summary("Lesson 99")
    assert "✗ Lesson 99: 2 checks: 2 against PyTorch's recorded output; 1 fail." in stream.getvalue()


def test_numbers_compare_within_tolerance_and_nan_equals_nan(fresh: Any) -> None:
    session, _ = fresh
    tools.check("close", 1.0 + 1e-12, 1.0)
    tools.check("nan", float("nan"), float("nan"))
    tools.check("lists", [1.0, None], [1.0, None])
    tools.check("a one-element list is its item", [9.0], 9.0)
    tools.check("a Value by its number", mg.Value(3.0), 3.0)
    tools.check("a Tensor by its numbers", mg.tensor([1.0, 2.0]), [1.0, 2.0])
    assert all(c.ok for c in session.checks)
    tools.check("far", 1.1, 1.0)
    tools.check("bool is not a number", True, 1.0)
    tools.check("lengths", [1.0], [1.0, 2.0])
    assert [c.ok for c in session.checks[-3:]] == [False, False, False]


def test_a_live_pytorch_value_is_compared_too_and_counted_as_live(fresh: Any) -> None:
    session, stream = fresh
    tools.check("agrees with both", 9.0, 9.0, pytorch=tools.live(9.0))
    tools.check("the lesson agrees, PyTorch does not", 9.0, 9.0, pytorch=tools.live(12.0))
    tools.check("no counterpart", 1, 1)
    assert [c.ok for c in session.checks] == [True, False, True]
    assert [c.against for c in session.checks] == ["live", "live", None]
    line = tools.summary_line(session.checks, "2.13", "Lesson 9")
    assert line == ("Lesson 9: 3 checks: 2 against PyTorch 2.13 run live, 1 against the lesson's own numbers only; "
                    "1 fail.")


def test_a_plain_number_is_not_passed_off_as_pytorch(fresh: Any) -> None:
    with pytest.raises(TypeError, match="live"):
        tools.check("x", 1.0, 1.0, pytorch=1.0)


def test_raises_shows_the_error_and_marks_micrograd2s_advice_as_its_own(fresh: Any) -> None:
    session, stream = fresh
    x = mg.Value(2.0, requires_grad=True)
    z = x * x
    z.backward()
    with tools.raises("a second backward", RuntimeError, "a second time",
                      pytorch=tools.error_of(lambda: (_ for _ in ()).throw(RuntimeError("… a second time …")))):
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


def test_cells_split_at_percent_lines_and_keep_real_line_numbers() -> None:
    text = "# %% [markdown]\n# # Lesson 9: T\n#\n# The goal.\n\n# %%\nx = 1\n\n# %%\n\ny = 2\n"
    found = cells(text)
    assert [(c.kind, c.line) for c in found] == [("markdown", 2), ("code", 7), ("code", 11)]
    assert found[0].source == "# Lesson 9: T\n\nThe goal.\n" and found[2].source == "y = 2\n"
    about = header(text, "fallback")
    assert (about.number, about.title, about.goal) == (9, "T", "The goal.")
    assert header("x = 1\n", "f.py").title == "f.py"
