"""gradcheck: passes a right backward, names the input and both numbers for a wrong one (E12)."""
from __future__ import annotations

import pytest

import micrograd2 as mg
from micrograd2.autograd import GradcheckError


class Square(mg.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x


class WrongSquare(Square):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x


def test_gradcheck_passes_a_correct_backward() -> None:
    assert mg.autograd.gradcheck(Square, [mg.Value(1.5, requires_grad=True)])
    f = lambda a, b: (a * b).tanh() + a.exp() / b  # noqa: E731
    assert mg.autograd.gradcheck(f, [mg.Value(0.3, requires_grad=True), mg.Value(1.2, requires_grad=True)])


def test_gradcheck_catches_a_wrong_backward_naming_input_and_numbers() -> None:
    x = mg.Value(1.0, requires_grad=True, label="x")
    with pytest.raises(GradcheckError, match=r"input 0 \(x\)") as info:
        mg.autograd.gradcheck(WrongSquare, [x])
    assert "numerical: 2.0" in str(info.value) and "analytical: 3.0" in str(info.value)
    assert isinstance(info.value, RuntimeError)


def test_gradcheck_can_return_false_instead_of_raising() -> None:
    assert mg.autograd.gradcheck(WrongSquare, [mg.Value(1.0, requires_grad=True)], raise_exception=False) is False


def test_gradcheck_holds_inputs_without_grad_fixed() -> None:
    assert mg.autograd.gradcheck(lambda a, b: a * b, [mg.Value(2.0, requires_grad=True), mg.Value(3.0)])


def test_gradcheck_warns_for_low_precision_inputs_like_pytorch() -> None:
    x = mg.Value(1.0, requires_grad=True, dtype="float32")
    with pytest.warns(UserWarning, match="is not a double precision"):
        mg.autograd.gradcheck(Square, [x], raise_exception=False)


class NaNSquare(Square):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x + float("nan")


def test_gradcheck_fails_a_nan_backward() -> None:
    with pytest.raises(GradcheckError, match="analytical: nan"):
        mg.autograd.gradcheck(NaNSquare, [mg.Value(1.0, requires_grad=True)])


def test_gradcheck_needs_an_input_that_requires_grad() -> None:
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        mg.autograd.gradcheck(Square, [mg.Value(1.0)])


def test_gradcheck_checks_every_element_of_a_vector_output() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    assert mg.autograd.gradcheck(Square, [x])
    with pytest.raises(GradcheckError, match=r"input 0, element 0 \(output element 0\)"):
        mg.autograd.gradcheck(WrongSquare, [x])


def test_gradcheck_takes_several_outputs() -> None:
    a = mg.Value(0.5, requires_grad=True)
    assert mg.autograd.gradcheck(lambda v: (v.exp(), v * v), [a])


class SquareOnce(Square):
    """Right first derivative, but computed from a plain float: not differentiable a second time."""

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * float(x)


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable() -> None:
    x = mg.Value(1.5, requires_grad=True)
    assert mg.autograd.gradcheck(SquareOnce, [x])
    assert mg.autograd.gradgradcheck(Square, [x])
    assert mg.autograd.gradgradcheck(SquareOnce, [x], raise_exception=False) is False


def test_gradgradcheck_on_tensors() -> None:
    x = mg.tensor([0.5, -1.0], dtype="float64", requires_grad=True)
    assert mg.autograd.gradgradcheck(lambda t: (t * t * t).sum() + t.tanh().sum(), [x])
