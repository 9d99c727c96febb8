"""Tests for micrograd2.commands.trace: ``micrograd2 trace SCRIPT.py`` on students' scripts (click's CliRunner).

A script runs as ``__main__``; its backward passes are narrated where they
happen among its prints; options choose verbosity, colour and JSON; a raising
script prints the narration so far, then its own traceback, and exits 1; a
missing file is a usage error (exit 2).
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner, Result

from micrograd2.autograd import events
from micrograd2.cli import main

SCRIPT = """
import micrograd2 as mg

def main():
    x = mg.Value(2.0, requires_grad=True, label="x")
    w = mg.Value(3.0, requires_grad=True, label="w")
    print("before")
    for i in range(2):
        z = x * w
        z.label = "z"
        z.backward()
        print("pass", i + 1, "x.grad =", x.grad)

if __name__ == "__main__":
    main()
"""

RAISING = """
import micrograd2 as mg

def helper(y):
    y.backward()          # the second time: the saved values are gone

x = mg.Value(2.0, requires_grad=True, label="x")
y = x.exp()
y.backward()
helper(y)
"""


def script(tmp_path: Path, body: str, name: str = "student.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["trace", *args])


def test_narrates_each_pass_among_the_scripts_own_prints(tmp_path: Path) -> None:
    result = run(script(tmp_path, SCRIPT))
    assert result.exit_code == 0, result.output
    engine, *lines = result.output.splitlines()  # a run opens with the engine it runs on
    assert engine == "engine: the reference core"
    assert lines[0] == "before"
    assert lines[1] == "backward pass 1 from z = 6.0 (MulBackward0), seed gradient 1.0"
    assert "        → x: 1.0 × w (3.0) = 3.0" in lines
    second = lines.index("backward pass 2 from z = 6.0 (MulBackward0), seed gradient 1.0")
    assert lines.index("pass 1 x.grad = 3.0") < second
    assert "        AccumulateGrad  x.grad: 3.0 → 6.0" in lines
    assert lines[-1] == "pass 2 x.grad = 6.0"
    assert "\x1b[" not in result.output
    assert not events.listening


def test_verbosity_summary_and_full(tmp_path: Path) -> None:
    path = script(tmp_path, SCRIPT)
    summary = run("--verbosity", "summary", path)
    assert summary.exit_code == 0
    assert ("backward pass 2 from z = 6.0 (MulBackward0), seed gradient 1.0: 1 step; x.grad = 6.0, w.grad = 4.0"
            in summary.output)
    assert "step 1" not in summary.output
    full = run("--verbosity", "full", "--no-color", path)
    assert "forward  x·w = 6.0   (MulBackward0)" in full.output
    assert run("--verbosity", "loud", path).exit_code == 2


def test_json_prints_one_object_per_event(tmp_path: Path) -> None:
    body = SCRIPT.replace('print("before")', "").replace('print("pass", i + 1, "x.grad =", x.grad)', "pass")
    result = run("--json", script(tmp_path, body))
    assert result.exit_code == 0
    objs = [json.loads(line) for line in result.output.splitlines()]
    assert [o["kind"] for o in objs] == ["forward", "backward", "free", "accumulate", "accumulate"] * 2
    assert [o["step"] for o in objs if o["kind"] == "backward"] == [1, 2]


def test_a_raising_script_prints_the_narration_then_its_own_error(tmp_path: Path) -> None:
    path = script(tmp_path, RAISING)
    result = run("--no-color", path)
    assert result.exit_code == 1
    out = result.output
    assert out.index("backward pass 1 from exp(x)") < out.index("Traceback")
    assert "backward pass 2 from exp(x) = 7.38906 failed before its first step" in out
    assert f'File "{path}", line 5, in helper' in out and f'File "{path}", line 10, in <module>' in out
    assert "RuntimeError: Trying to backward through the graph a second time" in out
    assert "micrograd2/" not in out.split("Traceback")[1]  # our frames are not shown
    assert not events.listening


def test_a_missing_script_is_a_usage_error(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope.py"))
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_the_scripts_exit_code_is_kept_and_a_script_without_backward_says_so(tmp_path: Path) -> None:
    result = run(script(tmp_path, "import sys\nprint('hi')\nsys.exit(3)\n"))
    assert result.exit_code == 3
    assert "ran no backward pass" in result.output


def test_the_script_imports_from_its_own_folder(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text("import micrograd2 as mg\ndef square(v):\n    return v * v\n")
    body = ("import micrograd2 as mg\nfrom helpers import square\n"
            "x = mg.Value(3.0, requires_grad=True, label='x')\nsquare(x).backward()\n")
    result = run(script(tmp_path, body))
    assert result.exit_code == 0, result.output
    assert "AccumulateGrad  x.grad: None → 6.0" in result.output


ARGS = """
import sys
import micrograd2 as mg

epochs = int(sys.argv[sys.argv.index("--epochs") + 1])
x = mg.Value(2.0, requires_grad=True, label="x")
for epoch in range(epochs):
    z = x * x
    z.backward()
print("script", sys.argv[0].endswith("student.py"), "epochs", epochs, "x.grad", x.grad)
"""


def test_arguments_after_a_double_dash_go_to_the_script(tmp_path: Path) -> None:
    result = run("--verbosity", "summary", script(tmp_path, ARGS), "--", "--epochs", "3")
    assert result.exit_code == 0, result.output
    assert "script True epochs 3 x.grad 12.0" in result.output
    assert result.output.count("backward pass") == 3


def test_graph_and_html_draw_the_first_backward_pass(tmp_path: Path) -> None:
    graph, page = tmp_path / "g.dot", tmp_path / "steps.html"
    result = run(script(tmp_path, ARGS), "--graph", str(graph), "--html", str(page), "--", "--epochs", "2")
    assert result.exit_code == 0, result.output
    assert f"wrote {graph}" in result.output and f"wrote {page}" in result.output
    assert "MulBackward0" in graph.read_text() and "digraph" in graph.read_text()
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count('class="frame"') >= 1 and "MulBackward0" in html


def test_a_graph_file_of_an_unknown_kind_is_a_usage_error(tmp_path: Path) -> None:
    result = run(script(tmp_path, SCRIPT), "--graph", str(tmp_path / "g.txt"))
    assert result.exit_code == 2 and "--graph" in result.output and ".svg" in result.output


def test_a_script_without_backward_says_nothing_was_drawn(tmp_path: Path) -> None:
    result = run(script(tmp_path, "print('no autograd here')\n"), "--html", str(tmp_path / "p.html"))
    assert result.exit_code == 0 and "no graph or page written" in result.output
    assert not (tmp_path / "p.html").exists()


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`micrograd2 trace script.py | head`: no traceback, no warning, whoever wrote first (us or the script)."""
    import os
    import subprocess
    import sys

    many = SCRIPT + "\nfor i in range(20000):\n    print('line', i)\n"
    for body in (SCRIPT, many):
        read, write = os.pipe()
        os.close(read)  # the reader has gone before the first line
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        done = subprocess.run([sys.executable, "-m", "micrograd2", "trace", script(tmp_path, body)], stdout=write,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=120)
        os.close(write)
        assert done.returncode in (1, 141) and done.stderr == ""


BIG = """
import micrograd2 as mg
x = mg.Value(0.5, requires_grad=True, label="x")
y = x
for _ in range(120):
    y = y * 1.01
y.backward()
print("x.grad", round(x.grad, 3))
"""


def test_a_step_through_page_of_a_large_pass_is_refused_in_one_warning_and_exit_0(tmp_path: Path) -> None:
    page, graph = tmp_path / "p.html", tmp_path / "g.dot"
    result = run("--verbosity", "summary", script(tmp_path, BIG), "--html", str(page), "--graph", str(graph))
    assert result.exit_code == 0 and "x.grad 3.3" in result.output  # the script ran, the graph was written
    assert f"warning: no {page}: the script's first backward pass 1 has 120 steps, and a step-through page " \
           "is for passes of at most 100" in result.output
    assert not page.exists() and graph.exists()


def test_a_file_in_a_missing_folder_is_refused_before_the_script_runs(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("x")
    for option, name in (("--html", "p.html"), ("--graph", "g.svg")):
        result = run(script(tmp_path, ARGS), option, str(tmp_path / "a_file" / name), "--", "--epochs", "1")
        assert result.exit_code == 2 and "script True" not in result.output
        assert f"the folder {tmp_path / 'a_file'} does not exist (create it first)" in result.output
    assert "Traceback" not in result.output and "missed" not in result.output


def test_a_script_that_does_not_compile_says_only_its_error(tmp_path: Path) -> None:
    result = run("--no-color", script(tmp_path, "x = (1,\n", name="bad.py"), "--graph", str(tmp_path / "g.dot"))
    assert result.exit_code == 1 and "SyntaxError" in result.output
    assert "ran no backward pass" not in result.output and "no graph or page written" not in result.output


def test_a_raising_script_says_its_error_before_what_came_of_it(tmp_path: Path) -> None:
    result = run("--no-color", script(tmp_path, "raise ValueError('no data')\n"))
    out = result.output
    assert result.exit_code == 1 and "ValueError: no data" in out
    assert out.index("Traceback") < out.index("(student.py ran no backward pass: nothing to narrate)")


def test_wrote_the_graph_follows_the_narration_of_the_pass_it_draws(tmp_path: Path) -> None:
    graph = tmp_path / "tiny.dot"
    result = run("--no-color", script(tmp_path, SCRIPT), "--graph", str(graph))
    out = result.output
    assert result.exit_code == 0, out
    assert out.index("backward pass 1 from") < out.index(f"wrote {graph}") < out.index("pass 1 x.grad")
