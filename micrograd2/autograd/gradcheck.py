"""``gradcheck``: compare a function's analytic gradients with central differences.

For each input ``xᵢ``: numerical ``(f(xᵢ+ε) − f(xᵢ−ε)) / 2ε`` against the analytic
gradient from one backward pass; a mismatch beyond ``atol + rtol·|numerical|``
raises :class:`GradcheckError` naming the input and both numbers.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from . import grad_mode
from .engine import run_backward


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytic and numerical gradients disagree."""


def gradcheck(fn: Callable[..., Any], inputs: Any, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True) -> bool:
    """True if ``fn``'s backward matches central differences at ``inputs``, else raise.

    ``fn`` takes the inputs (Values) and returns one Value.  A ``Function``
    subclass may be passed for ``fn`` (its ``apply`` is used).  Inputs that do
    not require grad are held fixed.
    """
    call = getattr(fn, "apply", fn)
    xs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    wrt = [i for i, x in enumerate(xs) if getattr(x, "requires_grad", False)]
    out = call(*xs)
    analytic = run_backward((out,), (out._seed(None),), inputs=tuple(xs[i] for i in wrt), allow_unused=True)
    assert analytic is not None
    for i, a in zip(wrt, analytic):
        numeric = _central_difference(call, xs, i, eps)
        a_val = 0.0 if a is None else float(getattr(a, "data", a))
        if abs(a_val - numeric) > atol + rtol * abs(numeric):
            if not raise_exception:
                return False
            label = f" ({xs[i].label})" if getattr(xs[i], "label", None) else ""
            raise GradcheckError(
                f"Jacobian mismatch for output 0 with respect to input {i}{label},\n"
                f"numerical: {numeric!r}\nanalytical: {a_val!r}\n"
                "What to do: check the backward formula of the op that uses this input."
            )
    return True


def _central_difference(call: Callable[..., Any], xs: Sequence[Any], i: int, eps: float) -> float:
    """(f(x + ε) − f(x − ε)) / 2ε with respect to input ``i``, the others fixed."""
    with grad_mode.no_grad():
        x = xs[i]
        plus = [*xs]
        minus = [*xs]
        plus[i] = x._wrap(x.data + eps, x.dtype, None)
        minus[i] = x._wrap(x.data - eps, x.dtype, None)
        return (float(call(*plus).data) - float(call(*minus).data)) / (2 * eps)
