"""The one rule for commands that write a student's files: nothing the student may have edited is
overwritten without ``--force``.

A command that writes a lesson, a stub or a notebook into a folder the student names
(``lesson notebook``, ``exercise start``) refuses, when its file is already there, with
``Refused``: one line that names the file and ``--force``, and exit status 2, as click's
usage errors.  Generated pictures (``--graph``, ``--html``) are not the student's work:
they are replaced, and do not come here.
"""
from __future__ import annotations

from pathlib import Path

import click


class Refused(click.ClickException):
    """A file the student may have edited is in the way: one line (``Error: ...``), exit 2."""

    exit_code = 2


def existing_file(path: Path) -> Refused:
    """The refusal for ``path``, which exists and may hold the student's edits."""
    return Refused(f"{path} already exists and may hold your edits, so it was left as it is. "
                   "What to do: pass --force to overwrite it, or write into another folder.")


def write_new(path: Path, text: str, force: bool) -> Path:
    """Write ``text`` to ``path`` (its folder made if needed); return ``path``.

    Without ``force``, a file already at ``path`` is left as it is and ``Refused`` is raised:
    the file is created only if it is not there (``open`` mode ``x``, so a file that appears
    meanwhile is not overwritten either).  Other failures end the command with their message."""
    if path.exists() and not force:
        raise existing_file(path)
    blocking = next((f for f in (path.parent, *path.parent.parents) if f.exists() and not f.is_dir()), None)
    if blocking is not None:
        raise click.ClickException(f"could not write {path}: {blocking} is a file, not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            out = open(path, "w" if force else "x", encoding="utf-8")
        except FileExistsError:
            raise existing_file(path) from None
        with out:
            out.write(text)
    except OSError as error:
        raise click.ClickException(f"could not write {path}: {error.strerror or error}") from None
    return path
