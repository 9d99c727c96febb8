"""``mg.nn.Parameter``: a Tensor that a ``Module`` lists in ``parameters()`` when it is set as an
attribute (``self.w = mg.nn.Parameter(mg.tensor(...))``), as ``torch.nn.Parameter``.

It shares the Tensor's data and requires grad by default.  What an op makes from it is a plain
Tensor.  (Imported on first use of ``mg.nn.Parameter``: ``import micrograd2.nn`` stays free of NumPy.)
"""
from __future__ import annotations

from typing import Any

from ..tensors import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """``Parameter(data, requires_grad=True)``: ``data`` (a Tensor) as a parameter of a Module."""

    __slots__ = ()

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = Tensor([])
        if not isinstance(data, Tensor):
            raise AttributeError(  # (PyTorch's class: it asks the list for .detach)
                f"'{type(data).__name__}' object has no attribute 'detach'\n"
                "What to do: wrap it first: mg.nn.Parameter(mg.tensor(data))."
            )
        self._fill(data.data, data._backend, data.dtype, None)  # the same memory, as torch
        self._share_version_counter(data)
        self.label = data.label
        if requires_grad:
            self.requires_grad = True

    @classmethod
    def _wrap(cls, data: Any, dtype: Any, grad_fn: Any) -> Tensor:
        return Tensor._wrap(data, dtype, grad_fn)  # what an op makes of a Parameter is a Tensor

    def __repr__(self) -> str:
        return f"Parameter containing:\n{Tensor.__repr__(self)}"
