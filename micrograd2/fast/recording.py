"""``Function.apply`` for one or two inputs, inline: what the speed layer's operators are made of.

``Function.apply`` handles any number of inputs of any kind.  For the common
calls — ``x op y`` for two Variables of one class and dtype, ``x op number``,
``f(x)`` — these functions do the same steps in one Python call: the same node
class, edges, creation number, dtype, saved values (through the core's
``_encode``), anomaly record and ``forward`` event.  Any other call (another
dtype, autocast on…) goes to ``reference``.  The engines use them (``Value``'s
operators, ``Tensor``'s), chosen once, at import.
"""
from __future__ import annotations

from typing import Any, Callable

from ..autograd import anomaly, events, grad_mode
from ..autograd.engine import SavedOutput, _creation_order, _encode, gradient_edge

Method = Callable[..., Any]


def two_inputs(fn: Any, reference: Method) -> Method:
    """``fn.apply(a, b)`` for a Variable ``a`` and a ``b`` that is a Variable of its class and dtype, a float
    or an int; any other ``b`` goes to ``reference(a, b)``."""
    node_class, forward = fn._node_class, fn.forward
    state = grad_mode.state

    def method(a: Any, b: Any) -> Any:
        kind = type(b)
        if kind is float or kind is int:
            b_data, b_needs = b, False
        elif kind is type(a) and b.dtype is a.dtype:
            b_data, b_needs = b.data, b._requires_grad
        else:
            return reference(a, b)
        if state.autocast is not None:
            return reference(a, b)
        ctx = node_class.__new__(node_class)
        ctx._saved = ()
        a_data, a_needs, dtype = a.data, a._requires_grad, a.dtype
        if not ((a_needs or b_needs) and state.grad_enabled):
            ctx._next = (None, None)
            out = a._wrap(forward(ctx, a_data, b_data), dtype, None)
        else:
            ctx._next = (a._accumulator or a.grad_fn or gradient_edge(a) if a_needs else None,
                         b._accumulator or b.grad_fn or gradient_edge(b) if b_needs else None)
            raw = forward(ctx, a_data, b_data)
            ctx._seq = next(_creation_order)
            ctx._dtype = dtype
            out = a._wrap(raw, dtype, ctx)
            ctx._output = out.data
            if ctx._saved:
                ctx._saved = _encode(ctx._saved, (a, b), (a_data, b_data), raw, out)
            if anomaly.enabled:
                anomaly.remember_forward(ctx)
        if events.listening:
            events.emit("forward", node=out.grad_fn, fn=fn, inputs=(a, b), output=out)
        return out

    method.__qualname__ = method.__name__ = f"fast_{fn.__name__}"
    return method


def one_input(fn: Any, reference: Method) -> Method:
    """``fn.apply(x)`` for a Variable ``x``."""
    node_class, forward = fn._node_class, fn.forward
    state = grad_mode.state

    def method(x: Any) -> Any:
        if state.autocast is not None:
            return reference(x)
        ctx = node_class.__new__(node_class)
        ctx._saved = ()
        data, dtype = x.data, x.dtype
        if not (x._requires_grad and state.grad_enabled):
            ctx._next = (None,)
            out = x._wrap(forward(ctx, data), dtype, None)
        else:
            ctx._next = (x._accumulator or x.grad_fn or gradient_edge(x),)
            raw = forward(ctx, data)
            ctx._seq = next(_creation_order)
            ctx._dtype = dtype
            out = x._wrap(raw, dtype, ctx)
            ctx._output = out.data
            saved = ctx._saved
            if len(saved) == 1 and saved[0] is raw:  # the output alone (relu, exp…), as _encode keeps it
                out._version_counter = out._version_counter or SavedOutput(out)
                ctx._saved = (out._version_counter,)
            elif saved:
                ctx._saved = _encode(saved, (x,), (data,), raw, out)
            if anomaly.enabled:
                anomaly.remember_forward(ctx)
        if events.listening:
            events.emit("forward", node=out.grad_fn, fn=fn, inputs=(x,), output=out)
        return out

    method.__qualname__ = method.__name__ = f"fast_{fn.__name__}"
    return method
