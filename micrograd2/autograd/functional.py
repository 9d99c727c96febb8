"""``mg.autograd.functional.jacobian``: every first derivative of a function at a point, as
``torch.autograd.functional.jacobian`` computes them (reverse mode, one backward pass per output
element, no recursion).

It works for functions of Values and of Tensors alike: it asks a Variable for what each engine
has (``detach``, ``reshape``, ``unbind``), and stacks a Tensor output's rows with its engine's
``_stack``, so it imports no engine.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Protocol, cast

from . import grad_mode
from .protocol import Gradient
from .variable import Variable

__all__ = ["jacobian"]

class _Tensor(Protocol):
    """What ``jacobian`` asks of a Tensor (a Value has no shape: it is its own only element)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def device(self) -> str: ...

    def reshape(self, *shape: int) -> _Tensor: ...

    def unbind(self, dim: int) -> tuple[Variable, ...]: ...

    @classmethod
    def _stack(cls, tensors: list[_Tensor], dim: int) -> _Tensor: ...


def jacobian(func: Callable[..., object], inputs: Variable | tuple[Variable, ...],
             create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs`` (a Variable or a tuple of them).

    For one input and one output: a Variable of shape ``output.shape + input.shape``.  For tuples:
    a tuple per output (of one entry per input), as PyTorch.  ``create_graph=True`` records it, for
    higher derivatives; ``strict=True`` refuses an output that does not depend on an input.
    ``vectorize`` and ``strategy`` are PyTorch's; only reverse mode is computed here. (Typed
    ``Any``: Variables of the engine's kind, nested as said, which a caller reads as such.)"""
    if strategy != "reverse-mode":
        raise ValueError("Expected strategy to be either \"forward-mode\" or \"reverse-mode\". "
                         "Only reverse-mode is available here.\n"
                         "What to do: leave strategy at its default.")
    several_in = isinstance(inputs, tuple)
    xs = tuple(_prepared(x, create_graph) for x in (inputs if isinstance(inputs, tuple)
                                                    else (inputs,)))
    with grad_mode.enable_grad():
        outputs = func(*xs)
    several_out = isinstance(outputs, tuple)
    ys = outputs if isinstance(outputs, tuple) else (outputs,)
    blocks = tuple(tuple(_block(i, y, j, x, columns, strict)
                         for j, (x, columns) in enumerate(zip(xs, _columns(y, xs, create_graph))))
                   for i, y in enumerate(ys))
    if several_out and several_in:
        return blocks
    if several_out:
        return tuple(row[0] for row in blocks)
    return blocks[0] if several_in else blocks[0][0]


def _prepared(x: object, create_graph: bool) -> Variable:
    """An input as ``func`` receives it: itself when the Jacobian is recorded (the graph then
    reaches it); else a new leaf sharing its data, which requires grad (PyTorch's
    ``_grad_preprocess``)."""
    if not isinstance(x, Variable):
        raise TypeError("The inputs given to jacobian must be either a Tensor or a tuple of "
                        f"Tensors but the value at index 0 has type {type(x).__name__}.\n"
                        "What to do: pass a Value, a Tensor, or a tuple of them.")
    if create_graph and x.requires_grad:
        return x
    leaf = x.detach()
    leaf.requires_grad = True
    return leaf


def _elements(y: object) -> list[object]:
    """The output's elements, each a Variable of one number (a Value is its own)."""
    if not getattr(y, "shape", ()):
        return [y]
    return list(cast(_Tensor, y).reshape(-1).unbind(0))


def _columns(y: object, xs: tuple[Variable, ...], create_graph: bool,
             ) -> list[list[Gradient | None]]:
    """For each input, the gradient of each element of ``y`` (None where it does not depend on it):
    one backward pass per element."""
    from . import grad  # (the package's grad: this module is imported by it)

    per_input: list[list[Gradient | None]] = [[] for _ in xs]
    for e in _elements(y):
        grads: tuple[Gradient | None, ...] = (None,) * len(xs)
        if isinstance(e, Variable) and e.requires_grad:
            grads = grad(e, xs, retain_graph=True, create_graph=create_graph, allow_unused=True)
        for column, g in zip(per_input, grads):
            column.append(g)
    return per_input


def _block(i: int, y: object, j: int, x: Variable, grads: list[Gradient | None],
           strict: bool) -> Variable:
    """∂y/∂x as one Variable of shape ``y.shape + x.shape``, from each element's gradient."""
    if strict and any(g is None for g in grads):
        raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                           "This is not allowed in strict mode.\n"
                           "What to do: pass strict=False to get zeros there.")
    shape = tuple(getattr(x, "shape", ()))
    rows = [_as_variable(g, x) for g in grads]
    if not getattr(y, "shape", ()):
        return rows[0]
    # the rows stacked, as PyTorch (a sum of one-hot products would turn 0·inf into nan)
    tensors = [cast(_Tensor, row) for row in rows]
    stacked = type(tensors[0])._stack([row.reshape(*shape) for row in tensors], 0)
    return cast(Variable, stacked.reshape(*cast(_Tensor, y).shape, *shape))


def _as_variable(g: Gradient | None, x: Variable) -> Variable:
    """A gradient as a Variable of x's engine: zeros where there is none."""
    if isinstance(g, Variable):
        return g
    kind = type(x)
    if not hasattr(x, "shape"):  # a Value (made as the engine makes its results)
        return kind._wrap(0.0 if g is None else float(g), x.dtype, None)
    tensor = cast(_Tensor, x)
    make = cast(Callable[..., _Tensor], kind)  # Tensor(data, dtype=, device=)
    if g is None:
        zeros = make([0.0] * math.prod(tensor.shape), dtype=x.dtype, device=tensor.device)
        return cast(Variable, zeros.reshape(*tensor.shape))
    return cast(Variable, make(g, dtype=x.dtype, device=tensor.device))
