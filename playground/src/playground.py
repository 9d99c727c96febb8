"""The playground's Python side: it runs in Pyodide, in the page's Web Worker (CPython in tests).

The worker imports this module as ``playground`` and calls ``setup`` once, then
``run`` for the editor's code and ``open_lesson`` / ``run_cell`` /
``finish_lesson`` for the lessons menu.  Each returns JSON text for the worker to
post to the page.  What the code prints goes to ``emit`` as it is printed, and is
returned too.  Diagrams are drawn by the renderer plugged into
``mg.viz.set_renderer`` (viz.js in the page).  ``show(x)`` puts a diagram in the
graph pane; so does a diagram (a Value, a Tensor, a ``mg.draw`` result) that is the
value of the code's last line, as Jupyter shows it.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import json
import linecache
import math
import re
import symtable
import sys
import traceback
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator

import micrograd2 as mg

EDITOR = "<editor>"  # the file name of the editor's code in tracebacks
NO_NUMPY = (
    "needs NumPy, which this page cannot load (it has no network): it and the cells that use what "
    "it makes are skipped, the others run; the summary counts them"
)

Emit = Callable[[str], None]


MAX_OUTPUT = 200_000  # characters of one run's output kept and shown; past them, one line says so


class Stream(io.TextIOBase):
    """A stdout that hands each finished line to ``emit`` at once and keeps it, up to MAX_OUTPUT
    characters (a loop that prints without end must not fill the worker's memory or the page)."""

    def __init__(self, emit: Emit) -> None:
        super().__init__()
        self.emit, self.parts, self.pending = emit, [], ""  # type: ignore[var-annotated]
        self.kept, self.cut = 0, False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.cut:
            return len(text)
        if self.kept + len(text) > MAX_OUTPUT:
            self.flush()
            text, self.cut = f"\n… (the output was cut after {MAX_OUTPUT:,} characters)\n", True
        self.kept += len(text)
        self.parts.append(text)
        self.pending += text
        if "\n" in self.pending:
            done, _, self.pending = self.pending.rpartition("\n")
            self.emit(done + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.emit(self.pending)
            self.pending = ""

    def text(self) -> str:
        return "".join(self.parts)


@dataclass
class Run:
    """What one run left: its output, the SVG of each diagram shown, its error (or None)."""

    output: str = ""
    svgs: list[str] = field(default_factory=list)
    error: str | None = None
    needs_numpy: bool = False
    skipped: bool = False  # a lesson's cell that did not run (NOTE [NumPy cells])

    def to_json(self) -> str:
        return json.dumps(
            {
                "output": self.output,
                "svgs": self.svgs,
                "error": self.error,
                "needsNumpy": self.needs_numpy,
                "skipped": self.skipped,
            }
        )


_shown: list[str] = []  # the SVGs ``show`` was given during the current run
_last_trace: Any = None  # the tracer of the last run's traced passes, for the step-through view


FORMATS = ("svg", "json0")  # what viz.js answers here: pictures, and layouts as JSON


def setup(render: Callable[[str, str], str]) -> str:
    """Draw diagrams with ``render(dot_source, fmt) -> text`` (``fmt``: svg, or json0 for the
    step-through page's layouts, NOTE [One layout per pass] in micrograd2/viz/stepper.py); return
    micrograd2's version."""

    def renderer(source: str, fmt: str, timeout_s: float) -> str:
        if fmt not in FORMATS:
            raise ValueError(f"the page draws SVG only, not {fmt}; save the diagram as .svg")
        return str(render(source, fmt))

    mg.viz.set_renderer(renderer)
    return mg.__version__


def picture(thing: Any) -> str | None:
    """The SVG of a diagram: a Value or Tensor (its graph), a ``mg.draw`` result, a ``Diagram``."""
    if hasattr(thing, "source") and hasattr(thing, "pipe"):  # a graphviz.Digraph
        return mg.viz.svg(thing)
    shown = getattr(thing, "_repr_svg_", None)
    if callable(shown):
        svg = shown()
        return svg if isinstance(svg, str) else None
    return None


def show(thing: Any) -> None:
    """Put the diagram of ``thing`` (a Value, Tensor or ``mg.draw`` result) in the graph pane."""
    svg = picture(thing)
    if svg is None:
        raise TypeError(
            f"show() draws a Value, a Tensor or a mg.draw(...) diagram, not "
            f"{type(thing).__name__}\nWhat to do: pass the result of a computation, e.g. show(z)."
        )
    _shown.append(svg)


def _steps_tracer() -> Any:
    """A tracer for the step-through view: the passes the narration traces (NOTE [A cell's passes]
    in micrograd2/lessons/narration.py)."""
    from micrograd2.lessons.narration import TRACED

    def pass_ended(tracer: Any, _pass: Any) -> None:
        if len(tracer.passes) >= TRACED and tracer.active:
            tracer.__exit__(None, None, None)

    return mg.trace(on_pass_end=pass_ended)


@contextlib.contextmanager
def _captured(emit: Emit) -> Iterator[Stream]:
    stream = Stream(emit)
    with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream):
        try:
            yield stream
        finally:
            stream.flush()


def _execute(source: str, filename: str, namespace: dict[str, Any]) -> Any:
    """Run ``source``; return the value of its last line if that is an expression (else None)."""
    tree = ast.parse(source, filename)
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr):
        last = None
    else:
        tree.body.pop()
    exec(compile(tree, filename, "exec"), namespace)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), filename, "eval"), namespace)


def _error(exc: BaseException, filename: str) -> str:
    """The error in the traceback of the user's own lines only."""
    if isinstance(exc, KeyboardInterrupt):
        return "KeyboardInterrupt: stopped by the Stop button"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    lines = (
        ["Traceback (most recent call last):\n", *traceback.format_list(frames)] if frames else []
    )
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip("\n")


def _remember(source: str, filename: str) -> None:
    """Let tracebacks quote the lines of ``source``."""
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)


def run(source: str, emit: Emit) -> str:
    """Run the editor's code in a fresh namespace and narrate its passes; JSON of a ``Run``."""
    global _last_trace
    from micrograd2.lessons.narration import CellNarrator

    _shown.clear()
    _remember(source, EDITOR)
    steps = _steps_tracer()
    narrator = CellNarrator(extra=(steps,))
    result, done = None, Run()
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins, "show": show}
    with _captured(emit) as stream:
        narrator.start()
        try:
            result = _execute(source, EDITOR, namespace)
        except (
            BaseException
        ) as exc:  # the user's error (KeyboardInterrupt: Stop), shown, never raised
            done.error = _error(exc, EDITOR)
        finally:
            told = narrator.stop()
        if told:
            print(told)
        done.svgs = _pictures(result)
    done.output = stream.text()
    _last_trace = steps if steps.passes else None
    return done.to_json()


def _pictures(result: Any) -> list[str]:
    """The diagrams ``show`` got, then the last line's value: drawn if it is one, else printed."""
    svgs = list(_shown)
    if result is not None:
        svg = picture(result)
        if svg is not None:
            svgs.append(svg)
        else:
            print(repr(result))
    return svgs


def stepper_page() -> str:
    """The step-through page (``mg.viz.stepper``) of the last run's traced passes, or "" if none."""
    if _last_trace is None:
        return ""
    path = "/tmp/playground_steps.html"
    mg.viz.stepper(_last_trace, path, title="micrograd2 playground: step through backward",
                   inline=False)  # its style and script: this origin's files (src/sanitize.js)
    with open(path, encoding="utf-8") as page:
        return page.read()


# ── the lessons menu ──────────────────────────────────────────────────────────────────────────

_LESSON = re.compile(r"^\d\d_\w+\.py$")


def lessons() -> str:
    """JSON list of the lessons shipped in the package: ``{name, number, title, goal}``."""
    from micrograd2.commands.lesson_cells import header

    found = []
    for item in sorted(resources.files("micrograd2.lessons").iterdir(), key=lambda p: p.name):
        if _LESSON.match(item.name):
            about = header(item.read_text(encoding="utf-8"), item.name)
            found.append(
                {
                    "name": item.name[:-3],
                    "number": about.number,
                    "title": about.title,
                    "goal": about.goal,
                }
            )
    return json.dumps(found)


@dataclass
class Skipped:
    """The cells of a lesson that did not run here, and the check calls they hold."""

    cells: int = 0
    checks: int = 0  # the check calls the skipped cells hold, or the rest of a cell stopped midway
    torch_checks: int = 0  # check calls under ``if torch:`` in cells that ran without PyTorch

    def add(self, checks: int) -> None:
        """One more cell skipped, holding ``checks`` check calls that did not run."""
        self.cells, self.checks = self.cells + 1, self.checks + checks


@dataclass
class Lesson:
    """The lesson being run: its cells, namespace, narrator, the names NumPy cells make."""

    name: str
    number: int | None
    filename: str
    cells: list[Any]
    namespace: dict[str, Any]
    narrator: Any
    missing: set[str] = field(default_factory=set)
    without_numpy: bool = False  # NOTE [A lesson that needs NumPy]
    numpy_said: bool = False  # NOTE [NumPy cells]: said once
    skipped: Skipped = field(default_factory=lambda: Skipped())


_lesson: Lesson | None = None


def open_lesson(name: str) -> str:
    """Load lesson ``name`` (``"04_detach_no_grad"``) in a fresh checks session; JSON, its cells."""
    global _lesson
    from micrograd2.commands.lesson_cells import cells, header
    from micrograd2.lessons import tools
    from micrograd2.lessons.narration import CellNarrator

    text = resources.files("micrograd2.lessons").joinpath(f"{name}.py").read_text(encoding="utf-8")
    about = header(text, name)
    filename = f"{name}.py"
    _remember(text, filename)
    tools.start_session(strict=False, lesson=about.number)  # a lesson's checks are its own
    namespace = {
        "__name__": "__main__",
        "__file__": filename,
        "__builtins__": builtins,
        "show": show,
    }
    _lesson = Lesson(
        name, about.number, filename, cells(text), namespace, CellNarrator(lesson=about.number)
    )
    return json.dumps([{"kind": c.kind, "source": c.source, "line": c.line} for c in _lesson.cells])


def run_cell(index: int, emit: Emit) -> str:
    """Run code cell ``index`` of the open lesson in the lesson's namespace; JSON of a ``Run``."""
    assert _lesson is not None, "open_lesson first"
    lesson, cell = _lesson, _lesson.cells[index]
    _shown.clear()
    done, result = Run(), None
    if lesson.without_numpy or _reads(cell.source, cell.line) & lesson.missing:  # NOTE [NumPy cells]
        lesson.skipped.add(_check_sites(cell.source))
        lesson.missing |= _assigned(cell.source, cell.line)
        done.needs_numpy = done.skipped = True
        return done.to_json()
    with _captured(emit) as stream:
        lesson.narrator.start()
        before, bound = _checks_so_far(), dict(lesson.namespace)
        if lesson.namespace.get("torch", False) is None:  # ``torch = live_torch()``: not here
            lesson.skipped.torch_checks += _check_sites(cell.source, torch_only=True)
        try:
            result = _execute(
                "\n" * (cell.line - 1) + cell.source, lesson.filename, lesson.namespace
            )
        except BaseException as exc:
            done.needs_numpy = (
                isinstance(exc, ImportError) and getattr(exc, "name", None) == "numpy"
            )
            if done.needs_numpy:
                _stopped_at_numpy(lesson, index, exc, bound, _checks_so_far() - before)
            else:
                done.error = _error(exc, lesson.filename)
        finally:
            told = lesson.narrator.stop()
        if told:
            print(told)
        done.svgs = list(_shown) + [svg for svg in [picture(result)] if result is not None and svg]
    done.output = stream.text()
    return done.to_json()


def _checks_so_far() -> int:
    from micrograd2.lessons import tools

    return len(tools.session().checks)


def _stopped_at_numpy(lesson: Lesson, index: int, exc: BaseException, bound: dict[str, Any],
                      ran: int) -> None:
    """A cell stopped at NumPy: say so once, count what it did not check, and mark the names it did
    not make (NOTE [NumPy cells])."""
    cell = lesson.cells[index]
    if index == _first_code_cell(lesson):
        lesson.without_numpy = True
        print(_needs_numpy_line(lesson))
    elif not lesson.numpy_said:
        print(f"  ⚠ this cell {NO_NUMPY}.")
    lesson.numpy_said = True
    lesson.skipped.add(max(_check_sites(cell.source) - ran, 0))
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == lesson.filename]
    stopped = frames[-1].lineno or cell.line if frames else cell.line
    lesson.missing |= {
        name for name in _assigned(cell.source, cell.line, after=stopped)
        if name not in lesson.namespace or lesson.namespace[name] is bound.get(name)
    }


# NOTE [A lesson that needs NumPy]
# A lesson whose first code cell stops at NumPy's import (lessons 6, 9 and 10: their tools or
# their tensors need it) has nothing to run without it.  The page says so in one line and runs
# none of its cells; its summary counts them as skipped.


def _first_code_cell(lesson: Lesson) -> int:
    """The index of the lesson's first code cell."""
    return next(i for i, c in enumerate(lesson.cells) if c.kind == "code")


def _needs_numpy_line(lesson: Lesson) -> str:
    """The one line a lesson that needs NumPy shows in the page."""
    number = lesson.number
    name = f"Lesson {number}" if number is not None else lesson.name
    run = f"micrograd2 lesson run {number}" if number is not None else "python FILE.py"
    return (f"  ⚠ {name} needs NumPy, which this page cannot load (it has no network): none of "
            f"its cells runs here. Run it where NumPy is installed: {run}.")


# NOTE [NumPy cells]
# A cell that needs NumPy stops at its first mg.tensor (or numpy import).  The names its statements
# from that line on would have made are missing or, worse, still hold the values of an earlier cell
# (a name the cell had already rebound before it stopped is fine: ``z_values = z`` keeps lesson 1's
# closing graph).  So a later cell that reads one of the missing names before it assigns it is not
# run (it would check stale values); its own names join the missing ones.  The page says so once,
# at the first such cell; the summary counts the cells skipped and the check calls they hold (a
# call in a loop counts once), and cells that do not read the missing names run as usual.


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _statements(source: str, line: int) -> Iterator[ast.AST]:
    """The nodes of a cell that starts at file line ``line``, not inside a function, class, lambda
    or comprehension (their names are not the cell's), line numbers as in the file."""
    tree = ast.parse(source)
    ast.increment_lineno(tree, line - 1)
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _reads(source: str, line: int) -> set[str]:
    """The names a cell reads from earlier cells: at its top level, those it reads before it assigns
    them; in its functions, lambdas and comprehensions, the globals it never assigns."""
    table = symtable.symtable(source, "<cell>", "exec")
    assigned = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    reads = {s.get_name() for s in table.get_symbols() if s.is_referenced()} - assigned
    scopes = list(table.get_children())
    while scopes:
        scope = scopes.pop()
        reads |= {s.get_name() for s in scope.get_symbols()
                  if s.is_global() and s.is_referenced() and s.get_name() not in assigned}
        scopes.extend(scope.get_children())
    stores: dict[str, int] = {}
    loads: list[ast.Name] = []
    for node in _statements(source, line):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = min(stores.get(node.id, node.lineno), node.lineno)
        elif isinstance(node, ast.Name):
            loads.append(node)
    return reads | {n.id for n in loads if stores.get(n.id, math.inf) >= n.lineno}


def _assigned(source: str, line: int, after: int = 0) -> set[str]:
    """The names a cell defines (assignments, imports, functions, classes), outside functions, in
    its statements on file lines ``after`` and later."""
    names: set[str] = set()
    for node in _statements(source, line):
        if getattr(node, "lineno", after) < after:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _check_sites(source: str, torch_only: bool = False) -> int:
    """The calls of ``check`` and ``raises`` in a cell (a call in a loop counts once); with
    ``torch_only``, those under an ``if`` whose test reads ``torch`` only."""
    tree = ast.parse(source)
    roots = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.If) and "torch" in _reads(ast.unparse(node.test), 1)
    ] if torch_only else [tree]
    return sum(
        isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("check", "raises")
        for root in roots for node in ast.walk(root)
    )


def finish_lesson(emit: Emit) -> str:
    """The lesson's closing line, if its own cells did not print it, and what did not run here;
    JSON ``{output, summary}`` (NOTE [NumPy cells])."""
    from micrograd2.lessons import tools

    assert _lesson is not None, "open_lesson first"
    session, name = tools.session(), _lesson_name(_lesson)
    skipped = _skipped_line(_lesson)
    with _captured(emit) as stream:
        if session.checks and not session.summarized:
            tools.summary(name)
        if skipped:
            print(f"  ⚠ {skipped}")
    line = tools.summary_line(session.checks, session.torch_version, name)
    if not session.checks:
        line = f"{name}: no check ran here." if skipped else ""
    return json.dumps({"output": stream.text(), "summary": f"{line} {skipped}".strip()})


def _lesson_name(lesson: Lesson) -> str:
    return f"Lesson {lesson.number}" if lesson.number is not None else lesson.name


def _skipped_line(lesson: Lesson) -> str:
    """What the page did not run, and why, in one sentence ("" if it ran everything)."""
    skipped, parts = lesson.skipped, []
    if skipped.cells:
        cells = f"{skipped.cells} cell" + ("s" if skipped.cells > 1 else "")
        checks = f"{skipped.checks} check" + ("s" if skipped.checks != 1 else "")
        parts.append(f"{cells} with {checks} need" + ("s" if skipped.cells == 1 else "") + " NumPy")
    if skipped.torch_checks:
        parts.append(f"{skipped.torch_checks} check" + ("s" if skipped.torch_checks > 1 else "")
                     + " need PyTorch")
    if not parts:
        return ""
    run = f"micrograd2 lesson run {lesson.number}" if lesson.number is not None else "python FILE.py"
    return f"Skipped here: {' and '.join(parts)}, which this page cannot load; {run} runs them all."


# ── the exercises ─────────────────────────────────────────────────────────────────────────────

WORKSPACE = (
    "/home/pyodide/exercises"  # the page's workspace (``micrograd2 exercise start``'s files)
)


def exercises() -> str:
    """JSON list of the classroom exercises: ``{id, title, filename, goal, timeout}``."""
    from micrograd2.exercises import catalog, grader

    return json.dumps(
        [
            {
                "id": e.id,
                "title": e.title,
                "filename": e.filename,
                "goal": e.goal,
                "timeout": grader.default_timeout(e.id),
            }
            for e in catalog.EXERCISES
        ]
    )


def exercise_stub(key: str) -> str:
    """The stub of exercise ``key``, as a fresh workspace has it."""
    from micrograd2.exercises import catalog, stubs

    return str(stubs.stub(catalog.get(key)))


# NOTE [Grading in the page]
# ``micrograd2 exercise check`` runs each exercise in a subprocess with RLIMIT_CPU, signals and a
# watchdog; Pyodide has none of these.  Here the runner's ``run`` (the same pytest run, the same
# report) runs in the worker's own process without a limit, and the page ends the worker when the
# exercise's time limit has passed (src/exercises.js).  The student's module is dropped from
# ``sys.modules`` first: the harness imports it once per process.  Importing pytest and the
# grader takes seconds the first time (4 s of a first check's 4.4 s, on a quiet 2-core machine),
# so the page does it with pytest's wheels (``prepare_grading``), before the clock starts.
def prepare_grading() -> str:
    """Import what grading needs (pytest, the runner, the harness) and make the workspace, once,
    before the first check: outside its time limit, which is then the exercise's own (NOTE
    [Grading in the page]); "" when done."""
    import pytest

    from micrograd2.exercises import catalog, reporting, runner, stubs  # noqa: F401

    workspace = Path(WORKSPACE)
    if not (workspace / "pytest.ini").exists():
        stubs.make_workspace(workspace, force=True)
    empty = workspace / ".warm-up"  # an empty folder: pytest collects nothing there
    empty.mkdir(exist_ok=True)
    with _captured(lambda _: None):  # pytest's first session: its plugins found and loaded
        pytest.main([str(empty), "-q", "--co", "-p", "no:cacheprovider", "-o", "addopts=",
                     "-c", str(catalog.PYTEST_INI), "--rootdir", str(catalog.HERE)])
    return ""


def check_exercise(key: str, source: str, emit: Emit) -> str:
    """Grade ``source`` as exercise ``key``'s module; JSON ``{output, status}`` (output: the table)."""
    import time

    from micrograd2.exercises import catalog, reporting, runner, stubs

    exercise = catalog.get(key)
    workspace = Path(WORKSPACE)
    if not (workspace / "pytest.ini").exists():
        stubs.make_workspace(workspace, force=True)
    (workspace / exercise.filename).write_text(source, encoding="utf-8")
    sys.modules.pop(exercise.name, None)  # NOTE [Grading in the page]
    began = time.perf_counter()
    with _captured(lambda _: None):  # pytest's own lines: the table says it all
        report = runner.run(exercise.id, workspace, workspace / "report.json")
    result = _graded(exercise, report, time.perf_counter() - began)
    with _captured(emit) as stream:
        print(reporting.render([result], width=100, verbose=True))  # the page takes no -v: all of it
    return json.dumps({"output": stream.text(), "status": result.status})


def _graded(exercise: Any, report: dict[str, Any], seconds: float) -> Any:
    """The runner's report as the grader's ``ExerciseResult`` (the table's row and diagnosis)."""
    from micrograd2.exercises.grader import default_timeout, result_of

    return result_of(exercise, report, "", False, default_timeout(exercise.id), seconds)

