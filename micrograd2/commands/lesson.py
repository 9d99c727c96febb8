"""``micrograd2 lesson``: list, run and show the lessons (the article's experiments, narrated).

The lessons are the modules ``NN_name.py`` of the package ``micrograd2.lessons``
(the ``lessons/`` folder, mapped into the package at install time), found with
``pkgutil`` so they work after a plain install; in a source checkout run with
``PYTHONPATH=.`` the folder next to ``micrograd2/`` is loaded under the same name.
Each defines ``NUMBER``, ``TITLE``, ``GOAL`` and ``run(out: Story) -> LessonResult``.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import pkgutil
import re
import sys
import traceback
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import click

PACKAGE = "micrograd2.lessons"
LESSON_FILE = re.compile(r"^(\d\d)_\w+$")
VERBOSITIES = ("summary", "steps", "full")
GRAPH_SUFFIXES = (".svg", ".png", ".pdf", ".dot", ".gv")


# -- finding the lessons ---------------------------------------------------------------------------------
def lessons_package() -> ModuleType:
    """``micrograd2.lessons``, installed or (in a source checkout) loaded from ``lessons/``."""
    try:
        return importlib.import_module(PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != PACKAGE:
            raise
    import micrograd2

    folder = Path(micrograd2.__file__).resolve().parent.parent / "lessons"
    spec = importlib.util.spec_from_file_location(PACKAGE, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None or not (folder / "__init__.py").is_file():
        raise click.ClickException("the lessons are not installed: reinstall micrograd2 (pip install micrograd2)")
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)
    return package


def lesson_names() -> dict[int, str]:
    """Lesson number -> module name (``2 -> "02_backward"``), in order."""
    package = lessons_package()
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        match = LESSON_FILE.match(info.name)
        if match:
            found[int(match.group(1))] = info.name
    return dict(sorted(found.items()))


def load(number: int) -> ModuleType:
    """The lesson module with this number."""
    lessons_package()
    return importlib.import_module(f"{PACKAGE}.{lesson_names()[number]}")


def source(number: int) -> str:
    """The text of lesson ``number``'s file."""
    module = load(number)
    try:
        from importlib.resources import files

        return files(lessons_package()).joinpath(f"{lesson_names()[number]}.py").read_text(encoding="utf-8")
    except (OSError, TypeError, ModuleNotFoundError):
        return Path(module.__file__ or "").read_text(encoding="utf-8")


# -- the argument N | all --------------------------------------------------------------------------------
class LessonNumber(click.ParamType):
    """A lesson number, or ``all`` (where allowed); anything else lists the valid numbers."""

    name = "N"

    def __init__(self, allow_all: bool) -> None:
        self.allow_all = allow_all

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int) or (self.allow_all and value == "all"):
            return value
        numbers = lesson_names()
        text = str(value).strip()
        if text.isdigit() and int(text) in numbers:
            return int(text)
        valid = ", ".join(str(n) for n in numbers) + (" or all" if self.allow_all else "")
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
        module = load(number)
        click.echo(f"{number:>2}  {module.TITLE:<34} {module.GOAL}")


@command.command()
@click.argument("number", type=LessonNumber(allow_all=False))
def show(number: int) -> None:
    """Print lesson N's source, to read along."""
    click.echo(source(number), nl=False)


@command.command()
@click.argument("which", metavar="N|all", type=LessonNumber(allow_all=True))
@click.option("--verbosity", type=click.Choice(VERBOSITIES), default="steps", show_default=True,
              help="How much of each backward pass the tracer narrates.")
@click.option("--no-trace", is_flag=True, help="Don't narrate the backward passes.")
@click.option("--json", "as_json", is_flag=True, help="Write JSON lines only: the tracer's events and the checks.")
@click.option("--graph", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the lesson's graph (.svg, .png, .pdf; .dot without Graphviz).")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a step-through page of the lesson's main backward pass.")
@click.option("--no-color", is_flag=True, help="Plain text, no ANSI colours.")
def run(which: int | str, verbosity: str, no_trace: bool, as_json: bool, graph: Path | None,
        html: Path | None, no_color: bool) -> None:
    """Run lesson N, or all of them, narrated.

    Each result is checked against what PyTorch gives; exit 1 if one differs.
    """
    if graph is not None and graph.suffix.lower() not in GRAPH_SUFFIXES:
        raise click.BadParameter(f"the file must end in {', '.join(GRAPH_SUFFIXES)}", param_hint="--graph")
    numbers = list(lesson_names()) if which == "all" else [int(which)]
    problems: list[str] = []
    for number in numbers:
        problem = _run_one(number, verbosity, not no_trace, as_json, False if no_color else None,
                           _numbered(graph, number, len(numbers)), _numbered(html, number, len(numbers)))
        if problem:
            problems.append(problem)
    if problems:
        raise click.ClickException("; ".join(problems))


def _run_one(number: int, verbosity: str, trace: bool, as_json: bool, color: bool | None,
             graph: Path | None, html: Path | None) -> str | None:
    """Run one lesson; return what went wrong, or None."""
    module = load(number)
    kit = importlib.import_module(f"{PACKAGE}._kit")
    out = kit.Story(verbosity=verbosity, trace=trace, json=as_json, color=color, stream=sys.stdout,
                    record=html is not None)
    try:
        result = module.run(out)
    except Exception as exc:  # a broken lesson is a failure with a message, never a traceback
        where = _where(exc)
        return f"lesson {number} stopped: {type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}{where}"
    sys.stdout.flush()
    if as_json:
        summary = {"kind": "lesson", "lesson": number, "title": result.title, "checks": len(result.checks),
                   "failed": len(result.failures), "ok": result.ok}
        click.echo(json.dumps(summary))
    if graph is not None:
        _write_graph(result, graph, as_json)
    if html is not None:
        _write_html(result, html, as_json)
    if result.ok:
        return None
    if not result.checks:
        return f"lesson {number} checked nothing"
    first = result.failures[0]
    return (f"lesson {number}: {len(result.failures)} of {len(result.checks)} checks differ from PyTorch "
            f"(first: {first.what}: got {first.got}, expected {first.expected})")


def _write_graph(result: Any, path: Path, as_json: bool) -> None:
    if result.diagram is None:
        _tell(f"lesson {result.number} has no diagram to draw", as_json)
        return
    import micrograd2 as mg

    with _warnings_in_one_line():
        written = mg.render(result.diagram(), str(path))
    _tell(f"wrote {written}", as_json)


def _write_html(result: Any, path: Path, as_json: bool) -> None:
    if result.main_trace is None:
        _tell(f"lesson {result.number} has no backward pass to step through", as_json)
        return
    import micrograd2 as mg

    with _warnings_in_one_line():
        written = mg.viz.stepper(result.main_trace, str(path))
    _tell(f"wrote {written}", as_json)


@contextlib.contextmanager
def _warnings_in_one_line() -> Iterator[None]:
    """Say each warning (Graphviz missing…) as one line on stderr, not Python's two-line format."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        click.echo(f"warning: {str(w.message).splitlines()[0]}", err=True)


def _tell(text: str, as_json: bool) -> None:
    click.echo(text, err=as_json)


def _numbered(path: Path | None, number: int, count: int) -> Path | None:
    """With several lessons, one file each: ``graph.svg`` -> ``graph-02.svg``."""
    if path is None or count == 1:
        return path
    return path.with_name(f"{path.stem}-{number:02d}{path.suffix}")


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" (at {Path(last.filename).name}:{last.lineno})"
