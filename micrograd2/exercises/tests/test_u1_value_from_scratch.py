"""Exercise U1.0 — A Value from scratch: the public tests (the grader runs these, not your copy).

Each test writes a graph once, as a program, and runs it on your ``Value`` and on micrograd2's:
every intermediate's data, your order and every gradient must agree
(micrograd2/exercises/value_checks.py says how, and in which order it looks).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from micrograd2.exercises.harness import expect, load_student
from micrograd2.exercises.value_checks import Leaf, build, compare, order_problem

pytestmark = [pytest.mark.u1, pytest.mark.u1_0]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u1_value_from_scratch", __file__)


def block1(leaf: Leaf) -> dict[str, Any]:
    """The article's block 1, z = (x * w).sum(), one scalar at a time."""
    x = [leaf(2.0, "x[0]"), leaf(3.0, "x[1]")]
    w = [leaf(4.0, "w[0]"), leaf(5.0, "w[1]")]
    p0, p1 = x[0] * w[0], x[1] * w[1]
    return {
        "x[0]": x[0],
        "x[1]": x[1],
        "w[0]": w[0],
        "w[1]": w[1],
        "x[0]*w[0]": p0,
        "x[1]*w[1]": p1,
        "z": p0 + p1,
    }


def square(leaf: Leaf) -> dict[str, Any]:
    """A leaf used twice by one op."""
    x = leaf(3.0, "x")
    return {"x": x, "z": x * x}


def doubled(leaf: Leaf) -> dict[str, Any]:
    """A leaf used twice by a sum."""
    x = leaf(3.0, "x")
    return {"x": x, "z": x + x}


def reused(leaf: Leaf) -> dict[str, Any]:
    """A non-leaf used twice by one op and once by another, and a leaf used by two ops."""
    x, w = leaf(2.0, "x"), leaf(-1.5, "w")
    h = x * w
    hh = h * h
    s = hh + h
    return {"x": x, "w": w, "h": h, "h*h": hh, "h*h+h": s, "z": s * x}


def diamond(leaf: Leaf) -> dict[str, Any]:
    """a feeds b and c, which meet again in z."""
    x, y = leaf(0.5, "x"), leaf(-1.2, "y")
    a = x * y
    b, c = a + 1.0, a.tanh()
    return {"x": x, "y": y, "a": a, "a+1": b, "tanh(a)": c, "z": b * c}


def constants(leaf: Leaf) -> dict[str, Any]:
    """Plain numbers on either side of + and *."""
    x = leaf(1.5, "x")
    a = 2.0 * x
    b = 1.0 + a
    c = b * 3.0
    return {"x": x, "2*x": a, "1+2*x": b, "(1+2*x)*3": c, "z": c + x}


def test_block1_records_the_articles_graph(student: ModuleType) -> None:
    built = build(block1, lambda data, name: student.Value(data))
    z = built.root
    expect(
        isinstance(z, student.Value) and z.data == 23.0,
        f"z = x[0]*w[0] + x[1]*w[1] should be a Value with data 23.0 (2*4 + 3*5), got {z!r}",
    )
    for name in ("x[0]*w[0]", "x[1]*w[1]", "z"):
        value = built.named[name]
        expect(
            len(value._prev) == 2,
            f"{name}._prev holds {len(value._prev)} Values, expected its 2 inputs",
        )
    expect(
        all(built.named[n]._prev == () for n in built.leaves)
        and all(built.named[n].grad == 0.0 for n in built.named),
        "a new Value has _prev == () and grad == 0.0, before any backward()",
    )


def test_block2_backward_gives_the_articles_gradients(student: ModuleType) -> None:
    compare(student, block1, "blocks 1-2, z = x[0]*w[0] + x[1]*w[1]")
    built = build(block1, lambda data, name: student.Value(data))
    built.root.backward()
    grads = {name: built.named[name].grad for name in built.leaves}
    expect(
        grads == {"x[0]": 4.0, "x[1]": 5.0, "w[0]": 2.0, "w[1]": 3.0},
        f"the article prints x.grad = [4., 5.] and w.grad = [2., 3.]; got {grads}",
    )


def test_the_order_puts_each_value_before_its_inputs(student: ModuleType) -> None:
    for program, what in (
        (block1, "blocks 1-2"),
        (reused, "z = (h*h + h)*x"),
        (diamond, "the diamond"),
    ):
        built = build(program, lambda data, name: student.Value(data))
        names = {id(v): n for n, v in built.named.items()}
        problem = order_problem(student.reverse_topological_order(built.root), built.root, names)
        expect(problem is None, f"{what}: reverse_topological_order: {problem}")


def test_a_value_used_twice_gets_the_sum_of_its_gradients(student: ModuleType) -> None:
    compare(student, square, "z = x*x")
    compare(student, doubled, "z = x + x")
    compare(student, reused, "z = (h*h + h)*x with h = x*w")


def test_a_diamond_gets_the_gradient_of_both_paths(student: ModuleType) -> None:
    compare(student, diamond, "the diamond z = (a + 1)*tanh(a) with a = x*y")


def test_plain_numbers_on_either_side(student: ModuleType) -> None:
    compare(student, constants, "z = (1 + 2*x)*3 + x")
