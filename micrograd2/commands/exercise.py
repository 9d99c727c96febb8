"""``micrograd2 exercise``: list the classroom exercises, start a workspace, check it, print hints.

Only click is imported here at load time (``--help`` stays light); the grader
and the catalog are imported by the commands that use them.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Sequence

import click

if TYPE_CHECKING:
    from ..exercises.catalog import Exercise
    from ..exercises.grader import Run


def _exercise(number: int) -> Exercise:
    """Exercise ``number``, or a usage error (exit 2) listing the valid numbers."""
    from ..exercises import catalog

    try:
        return catalog.get(number)
    except KeyError:
        raise click.UsageError(f"there is no exercise {number}; valid numbers: {catalog.valid_numbers()}") from None


@click.group()
def command() -> None:
    """Classroom exercises: stubs to fill in, graded by the pristine tests, with hints."""


@command.command("list")
def list_() -> None:
    """Number, title, lesson and goal of each exercise."""
    from ..exercises import catalog

    width = max(len(e.title) for e in catalog.EXERCISES)
    for e in catalog.EXERCISES:
        click.echo(f"{e.number:>2}  {e.title:<{width}}  (lesson {e.lesson})  {e.goal}")


@command.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Write into a non-empty DIRECTORY, overwriting the workspace's files.")
def start(directory: Path, force: bool) -> None:
    """Write a fresh workspace into DIRECTORY: stubs, tests, a README and a pytest.ini."""
    from ..exercises import catalog, stubs

    try:
        written = stubs.make_workspace(directory, force=force)
    except NotADirectoryError as error:
        raise click.UsageError(str(error)) from None
    except FileExistsError:
        raise click.UsageError(f"{directory} is not empty; choose a new directory, or pass --force to "
                               "overwrite its exercise files with fresh stubs") from None
    except OSError as error:
        raise click.ClickException(f"could not write the workspace: {error}") from None
    click.echo(f"Wrote {len(written)} files to {directory}: {len(catalog.EXERCISES)} exercises.")
    click.echo(f"Next: cd {directory}; read ex01_mul_sum.py; then `micrograd2 exercise check`")


@command.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default=".", required=False)
@click.argument("number", type=int, required=False)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds of CPU time each exercise may use before it counts as a timeout "
                   "[default: 4× the reference solution's, at least 3 s].")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a machine-readable report to this file.")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Exercises graded at once (default: up to 4).")
@click.option("-v", "--verbose", is_flag=True, help="List every failing test, not only each exercise's first.")
def check(directory: Path, number: int | None, timeout: float | None, json_path: Path | None, jobs: int | None,
          verbose: bool) -> None:
    """Grade the workspace DIRECTORY (default: the current folder), or only its exercise NUMBER.

    `check 3` grades exercise 3 of the current folder."""
    from ..exercises import grader, reporting

    if number is None and str(directory).isdigit() and not directory.is_dir():
        directory, number = Path("."), int(str(directory))
    numbers = [_exercise(number).number] if number is not None else None
    if not directory.is_dir() or not grader.is_workspace(directory):
        raise click.UsageError(f"{directory} is not an exercise workspace "
                               f"(run `micrograd2 exercise start {directory}`)")
    try:
        results = grader.check(directory, numbers, timeout=timeout, jobs=jobs, status=_status_line(sys.stderr))
    except KeyboardInterrupt as stop:
        click.echo(f"\ngrading stopped ({'SIGTERM' if isinstance(stop, grader.Stopped) else 'Ctrl-C'}): "
                   "every running exercise was ended", err=True)
        sys.exit(143 if isinstance(stop, grader.Stopped) else 130)
    if json_path is not None:
        try:
            reporting.write_report(json_path, reporting.report(results, directory, timeout))
        except OSError as error:
            raise click.ClickException(f"could not write {json_path}: {error}") from None
    width = max(80, shutil.get_terminal_size((120, 24)).columns)
    click.echo(reporting.render(results, width=width, verbose=verbose))
    if not all(r.passed for r in results):
        raise click.exceptions.Exit(1)


def _status_line(stream: IO[str]) -> Any:
    """On a terminal, a line that says which exercises are running (rewritten in place, cleared at the end)."""
    if not stream.isatty():
        return None
    shown = {"text": ""}

    def show(running: Sequence[Run], finished: int, total: int) -> None:
        if running:
            now = ", ".join(f"{r.exercise.number} ({r.elapsed:.0f} s)" for r in running)
            text = f"grading: {finished}/{total} done; running exercise {now}"
        else:
            text = ""
        if text != shown["text"]:
            stream.write("\r\x1b[K" + text)
            stream.flush()
            shown["text"] = text

    return show


@command.command()
@click.argument("number", type=int)
@click.argument("level", type=int, required=False)
@click.option("--level", "level_option", type=int, default=None,
              help="1 is a nudge; the last is nearly the answer (same as the LEVEL argument).")
def hint(number: int, level: int | None, level_option: int | None) -> None:
    """Print hint LEVEL (default 1) of exercise NUMBER: `hint 3 2`."""
    from ..exercises import catalog

    exercise = _exercise(number)
    level = level if level is not None else (level_option if level_option is not None else 1)
    count = len(exercise.hints)
    if not 1 <= level <= count:
        raise click.BadParameter(f"exercise {number} has hints 1-{count}", param_hint="LEVEL")
    click.echo(f"Exercise {number}, {exercise.title} — hint {level} of {count}:")
    click.echo(catalog.hint(number, level))
    if level < count:
        click.echo(f"(more: micrograd2 exercise hint {number} {level + 1})")
