"""Hidden tests of exercise U3.5, the Jacobian and its cost: other sizes, never shown.
``exercise check WORKSPACE --tests teacher/hidden U3`` grades with them.
"""
from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_5]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_jacobian", __file__)


@pytest.mark.parametrize("n, m", [(1, 7), (7, 1), (5, 5)])
def test_jacobian_and_cost_on_other_sizes(student: ModuleType, n: int, m: int) -> None:
    gen = tc.rng(950 + 10 * n + m)
    f, formula = tc.random_function(gen, n, m)
    x = tc.tensor(gen, (n,), True)
    got, passes, visits = tc.measured_jacobian(student.jacobian, f, x)
    want = tc.finite_differences(f, x)
    expect(got.shape == (m, n), f"jacobian for f(x) = {formula}, n = {n}, m = {m} has shape "
                                f"{got.shape}, expected ({m}, {n}): one row per output, a 1×n "
                                "matrix when there is one output")
    expect(bool(np.allclose(got, want, rtol=1e-5, atol=1e-6)),
           f"jacobian for f(x) = {formula}, n = {n}, m = {m} differs from finite differences")
    nodes = tc.backward_nodes(f(x))
    expect(student.jacobian_cost(n, m, nodes) == (passes, visits) == (m, m * nodes),
           f"jacobian_cost({n}, {m}, {nodes}) = {student.jacobian_cost(n, m, nodes)}; measured "
           f"{(passes, visits)}")
