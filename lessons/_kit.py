"""The lessons' shared kit: show code as it runs, narrate its traces, check each result against PyTorch.

A lesson is a module with ``NUMBER``, ``TITLE``, ``GOAL`` and ``run(out: Story) -> LessonResult``.
``run`` tells a short story through a ``Story``:

* ``out.section(title)`` and ``out.say(text)``: headings and prose;
* ``out.article(code, where)``: the article's own PyTorch code, shown (not run), credited;
* ``ns = out.run(code, ns, trace=True)``: our code, shown, then run in ``ns`` (its ``print``s,
  warnings and — with ``trace=True`` — the tracer's narration of every backward pass appear below it);
* ``out.fails(code, ns, RuntimeError, "phrase")``: code that must raise: the error is shown and checked;
* ``out.check(what, got, expected, torch=...)``: one ✓/✗ line, ``expected`` being what PyTorch gives
  (copied from a real torch 2.13 run into the lesson), ``torch`` how PyTorch printed it;
* ``out.tree(root)``: the autograd graph as text; ``out.diagram(root)``: the graph ``--graph`` draws.

With ``json=True`` nothing but JSON lines is written: the tracer's events and the checks.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import linecache
import math
import os
import sys
import textwrap
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, TextIO

import micrograd2 as mg
from micrograd2.tracing.narrate import VERBOSITIES  # defined once, in the tracer

MAX_TREE_LINES = 40
WIDTH = 100  # error messages are wrapped to this width
SHORT = 110  # a check line shows at most this much of a value
LONG = 6  # a longer sequence is shown by its first items and its length

_ANSI = {"title": "1;4", "section": "1", "code": "36", "out": "", "ok": "32", "bad": "31;1", "error": "31",
         "warn": "33", "note": "2"}


@dataclass
class Check:
    """One comparison of our result with PyTorch's."""

    what: str
    ok: bool
    got: str
    expected: str
    torch: str | None = None

    def to_dict(self, lesson: int) -> dict[str, Any]:
        return {"kind": "check", "lesson": lesson, "what": self.what, "ok": self.ok, "got": self.got,
                "expected": self.expected, "torch": self.torch}


@dataclass
class LessonResult:
    """What a lesson did: its checks, its traces, and what ``--graph`` and ``--html`` draw."""

    number: int
    title: str
    checks: list[Check] = field(default_factory=list)
    main_trace: Any = None
    diagram: Callable[[], Any] | None = None

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    @property
    def ok(self) -> bool:
        return bool(self.checks) and not self.failures


class Story:
    """Where a lesson writes: text for a student (or JSON lines), plus the checks it collects."""

    def __init__(self, verbosity: str = "steps", trace: bool = True, json: bool = False,
                 color: bool | None = None, stream: TextIO | None = None, record: bool = False) -> None:
        if verbosity not in VERBOSITIES:
            raise ValueError(f"verbosity must be one of {', '.join(VERBOSITIES)}, got {verbosity!r}")
        self.verbosity = verbosity
        self.narrating = trace and not json
        self.recording = trace  # the lesson's tracer records (then narrated, or written as JSON lines)
        self.record_main = record  # record the main trace even with trace=False (for --html)
        self._session: Any = None
        self._blocks = 0
        self._namespaces: list[dict[str, Any]] = []
        self.json = json
        self.stream = stream if stream is not None else sys.stdout
        self.color = _use_color(color, self.stream) and not json
        self.result = LessonResult(0, "")
        self._marks = _marks(self.stream)

    # -- the story's text ---------------------------------------------------------------------------
    def lesson(self, number: int, title: str, goal: str) -> None:
        """Start the lesson: its number, title and goal."""
        self.result = LessonResult(number, title)
        self._write("")
        self._write(f"Lesson {number}: {title}", "title")
        self._write(goal, "note")

    def section(self, title: str) -> None:
        self._write("")
        self._write(f"── {title} " + "─" * max(3, 76 - len(title)), "section")

    def say(self, text: str) -> None:
        """A paragraph of the story (dedented; the author's line breaks are kept)."""
        self._write("")
        for line in textwrap.dedent(text).strip("\n").splitlines():
            self._write(line)

    def article(self, code: str, where: str) -> None:
        """Show the article's PyTorch code (not run): ``where`` says which block."""
        self._write("")
        self._write(f"The article's code ({where}), PyTorch:", "note")
        for line in textwrap.dedent(code).strip("\n").splitlines():
            self._write(f"  ┆ {line}".rstrip(), "note")

    # -- running code ---------------------------------------------------------------------------------
    def namespace(self, ns: dict[str, Any] | None = None) -> dict[str, Any]:
        """A namespace for lesson code: ``mg`` and a ``print`` that writes into the story."""
        if ns is None:
            ns = {}
            self._namespaces.append(ns)  # keep the lesson's values alive for --graph and --html
        ns.setdefault("mg", mg)
        ns["print"] = self._print
        return ns

    def run(self, code: str, ns: dict[str, Any] | None = None, *, trace: bool = False,
            main: bool = False) -> dict[str, Any]:
        """Show ``code``, run it in ``ns`` and return ``ns``.

        With ``trace=True`` the run is recorded by the lesson's tracer (one ``mg.trace()``
        entered for each traced block, so names and step numbers carry on from block to
        block) and what autograd did is narrated below the code's own output.
        ``main=True`` (implies ``trace``) also records the block into the lesson's main
        trace: the one ``--html`` steps through.
        """
        ns = self.namespace(ns)
        source = self._show(code)
        with _warnings_shown(self), self._tracing(trace or main, main):
            exec(self._compile(source), ns)
        return ns

    def fails(self, code: str, ns: dict[str, Any] | None, error: type[BaseException], phrase: str, *,
              what: str | None = None, torch: str | None = None, trace: bool = False) -> BaseException | None:
        """Show ``code``, run it, and check that it raises ``error`` with ``phrase`` in its message.

        The error is shown as Python would print it (without the traceback) and returned.
        """
        ns = self.namespace(ns)
        source = self._show(code)
        raised: BaseException | None = None
        with _warnings_shown(self), self._tracing(trace, False):
            try:
                exec(self._compile(source), ns)
            except error as exc:
                raised = exc
        name = error.__name__
        if raised is None:
            self._record(Check(what or f"raises {name}", False, "no error", f"{name}: {phrase}", torch))
            return None
        self._show_error(raised)
        found = phrase in str(raised)
        got = f"{type(raised).__name__}: {phrase if found else _first_line(raised)}"
        self._record(Check(what or f"raises {name}", found, _short(got), f"{name}: {phrase}", torch))
        return raised

    # -- checks -----------------------------------------------------------------------------------------
    def check(self, what: str, got: Any, expected: Any, *, torch: str | None = None,
              rel: float = 1e-9, abs: float = 0.0) -> bool:
        """✓ if ``got`` equals ``expected`` (numbers within ``rel``/``abs``, sequences item by item)."""
        ok = _same(got, expected, rel, abs)
        self._record(Check(what, ok, _short(_show_value(got)), _short(_show_value(expected)), torch))
        return ok

    def expect(self, what: str, ok: bool, got: Any, *, torch: str | None = None, expected: str = "") -> bool:
        """✓ if ``ok``: for results that are a property rather than a number (``got`` is shown)."""
        self._record(Check(what, bool(ok), _short(_show_value(got)), expected or "true", torch))
        return bool(ok)

    # -- graphs -------------------------------------------------------------------------------------------
    def tree(self, root: Any, title: str | None = None) -> None:
        """Draw ``root``'s autograd graph as text: each node, then the nodes its gradients go to."""
        self._write("")
        if title:
            self._write(title, "note")
        for line in graph_lines(root):
            self._write(f"  {line}", "code")

    def diagram(self, root: Any, view: str = "autograd", **options: Any) -> None:
        """Make ``root``'s graph the one ``--graph FILE`` draws (with ``mg.draw``)."""
        self.result.diagram = lambda: mg.draw(root, view=view, **options)

    def done(self) -> LessonResult:
        """End the lesson with a line saying how many checks matched PyTorch; return the result."""
        result = self.result
        n, bad = len(result.checks), len(result.failures)
        self._write("")
        if bad:
            self._write(f"{self._marks[1]} Lesson {result.number}: {bad} of {n} checks differ from PyTorch.", "bad")
        else:
            self._write(f"{self._marks[0]} Lesson {result.number}: all {n} checks match PyTorch.", "ok")
        return result

    # -- internals ------------------------------------------------------------------------------------------
    def _compile(self, source: str) -> Any:
        """Compile a block under its own name, its lines known to ``linecache`` (so tracebacks
        and anomaly mode's forward stacks can quote the lesson's code)."""
        self._blocks += 1
        name = f"<lesson {self.result.number}, block {self._blocks}>"
        linecache.cache[name] = (len(source), None, source.splitlines(keepends=True), name)
        return compile(source, name, "exec")

    def _show(self, code: str) -> str:
        source = textwrap.dedent(code).strip("\n")
        self._write("")
        for line in source.splitlines():
            self._write(f"  │ {line}".rstrip(), "code")
        return source + "\n"

    def _show_error(self, exc: BaseException) -> None:
        """The error as Python prints it, without the traceback, wrapped to the page."""
        text = f"{type(exc).__name__}: {exc}"
        for line in text.splitlines():
            for part in textwrap.wrap(line, WIDTH, subsequent_indent="    ") or [""]:
                self._write(f"  {part}", "error")

    def _print(self, *args: Any, sep: str = " ", end: str = "\n", **_: Any) -> None:
        text = sep.join(_show_value(a) if not isinstance(a, str) else a for a in args) + end
        for line in text.rstrip("\n").split("\n"):
            self._write(f"  {line}", "out")

    @contextlib.contextmanager
    def _tracing(self, trace: bool, main: bool) -> Iterator[None]:
        """Record the block with the lesson's tracer (and its main trace); narrate what is new."""
        tracers = []
        if trace and self.recording:
            self._session = self._session or mg.trace()
            tracers.append(self._session)
        if main and (self.recording or self.record_main):
            self.result.main_trace = self.result.main_trace or mg.trace()
            tracers.append(self.result.main_trace)
        with contextlib.ExitStack() as stack:
            for t in tracers:
                stack.enter_context(t)
            yield
        if self._session is not None and self._session in tracers:
            self._told(self._session)
            self._session.clear()

    def _told(self, t: Any) -> None:
        """Write the events ``t`` recorded since it was last cleared: narrated, or as JSON lines."""
        if self.json:
            for line in t.to_json().splitlines():
                record = json.loads(line)
                record["lesson"] = self.result.number
                self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        elif self.narrating:
            text = t.narrate(verbosity=self.verbosity, color=self.color)
            if text.strip():
                self._write("")
                self._write("  What autograd did (the tracer's narration):", "note")
                for line in text.splitlines():
                    self.stream.write(f"    {line}".rstrip() + "\n")

    def _record(self, check: Check) -> None:
        self.result.checks.append(check)
        if self.json:
            self.stream.write(json.dumps(check.to_dict(self.result.number)) + "\n")
            return
        mark = self._marks[0] if check.ok else self._marks[1]
        line = f"  {mark} {check.what}: {check.got}"
        if not check.ok:
            line += f"   (expected {check.expected})"
        if check.torch:
            line += f"   PyTorch: {check.torch}"
        self._write(line, "ok" if check.ok else "bad")

    def _write(self, text: str, role: str = "out") -> None:
        if self.json:
            return
        code = _ANSI.get(role, "")
        if self.color and code and text:
            text = f"\x1b[{code}m{text}\x1b[0m"
        self.stream.write(text + "\n")


# -- helpers ---------------------------------------------------------------------------------------------
def graph_lines(root: Any) -> list[str]:
    """``root``'s autograd graph as indented text, from its ``grad_fn`` down to the ``AccumulateGrad``s.

    A node reached a second time is written once more with "(see above)"; no recursion.
    """
    start = getattr(root, "grad_fn", None)
    if start is None:
        return [f"{_name(root)} is a leaf: no grad_fn, nothing to walk"]
    lines: list[str] = []
    seen: set[int] = set()
    stack: list[tuple[Any, str, str]] = [(start, "", "")]
    while stack:
        node, lead, rest = stack.pop()
        if len(lines) >= MAX_TREE_LINES:
            lines.append("… (graph continues)")
            break
        if node is None:
            lines.append(f"{lead}None   (an input that needs no gradient)")
            continue
        text = node.name()
        if text == "AccumulateGrad":
            text += f" → {_name(node.variable)}.grad"
        if id(node) in seen and node.next_functions:
            lines.append(f"{lead}{text}   (see above)")
            continue
        seen.add(id(node))
        lines.append(lead + text)
        children = [n for n, _ in node.next_functions]
        for i in reversed(range(len(children))):
            last = i == len(children) - 1
            stack.append((children[i], rest + ("└── " if last else "├── "), rest + ("    " if last else "│   ")))
    return lines


def _name(v: Any) -> str:
    label = getattr(v, "label", None)
    return label if label else f"leaf {v!r}"


def _same(got: Any, expected: Any, rel: float, abs_: float) -> bool:
    if isinstance(expected, (list, tuple)):
        return (isinstance(got, (list, tuple)) and len(got) == len(expected)
                and all(_same(g, e, rel, abs_) for g, e in zip(got, expected)))
    if expected is None or isinstance(expected, (bool, str)):
        return type(got) is type(expected) and got == expected
    if isinstance(expected, (int, float)):
        number = getattr(got, "data", got)
        if not isinstance(number, (int, float)) or isinstance(number, bool):
            return False
        if math.isnan(expected):
            return math.isnan(number)
        return number == expected or math.isclose(number, expected, rel_tol=rel, abs_tol=abs_)
    return bool(got == expected)


def _show_value(x: Any) -> str:
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, (list, tuple)) and len(x) > LONG:
        head = ", ".join(f"{v:.6g}" if isinstance(v, float) else _show_value(v) for v in x[:3])
        return f"[{head}, … ({len(x)} values)]"
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_show_value(i) for i in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
    return str(x)


def _short(text: str) -> str:
    return text if len(text) <= SHORT else text[:SHORT - 1] + "…"


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [""])[0]


def _use_color(color: bool | None, stream: Any) -> bool:
    if color is not None:
        return color
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _marks(stream: Any) -> tuple[str, str]:
    """✓ and ✗, or OK and FAIL where the stream can't write them."""
    try:
        "✓✗│─┆└├".encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return "OK", "FAIL"
    return "✓", "✗"


class _warnings_shown:
    """Show the warnings raised while lesson code runs as Python would, one line each, in the story."""

    def __init__(self, story: Story) -> None:
        self.story = story
        self.catcher = warnings.catch_warnings(record=True)

    def __enter__(self) -> None:
        self.caught = self.catcher.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: object) -> None:
        self.catcher.__exit__(*exc)
        for w in self.caught or ():
            lines = str(w.message).rstrip().splitlines() or [""]
            shown = lines if len(lines) <= 3 else [lines[0], "  …", *lines[-2:]]  # a stack: its innermost frame
            self.story._write(f"  {w.category.__name__}: {shown[0]}", "warn")
            for line in shown[1:]:
                self.story._write(f"    {line}", "warn")


def main(run: Callable[[Story], LessonResult], argv: list[str] | None = None) -> int:
    """Run one lesson as a script (``python lessons/02_backward.py``): 0 if all its checks hold, else 1."""
    parser = argparse.ArgumentParser(description="Run this lesson (micrograd2 lesson run N does the same).")
    parser.add_argument("--verbosity", choices=VERBOSITIES, default="steps")
    parser.add_argument("--no-trace", action="store_true", help="don't narrate the backward passes")
    parser.add_argument("--no-color", action="store_true")
    args = parser.parse_args(argv)
    story = Story(verbosity=args.verbosity, trace=not args.no_trace, color=False if args.no_color else None)
    try:
        result = run(story)
    except Exception as exc:  # a lesson that breaks is reported, not dumped
        where = traceback.extract_tb(exc.__traceback__)[-1]
        print(f"lesson failed: {type(exc).__name__}: {_first_line(exc)} ({where.filename}:{where.lineno})",
              file=sys.stderr)
        return 1
    return 0 if result.ok else 1
