"""Hidden tests of exercise U3.4, matmul's VJP: other draws (their own salts), a 1×1 product and
a float32 one, never shown.  ``exercise check WORKSPACE --tests teacher/hidden U3`` grades with
them.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_4]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_matmul", __file__)


@pytest.mark.parametrize("salt", [941, 942, 943])
def test_matmul_backward_on_other_random_products(student: ModuleType, salt: int) -> None:
    tc.check_matmul(student.matmul_backward, salt=salt)


def test_a_one_by_one_product(student: ModuleType) -> None:
    a, b, g = (mg.tensor([[v]], dtype="float64") for v in (2.0, -3.0, 0.5))
    grad_a, grad_b = tc.calling(student.matmul_backward, "matmul_backward(1×1)", g, a, b)
    expect(tc.array(grad_a).tolist() == [[-1.5]] and tc.array(grad_b).tolist() == [[1.0]],
           f"matmul_backward for 1×1 matrices a = 2, b = -3, grad = 0.5 gave "
           f"({tc.array(grad_a).tolist()}, {tc.array(grad_b).tolist()}), "
           "expected ([[-1.5]], [[1.0]])")


def test_in_place_on_other_shapes(student: ModuleType) -> None:
    tc.in_place(Path(student.__file__), ["matmul_backward"], salt=944)


def test_a_float32_product_gets_float32_gradients(student: ModuleType) -> None:
    gen = tc.rng(945)
    a, b, g = (mg.tensor(tc.array(tc.tensor(gen, s)).tolist(), dtype="float32")
               for s in ((3, 4), (4, 2), (3, 2)))
    grad_a, grad_b = tc.calling(student.matmul_backward, "matmul_backward(float32 3×2, 3×4, 4×2)",
                                g, a, b)
    dtypes = (getattr(grad_a, "dtype", None), getattr(grad_b, "dtype", None))
    expect(dtypes == ("float32", "float32"),
           f"matmul_backward of a float32 product returned gradients of dtypes {dtypes}: a "
           "gradient has the dtype of the Tensor it flows into: compute in the dtype you are "
           "given, without casting")
