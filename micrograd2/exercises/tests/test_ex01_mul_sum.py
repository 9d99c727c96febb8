"""Exercise U1.1 — Mul and Sum as Functions: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import check_backward, expect, load_student, show

pytestmark = [pytest.mark.u1, pytest.mark.u1_1]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex01_mul_sum", __file__)


def test_mul_forward_multiplies(student: ModuleType) -> None:
    for a, b in [(3.0, 4.0), (-2.0, 0.5), (0.0, 7.0)]:
        z = student.Mul.apply(mg.Value(a, requires_grad=True), mg.Value(b))
        expect(z.data == a * b, f"Mul.apply({a}, {b}) gives {show(z.data)}, expected {show(a * b)}")
        expect(z.grad_fn is not None and z.grad_fn.name() == "MulBackward",
               "Mul.apply(...) should record a MulBackward node: keep Mul a subclass of mg.Function")


def test_mul_backward_matches_the_builtin_walk(student: ModuleType) -> None:
    mul = student.Mul.apply
    check_backward(lambda a, b: mul(a, b), lambda a, b: a * b, [3.0, 4.0], "a * b")
    check_backward(lambda a, b: mul(a, b) * -2.0, lambda a, b: (a * b) * -2.0, [3.0, 4.0],
                   "(a * b) * -2 (an upstream gradient that is not 1)")
    check_backward(lambda a, b: mul(mul(a, b), a), lambda a, b: (a * b) * a, [-1.5, 2.0], "(a * b) * a")
    check_backward(lambda a: mul(a, a), lambda a: a * a, [5.0], "a * a (one input used twice)")
    check_backward(lambda a: mul(a, mg.Value(2.5)), lambda a: a * 2.5, [4.0],
                   "a * Value(2.5) (an input that needs no gradient)")


def test_sum_forward_adds_any_number_of_inputs(student: ModuleType) -> None:
    for xs in ([1.0], [1.0, 2.0], [0.5, -2.0, 4.0, 8.0]):
        z = student.Sum.apply(*[mg.Value(x, requires_grad=True) for x in xs])
        expect(z.data == sum(xs), f"Sum.apply of {xs} gives {show(z.data)}, expected {show(sum(xs))}")
        expect(len(z.grad_fn.next_functions) == len(xs),
               f"Sum of {len(xs)} inputs should be ONE node with {len(xs)} inputs")


def test_sum_backward_sends_the_upstream_gradient_to_every_input(student: ModuleType) -> None:
    add = student.Sum.apply
    check_backward(lambda a, b, c: add(a, b, c) * 3.0, lambda a, b, c: mg.sum([a, b, c]) * 3.0,
                   [1.0, 2.0, 3.0], "Sum(a, b, c) * 3")
    check_backward(lambda a, b: add(a, b, a) * -2.0, lambda a, b: mg.sum([a, b, a]) * -2.0,
                   [1.0, 2.0], "Sum(a, b, a) * -2 (a used twice)")
    check_backward(lambda a: add(a) * 0.5, lambda a: mg.sum([a]) * 0.5, [7.0], "Sum(a) * 0.5")


def test_block1_dot_product_gives_the_articles_gradients(student: ModuleType) -> None:
    check_backward(lambda x0, x1, w0, w1: student.dot([x0, x1], [w0, w1]),
                   lambda x0, x1, w0, w1: mg.sum([x0 * w0, x1 * w1]), [2.0, 3.0, 4.0, 5.0],
                   "z = x0*w0 + x1*w1")
    check_backward(lambda x0, x1, w0, w1: student.dot([x0, x1], [w0, w1]) * 0.5,
                   lambda x0, x1, w0, w1: mg.sum([x0 * w0, x1 * w1]) * 0.5, [2.0, 3.0, 4.0, 5.0],
                   "L = 0.5 * (x0*w0 + x1*w1) (a loss on top of block 1)")
    x = [mg.Value(2.0, requires_grad=True), mg.Value(3.0, requires_grad=True)]
    w = [mg.Value(4.0, requires_grad=True), mg.Value(5.0, requires_grad=True)]
    z = student.dot(x, w)
    z.backward()
    got = [v.grad for v in x + w]
    expect(z.data == 23.0 and got == [4.0, 5.0, 2.0, 3.0],
           f"block 1 gives z = {show(z.data)}, x.grad, w.grad = {got}; the article says 23, [4, 5], [2, 3]")
