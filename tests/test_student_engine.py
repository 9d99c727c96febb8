"""``micrograd2/course/engine.py``: a student's folder, read piece by piece, as the records the core
calls (docs/course.md).

No engine is chosen in this process; these tests load folders and build records directly, and
put the engines' records back as they were. ``tests/test_course_engine.py`` runs micrograd2 on
whole engines, in new processes.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import micrograd2 as mg
from micrograd2.autograd import pieces
from micrograd2.course import engine as student_engine
from micrograd2.course.workspace import STUBS, engine_files
from micrograd2.tensors import pieces as tensor_pieces

SOLUTION = Path(__file__).parents[1] / "teacher" / "solution_engine"
UNITS = {"record", "accumulate", "count_dependencies", "walk", "sum_to", "sum_backward",
         "mean_backward", "matmul_backward"}


def test_no_engine_is_chosen_here() -> None:
    assert student_engine.chosen() is None and set(student_engine.UNITS) == UNITS
    assert not mg.Value.pieces.student and mg.Tensor.pieces is tensor_pieces.REFERENCE


def test_the_stubs_leave_every_piece_unfilled_and_it_raises() -> None:
    engine = student_engine.load(STUBS)
    assert set(engine.functions) == UNITS and not engine.done and not engine.tensors_begun
    with pytest.raises(NotImplementedError, match="not implemented yet: walk"):
        engine.functions["walk"]([], [], lambda node, grad: ())


def test_the_solution_fills_every_piece() -> None:
    engine = student_engine.load(SOLUTION)
    assert engine.done == UNITS and engine.tensors_begun
    assert engine.functions["accumulate"].__module__ == "u2_walk"
    value, tensor = student_engine.records(engine)
    assert value.accumulate is engine.functions["accumulate"]
    assert tensor.sum_to is engine.functions["sum_to"] and tensor.walk is value.walk
    assert value.student == tuple(student_engine.UNITS)


def test_tensor_graphs_run_on_the_reference_until_u3_is_begun(tmp_path: Path) -> None:
    for name in ("u1_record.py", "u2_walk.py"):
        (tmp_path / name).write_text((SOLUTION / name).read_text())
    engine = student_engine.load(tmp_path)
    value, tensor = student_engine.records(engine)
    assert value.walk is not pieces.REFERENCE.walk
    assert tensor is tensor_pieces.REFERENCE  # U3 not begun: the reference Tensor engine
    assert engine.done == {"record", "accumulate", "count_dependencies", "walk"}
    assert "until you begin U3" in student_engine.describe(engine)


def test_a_missing_piece_is_unfilled_not_the_reference(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text("def sum_to(grad, shape):\n    return grad.sum_to_size(shape)\n")
    engine = student_engine.load(tmp_path)
    assert engine.tensors_begun  # U3 begun: Tensor graphs ask for every piece
    _, tensor = student_engine.records(engine)
    with pytest.raises(NotImplementedError, match="not implemented yet: matmul_backward"):
        tensor.matmul_backward(None, None, None, (False, False))


def test_a_stub_body_is_recognised() -> None:
    def stub(x: int) -> int:
        """Doc."""
        raise NotImplementedError("not implemented yet: x")

    def filled(x: int) -> int:
        if x:
            raise NotImplementedError
        return x

    assert student_engine.is_stub(stub) and not student_engine.is_stub(filled)


def test_a_workspace_gets_one_stub_module_per_unit() -> None:
    files = engine_files()
    assert sorted(files) == ["engine/u1_record.py", "engine/u2_walk.py", "engine/u3_tensors.py"]
    for name in UNITS:  # U3's come from its exercises (NOTE [U3's holes in a workspace])
        assert any(f"def {name}(" in text or f"\n{name} = taken(" in text
                   for text in files.values()), name


def test_a_workspaces_u3_pieces_are_its_u3_exercises(tmp_path: Path) -> None:
    """Unfilled while the exercises are stubs; the student's functions once they are written."""
    (tmp_path / "engine").mkdir()
    for path, text in engine_files().items():
        (tmp_path / path).write_text(text, encoding="utf-8")
    sources = Path(mg.__file__).parent / "exercises" / "sources"
    for module in ("u3_sum_to", "u3_reductions", "u3_matmul"):
        (tmp_path / f"{module}.py").write_text((sources / f"{module}.py").read_text())
    engine = student_engine.load(tmp_path / "engine")
    assert not engine.done & {"sum_to", "sum_backward", "mean_backward", "matmul_backward"}
    with pytest.raises(NotImplementedError, match="not implemented yet: sum_to"):
        engine.functions["sum_to"](None, ())
    (tmp_path / "u3_sum_to.py").write_text("def sum_to(grad, shape):\n    return 'mine'\n")
    sys.modules.pop("u3_sum_to")  # a new process (as --engine starts) would read the file again
    engine = student_engine.load(tmp_path / "engine")
    assert "sum_to" in engine.done and engine.functions["sum_to"](None, ()) == "mine"


def test_the_records_run_a_graph_and_are_put_back() -> None:
    """The solution's records, chosen for a block: a Value and a Tensor graph run on them."""
    value, tensor = student_engine.records(student_engine.load(SOLUTION))
    before = (mg.Value.pieces, mg.Tensor.pieces)
    with pieces.using(mg.Value, value), pieces.using(mg.Tensor, tensor):
        x = mg.Value(2.0, requires_grad=True)
        (x * x + x).backward()
        t = mg.tensor([[1.0, 2.0]], requires_grad=True)
        (t * mg.tensor([[3.0], [4.0]])).mean().backward()
    assert (mg.Value.pieces, mg.Tensor.pieces) == before
    assert x.grad == 5.0 and t.grad.tolist() == [[1.75, 1.75]]


def test_an_engine_with_the_speed_layer_on_is_refused() -> None:
    env = {**os.environ, student_engine.VARIABLE: str(SOLUTION)}
    env.pop("MICROGRAD2_REFERENCE", None)
    done = subprocess.run([sys.executable, "-m", "micrograd2", "lesson", "list"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "MICROGRAD2_REFERENCE=1 too" in done.stderr
    assert "Traceback" not in done.stderr
