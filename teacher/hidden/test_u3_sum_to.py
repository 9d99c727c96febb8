"""Hidden tests of exercise U3.1, sum_to: other draws of shapes (their own salts), a 5-axis
case, a gradient with a history (create_graph) and a float32 one, never shown.
``exercise check WORKSPACE --tests teacher/hidden U3`` grades with them.
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


@pytest.mark.parametrize("salt", [911, 912, 913])
def test_sum_to_on_other_random_shapes(student: ModuleType, salt: int) -> None:
    tc.check_sum_to(student.sum_to, salt=salt)


def test_five_axes_to_a_size_one_middle(student: ModuleType) -> None:
    grad = tc.tensor(tc.rng(914), (2, 3, 4, 5, 2))
    what = "sum_to(grad of shape (2, 3, 4, 5, 2), (4, 1, 2))"
    got = tc.answer_of(tc.calling(student.sum_to, what, grad, (4, 1, 2)), what)
    tc.compare(got, tc.array(grad).sum(axis=(0, 1)).sum(axis=1, keepdims=True), what,
               tc.sum_to_mistakes(tc.array(grad), (4, 1, 2)))


def test_in_place_on_other_shapes(student: ModuleType) -> None:
    tc.in_place(Path(student.__file__), ["sum_to"], salt=915)


def test_sum_to_is_made_of_recorded_tensor_ops(student: ModuleType) -> None:
    # Under create_graph=True the grad sum_to receives has a history: a double backward through a
    # broadcasting op differentiates sum_to's result again, so it must be built of Tensor ops.
    gen = tc.rng(916)
    w = tc.tensor(gen, (2, 3, 4), True)
    grad = w * 3.0
    what = "sum_to(grad of shape (2, 3, 4) that requires grad, (3, 1))"
    got = tc.calling(student.sum_to, what, grad, (3, 1))
    tc.answer_of(got, what)
    expect(got.requires_grad and got.grad_fn is not None,
           f"{what} returned a Tensor with no history: under create_graph=True the second "
           "backward goes through sum_to's result, so compute it with Tensor ops (.sum), not in "
           "NumPy wrapped in a new Tensor")
    got.sum().backward()
    expect(w.grad is not None and bool((tc.array(w.grad) == 3.0).all()),
           f"the gradient of sum_to(3·w, (3, 1)).sum() for w is not 3 everywhere: {what}")


def test_a_float32_gradient_stays_float32(student: ModuleType) -> None:
    grad = mg.tensor(tc.array(tc.tensor(tc.rng(917), (4, 2, 3))).tolist(), dtype="float32")
    got = tc.calling(student.sum_to, "sum_to(float32 grad (4, 2, 3), (2, 1))", grad, (2, 1))
    expect(getattr(got, "dtype", None) == "float32",
           f"sum_to of a float32 gradient returned {getattr(got, 'dtype', None)}: a gradient has "
           "the dtype of what it flows into")
