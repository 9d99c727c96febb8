"""One lesson's run: the checks it made, how they are written, and the session they are kept in.

A ``Session`` keeps the lesson's checks and writes each one as a ✓/✗ line (or a JSON
line).  Python and Jupyter use the default session; ``micrograd2 lesson run`` starts a
fresh one per lesson (``start_session``).  A lesson's ``summary`` ends its session, and the
next check begins a fresh one with the same options (NOTE [one session per lesson]).
"""
from __future__ import annotations

import json
import sys
import textwrap
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TextIO

from .page import PAGE, fit, shortened
from .pytorch import imported_version

if TYPE_CHECKING:
    from .predictions import Prediction

_ANSI = {"section": "1", "ok": "32", "bad": "31;1", "error": "31", "advice": "2"}


class LessonFailed(AssertionError):
    """Some check of the lesson failed (raised by ``summary`` in Jupyter; a script exits with status 1)."""


@dataclass
class Check:
    """One comparison: the lesson's ``got`` with its ``expected``, and with PyTorch's (live or recorded)."""

    label: str
    ok: bool
    got: str
    expected: str
    pytorch: str | None = None
    against: str | None = None  # "live", "recorded" or None (no PyTorch counterpart)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "check", "what": self.label, "ok": self.ok, "got": self.got, "expected": self.expected,
                "pytorch": self.pytorch, "against": self.against}


@dataclass
class Session:
    """Where the checks of one lesson run are kept, and how they are written.

    Python and Jupyter use the default one, and a ``summary`` ends it: the next check begins a
    fresh one (NOTE [one session per lesson]).  ``micrograd2 lesson run`` starts a fresh one per
    lesson (``json=True`` writes JSON lines instead of text, ``strict=False`` lets ``summary``
    return instead of ending the run).
    """

    json: bool = False
    color: bool = False
    stream: TextIO | None = None  # None: sys.stdout at the time of writing
    strict: bool = True
    lesson: int | None = None
    checks: list[Check] = field(default_factory=list)
    graph: Any = None  # the root of the graph ``--graph`` draws (the last ``show_graph``)
    torch_version: str | None = None
    summarized: bool = False  # summary() was called
    interactive: bool = False  # ``predict`` waits for an answer (``lesson run --interactive``)
    predictions: list[Prediction] = field(default_factory=list)  # the answered ones
    hinted: bool = False  # how to answer a prediction was said once

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def write(self, text: str, role: str = "") -> None:
        if self.json:
            return
        code = _ANSI.get(role)
        if self.color and code and text:
            text = f"\x1b[{code}m{text}\x1b[0m"
        (self.stream or sys.stdout).write(text + "\n")

    def record(self, check: Check) -> None:
        self.checks.append(check)
        if self.json:
            record = {**check.to_dict(), "lesson": self.lesson}
            (self.stream or sys.stdout).write(json.dumps(record, ensure_ascii=False) + "\n")
            return
        for line in check_lines(check, self.torch_version, mark(check.ok, self.stream)):
            self.write(line, "ok" if check.ok else "bad")


def check_lines(check: Check, torch_version: str | None, tick: str) -> list[str]:
    """A check as the lesson shows it: ``✓ label: got``, what was expected if it failed, and PyTorch's
    result (``the same`` when it reads as ``got``).  Where one line would pass PAGE columns, the value
    and PyTorch's result each go on lines of their own, PyTorch's wrapped, never cut (NOTE [A line fits
    the page])."""
    head = f"  {tick} {check.label}:"
    value = check.got if check.ok else f"{check.got}   (expected {check.expected})"
    lines = [f"{head} {value}"]
    if shortened(lines[0], PAGE) is None:
        lines = [head, f"      {value}"]
    if check.pytorch is not None:
        theirs = "the same" if check.pytorch == check.got else check.pytorch
        pytorch = f"{source_name(check.against, torch_version)}: {theirs}"
        if shortened(f"{lines[-1]}   {pytorch}", PAGE) is not None:
            lines[-1] = f"{lines[-1]}   {pytorch}"
            return [fit(line, PAGE) for line in lines]
        return [fit(line, PAGE) for line in lines] + textwrap.wrap(  # PyTorch's words, whole
            pytorch, PAGE, initial_indent="      ", subsequent_indent="        ", break_on_hyphens=False)
    return [fit(line, PAGE) for line in lines]


_session = Session()


def session() -> Session:
    """The session the lesson's checks go to (after a ``summary``: the one it summed up)."""
    return _session


# NOTE [one session per lesson]: a lesson ends with its ``summary``; the next check, in the same
# process, begins a fresh session with the same options.  So lessons run one after another (as
# scripts in one interpreter, notebooks in one kernel, the playground's worker) each count their own
# checks, even where no host calls ``start_session`` between them.
def open_session() -> Session:
    """The session a new check goes to: the current one, or a fresh one if it was summarized."""
    global _session
    if _session.summarized:
        _session = replace(_session, checks=[], graph=None, summarized=False, predictions=[],
                           hinted=False)
    return _session


def start_session(**options: Any) -> Session:
    """Begin a fresh session (``Session``'s fields as options) and return it."""
    global _session
    _session = Session(**options)
    version = imported_version()
    if version:
        _session.torch_version = version
    return _session


def source_name(against: str | None, version: str | None) -> str:
    """What a check line calls PyTorch's result: ``PyTorch 2.13 run live`` or ``PyTorch (recorded)``."""
    if against == "live":
        return f"PyTorch {version or ''} run live".replace("  ", " ")
    return "PyTorch (recorded)"


def mark(ok: bool, stream: Any) -> str:
    """✓ or ✗, or OK and FAIL where the stream can't write them."""
    try:
        "✓✗│─┆└├".encode(getattr(stream or sys.stdout, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return "OK" if ok else "FAIL"
    return "✓" if ok else "✗"
