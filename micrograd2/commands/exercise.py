"""``micrograd2 exercise``: list the classroom exercises by unit, start a workspace, check it, print hints.

An exercise is named by its id (``U2.1``), its old number (``3``, an alias), or
with its whole unit (``U2``) where several may be meant (``check``).

Only click is imported here at load time (``--help`` stays light); the grader
and the catalog are imported by the commands that use them.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Sequence, TypeVar

import click

from .engine import ENGINE, closing_line, engine_option, say_engine

T = TypeVar("T")

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
    """Each unit, then its exercises: id, title, the workspace file you write it in, lesson, goal
    (and the old number, an alias)."""
    from ..exercises import catalog

    width = max(len(e.title) for e in catalog.EXERCISES)
    files = {e.id: ", ".join(catalog.student_files(e)) for e in catalog.EXERCISES}
    file_width = max(map(len, files.values()))
    for unit in catalog.units():
        click.echo(f"{unit.key}  {unit.theme} (about {unit.hours:g} h)")
        for e in (e for e in catalog.EXERCISES if e.unit == unit.key):
            alias = f"  [{e.alias}]" if e.alias is not None else ""
            click.echo(f"  {e.id:<5} {e.title:<{width}}  {files[e.id]:<{file_width}}  (lesson {e.lesson})  "
                       f"{e.goal}{alias}")


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
    except FileExistsError:  # one line, exit 2, as every refusal to overwrite a student's files
        from .overwrite import Refused

        raise Refused(f"{directory} is not empty (your work may be in it), so nothing was written. What to do: "
                      "choose a new directory, or pass --force to overwrite its exercise files with fresh stubs"
                      ) from None
    except OSError as error:
        raise click.ClickException(f"could not write the workspace: {error}") from None
    click.echo(f"Wrote {len(written)} files to {directory}: {len(catalog.EXERCISES)} exercises.")
    click.echo(f"Next: cd {directory}; read {catalog.EXERCISES[0].filename}; then `micrograd2 exercise check`; "
               "your own engine's holes are in engine/ (U1.3, U2.3: `micrograd2 lesson run 1 --engine engine`)")


CHECK_HELP = """Grade the workspace DIR, or only the exercises ID...: each a unit (U2), an exercise
(U2.1) or its old number (3).  Without DIR, the workspace you are in: the current folder, else the
nearest folder above it that is one, else $MICROGRAD2_WORKSPACE.  So `check U2.1 U2.2` grades two
exercises of the workspace you are in; `check ws U1.1 U5.3` two exercises of ws.  A first argument
that is a folder is DIR; one that looks like an ID (U2, U2.1, 3) is an ID.

With --class CLASS, grade every immediate subfolder of CLASS that is a workspace (a student,
keyed by its folder's name; other folders are listed as skipped), and write the class's grades:
a CSV (--csv; default CLASS/grades.csv) with one column per exercise (pass, fail, not graded,
to do, error), then passed k/n, hints used and predictions right/answered; and a JSON with every
reason (--json; default CLASS/grades.json).  Hints and predictions are informational: the
student's own machine records them (hints.jsonl, predictions.json in the workspace).  Exits 0
when every workspace was graded.

Exit codes: 0 all passed (with --class: every workspace graded), 1 not all passed, 2 a usage
error."""


@command.command(help=CHECK_HELP)
@click.argument("arguments", nargs=-1, metavar="[DIR] [ID]...")
@click.option("--class", "class_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              metavar="CLASS", help="Grade every workspace in this folder (one student per subfolder).")
@click.option("--tests", "tests_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Grade with the hidden tests in this folder (test_<module>*.py per exercise) instead of the "
                   "public ones; without ID, the exercises it has tests for.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds of CPU time each test (and the import of your module) may use, and "
                   "each exercise in all, before it counts as a timeout [default: each test 4× the "
                   "model solution's, at least 1.5 s; each exercise 4× the solution's run, at least 3 s].")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a machine-readable report to this file (with --class: the class's, "
                   "default CLASS/grades.json).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path),
              help="With --class: write the class's grades to this CSV file [default: CLASS/grades.csv].")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Exercises graded at once (default: up to 4; with --class, one per CPU).")
@click.option("-v", "--verbose", is_flag=True, help="List every failing test, not only each exercise's first.")
@engine_option()
def check(arguments: tuple[str, ...], class_dir: Path | None, tests_dir: Path | None, timeout: float | None,
          json_path: Path | None, csv_path: Path | None, jobs: int | None, verbose: bool) -> None:
    directory, ids = _check_arguments(arguments, class_dir)
    if tests_dir is not None:
        ids = _hidden_selection(tests_dir, ids)
    if class_dir is not None:
        _check_class(class_dir, ids, tests_dir, timeout, json_path, csv_path, jobs)
        return
    if csv_path is not None:
        raise click.UsageError("--csv writes a class's grades: use it with --class CLASS")
    found = directory is None
    if directory is None:
        directory = _find_workspace(arguments)
    _check_workspace(directory, ids, tests_dir, timeout, json_path, jobs, verbose, found)


ID_LIKE = re.compile(r"^(?:[Uu]\d+(?:\.\d+)?|\d+)$")  # U2, U2.1, 3: read as an ID, never as DIR


def _check_arguments(arguments: Sequence[str], class_dir: Path | None) -> tuple[Path | None, list[str] | None]:
    """``[DIR] [ID]...`` read once: the workspace (None: not given, ``_find_workspace`` finds it)
    and the exercises' ids (None: all).

    The first argument is DIR when it is a folder, or when it neither names exercises nor looks
    like an id (``check ws``: a folder not made yet); else every argument is an ID (``check 3``:
    exercise 3, ``check U9``: an unknown unit).  With --class every argument is an ID."""
    rest = list(arguments)
    directory = None
    if rest and class_dir is None and (Path(rest[0]).is_dir() or not (
            _names_exercises(rest[0]) or ID_LIKE.match(rest[0]))):
        directory = Path(rest.pop(0))
    for key in rest:
        if class_dir is not None and not _names_exercises(key) and Path(key).is_dir():
            raise click.UsageError(f"--class grades the workspaces in {class_dir}; name no workspace "
                                   f"{key} as well (after --class, give exercise IDs only)")
    ids = [i for key in rest for i in _selection(key)]
    return directory, (list(dict.fromkeys(ids)) if rest else None)


def _find_workspace(ids: Sequence[str]) -> Path:
    """The workspace ``check`` grades when no DIR is given (NOTE [Which workspace]), or a usage
    error that says how to start one and that ``ids`` (as typed) were read as IDs."""
    from ..exercises import activity, grader

    here = Path.cwd()
    for folder in (here, *here.parents):
        if grader.is_workspace(folder):
            return Path(".") if folder == here else folder
    named = os.environ.get(activity.WORKSPACE_ENV)
    if named and grader.is_workspace(Path(named)):
        return Path(named)
    read = f" ({' '.join(ids)}: read as exercise IDs)" if ids else ""
    also = f", nor is ${activity.WORKSPACE_ENV} ({named})" if named else ""
    raise click.UsageError(
        f"the current folder is not an exercise workspace, nor is any folder above it{also}{read}: "
        f"start one with `micrograd2 exercise start DIR` and check inside it, or name it: "
        f"`micrograd2 exercise check DIR{''.join(' ' + i for i in ids)}`")


# NOTE [Which workspace]
# `check` with no DIR grades the workspace the student is in, as git finds its repository: the
# current folder, else the nearest folder above it that is a workspace (a student in engine/ or
# tests/), else $MICROGRAD2_WORKSPACE, the workspace the lessons and hints log into.  So
# `check U2.1 U2.2` anywhere inside a workspace grades those two; outside one, the error says
# that the arguments were read as IDs, and how to start a workspace or name one.


def _check_workspace(directory: Path, ids: list[str] | None, tests_dir: Path | None,
                     timeout: float | None, json_path: Path | None, jobs: int | None,
                     verbose: bool, found: bool = False) -> None:
    """Grade one workspace (``found``: by ``_find_workspace``, not named): the table, the
    diagnoses, the JSON report; exit 1 unless all passed."""
    from ..exercises import activity, grader, reporting

    if not directory.is_dir() or not grader.is_workspace(directory):
        raise click.UsageError(f"{directory} is not an exercise workspace "
                               f"(run `micrograd2 exercise start {directory}`)")
    say_engine()  # the first line: which engine the runners grade on
    if found and directory != Path("."):
        click.echo(f"workspace: {directory.resolve()}")
    results = _stoppable(lambda: grader.check(directory, ids, timeout=timeout, jobs=jobs,
                                              status=_status_line(sys.stderr), tests_dir=tests_dir))
    if json_path is not None:
        data = reporting.report(results, directory, timeout, tests_dir)
        data["informational"] = activity.read(directory).as_json()
        try:
            reporting.write_report(json_path, data)
        except OSError as error:
            raise click.ClickException(f"could not write {json_path}: {error}") from None
    width = max(80, shutil.get_terminal_size((120, 24)).columns)
    click.echo(reporting.render(results, width=width, verbose=verbose))
    engine = closing_line()  # on a student's engine (--engine): the holes that differ
    if engine:
        click.echo(engine)
    if engine or not all(r.passed for r in results):
        raise click.exceptions.Exit(1)


def _check_class(class_dir: Path, ids: list[str] | None, tests_dir: Path | None, timeout: float | None,
                 json_path: Path | None, csv_path: Path | None, jobs: int | None) -> None:
    """Grade every workspace of ``class_dir``; write the CSV and the JSON; exit 0 once all are graded."""
    from ..exercises import classroom

    if os.environ.get(ENGINE):
        raise click.UsageError("--class grades each workspace on its own engine/ (U1.3, U2.3, U5.6); "
                               f"leave out --engine (and unset {ENGINE})")
    workspaces, _ = classroom.find_workspaces(class_dir)
    if not workspaces:
        raise click.UsageError(f"{class_dir} holds no workspace: --class CLASS grades the subfolders of "
                               "CLASS that `micrograd2 exercise start` made (one per student)")
    say_engine()
    report = _stoppable(lambda: classroom.grade_class(class_dir, ids, timeout=timeout, jobs=jobs,
                                                      status=_status_line(sys.stderr, by_workspace=True),
                                                      tests_dir=tests_dir))
    csv_path = csv_path or class_dir / "grades.csv"
    json_path = json_path or class_dir / "grades.json"
    try:
        classroom.write(report, csv_path, json_path)
    except OSError as error:
        raise click.ClickException(f"could not write the class's grades: {error}") from None
    click.echo(classroom.table(report))
    click.echo(f"\n{len(report.students)} workspaces graded: {csv_path} (one cell per exercise), {json_path} "
               "(every reason). Hints and predictions are informational: each student's machine records them.")


def _stoppable(grade: Callable[[], T]) -> T:
    """``grade()``, or on Ctrl-C or SIGTERM a line saying every runner was ended, and exit 130 or 143."""
    from ..exercises import grader

    try:
        return grade()
    except KeyboardInterrupt as stop:
        click.echo(f"\ngrading stopped ({'SIGTERM' if isinstance(stop, grader.Stopped) else 'Ctrl-C'}): "
                   "every running exercise was ended", err=True)
        sys.exit(143 if isinstance(stop, grader.Stopped) else 130)


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


def _status_line(stream: IO[str], by_workspace: bool = False) -> Any:
    """On a terminal, a line that says which exercises are running (rewritten in place, cleared at the end);
    ``by_workspace``: each named with its workspace's folder (``alice/U2.1``)."""
    if not stream.isatty():
        return None
    shown = {"text": ""}

    def name(run: Run) -> str:
        return f"{run.workspace.name}/{run.exercise.id}" if by_workspace else run.exercise.id

    def show(running: Sequence[Run], finished: int, total: int) -> None:
        if running:
            now = ", ".join(f"{name(r)} ({r.elapsed:.0f} s)" for r in running)
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
    """Print hint LEVEL (default 1) of EXERCISE (an id, U2.1, or its old number, 3): `hint U2.1 2`.

    In a workspace (the current folder, or $MICROGRAD2_WORKSPACE) each hint shown is logged in its
    hints.jsonl, which your teacher's class report counts (informational)."""
    from ..exercises import activity, catalog

    exercise = _exercise(exercise_key)
    level = level if level is not None else (level_option if level_option is not None else 1)
    count = len(exercise.hints)
    if not 1 <= level <= count:
        raise click.BadParameter(f"exercise {exercise.id} has hints 1-{count}", param_hint="LEVEL")
    click.echo(f"Exercise {exercise.id}, {exercise.title} — hint {level} of {count}:")
    click.echo(catalog.hint(exercise.id, level))
    if level < count:
        click.echo(f"(more: micrograd2 exercise hint {exercise.id} {level + 1})")
    workspace = activity.current_workspace()
    if workspace is not None:
        try:
            activity.log_hint(workspace, exercise.id, level)
        except OSError as error:  # the hint was shown; only its log is missing
            click.echo(f"warning: could not log the hint in {workspace / activity.HINTS_FILE}: {error}", err=True)
