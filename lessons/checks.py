"""Checks: one ✓/✗ line per result, compared with the lesson's own numbers and with PyTorch's.

* ``check(label, got, expected, torch=lambda: ..., recorded="...")``: ``expected`` is what the lesson
  derives; ``torch`` returns PyTorch's result and is called, and compared too, only when PyTorch is
  installed; otherwise ``recorded``, PyTorch's output written down, is shown beside.
  ``Recorded(text, passes=3)`` with ``inputs={"passes": passes}`` says which inputs it was recorded
  for: after an edit of them it is shown as not applying, and not counted.
* ``with raises(label, RuntimeError, "phrase", torch=lambda: error_of(...)):`` code that must fail.
* ``summary("Lesson 3")``: the closing line, which says honestly what was compared; a failed check
  ends a script with exit status 1 (in Jupyter: raises ``LessonFailed``).
"""
from __future__ import annotations

import builtins
import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .compare import Live, as_value, first_line, from_torch, live_value, plain, same, short, show
from .predictions import predictions_line
from .pytorch import live_torch, short_version
from .session import Check, LessonFailed, Session, mark, open_session, session
from .text import show_error


@dataclass(frozen=True, init=False)
class Recorded:
    """PyTorch's output written down in the lesson, with the inputs it was recorded for.

    ``Recorded("tensor([9.])", passes=3)``: shown beside a check when PyTorch is not installed, and
    counted only while ``check``'s ``inputs=`` still give ``passes=3``.  A student who edits the
    lesson's inputs then reads that the recorded output does not apply, not a ✓ beside it.
    """

    text: str
    inputs: dict[str, Any] = field(default_factory=dict)

    def __init__(self, text: str, **inputs: Any) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "inputs", inputs)

    def mismatch(self, now: dict[str, Any] | None) -> str | None:
        """The first input whose value differs from the one recorded (as ``"passes=3"``), else None."""
        for name, then in self.inputs.items():
            if now is None or name not in now or not same(plain(now[name]), plain(then), 1e-9, 0.0):
                return f"{name}={show(then)}"
        return None


@dataclass(frozen=True)
class Theirs:
    """What PyTorch says for one check: its value (when run live), how it is shown, and what it is."""

    shown: str | None = None
    against: str | None = None  # "live", "recorded" or None (not counted against PyTorch)
    value: Any = None


# NOTE [live or recorded]: the one place that decides.  PyTorch installed and ``torch=`` given: run the
# function now and compare with its result.  Otherwise the recorded output is shown, and counts only if
# it was recorded for the inputs the lesson has now.
def _theirs(torch: Callable[[], Any] | None, recorded: str | Recorded | None,
            inputs: dict[str, Any] | None) -> Theirs:
    module = live_torch() if torch is not None else None
    if torch is not None and module is not None:
        open_session().torch_version = short_version(module)
        value = live_value(torch())
        if isinstance(value, BaseException):
            return Theirs(short(f"{type(value).__name__}: {first_line(value)}"), "live", value)
        return Theirs(short(show(value)), "live", value)
    if recorded is None:
        return Theirs()
    if isinstance(recorded, str):
        return Theirs(recorded, "recorded")
    off = recorded.mismatch(inputs)
    if off is None:
        return Theirs(recorded.text, "recorded")
    return Theirs(f"{recorded.text} for {off}: does not apply to these inputs, not counted", None)


def _from_pytorch_argument(pytorch: Any) -> tuple[Callable[[], Any] | None, str | None]:
    """The old ``pytorch=`` argument as ``torch=`` and ``recorded=`` (with a DeprecationWarning)."""
    warnings.warn("check(..., pytorch=...) is deprecated: write torch=lambda: <PyTorch's value> and "
                  "recorded=\"<its recorded output>\"", DeprecationWarning, stacklevel=3)
    if pytorch is None or isinstance(pytorch, str):
        return None, pytorch
    if isinstance(pytorch, Live) or from_torch(pytorch):
        return (lambda: pytorch), None
    raise TypeError(f"pytorch= takes PyTorch's recorded output (a str) or a value PyTorch computed in this run "
                    f"(a torch.Tensor, or live(value)), not {type(pytorch).__name__}\n"
                    f"What to do: write torch=lambda: <the value> instead.")


def check(label: str, got: Any, expected: Any, *, torch: Callable[[], Any] | None = None,
          recorded: str | Recorded | None = None, inputs: dict[str, Any] | None = None,
          rel: float = 1e-6, abs: float = 1e-12, pytorch: Any = None) -> None:
    """Print one ✓/✗ line: ``got`` (micrograd2's result) must equal ``expected`` (the lesson's own
    derivation) and, when PyTorch is installed, what ``torch()`` returns (PyTorch's result, run live).

    ``recorded``: PyTorch's output written down (a ``str``, or ``Recorded(text, **inputs)``), shown
    beside the line when PyTorch is not installed; ``inputs``: the lesson's inputs now, which a
    ``Recorded`` must match to count.  Numbers compare within ``rel``/``abs`` (NaN equals NaN),
    sequences item by item (a list is never its one item), Values and Tensors by their numbers.
    ``pytorch=`` is the old, deprecated way (a ``str`` recorded, a Tensor or ``live(...)`` live).
    """
    if pytorch is not None:
        torch, recorded = _from_pytorch_argument(pytorch)
    ok = same(plain(got), plain(expected), rel, abs)
    wanted = show(expected)
    theirs = _theirs(torch, recorded, inputs)
    if theirs.against == "live" and not same(plain(got), as_value(got, plain(theirs.value)), rel, abs):
        ok, wanted = False, f"{wanted}, and PyTorch's {theirs.shown}"
    open_session().record(Check(label, ok, short(show(got)), short(wanted), theirs.shown, theirs.against))


@contextlib.contextmanager
def raises(label: str, error: type[BaseException], phrase: str, *, torch: Callable[[], Any] | None = None,
           recorded: str | Recorded | None = None, inputs: dict[str, Any] | None = None,
           pytorch: Any = None) -> Iterator[None]:
    """``with raises("a second backward", RuntimeError, "a second time"):`` — the block must raise
    ``error`` with ``phrase`` in its message.  The error is shown (``show_error``) and stopped there;
    a ✓/✗ line follows.  ``torch``: returns PyTorch's error, live (``lambda: error_of(t.backward)``);
    ``recorded``: its recorded text (as for ``check``)."""
    if pytorch is not None:
        torch, recorded = _from_pytorch_argument(pytorch)
    expected = f"{error.__name__}: {phrase}"
    raised: BaseException | None = None
    try:
        yield
    except Exception as exc:  # the error under test, whatever it is: shown and checked, never re-raised
        raised = exc
    theirs = _theirs(torch, recorded, inputs)
    if raised is None:
        open_session().record(Check(label, False, "no error", expected, theirs.shown, theirs.against))
        return
    show_error(raised)
    ok = isinstance(raised, error) and phrase in str(raised)
    if theirs.against == "live":
        ok = ok and isinstance(theirs.value, BaseException) and type(theirs.value).__name__ == error.__name__ \
            and phrase in str(theirs.value)
    got = f"{type(raised).__name__}: {phrase if phrase in str(raised) else first_line(raised)}"
    open_session().record(Check(label, ok, short(got), expected, theirs.shown, theirs.against))


def summary(name: str | None = None) -> Session:
    """Print the closing line: how many checks, against what, and whether all pass.

    A failed check ends a script with exit status 1 (``SystemExit``) and raises
    ``LessonFailed`` in Jupyter; under ``micrograd2 lesson run`` the session is returned.
    """
    _check_the_students_pieces()
    s = session()
    s.summarized = True
    line = summary_line(s.checks, s.torch_version, name)
    s.write("")
    told = predictions_line(s.predictions)
    if told:
        s.write(told)
    s.write(f"{mark(not s.failures, s.stream)} {line}", "bad" if s.failures else "ok")
    if s.failures and s.strict:
        first = s.failures[0]
        message = f"{line}\nfirst: {first.label}: got {first.got}, expected {first.expected}"
        if getattr(builtins, "__IPYTHON__", False):
            raise LessonFailed(message)
        raise SystemExit(message)
    return s


def _check_the_students_pieces() -> None:
    """On a student's engine (``--engine``): one more check, that each of the student's pieces,
    probed alone, agrees with the reference; a piece that differs fails the summary."""
    from micrograd2.course import diagnose, engine

    if engine.chosen() is not None:
        differ = diagnose.closing_line()
        check("each of your pieces, probed alone, agrees with the reference",
              differ or "no difference", "no difference")


def summary_line(checks: list[Check], torch_version: str | None, name: str | None = None) -> str:
    """``Lesson 3: 13 checks: 7 against PyTorch 2.13 run live, 6 against its recorded output; all pass.``
    (or ``…; 2 fail.``).  A check with no PyTorch counterpart, compared with the lesson's own numbers
    only, is counted as ``lesson-only``: the line fits 120 columns even for all the lessons."""
    live_n = sum(c.against == "live" for c in checks)
    recorded_n = sum(c.against == "recorded" for c in checks)
    parts = []
    if live_n:
        parts.append(f"{live_n} against PyTorch {torch_version or ''} run live".replace("  ", " "))
    if recorded_n:
        whose = "its" if live_n else "PyTorch's"  # "its": PyTorch, named just before
        parts.append(f"{recorded_n} against {whose} recorded output")
    if len(checks) - live_n - recorded_n:
        parts.append(f"{len(checks) - live_n - recorded_n} lesson-only")
    failed = sum(not c.ok for c in checks)
    verdict = f"{failed} fail" if failed else ("all pass" if checks else "nothing checked")
    head = f"{name}: " if name else ""
    return f"{head}{len(checks)} checks: {', '.join(parts) or 'none'}; {verdict}."
