"""The scalar engine's hot operators in one Python call each (``recording.py``), chosen once at
import by ``micrograd2/scalar/value.py``.

* ``x + y``, ``x - y``, ``x * y``, ``x / y`` (a Value and a Value of its dtype, or a number):
  ``recording.two_inputs``;
* the functions of one Value (``exp``, ``relu``…): ``recording.one_input``;
* ``mg.dot(ws, xs, bias)`` of Values and numbers: ``recording.many_inputs``.

Any other call (another dtype, a bool, autocast on…) goes to the reference method.  Forward and
backward formulas, and what each op saves, live only in the Functions; the property test
``tests/test_fast.py`` checks that every node, saved value, event and error is the reference's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar

from .recording import many_inputs, one_input, two_inputs

if TYPE_CHECKING:
    from ..autograd.function import Function

Method = Callable[..., Any]
Dot = TypeVar("Dot", bound=Callable[..., Any])  # the engine's dot, which the fast one replaces

# method name -> the name of its Function in the engine's ops module
TWO_INPUTS = {"__add__": "Add", "__radd__": "Add", "__sub__": "Sub", "__mul__": "Mul",
              "__rmul__": "Mul", "__truediv__": "Div"}
ONE_INPUT = {"__neg__": "Neg", "exp": "Exp", "log": "Log", "tanh": "Tanh", "relu": "Relu",
             "sigmoid": "Sigmoid", "sqrt": "Sqrt", "abs": "Abs", "__abs__": "Abs"}


def scalar_methods(value_class: type, ops: object) -> dict[str, Method]:
    """The fast versions of ``value_class``'s hot methods, by name, each falling back to the
    reference one (``ops``: the engine's module of Functions; the speed layer imports no engine)."""
    methods = {name: two_inputs(getattr(ops, fn), getattr(value_class, name))
               for name, fn in TWO_INPUTS.items()}
    methods.update({name: one_input(getattr(ops, fn), getattr(value_class, name))
                    for name, fn in ONE_INPUT.items()})
    return methods


def dot(fn: type[Function], reference: Dot, value_class: type) -> Dot:
    """The engine's ``dot(ws, xs, bias=None)`` (``fn``: its Dot Function) for Values of exactly
    ``value_class`` and one dtype, mixed with numbers; anything else goes to ``reference``."""
    apply = many_inputs(fn, value_class)

    def fast_dot(ws: Iterable[object], xs: Iterable[object], bias: object = None) -> Any:
        ws, xs = tuple(ws), tuple(xs)
        out = None
        if ws and len(ws) == len(xs):
            out = apply(ws + xs if bias is None else (*ws, *xs, bias))
        return reference(ws, xs, bias) if out is None else out

    fast_dot.__qualname__ = fast_dot.__name__ = "fast_dot"
    return fast_dot  # type: ignore[return-value]
