"""``micrograd2 exercise``: list the classroom exercises, start a workspace, check it, print hints."""
from __future__ import annotations

import shutil
from pathlib import Path

import click

from ..exercises import catalog, grader, stubs


def _exercise(number: int) -> catalog.Exercise:
    """Exercise ``number``, or a usage error (exit 2) listing the valid numbers."""
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
    width = max(len(e.title) for e in catalog.EXERCISES)
    for e in catalog.EXERCISES:
        click.echo(f"{e.number:>2}  {e.title:<{width}}  (lesson {e.lesson})  {e.goal}")


@command.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Write into a non-empty DIRECTORY, overwriting the workspace's files.")
def start(directory: Path, force: bool) -> None:
    """Write a fresh workspace into DIRECTORY: stubs, tests, a README and a pytest.ini."""
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
    click.echo(f"Next: cd {directory}; read ex01_mul_sum.py; then `micrograd2 exercise check .`")


@command.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("number", type=int, required=False)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=grader.DEFAULT_TIMEOUT,
              show_default=True, help="Seconds each exercise may run before it counts as a timeout.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a machine-readable report to this file.")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Exercises graded at once (default: up to 4).")
def check(directory: Path, number: int | None, timeout: float, json_path: Path | None, jobs: int | None) -> None:
    """Grade the workspace DIRECTORY (exercise NUMBER only, if given) with the pristine tests."""
    numbers = [_exercise(number).number] if number is not None else list(catalog.NUMBERS)
    results = grader.check(directory, numbers, timeout=timeout, jobs=jobs)
    if json_path is not None:
        try:
            grader.write_report(json_path, grader.report(results, directory, timeout))
        except OSError as error:
            raise click.ClickException(f"could not write {json_path}: {error}") from None
    click.echo(grader.table(results, width=max(100, shutil.get_terminal_size((120, 24)).columns)))
    if not all(r.passed for r in results):
        raise click.exceptions.Exit(1)


@command.command()
@click.argument("number", type=int)
@click.option("--level", type=int, default=1, show_default=True, help="1 is a nudge; the last is nearly the answer.")
def hint(number: int, level: int) -> None:
    """Print hint LEVEL of exercise NUMBER."""
    exercise = _exercise(number)
    count = len(exercise.hints)
    if not 1 <= level <= count:
        raise click.BadParameter(f"exercise {number} has hints 1-{count}", param_hint="--level")
    click.echo(f"Exercise {number}, {exercise.title} — hint {level} of {count}:")
    click.echo(catalog.hint(number, level))
    if level < count:
        click.echo(f"(more: micrograd2 exercise hint {number} --level {level + 1})")
