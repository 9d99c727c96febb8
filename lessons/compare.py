"""How a check compares and shows results: micrograd2's, PyTorch's, and the lesson's own numbers.

Results are compared as plain data (``plain``): numbers, strings, bools, None and lists
of them, so a ``Value``, a micrograd2 ``Tensor``, a NumPy array and a ``torch.Tensor``
holding the same numbers compare equal (``same``: within a tolerance, NaN equal to NaN,
a list never equal to its one item).  ``show`` writes a result as a check line shows it,
``short`` cuts a long one.  ``Live`` marks a value PyTorch computed in this run.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

SHORT = 110  # a check line shows at most this much of a value


@dataclass(frozen=True)
class Live:
    """A value PyTorch computed in this run (see ``live``)."""

    value: Any


def live(value: Any) -> Live:
    """Mark ``value`` as computed by PyTorch in this run, for the deprecated ``check(..., pytorch=)``
    (``torch=lambda: value`` says the same without it)."""
    return Live(value)


def from_torch(x: Any) -> bool:
    """Whether ``x`` is one of PyTorch's objects (a ``torch.Tensor``, say)."""
    return type(x).__module__.split(".")[0] == "torch"


def live_value(pytorch: Any) -> Any:
    """The value itself, ``Live`` or not."""
    return pytorch.value if isinstance(pytorch, Live) else pytorch


def plain(x: Any) -> Any:
    """Numbers, strings, bools, None and lists of them: what two results are compared as."""
    if isinstance(x, Live):
        return plain(x.value)
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if hasattr(x, "tolist") and hasattr(x, "dtype"):  # a Tensor (micrograd2, torch or NumPy)
        return plain(x.detach().tolist() if hasattr(x, "detach") else x.tolist())
    if hasattr(x, "item") and hasattr(x, "grad_fn"):  # a Value
        return x.item()
    return x


def same(got: Any, expected: Any, rel: float, abs_: float) -> bool:
    """Equal in shape (a list is never its one item) and, number by number, within ``rel``/``abs_``."""
    if isinstance(expected, list):
        return (isinstance(got, list) and len(got) == len(expected)
                and all(same(g, e, rel, abs_) for g, e in zip(got, expected)))
    if expected is None or isinstance(expected, (bool, str)) or isinstance(got, bool):
        return type(got) is type(expected) and got == expected
    if isinstance(expected, (int, float)):
        if not isinstance(got, (int, float)):
            return False
        if math.isnan(expected):
            return math.isnan(got)
        return got == expected or math.isclose(got, expected, rel_tol=rel, abs_tol=abs_)
    return bool(got == expected)


def as_value(got: Any, theirs: Any) -> Any:
    """PyTorch's one-element tensor as the number a scalar ``Value`` holds: the lessons' scalar engine
    plays ``torch.tensor([2.0])`` with ``Value(2.0)``.  Any other shape is compared as it is."""
    a_value = hasattr(got, "grad_fn") and hasattr(got, "item") and not hasattr(got, "shape")
    scalar = a_value or (isinstance(got, (int, float)) and not isinstance(got, bool))
    return theirs[0] if scalar and isinstance(theirs, list) and len(theirs) == 1 else theirs


def show(x: Any) -> str:
    """A result as a check line writes it: floats in full (``repr``), lists and tuples item by item."""
    if isinstance(x, Live):
        return show(x.value)
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, (list, tuple)):
        inner = ", ".join(show(i) for i in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
    return str(x)


def short(text: str) -> str:
    """``text`` cut to SHORT characters, ending in ``…`` where it was cut."""
    return text if len(text) <= SHORT else text[:SHORT - 1] + "…"


def first_line(exc: Any) -> str:
    """The first line of an error's message."""
    return (str(exc).splitlines() or [""])[0]


def name_of(v: Any) -> str:
    """A Value's or Tensor's label, else ``leaf`` and its repr."""
    label = getattr(v, "label", None)
    return label if label else f"leaf {v!r}"
