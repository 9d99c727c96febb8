"""Hidden tests of exercise U4.3, checkpointing: a checkpoint inside a larger graph (an upstream
gradient that is not 1), an input used twice or not at all, two backward passes, never shown.
``micrograd2 exercise check WORKSPACE --tests teacher/hidden U4.3`` grades with them.
"""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import expect, load_student, show

pytestmark = [pytest.mark.u4, pytest.mark.u4_3]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u4_checkpoint", __file__)


def f(a: Any, b: Any) -> Any:
    return (a * b).tanh() + a.sin()


def reference(xs: list[float], scale: float) -> list[float]:
    leaves = [mg.Value(x, requires_grad=True) for x in xs]
    (f(*leaves) * scale).backward()
    return [leaf.grad for leaf in leaves]


def test_a_checkpoint_inside_a_larger_graph(student: ModuleType) -> None:
    a, b = mg.Value(0.4, requires_grad=True), mg.Value(-1.3, requires_grad=True)
    (student.checkpoint(f, a, b) * -2.5).backward()
    want = reference([0.4, -1.3], -2.5)
    got = [a.grad, b.grad]
    expect(all(g is not None and math.isclose(g, w, rel_tol=1e-9) for g, w in zip(got, want)),
           f"with the checkpoint times -2.5 the gradients are {[show(g) for g in got]}, expected "
           f"{[show(w) for w in want]}: the checkpoint's backward receives the upstream "
           "gradient grad (-2.5 here); backpropagate IT through the recomputed f "
           "(autograd.grad's grad_outputs), not 1")


def test_an_input_used_twice_and_one_not_used(student: ModuleType) -> None:
    x, unused = mg.Value(0.7, requires_grad=True), mg.Value(5.0, requires_grad=True)
    student.checkpoint(lambda p, q, r: p * q + p.exp(), x, x, unused).backward()
    want = 2 * 0.7 + math.exp(0.7)
    expect(math.isclose(x.grad, want, rel_tol=1e-9) and unused.grad is None,
           f"checkpoint(p·q + eᵖ, x, x, unused): x.grad = {show(x.grad)}, unused.grad = "
           f"{show(unused.grad)}; expected {show(want)} and None")


def test_two_backward_passes_through_one_checkpoint(student: ModuleType) -> None:
    a, b = mg.Value(-0.2, requires_grad=True), mg.Value(0.9, requires_grad=True)
    y = student.checkpoint(f, a, b)
    y.backward(retain_graph=True)
    y.backward()
    want = reference([-0.2, 0.9], 2.0)
    expect(all(math.isclose(g, w, rel_tol=1e-9) for g, w in zip((a.grad, b.grad), want)),
           f"after two backward passes a.grad, b.grad = {show(a.grad)}, {show(b.grad)}; expected "
           f"{show(want[0])}, {show(want[1])} (twice one pass's)")
