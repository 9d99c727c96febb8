"""``micrograd2 lesson``: list, run (narrated, --json, --graph, --html, --no-trace), show; exit codes
0 / 1 / 2 with one-line messages and never a traceback."""
from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from micrograd2.cli import main
from micrograd2.commands import lesson as lesson_command

ROOT = Path(__file__).resolve().parent.parent
HAS_DOT = shutil.which("dot") is not None


def cli(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["lesson", *args], env=env)


def test_list_gives_number_title_and_goal_of_each_lesson() -> None:
    result = cli("list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [int(line.split()[0]) for line in lines] == list(range(1, 11))
    assert "A minimal graph" in lines[0] and "Block 1" in lines[0]


def test_run_narrates_the_lesson_and_exits_0() -> None:
    result = cli("run", "2", "--no-color")
    assert result.exit_code == 0, result.output
    assert "Lesson 2: What backward() does" in result.output
    assert "What autograd did (the tracer's narration):" in result.output
    assert re.search(r"✓ Lesson 2: \d+ checks: .*; all pass\.", result.output)
    assert "\x1b[" not in result.output


def test_no_trace_drops_the_narration() -> None:
    result = cli("run", "3", "--no-trace", "--no-color")
    assert result.exit_code == 0
    assert "What autograd did" not in result.output and "; all pass." in result.output


def test_a_script_lesson_shows_each_cells_source_then_output_then_narration() -> None:
    result = cli("run", "3", "--no-color")
    assert result.exit_code == 0, result.output
    out = result.output
    engine, lesson = out.lstrip().split("\n", 1)  # a run opens with the engine it runs on
    assert engine == "engine: the reference core" and lesson.lstrip().startswith(
        "Lesson 3: Gradients accumulate")
    source = out.index("  │ for i in range(3):")
    printed = out.index("after backward 1: x.grad = 3.0", source)
    narrated = out.index("What autograd did (the tracer's narration):", printed)
    assert out.index("AccumulateGrad  x.grad: None → 3.0", narrated) > narrated
    assert out.index("seed gradient 1.0: 1 step; x.grad = 6.0, w.grad = 4.0", narrated) > narrated
    assert "  ┆ for i in range(3):" in out  # the article's code, quoted in prose
    assert re.search(r"✓ Lesson 3: \d+ checks: .*; all pass\.", out)


def test_verbosity_is_checked_by_click() -> None:
    assert cli("run", "2", "--verbosity", "full").exit_code == 0
    result = cli("run", "2", "--verbosity", "loud")
    assert result.exit_code == 2 and "loud" in result.output


@pytest.mark.parametrize("args", [("run", "999"), ("run", "abc"), ("show", "999"), ("show", "all")])
def test_a_lesson_that_does_not_exist_is_a_usage_error_listing_the_valid_numbers(args: tuple[str, ...]) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1
    assert "choose one of 1, 2, 3, 4, 5, 6, 7, 8" in errors[0]
    assert ("all or a lesson file PATH.py" in errors[0]) == (args[0] == "run")
    assert "Traceback (most recent call last)" not in result.output


def stdout_only(*args: str) -> Result:
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2
    except TypeError:
        runner = CliRunner()  # click >= 8.2 keeps stderr apart from result.stdout
    return runner.invoke(main, ["lesson", *args])


def test_json_writes_json_lines_only() -> None:
    result = stdout_only("run", "4", "--json")
    assert result.exit_code == 0
    records = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [r["kind"] for r in records]
    assert {"forward", "backward", "accumulate", "check"} <= set(kinds)
    assert kinds[-1] == "lesson" and records[-1]["ok"] and records[-1]["failed"] == 0
    assert all(r["lesson"] == 4 for r in records)


def test_json_with_no_trace_writes_only_the_checks() -> None:
    result = stdout_only("run", "5", "--json", "--no-trace")
    assert result.exit_code == 0
    assert {json.loads(line)["kind"] for line in result.stdout.splitlines()} == {"check", "lesson"}


@pytest.mark.skipif(not HAS_DOT, reason="needs Graphviz's dot")
def test_graph_writes_an_svg(tmp_path: Path) -> None:
    target = tmp_path / "graph.svg"
    result = cli("run", "1", "--no-trace", "--graph", str(target))
    assert result.exit_code == 0, result.output
    assert target.read_text().lstrip().startswith(("<?xml", "<svg")) and "<svg" in target.read_text()
    assert f"wrote {target}" in result.output


def test_graph_without_graphviz_writes_the_dot_source_and_says_how_to_install(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    target = tmp_path / "graph.svg"
    result = cli("run", "2", "--no-trace", "--graph", str(target), env={"PATH": str(empty)})
    assert result.exit_code == 0, result.output
    source = (tmp_path / "graph.dot").read_text()
    assert source.startswith("digraph") and "SumBackward0" in source and "AccumulateGrad" in source
    assert not target.exists()
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "install Graphviz" in warnings[0]


def test_graph_with_an_unknown_suffix_is_a_usage_error(tmp_path: Path) -> None:
    result = cli("run", "1", "--graph", str(tmp_path / "graph.txt"))
    assert result.exit_code == 2 and ".svg" in result.output


def test_html_writes_the_step_through_page_of_the_main_backward_pass(tmp_path: Path) -> None:
    target = tmp_path / "steps.html"
    result = cli("run", "2", "--no-trace", "--html", str(target))
    assert result.exit_code == 0, result.output
    page = target.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert page.count('class="frame"') >= 3  # one frame per backward step of z.backward()
    assert "MulBackward0" in page and "SumBackward0" in page


def test_html_of_a_lesson_without_backward_says_so(tmp_path: Path) -> None:
    result = cli("run", "1", "--html", str(tmp_path / "p.html"))
    assert result.exit_code == 0 and "runs no backward pass, so there is nothing to step through" in result.output
    assert not (tmp_path / "p.html").exists()


def test_html_of_a_script_lesson_steps_through_its_backward_passes(tmp_path: Path) -> None:
    target = tmp_path / "steps.html"
    result = cli("run", "3", "--no-trace", "--html", str(target))
    assert result.exit_code == 0, result.output
    page = target.read_text()
    assert page.count('class="frame"') >= 10 and "AccumulateGrad" in page


@pytest.mark.skipif(not HAS_DOT, reason="needs Graphviz's dot")
def test_graph_of_a_script_lesson_draws_its_shown_graph(tmp_path: Path) -> None:
    target = tmp_path / "g.svg"
    result = cli("run", "3", "--no-trace", "--graph", str(target))
    assert result.exit_code == 0, result.output
    assert "<svg" in target.read_text() and "MeanBackward0" in target.read_text()


def test_json_of_a_script_lesson_is_events_checks_and_a_lesson_record() -> None:
    result = stdout_only("run", "3", "--json")
    assert result.exit_code == 0
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert {"backward", "accumulate", "check"} <= {r["kind"] for r in records}
    assert all(r["lesson"] == 3 for r in records)
    last = records[-1]
    assert last["kind"] == "lesson" and last["ok"] and last["checks"] == sum(r["kind"] == "check" for r in records)


def test_run_all_numbers_the_files_of_each_lesson(tmp_path: Path) -> None:
    result = cli("run", "all", "--no-trace", "--no-color", "--graph", str(tmp_path / "g.dot"))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"g-{n:02d}.dot" for n in range(1, 11)]
    last = result.output.rstrip().splitlines()[-1]
    assert re.fullmatch(r"All 10 lessons: \d+ checks: .*; all pass\.", last), last


def test_show_prints_the_lesson_source() -> None:
    result = cli("show", "5")
    assert result.exit_code == 0
    assert result.output == (ROOT / "lessons" / "05_custom_function.py").read_text(encoding="utf-8")


def test_run_path_runs_a_students_own_script(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    script.write_text(MINE, encoding="utf-8")
    result = cli("run", str(script), "--no-color")
    assert result.exit_code == 0, result.output
    assert "  │ z.backward()" in result.output and "What autograd did" in result.output
    assert "✓ x.grad: 3.0" in result.output and "✓ mine.py: 1 checks:" in result.output


MINE = """# %%
import micrograd2 as mg
from micrograd2.lessons.tools import check

x = mg.Value(2.0, requires_grad=True)
z = x * 3
z.backward()
check("x.grad", x.grad, 3.0)
"""


def test_a_script_whose_check_fails_exits_1_with_a_message(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    script.write_text(MINE.replace('x.grad, 3.0', 'x.grad, 4.0'), encoding="utf-8")
    result = cli("run", str(script), "--no-color")
    assert result.exit_code == 1
    assert "Error: mine.py: 1 of 1 checks fail (first: x.grad: got 3.0, expected 4.0)" in result.output
    assert "Traceback (most recent call last)" not in result.output


def test_a_script_that_crashes_exits_1_with_its_own_lines_only(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    script.write_text(MINE + "raise ValueError('something broke\\nsecond line')\n", encoding="utf-8")
    result = cli("run", str(script))
    assert result.exit_code == 1
    assert "Error: mine.py stopped: ValueError: something broke (at mine.py, line 9)" in result.output
    assert f'File "{script.resolve()}", line 9, in <module>' in result.output
    assert "micrograd2/commands" not in result.output


def test_an_anomaly_report_points_at_the_forward_call_in_the_script(tmp_path: Path) -> None:
    script = tmp_path / "anomaly.py"
    script.write_text("# %%\nimport micrograd2 as mg\n\nx = mg.Value(0.0, requires_grad=True)\n\n# %%\n"
                      "with mg.detect_anomaly():\n    y = (x ** 2) ** 0.5\n    y.backward()\n", encoding="utf-8")
    result = cli("run", str(script), "--no-trace", "--no-color")
    assert result.exit_code == 1
    report = result.output[result.output.index("Error detected in PowBackward0"):]
    assert f'File "{script.resolve()}", line 8, in <module>' in report and "y = (x ** 2) ** 0.5" in report
    assert f'File "{script.resolve()}", line 9, in <module>' in report  # the traceback: backward's line


def test_run_path_of_a_file_that_does_not_exist_is_a_usage_error() -> None:
    result = cli("run", "no-such-lesson.py")
    assert result.exit_code == 2 and "there is no file 'no-such-lesson.py'" in result.output


def test_notebook_writes_the_lesson_as_ipynb(tmp_path: Path) -> None:
    pytest.importorskip("jupytext")
    result = cli("notebook", "3", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    notebook = json.loads((tmp_path / "03_accumulation.ipynb").read_text())
    kinds = [c["cell_type"] for c in notebook["cells"]]
    assert kinds[:3] == ["code", "markdown", "code"] and "narrate_cells()" in "".join(notebook["cells"][0]["source"])
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"


def test_completion_offers_the_lesson_numbers_and_all() -> None:
    ctx = click.Context(click.Command("run"))
    param = click.Argument(["which"])
    offered = [c.value for c in lesson_command.LessonNumber(allow_all=True).shell_complete(ctx, param, "")]
    assert offered == [str(n) for n in range(1, 11)] + ["all"]
    only = [c.value for c in lesson_command.LessonNumber(allow_all=False).shell_complete(ctx, param, "1")]
    assert only == ["1", "10"]


def test_the_lessons_are_found_without_an_install_from_a_source_checkout() -> None:
    package = lesson_command.lessons_package()
    assert package.__name__ == "micrograd2.lessons"
    assert Path(package.__path__[0]).resolve() == (ROOT / "lessons").resolve()
    assert sys.modules["micrograd2.lessons"] is package


LONG = """# %%
import micrograd2 as mg

x = mg.Value(1.0, requires_grad=True)
y = x
for _ in range(150):
    y = y * 1.0
y.backward()
"""


def test_html_of_a_pass_too_long_for_a_page_is_refused_in_one_warning(tmp_path: Path) -> None:
    script, page = tmp_path / "long.py", tmp_path / "long.html"
    script.write_text(LONG, encoding="utf-8")
    result = cli("run", str(script), "--no-color", "--verbosity", "summary", "--html", str(page))
    assert result.exit_code == 0, result.output
    assert f"warning: no {page}: long.py's backward pass 1 has 150 steps, and a step-through page is for " \
           "passes of at most 100" in result.output
    assert not page.exists() and "Traceback" not in result.output


@pytest.mark.parametrize("option", ["--graph", "--html"])
def test_a_file_in_a_missing_folder_is_refused_as_train_plot_does(tmp_path: Path, option: str) -> None:
    result = cli("run", "2", option, str(tmp_path / "nowhere" / "g.svg"))
    assert result.exit_code == 2 and "does not exist (create it first)" in result.output
    assert not (tmp_path / "nowhere").exists()


def test_ctrl_c_in_run_all_says_what_finished_and_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    ran_one = lesson_command._run_one

    def interrupted_after_the_first(target: object, options: lesson_command.Options) -> lesson_command.Ran:
        if target != 1:
            raise KeyboardInterrupt
        return ran_one(target, options)  # type: ignore[arg-type]

    monkeypatch.setattr(lesson_command, "_run_one", interrupted_after_the_first)
    result = cli("run", "all", "--no-trace", "--no-color")
    assert result.exit_code == 130
    assert "stopped (Ctrl-C) after 1 of 10 lessons; finished: lesson 1 ✓" in result.output
    assert "Aborted" not in result.output


def test_reference_reruns_the_command_on_the_reference_path(tmp_path: Path) -> None:
    import os
    import subprocess

    script = tmp_path / "where.py"
    script.write_text(MINE.replace('check("x.grad", x.grad, 3.0)',
                                   'check("fast layer off", mg.fast.ENABLED, False)'), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MICROGRAD2_REFERENCE"}
    done = subprocess.run([sys.executable, "-m", "micrograd2", "lesson", "run", str(script), "--reference",
                           "--no-color", "--no-trace"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✓ fast layer off: False" in done.stdout
    assert "from the command line" in cli("run", str(script), "--reference").output  # in-process: refused


def test_a_warning_is_said_where_it_is_raised_before_the_check_it_belongs_to(tmp_path: Path) -> None:
    script = tmp_path / "warns.py"
    script.write_text(MINE.replace("z.backward()\n", "print('before the warning')\nimport warnings\n"
                                   "warnings.warn('x is about to be used')\nz.backward()\n"), encoding="utf-8")
    result = cli("run", str(script), "--no-color")
    out = result.output
    assert result.exit_code == 0, out
    assert out.index("before the warning") < out.index("  UserWarning: x is about to be used") \
        < out.index("✓ x.grad: 3.0")
