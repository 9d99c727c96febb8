"""``gradcheck`` and ``gradgradcheck``: compare a function's derivatives with central differences.

For every output element and every input element that requires grad, the numerical derivative
``(f(x + ε) − f(x − ε)) / 2ε`` is compared with the analytic one from a backward pass. They agree
when ``|analytic − numerical| ≤ atol + rtol·|numerical|``, as ``torch.allclose``: a NaN never
agrees, an infinity only with the same infinity. A disagreement raises :class:`GradcheckError`.
It names the output, the input (position, label, element) and both numbers.

``gradgradcheck`` checks second derivatives. It runs ``gradcheck`` on ``x ↦ ∂⟨f(x), v⟩/∂x``, the
first derivatives built with ``create_graph=True``.
"""
from __future__ import annotations

import random
import warnings
from typing import Any, Callable, Protocol, Sequence, cast

from .protocol import Gradient
from .variable import Variable


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytic and numerical gradients disagree."""


def gradcheck(fn: Callable[..., object], inputs: object, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True) -> bool:
    """True if ``fn``'s backward matches central differences at ``inputs``; else raise (or return
    False).

    ``fn`` takes the inputs (Values or Tensors). It returns a Value, a Tensor of any shape, or a
    tuple of them (PyTorch's outputs). A ``Function`` subclass may be passed for ``fn``: its
    ``apply`` is used. Inputs that do not require grad are held fixed. At least one must require
    grad (else ``ValueError``).
    """
    call = getattr(fn, "apply", fn)
    xs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(xs) if isinstance(x, Variable) and x.requires_grad]
    if not wrt:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of the them have requires_grad=True.\n"
            "What to do: create the inputs to check with requires_grad=True."
        )
    for i in wrt:
        if xs[i].dtype != "float64":
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex.",
                UserWarning,
                stacklevel=2,
            )
    outputs = [o for o in _as_tuple(call(*xs)) if isinstance(o, Variable)]
    numerical = _numerical_jacobians(call, xs, wrt, eps)
    for k, out in enumerate(outputs):
        analytic = _analytic_jacobian(out, [xs[i] for i in wrt])
        for column, i in enumerate(wrt):
            for e, a_row in enumerate(analytic[column]):
                for j, a in enumerate(a_row):
                    n = numerical[column][e][k][j]
                    if a == n or abs(a - n) <= atol + rtol * abs(n):
                        continue
                    if not raise_exception:
                        return False
                    raise GradcheckError(_mismatch(k, i, xs[i], e, j, len(a_row), n, a))
    return True


def gradgradcheck(fn: Callable[..., object], inputs: object, grad_outputs: object = None,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  raise_exception: bool = True) -> bool:
    """Check second derivatives: ``gradcheck`` of the first derivatives ∂⟨f(x), v⟩/∂x.

    ``v`` is ``grad_outputs`` (one per output), or fixed pseudo-random numbers in [−1, 1]
    (PyTorch draws random ones). The first derivatives are taken with ``create_graph=True``. So
    this checks the backward of every backward that ``fn`` runs.
    """
    from . import grad  # the public autograd.grad (the package's __init__ imports this module)

    call = getattr(fn, "apply", fn)
    xs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = random.Random(0)
        grad_outputs = tuple(_filled(o, rng) for o in _as_tuple(call(*xs))
                             if isinstance(o, Variable))
    vs = _as_tuple(grad_outputs)

    def first_derivatives(*args: object) -> tuple[Gradient, ...]:
        ys = [y for y in _as_tuple(call(*args)) if isinstance(y, Variable)]
        pairs = [(y, v) for y, v in zip(ys, vs) if y.requires_grad]
        wrt = [a for a in args if isinstance(a, Variable) and a.requires_grad]
        grads = grad([y for y, _ in pairs], wrt, grad_outputs=[v for _, v in pairs],
                     create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, xs, eps, atol, rtol, raise_exception)


# -- the two Jacobians ---------------------------------------------------------------------------
def _analytic_jacobian(out: Variable, xs: Sequence[Variable]) -> list[list[list[float]]]:
    """``[input][input element][output element]``: one backward pass per output element."""
    from . import grad

    size = _size(out)
    jac = [[[0.0] * size for _ in range(_size(x))] for x in xs]
    if not out.requires_grad:
        return jac  # the output does not depend on the inputs through the graph: zeros, as PyTorch
    for j in range(size):
        grads = grad(out, xs, grad_outputs=_one_hot(out, j), retain_graph=True, allow_unused=True)
        for column, (g, x) in enumerate(zip(grads, xs)):
            for e, value in enumerate(_entries(g, x)):
                jac[column][e][j] = value
    return jac


def _numerical_jacobians(call: Callable[..., object], xs: Sequence[Variable], wrt: Sequence[int],
                         eps: float) -> list[list[list[list[float]]]]:
    """``[input][input element][output][output element]`` by central differences.

    The other inputs are held fixed."""
    jac = []
    for i in wrt:
        rows = []
        for e in range(_size(xs[i])):
            plus, minus = list(xs), list(xs)
            plus[i], minus[i] = _nudged(xs[i], e, eps), _nudged(xs[i], e, -eps)
            f_plus, f_minus = _flat_outputs(call(*plus)), _flat_outputs(call(*minus))
            rows.append([[(p - m) / (2 * eps) for p, m in zip(po, mo)]
                         for po, mo in zip(f_plus, f_minus)])
        jac.append(rows)
    return jac


def _mismatch(k: int, i: int, x: Variable, e: int, j: int, out_size: int, numerical: float,
              analytic: float) -> str:
    label = f" ({x.label})" if getattr(x, "label", None) else ""
    element = f", element {e}" if _size(x) > 1 else ""
    output_element = f" (output element {j})" if out_size > 1 else ""
    return (
        f"Jacobian mismatch for output {k} "
        f"with respect to input {i}{label}{element}{output_element},\n"
        f"numerical: {numerical!r}\nanalytical: {analytic!r}\n"
        "What to do: check the backward formula of the op that uses this input "
        "(a nan or inf gradient never matches)."
    )


# -- helpers on Values and Tensors alike ----------------------------------------------------------
class _Tensor(Protocol):
    """What these helpers ask of a Tensor (a Value is one number and has none of it)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    def detach(self) -> _Tensor: ...

    def clone(self) -> _Tensor: ...

    def zero_(self) -> _Tensor: ...

    def __setitem__(self, index: tuple[int, ...], value: float) -> None: ...


def _as_tuple(x: object) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _size(x: object) -> int:
    """How many numbers ``x`` holds: 1 for a Value, ``numel()`` for a Tensor."""
    return int(x.numel()) if hasattr(x, "numel") else 1


def _entries(g: Any, x: object) -> list[float]:
    """A gradient (or an output) as a flat, row-major list of floats.

    A missing gradient gives zeros."""
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


def _flat_outputs(outputs: object) -> list[list[float]]:
    return [_entries(o, o) for o in _as_tuple(outputs) if isinstance(o, Variable)]


def _position(shape: Sequence[int], k: int) -> tuple[int, ...]:
    """The index of the ``k``-th element (row-major) of an array of ``shape``."""
    index = []
    for n in reversed(shape):
        k, r = divmod(k, n)
        index.append(r)
    return tuple(reversed(index))


def _set(x: Variable, k: int, value: float) -> Variable:
    """A fresh copy of ``x`` outside the graph, its ``k``-th entry set to ``value`` (a new leaf)."""
    if not hasattr(x, "shape"):
        return x._wrap(value, x.dtype, None)
    y = cast(_Tensor, x).detach().clone()
    y[_position(y.shape, k)] = value
    return cast(Variable, y)


def _nudged(x: Variable, k: int, delta: float) -> Variable:
    """``x`` with entry ``k`` moved by ``delta``: a new leaf that requires grad if ``x`` does."""
    y = _set(x, k, _entries(x, x)[k] + delta)
    return y.requires_grad_(True) if x.requires_grad else y


def _one_hot(out: Variable, j: int) -> Gradient:
    """A seed of ``out``'s shape: 1 at element ``j``, 0 elsewhere."""
    if not hasattr(out, "shape"):
        return 1.0
    seed = cast(_Tensor, out).detach().clone().zero_()
    seed[_position(seed.shape, j)] = 1.0
    return cast(Variable, seed)


def _filled(out: Variable, rng: random.Random) -> Variable:
    """A Value or Tensor like ``out`` (no grad) of pseudo-random numbers in [−1, 1]."""
    if not hasattr(out, "shape"):
        return out._wrap(rng.uniform(-1.0, 1.0), out.dtype, None)
    v = cast(_Tensor, out).detach().clone()
    for k in range(_size(v)):
        v[_position(v.shape, k)] = rng.uniform(-1.0, 1.0)
    return cast(Variable, v)
