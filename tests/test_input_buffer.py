"""``InputBuffer``: one record per node reached in a backward pass, with one slot per output.

It proves that a node of one output has one slot and a node of several (a custom Function's two
outputs, ``unbind``'s rows) one per output; that ``add`` rounds each gradient to the node's dtype
and sums what arrives in one slot, rounding the sum again; and that the reference walk hands each
node's backward the gradients of its own buffer, zeros where none arrived.
"""
from __future__ import annotations

import pytest
from conftest import SumAndProduct

import micrograd2 as mg
from micrograd2.autograd.engine import Walk
from micrograd2.autograd.input_buffer import InputBuffer
from micrograd2.scalar import Value
from micrograd2.tensors import Tensor


def test_a_node_of_one_output_has_one_empty_slot_and_no_dict() -> None:
    x = Value(2.0, requires_grad=True)
    buffer = InputBuffer((x * 3.0).grad_fn, Value)
    assert buffer.grads == [None]
    assert not hasattr(buffer, "__dict__")  # __slots__: one small record per node reached


def test_a_node_of_several_outputs_has_one_slot_per_output() -> None:
    a, b = Value(2.0, requires_grad=True), Value(3.0, requires_grad=True)
    total, _ = SumAndProduct.apply(a, b)
    assert InputBuffer(total.grad_fn, Value).grads == [None, None]
    rows = mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True).unbind()
    assert InputBuffer(rows[0].grad_fn, Tensor).grads == [None, None, None]


def test_add_sums_into_its_outputs_slot_only() -> None:
    a, b = Value(2.0, requires_grad=True), Value(3.0, requires_grad=True)
    total, _ = SumAndProduct.apply(a, b)
    buffer = InputBuffer(total.grad_fn, Value)
    buffer.add(1, 0.5)
    buffer.add(1, 0.25)
    assert buffer.grads == [None, 0.75]


def test_add_rounds_each_gradient_and_the_sum_to_the_nodes_dtype() -> None:
    x = Value(1.0, requires_grad=True, dtype="float16")
    buffer = InputBuffer((x * 3.0).grad_fn, Value)
    buffer.add(0, 0.1)
    one = Value._round_gradient(0.1, "float16")
    assert buffer.grads == [one] and one != 0.1
    buffer.add(0, 0.1)
    assert buffer.grads == [Value._round_gradient(one + one, "float16")]


@pytest.mark.parametrize("materialize", [True, False])
def test_a_custom_functions_backward_receives_its_buffers_slots(materialize: bool) -> None:
    received = []

    class Pair(mg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2.0, x * 3.0

        @staticmethod
        def backward(ctx, g_first, g_second):
            received.append((g_first, g_second))
            return 1.0

    x = Value(1.0, requires_grad=True)
    _, second = Pair.apply(x)
    (second * 5.0 + second).backward()
    assert received == [(0.0 if materialize else None, 6.0)]


def test_the_walk_keeps_one_buffer_per_node_until_its_visit() -> None:
    a, b = Value(2.0, requires_grad=True), Value(3.0, requires_grad=True)
    total, _ = SumAndProduct.apply(a, b)
    node = total.grad_fn
    starts = [(node, 0, 1.0), (node, 1, 2.0), (node, 1, 4.0)]
    walk = Walk(Value, starts, retain_graph=True, captures=None, pass_no=0)
    assert list(walk.buffer) == [node] and walk.buffer[node].grads == [1.0, 6.0]
    walk.run()
    assert walk.buffer == {}
    assert (a.grad.data, b.grad.data) == (1.0 + 6.0 * 3.0, 1.0 + 6.0 * 2.0)
