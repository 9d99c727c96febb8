"""Every lesson script becomes a notebook (``micrograd2 lesson notebook N``) that runs headless in a real
Python kernel (nbclient): every cell runs, every check passes, narration sits under its cell and the
graph shows as a picture; and that a notebook already there (the student's, maybe edited) is not
overwritten without ``--force``."""
from __future__ import annotations

import ast
import os
import re
import shutil
from pathlib import Path
from typing import Iterable

import pytest
from click.testing import CliRunner

from micrograd2.cli import main
from micrograd2.commands import lesson as lesson_command

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("jupytext")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = list(lesson_command.lesson_names())


def test_every_lesson_is_executed_as_a_notebook() -> None:
    """All ten lessons are percent scripts, so the test below runs each of them as a notebook."""
    assert NUMBERS == list(range(1, 11))


def test_a_notebook_the_student_edited_is_not_overwritten_without_force(tmp_path: Path) -> None:
    """The issue's finding: ``lesson notebook 1 -o nb`` run again silently overwrote the student's notebook."""
    folder = tmp_path / "nb"
    first = CliRunner().invoke(main, ["lesson", "notebook", "1", "-o", str(folder)])
    path = folder / f"{lesson_command.lesson_names()[1]}.ipynb"
    assert first.exit_code == 0 and first.output == f"wrote {path}\n"
    notebook = nbformat.read(str(path), as_version=4)
    notebook.cells[1].source += "\n# my note"  # the student's edit
    nbformat.write(notebook, str(path))
    edited = path.read_bytes()

    again = CliRunner().invoke(main, ["lesson", "notebook", "1", "-o", str(folder)])
    assert again.exit_code == 2
    assert again.output == (f"Error: {path} already exists and may hold your edits, so it was left as it is. "
                            "What to do: pass --force to overwrite it, or write into another folder.\n")
    assert path.read_bytes() == edited

    forced = CliRunner().invoke(main, ["lesson", "notebook", "1", "-o", str(folder), "--force"])
    assert forced.exit_code == 0 and path.read_bytes() != edited
    assert "# my note" not in path.read_text(encoding="utf-8")
    assert nbformat.read(str(path), as_version=4).cells[0].metadata["tags"] == ["micrograd2"]


def backward_runners(sources: Iterable[str]) -> re.Pattern[str]:
    """A pattern for code that runs a backward pass: a call of backward, grad, gradcheck, jacobian, an
    optimizer or scaler step, the article's snippet (exec), or of a lesson function whose body does one
    of these."""
    calls = {"backward", "grad", "gradcheck", "jacobian", "step", "exec"}
    functions = {}
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef):
                functions[node.name] = {getattr(n.func, "attr", getattr(n.func, "id", None))
                                        for n in ast.walk(node) if isinstance(n, ast.Call)}
    grown = True
    while grown:  # a function that calls such a function runs a backward pass too
        runners = {name for name, called in functions.items() if called & calls}
        grown = bool(runners - calls)
        calls |= runners
    return re.compile(r"\b(" + "|".join(sorted(calls)) + r")\(")


def outputs_text(cell: dict) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.slow
@pytest.mark.parametrize("number", NUMBERS)
def test_the_lesson_runs_as_a_notebook_and_every_check_passes(number: int, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(main, ["lesson", "notebook", str(number), "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    path = tmp_path / f"{lesson_command.lesson_names()[number]}.ipynb"
    notebook = nbformat.read(str(path), as_version=4)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()  # raises if a cell fails
    code = [c for c in notebook.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    text = "".join(outputs_text(c) for c in code)
    assert "✗" not in text
    assert re.search(rf"✓ Lesson {number}: \d+ checks: .*; all pass\.", text)
    narrated = [c for c in code if "What autograd did (the tracer's narration):" in outputs_text(c)]
    backward_cells = [c for c in code if ".backward(" in c.source]
    assert bool(narrated) == bool(backward_cells)  # lesson 1 runs no backward pass
    runs_backward = backward_runners(c.source for c in code)
    assert all(runs_backward.search(c.source) for c in narrated)  # narration sits under the cell that ran the pass
    pictures = [o for c in code for o in c.get("outputs", []) if "image/svg+xml" in o.get("data", {})]
    assert pictures or shutil.which("dot") is None
