"""``--engine DIR``, the option of ``lesson run``, ``trace`` and ``exercise check``: run on a
student's engine (docs/course.md).

The holes are read once, at import (``autograd/holes.py``), and the speed layer must be off so
that nothing bypasses the student's code. So ``--engine`` starts the same command again, as a
new process, with ``MICROGRAD2_REFERENCE=1`` and ``MICROGRAD2_ENGINE=DIR`` (an absolute path).
Processes it starts (the grader's) inherit both.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from .reference import VARIABLE as REFERENCE
from .reference import _from_the_command_line

ENGINE = "MICROGRAD2_ENGINE"  # autograd/holes.py reads it


def _switch(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value is None:
        return None
    folder = value.resolve()
    if not folder.is_dir():
        raise click.BadParameter(f"there is no folder {value}; pass your engine folder "
                                 "(WORKSPACE/engine, written by `micrograd2 exercise start`)")
    if os.environ.get(ENGINE) == str(folder) and os.environ.get(REFERENCE) == "1":
        _load(folder)
        return folder
    if not _from_the_command_line():
        raise click.UsageError(f"--engine restarts the command with {ENGINE}=DIR and {REFERENCE}=1, "
                               "which works only from the command line; here, set both before "
                               "micrograd2 is imported")
    sys.stdout.flush()
    env = {**os.environ, REFERENCE: "1", ENGINE: str(folder)}
    os.execve(sys.executable, [sys.executable, "-m", "micrograd2", *sys.argv[1:]], env)
    return folder  # not reached: execve replaces this process


def _load(folder: Path) -> None:
    """Import the student's modules now, so that an error in them ends the command at once."""
    from ..autograd import holes

    try:
        holes.load(folder)
    except Exception as error:  # a student's module may fail to import in any way
        raise click.ClickException(f"could not load the engine in {folder}: "
                                   f"{type(error).__name__}: {error}") from None


def engine_option() -> Callable[[Any], Any]:
    """``--engine DIR``: run with a student's engine in place of the core's holes."""
    return click.option("--engine", type=click.Path(path_type=Path), expose_value=False,
                        callback=_switch, is_eager=True, metavar="DIR",
                        help="Run on your own engine: the holes filled in DIR (docs/course.md); "
                             "the speed layer is off.")


def closing_line() -> str | None:
    """On a student's engine: the line naming each hole that differs from the reference (its
    probe, ``course/diagnose.py``), or None."""
    from ..autograd import holes

    if not holes.ON:
        return None
    from ..course.diagnose import closing_line as line

    return line()
