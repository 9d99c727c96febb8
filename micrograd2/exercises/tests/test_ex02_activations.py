"""Exercise U1.2 — Tanh, Exp and Sigmoid backward: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, check_backward, load_student

pytestmark = [pytest.mark.u1, pytest.mark.u1_2]

POINTS = [-2.0, -0.5, 0.0, 0.3, 1.7]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex02_activations", __file__)


def test_tanh_backward_matches_the_builtin_walk(student: ModuleType) -> None:
    for x in POINTS:
        check_backward(lambda a: student.Tanh.apply(a) * 3.0, lambda a: a.tanh() * 3.0, [x], "tanh(x) * 3")


def test_exp_backward_matches_the_builtin_walk(student: ModuleType) -> None:
    for x in POINTS:
        check_backward(lambda a: student.Exp.apply(a) * -0.5, lambda a: a.exp() * -0.5, [x], "exp(x) * -0.5")


def test_sigmoid_backward_matches_the_builtin_walk(student: ModuleType) -> None:
    for x in POINTS:
        check_backward(lambda a: student.Sigmoid.apply(a) * 2.0, lambda a: a.sigmoid() * 2.0, [x],
                       "sigmoid(x) * 2")


def test_a_neuron_built_from_your_ops_backpropagates_like_micrograds(student: ModuleType) -> None:
    # micrograd's neuron: o = tanh(x1·w1 + x2·w2 + b), with b chosen so that do/dn = 0.5
    def neuron(ops: ModuleType | None):
        def f(x1, x2, w1, w2, b):
            n = x1 * w1 + x2 * w2 + b
            return ops.Tanh.apply(n) if ops else n.tanh()
        return f

    check_backward(neuron(student), neuron(None), [2.0, 0.0, -3.0, 1.0, 6.8813735870195432], "micrograd's neuron")
    check_backward(lambda a, b: student.Sigmoid.apply(student.Exp.apply(a) * b),
                   lambda a, b: (a.exp() * b).sigmoid(), [0.2, -1.3], "sigmoid(exp(a) * b)")


def test_gradcheck_passes_for_each_activation(student: ModuleType) -> None:
    for fn in (student.Tanh, student.Exp, student.Sigmoid):
        for x in POINTS:
            try:
                mg.autograd.gradcheck(fn, [mg.Value(x, requires_grad=True)])
            except mg.autograd.GradcheckError as error:
                raise Mistake(f"gradcheck fails for {fn.__name__} at x = {x}: {str(error).splitlines()[0]} "
                              f"({' '.join(str(error).splitlines()[1:3])})") from None
