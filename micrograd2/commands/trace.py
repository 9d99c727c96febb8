"""``micrograd2 trace SCRIPT.py [-- ARGS]``: run a student's own script under a tracer and narrate every
backward pass.

The script runs as ``python SCRIPT.py ARGS`` would run it (``__name__ ==
"__main__"``, ``sys.argv`` = the script and ARGS, its folder first on
``sys.path``); each backward pass is narrated as soon as it ends, so the
narration sits between the script's own prints.  ``--graph`` and ``--html``
draw the script's first backward pass, as ``lesson run`` draws a lesson's.  If
the script raises, the narration so far is printed, then the script's error
with a traceback of the student's code only, and the exit code is 1.
"""
from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
import warnings
from pathlib import Path
from typing import Callable, Iterator, Sequence

import click

from ..tracing import Pass, Tracer, format_value, trace
from ..tracing.narrate import VERBOSITIES, narrate
from .diagram import graph_option, html_option, refused_page, too_long
from .engine import closing_line, engine_option, say_engine
from .reference import reference_option

_PACKAGE = str(Path(__file__).resolve().parents[1])

# NOTE [A failed script]
# A script that raises gets, in this order: the narration of the passes it finished, the passes
# that failed before their first step, its own traceback, then what came of it ("ran no backward
# pass", "no graph written").  A script that does not compile (a SyntaxError) never ran: nothing
# is said of its backward passes, only its error.


class _Narrator:
    """Prints what the tracer recorded, pass by pass, then forgets it (a long script stays small).

    With ``graph``/``html`` paths, the first backward pass is also drawn, before it is forgotten."""

    def __init__(self, verbosity: str, color: bool, as_json: bool, graph: Path | None = None,
                 html: Path | None = None) -> None:
        self.verbosity, self.color, self.as_json = verbosity, color, as_json
        self.graph, self.html = graph, html
        self.narrated: set[int | None] = set()
        self.drawn = self.reader_gone = self.failed = False  # failed: a --graph/--html file was not written
        self.said: list[tuple[str, bool]] = []  # what drawing had to say: (line, to stderr), after the pass

    def pass_ended(self, tracer: Tracer, finished: Pass) -> None:
        if self.reader_gone:
            tracer.clear()
            return
        try:
            if not self.drawn and (self.graph or self.html):
                self.drawn = True
                self.draw(tracer, finished.pass_no)  # before flush forgets the pass
            self.flush(tracer)
            for text, err in self.said:  # "wrote g.svg" follows the narration of the pass it draws
                click.echo(text, err=err)
            self.said.clear()
        except BrokenPipeError:  # `micrograd2 trace … | head`: say nothing more, the script ends as it would
            self.reader_gone = True
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    def draw(self, tracer: Tracer, pass_no: int) -> None:
        """Write the graph and the step-through page of backward pass ``pass_no`` (still in ``tracer``)."""
        import micrograd2 as mg

        from ..viz.dot import digraph
        from ..viz.graph import from_pass

        found = too_long(tracer.events, pass_no)
        with warnings_in_one_line(self.said):
            if self.graph is not None:
                self.attempt(self.graph, lambda: mg.render(digraph(from_pass(tracer, pass_no)), str(self.graph)))
            if self.html is not None and found is not None:  # a warning: the script ran, the rest was written
                self.said.append((refused_page(self.html, "the script's first", found), True))
            elif self.html is not None:
                self.attempt(self.html, lambda: mg.viz.stepper(tracer, str(self.html)))

    def attempt(self, path: Path, write: Callable[[], str]) -> None:
        """``write()`` the file ``path``; a failure is one line on stderr (the script goes on)."""
        try:
            self.said.append((f"wrote {write()}", self.as_json))
        except BrokenPipeError:
            raise
        except Exception as exc:  # Graphviz timing out, a folder that can't be written…
            self.failed = True
            self.said.append((f"(could not write {path}: {type(exc).__name__}: {str(exc).splitlines()[0]})",
                              True))

    def flush(self, tracer: Tracer) -> None:
        if tracer.events:
            self.narrated.update(e.pass_no for e in tracer.events)
            if self.as_json:
                click.echo(tracer.to_json())
            else:
                text = narrate(tracer.events, tracer.passes, self.verbosity, color=self.color,
                               dropped=tracer.dropped)
                if text.strip():
                    click.echo(text)
            tracer.clear()

    def unfinished(self, tracer: Tracer) -> None:
        """Say which backward passes failed before their first step (no event told of them)."""
        for p in tracer.passes:
            if not p.finished and p.pass_no not in self.narrated and not self.as_json:
                roots = ", ".join(f"{name} = {format_value(v)}" for name, v in p.roots)
                click.echo(f"backward pass {p.pass_no} from {roots} failed before its first step")


@contextlib.contextmanager
def warnings_in_one_line(said: list[tuple[str, bool]] | None = None) -> Iterator[None]:
    """Say each warning (Graphviz missing…) as one line on stderr, not Python's two-line format; with
    ``said``, keep each line there (as ``(line, True)``) to be said later."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    lines = [f"warning: {str(w.message).splitlines()[0]}" for w in caught]
    if said is None:
        for line in lines:
            click.echo(line, err=True)
    else:
        said += [(line, True) for line in lines]


def _run(script: Path, args: Sequence[str] = ()) -> None:
    """Run ``script`` as ``__main__`` with its own ``sys.argv`` (the script, then ``args``) and ``sys.path[0]``."""
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(script), *args]
    sys.path.insert(0, str(script.parent))
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv[:] = saved_argv
        sys.path[:] = saved_path


def _is_ours(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE + os.sep) or os.path.basename(path) == "runpy.py" or "<frozen runpy>" in filename


def user_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` through the student's files only, then the error itself."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _is_ours(f.filename)]
    lines = ["Traceback (most recent call last, your code only):\n", *traceback.format_list(frames)]
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip("\n")


@click.command()
@click.argument("script", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- ARGS]...")
@click.option("--verbosity", type=click.Choice(VERBOSITIES), default="steps", show_default=True,
              help="summary: a line per backward pass; steps: every step; full: also forward ops and saved values.")
@click.option("--no-color", is_flag=True, help="Plain text (also when NO_COLOR is set or output is piped).")
@click.option("--json", "as_json", is_flag=True, help="Print the events as JSON lines instead of narration.")
@graph_option("the script's first backward pass")
@html_option("the script's first backward pass")
@reference_option()
@engine_option()
@click.pass_context
def command(ctx: click.Context, script: Path, script_args: tuple[str, ...], verbosity: str, no_color: bool,
            as_json: bool, graph: Path | None, html: Path | None) -> None:
    """Run SCRIPT under a tracer and narrate every backward pass its main thread runs.

    Arguments after `--` go to the script: `micrograd2 trace main.py -- --epochs 3`."""
    color = not no_color and not os.environ.get("NO_COLOR")
    say_engine(as_json)
    narrator = _Narrator(verbosity, color, as_json, graph, html)
    tracer = trace(on_pass_end=narrator.pass_ended)
    error: BaseException | None = None
    code: int | str | None = 0
    with tracer:
        try:
            _run(script.resolve(), script_args)
        except SystemExit as stop:
            code = stop.code
        except BrokenPipeError:
            raise  # our reader went away (`… | head`): not the script's error
        except Exception as exc:  # the student's error: reported below, without our frames
            error = exc
    if narrator.reader_gone:
        raise BrokenPipeError("the reader of the narration went away")  # click ends quietly
    narrator.flush(tracer)
    narrator.unfinished(tracer)
    if tracer.errors:
        click.echo(f"(the tracer missed {len(tracer.errors)} events: {tracer.errors[0]})", err=True)
    if error is not None:  # the script's own error first: what came of it follows (NOTE [A failed script])
        click.echo(user_traceback(error), err=True)
    never_ran = isinstance(error, SyntaxError) and not tracer.passes
    if not tracer.passes and not as_json and not never_ran:
        click.echo(f"({script.name} ran no backward pass: nothing to narrate)", err=True)
    if (graph or html) and not narrator.drawn and not never_ran:
        click.echo(f"({script.name} finished no backward pass: no graph or page written)", err=True)
    engine = closing_line()  # on a student's engine (--engine): the pieces that differ
    if engine:
        click.echo(engine, err=True)
    if error is not None:
        ctx.exit(1)
    if narrator.failed:
        ctx.exit(1)
    if code not in (0, None):
        if isinstance(code, int):
            ctx.exit(code)
        click.echo(str(code), err=True)
        ctx.exit(1)
