"""``--engine DIR``, the option of ``lesson run``, ``trace`` and ``exercise check``: run on a
student's engine (docs/course.md).

The speed layer is chosen when micrograd2 is imported, and it must be off so that nothing
bypasses the student's code. So ``--engine`` starts the same command again, as a new process,
with ``MICROGRAD2_REFERENCE=1`` and ``MICROGRAD2_ENGINE=DIR`` (an absolute path); the CLI's entry
point then chooses the student's pieces once (``choose_from_environment``,
``course/engine.py``). Processes it starts (the grader's) inherit both, and choose them too.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from .reference import VARIABLE as REFERENCE
from .reference import _from_the_command_line

ENGINE = "MICROGRAD2_ENGINE"  # the entry points read it (choose_from_environment)


def _switch(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value is None:
        return None
    folder = value.resolve()
    if not folder.is_dir():
        raise click.BadParameter(f"there is no folder {value}; pass your engine folder "
                                 "(WORKSPACE/engine, written by `micrograd2 exercise start`)")
    if os.environ.get(ENGINE) == str(folder) and os.environ.get(REFERENCE) == "1":
        return folder  # the restarted command: its entry point chose the pieces
    if not _from_the_command_line():
        raise click.UsageError(f"--engine restarts the command with {ENGINE}=DIR and {REFERENCE}=1, "
                               "which works only from the command line; here, set both before "
                               "micrograd2 is imported")
    sys.stdout.flush()
    env = {**os.environ, REFERENCE: "1", ENGINE: str(folder)}
    os.execve(sys.executable, [sys.executable, "-m", "micrograd2", *sys.argv[1:]], env)
    return folder  # not reached: execve replaces this process


def choose_from_environment() -> None:
    """The CLI's entry point: run on the student's pieces if ``MICROGRAD2_ENGINE`` names a
    folder, loaded now, so that an error in them ends the command at once."""
    folder = os.environ.get(ENGINE)
    if not folder:
        return
    from ..course import engine

    try:
        engine.choose(folder)
    except Exception as error:  # a student's module may fail to import in any way
        said = f"{type(error).__name__}: {error}".splitlines()
        hint = [line for line in said[1:] if line.startswith("What to do")]
        raise click.ClickException("\n".join([f"could not load the engine in {folder}: {said[0]}",
                                               *hint[:1]])) from None


def engine_option() -> Callable[[Any], Any]:
    """``--engine DIR``: run with a student's engine in place of the core's holes."""
    return click.option("--engine", type=click.Path(path_type=Path), expose_value=False,
                        callback=_switch, is_eager=True, metavar="DIR",
                        help="Run on your own engine: the pieces written in DIR (docs/course.md); "
                             "the speed layer is off.")


def opening_line() -> str:
    """The one line a lesson, ``trace`` or ``exercise check`` run opens with: which pieces the
    core runs on (the reference core, the speed layer, or a student's, piece by piece)."""
    from ..course import engine

    student = engine.chosen()
    if student is None:
        from ..scalar import Value

        return f"engine: {Value.pieces.path}"
    return "engine: " + engine.describe(student)


def say_engine(as_json: bool = False) -> None:
    """Open a teaching run (a lesson, ``trace``, ``exercise check``) on the reference path, and
    say so with ``opening_line`` (under ``--json``, nothing: a lesson's record says it).

    NOTE [Teaching runs read as they run]: a student steps through what they read, so these
    commands run on the core's reference record: a breakpoint in ``Value.__mul__`` or
    ``Walk.run`` fires. A student's engine, when chosen, stays. ``train`` and a plain
    ``import micrograd2`` keep the speed layer."""
    from ..autograd import pieces
    from ..course import engine
    from ..scalar import Value

    if engine.chosen() is None:
        pieces.choose(Value, pieces.REFERENCE)
    if not as_json:
        click.echo(opening_line())


def closing_line() -> str | None:
    """On a student's engine: the line naming each piece that differs from the reference (its
    probe, ``course/diagnose.py``), or None."""
    if not os.environ.get(ENGINE):
        return None
    from ..course.diagnose import closing_line as line

    return line()
