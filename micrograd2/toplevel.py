"""PyTorch's functions at the top level: ``mg.exp(x)``, ``mg.cat([a, b])``, ``mg.where(c, x, y)``…

Each is the method of its input under the same name (``mg.exp(x)`` is ``x.exp()``: the
same node), as ``torch.exp(x)`` is ``x.exp()``; ``cat`` and ``stack`` join a list of
Tensors.  A Value has the functions of one number (``exp``, ``log``, ``tanh``,
``sigmoid``, ``relu``); the others take Tensors.  Pure Python: the Tensor engine
(and NumPy) is imported only when a function is handed a list of Tensors to join.
"""
from __future__ import annotations

from typing import Any, Callable

from .autograd import Variable

__all__ = ["cat", "clamp", "exp", "log", "log_softmax", "matmul", "maximum", "minimum", "relu", "sigmoid",
           "softmax", "stack", "tanh", "where"]


def _method(name: str, position: str = "input") -> Callable[..., Any]:
    """``mg.<name>(x, *args)``: ``x.<name>(*args)``, for a Value or a Tensor that has the method."""

    def function(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 - PyTorch's name
        bound = getattr(input, name, None) if isinstance(input, Variable) else None
        if bound is None:
            raise TypeError(f"{name}(): argument '{position}' (position 1) must be Tensor, not "
                            f"{type(input).__name__}\nWhat to do: pass a Tensor (mg.tensor(...))"
                            f"{'' if isinstance(input, Variable) else ' or a Value'}.")
        return bound(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``mg.{name}(x, ...)`` is ``x.{name}(...)``, as ``torch.{name}``."
    return function


exp, log, tanh, sigmoid, relu = (_method(n) for n in ("exp", "log", "tanh", "sigmoid", "relu"))
softmax, log_softmax, clamp = _method("softmax"), _method("log_softmax"), _method("clamp")
maximum, minimum, matmul = _method("maximum"), _method("minimum"), _method("matmul")


def where(condition: Any, input: Any, other: Any) -> Any:  # noqa: A002 - PyTorch's name
    """``input`` where the bool Tensor ``condition`` holds, else ``other`` (Tensors or numbers): one
    ``WhereBackward0`` node, as ``torch.where``."""
    if not isinstance(condition, Variable) or not hasattr(condition, "shape"):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}\n"
                        "What to do: pass a bool Tensor, e.g. x > 0.")
    from .tensors.selection import where_of

    return where_of(condition, input, other)


def cat(tensors: Any, dim: int = 0) -> Any:
    """The Tensors joined along the axis ``dim`` (``CatBackward0``), as ``torch.cat``."""
    from .tensors.joining import cat as join

    return join(tensors, dim)


def stack(tensors: Any, dim: int = 0) -> Any:
    """The Tensors (of one shape) stacked along a new axis ``dim`` (``StackBackward0``), as ``torch.stack``."""
    from .tensors.joining import stack as join

    return join(tensors, dim)
