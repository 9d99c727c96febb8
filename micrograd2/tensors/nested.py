"""What ``tensor(data)`` refuses, with PyTorch's errors: ``None``, strings, ragged nested lists, other objects.

``Tensor(data)`` hands the data to the array backend first; only when that fails,
or when the data is ``None`` (which NumPy would read as nan), does ``refusal`` walk
the nested lists to say what is wrong, in PyTorch's words and exception classes:
``RuntimeError`` for an object with no dtype (``None``, a dict), ``TypeError`` for a
string, ``ValueError`` for a list of the wrong length.  A ``None`` inside lists (which NumPy also
reads as nan) is looked for only when the array holds a nan (``holds_none``).
"""
from __future__ import annotations

import numbers
from typing import Any, Callable

import numpy as np

HINT = "What to do: pass numbers or nested lists of one shape, e.g. [[1.0, 2.0], [3.0, 4.0]]."


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (list, tuple)) or hasattr(x, "__array__") and getattr(x, "ndim", 0) > 0


def _infer_shape(data: Any) -> list[int]:
    """The shape PyTorch infers: the length at each level, following the first element down."""
    shape = []
    while _is_sequence(data):
        shape.append(len(data))
        if not len(data):
            break
        data = data[0]
    return shape


def refusal(data: Any) -> Exception | None:
    """PyTorch's error for ``tensor(data)``, or ``None`` if nothing in ``data`` is wrong that way."""
    if data is None:
        return none_refused()
    if isinstance(data, (str, bytes)):
        return TypeError(f"new(): invalid data type '{type(data).__name__}'\n{HINT}")
    shape = _infer_shape(data)
    first = data
    for _ in shape:  # a string where the first elements lead: PyTorch reads it as one more dimension
        first = first[0] if len(first) else None
        if isinstance(first, (str, bytes)):
            return ValueError(f"too many dimensions '{type(first).__name__}'\n{HINT}")
    stack = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if depth < len(shape):
            if not _is_sequence(item):
                return TypeError(f"not a sequence: found {type(item).__name__} at dim {depth}, where the first "
                                 f"element holds a list\n{HINT}")
            if len(item) != shape[depth]:
                return ValueError(f"expected sequence of length {shape[depth]} at dim {depth} (got {len(item)})\n"
                                  f"{HINT}")
            if not hasattr(item, "__array__"):
                stack.extend((v, depth + 1) for v in reversed(item))
        elif isinstance(item, (str, bytes)):
            return TypeError(f"new(): invalid data type '{type(item).__name__}'\n{HINT}")
        elif _is_sequence(item):
            return ValueError(f"expected a number at dim {depth}, got a {type(item).__name__} (a ragged nested "
                              f"list)\n{HINT}")
        elif not isinstance(item, (numbers.Number, bool)) and not hasattr(item, "item"):
            return RuntimeError(f"Could not infer dtype of {type(item).__name__}\n{HINT}")
    return None


def none_refused() -> RuntimeError:
    """PyTorch's error for a ``None`` given as data."""
    return RuntimeError(f"Could not infer dtype of NoneType\n{HINT}")


def none_read_as_nan(data: Any, dtype: str, host: Callable[[], Any]) -> bool:
    """Did the backend read a ``None`` in ``data`` as nan (``host()``: the array it made, on the host)?
    Nested lists are searched only when that array holds a nan."""
    if data is None:
        return True
    if type(data) not in (list, tuple) or dtype in ("int64", "bool"):
        return False
    array = host()
    return bool(array.size and np.isnan(array).any() and holds_none(data))


def holds_none(data: Any) -> bool:
    """Is there a ``None`` among the nested lists ``data``?"""
    stack = [data]
    while stack:
        item = stack.pop()
        if item is None:
            return True
        if isinstance(item, (list, tuple)):
            stack.extend(item)
    return False
