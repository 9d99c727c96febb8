"""A user's hook on a Tensor (``t.register_hook(hook)``): called with the gradient, a Tensor.

The walk carries a Tensor graph's gradients as Tensors, so the hook sees what PyTorch's sees, and
what it returns replaces the gradient.  It may not change the gradient's shape or dtype (PyTorch's
errors).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..autograd import hooks

if TYPE_CHECKING:
    from .tensor import Tensor


class TensorHook:
    """``hook`` for a Tensor; ``tensor`` is the Tensor class (this module sits below it)."""

    __slots__ = ("hook", "tensor")

    def __init__(self, hook: Callable[[Tensor], Any], tensor: type[Tensor]) -> None:
        self.hook, self.tensor = hook, tensor

    def __call__(self, grad: Tensor) -> Any:
        out = self.hook(grad)
        if isinstance(out, self.tensor):  # (a gradient of None: no gradient arrived)
            hooks.check_same_value(self.hook, out, grad)
        return out
