"""Every lesson script becomes a notebook (``micrograd2 lesson notebook N``) that runs headless in a real
Python kernel (nbclient): every cell runs, every check passes, narration sits under its cell and the
graph shows as a picture."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from micrograd2.cli import main
from micrograd2.commands import lesson as lesson_command
from micrograd2.commands.lesson_cells import is_script

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("jupytext")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [n for n in lesson_command.lesson_names() if is_script(lesson_command.source(n))]


def outputs_text(cell: dict) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.slow
@pytest.mark.parametrize("number", SCRIPTS)
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
    assert all(".backward(" in c.source or "exec(" in c.source or "step(" in c.source or "grads(" in c.source
               for c in narrated)  # narration sits under the cell that ran the pass
    pictures = [o for c in code for o in c.get("outputs", []) if "image/svg+xml" in o.get("data", {})]
    assert pictures or shutil.which("dot") is None
