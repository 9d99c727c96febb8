"""micrograd2/autograd/custom.py: a custom Function's several outputs, materialized gradients, mark_dirty,
mark_non_differentiable, and the gradient refused for a number input."""
from __future__ import annotations

import pytest
from conftest import SumAndProduct

import micrograd2 as mg


def test_each_output_is_differentiable_and_its_edge_names_its_number() -> None:
    a, b = mg.Value(2.0, requires_grad=True), mg.Value(5.0, requires_grad=True)
    s, p = SumAndProduct.apply(a, b)
    assert s.grad_fn is p.grad_fn and (p * 1).grad_fn.next_functions[0] == (p.grad_fn, 1)
    (s * p).backward()  # d(s·p)/da = p + s·b = 10 + 35
    assert (a.grad, b.grad) == (45.0, 24.0)


def test_an_output_that_gets_no_gradient_receives_zeros_or_none() -> None:
    seen = []

    class Two(mg.Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1 * 2, None

    for materialize in (True, False):
        x = mg.Value(1.0, requires_grad=True)
        Two.apply(x, materialize)[0].backward()
        assert x.grad == 2.0
    assert seen == [0.0, None]


def test_mark_non_differentiable_outputs_need_no_gradient() -> None:
    class WithSign(mg.Function):
        @staticmethod
        def forward(ctx, x):
            sign = 1.0 if x > 0 else -1.0
            ctx.mark_non_differentiable(sign)
            return x * sign, sign

        @staticmethod
        def backward(ctx, g, g_sign):
            assert g_sign == 0.0
            return g

    x = mg.Value(-2.0, requires_grad=True)
    magnitude, sign = WithSign.apply(x)
    assert sign.grad_fn is None and not sign.requires_grad and magnitude.requires_grad
    magnitude.backward()
    assert x.grad == 1.0


def test_mark_dirty_makes_the_input_hold_the_result_with_a_new_version() -> None:
    class Square_(mg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g

    leaf = mg.Value(3.0, requires_grad=True)
    x = leaf * 1
    y = Square_.apply(x)
    assert y is x and x.data == 9.0 and x._version == 1 and x.grad_fn.name() == "Square_Backward"
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place"):
        Square_.apply(mg.Value(3.0, requires_grad=True))


def test_a_gradient_for_a_number_input_is_refused() -> None:
    class Scale(mg.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2.0, g

    with pytest.raises(RuntimeError, match=r"(?s)returned a gradient different than None at position 2.*What to do"):
        Scale.apply(mg.Value(1.0, requires_grad=True), 2.0).backward()


def test_extra_trailing_none_gradients_are_dropped_as_pytorch_drops_them() -> None:
    class Double(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    x = mg.Value(1.0, requires_grad=True)
    Double.apply(x).backward()
    assert x.grad == 2.0
