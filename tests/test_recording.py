"""``micrograd2.fast.recording``: ``Function.apply`` for one or two inputs, or many, in one Python call.

It proves that the one-call recording builds what ``Function.apply`` builds (values, dtypes, node names and
dtypes, edges, saved values) for the Tensor operators, that every call it does not handle (another dtype or
kind of operand, autocast on) goes to the reference, that it records nothing without grad, that an output kept
for backward is watched for in-place changes, and that it announces the op as a ``forward`` event.
"""
from __future__ import annotations

from typing import Any

import pytest

import micrograd2 as mg
from micrograd2 import fast
from micrograd2.autograd import events
from micrograd2.fast import recording
from micrograd2.scalar import Value, ops


def _reference(*args: Any) -> str:
    return "reference"


def test_two_inputs_hands_every_other_call_to_the_reference() -> None:
    mul = recording.two_inputs(ops.Mul, _reference)
    x = Value(2.0, requires_grad=True)
    assert mul.__name__ == "fast_Mul"
    assert mul(x, Value(1.0, dtype="float32")) == "reference"  # another dtype
    assert mul(x, "2") == "reference"  # another kind of operand
    with mg.autocast("float16"):
        assert mul(x, x) == "reference"
    out = mul(x, 3)
    assert out.data == 6.0 and out.grad_fn.name() == "MulBackward0"
    assert out.grad_fn.next_functions == ((x._accumulator, 0), (None, 0))


def test_without_grad_nothing_is_recorded() -> None:
    mul, exp = recording.two_inputs(ops.Mul, _reference), recording.one_input(ops.Exp, _reference)
    x = Value(2.0, requires_grad=True)
    with mg.no_grad():
        assert mul(x, x).grad_fn is None and exp(x).grad_fn is None
    assert mul(Value(2.0), 3.0).grad_fn is None and not exp(Value(0.0)).requires_grad


def test_an_output_kept_for_backward_is_watched_for_in_place_changes() -> None:
    exp = recording.one_input(ops.Exp, _reference)
    x = Value(0.0, requires_grad=True)
    y = exp(x)
    y.backward(retain_graph=True)
    assert x.grad == 1.0
    with mg.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_the_op_is_announced_as_a_forward_event() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    listener = lambda kind, fields: seen.append((kind, fields))  # noqa: E731
    mul, tanh = recording.two_inputs(ops.Mul, _reference), recording.one_input(ops.Tanh, _reference)
    x = Value(0.5, requires_grad=True)
    events.subscribe(listener)
    try:
        y = mul(x, 2.0)
        z = tanh(y)
    finally:
        events.unsubscribe(listener)
    assert seen == [("forward", {"node": y.grad_fn, "fn": ops.Mul, "inputs": (x, 2.0), "output": y}),
                    ("forward", {"node": z.grad_fn, "fn": ops.Tanh, "inputs": (y,), "output": z})]


def _tensor_graph(t: Any) -> tuple:
    node = t.grad_fn
    return (t.detach().numpy().tolist(), t.dtype, t.requires_grad, node and node.name(), node and node._dtype,
            node and tuple(None if n is None else n.name() for n, _ in node.next_functions),
            node and tuple((name, role, repr(value.tolist() if hasattr(value, "tolist") else value))
                           for name, role, _, value in node.saved_entries()))


@pytest.mark.skipif(not fast.ENABLED, reason="the speed layer is off (MICROGRAD2_REFERENCE=1)")
@pytest.mark.parametrize("requires", [(True, True), (True, False), (False, True), (False, False)])
def test_tensor_operators_on_the_speed_layer_build_what_apply_builds(requires: tuple[bool, bool]) -> None:
    from micrograd2.tensors import arithmetic, unary

    a = mg.tensor([[1.5, -2.0], [0.5, 3.0]], requires_grad=requires[0])
    b = mg.tensor([[2.0, 0.25], [-1.0, 4.0]], requires_grad=requires[1])
    for op, fn in (("__add__", arithmetic.Add), ("__sub__", arithmetic.Sub), ("__mul__", arithmetic.Mul),
                   ("__truediv__", arithmetic.Div)):
        assert _tensor_graph(getattr(a, op)(b)) == _tensor_graph(fn.apply(a, b))
    for name in ("exp", "tanh", "relu", "sigmoid", "abs"):
        fn = getattr(unary, name.capitalize())
        assert _tensor_graph(getattr(a, name)()) == _tensor_graph(fn.apply(a))
    assert _tensor_graph(-a) == _tensor_graph(arithmetic.Neg.apply(a))
