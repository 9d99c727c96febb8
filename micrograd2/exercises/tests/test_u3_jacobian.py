"""U3.5 — A full Jacobian from backward passes, and its cost: the public tests (the grader runs
these, not your copy).

Random functions f: R^n -> R^m (n and m drawn each run; ``MICROGRAD2_SEED=S`` replays run S).
Your ``jacobian`` runs under ``mg.trace()``, which counts its backward passes and node visits.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_5]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_jacobian", __file__)


def functions(salt: int) -> list[tuple[int, int, Callable[..., Any], str, Any]]:
    """(n, m, f, its formula, x): one with more outputs than inputs, one with fewer, one square."""
    gen = tc.rng(salt)
    small, large = int(gen.integers(2, 4)), int(gen.integers(4, 7))
    found: list[tuple[int, int, Callable[..., Any], str, Any]] = []
    for n, m in ((small, large), (large, small), (small, small)):
        f, formula = tc.random_function(gen, n, m)
        found.append((n, m, f, formula, tc.tensor(gen, (n,), True)))
    return found


RETAIN = ("the graph of y = f(x) is walked once per output: keep it for the next pass with "
          "retain_graph=True")


def test_the_jacobian_matches_finite_differences(student: ModuleType) -> None:
    for n, m, f, formula, x in functions(501):
        what = f"jacobian(f, x) for f(x) = {formula}, n = {n}, m = {m}"
        got = tc.answer_of(tc.calling(student.jacobian, what, f, x, hint=RETAIN), what)
        want = tc.finite_differences(f, x)
        expect(got.shape == (m, n), f"{what} has shape {got.shape}, expected ({m}, {n}): row i "
               f"is the gradient of output i, one row per output {tc.replay()}")
        expect(bool(np.allclose(got, want, rtol=1e-5, atol=1e-6)),
               f"{what} differs from finite differences by up to "
               f"{float(np.abs(got - want).max()):.3g} {tc.replay()}")


def test_the_jacobian_matches_autograds(student: ModuleType) -> None:
    for _, _, f, formula, x in functions(502):
        what = f"jacobian(f, x) for f(x) = {formula}"
        got = tc.answer_of(tc.calling(student.jacobian, what, f, x, hint=RETAIN), what)
        want = tc.reference_jacobian(f, x)  # mg.autograd.functional.jacobian
        tc.compare(got, want, f"{what} (against mg.autograd.functional.jacobian)", {})


def test_one_backward_pass_per_output(student: ModuleType) -> None:
    for n, m, f, _, x in functions(503):
        _, passes, _ = tc.measured_jacobian(student.jacobian, f, x)
        expect(passes == m, f"jacobian(f, x) for f: R^{n} -> R^{m} ran {passes} backward passes, "
               f"expected {m}: one pass seeded with a one-hot grad_outputs gives one ROW of J "
               f"(vᵀJ), so there is one pass per output {tc.replay()}")


def test_the_predicted_cost_is_the_measured_one(student: ModuleType) -> None:
    for n, m, f, formula, x in functions(504):
        nodes = tc.backward_nodes(f(x))
        said = tc.calling(student.jacobian_cost, f"jacobian_cost({n}, {m}, {nodes})", n, m, nodes)
        _, passes, visits = tc.measured_jacobian(student.jacobian, f, x)
        expect(said == (passes, visits),
               f"jacobian_cost({n}, {m}, {nodes}) predicts {said!r}; the trace of your jacobian on "
               f"f(x) = {formula} ({nodes} backward nodes) counted {passes} passes and {visits} "
               f"node visits: each pass walks the whole graph again {tc.replay()}")
