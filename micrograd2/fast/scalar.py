"""The scalar engine's hot ops in one Python call each: ``Value.__mul__`` without ``Function.apply``'s loop.

The calls that dominate a scalar program — ``Value op Value`` of one dtype,
``Value op number``, ``f(Value)`` (``recording.py``), and ``mg.dot`` (here) — do
``Function.apply``'s steps inline.  Any other call (another dtype, a bool,
autocast on…) goes to the reference method.

``scalar_methods(Value, ops)`` gives the methods the scalar engine takes, chosen
once at import (see ``micrograd2/scalar/value.py``).
"""
from __future__ import annotations

from typing import Any, Callable

from ..autograd import anomaly, events, grad_mode
from ..autograd.function import _encode
from ..autograd.node import _creation_order, gradient_edge
from .recording import one_input, two_inputs

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
