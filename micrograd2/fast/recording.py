"""``Function.apply`` for one or two inputs, or many Values, in one Python call: what the speed
layer's operators are made of.

``Function.apply`` handles any number of inputs of any kind.  For the common calls (``x op y``
for two Variables of one class and dtype, ``x op number``, ``f(x)``, ``mg.dot`` of Values and
numbers) these do its steps with fewer tests, and build the node with the core's own
constructors: the node class's ``__init__`` (edges), the Function's ``forward`` (what it
saves) and the node's ``_record`` (creation number, dtype, output, saved values, anomaly mode).
Any other call (another dtype, autocast on…) goes to ``reference``.
"""
from __future__ import annotations

from typing import Any, Callable

from ..autograd import events, grad_mode
from ..autograd.function import Function

Method = Callable[..., Any]


def two_inputs(fn: type[Function], reference: Method) -> Method:
    """``fn.apply(a, b)`` for a Variable ``a`` and a ``b`` that is a Variable of its class and
    dtype, a float or an int; any other ``b`` goes to ``reference(a, b)``."""
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
        a_data, dtype = a.data, a.dtype
        record = (a._requires_grad or b_needs) and state.grad_enabled
        if not record:
            out = a._wrap(forward(node_class((None, None)), a_data, b_data), dtype, None)
        else:
            ctx = node_class((a if a._requires_grad else None, b if b_needs else None))
            raw = forward(ctx, a_data, b_data)
            out = a._wrap(raw, dtype, ctx)
            ctx._record(out, (a, b), (a_data, b_data), raw, dtype)
        if events.listening and events.here.seat.audible:
            events.forward(out.grad_fn, fn, (a, b), out)
        return out

    method.__qualname__ = method.__name__ = f"fast_{fn.__name__}"
    return method


def one_input(fn: type[Function], reference: Method) -> Method:
    """``fn.apply(x)`` for a Variable ``x``."""
    node_class, forward = fn._node_class, fn.forward
    state = grad_mode.state

    def method(x: Any) -> Any:
        if state.autocast is not None:
            return reference(x)
        data, dtype = x.data, x.dtype
        if not (x._requires_grad and state.grad_enabled):
            out = x._wrap(forward(node_class((None,)), data), dtype, None)
        else:
            ctx = node_class((x,))
            raw = forward(ctx, data)
            out = x._wrap(raw, dtype, ctx)
            ctx._record(out, (x,), (data,), raw, dtype)
        if events.listening and events.here.seat.audible:
            events.forward(out.grad_fn, fn, (x,), out)
        return out

    method.__qualname__ = method.__name__ = f"fast_{fn.__name__}"
    return method


def many_inputs(fn: type[Function], value_class: type) -> Method:
    """``fn.apply(*inputs)`` for a tuple of Values of exactly ``value_class`` and one dtype, mixed
    with floats and ints; for anything else it returns None (the caller takes the reference)."""
    node_class, forward = fn._node_class, fn.forward
    state = grad_mode.state

    def method(inputs: tuple[Any, ...]) -> Any:
        if state.autocast is not None:
            return None
        record = state.grad_enabled
        template = None
        dtype = ""  # the dtype of every Value among the inputs: the first one's
        args, needing, needs = [], [], False
        for x in inputs:
            kind = type(x)
            if kind is value_class:
                if template is None:
                    template, dtype = x, x.dtype
                elif x.dtype is not dtype:
                    return None
                args.append(x.data)
                needing.append(x if record and x._requires_grad else None)
                needs = needs or needing[-1] is not None
            elif kind is float or kind is int:
                args.append(x)
                needing.append(None)
            else:
                return None
        if template is None:
            return None
        ctx = node_class(tuple(needing))
        raw = forward(ctx, *args)
        if not needs:
            out = template._wrap(raw, dtype, None)
        else:
            out = template._wrap(raw, dtype, ctx)
            ctx._record(out, inputs, tuple(args), raw, dtype)
        if events.listening and events.here.seat.audible:
            events.forward(out.grad_fn, fn, inputs, out)
        return out

    method.__qualname__ = method.__name__ = f"fast_{fn.__name__}"
    return method
