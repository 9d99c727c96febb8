"""U3.4 — matmul's vector-Jacobian product: the public tests (the grader runs these, not your copy).

Products are drawn at random each run (``MICROGRAD2_SEED=S`` replays run S): three different
sizes, a square one, a row, a column.  The last test runs ``a @ b`` with your function in place
of the engine's and gradchecks it.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_4]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_matmul", __file__)


def test_matmul_backward_on_random_products(student: ModuleType) -> None:
    tc.check_matmul(student.matmul_backward, salt=401)


def test_each_gradient_has_its_operands_shape(student: ModuleType) -> None:
    gen = tc.rng(402)
    a, b, g = tc.tensor(gen, (2, 3)), tc.tensor(gen, (3, 5)), tc.tensor(gen, (2, 5))
    what = "matmul_backward(grad 2×5, a 2×3, b 3×5)"
    grad_a, grad_b = tc.calling(student.matmul_backward, what, g, a, b, hint=tc.CHAIN)
    shapes = tuple(getattr(x, "shape", None) for x in (grad_a, grad_b))
    expect(shapes == ((2, 3), (3, 5)),
           f"{what} gave gradients of shapes {shapes}, expected ((2, 3), (3, 5)): each gradient "
           "has its input's shape, so a wrong shape means the two factors of a product are in "
           "the wrong order, or the wrong one is transposed")


def test_only_the_needed_gradient_is_computed(student: ModuleType) -> None:
    tc.check_matmul_one_side(student.matmul_backward, tc.rng(403))


def test_a_matrix_product_passes_gradcheck_with_yours_in_place(student: ModuleType) -> None:
    tc.in_place(Path(str(student.__file__)), ["matmul_backward"], salt=404)
