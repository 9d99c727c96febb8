"""``micrograd2 trace SCRIPT.py``: run a student's own script under a tracer and narrate every backward pass.

The script runs as ``python SCRIPT.py`` would run it (``__name__ == "__main__"``,
its folder first on ``sys.path``); each backward pass is narrated as soon as it
ends, so the narration sits between the script's own prints.  If the script
raises, the narration so far is printed, then the script's error with a
traceback of the student's code only, and the exit code is 1.
"""
from __future__ import annotations

import os
import runpy
import sys
import traceback
from pathlib import Path

import click

from ..tracing import Pass, Tracer, format_value, trace
from ..tracing.narrate import VERBOSITIES, narrate

_PACKAGE = str(Path(__file__).resolve().parents[1])


class _Narrator:
    """Prints what the tracer recorded, pass by pass, then forgets it (a long script stays small)."""

    def __init__(self, verbosity: str, color: bool, as_json: bool) -> None:
        self.verbosity, self.color, self.as_json = verbosity, color, as_json
        self.narrated: set[int | None] = set()

    def pass_ended(self, tracer: Tracer, _pass: Pass) -> None:
        self.flush(tracer)

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


def _run(script: Path) -> None:
    """Run ``script`` as ``__main__`` with its own ``sys.argv`` and ``sys.path[0]``."""
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(script)]
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
@click.option("--verbosity", type=click.Choice(VERBOSITIES), default="steps", show_default=True,
              help="summary: a line per backward pass; steps: every step; full: also forward ops and saved values.")
@click.option("--no-color", is_flag=True, help="Plain text (also when NO_COLOR is set or output is piped).")
@click.option("--json", "as_json", is_flag=True, help="Print the events as JSON lines instead of narration.")
@click.pass_context
def command(ctx: click.Context, script: Path, verbosity: str, no_color: bool, as_json: bool) -> None:
    """Run SCRIPT under a tracer and narrate every backward pass in it."""
    color = not no_color and not os.environ.get("NO_COLOR")
    narrator = _Narrator(verbosity, color, as_json)
    tracer = trace(on_pass_end=narrator.pass_ended)
    error: BaseException | None = None
    code: int | str | None = 0
    with tracer:
        try:
            _run(script.resolve())
        except SystemExit as stop:
            code = stop.code
        except Exception as exc:  # the student's error: reported below, without our frames
            error = exc
    narrator.flush(tracer)
    narrator.unfinished(tracer)
    if tracer.errors:
        click.echo(f"(the tracer missed {len(tracer.errors)} events: {tracer.errors[0]})", err=True)
    if not tracer.passes and not as_json:
        click.echo(f"({script.name} ran no backward pass: nothing to narrate)", err=True)
    if error is not None:
        click.echo(user_traceback(error), err=True)
        ctx.exit(1)
    if code not in (0, None):
        if isinstance(code, int):
            ctx.exit(code)
        click.echo(str(code), err=True)
        ctx.exit(1)
