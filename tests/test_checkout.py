"""``micrograd2._checkout``: a source checkout that is not installed still has ``micrograd2.lessons``."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from micrograd2._checkout import NAME, LessonsFinder

ROOT = Path(__file__).resolve().parent.parent


def test_the_finder_answers_for_the_lessons_package_only() -> None:
    finder = LessonsFinder(ROOT / "lessons")
    spec = finder.find_spec(NAME)
    assert spec is not None and spec.submodule_search_locations == [str(ROOT / "lessons")]
    assert finder.find_spec("micrograd2.other") is None and finder.find_spec("lessons") is None


def test_a_lesson_tool_imports_from_a_checkout_run_with_pythonpath(tmp_path: Path) -> None:
    code = "import micrograd2.lessons.tools as t; print(t.__file__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).parent.name == "lessons"
