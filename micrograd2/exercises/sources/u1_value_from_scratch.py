"""Exercise U1.0 — A Value from scratch (lesson 2: what backward() does, on an engine of your own).

Before you fill in micrograd2's pieces, build a whole autograd the size of
micrograd: one class, ``Value``, and one function.  A ``Value`` holds

* ``data``: its number (a float);
* ``grad``: dz/d(this value) once ``z.backward()`` has run; ``0.0`` before;
* ``_prev``: the Values it was computed from, in order (a tuple: ``a + a``
  holds ``a`` twice); ``()`` for a leaf;
* ``_backward``: a function of no arguments that, once this Value's ``grad``
  is complete, sends it on to the Values in ``_prev`` (the chain rule).  A leaf's
  does nothing.

Your task:

1. ``Value.__init__`` stores those four things (and ``_op``, the op's symbol).
2. ``__add__``, ``__mul__`` and ``tanh`` compute the new number, make the new
   Value with its inputs in ``_prev``, and give it a ``_backward`` closure.
   A Value used twice receives a gradient from each use: they add up.
3. ``reverse_topological_order(root)`` returns every Value ``root`` was
   computed from (``root`` and the constants included), each once, ``root``
   first, and every Value BEFORE the Values it was computed from: a Value comes
   only after every Value that uses it, so its gradient is complete when its
   ``_backward`` runs.  Recursion is allowed here; U2.1 removes it.
4. ``Value.backward()`` sets the root's own gradient to 1.0 (dz/dz) and calls
   every ``_backward`` in that order.  Call it once per graph: as in micrograd,
   a second call adds everything again (U2 is about how PyTorch does better).

The tests run the article's blocks 1-2, z = x[0]*w[0] + x[1]*w[1], a value used
twice and a diamond on your Value and on micrograd2, and compare every number.

Check: ``micrograd2 exercise check U1.0`` (or ``pytest -m u1_0``).
Hints: ``micrograd2 exercise hint U1.0``.
"""
from __future__ import annotations

import math
from typing import Callable, Union


class Value:
    """A number that remembers how it was computed, and its gradient."""

    data: float  # its number
    grad: float  # d(root)/d(this Value), filled by backward()
    _backward: Callable[[], None]  # adds this Value's share into its inputs' .grad
    _prev: tuple[Value, ...]  # the Values it was computed from

    def __init__(self, data: float, _children: tuple[Value, ...] = (), _op: str = "") -> None:
        raise NotImplementedError("Exercise U1.0: implement Value.__init__")

    def __add__(self, other: Operand) -> Value:
        """``self + other``: both inputs receive the output's gradient unchanged."""
        other = other if isinstance(other, Value) else Value(other)
        raise NotImplementedError("Exercise U1.0: implement Value.__add__")

    def __mul__(self, other: Operand) -> Value:
        """``self * other``: each input receives the output's gradient times the other input."""
        other = other if isinstance(other, Value) else Value(other)
        raise NotImplementedError("Exercise U1.0: implement Value.__mul__")

    def tanh(self) -> Value:
        """``tanh(self)``: its derivative is 1 - t², with t the output."""
        raise NotImplementedError("Exercise U1.0: implement Value.tanh")

    def __radd__(self, other: float) -> Value:  # 1.0 + v, and sum() which starts from 0
        return self + other

    def __rmul__(self, other: float) -> Value:  # 2.0 * v
        return self * other

    def backward(self) -> None:
        """Fill ``.grad`` of this Value and of every Value it was computed from."""
        raise NotImplementedError("Exercise U1.0: implement Value.backward")

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"


Operand = Union[Value, float]


def reverse_topological_order(root: Value) -> list[Value]:
    """Every Value ``root`` was computed from, root first, each before its ``_prev``."""
    raise NotImplementedError("Exercise U1.0: implement reverse_topological_order")
