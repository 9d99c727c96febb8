"""Making Tensors with PyTorch's factory functions: ``tensor(data)``, ``zeros``, ``ones``, ``full``,
their ``*_like`` forms, ``arange``, ``linspace``, ``eye``, and ``rand``/``randn`` with ``manual_seed``.

Shapes, dtypes and keywords are PyTorch's (float32 unless the arguments say otherwise).  Random
numbers come from NumPy's generator, seeded by ``manual_seed``: reproducible here, but not the
numbers PyTorch's generator draws.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..backends import get_backend
from .shapes import shape_arg
from .storage import check_tensor_dtype, storage_dtype
from .tensor import Tensor


def tensor(data: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu") -> Tensor:
    """A new leaf Tensor holding a copy of ``data`` (numbers, nested sequences, a NumPy array, a Tensor).

    ``dtype`` is ``"float32"`` unless asked otherwise (``"float64"``, ``"float16"``, ``"bfloat16"``,
    ``"int64"`` for class indices, ``"bool"``); ``device`` is ``"cpu"`` or ``"cuda"``.
    """
    return Tensor(data, requires_grad=requires_grad, dtype=dtype, device=device)


def zeros(*size: Any, dtype: Any = None, device: Any = "cpu", requires_grad: bool = False) -> Tensor:
    """A Tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``."""
    return full(shape_arg(size), 0.0, dtype=dtype or "float32", device=device, requires_grad=requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = "cpu", requires_grad: bool = False) -> Tensor:
    """A Tensor of ones."""
    return full(shape_arg(size), 1.0, dtype=dtype or "float32", device=device, requires_grad=requires_grad)


def full(size: Sequence[int], fill_value: float, *, dtype: Any = None, device: Any = "cpu",
         requires_grad: bool = False) -> Tensor:
    """A Tensor of ``size`` filled with ``fill_value``; its dtype, unless given, is the value's
    (bool, int64, else float32), as PyTorch's."""
    if dtype is None:
        dtype = "bool" if isinstance(fill_value, bool) else \
            "int64" if isinstance(fill_value, (int, np.integer)) else "float32"
    dtype = check_tensor_dtype(dtype)
    be = get_backend(device)
    t = Tensor._wrap(be.full(tuple(size), fill_value, storage_dtype(dtype)), dtype, None)
    if requires_grad:
        t.requires_grad = True
    return t


def full_like(input: Tensor, fill_value: float, *, dtype: Any = None, device: Any = None,  # noqa: A002
              requires_grad: bool = False) -> Tensor:
    """``full(input.shape, fill_value)`` with input's dtype and device unless given."""
    return full(input.shape, fill_value, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)


def zeros_like(input: Tensor, *, dtype: Any = None, device: Any = None,  # noqa: A002 - PyTorch's
               requires_grad: bool = False) -> Tensor:
    """Zeros of input's shape, dtype and device (a new leaf: input's graph is not followed)."""
    return full_like(input, 0, dtype=dtype, device=device, requires_grad=requires_grad)


def ones_like(input: Tensor, *, dtype: Any = None, device: Any = None,  # noqa: A002 - PyTorch's
              requires_grad: bool = False) -> Tensor:
    """Ones of input's shape, dtype and device."""
    return full_like(input, 1, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_like(input: Tensor, *, dtype: Any = None, device: Any = None,  # noqa: A002 - PyTorch's
               requires_grad: bool = False) -> Tensor:
    """A Tensor of input's shape, dtype and device whose values are not to be read before they are
    written (PyTorch leaves them unset; here they are zeros)."""
    return full_like(input, 0, dtype=dtype, device=device, requires_grad=requires_grad)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = "cpu",
        requires_grad: bool = False) -> Tensor:
    """The ``n`` × ``m`` identity matrix (``m = n`` by default)."""
    rows = np.eye(n, n if m is None else m)
    return tensor(rows, dtype=dtype or "float32", device=device, requires_grad=requires_grad)


def arange(start: float, end: float | None = None, step: float = 1, *, dtype: Any = None,
           device: Any = "cpu", requires_grad: bool = False) -> Tensor:
    """``start, start + step, …`` up to ``end`` (excluded); ``arange(end)`` starts at 0.  int64 when
    every argument is an int, else float32; each value start + k·step is computed in float64."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero\nWhat to do: pass a step other than 0.")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign\n"
                           "What to do: a negative step needs end < start, a positive one start < end.")
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (start, end, step))
        dtype = "int64" if ints else "float32"
    count = math.ceil((end - start) / step)
    values = start + np.arange(count, dtype=np.float64) * step
    return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = "cpu",
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (both included), float32 unless given.
    As PyTorch's CPU kernel: step = (end − start)/(steps − 1) in the dtype; the first half counts up
    from ``start`` (start + step·k), the second down from ``end``, each one fused multiply-add.
    float32 and float64 values are PyTorch's; float16, bfloat16 and int64 ones are rounded from that
    wider arithmetic, where PyTorch's own can end one unit away."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative\nWhat to do: pass steps >= 0.")
    dtype = check_tensor_dtype(dtype or "float32")
    narrow = np.float32 if dtype != "float64" else np.float64  # (int64: a float64 step, as PyTorch)
    a, b = (float(narrow(v)) for v in (start, end))
    if dtype == "int64":
        a, b = float(int(start)), float(int(end))
    k = np.arange(steps, dtype=np.float64)
    if steps <= 1:
        values = np.full(steps, a)
    else:
        step = float(narrow((b - a) / (steps - 1) if narrow is np.float64 else narrow(b - a) / narrow(steps - 1)))
        up, down = _fused(step, k, a), _fused(-step, steps - 1 - k, b)
        values = np.where(k < steps // 2, up, down)
    return tensor(np.trunc(values) if dtype == "int64" else values, dtype=dtype, device=device,
                  requires_grad=requires_grad)


def _fused(a: float, k: Any, c: float) -> Any:
    """a·k + c rounded once, in float64 (a float32 a·k is exact in float64; for float64, Dekker's
    exact product and a two-sum carry the error of a·k and of the sum into the last rounding)."""
    p = a * k
    split = 134217729.0 * a, 134217729.0 * k
    ah, kh = split[0] - (split[0] - a), split[1] - (split[1] - k)
    error = ((ah * kh - p) + ah * (k - kh) + (a - ah) * kh) + (a - ah) * (k - kh)
    s = p + c
    back = s - p
    return s + (((p - (s - back)) + (c - back)) + error)


_generator = np.random.default_rng()


def manual_seed(seed: int) -> np.random.Generator:
    """Seed the generator behind ``rand``, ``randn`` and ``nn.Linear``'s initial weights (NumPy's:
    the same seed gives the same numbers here, not PyTorch's numbers)."""
    global _generator
    _generator = np.random.default_rng(int(seed))
    return _generator


def generator() -> np.random.Generator:
    """The generator ``manual_seed`` last seeded."""
    return _generator


def rand(*size: Any, dtype: Any = None, device: Any = "cpu", requires_grad: bool = False) -> Tensor:
    """Numbers drawn uniformly from [0, 1)."""
    values = _generator.random(shape_arg(size))
    return tensor(values, dtype=dtype or "float32", device=device, requires_grad=requires_grad)


def randn(*size: Any, dtype: Any = None, device: Any = "cpu", requires_grad: bool = False) -> Tensor:
    """Numbers drawn from the standard normal distribution."""
    values = _generator.standard_normal(shape_arg(size))
    return tensor(values, dtype=dtype or "float32", device=device, requires_grad=requires_grad)
