"""The scalar engine's hot ops in one Python call each: ``Value.__mul__`` without ``Function.apply``'s loop.

``Function.apply`` handles any number of inputs of any kind.  The calls that
dominate a scalar program are simpler — ``Value op Value`` of one dtype,
``Value op number``, ``f(Value)`` — and for them these functions do the same
steps inline: the same node class, edges, creation number, dtype, saved values
(through the core's ``_encode``), anomaly record and ``forward`` event.  Any
other call (another dtype, a bool, autocast on…) goes to the reference method.

``scalar_methods(Value, ops)`` gives the methods the scalar engine takes, chosen
once at import (see ``micrograd2/scalar/value.py``).
"""
from __future__ import annotations

from typing import Any, Callable

from ..autograd import anomaly, events, grad_mode
from ..autograd.function import _encode
from ..autograd.node import _creation_order, gradient_edge

Method = Callable[..., Any]

# method name -> the name of its Function in the scalar engine's ops module
TWO_INPUTS = {"__add__": "Add", "__radd__": "Add", "__sub__": "Sub", "__mul__": "Mul", "__rmul__": "Mul",
              "__truediv__": "Div"}
ONE_INPUT = {"__neg__": "Neg", "exp": "Exp", "log": "Log", "tanh": "Tanh", "relu": "Relu", "sigmoid": "Sigmoid",
             "sqrt": "Sqrt", "abs": "Abs", "__abs__": "Abs"}


def scalar_methods(value_class: type, ops: Any) -> dict[str, Method]:
    """The fast versions of ``value_class``'s hot methods, by name, each falling back to the reference one
    (``ops``: the engine's module of Functions; the speed layer imports no engine)."""
    methods = {name: two_inputs(getattr(ops, fn), getattr(value_class, name)) for name, fn in TWO_INPUTS.items()}
    methods.update({name: one_input(getattr(ops, fn), getattr(value_class, name)) for name, fn in ONE_INPUT.items()})
    return methods


def dot(fn: Any, reference: Method, value_class: type) -> Method:
    """The engine's ``dot(ws, xs, bias=None)`` (``fn``: its Dot Function) in one pass over the inputs, for
    Values of exactly ``value_class`` and one dtype, floats and ints; anything else goes to ``reference``."""
    node_class, forward = fn._node_class, fn.forward
    state = grad_mode.state

    def fast_dot(ws: Any, xs: Any, bias: Any = None) -> Any:
        ws, xs = tuple(ws), tuple(xs)
        inputs = (*ws, *xs) if bias is None else (*ws, *xs, bias)
        if len(ws) != len(xs) or state.autocast is not None:
            return reference(ws, xs, bias)
        record = state.grad_enabled
        template = dtype = None
        args, edges, needs = [], [], False
        for x in inputs:
            kind = type(x)
            if kind is value_class:
                if template is None:
                    template, dtype = x, x.dtype
                elif x.dtype is not dtype:
                    return reference(ws, xs, bias)
                args.append(x.data)
                if record and x._requires_grad:
                    edges.append(x.grad_fn or x._accumulator or gradient_edge(x))
                    needs = True
                else:
                    edges.append(None)
            elif kind is float or kind is int:
                args.append(x)
                edges.append(None)
            else:
                return reference(ws, xs, bias)
        if template is None:
            return reference(ws, xs, bias)
        ctx = node_class.__new__(node_class)
        ctx._saved = ()
        ctx._next = tuple(edges)
        raw = forward(ctx, *args)
        if not needs:
            out = template._wrap(raw, dtype, None)
        else:
            ctx._seq = next(_creation_order)
            ctx._dtype = dtype
            out = template._wrap(raw, dtype, ctx)
            ctx._output = out.data
            if ctx._saved:
                ctx._saved = _encode(ctx._saved, inputs, tuple(args), raw, out)
            if anomaly.enabled:
                anomaly.remember_forward(ctx)
        if events.listening:
            events.emit("forward", node=out.grad_fn, fn=fn, inputs=inputs, output=out)
        return out

    return fast_dot


def two_inputs(fn: Any, reference: Method) -> Method:
    """``fn.apply(a, b)`` for a Value ``a`` and a ``b`` that is a Value of its class and dtype, a float or an
    int; any other ``b`` goes to ``reference(a, b)``."""
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
            ctx._next = (a.grad_fn or a._accumulator or gradient_edge(a) if a_needs else None,
                         b.grad_fn or b._accumulator or gradient_edge(b) if b_needs else None)
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
    """``fn.apply(x)`` for a Value ``x``."""
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
            ctx._next = (x.grad_fn or x._accumulator or gradient_edge(x),)
            raw = forward(ctx, data)
            ctx._seq = next(_creation_order)
            ctx._dtype = dtype
            out = x._wrap(raw, dtype, ctx)
            ctx._output = out.data
            if ctx._saved:
                ctx._saved = _encode(ctx._saved, (x,), (data,), raw, out)
            if anomaly.enabled:
                anomaly.remember_forward(ctx)
        if events.listening:
            events.emit("forward", node=out.grad_fn, fn=fn, inputs=(x,), output=out)
        return out

    method.__qualname__ = method.__name__ = f"fast_{fn.__name__}"
    return method
