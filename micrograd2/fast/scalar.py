"""The scalar engine's hot ops in one Python call each: ``Value.__mul__`` without ``Function.apply``'s loop.

* ``x + y``, ``x - y``, ``x * y``, ``x / y`` (a Value and a Value of its dtype, or a
  number) do their Function's forward inline — its arithmetic and what it saves —
  and record the node as ``Function.apply`` does;
* the functions of one Value (``exp``, ``relu``…) call their Function's forward
  (``recording.one_input``);
* ``mg.dot`` of Values does the Dot Function's forward inline, over whole tuples at once.

Any other call (another dtype, a bool, autocast on…) goes to the reference method.
Backward formulas stay in the Functions; the property test ``tests/test_fast.py``
checks that every node, saved value, event and error is the reference path's.

``scalar_methods(Value, ops)`` and ``dot(...)`` give what the scalar engine takes,
chosen once at import (see ``micrograd2/scalar/value.py``).
"""
from __future__ import annotations

import operator
from typing import Any, Callable

from .. import ieee
from ..autograd import anomaly, events, grad_mode
from ..autograd.engine import SavedVariable, _creation_order, _encode, gradient_edge
from .recording import one_input

Method = Callable[..., Any]

# What the fused ops' forwards keep for backward (as their Functions' forwards do):
NOTHING = "nothing"  # Add, Sub
OTHER = "other"  # Mul: a if b needs a gradient, b if a does
DIVISOR = "divisor"  # Div: a if b needs a gradient, b always

# method name -> (the name of its Function in the engine's ops module, its forward's arithmetic, what it keeps)
TWO_INPUTS = {"__add__": ("Add", operator.add, NOTHING), "__radd__": ("Add", operator.add, NOTHING),
              "__sub__": ("Sub", operator.sub, NOTHING), "__mul__": ("Mul", operator.mul, OTHER),
              "__rmul__": ("Mul", operator.mul, OTHER), "__truediv__": ("Div", ieee.div, DIVISOR)}
ONE_INPUT = {"__neg__": "Neg", "exp": "Exp", "log": "Log", "tanh": "Tanh", "relu": "Relu", "sigmoid": "Sigmoid",
             "sqrt": "Sqrt", "abs": "Abs", "__abs__": "Abs"}


def scalar_methods(value_class: type, ops: Any) -> dict[str, Method]:
    """The fast versions of ``value_class``'s hot methods, by name, each falling back to the reference one
    (``ops``: the engine's module of Functions; the speed layer imports no engine)."""
    methods = {name: fused(getattr(ops, fn), getattr(value_class, name), compute, keeps)
               for name, (fn, compute, keeps) in TWO_INPUTS.items()}
    methods.update({name: one_input(getattr(ops, fn), getattr(value_class, name)) for name, fn in ONE_INPUT.items()})
    return methods


def fused(fn: Any, reference: Method, compute: Callable[[Any, Any], Any], keeps: str) -> Method:
    """``fn.apply(a, b)`` with ``fn``'s forward inline (``compute``, and what it ``keeps``), for a Value
    ``a`` and a ``b`` that is a Value of its class and dtype, a float or an int; else ``reference(a, b)``."""
    node_class = fn._node_class
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
        a_data, a_needs, dtype = a.data, a._requires_grad, a.dtype
        raw = compute(a_data, b_data)
        if not ((a_needs or b_needs) and state.grad_enabled):
            out = a._wrap(raw, dtype, None)
        else:
            ctx = node_class.__new__(node_class)
            ctx._next = (a._accumulator or a.grad_fn or gradient_edge(a) if a_needs else None,
                         b._accumulator or b.grad_fn or gradient_edge(b) if b_needs else None)
            ctx._seq = next(_creation_order)
            ctx._dtype = dtype
            out = a._wrap(raw, dtype, ctx)
            ctx._output = out.data
            if keeps is NOTHING:
                ctx._saved = ()
            elif b_needs or kind is not float and kind is not int:  # b a Value: the core encodes both
                kept = (a_data if b_needs else None, b_data if a_needs or keeps is DIVISOR else None)
                ctx._saved = _encode(kept, (a, b), (a_data, b_data), raw, out)
            else:  # b a number: what _encode gives for (None, number) is (None, number)
                ctx._saved = (None, b)
            if anomaly.enabled:
                anomaly.remember_forward(ctx)
        if events.listening:
            events.emit("forward", node=out.grad_fn, fn=fn, inputs=(a, b), output=out)
        return out

    method.__qualname__ = method.__name__ = f"fast_{fn.__name__}"
    return method


def dot(fn: Any, reference: Method, value_class: type, exact_sum: Callable[[Any], float]) -> Method:
    """The engine's ``dot(ws, xs, bias=None)`` (``fn``: its Dot Function, whose forward sums with
    ``exact_sum``): for Values of exactly ``value_class`` and one dtype, the forward inline over whole
    tuples; with numbers among them, ``mixed_dot``; anything else goes to ``reference``."""
    node_class = fn._node_class
    state = grad_mode.state
    values_only = {value_class}
    data, needs_grad, dtype_of, version_of = (operator.attrgetter(name) for name in
                                              ("data", "_requires_grad", "dtype", "_version_counter"))
    mixed = mixed_dot(fn, reference, value_class)

    def fast_dot(ws: Any, xs: Any, bias: Any = None) -> Any:
        ws, xs = tuple(ws), tuple(xs)
        n = len(ws)
        inputs = ws + xs if bias is None else (*ws, *xs, bias)
        if not n or n != len(xs) or state.autocast is not None or set(map(type, inputs)) != values_only:
            return mixed(ws, xs, bias)
        dtype = ws[0].dtype
        if set(map(dtype_of, inputs)) != {dtype}:
            return reference(ws, xs, bias)
        args = tuple(map(data, inputs))
        terms = list(map(operator.mul, args[:n], args[n : 2 * n]))
        if bias is not None:
            terms.append(args[-1])
        raw = exact_sum(terms)
        needs = tuple(map(needs_grad, inputs)) if state.grad_enabled else ()
        if not any(needs):
            out = ws[0]._wrap(raw, dtype, None)
        else:
            ctx = node_class.__new__(node_class)
            ctx._next = tuple([x._accumulator or x.grad_fn or gradient_edge(x) if need else None
                               for x, need in zip(inputs, needs)])
            ctx._seq = next(_creation_order)
            ctx._dtype = dtype
            out = ws[0]._wrap(raw, dtype, ctx)
            ctx._output = out.data
            if all(needs):  # (a layer's usual case) every w and x kept, inline as _encode keeps them:
                # each Value itself, or (Value, version) once changed in place (none is the output: raw is new)
                ctx._saved = tuple([x if c is None else SavedVariable((x, c.value))
                                    for x, c in zip(inputs[: 2 * n], map(version_of, inputs))])
            else:  # w if its x needs a gradient, x if its w does
                kept = (*[w if need else None for w, need in zip(args[:n], needs[n : 2 * n])],
                        *[x if need else None for x, need in zip(args[n : 2 * n], needs[:n])])
                ctx._saved = _encode(kept, inputs, args, raw, out)
            if anomaly.enabled:
                anomaly.remember_forward(ctx)
        if events.listening:
            events.emit("forward", node=out.grad_fn, fn=fn, inputs=inputs, output=out)
        return out

    fast_dot.__qualname__ = fast_dot.__name__ = "fast_dot"
    return fast_dot


def mixed_dot(fn: Any, reference: Method, value_class: type) -> Method:
    """``dot(ws, xs, bias)`` in one pass for Values of exactly ``value_class`` and one dtype mixed with
    floats and ints (``fn``'s forward called as is); anything else goes to ``reference``."""
    node_class, forward = fn._node_class, fn.forward
    state = grad_mode.state

    def fast_mixed_dot(ws: Any, xs: Any, bias: Any = None) -> Any:
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
                    edges.append(x._accumulator or x.grad_fn or gradient_edge(x))
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

    return fast_mixed_dot
