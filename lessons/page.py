"""What fits the page: no line a lesson's tools write is wider than PAGE columns.

``fit(line, width)`` summarizes the vectors of a line too wide, as PyTorch prints a long tensor
(``[0.1, 0.2, 0.3, ..., 0.8, 0.9, 1.0]``), and cuts what still does not fit after its last whole
item, marked ``…``.  The narration under each cell and the check lines use it.
"""
from __future__ import annotations

import functools
import re

# NOTE [A line fits the page]
# A narrated step may hold several vectors, and a pass's last line every gradient it left: in a lesson
# such a line ran to 300 columns.  Each line a lesson's tools write (a narration, a check) fits PAGE
# columns.  A wider line has its vectors summarized as PyTorch summarizes a long tensor, its first and
# last items around ``...`` (3 of each, then 2, then 1, until the line fits); what still does not fit
# is cut after its last whole item, marked ``…``.  ``--verbosity full`` narrates, and ``mg.trace()``
# keeps, every number.
PAGE = 120
INDENT = "    "  # a narration line's indent under its cell: never cut inside it
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_NUMBER = r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)"
_VECTOR = re.compile(rf"\[({_NUMBER}(?:, {_NUMBER}){{2,}})\]")
_BREAKS = (", ", " + ", "; ", "   ")  # where a line may be cut: after a whole item


def fit(line: str, width: int) -> str:
    """``line`` within ``width`` columns (ANSI colours take none): its vectors summarized, then cut
    after its last whole item (NOTE [A line fits the page])."""
    if _width(line) <= width:
        return line
    for edge in (3, 2, 1):
        shorter = _VECTOR.sub(functools.partial(_summarized, edge=edge), line)
        if _width(shorter) <= width:
            return shorter
    return _cut(shorter, width)


def _width(line: str) -> int:
    return len(_ANSI.sub("", line))


def _summarized(vector: re.Match[str], edge: int) -> str:
    """A vector as PyTorch prints a long one: its first and last ``edge`` items around ``...``."""
    items = vector.group(1).split(", ")
    if len(items) <= 2 * edge + 1:
        return f"[{', '.join(items)}]"
    return f"[{', '.join(items[:edge])}, ..., {', '.join(items[-edge:])}]"


def _cut(line: str, width: int) -> str:
    """``line`` cut before the last break outside brackets that leaves room for `` …`` in ``width``."""
    plain, raw_at = "", []  # the visible text, and where each of its characters is in ``line``
    for match in re.finditer(r"\x1b\[[0-9;]*m|.", line, re.S):
        if not match.group().startswith("\x1b"):
            plain += match.group()
            raw_at.append(match.start())
    room, depth, end = width - 2, 0, -1
    for i, char in enumerate(plain[:room + 1]):
        depth += (char in "[(") - (char in "])")
        if depth == 0 and i > len(INDENT) and any(plain.startswith(b, i) for b in _BREAKS):
            end = i
    end = end if end > 0 else room
    tail = "\x1b[0m" if _ANSI.search(line) else ""
    return f"{line[:raw_at[end]]}{tail} …"
