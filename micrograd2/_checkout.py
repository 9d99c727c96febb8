"""A source checkout used without installing (``PYTHONPATH=.``): ``lessons/`` there is ``micrograd2.lessons``.

An install maps the folder into the package (setup.cfg's ``package_dir``); this
finder does the same where micrograd2 runs from the repository itself, so a
lesson's ``from micrograd2.lessons.tools import check`` works either way.  It is
added to ``sys.meta_path`` only in that case and answers for that one name.
"""
from __future__ import annotations

import importlib.util
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

NAME = "micrograd2.lessons"


class LessonsFinder:
    """Finds ``micrograd2.lessons`` in the checkout's ``lessons/`` folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name != NAME:
            return None
        return importlib.util.spec_from_file_location(NAME, self.folder / "__init__.py",
                                                      submodule_search_locations=[str(self.folder)])


def add_lessons_finder() -> None:
    """Add ``LessonsFinder`` if micrograd2 runs from a checkout whose lessons are not installed."""
    package = Path(__file__).resolve().parent
    folder = package.parent / "lessons"
    if (package / "lessons").is_dir() or not (folder / "__init__.py").is_file():
        return
    if not (package.parent / "setup.cfg").is_file():
        return
    if not any(isinstance(f, LessonsFinder) for f in sys.meta_path):
        sys.meta_path.append(LessonsFinder(folder))  # type: ignore[arg-type]
