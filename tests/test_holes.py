"""``micrograd2/autograd/holes.py``: the registry of a student's engine holes (docs/course.md).

Here in this process no engine is on (``MICROGRAD2_ENGINE`` is unset), so the core never asks;
these tests load folders into the registry directly and put it back as it was.
``tests/test_course_engine.py`` runs micrograd2 on whole engines, in new processes.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

import micrograd2 as mg
from micrograd2.autograd import holes
from micrograd2.course.workspace import STUBS, engine_files

SOLUTION = Path(__file__).parent / "course" / "solution_engine"


@pytest.fixture()
def registry() -> Iterator[None]:
    """Leave the registry as it was (empty and unloaded, here); the folder loaded last stays on
    ``sys.path``, for the next load to replace."""
    filled, done = dict(holes.FILLED), set(holes.DONE)
    state = {key: value for key, value in holes.state.items() if key != "folder"}
    yield
    holes.FILLED.clear()
    holes.FILLED.update(filled)
    holes.DONE.clear()
    holes.DONE.update(done)
    holes.state.update(state)


def test_no_engine_no_registry() -> None:
    assert holes.ON is False and holes.FOLDER is None
    assert set(holes.UNITS) == {"record", "accumulate", "count_dependencies", "walk", "sum_to",
                                "sum_backward", "mean_backward", "matmul_backward"}


def test_the_stubs_leave_every_hole_unfilled_and_it_raises(registry: None) -> None:
    filled = holes.load(STUBS)
    assert set(filled) == set(holes.UNITS) and not holes.DONE
    assert holes.state["tensors"] is False
    with pytest.raises(NotImplementedError, match="not implemented yet: walk"):
        filled["walk"]([], [], lambda node, grad: ())


def test_the_solution_fills_every_hole(registry: None) -> None:
    holes.load(SOLUTION)
    assert holes.DONE == set(holes.UNITS) and holes.state["tensors"] is True
    assert holes.fill("accumulate", mg.Value).__module__ == "u2_walk"


def test_tensor_graphs_run_on_the_reference_until_u3_is_begun(tmp_path: Path,
                                                              registry: None) -> None:
    for name in ("u1_record.py", "u2_walk.py"):
        (tmp_path / name).write_text((SOLUTION / name).read_text())
    holes.load(tmp_path)
    assert holes.fill("walk", mg.Value) is not None
    assert holes.fill("walk", mg.Tensor) is None  # U3 not begun: the reference Tensor engine
    assert holes.DONE == {"record", "accumulate", "count_dependencies", "walk"}


def test_a_missing_hole_is_unfilled_not_the_reference(tmp_path: Path, registry: None) -> None:
    (tmp_path / "mine.py").write_text("def sum_to(grad, shape):\n    return grad.sum_to_size(shape)\n")
    holes.load(tmp_path)
    assert holes.state["tensors"] is True  # U3 begun: Tensor graphs ask for every hole
    with pytest.raises(NotImplementedError, match="not implemented yet: matmul_backward"):
        holes.fill("matmul_backward", mg.Tensor)(None, None, None)  # type: ignore[misc]


def test_a_stub_body_is_recognised() -> None:
    def stub(x: int) -> int:
        """Doc."""
        raise NotImplementedError("not implemented yet: x")

    def filled(x: int) -> int:
        if x:
            raise NotImplementedError
        return x

    assert holes.is_stub(stub) and not holes.is_stub(filled)


def test_a_workspace_gets_one_stub_module_per_unit() -> None:
    files = engine_files()
    assert sorted(files) == ["engine/u1_record.py", "engine/u2_walk.py", "engine/u3_tensors.py"]
    for name in holes.UNITS:  # U3's come from its exercises (NOTE [U3's holes in a workspace])
        assert any(f"def {name}(" in text or f"\n{name} = taken(" in text
                   for text in files.values()), name


def test_a_workspaces_u3_holes_are_its_u3_exercises(tmp_path: Path, registry: None) -> None:
    """Unfilled while the exercises are stubs; the student's functions once they are written."""
    (tmp_path / "engine").mkdir()
    for path, text in engine_files().items():
        (tmp_path / path).write_text(text, encoding="utf-8")
    sources = Path(mg.__file__).parent / "exercises" / "sources"
    for module in ("u3_sum_to", "u3_reductions", "u3_matmul"):
        (tmp_path / f"{module}.py").write_text((sources / f"{module}.py").read_text())
    filled = holes.load(tmp_path / "engine")
    assert not holes.DONE & {"sum_to", "sum_backward", "mean_backward", "matmul_backward"}
    with pytest.raises(NotImplementedError, match="not implemented yet: sum_to"):
        filled["sum_to"](None, ())
    (tmp_path / "u3_sum_to.py").write_text("def sum_to(grad, shape):\n    return 'mine'\n")
    sys.modules.pop("u3_sum_to")  # a new process (as --engine starts) would read the file again
    filled = holes.load(tmp_path / "engine")
    assert "sum_to" in holes.DONE and filled["sum_to"](None, ()) == "mine"


def test_an_engine_without_the_reference_path_is_refused() -> None:
    env = {**os.environ, holes.VARIABLE: str(SOLUTION)}
    env.pop("MICROGRAD2_REFERENCE", None)
    done = subprocess.run([sys.executable, "-c", "import micrograd2"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "MICROGRAD2_REFERENCE=1 too" in done.stderr
