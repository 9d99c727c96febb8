"""Custom Functions: ctx, save_for_backward, needs_input_grad, node names, errors (block 5)."""
from __future__ import annotations

import pytest
from conftest import SquareAndDouble

import micrograd2 as mg


def test_article_block_5_square_and_double() -> None:
    x = mg.Value(3.0, requires_grad=True)
    y = SquareAndDouble.apply(x)
    assert y.item() == 18.0 and y.grad_fn.name() == "SquareAndDoubleBackward"
    y.backward()
    assert x.grad == 12.0


def test_custom_function_gets_second_derivative_from_its_backward() -> None:
    x = mg.Value(3.0, requires_grad=True)
    (g,) = mg.autograd.grad(SquareAndDouble.apply(x), x, create_graph=True)
    assert g.data == 12.0
    (g2,) = mg.autograd.grad(g, x)
    assert g2 == 4.0


def test_needs_input_grad_tells_which_inputs_need_gradients() -> None:
    seen = []

    class Spy(mg.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    Spy.apply(mg.Value(1.0, requires_grad=True), mg.Value(2.0), 3.0)
    assert seen == [(True, False, False)]


def test_ctx_can_carry_attributes_in_custom_functions() -> None:
    class Scale(mg.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = mg.Value(1.0, requires_grad=True)
    Scale.apply(x, 5.0).backward()
    assert x.grad == 5.0


def test_backward_returning_the_wrong_number_of_gradients_is_a_runtime_error() -> None:
    class Bad(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g

    expected = r"BadBackward returned an incorrect number of gradients \(expected 1, got 2\)"
    with pytest.raises(RuntimeError, match=expected):
        Bad.apply(mg.Value(1.0, requires_grad=True)).backward()


def test_saving_the_output_tracks_in_place_changes_to_it() -> None:
    class Exp2(mg.Function):
        @staticmethod
        def forward(ctx, x):
            out = 2.0**x
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out * 0.6931471805599453

    x = mg.Value(1.0, requires_grad=True)
    y = Exp2.apply(x)
    y.backward(retain_graph=True)
    assert x.grad == pytest.approx(2 * 0.6931471805599453)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.grad_fn.next_functions[0][0].saved_tensors  # the Exp2 node behind the in-place op


def test_saved_tensors_read_the_data_at_backward_time() -> None:
    x = mg.Value(3.0, requires_grad=True)
    y = SquareAndDouble.apply(x)
    x.data = 5.0  # the .data trap: no version bump
    y.backward()
    assert x.grad == 20.0


def test_apply_without_any_value_runs_a_custom_forward_and_refuses_a_builtin() -> None:
    from micrograd2.scalar import ops as scalar_ops

    assert SquareAndDouble.apply(3.0) == 18.0  # PyTorch: forward's result, nothing recorded
    with pytest.raises(TypeError, match="needs at least one Value"):
        scalar_ops.Mul.apply(2.0, 3.0)


def test_builtin_ops_are_functions_written_the_same_way() -> None:
    from micrograd2.scalar import ops as scalar_ops

    for op in (scalar_ops.Mul, scalar_ops.Exp, scalar_ops.Dot):
        assert issubclass(op, mg.Function)
        assert callable(op.forward) and callable(op.backward)


def test_an_operator_gives_notimplemented_for_an_operand_the_engine_does_not_take() -> None:
    x = mg.Value(1.0, requires_grad=True)
    assert x.__add__("abc") is NotImplemented and x.__mul__(None) is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand type"):
        x - {}
    assert (x + True).data == 2.0 and (2 * x).grad_fn.name() == "MulBackward0"  # bool, reflected: through apply
