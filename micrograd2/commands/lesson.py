"""``micrograd2 lesson``: list, run, show the lessons (the article's experiments, narrated), or write notebooks.

The lessons are the files ``NN_name.py`` of the package ``micrograd2.lessons``
(the ``lessons/`` folder, mapped into the package at install time; in a source
checkout ``micrograd2._checkout`` maps it the same way).  Each is a percent-format
script (``# %%`` cells) whose first prose cell reads ``# Lesson N: Title`` and then
its goal; ``lesson_cells`` runs it cell by cell.
"""
from __future__ import annotations

import importlib
import json
import pkgutil
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import click

from ..tracing.narrate import VERBOSITIES, use_color
from .diagram import graph_option, html_option, refused_page, too_long
from .engine import closing_line, engine_option, opening_line, say_engine
from .lesson_cells import Header, Printer, header, run_script
from .reference import reference_option
from .trace import warnings_in_one_line

PACKAGE = "micrograd2.lessons"
LESSON_FILE = re.compile(r"^(\d\d)_\w+$")


# -- finding the lessons ---------------------------------------------------------------------------------
def lessons_package() -> ModuleType:
    """``micrograd2.lessons`` (installed, or the checkout's ``lessons/`` folder)."""
    try:
        return importlib.import_module(PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != PACKAGE:
            raise
        raise click.ClickException(
            "the lessons are not installed: reinstall micrograd2 (pip install -e . in the micrograd2 folder)") from None


def lesson_names() -> dict[int, str]:
    """Lesson number -> module name (``2 -> "02_backward"``), in order."""
    package = lessons_package()
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        match = LESSON_FILE.match(info.name)
        if match:
            found[int(match.group(1))] = info.name
    return dict(sorted(found.items()))


def path_of(number: int) -> Path:
    """The file of lesson ``number``."""
    return Path(lessons_package().__path__[0]) / f"{lesson_names()[number]}.py"


def source(number: int) -> str:
    """The text of lesson ``number``'s file."""
    return path_of(number).read_text(encoding="utf-8")


def info(number: int) -> Header:
    """Lesson ``number``'s number, title and goal."""
    return header(source(number), lesson_names()[number])


# -- the argument N | all | PATH.py -----------------------------------------------------------------------
class LessonNumber(click.ParamType):
    """A lesson number, or ``all`` and a script's path (where allowed); anything else lists the valid numbers."""

    name = "N"

    def __init__(self, allow_all: bool) -> None:
        self.allow_all = allow_all

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, (int, Path)) or (self.allow_all and value == "all"):
            return value
        text = str(value).strip()
        if self.allow_all and text.endswith(".py"):
            path = Path(text)
            if not path.is_file():
                self.fail(f"there is no file {text!r}", param, ctx)
            return path
        numbers = lesson_names()
        if text.isdigit() and int(text) in numbers:
            return int(text)
        valid = ", ".join(str(n) for n in numbers) + (", all or a lesson file PATH.py" if self.allow_all else "")
        self.fail(f"there is no lesson {value!r}; choose one of {valid}", param, ctx)

    def shell_complete(self, ctx: click.Context, param: click.Parameter,
                       incomplete: str) -> list[click.shell_completion.CompletionItem]:
        from click.shell_completion import CompletionItem

        words = [str(n) for n in lesson_names()] + (["all"] if self.allow_all else [])
        return [CompletionItem(w) for w in words if w.startswith(incomplete)]


# -- the commands ------------------------------------------------------------------------------------------
@click.group()
def command() -> None:
    """The lessons: every experiment of the article, run on micrograd2 and narrated."""


@command.command("list")
def list_lessons() -> None:
    """Number, title and one-line goal of each lesson."""
    for number in lesson_names():
        about = info(number)
        click.echo(f"{number:>2}  {about.title:<34} {about.goal}")


@command.command()
@click.argument("number", type=LessonNumber(allow_all=False))
def show(number: int) -> None:
    """Print lesson N's file: a script to run (python FILE.py) or to copy and edit."""
    click.echo(source(number), nl=False)


@command.command()
@click.argument("number", type=LessonNumber(allow_all=False))
@click.option("-o", "--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The folder to write NN_name.ipynb into.")
@click.option("--force", is_flag=True,
              help="Overwrite NN_name.ipynb if it is already there (your edits in it are lost).")
def notebook(number: int, output_dir: Path, force: bool) -> None:
    """Write lesson N as a Jupyter notebook, NN_name.ipynb (needs: pip install 'micrograd2[notebook]').

    A notebook already there is left as it is (it may hold your edits) unless you pass --force."""
    from .lesson_notebook import write_notebook

    written = write_notebook(source(number), output_dir / f"{lesson_names()[number]}.ipynb", force=force)
    click.echo(f"wrote {written}")


@dataclass
class Options:
    """How ``lesson run`` runs and shows a lesson."""

    verbosity: str = "steps"
    trace: bool = True
    json: bool = False
    color: bool = False
    graph: Path | None = None
    html: Path | None = None
    interactive: bool = False  # predictions wait for the student's answer


@dataclass
class Ran:
    """One lesson's run: its name, its checks, what stopped it (if anything) and the PyTorch it used."""

    name: str
    checks: list[Any] = field(default_factory=list)
    problem: str | None = None
    torch_version: str | None = None


@command.command()
@click.argument("which", metavar="N|all|PATH.py", type=LessonNumber(allow_all=True))
@click.option("--verbosity", type=click.Choice(VERBOSITIES), default="steps", show_default=True,
              help="How much of each backward pass the tracer narrates.")
@click.option("--no-trace", is_flag=True, help="Don't narrate the backward passes.")
@click.option("--json", "as_json", is_flag=True, help="Write JSON lines only: the tracer's events and the checks.")
@graph_option("the lesson (its last show_graph)")
@html_option("the lesson's backward passes")
@click.option("--no-color", is_flag=True, help="Plain text, no ANSI colours.")
@click.option("--interactive", is_flag=True,
              help="Wait for your answer to each prediction the lesson asks for (predictions.json).")
@reference_option()
@engine_option()
def run(which: int | str | Path, verbosity: str, no_trace: bool, as_json: bool, graph: Path | None,
        html: Path | None, no_color: bool, interactive: bool) -> None:
    """Run lesson N, all of them, or a lesson file of yours, cell by cell and narrated.

    Each result is checked (against PyTorch run live where it is installed); exit 1 if a check fails.
    Ctrl-C stops the run: what finished is listed, and the exit status is 130.
    """
    targets: list[int | Path] = list(lesson_names()) if which == "all" else [which]  # type: ignore[list-item]
    color = use_color(False if no_color else None, sys.stdout)
    say_engine(as_json)
    done: list[Ran] = []
    try:
        for target in targets:
            tag = target if isinstance(target, int) else None
            options = Options(verbosity, not no_trace, as_json, color and not as_json,
                              _numbered(graph, tag, len(targets)), _numbered(html, tag, len(targets)),
                              interactive=interactive)
            done.append(_run_one(target, options))
    except KeyboardInterrupt:
        _stopped(done, len(targets))
    if len(done) > 1:
        _overall(done, as_json)
    problems = [r.problem for r in done if r.problem]
    if problems:
        raise click.ClickException("; ".join(problems))


def _run_one(target: int | Path, options: Options) -> Ran:
    """Run one lesson script cell by cell; write its graph and page."""
    path = target if isinstance(target, Path) else path_of(target)
    text = path.read_text(encoding="utf-8")
    about = header(text, path.name)
    name = f"lesson {about.number}" if isinstance(target, int) else path.name
    ran, html_trace, session = _run_cells(path.resolve(), text, about, name, options)
    if options.json:
        _lesson_record(about, ran)
    if options.graph is not None:
        _write_graph(name, session.graph, options.graph, options.json)
    if options.html is not None:
        _write_html(name, html_trace, options.html, options.json)
    return ran


def _run_cells(path: Path, text: str, about: Header, name: str, options: Options) -> tuple[Ran, Any, Any]:
    """Run a script lesson cell by cell in a fresh tools session; report what went wrong in ``Ran``."""
    from ..lessons import tools
    from ..lessons.narration import CellNarrator

    session = tools.start_session(json=options.json, color=options.color, stream=sys.stdout, strict=False,
                                  lesson=about.number, interactive=options.interactive)
    html_trace = None
    if options.html is not None:
        import micrograd2 as mg

        html_trace = mg.trace()
    narrator = CellNarrator(options.verbosity, options.color, options.json, lesson=about.number,
                                  extra=(html_trace,) if html_trace is not None else (), narrate=options.trace)
    stop = run_script(path, text, narrator, Printer(sys.stdout, options.color, options.json))
    if stop is None and session.checks and not session.summarized:
        tools.summary(f"Lesson {about.number}" if about.number is not None else path.name)
    ran = Ran(name, list(session.checks), None, session.torch_version)
    if stop is not None:
        if stop.traceback:
            click.echo(stop.traceback, err=True)
        ran.problem = f"{name} stopped: {stop.error}"
    elif not session.checks and name.startswith("lesson"):
        ran.problem = f"{name} checked nothing"
    elif session.failures:
        first = session.failures[0]
        ran.problem = (f"{name}: {len(session.failures)} of {len(session.checks)} checks fail "
                       f"(first: {first.label}: got {first.got}, expected {first.expected})")
    engine = closing_line()  # on a student's engine: the pieces that differ from the reference
    if engine:
        before = f"{ran.problem};" if ran.problem else f"{name}: checks pass, but"
        ran.problem = f"{before} {engine}"
    return ran, html_trace, session


def _stopped(done: list[Ran], count: int) -> None:
    """Ctrl-C: say which lessons finished, and how, then exit with status 130 (as ``exercise check``)."""
    finished = ", ".join(f"{r.name} {'✓' if r.problem is None else '✗'}" for r in done) or "none"
    click.echo(f"\nstopped (Ctrl-C) after {len(done)} of {count} lessons; finished: {finished}", err=True)
    sys.exit(130)


def _lesson_record(about: Header, ran: Ran) -> None:
    failed = sum(not c.ok for c in ran.checks)
    click.echo(json.dumps({"kind": "lesson", "lesson": about.number, "title": about.title,
                           "checks": len(ran.checks), "failed": failed,
                           "live": sum(c.against == "live" for c in ran.checks),
                           "recorded": sum(c.against == "recorded" for c in ran.checks),
                           "ok": ran.problem is None, "engine": opening_line()}))


def _overall(done: list[Ran], as_json: bool) -> None:
    """The one-line summary of ``run all``."""
    from ..lessons.tools import summary_line

    checks = [c for r in done for c in r.checks]
    version = next((r.torch_version for r in done if r.torch_version), None)
    line = summary_line(checks, version, f"All {len(done)} lessons")
    if as_json:
        click.echo(json.dumps({"kind": "summary", "lessons": len(done), "checks": len(checks),
                               "failed": sum(not c.ok for c in checks), "text": line}))
    else:
        click.echo(f"\n{line}")


def _write_graph(name: str, graph: Any, path: Path, as_json: bool) -> None:
    if graph is None:
        _tell(f"{name} shows no graph (show_graph), so there is none to draw", as_json)
        return
    import micrograd2 as mg

    root, view = graph
    with warnings_in_one_line():
        written = _or_fail(path, lambda: mg.render(mg.draw(root, view=view), str(path)))
    _tell(f"wrote {written}", as_json)


def _write_html(name: str, trace: Any, path: Path, as_json: bool) -> None:
    if trace is None or not trace.backward_events():
        hint = " (lesson 2 steps through the backward pass of lesson 1's graph)" if name == "lesson 1" else ""
        _tell(f"{name} runs no backward pass, so there is nothing to step through: no page was written{hint}",
              as_json)
        return
    found = too_long(trace.events)
    if found is not None:
        click.echo(refused_page(path, f"{name}'s", found), err=True)
        return
    import micrograd2 as mg

    with warnings_in_one_line():
        written = _or_fail(path, lambda: mg.viz.stepper(trace, str(path),
                                                        title=f"micrograd2 {name}: step through backward"))
    _tell(f"wrote {written}", as_json)


def _or_fail(path: Path, write: Callable[[], str]) -> str:
    """``write()`` the file ``path``; Graphviz timing out or failing ends the command with its message."""
    try:
        return write()
    except (RuntimeError, OSError) as exc:  # viz.render.GraphvizTimeout is a RuntimeError
        raise click.ClickException(f"could not write {path}: {exc}") from None


def _tell(text: str, as_json: bool) -> None:
    click.echo(text, err=as_json)


def _numbered(path: Path | None, number: int | None, count: int) -> Path | None:
    """With several lessons, one file each: ``graph.svg`` -> ``graph-02.svg``."""
    if path is None or count == 1 or number is None:
        return path
    return path.with_name(f"{path.stem}-{number:02d}{path.suffix}")
