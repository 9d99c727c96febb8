"""How a traced value is kept and shown: one place for floats, ints, arrays and Values alike.

The scalar engine's data are floats; the vectorized engine's are NumPy (or GPU)
arrays.  A trace keeps a *snapshot* of each (``snapshot``): numbers as they are,
a small array as a copy, a large one as an ``ArraySummary`` (shape, dtype,
min, max), so a trace never holds big buffers alive.  ``format_value`` writes any
of them for a lesson, ``to_jsonable`` for JSON.  NumPy is never imported here:
arrays are recognised by their ``shape`` and ``dtype``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

SMALL_ARRAY = 16  # arrays with at most this many elements are copied whole into a trace


@dataclass(frozen=True)
class ArraySummary:
    """What a trace keeps of a large array: its shape, dtype and range (not the numbers)."""

    shape: tuple[int, ...]
    dtype: str
    min: float
    max: float

    def __str__(self) -> str:
        dims = "×".join(str(d) for d in self.shape)
        return f"<{dims} {self.dtype} in [{format_value(self.min)}, {format_value(self.max)}]>"


def _is_array(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (int, float))


def _host_array(x: Any) -> Any:
    """A NumPy view of ``x`` (GPU arrays are copied to the host with ``.get()``)."""
    if hasattr(x, "get") and not hasattr(x, "__array__"):
        return x.get()
    return x


def snapshot(x: Any) -> Any:
    """A copy of ``x`` safe to keep in a trace: a number, a small array, or an ``ArraySummary``.

    Values and Tensors (anything with ``.data``) are replaced by their data.
    """
    if x is None or isinstance(x, (bool, int, float, str, ArraySummary)):
        return x
    if hasattr(x, "data") and hasattr(x, "grad_fn"):  # a Value or a Tensor
        return snapshot(x.data)
    if _is_array(x):
        a = _host_array(x)
        if a.shape == ():
            return a.item()
        if a.size <= SMALL_ARRAY:
            return a.copy()
        return ArraySummary(tuple(int(d) for d in a.shape), str(a.dtype), float(a.min()), float(a.max()))
    if isinstance(x, (tuple, list)):
        return tuple(snapshot(item) for item in x)
    try:  # numbers.Real from elsewhere (NumPy scalars, Fractions)
        return float(x)
    except (TypeError, ValueError):
        return repr(x)


def format_value(x: Any, digits: int = 6) -> str:
    """``x`` as a lesson shows it: ``23.0``, ``0.333333``, ``[4.0, 5.0]``, ``<100×10 float32 in [-1.0, 1.0]>``.

    Accepts floats, ints, arrays (small or summarized), ``ArraySummary`` and
    anything with ``.data`` (Values and Tensors); ``None`` is written ``None``.
    """
    if x is None or isinstance(x, (bool, str)):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return _format_float(x, digits)
    if isinstance(x, ArraySummary):
        return str(x)
    if hasattr(x, "data") and hasattr(x, "grad_fn"):
        return format_value(x.data, digits)
    if _is_array(x):
        s = snapshot(x)
        if isinstance(s, ArraySummary):
            return str(s)
        if not _is_array(s):
            return format_value(s, digits)
        return _format_nested(s.tolist(), digits)
    if isinstance(x, (tuple, list)):
        return _format_nested(list(x), digits)
    return str(x)


def _format_float(x: float, digits: int) -> str:
    if math.isnan(x) or math.isinf(x):
        return repr(x)
    short = repr(x)
    if len(short) <= digits + 4:
        return short
    text = f"{x:.{digits}g}"
    return text if any(c in text for c in ".einf") else text + ".0"


def _format_nested(items: list[Any], digits: int) -> str:
    parts = [_format_nested(i, digits) if isinstance(i, list) else format_value(i, digits) for i in items]
    return "[" + ", ".join(parts) + "]"


def to_jsonable(x: Any) -> Any:
    """``x`` as JSON data: numbers as numbers (``"inf"``, ``"-inf"``, ``"nan"`` as strings,
    since JSON has no such numbers), small arrays as lists, large ones as a summary object."""
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else repr(x)
    if isinstance(x, ArraySummary):
        return {"shape": list(x.shape), "dtype": x.dtype, "min": to_jsonable(x.min), "max": to_jsonable(x.max)}
    if isinstance(x, (tuple, list)):
        return [to_jsonable(i) for i in x]
    s = snapshot(x)
    if _is_array(s):
        return to_jsonable(s.tolist())
    if s is x:
        return repr(x)
    return to_jsonable(s)
