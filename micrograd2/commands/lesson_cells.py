"""Run a percent-format lesson script cell by cell, as ``micrograd2 lesson run`` shows it.

``cells(text)`` splits a script at its ``# %%`` lines into code and prose
(``# %% [markdown]``) cells, each with the line where its source starts.
``run_script`` runs the code cells in order in one namespace, as ``python
SCRIPT.py`` would (``__name__ == "__main__"``, the script's folder first on
``sys.path``).  Before each code cell's output it prints the cell's source,
after it the narration of the backward passes run in that cell; prose cells
print as prose.  Each cell is compiled under the script's own file name at its
real line numbers, so tracebacks and anomaly reports point into the file.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import io
import re
import sys
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, TextIO

CELL = re.compile(r"^# %%(?P<rest>.*)$")
HEADING = re.compile(r"^#\s+Lesson\s+(?P<number>\d+):\s*(?P<title>.+?)\s*$")
_ANSI = {"title": "1;4", "heading": "1", "code": "36", "warn": "33", "error": "31"}


@dataclass
class Cell:
    """One cell: ``kind`` is ``"code"`` or ``"markdown"``; ``line`` is where ``source`` starts in the file."""

    kind: str
    source: str
    line: int


@dataclass
class Header:
    """A lesson's number, title and goal, read from its first prose cell (``# Lesson N: Title``)."""

    number: int | None
    title: str
    goal: str


def cells(text: str) -> list[Cell]:
    """The cells of a percent-format script (text before the first ``# %%`` is a code cell)."""
    found: list[Cell] = []
    kind, start, lines = "code", 1, []  # type: ignore[var-annotated]
    for number, line in enumerate(text.splitlines(), start=1):
        marker = CELL.match(line)
        if marker is None:
            lines.append(line)
            continue
        found.append(_cell(kind, lines, start))
        kind = "markdown" if "[markdown]" in marker.group("rest") else "code"
        start, lines = number + 1, []
    found.append(_cell(kind, lines, start))
    return [c for c in found if c.source.strip()]


def _cell(kind: str, lines: list[str], start: int) -> Cell:
    while lines and not lines[0].strip():
        lines, start = lines[1:], start + 1
    if kind == "markdown":
        lines = [line[2:] if line.startswith("# ") else line.lstrip("#") for line in lines]
    return Cell(kind, "\n".join(lines).rstrip() + "\n", start)


def header(text: str, fallback: str) -> Header:
    """The lesson's number, title and goal from its first prose cell; ``fallback`` names a file without one."""
    for cell in cells(text):
        if cell.kind != "markdown":
            continue
        paragraphs = [p.strip() for p in cell.source.split("\n\n") if p.strip()]
        heading = HEADING.match(paragraphs[0].splitlines()[0]) if paragraphs else None
        if heading:
            goal = " ".join(paragraphs[1].split()) if len(paragraphs) > 1 else ""
            return Header(int(heading.group("number")), heading.group("title"), goal)
        break
    return Header(None, fallback, "")


class Printer:
    """Writes what the runner shows around the cells: prose, code with a gutter, warnings."""

    def __init__(self, stream: TextIO, color: bool, quiet: bool) -> None:
        self.stream, self.color, self.quiet = stream, color, quiet

    def write(self, text: str, role: str = "") -> None:
        if self.quiet:
            return
        code = _ANSI.get(role)
        if self.color and code and text:
            text = f"\x1b[{code}m{text}\x1b[0m"
        self.stream.write(text + "\n")
        self.stream.flush()

    def prose(self, source: str) -> None:
        """Markdown as text: headings set apart, fenced code shown with a ``┆`` gutter."""
        self.write("")
        fenced = False
        for line in source.rstrip("\n").splitlines():
            if line.startswith("```"):
                fenced = not fenced
            elif fenced:
                self.write(f"  ┆ {line}".rstrip(), "code")
            elif line.startswith("# "):
                self.write(line[2:], "title")
            elif line.startswith("#"):
                self.write(line.lstrip("#").strip(), "heading")
            else:
                self.write(line)

    def code(self, source: str, line: int = 1, file: str = "") -> None:
        """A code cell's source with a ``│`` gutter, as ``echoed`` shortens it."""
        self.write("")
        for text in echoed(source, line, file):
            self.write(f"  │ {text}".rstrip(), "code")


# NOTE [What the runner echoes]
# The runner prints each code cell's source before its output, so that a class reads the code
# beside what it did. Two things would only lengthen that: blank lines, and the code of the checks,
# whose results follow at once, one ✓ line each naming what it checked. A run of check() or raises()
# calls is echoed as one line that says how many there are and where they are in the file.
CHECKS = ("check", "raises")


def echoed(source: str, line: int = 1, file: str = "") -> list[str]:
    """The lines of a code cell to echo (NOTE [What the runner echoes]); ``line`` is where it starts
    in ``file``."""
    lines = source.rstrip("\n").splitlines()
    try:
        body = ast.parse(source).body
    except SyntaxError:  # the run will say what is wrong: echo it as it is
        return [text for text in lines if text.strip()]
    runs: list[list[ast.stmt]] = [[]]
    for statement in body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in CHECKS:
            runs[-1].append(statement)
        elif runs[-1]:
            runs.append([])
    shown = list(lines)
    for run in runs:
        first, last = (run[0].lineno, run[-1].end_lineno or run[-1].lineno) if run else (0, 0)
        if last > first:
            where = f"{file}:{first + line - 1}-{last + line - 1}" if file else f"lines {first}-{last}"
            many = f" × {len(run)}  # {where}; each result below" if len(run) > 1 else \
                f"  # {where}; its result below"
            shown[first - 1] = f"{run[0].value.func.id}(...){many}"  # type: ignore[attr-defined]
            shown[first:last] = [""] * (last - first)
    return [text for text in shown if text.strip()]


@dataclass
class Stop:
    """Why a script stopped early: its error in one line, and the traceback through the script's lines."""

    error: str
    traceback: str = ""


def run_script(path: Path, text: str, narrator: Any, printer: Printer) -> Stop | None:
    """Run the script's cells in order in one namespace; return what stopped it, or None."""
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": str(path), "__builtins__": builtins}
    with _as_main(path):
        for cell in cells(text):
            if cell.kind == "markdown":
                printer.prose(cell.source)
                continue
            printer.code(cell.source, cell.line, path.name)
            stop = _run_cell(cell, path, namespace, narrator, printer)
            if stop is not None:
                return stop
    return None


def _run_cell(cell: Cell, path: Path, namespace: dict[str, Any], narrator: Any, printer: Printer) -> Stop | None:
    """Run one code cell (compiled at its real lines), each warning said where it is raised; then its
    narration (NOTE [A warning where it happens])."""
    stop = None
    with warnings.catch_warnings(), _quiet(printer.quiet):
        warnings.simplefilter("always")
        warnings.showwarning = _shown_by(printer, path)
        narrator.start()
        try:
            exec(compile("\n" * (cell.line - 1) + cell.source, str(path), "exec"), namespace)
        except SystemExit as exit_:
            if exit_.code not in (0, None):
                stop = Stop(f"the script exited: {exit_.code}")
        except Exception as exc:  # the lesson's own error: reported with its lines, never our frames
            first = (str(exc).splitlines() or [""])[0]
            stop = Stop(f"{type(exc).__name__}: {first}{_where(exc, path)}", script_traceback(exc, path))
        finally:
            told = narrator.stop()
    if told and narrator.json:
        sys.stdout.write(told + "\n")
    elif told:
        printer.write(told)
    return stop


# NOTE [A warning where it happens]
# A cell's warnings are said as they are raised, among the cell's own prints: a lesson's "the warning
# above" is above, and a warning raised by the code a check runs comes before that check's ✓ line.
# (A lesson that catches warnings itself, `catch_warnings(record=True)`, keeps them from the runner.)
def _shown_by(printer: Printer, path: Path) -> Any:
    """A ``warnings.showwarning`` that says each warning at once, in the runner's one-line form."""

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        w = warnings.WarningMessage(message, category, filename, lineno, file, line)
        sys.stdout.flush()  # the cell's prints so far come first
        for text in _warning_lines(w, path):
            printer.write(text, "warn")

    return show


def _warning_lines(w: warnings.WarningMessage, path: Path) -> list[str]:
    """A warning in one line, then, if it quotes a stack (anomaly mode's forward call), the script's frames."""
    lines = str(w.message).rstrip().splitlines() or [""]
    shown = [f"  {w.category.__name__}: {lines[0]}"]
    for i, line in enumerate(lines):
        if i and line.strip().startswith(f'File "{path}"'):
            shown.append(f"    {line.strip()}")
            if i + 1 < len(lines):
                shown.append(f"      {lines[i + 1].strip()}")
    return shown


@contextlib.contextmanager
def _as_main(path: Path) -> Iterator[None]:
    """``sys.argv`` and ``sys.path[0]`` as ``python SCRIPT.py`` sets them, restored afterwards."""
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(path)]
    sys.path.insert(0, str(path.parent))
    try:
        yield
    finally:
        sys.argv[:] = saved_argv
        sys.path[:] = saved_path


@contextlib.contextmanager
def _quiet(quiet: bool) -> Iterator[None]:
    """With ``quiet`` (``--json``), the script's own prints go nowhere: stdout is JSON lines only."""
    if not quiet:
        yield
        return
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def script_traceback(exc: BaseException, path: Path) -> str:
    """The traceback of ``exc`` through the script's lines only, then the error."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    lines = ["Traceback (most recent call last, the lesson's lines only):\n", *traceback.format_list(frames)]
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip("\n")


def _where(exc: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    if not frames:
        return ""
    return f" (at {path.name}, line {frames[-1].lineno})"
