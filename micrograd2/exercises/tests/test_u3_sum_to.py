"""U3.1 — sum_to, broadcasting's backward: the public tests (the grader runs these, not your copy).

Shapes are drawn at random each run (``MICROGRAD2_SEED=S`` replays run S); every draw holds a
case of each kind: leading axes, axes of size 1, both, a scalar.  The last test runs the Tensor
ops with your ``sum_to`` in place of the engine's, as ``--engine`` does, and gradchecks them.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_1]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_sum_to", __file__)


def test_sum_to_on_random_broadcast_shapes(student: ModuleType) -> None:
    tc.check_sum_to(student.sum_to, salt=101)


def test_an_axis_of_size_one_stays_in_the_shape(student: ModuleType) -> None:
    grad = mg.tensor([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]] * 2, dtype="float64")  # (2, 3, 2)
    what = "sum_to(grad of shape (2, 3, 2), (3, 1))"
    got = tc.answer_of(tc.calling(student.sum_to, what, grad, (3, 1)), what)
    tc.compare(got, tc.array(grad).sum(axis=0).sum(axis=1, keepdims=True), what,
               tc.sum_to_mistakes(tc.array(grad), (3, 1)))


def test_a_scalar_gets_the_sum_of_everything_and_an_unchanged_shape_the_gradient(
        student: ModuleType) -> None:
    gen = tc.rng(102)
    grad = tc.tensor(gen, (3, 4))
    what = "sum_to(grad, ())"
    whole = tc.answer_of(tc.calling(student.sum_to, what, grad, ()), what)
    expect(whole.shape == () and abs(float(whole) - tc.array(grad).sum()) < 1e-9,
           f"sum_to(grad of shape (3, 4), ()) gave {whole.tolist()} of shape {whole.shape}: a "
           f"number broadcast to (3, 4) gets the sum of all 12 gradients, a 0-d Tensor "
           f"{tc.replay()}")
    same = tc.answer_of(tc.calling(student.sum_to, "sum_to(grad, (3, 4))", grad, (3, 4)),
                        "sum_to(grad, (3, 4))")
    tc.compare(same, tc.array(grad), "sum_to(grad of shape (3, 4), (3, 4))", {})


def test_broadcasting_ops_pass_gradcheck_with_your_sum_to_in_place(student: ModuleType) -> None:
    tc.in_place(Path(str(student.__file__)), ["sum_to"], salt=103)
