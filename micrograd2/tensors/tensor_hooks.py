"""A user's hook on a Tensor (``t.register_hook(hook)``): called with the gradient as a Tensor.

The engine passes a Tensor's gradients along as backend arrays; the hook sees a
Tensor, as in PyTorch, and what it returns goes back as an array.  It may replace
the gradient but not change its shape or dtype (PyTorch's errors).  While a
backward pass is recorded (``create_graph=True``) the gradient is already a Tensor.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..autograd import Variable

if TYPE_CHECKING:
    from .tensor import Tensor


class TensorHook:
    """``hook`` for a Tensor of ``dtype``; ``tensor`` is the Tensor class (this module sits below it)."""

    __slots__ = ("hook", "dtype", "tensor")

    def __init__(self, hook: Any, dtype: str, tensor: type[Tensor]) -> None:
        self.hook, self.dtype, self.tensor = hook, dtype, tensor

    def __call__(self, grad: Any) -> Any:
        if isinstance(grad, Variable):  # create_graph: already a Tensor
            return self._checked(self.hook(grad), grad.shape, grad.dtype)  # type: ignore[attr-defined]
        g = self.tensor._wrap(grad, self.dtype, None)
        out = self._checked(self.hook(g), g.shape, g.dtype)
        return out.data if isinstance(out, self.tensor) else out

    def _checked(self, out: Any, shape: tuple[int, ...], dtype: str) -> Any:
        """A hook may replace the gradient, not change its shape or dtype (PyTorch's errors)."""
        if isinstance(out, self.tensor):
            name = getattr(self.hook, "__name__", "hook")
            if out.shape != shape:
                raise RuntimeError(f"hook '{name}' has changed the size of value\n"
                                   "What to do: return a gradient of the same shape (or None to keep it).")
            if out.dtype != dtype:
                raise RuntimeError(f"hook '{name}' has changed the type of value (was {dtype} got {out.dtype})\n"
                                   f"What to do: return a {dtype} gradient: g.to({dtype!r}).")
        return out
