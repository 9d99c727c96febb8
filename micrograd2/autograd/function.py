"""``Function``: an op with a ``forward`` and a ``backward``; and ``once_differentiable``.

Every op of micrograd2, built-in or yours, is a ``Function`` subclass::

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):           # plain numbers (arrays for Tensors)
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):          # one gradient per forward input
            a, b = ctx.saved_tensors
            return grad * b, grad * a

``Mul.apply(x, y)`` unwraps the inputs, runs ``forward``, wraps the result in
the inputs' kind (``Value`` or ``Tensor``) and, when grad mode is on and an input
requires grad, gives it a ``grad_fn``: a node of class ``MulBackward0``, which is
the very ``ctx`` that ``forward`` filled in.  ``Function``, its node class and
``apply`` are in ``engine.py`` (the one file of the recording and the walk); this
module gives them under their usual names and adds ``once_differentiable``.
"""
from __future__ import annotations

import functools
from typing import Any

from . import grad_mode
from .display import INPUT, OTHER, OUTPUT
from .engine import BackwardNode, Function, SavedOutput, SavedVariable, _encode, remember
from .messages import SECOND_BACKWARD
from .variable import Variable

__all__ = ["INPUT", "OTHER", "OUTPUT", "SECOND_BACKWARD", "BackwardNode", "Function", "SavedOutput",
           "SavedVariable", "_encode", "once_differentiable", "remember"]


# -- once_differentiable -------------------------------------------------------------------------------------
ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(backward: Any) -> Any:
    """Mark a custom Function's ``backward`` as not differentiable itself (PyTorch's
    ``torch.autograd.function.once_differentiable``).

    It then runs under ``no_grad`` on plain gradients.  When a recorded backward pass hands it gradients
    that require grad, its results are tied to a node (PyTorch's ``Error``) whose own backward raises
    ``RuntimeError``: differentiating through it a second time is refused instead of silently wrong.
    """
    @functools.wraps(backward)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with grad_mode.no_grad():
            outputs = backward(ctx, *(g.detach() if isinstance(g, Variable) else g for g in grads))  # type: ignore[attr-defined]
        tracked = [g for g in grads if isinstance(g, Variable) and g.requires_grad]
        if not grad_mode.is_grad_enabled() or not tracked:
            return outputs
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs
        marked = tuple(o if o is None else _DelayedError.apply(o, *tracked) for o in results)
        return marked[0] if single else marked

    return wrapper


class _DelayedError(Function):
    """The node once_differentiable ties its results to: the value passes, backward raises."""

    node_name = "Error"

    @staticmethod
    def forward(ctx, value, *tracked):
        return value

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ONCE + "\nWhat to do: write a backward that is itself differentiable (ordinary "
                           "arithmetic on its inputs), or don't take a second derivative through it.")
