"""MUTANT (teacher/mutants/, never handed out): hvp allows unused inputs in the first gradient but
not in the second: an input on which the gradient does not depend (f linear in it) makes it raise.

U4.1 — Double backward: a backward written in Value ops, and Hessian-vector products.

``mg.autograd.grad(y, x, create_graph=True)`` records the backward pass itself, so the gradient
it returns is a Value with a ``grad_fn``: differentiate it again and you get the second
derivative.  That works only if every backward on the way is written in ops that record.

NOTE [What a Value's backward receives]
A Value's ``backward`` receives plain floats, except while ``create_graph`` records it: then
``grad`` and ``ctx.saved_tensors`` are Values (PyTorch's backward always gets Tensors; micrograd2
gives floats when nothing records, for speed).  Floats and Values share ``+ - * /``, but not
``math.sin``: ``math.sin(value)`` turns the Value into a plain float and the graph is cut there.
So first write ``sin``, ``cos`` and ``exp`` that work on both: on a Value the Value's own method
(``x.sin()``, recorded), on a float ``math``'s.

Then:

* ``XSin``: y = x·sin x as ONE Function (one node, not a Mul and a Sin); its derivative is
  sin x + x·cos x;
* ``Softplus``: y = log(1 + eˣ); its derivative is the sigmoid, 1 / (1 + e⁻ˣ);
* ``hvp(f, xs, vs)``: the Hessian of f at ``xs`` times the vector ``vs``, by double backward:
  the gradient g(x) taken with ``create_graph=True``, then the gradient of g·v (a scalar),
  which is H·v, without ever building H.

U4 runs on the reference engine; with ``--engine DIR`` it runs on your own engine's holes too.

Check: ``micrograd2 exercise check U4.1``; hints: ``micrograd2 exercise hint U4.1``.
"""
from __future__ import annotations

import math  # noqa: F401 - unused in the stub, needed by a solution
from typing import Any, Callable, Sequence

import micrograd2 as mg

Number = Any  # a float, or a Value while create_graph records the backward


def sin(x: Number) -> Number:
    """sin x: recorded (``x.sin()``) when x is a Value, ``math.sin`` on a float."""
    # BEGIN SOLUTION
    return x.sin() if isinstance(x, mg.Value) else math.sin(x)
    # END SOLUTION


def cos(x: Number) -> Number:
    """cos x: recorded when x is a Value, ``math.cos`` on a float."""
    # BEGIN SOLUTION
    return x.cos() if isinstance(x, mg.Value) else math.cos(x)
    # END SOLUTION


def exp(x: Number) -> Number:
    """eˣ: recorded when x is a Value, ``math.exp`` on a float."""
    # BEGIN SOLUTION
    return x.exp() if isinstance(x, mg.Value) else math.exp(x)
    # END SOLUTION


class XSin(mg.Function):
    """y = x·sin x, one node."""

    @staticmethod
    def forward(ctx: Any, x: float) -> float:
        # BEGIN SOLUTION
        ctx.save_for_backward(x)
        return x * math.sin(x)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad: Number) -> Number:
        # BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad * (sin(x) + x * cos(x))
        # END SOLUTION


class Softplus(mg.Function):
    """y = log(1 + eˣ), one node."""

    @staticmethod
    def forward(ctx: Any, x: float) -> float:
        # BEGIN SOLUTION
        ctx.save_for_backward(x)
        return math.log1p(math.exp(x))
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad: Number) -> Number:
        # BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad / (1 + exp(-x))
        # END SOLUTION


def hvp(f: Callable[..., mg.Value], xs: Sequence[float], vs: Sequence[float]) -> list[float]:
    """H·v: the Hessian of ``f`` (a Value of Values) at ``xs``, times the vector ``vs``, as
    floats, one per input (0.0 where f's gradient does not depend on that input)."""
    # BEGIN SOLUTION
    leaves = [mg.Value(x, requires_grad=True) for x in xs]
    grads = mg.autograd.grad(f(*leaves), leaves, create_graph=True, allow_unused=True)
    terms = [g * v for g, v in zip(grads, vs) if g is not None]  # None: f ignores that input
    along = mg.sum(terms) if terms else None  # g·v: one number, a function of x
    if along is None or along.grad_fn is None:  # f is linear: its gradient is constant, H = 0
        return [0.0 for _ in leaves]
    second = mg.autograd.grad(along, leaves)  # MUTANT: g·v need not depend on every input
    return [0.0 if h is None else float(h) for h in second]
    # END SOLUTION
