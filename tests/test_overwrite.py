"""``micrograd2/commands/overwrite.py``: a command writes a student's file only where none is, unless forced.

It proves that ``write_new`` writes a new file (its folder made), leaves a file that is there as it is
and refuses in one line that names the file and ``--force`` with exit status 2, overwrites it with
``force``, and ends with a one-line failure (exit 1) when the file cannot be written.
"""
from __future__ import annotations

from pathlib import Path

import click
import pytest

from micrograd2.commands.overwrite import Refused, write_new


def test_a_new_file_is_written_and_its_folder_made(tmp_path: Path) -> None:
    path = tmp_path / "nb" / "01.ipynb"
    assert write_new(path, "fresh", force=False) == path
    assert path.read_text(encoding="utf-8") == "fresh"


def test_a_file_that_is_there_is_left_as_it_is_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "01.ipynb"
    path.write_text("my edits", encoding="utf-8")
    with pytest.raises(Refused) as refused:
        write_new(path, "fresh", force=False)
    assert refused.value.exit_code == 2
    message = refused.value.format_message()
    assert "\n" not in message and str(path) in message and "--force" in message
    assert path.read_text(encoding="utf-8") == "my edits"
    write_new(path, "fresh", force=True)
    assert path.read_text(encoding="utf-8") == "fresh"


def test_a_file_that_cannot_be_written_is_a_failure_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("x", encoding="utf-8")
    with pytest.raises(click.ClickException) as failed:
        write_new(tmp_path / "a_file" / "01.ipynb", "fresh", force=True)  # its folder is a file
    assert not isinstance(failed.value, Refused) and failed.value.exit_code == 1
    assert failed.value.format_message() == (f"could not write {tmp_path / 'a_file' / '01.ipynb'}: "
                                             f"{tmp_path / 'a_file'} is a file, not a folder")
