"""``micrograd2 exercise``: list the classroom exercises by unit, start a workspace, check it, print hints.

An exercise is named by its id (``U2.1``), its old number (``3``, an alias), or
with its whole unit (``U2``) where several may be meant (``check``).

Only click is imported here at load time (``--help`` stays light); the grader
and the catalog are imported by the commands that use them.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Sequence

import click

from .engine import closing_line, engine_option

if TYPE_CHECKING:
    from ..exercises.catalog import Exercise
    from ..exercises.grader import Run


def _exercise(key: str) -> Exercise:
    """Exercise ``key`` (an id or an alias), or a usage error (exit 2) listing the valid ones."""
    from ..exercises import catalog

    try:
        return catalog.get(key)
    except KeyError:
        raise click.UsageError(f"there is no exercise {key}; "
                               f"valid: {catalog.valid_keys()}") from None


def _selection(key: str) -> list[str]:
    """The ids of the exercises ``key`` names (a unit, an id or an alias), or a usage error
    (exit 2)."""
    from ..exercises import catalog

    try:
        return [e.id for e in catalog.select(key)]
    except KeyError:
        raise click.UsageError(f"there is no exercise or unit {key}; "
                               f"valid: {catalog.valid_keys()}") from None


def _names_exercises(text: str) -> bool:
    """Whether ``text`` names a unit, an exercise or an alias (``check 3`` then means: here,
    exercise 3)."""
    from ..exercises import catalog

    try:
        catalog.select(text)
    except KeyError:
        return False
    return True


@click.group()
def command() -> None:
    """Classroom exercises: stubs to fill in, graded by the pristine tests, with hints."""


@command.command("list")
def list_() -> None:
    """Each unit, then its exercises: id, title, lesson, goal (and the old number, an alias)."""
    from ..exercises import catalog

    width = max(len(e.title) for e in catalog.EXERCISES)
    for unit in catalog.units():
        click.echo(f"{unit.key}  {unit.theme} (about {unit.hours:g} h)")
        for e in (e for e in catalog.EXERCISES if e.unit == unit.key):
            alias = f"  [{e.alias}]" if e.alias is not None else ""
            click.echo(f"  {e.id:<5} {e.title:<{width}}  (lesson {e.lesson})  {e.goal}{alias}")


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
    click.echo(f"Next: cd {directory}; read {catalog.EXERCISES[0].filename}; then `micrograd2 exercise check`; "
               "your own engine's holes are in engine/ (U1.3, U2.3: `micrograd2 lesson run 1 --engine engine`)")


@command.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default=".", required=False)
@click.argument("which", required=False)
@click.option("--tests", "tests_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Grade with the hidden tests in this folder (test_<module>*.py per exercise) instead of the "
                   "public ones; without WHICH, the exercises it has tests for.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds of CPU time each exercise may use before it counts as a timeout "
                   "[default: 4× the reference solution's, at least 3 s].")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a machine-readable report to this file.")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Exercises graded at once (default: up to 4).")
@click.option("-v", "--verbose", is_flag=True, help="List every failing test, not only each exercise's first.")
@engine_option()
def check(directory: Path, which: str | None, tests_dir: Path | None, timeout: float | None,
          json_path: Path | None, jobs: int | None, verbose: bool) -> None:
    """Grade the workspace DIRECTORY (default: the current folder), or only WHICH: a unit (U2), an exercise
    (U2.1) or its old number (3).

    `check U2` grades unit U2 of the current folder; `check 3` exercise 3 (U2.1)."""
    from ..exercises import grader, reporting

    if which is None and not directory.is_dir() and _names_exercises(str(directory)):
        directory, which = Path("."), str(directory)
    ids = _selection(which) if which is not None else None
    if tests_dir is not None:
        ids = _hidden_selection(tests_dir, ids)
    if not directory.is_dir() or not grader.is_workspace(directory):
        raise click.UsageError(f"{directory} is not an exercise workspace "
                               f"(run `micrograd2 exercise start {directory}`)")
    try:
        results = grader.check(directory, ids, timeout=timeout, jobs=jobs, status=_status_line(sys.stderr),
                               tests_dir=tests_dir)
    except KeyboardInterrupt as stop:
        click.echo(f"\ngrading stopped ({'SIGTERM' if isinstance(stop, grader.Stopped) else 'Ctrl-C'}): "
                   "every running exercise was ended", err=True)
        sys.exit(143 if isinstance(stop, grader.Stopped) else 130)
    if json_path is not None:
        try:
            reporting.write_report(json_path, reporting.report(results, directory, timeout, tests_dir))
        except OSError as error:
            raise click.ClickException(f"could not write {json_path}: {error}") from None
    width = max(80, shutil.get_terminal_size((120, 24)).columns)
    click.echo(reporting.render(results, width=width, verbose=verbose))
    engine = closing_line()  # on a student's engine (--engine): the holes that differ
    if engine:
        click.echo(engine)
    if engine or not all(r.passed for r in results):
        raise click.exceptions.Exit(1)


def _hidden_selection(tests_dir: Path, ids: list[str] | None) -> list[str]:
    """The exercises to grade with the hidden tests of ``tests_dir``: ``ids`` (each must have
    tests there), or all that have some.  A usage error for a test file that grades no exercise
    (a misnamed file would otherwise be skipped in silence) and for a folder without any."""
    from ..exercises import catalog

    stray = catalog.unclaimed_test_files(tests_dir)
    if stray:
        raise click.UsageError(f"{stray[0].name} in {tests_dir} grades no exercise: name a hidden "
                               "test file test_<module>.py or test_<module>_<anything>.py "
                               "(e.g. test_ex03_topo_order.py)")
    chosen = [catalog.get(i) for i in ids] if ids is not None else list(catalog.EXERCISES)
    missing = [e for e in chosen if not catalog.test_files(e, tests_dir)]
    if ids is not None and missing:
        raise click.UsageError(f"{tests_dir} has no tests for {missing[0].id} "
                               f"(expected test_{missing[0].name}.py or test_{missing[0].name}_*.py)")
    found = [e.id for e in chosen if e not in missing]
    if not found:
        raise click.UsageError(f"{tests_dir} holds no hidden tests (test_<module>.py, e.g. "
                               f"test_{catalog.EXERCISES[0].name}.py)")
    return found


def _status_line(stream: IO[str]) -> Any:
    """On a terminal, a line that says which exercises are running (rewritten in place, cleared at the end)."""
    if not stream.isatty():
        return None
    shown = {"text": ""}

    def show(running: Sequence[Run], finished: int, total: int) -> None:
        if running:
            now = ", ".join(f"{r.exercise.id} ({r.elapsed:.0f} s)" for r in running)
            text = f"grading: {finished}/{total} done; running exercise {now}"
        else:
            text = ""
        if text != shown["text"]:
            stream.write("\r\x1b[K" + text)
            stream.flush()
            shown["text"] = text

    return show


@command.command()
@click.argument("exercise_key", metavar="EXERCISE")
@click.argument("level", type=int, required=False)
@click.option("--level", "level_option", type=int, default=None,
              help="1 is a nudge; the last is nearly the answer (same as the LEVEL argument).")
def hint(exercise_key: str, level: int | None, level_option: int | None) -> None:
    """Print hint LEVEL (default 1) of EXERCISE (an id, U2.1, or its old number, 3): `hint U2.1 2`."""
    from ..exercises import catalog

    exercise = _exercise(exercise_key)
    level = level if level is not None else (level_option if level_option is not None else 1)
    count = len(exercise.hints)
    if not 1 <= level <= count:
        raise click.BadParameter(f"exercise {exercise.id} has hints 1-{count}", param_hint="LEVEL")
    click.echo(f"Exercise {exercise.id}, {exercise.title} — hint {level} of {count}:")
    click.echo(catalog.hint(exercise.id, level))
    if level < count:
        click.echo(f"(more: micrograd2 exercise hint {exercise.id} {level + 1})")
