"""``micrograd2/autograd/pieces.py``: the core calls its engine's record of pieces, chosen once.

The core never asks whose the pieces are: a record that counts its calls sees every op recorded,
every leaf accumulated, every pass counted and walked.
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import micrograd2 as mg
from micrograd2.autograd import pieces
from micrograd2.autograd.engine import reference_walk
from micrograd2.scalar.ops import Mul

ROOT = Path(__file__).parents[1]


def counting(calls: dict[str, int]) -> pieces.Pieces:
    """The reference pieces, each call of each counted into ``calls`` (no speed layer)."""
    def counted(name: str) -> Any:
        piece = getattr(pieces.REFERENCE, name)

        def call(*args: Any) -> Any:
            calls[name] = calls.get(name, 0) + 1
            return piece(*args)

        return call

    names = ("record", "accumulate", "count_dependencies", "walk")
    return dataclasses.replace(pieces.REFERENCE, **{name: counted(name) for name in names})


def test_the_core_calls_every_piece_of_the_engines_record() -> None:
    calls: dict[str, int] = {}
    with pieces.using(mg.Value, counting(calls)):
        x, w = mg.Value(2.0, requires_grad=True), mg.Value(3.0, requires_grad=True)
        z = mg.sum([Mul.apply(x, w), Mul.apply(x, x)])  # three ops, each asked (the speed
        # layer's operators, issue 33's, call the core's constructors without ``apply``)
        z.backward()
    assert calls == {"record": 3, "accumulate": 2, "count_dependencies": 1, "walk": 1}
    assert (x.grad, w.grad) == (7.0, 2.0)


def test_accumulate_is_called_once_per_pass_with_the_sum() -> None:
    """docs/course.md and the U2 stub: a leaf used three times gets one call per pass, with the sum
    of its three gradients, never one call per gradient."""
    got: list[float] = []

    def accumulate(variable: Any, grad: Any) -> Any:
        got.append(grad)
        return pieces.REFERENCE.accumulate(variable, grad)

    with pieces.using(mg.Value, dataclasses.replace(pieces.REFERENCE, accumulate=accumulate)):
        x = mg.Value(2.0, requires_grad=True)
        for _ in range(2):
            mg.sum([Mul.apply(x, 3.0), Mul.apply(x, 4.0), Mul.apply(x, 5.0)]).backward()
    assert got == [12.0, 12.0] and x.grad == 24.0


def test_using_puts_the_record_back_even_after_an_error() -> None:
    before = mg.Value.pieces
    try:
        with pieces.using(mg.Value, pieces.REFERENCE):
            assert mg.Value.pieces is pieces.REFERENCE
            raise KeyError("stop")
    except KeyError:
        pass
    assert mg.Value.pieces is before


def test_a_record_that_refuses_leaves_the_output_without_history() -> None:
    refusing = dataclasses.replace(pieces.REFERENCE, record=lambda fn, inputs, out, ctx: False)
    with pieces.using(mg.Value, refusing):
        y = Mul.apply(mg.Value(2.0, requires_grad=True), 3.0)
    assert y.grad_fn is None and not y.requires_grad


def test_the_reference_record_follows_grad_mode_and_requires_grad() -> None:
    x = mg.Value(2.0, requires_grad=True)
    with mg.no_grad():
        assert (x * x).grad_fn is None
    assert (mg.Value(2.0) * 3.0).grad_fn is None
    assert (x * 3.0).grad_fn.name() == "MulBackward0"
    assert pieces.REFERENCE.walk is reference_walk and pieces.REFERENCE.path == "the reference core"


def test_the_core_asks_no_student_code_anywhere() -> None:
    """Issue 32's check: no ``holes.`` or ``course_hole`` in the core or the Tensor engine."""
    done = subprocess.run(["grep", "-rn", r"holes\.\|course_hole", "micrograd2/autograd",
                           "micrograd2/tensors", "--include=*.py"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.stdout == ""


def test_teaching_runs_read_as_they_run_and_a_plain_import_keeps_the_speed_layer(
        tmp_path: Path) -> None:
    """NOTE [Teaching runs read as they run]: ``trace`` runs ``Value.__mul__`` from
    scalar/value.py, where a breakpoint fires; ``import micrograd2`` takes the speed layer's."""
    script = tmp_path / "which.py"
    script.write_text("import micrograd2 as mg\n"
                      "x = mg.Value(2.0, requires_grad=True)\n(x * x).backward()\n"
                      "print(mg.Value.__mul__.__qualname__, mg.Value.__mul__.__module__)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MICROGRAD2_REFERENCE",
                                                            "MICROGRAD2_ENGINE")}
    traced = subprocess.run([sys.executable, "-m", "micrograd2", "trace", str(script)], env=env,
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert traced.stdout.splitlines()[0] == "engine: the reference core", traced.stdout
    assert "Value.__mul__ micrograd2.scalar.value" in traced.stdout
    plain = subprocess.run([sys.executable, str(script)], env=env, cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert plain.stdout.split()[0] == "fast_Mul", plain.stdout + plain.stderr
