"""Make stubs from the solution-bearing sources, and write a fresh student workspace.

In a source, each part the student writes sits between ``# BEGIN SOLUTION`` and
``# END SOLUTION`` lines.  The stub replaces each block by one line,
``raise NotImplementedError("Exercise N: implement Class.method")`` (or the text
written after ``BEGIN SOLUTION``), so stub, solution and tests come from one
file and never drift apart.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from . import catalog

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"


def strip_solutions(source: str, number: int) -> str:
    """``source`` with every solution block replaced by ``raise NotImplementedError("Exercise N: …")``."""
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
            out.append(f'{indent}raise NotImplementedError("Exercise {number}: {what}")\n')
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
    """The stub the student gets for ``exercise``."""
    return strip_solutions(exercise.source.read_text(encoding="utf-8"), exercise.number)


def readme() -> str:
    """The workspace's README: how to work, test and get hints, and the list of exercises."""
    rows = "\n".join(f"| {e.number} | `{e.filename}` | {e.title} | {e.lesson} |" for e in catalog.EXERCISES)
    return catalog.README_TEMPLATE.read_text(encoding="utf-8").replace("{exercise_table}", rows)


def workspace_files() -> dict[str, str]:
    """Relative path -> text of every file a fresh workspace holds."""
    files = {"README.md": readme(), "pytest.ini": catalog.PYTEST_INI.read_text(encoding="utf-8")}
    for exercise in catalog.EXERCISES:
        files[exercise.filename] = stub(exercise)
        files[f"tests/{exercise.test_file.name}"] = exercise.test_file.read_text(encoding="utf-8")
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
