"""What fits the page: no line a lesson's tools write is wider than PAGE columns.

``fit(line, width)`` summarizes the vectors of a line too wide, as PyTorch prints a long tensor
(``[0.1, 0.2, 0.3, ..., 0.8, 0.9, 1.0]``), and breaks what still does not fit after a whole item,
the rest on the lines below.  The narration under each cell and the check lines use it.
"""
from __future__ import annotations

import re

# NOTE [A line fits the page]
# A narrated step may hold several vectors, and a pass's last line every gradient it left: in a lesson
# such a line ran to 300 columns.  Each line a lesson's tools write (a narration, a check) fits PAGE
# columns.  A wider line has its vectors summarized as PyTorch summarizes a long tensor, its first and
# last items around ``...`` (3 of each, then 2, then 1, until the line fits); what still does not fit
# goes on the lines below, broken after a whole item: a remark at a line's end (a rounding) is kept.
# ``--verbosity full`` narrates, and ``mg.trace()`` keeps, every number.
PAGE = 120
INDENT = "    "  # a narration line's indent under its cell: never broken inside it
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)|None|\.\.\.")  # "...": summarized already
_BREAKS = (", ", "; ", "   ")  # where a line may break: after a whole item


def fit(line: str, width: int) -> str:
    """``line`` within ``width`` columns (ANSI colours take none): its arrays summarized, then
    broken after its last whole item that fits (NOTE [A line fits the page])."""
    return shortened(line, width) or _wrapped(summarize_arrays(line, 1), width)


def shortened(line: str, width: int) -> str | None:
    """``line``, or its arrays summarized (``edge`` 3, then 2, then 1), within ``width`` columns; None
    if even that does not fit."""
    for edge in (None, 3, 2, 1):
        shorter = line if edge is None else summarize_arrays(line, edge)
        if _width(shorter) <= width:
            return shorter
    return None


def summarize_arrays(line: str, edge: int) -> str:
    """``line`` with each array of numbers written in it (``[1.0, 2.0, …]``, nested or not) as PyTorch
    prints a long one: along each axis of more than ``2 * edge + 1`` items, the first and last ``edge``
    around ``...``."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "[":
            parsed = _array(line, i)
            if parsed is not None:
                array, i = parsed
                out.append(_written(array, edge))
                continue
        out.append(line[i])
        i += 1
    return "".join(out)


def _array(text: str, i: int) -> tuple[list, int] | None:  # type: ignore[type-arg]
    """The array of numbers written at ``text[i]`` (a ``[``) and the index after it; None if it is not one."""
    items: list = []  # type: ignore[type-arg]
    i += 1
    while i < len(text):
        if text[i] == "[":
            inner = _array(text, i)
            if inner is None:
                return None
            items.append(inner[0])
            i = inner[1]
        else:
            number = _NUMBER.match(text, i)
            if number is None:
                return None
            items.append(number.group())
            i = number.end()
        if text.startswith(", ", i):
            i += 2
        elif text.startswith("]", i):
            return items, i + 1
        else:
            return None
    return None


def _written(array: list, edge: int) -> str:  # type: ignore[type-arg]
    items = [item if isinstance(item, str) else _written(item, edge) for item in array]
    if len(items) > 2 * edge + 1:
        items = [*items[:edge], "...", *items[-edge:]]
    return f"[{', '.join(items)}]"


def _width(line: str) -> int:
    return len(_ANSI.sub("", line))


def _wrapped(line: str, width: int) -> str:
    """``line`` broken before its last break outside brackets that fits ``width`` (never inside its
    indent; before one inside them where that keeps more than half), the rest on lines below,
    indented under it: nothing a line says is dropped."""
    plain, raw_at = "", []  # the visible text, and where each of its characters is in ``line``
    for match in re.finditer(r"\x1b\[[0-9;]*m|.", line, re.S):
        if not match.group().startswith("\x1b"):
            plain += match.group()
            raw_at.append(match.start())
    room, depth, end, inside = width, 0, -1, -1
    text_from = len(plain) - len(plain.lstrip())
    for i, char in enumerate(plain[:room + 1]):
        depth += (char in "[(") - (char in "])")
        if i > text_from and any(plain.startswith(b, i) for b in _BREAKS):
            end, inside = (i, inside) if depth == 0 else (end, i)
    end = end if end >= room // 2 else max(end, inside) if max(end, inside) > 0 else room
    if end >= len(plain):
        return line
    tail = "\x1b[0m" if _ANSI.search(line) else ""
    rest = line[raw_at[end]:].lstrip(" ,;")
    return f"{line[:raw_at[end]].rstrip()}{tail}\n" + fit(" " * (text_from + 6) + rest, width)
