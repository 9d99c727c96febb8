"""What the lessons share: checks against PyTorch, predictions, section headings, errors as Python prints them.

A lesson is a plain percent-format script (``# %%`` cells) that imports this module
as ``micrograd2.lessons.tools``.  Its functions print to standard output, so the
same lesson runs with ``python lessons/03_accumulation.py``, cell by cell with
``micrograd2 lesson run 3`` (which adds each cell's source and the narration of
its backward passes) and as a Jupyter notebook (``micrograd2 lesson notebook 3``).

* ``torch = live_torch()``: PyTorch when it is installed (else ``None``), so a lesson
  can run the same experiment on it, live.
* ``check(label, got, expected, torch=lambda: ..., recorded="...")``: one ✓/✗ line.  ``expected`` is
  what the lesson derives (from its own inputs or a formula); ``torch`` returns PyTorch's result and is
  called, and compared too, only when PyTorch is installed; otherwise ``recorded``, PyTorch's output
  written down, is shown beside.  ``Recorded(text, passes=3)`` with ``inputs={"passes": passes}`` says
  which inputs it was recorded for: after an edit of them it is shown as not applying, and not counted.
* ``with raises(label, RuntimeError, "phrase", torch=lambda: error_of(...), recorded="..."):`` code that
  must fail; the error is shown as Python prints it, micrograd2's own "What to do" advice marked as ours.
* ``error_of(fn)``: the error PyTorch raises for ``fn()`` (what ``raises``'s ``torch`` returns).
* ``guess = predict("L3.three-backwards", "What is x.grad after …?", answer=prediction)``, then
  ``guess.reveal(x.grad)`` once the result is computed: a prediction asked before the result is shown.
  ``micrograd2 lesson run N --interactive`` waits for the answer; otherwise the cell's ``prediction``
  (``...`` until filled in) is the answer.  Answers are recorded in ``predictions.json`` in the exercise
  workspace (``$MICROGRAD2_WORKSPACE``, else the current folder if it is one; else nowhere).
* ``section(title)``, ``show_error(exc)``, ``show_graph(root)``.
* ``summary("Lesson 3")``: the closing line, which says honestly what was compared::

      ✓ Lesson 3: 13 checks: 7 against PyTorch 2.13 run live, 6 against PyTorch's recorded output; all pass.

  If a check failed, ``summary`` ends the script with exit status 1 (in Jupyter: raises
  ``LessonFailed``).
"""
from __future__ import annotations

import builtins
import contextlib
import json
import math
import os
import re
import sys
import textwrap
import warnings
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator, TextIO

from micrograd2.tracing.nodes import walk

MAX_TREE_LINES = 40
WIDTH = 100  # error messages are wrapped to this width
SHORT = 110  # a check line shows at most this much of a value
NO_TORCH = "MICROGRAD2_NO_TORCH"  # set to 1: the lessons behave as if PyTorch were not installed
ADVICE = "What to do:"  # micrograd2's own line in its error messages (PyTorch prints no such line)
_ANSI = {"section": "1", "ok": "32", "bad": "31;1", "error": "31", "advice": "2"}


class LessonFailed(AssertionError):
    """Some check of the lesson failed (raised by ``summary`` in Jupyter; a script exits with status 1)."""


@dataclass(frozen=True)
class Live:
    """A value PyTorch computed in this run (see ``live``)."""

    value: Any


def live(value: Any) -> Live:
    """Mark ``value`` as computed by PyTorch in this run, for the deprecated ``check(..., pytorch=)``
    (``torch=lambda: value`` says the same without it)."""
    return Live(value)


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
        line = f"  {_mark(check.ok, self.stream)} {check.label}: {check.got}"
        if not check.ok:
            line += f"   (expected {check.expected})"
        if check.pytorch is not None:
            line += f"   {_source_name(check.against, self.torch_version)}: {check.pytorch}"
        self.write(line, "ok" if check.ok else "bad")


_session = Session()


def session() -> Session:
    """The session the lesson's checks go to (after a ``summary``: the one it summed up)."""
    return _session


# NOTE [one session per lesson]: a lesson ends with its ``summary``; the next check, in the same
# process, begins a fresh session with the same options.  So lessons run one after another (as
# scripts in one interpreter, notebooks in one kernel, the playground's worker) each count their own
# checks, even where no host calls ``start_session`` between them.
def _open() -> Session:
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
    if "torch" in sys.modules and not os.environ.get(NO_TORCH):
        _session.torch_version = _short_version(sys.modules["torch"])
    return _session


# -- PyTorch, live ----------------------------------------------------------------------------------
def live_torch() -> ModuleType | None:
    """The ``torch`` module if PyTorch is installed (and ``MICROGRAD2_NO_TORCH`` is not set), else ``None``."""
    if os.environ.get(NO_TORCH):
        return None
    try:
        import torch
    except ImportError:
        return None
    _session.torch_version = _short_version(torch)
    return torch


def error_of(fn: Callable[[], Any]) -> Live:
    """Run ``fn()`` (PyTorch code) and return the exception it raised, or ``None``, as a live value."""
    try:
        fn()
    except Exception as exc:  # the error is the result
        return Live(exc)
    return Live(None)


def _short_version(torch: Any) -> str:
    return ".".join(str(getattr(torch, "__version__", "?")).split("+")[0].split(".")[:2])


def _source_name(against: str | None, version: str | None) -> str:
    if against == "live":
        return f"PyTorch {version or ''} run live".replace("  ", " ")
    return "PyTorch (recorded)"


# -- text -------------------------------------------------------------------------------------------
def section(title: str) -> None:
    """Print a section heading."""
    _session.write("")
    _session.write(f"── {title} " + "─" * max(3, 76 - len(title)), "section")


def show_error(exc: BaseException) -> None:
    """Print ``exc`` as Python prints an error's last line, wrapped to the page.

    micrograd2's errors end with a line of advice, ``What to do: …``, that PyTorch
    does not print: it is set apart and marked as micrograd2's.
    """
    message = str(exc)
    ours = ""
    if f"\n{ADVICE}" in message:
        message, ours = message.split(f"\n{ADVICE}", 1)
    for line in f"{type(exc).__name__}: {message}".splitlines():
        for part in textwrap.wrap(line, WIDTH, subsequent_indent="    ") or [""]:
            _session.write(f"  {part}", "error")
    if ours:
        advice = f"[micrograd2's advice, not printed by PyTorch] {ADVICE}{ours}"
        for part in textwrap.wrap(advice, WIDTH, subsequent_indent="    "):
            _session.write(f"  {part}", "advice")


# -- checks -----------------------------------------------------------------------------------------
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
            if now is None or name not in now or not _same(_plain(now[name]), _plain(then), 1e-9, 0.0):
                return f"{name}={_show(then)}"
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
    if torch is not None and live_torch() is not None:
        value = _live_value(torch())
        if isinstance(value, BaseException):
            return Theirs(_short(f"{type(value).__name__}: {_first_line(value)}"), "live", value)
        return Theirs(_short(_show(value)), "live", value)
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
    if isinstance(pytorch, Live) or _from_torch(pytorch):
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
    ok = _same(_plain(got), _plain(expected), rel, abs)
    wanted = _show(expected)
    theirs = _theirs(torch, recorded, inputs)
    if theirs.against == "live" and not _same(_plain(got), _as_value(got, _plain(theirs.value)), rel, abs):
        ok, wanted = False, f"{wanted}, and PyTorch's {theirs.shown}"
    _open().record(Check(label, ok, _short(_show(got)), _short(wanted), theirs.shown, theirs.against))


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
        _open().record(Check(label, False, "no error", expected, theirs.shown, theirs.against))
        return
    show_error(raised)
    ok = isinstance(raised, error) and phrase in str(raised)
    if theirs.against == "live":
        ok = ok and isinstance(theirs.value, BaseException) and type(theirs.value).__name__ == error.__name__ \
            and phrase in str(theirs.value)
    got = f"{type(raised).__name__}: {phrase if phrase in str(raised) else _first_line(raised)}"
    _open().record(Check(label, ok, _short(got), expected, theirs.shown, theirs.against))


def summary(name: str | None = None) -> Session:
    """Print the closing line: how many checks, against what, and whether all pass.

    A failed check ends a script with exit status 1 (``SystemExit``) and raises
    ``LessonFailed`` in Jupyter; under ``micrograd2 lesson run`` the session is returned.
    """
    _check_the_students_pieces()
    s = _session
    s.summarized = True
    line = summary_line(s.checks, s.torch_version, name)
    s.write("")
    told = _predictions_line(s.predictions)
    if told:
        s.write(told)
    s.write(f"{_mark(not s.failures, s.stream)} {line}", "bad" if s.failures else "ok")
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
    """``Lesson 3: 13 checks: 7 against PyTorch 2.13 run live, 6 against PyTorch's recorded output;
    all pass.`` (or ``…; 2 fail.``)."""
    live_n = sum(c.against == "live" for c in checks)
    recorded_n = sum(c.against == "recorded" for c in checks)
    parts = []
    if live_n:
        parts.append(f"{live_n} against PyTorch {torch_version or ''} run live".replace("  ", " "))
    if recorded_n:
        parts.append(f"{recorded_n} against PyTorch's recorded output")
    if len(checks) - live_n - recorded_n:
        parts.append(f"{len(checks) - live_n - recorded_n} against the lesson's own numbers only")
    failed = sum(not c.ok for c in checks)
    verdict = f"{failed} fail" if failed else ("all pass" if checks else "nothing checked")
    head = f"{name}: " if name else ""
    return f"{head}{len(checks)} checks: {', '.join(parts) or 'none'}; {verdict}."


# -- predictions -----------------------------------------------------------------------------
PREDICTIONS_FILE = "predictions.json"
WORKSPACE_ENV = "MICROGRAD2_WORKSPACE"  # the exercise workspace, as exercises.harness names it
UNANSWERED = ...  # ``prediction = ...``: the cell's answer, not filled in yet
NUMBER = re.compile(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?)")  # as typed


@dataclass
class Prediction:
    """A question asked before its result is shown (``predict``), the answer, and the verdict."""

    question_id: str
    prompt: str
    answer: Any = UNANSWERED
    right: bool | None = None  # None: not judged yet, or nothing to judge (no answer)
    rel: float = 1e-3

    @property
    def answered(self) -> bool:
        return self.answer is not UNANSWERED

    def reveal(self, expected: Any, shown: str | None = None) -> bool | None:
        """Say what the result is and whether the answer was right; record it in predictions.json.

        ``expected``: the result (a value the answer must equal: a number, None, a bool, a choice
        like ``"b"``) or a checker ``fn(answer) -> bool``; ``shown``: how to write it (its value).
        """
        told = shown or ("?" if callable(expected) else _show(_plain(expected)))
        s = _session
        if not self.answered:
            hint = "" if s.hinted else (" (no prediction: `--interactive` asks for one; "
                                        "a notebook cell holds it in `prediction = ...`)")
            s.hinted = True
            s.write(f"    · it is {told}{hint}", "advice")
            return None
        if callable(expected):
            self.right = bool(expected(self.answer))
        else:
            self.right = _guessed(self.answer, expected, self.rel)
        s.predictions.append(self)
        if s.json:
            record = {"kind": "prediction", "id": self.question_id, "lesson": s.lesson,
                      "answer": _plain_json(self.answer), "expected": told, "right": self.right}
            (s.stream or sys.stdout).write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            verdict = "right" if self.right else "not it"
            mark = _mark(self.right, s.stream)
            s.write(f"    {mark} you predicted {_show(self.answer)}: {verdict}; it is {told}",
                    "ok" if self.right else "bad")
        _record_prediction(self, s.lesson)
        return self.right


# NOTE [predict before you run]: a lesson asks before the cell that shows the result, and reveals it
# after, so the cell's source (which ``lesson run`` prints before running it) never gives the answer
# away.  The answer comes from the cell (``prediction = ...`` filled in: a notebook, an edited
# copy), else from the terminal under ``lesson run N --interactive``; otherwise the question is
# printed and the run goes on (``make lessons``, CI, a notebook with the cell unfilled).
def predict(question_id: str, prompt: str, expected: Any = UNANSWERED, *, answer: Any = UNANSWERED,
            rel: float = 1e-3) -> Prediction:
    """Ask the student to predict a result before the lesson shows it; return the ``Prediction``.

    ``answer``: the cell's answer (``prediction = ...`` until the student fills it in).  Without
    one, ``micrograd2 lesson run N --interactive`` waits for it on the terminal.  ``expected``: the
    right answer or a checker ``fn(answer) -> bool``, judged at once; leave it out and call
    ``.reveal(result)`` once the result is computed.  Answers are recorded in ``predictions.json``
    (``predictions_file``).  Numbers compare within ``rel``; a typed answer is read as the expected
    kind: ``"9"`` or ``"tensor([9.])"`` for 9.0, ``"none"`` for None, ``"(b)"`` for ``"b"``.
    """
    s = _open()
    asked = Prediction(question_id, prompt, answer, rel=rel)
    s.write(f"  ? Predict: {prompt}", "section")
    if not asked.answered and s.interactive and not s.json:
        asked.answer = _ask(s)
    if expected is not UNANSWERED:
        asked.reveal(expected)
    return asked


def _ask(s: Session) -> Any:
    """The student's answer, read from the terminal (empty or end of input: no answer)."""
    (s.stream or sys.stdout).write("    your prediction: ")
    (s.stream or sys.stdout).flush()
    try:
        typed = input().strip()
    except EOFError:
        return UNANSWERED
    return typed if typed else UNANSWERED


def _guessed(answer: Any, expected: Any, rel: float) -> bool:
    """Whether the student's answer is the expected result (a typed answer read as its kind)."""
    want = _plain(expected)
    if isinstance(answer, str) and not isinstance(want, str):
        answer = _typed(answer, want)
    got = _plain(answer)
    if isinstance(want, list) and len(want) == 1 and not isinstance(got, list):
        want = want[0]  # 9 for tensor([9.])
    if isinstance(got, list) and len(got) == 1 and not isinstance(want, list):
        got = got[0]
    if isinstance(want, str):
        return _choice(str(got)) == _choice(want)
    return _same(got, want, rel, 1e-9)


def _typed(text: str, like: Any) -> Any:
    """A typed answer as a value of ``like``'s kind: None, a bool, a number or a list of numbers."""
    word = text.strip().lower()
    if like is None:
        return None if word in ("none", "null") else text
    if isinstance(like, bool):
        return {"true": True, "yes": True, "false": False, "no": False}.get(word, text)
    numbers = [float(n) for n in NUMBER.findall(word)]
    if not numbers:
        return text
    return numbers if isinstance(like, list) else numbers[0]


def _choice(text: str) -> str:
    """``"(B)"``, ``"b)"``, ``" b. "`` -> ``"b"``: a choice as the student may type it."""
    return text.strip().lower().strip("().").strip()


def _plain_json(x: Any) -> Any:
    plain = _plain(x)
    try:
        json.dumps(plain)
    except (TypeError, ValueError):
        return _show(plain)
    return plain


def predictions_file() -> Path | None:
    """Where answers are recorded: ``$MICROGRAD2_WORKSPACE/predictions.json``; else the current
    folder's, if it is an exercise workspace (``micrograd2 exercise start``); else None."""
    workspace = os.environ.get(WORKSPACE_ENV)
    if workspace:
        return Path(workspace) / PREDICTIONS_FILE
    from micrograd2.exercises import catalog

    here = Path.cwd()
    if any((here / e.filename).is_file() for e in catalog.EXERCISES):
        return here / PREDICTIONS_FILE
    return None


def _record_prediction(p: Prediction, lesson: int | None) -> None:
    """Write ``p``'s entry into predictions.json (one per question id: a new answer replaces it)."""
    path = predictions_file()
    if path is None:
        return
    try:
        entries = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        entries = None  # an unreadable file is not overwritten
    if not isinstance(entries, dict):
        warnings.warn(f"{path} is not a predictions file: answer not recorded", stacklevel=4)
        return
    entries[p.question_id] = {"answer": _plain_json(p.answer), "right": p.right, "lesson": lesson,
                              "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                              "prompt": p.prompt}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(entries, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        warnings.warn(f"could not record the prediction in {path}: {exc}", stacklevel=4)


def _predictions_line(predictions: list[Prediction]) -> str | None:
    """``predictions: 2 of 3 right (recorded in …/predictions.json)``; None if none answered."""
    if not predictions:
        return None
    where = predictions_file()
    kept = f" (recorded in {where})" if where is not None else " (not recorded: no workspace)"
    right = sum(bool(p.right) for p in predictions)
    return f"predictions: {right} of {len(predictions)} right{kept}"


# -- graphs -----------------------------------------------------------------------------------------
class Diagram:
    """A graph picture: ``_repr_svg_`` draws it in Jupyter (with Graphviz's ``dot``), ``repr`` names it."""

    def __init__(self, root: Any, view: str) -> None:
        self.root, self.view = root, view

    def _repr_svg_(self) -> str | None:
        import micrograd2 as mg

        return mg.viz.svg(mg.draw(self.root, view=self.view))  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"<the {self.view} graph of {_name(self.root)}>"


def show_graph(root: Any, title: str | None = None, view: str = "autograd") -> Diagram:
    """Print ``root``'s autograd graph as text and return it as a ``Diagram`` (a picture in Jupyter);
    it is also the graph ``micrograd2 lesson run N --graph FILE.svg`` draws."""
    _session.graph = (root, view)
    _session.write("")
    if title:
        _session.write(title)
    for line in graph_lines(root):
        _session.write(f"  {line}")
    return Diagram(root, view)


def graph_lines(root: Any) -> list[str]:
    """``root``'s autograd graph as indented text, from its ``grad_fn`` down to the ``AccumulateGrad``s.

    A node reached a second time is written once more with "(see above)" (``tracing.nodes.walk``
    follows every edge, without recursion).
    """
    start = getattr(root, "grad_fn", None)
    if start is None:
        return [f"{_name(root)} is a leaf: no grad_fn, nothing to walk"]
    lines: list[str] = []
    below: dict[Any, str] = {start: ""}  # a node -> the indent of the lines below it
    for node, parent, edge_nr, first in walk([start]):
        if len(lines) >= MAX_TREE_LINES:
            lines.append("… (graph continues)")
            break
        lead = ""
        if parent is not None:
            last = edge_nr == len(parent.next_functions) - 1
            lead = below[parent] + ("└── " if last else "├── ")
            if first:
                below[node] = below[parent] + ("    " if last else "│   ")
        if node is None:
            lines.append(f"{lead}None   (an input that needs no gradient)")
            continue
        text = node.name() + (f" → {_name(node.variable)}.grad" if node.name() == "AccumulateGrad" else "")
        again = not first and node.next_functions  # a node with inputs, written once already
        lines.append(f"{lead}{text}   (see above)" if again else lead + text)
    return lines


# -- values -----------------------------------------------------------------------------------------
def _from_torch(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def _live_value(pytorch: Any) -> Any:
    return pytorch.value if isinstance(pytorch, Live) else pytorch


def _plain(x: Any) -> Any:
    """Numbers, strings, bools, None and lists of them: what two results are compared as."""
    if isinstance(x, Live):
        return _plain(x.value)
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if hasattr(x, "tolist") and hasattr(x, "dtype"):  # a Tensor (micrograd2, torch or NumPy)
        return _plain(x.detach().tolist() if hasattr(x, "detach") else x.tolist())
    if hasattr(x, "item") and hasattr(x, "grad_fn"):  # a Value
        return x.item()
    return x


def _same(got: Any, expected: Any, rel: float, abs_: float) -> bool:
    """Equal in shape (a list is never its one item) and, number by number, within ``rel``/``abs_``."""
    if isinstance(expected, list):
        return (isinstance(got, list) and len(got) == len(expected)
                and all(_same(g, e, rel, abs_) for g, e in zip(got, expected)))
    if expected is None or isinstance(expected, (bool, str)) or isinstance(got, bool):
        return type(got) is type(expected) and got == expected
    if isinstance(expected, (int, float)):
        if not isinstance(got, (int, float)):
            return False
        if math.isnan(expected):
            return math.isnan(got)
        return got == expected or math.isclose(got, expected, rel_tol=rel, abs_tol=abs_)
    return bool(got == expected)


def _as_value(got: Any, theirs: Any) -> Any:
    """PyTorch's one-element tensor as the number a scalar ``Value`` holds: the lessons' scalar engine
    plays ``torch.tensor([2.0])`` with ``Value(2.0)``.  Any other shape is compared as it is."""
    a_value = hasattr(got, "grad_fn") and hasattr(got, "item") and not hasattr(got, "shape")
    scalar = a_value or (isinstance(got, (int, float)) and not isinstance(got, bool))
    return theirs[0] if scalar and isinstance(theirs, list) and len(theirs) == 1 else theirs


def _show(x: Any) -> str:
    if isinstance(x, Live):
        return _show(x.value)
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_show(i) for i in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
    return str(x)


def _short(text: str) -> str:
    return text if len(text) <= SHORT else text[:SHORT - 1] + "…"


def _first_line(exc: Any) -> str:
    return (str(exc).splitlines() or [""])[0]


def _name(v: Any) -> str:
    label = getattr(v, "label", None)
    return label if label else f"leaf {v!r}"


def _mark(ok: bool, stream: Any) -> str:
    """✓ or ✗, or OK and FAIL where the stream can't write them."""
    try:
        "✓✗│─┆└├".encode(getattr(stream or sys.stdout, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return "OK" if ok else "FAIL"
    return "✓" if ok else "✗"
