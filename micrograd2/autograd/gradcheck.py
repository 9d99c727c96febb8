"""``gradcheck``: compare a function's analytic gradients with central differences.

For each input ``xᵢ`` (each element of a Tensor): numerical ``(f(xᵢ+ε) − f(xᵢ−ε)) / 2ε`` against the analytic
gradient from one backward pass; a mismatch beyond ``atol + rtol·|numerical|``
raises :class:`GradcheckError` naming the input and both numbers.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

from . import grad_mode
from .engine import run_backward


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytic and numerical gradients disagree."""


def gradcheck(fn: Callable[..., Any], inputs: Any, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True) -> bool:
    """True if ``fn``'s backward matches central differences at ``inputs``, else raise.

    ``fn`` takes the inputs (Values or Tensors) and returns one Value (or a one-element
    Tensor); a Tensor input is checked element by element.  A ``Function`` subclass
    may be passed for ``fn`` (its ``apply`` is used).  Inputs that do not require
    grad are held fixed.
    """
    call = getattr(fn, "apply", fn)
    xs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    wrt = [i for i, x in enumerate(xs) if getattr(x, "requires_grad", False)]
    for i in wrt:
        if getattr(xs[i], "dtype", "float64") != "float64":
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are not of double precision floating point "
                "or complex.",
                UserWarning,
                stacklevel=2,
            )
    out = call(*xs)
    analytic = run_backward((out,), (out._seed(None),), inputs=tuple(xs[i] for i in wrt), allow_unused=True)
    assert analytic is not None
    for i, a in zip(wrt, analytic):
        for k, a_val in enumerate(_entries(a, xs[i])):  # a Value has one entry; a Tensor, one per element
            numeric = _central_difference(call, xs, i, k, eps)
            if abs(a_val - numeric) > atol + rtol * abs(numeric):
                if not raise_exception:
                    return False
                label = f" ({xs[i].label})" if getattr(xs[i], "label", None) else ""
                element = f", element {k}" if _size(xs[i]) > 1 else ""
                raise GradcheckError(
                    f"Jacobian mismatch for output 0 with respect to input {i}{label}{element},\n"
                    f"numerical: {numeric!r}\nanalytical: {a_val!r}\n"
                    "What to do: check the backward formula of the op that uses this input."
                )
    return True


def _size(x: Any) -> int:
    """How many numbers ``x`` holds: 1 for a Value, ``numel()`` for a Tensor."""
    return int(x.numel()) if hasattr(x, "numel") else 1


def _entries(g: Any, x: Any) -> list[float]:
    """The analytic gradient with respect to ``x`` as a flat list of floats (zeros if unused)."""
    if g is None:
        return [0.0] * _size(x)
    if not hasattr(g, "tolist"):
        return [float(getattr(g, "data", g))]
    flat, stack = [], [g.tolist()]
    while stack:  # flatten the nested lists, in order
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        else:
            flat.append(float(item))
    return flat


def _nudged(x: Any, k: int, delta: float) -> Any:
    """A copy of ``x`` outside the graph with its ``k``-th entry (row-major) moved by ``delta``."""
    if not hasattr(x, "shape"):
        return x._wrap(x.data + delta, x.dtype, None)
    y = x.detach().clone()
    index = []
    for n in reversed(y.shape):
        k, r = divmod(k, n)
        index.append(r)
    where = tuple(reversed(index))
    y[where] = y[where].item() + delta
    return y


def _central_difference(call: Callable[..., Any], xs: Sequence[Any], i: int, k: int, eps: float) -> float:
    """(f(x + ε) − f(x − ε)) / 2ε with respect to entry ``k`` of input ``i``, the rest fixed."""
    with grad_mode.no_grad():
        plus = [*xs]
        minus = [*xs]
        plus[i] = _nudged(xs[i], k, eps)
        minus[i] = _nudged(xs[i], k, -eps)
        return (float(call(*plus).item()) - float(call(*minus).item())) / (2 * eps)
