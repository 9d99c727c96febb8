"""Custom Functions next to torch.autograd.Function 2.13 (issue 34, round 4): forward's defaults in
setup_context, saved intermediates, no edge for a number argument, apply without a Tensor,
``_saved_self`` of a leaf, and once_differentiable's ``Error`` node."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import graph_shape  # noqa: E402

import micrograd2 as mg  # noqa: E402


def _scale(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, k=3.0, shift=None):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.seen = inputs[1:]
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None, None

    return Scale


@pytest.mark.parametrize("given", [(), (2.0,), (2.0, "s")], ids=str)
def test_setup_context_receives_forwards_defaults(given) -> None:
    seen = []
    for lib in (mg, torch):
        x = lib.ones(2, requires_grad=True)
        y = _scale(lib).apply(x, *given)
        y.sum().backward()
        seen.append((y.grad_fn.seen, x.grad.tolist(), len(y.grad_fn.next_functions)))
    assert seen[0] == seen[1]


def test_an_intermediate_saved_in_forward_comes_back_as_a_tensor() -> None:
    class Keep(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            twice = x * 2
            ctx.save_for_backward(x, twice)
            return twice

        @staticmethod
        def backward(ctx, g):
            x, twice = ctx.saved_tensors
            assert isinstance(x, mg.Tensor) and isinstance(twice, mg.Tensor)
            return g * twice

    x = mg.ones(2, requires_grad=True)
    Keep.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def _times(lib):
    class Times(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            return x * k + y

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, g

    return Times


@pytest.mark.parametrize("y_grad", [True, False])
def test_a_number_argument_of_a_custom_function_has_no_edge(y_grad: bool) -> None:
    seen = []
    for lib in (mg, torch):
        x, y = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=y_grad)
        out = _times(lib).apply(x, 2.0, y)
        counts: list[int] = []
        out.grad_fn.register_hook(lambda ins, outs, counts=counts: counts.append(len(ins)))
        out.sum().backward()
        seen.append((graph_shape(out.grad_fn), counts, x.grad.tolist(), y.grad is None or y.grad.tolist()))
        seen.append(graph_shape((x * 3).grad_fn))  # a built-in keeps (None, 0) for its number
    assert seen[0] == seen[2] and seen[1] == seen[3]


def test_needs_input_grad_has_one_flag_per_forward_input() -> None:
    seen = []
    for lib in (mg, torch):
        class Flags(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, y):
                return x * k + y

            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.needs_input_grad)
                return g, None, None

        Flags.apply(lib.ones(1, requires_grad=True), 2.0, lib.ones(1)).sum().backward()
    assert seen[0] == seen[1] == (True, False, False)


def test_apply_without_a_tensor_returns_forwards_result() -> None:
    results = []
    for lib in (mg, torch):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        results.append(Twice.apply(3.0))
    assert results[0] == results[1] == 6.0


@pytest.mark.parametrize("engine", ["value", "tensor"])
def test_saved_self_of_a_leaf_is_the_leaf(engine: str) -> None:
    for lib in (mg, torch):
        x = (mg.Value(2.0, requires_grad=True) if lib is mg and engine == "value"
             else lib.tensor([2.0], requires_grad=True))
        y = x * x
        assert y.grad_fn._saved_self is x and y.grad_fn._saved_other is x


def test_once_differentiables_error_node_has_torchs_next_functions() -> None:
    shapes = []
    for lib in (mg, torch):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        x = lib.ones(2, requires_grad=True)
        y = Square.apply(x)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        shapes.append(graph_shape(g.grad_fn))
        with pytest.raises(RuntimeError, match="once_differentiable"):
            g.sum().backward()
    assert shapes[0] == shapes[1]
