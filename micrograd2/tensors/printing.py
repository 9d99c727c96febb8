"""``repr(tensor)`` as PyTorch prints it: ``tensor([0.1000, 2.5000])``, ``tensor([1., 2.])``, ``1.0000e-05``.

PyTorch's rules (``torch/_tensor_str.py``, default print options): a float Tensor whose finite non-zero
values are all whole numbers prints them with a trailing dot; otherwise with 4 decimals, or in scientific
notation (``1.0000e-05``) when the largest |value| is over 1e8, the smallest under 1e-4, or their ratio
over 1000.  Every element is padded to one width; rows wrap at 80 characters; more than 1000 elements are
summarized with ``...`` (3 at each edge).  After the numbers: the dtype unless float32, int64 or bool
(``dtype=torch.float64``), then ``grad_fn=<…>`` or ``requires_grad=True``.
"""
from __future__ import annotations

import math
from typing import Any

LINEWIDTH = 80
THRESHOLD = 1000
EDGEITEMS = 3
PRECISION = 4


class _Formatter:
    """One width and one style for all the elements of a Tensor."""

    def __init__(self, values: list[Any], floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            self.width = max([len(str(v)) for v in values], default=1)
            return
        finite = [v for v in values if math.isfinite(v) and v != 0]
        if not finite:  # only zeros, infinities and nans: no width to find
            return
        big, small = max(abs(v) for v in finite), min(abs(v) for v in finite)
        self.int_mode = all(v == math.ceil(v) for v in finite)
        if big / small > 1000.0 or big > 1.0e8 or (not self.int_mode and small < 1.0e-4):
            self.sci_mode = True
            self.width = max(len(f"{v:.{PRECISION}e}") for v in finite)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.width = max(len(f"{v:.{PRECISION}f}") for v in finite)

    def format(self, v: Any) -> str:
        if not self.floating:
            text = str(v)
        elif self.sci_mode:
            text = f"{v:.{PRECISION}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{PRECISION}f}"
        return text.rjust(self.width)


def _summarized(rows: Any, summarize: bool) -> list[Any]:
    """The items of one dimension, ``...`` standing for the middle when summarizing."""
    if summarize and len(rows) > 2 * EDGEITEMS:
        return [*rows[:EDGEITEMS], Ellipsis, *rows[-EDGEITEMS:]]
    return list(rows)


def _flat(nested: Any, summarize: bool) -> list[Any]:
    """The values that will be printed (for the formatter's width)."""
    if not isinstance(nested, list):
        return [nested]
    out: list[Any] = []
    for item in _summarized(nested, summarize):
        if item is not Ellipsis:
            out += _flat(item, summarize)
    return out


def _body(nested: Any, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if not isinstance(nested, list):
        return fmt.format(nested)
    items = _summarized(nested, summarize)
    if not items or not isinstance(items[0], list) and not (items[0] is Ellipsis and isinstance(nested[0], list)):
        texts = [" ..." if v is Ellipsis else fmt.format(v) for v in items]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(texts[i:i + per_line]) for i in range(0, len(texts), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    depth = _depth(nested)
    parts = ["..." if v is Ellipsis else _body(v, fmt, indent + 1, summarize) for v in items]
    return "[" + ("," + "\n" * (depth - 1) + " " * (indent + 1)).join(parts) + "]"


def _depth(nested: Any) -> int:
    depth = 0
    while isinstance(nested, list):
        depth += 1
        nested = nested[0] if nested else None
    return depth


def tensor_repr(values: Any, shape: tuple[int, ...], dtype: str, device: str, grad_fn: Any,
                requires_grad: bool) -> str:
    """PyTorch's ``repr`` for a Tensor of ``values`` (nested lists, or a number for 0-d)."""
    prefix = "tensor("
    indent = len(prefix)
    floating = dtype not in ("int64", "int32", "bool")
    if dtype == "bool":
        values = _booleans(values)
    size = math.prod(shape)
    summarize = size > THRESHOLD
    suffixes = []
    if device != "cpu":
        suffixes.append(f"device='{device}:0'" if device == "cuda" else f"device='{device}'")
    if size == 0:  # no element shows the dtype: PyTorch names it unless it is the default
        body = "[]"
        if len(shape) != 1:
            suffixes.append(f"size={tuple(shape)}")
        if dtype != "float32":
            suffixes.append(f"dtype=torch.{dtype}")
    else:
        body = _body(values, _Formatter(_flat(values, summarize), floating), indent, summarize)
        if dtype not in ("float32", "int64", "bool"):
            suffixes.append(f"dtype=torch.{dtype}")
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + _with_suffixes(body, suffixes, indent)


def _booleans(values: Any) -> Any:
    if isinstance(values, list):
        return [_booleans(v) for v in values]
    return _Bool(values)


class _Bool(int):
    """A bool that prints as PyTorch's (``True``) and measures its width."""

    def __str__(self) -> str:
        return "True" if self else "False"


def _with_suffixes(body: str, suffixes: list[str], indent: int) -> str:
    parts = [body]
    last = len(body) - body.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(parts) + ")"
