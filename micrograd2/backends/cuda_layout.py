"""The CUDA backend's index arithmetic: strides, broadcasting, axes and flat positions, on the host.

The kernels walk arrays by element strides; these helpers work out the strides and shapes they are
given (pure Python and NumPy, so the tests check them without a GPU).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

try:  # a dependency of micrograd2; but cuda_status() must still run, and say so, without it
    import numpy as np
except ModuleNotFoundError:  # pragma: no cover
    np = None  # type: ignore[assignment]

from micrograd2.backends.base import Shape

FLOATS = ("float32", "float64")


# ---------------------------------------------------------------------------------------------------
# Shapes, strides, layouts
# ---------------------------------------------------------------------------------------------------


def _contiguous_strides(shape: Shape) -> Shape:
    """Element strides of a C-contiguous array."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _broadcast_strides(shape: Shape, out_shape: Shape) -> Shape:
    """Strides that read a contiguous array of ``shape`` as ``out_shape`` (0 on broadcast axes)."""
    lead = len(out_shape) - len(shape)
    own = _contiguous_strides(shape)
    return (0,) * lead + tuple(0 if n == 1 else s for n, s in zip(shape, own))


def _coalesce(shape: Shape, strides: Sequence[Shape]) -> tuple[list[int], list[list[int]]]:
    """Drop axes of size 1 and merge neighbours that every operand walks contiguously: fewer axes, so
    fewer divisions per element (a same-shape elementwise op becomes 1-D)."""
    dims: list[int] = []
    merged: list[list[int]] = [[] for _ in strides]
    for d, n in enumerate(shape):
        if n == 1:
            continue
        if dims and all(m[-1] == s[d] * n for m, s in zip(merged, strides)):
            dims[-1] *= n
            for m, s in zip(merged, strides):
                m[-1] = s[d]
        else:
            dims.append(n)
            for m, s in zip(merged, strides):
                m.append(s[d])
    if not dims:
        return [1], [[0] for _ in strides]
    return dims, merged


def _normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, int or tuple, negatives allowed) as sorted non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    normalized = sorted({_normalize_axis(a, ndim) for a in axes})
    if len(normalized) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(normalized)


def _normalize_axis(axis: int, ndim: int) -> int:
    """``axis`` in ``range(ndim)`` (negatives count from the end), or NumPy's error."""
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _runs(axes: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted axes as runs of consecutive ones: ``(0, 1, 3)`` -> ``[(0, 2), (3, 4)]``."""
    runs: list[tuple[int, int]] = []
    for a in axes:
        if runs and runs[-1][1] == a:
            runs[-1] = (runs[-1][0], a + 1)
        else:
            runs.append((a, a + 1))
    return runs


def _resolve_shape(size: int, shape: Sequence[int] | int) -> Shape:
    """``shape`` with its ``-1`` (if any) replaced so that it holds ``size`` elements, as NumPy does."""
    dims = (int(shape),) if isinstance(shape, int) else tuple(int(n) for n in shape)
    known = math.prod(n for n in dims if n != -1)
    if dims.count(-1) == 1 and known and size % known == 0:
        dims = tuple(size // known if n == -1 else n for n in dims)
    if -1 in dims or math.prod(dims) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {dims}")
    return dims


def _flat_positions(shape: Shape, index: Any) -> Any:
    """The flat position (in a C-contiguous array of ``shape``) of each element that ``x[index]`` picks,
    shaped as ``x[index]``.  NumPy does the indexing itself, on one zero-memory array per axis holding
    that axis's coordinate, so every index NumPy accepts works, with NumPy's rules and errors."""
    flat = np.broadcast_to(np.int64(0), shape)[index]
    for axis, (n, stride) in enumerate(zip(shape, _contiguous_strides(shape))):
        steps = [8 if d == axis else 0 for d in range(len(shape))]
        coordinate = np.lib.stride_tricks.as_strided(np.arange(n, dtype=np.int64), shape, steps)
        flat = flat + coordinate[index] * stride
    return np.asarray(flat, dtype=np.int64, order="C")


def _is_number(value: Any) -> bool:
    """A Python or NumPy scalar (it stands for an operand of any shape)."""
    return isinstance(value, (int, float, bool, np.number, np.bool_))


def _op_code(codes: dict[str, int], op: str) -> int:
    """The kernels' code for ``op``, or a ``ValueError`` listing the ops there are."""
    if op not in codes:
        raise ValueError(f"unknown op {op!r}: expected one of {', '.join(codes)}")
    return codes[op]


def _compute_dtype(dtype: str) -> str:
    """The dtype the kernels run in for data of ``dtype``: itself if float, else float64."""
    return dtype if dtype in FLOATS else "float64"
