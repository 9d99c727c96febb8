"""Hidden tests of exercise U2.2, backpropagation by hand: gradients that are exactly 0, a leaf
in two passes, a deeper random graph, never shown.  ``micrograd2 exercise check WORKSPACE --tests
teacher/hidden U2.2`` grades with them.
"""
from __future__ import annotations

import random
from types import ModuleType
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import close, engine_order, expect, load_student, show

pytestmark = [pytest.mark.u2, pytest.mark.u2_2]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex04_backprop", __file__)


def compare(student: ModuleType, build: Callable[[list[Any]], Any], xs: list[float],
            what: str) -> None:
    """The student's backprop and the engine's backward on the same graph: every leaf's .grad,
    a 0.0 told apart from None."""
    mine = [mg.Value(x, requires_grad=True) for x in xs]
    root = build(mine)
    student.backprop(root, engine_order(root))
    got = [leaf.grad for leaf in mine]
    theirs = [mg.Value(x, requires_grad=True) for x in xs]
    build(theirs).backward()
    for i, (g, leaf) in enumerate(zip(got, theirs)):
        w = leaf.grad
        if w is not None and g is None:
            expect(False, f"{what}: x{i}.grad is None, but the engine gives {show(w)}: a gradient "
                          "of 0.0 is still a gradient (test `is None`, not truthiness)")
        expect(close(g, w), f"{what}: x{i}.grad is {show(g)}, the engine gives {show(w)}")


def test_a_factor_of_zero_sends_a_gradient_of_zero(student: ModuleType) -> None:
    compare(student, lambda v: v[0] * v[1], [2.5, 0.0], "z = x0*x1 at x1 = 0")
    compare(student, lambda v: (v[0] * v[1]).tanh() + v[1], [0.0, 0.0], "tanh(x0*x1) + x1 at 0")


def test_a_leaf_in_two_passes_over_two_graphs(student: ModuleType) -> None:
    x, w = mg.Value(1.5, requires_grad=True), mg.Value(-0.5, requires_grad=True)
    first = x * w
    student.backprop(first, engine_order(first))
    second = (x * x).tanh()
    student.backprop(second, engine_order(second))
    want = w.data + (1 - second.data ** 2) * 2 * x.data
    expect(close(x.grad, want) and close(w.grad, x.data),
           f"after backprop of x*w, then of tanh(x*x), x.grad = {show(x.grad)} and w.grad = "
           f"{show(w.grad)}; expected {show(want)} and {show(x.data)} (the two passes add up)")


def random_graph(rng: random.Random, leaves: list[Any], size: int) -> Any:
    """A random DAG over ``leaves`` that reuses earlier results (the same draw for every call)."""
    pool = list(leaves)
    for _ in range(size):
        a, b = rng.choice(pool), rng.choice(pool)
        op = rng.randrange(4)
        pool.append(a * b if op == 0 else a + b * 0.5 if op == 1 else a.tanh() if op == 2
                    else mg.sum([a, b, a]))
    return mg.sum(pool[-5:])


def test_random_graphs_match_the_engine(student: ModuleType) -> None:
    for k in range(8):
        compare(student, lambda v, k=k: random_graph(random.Random(700 + k), v, 40),
                [0.3, -0.7, 1.1], f"random graph #{k}")
