"""Make stubs from the model solutions, and write a fresh student workspace.

In a model solution, each part the student writes sits between
``# BEGIN SOLUTION`` and ``# END SOLUTION`` lines.  The stub replaces each block
by one line, ``raise NotImplementedError("Exercise U1.1: implement Class.method")``
(or the text written after ``BEGIN SOLUTION``).

NOTE [The solutions are not installed]
The model solutions live in the repository (``teacher/solutions/``), not
in the package: a student's install holds the stubs only, ``sources/*.py``.
They are generated from the solutions by
``python -m micrograd2.exercises.stubs teacher/solutions`` (``--check``
says whether they are up to date; tests/test_stubs.py runs it), so stub and
solution never drift apart.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from ..course.workspace import engine_files
from . import catalog

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"


def strip_solutions(source: str, exercise_id: str) -> str:
    """``source`` with every solution block replaced by ``raise NotImplementedError("Exercise U1.1: …")``."""
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    opened: int | None = None
    for i, line in enumerate(lines):
        text = line.strip()
        if text.startswith(BEGIN):
            if opened is not None:
                raise ValueError(f"line {i + 1}: {BEGIN} inside the block opened at line {opened + 1}")
            indent = line[: len(line) - len(line.lstrip())]
            what = text[len(BEGIN):].strip(" :—-") or f"implement {_enclosing_name(lines, i)}"
            out.append(f'{indent}raise NotImplementedError("Exercise {exercise_id}: {what}")\n')
            opened = i
        elif text.startswith(END):
            if opened is None:
                raise ValueError(f"line {i + 1}: {END} without a {BEGIN}")
            opened = None
        elif opened is None:
            out.append(line)
    if opened is not None:
        raise ValueError(f"line {opened + 1}: {BEGIN} is never closed by {END}")
    return "".join(out)


def solution_lines(source: str) -> list[str]:
    """The non-blank lines inside solution blocks (what a stub must not contain)."""
    inside, found = False, []
    for line in source.splitlines():
        text = line.strip()
        if text.startswith(BEGIN):
            inside = True
        elif text.startswith(END):
            inside = False
        elif inside and text:
            found.append(text)
    return found


def _enclosing_name(lines: list[str], index: int) -> str:
    """``Class.method`` or ``function`` around line ``index``, found by indentation."""
    names: list[str] = []
    limit = _indent(lines[index])
    for line in reversed(lines[:index]):
        text = line.lstrip()
        if not text or _indent(line) >= limit:
            continue
        for keyword in ("def ", "class "):
            if text.startswith(keyword):
                names.append(text[len(keyword):].split("(")[0].split(":")[0].strip())
                limit = _indent(line)
        if limit == 0:
            break
    return ".".join(reversed(names)) or "this part"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def stub(exercise: catalog.Exercise) -> str:
    """The stub the student gets for ``exercise`` (as shipped in ``sources/``)."""
    return exercise.stub_file.read_text(encoding="utf-8")


def stale_stubs(solutions: Path, write: bool = False) -> list[str]:
    """The exercises whose shipped stub differs from the one made from ``solutions/<module>.py``
    (with ``write``, each is rewritten).  An exercise without a file there is skipped: a paper
    exercise of U0 is generated whole, it has no model solution to cut."""
    stale = []
    for exercise in catalog.EXERCISES:
        solution = solutions / exercise.filename
        if not solution.is_file():
            continue
        made = strip_solutions(solution.read_text(encoding="utf-8"), exercise.id)
        if not exercise.stub_file.is_file() or stub(exercise) != made:
            stale.append(exercise.id)
            if write:
                exercise.stub_file.write_text(made, encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    """``python -m micrograd2.exercises.stubs SOLUTIONS [--check]``: remake the shipped stubs."""
    parser = argparse.ArgumentParser(prog="python -m micrograd2.exercises.stubs",
                                     description="Make the shipped stubs from the model solutions.")
    parser.add_argument("solutions", type=Path, help="the folder of model solutions")
    parser.add_argument("--check", action="store_true", help="only say which stubs are out of date")
    args = parser.parse_args(argv)
    stale = stale_stubs(args.solutions, write=not args.check)
    verb = "out of date" if args.check else "rewritten"
    print(f"{len(stale)} stub(s) {verb}{': ' if stale else ''}{', '.join(stale)}")
    return 1 if args.check and stale else 0


def readme() -> str:
    """The workspace's README: how to work, test and get hints, and the list of exercises."""
    rows = "\n".join(f"| {e.id} | {_files(e)} | {e.title} | {e.lesson} |" for e in catalog.EXERCISES)
    return catalog.README_TEMPLATE.read_text(encoding="utf-8").replace("{exercise_table}", rows)


def _files(exercise: catalog.Exercise) -> str:
    """The README's file cell: the file the student writes in (and the sheet, where it is another)."""
    written = ", ".join(f"`{name}`" for name in catalog.student_files(exercise))
    return written if exercise.filename in catalog.student_files(exercise) else \
        f"{written} (the task: `{exercise.filename}`)"


def workspace_files() -> dict[str, str]:
    """Relative path -> text of every file a fresh workspace holds."""
    files = {"README.md": readme(), "pytest.ini": catalog.PYTEST_INI.read_text(encoding="utf-8")}
    for exercise in catalog.EXERCISES:
        files[exercise.filename] = stub(exercise)
        files[f"tests/{exercise.test_file.name}"] = exercise.test_file.read_text(encoding="utf-8")
    files.update(engine_files())  # engine/: the holes of your own engine (docs/course.md)
    return files


def is_empty(directory: Path) -> bool:
    """True when ``directory`` does not exist or holds nothing."""
    return not directory.exists() or not any(directory.iterdir())


def make_workspace(directory: Path, force: bool = False) -> list[Path]:
    """Write a fresh workspace into ``directory``; return the files written.

    Refuses (``FileExistsError``) a non-empty directory unless ``force``, which
    overwrites the workspace's own files and leaves any other file alone.
    """
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(f"{directory} is a file, not a directory")
    if not force and not is_empty(directory):
        raise FileExistsError(f"{directory} is not empty")
    written = []
    for relative, text in workspace_files().items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.rmtree(path)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    sys.exit(main())
