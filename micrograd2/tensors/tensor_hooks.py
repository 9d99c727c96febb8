"""A user's hook on a Tensor (``t.register_hook(hook)``): called with the gradient, a Tensor.

The walk carries a Tensor graph's gradients as Tensors, so the hook sees what PyTorch's sees, and
what it returns replaces the gradient.  It may not change the gradient's shape or dtype (PyTorch's
errors).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .tensor import Tensor


class TensorHook:
    """``hook`` for a Tensor; ``tensor`` is the Tensor class (this module sits below it)."""

    __slots__ = ("hook", "tensor")

    def __init__(self, hook: Callable[[Tensor], Any], tensor: type[Tensor]) -> None:
        self.hook, self.tensor = hook, tensor

    def __call__(self, grad: Tensor) -> Any:
        out = self.hook(grad)
        if isinstance(out, self.tensor) and grad is not None:  # (None: no gradient arrived)
            name = getattr(self.hook, "__name__", "hook")
            if out.shape != grad.shape:
                raise RuntimeError(f"hook '{name}' has changed the size of value\n"
                                   "What to do: return a gradient of the same shape (or None to keep it).")
            if out.dtype != grad.dtype:
                raise RuntimeError(f"hook '{name}' has changed the type of value (was {grad.dtype} got "
                                   f"{out.dtype})\nWhat to do: return a {grad.dtype} gradient: "
                                   f"g.to({grad.dtype!r}).")
        return out
