"""micrograd2/autograd/custom.py: a custom Function's several outputs, materialized gradients, mark_dirty,
mark_non_differentiable, and the gradient refused for a number input."""
from __future__ import annotations

import numpy as np
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


def _returning(gradient):
    """A custom identity whose backward returns ``gradient``, whatever it receives."""
    class Id(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return gradient
    return Id


def test_a_gradient_the_input_broadcasts_to_is_summed_back_and_any_other_is_refused() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    _returning(mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).apply(x).sum().backward()
    assert x.grad.tolist() == [9.0, 12.0]  # the column sums
    with pytest.raises(RuntimeError, match=r"IdBackward returned an invalid gradient at index 0 - "
                                           r"got \[3\] but expected shape compatible with \[2\]"):
        _returning(mg.tensor([1.0, 2.0, 3.0])).apply(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got numpy.float64\)"):
        _returning(np.exp(np.float64(0.0))).apply(mg.tensor(1.0, requires_grad=True)).backward()


def test_setup_context_with_a_forward_without_ctx() -> None:
    class Mul(mg.Function):
        @staticmethod
        def forward(x, w):
            seen.append(mg.is_grad_enabled())
            return x * w

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * w, g * x

    seen: list[bool] = []
    x, w = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([3.0, 4.0], requires_grad=True)
    Mul.apply(x, w).sum().backward()
    assert (x.grad.tolist(), w.grad.tolist(), seen) == ([3.0, 4.0], [1.0, 2.0], [False])


def test_outputs_that_are_not_data_pass_through_and_an_index_keeps_its_dtype() -> None:
    class Arg(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, np.argmax(x), 3, "tag"

        @staticmethod
        def backward(ctx, g, g_index, g_count, g_tag):
            assert (g_count, g_tag) == (None, None)
            return g * 2

    x = mg.tensor([1.0, 3.0, 2.0], requires_grad=True)
    y, index, count, tag = Arg.apply(x)
    assert (index.dtype, index.requires_grad, count, tag) == ("int64", False, 3, "tag")
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_mark_dirty_refuses_an_input_not_returned_and_on_a_view_records_copy_slices() -> None:
    class Scale_(mg.Function):
        @staticmethod
        def forward(ctx, x, returned):
            x *= 5
            ctx.mark_dirty(x)
            return x if returned else (x * 1, x * 2)

        @staticmethod
        def backward(ctx, g, *rest):
            return g * 5, None

    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward"):
        Scale_.apply(mg.tensor([1.0, 2.0], requires_grad=True) * 1, False)
    leaf = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = leaf * 1
    Scale_.apply(base[:2], True)
    assert base.grad_fn.name() == "CopySlices"
    base.sum().backward()
    assert leaf.grad.tolist() == [5.0, 5.0, 1.0]


def test_a_saved_output_of_several_is_a_tensor_in_the_graph_under_create_graph() -> None:
    class Cube(mg.Function):
        @staticmethod
        def forward(x):
            return x ** 3, 3 * x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], output[1])

        @staticmethod
        def backward(ctx, g, g_dx):
            x, dx = ctx.saved_tensors
            return g * dx + g_dx * 6 * x

    x = mg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    (g,) = mg.autograd.grad(Cube.apply(x)[0].sum(), x, create_graph=True)
    g.sum().backward()
    assert (g.tolist(), x.grad.tolist()) == ([3.0, 12.0], [6.0, 12.0])  # d²(x³) = 6x, not 0
