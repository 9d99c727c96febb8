"""The README's command works on a fresh copy: ``make lessons`` runs every lesson, all checks passing."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOT_COPIED = (".venv", ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
              "*.egg-info", "build", "dist", "out", ".whl")


def test_make_lessons_runs_the_lesson_command() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^lessons:.*\n\t(.+)$", makefile, re.MULTILINE)
    assert recipe is not None
    assert recipe.group(1).strip() == "$(PY) -m micrograd2 lesson run all"


@pytest.mark.slow
def test_every_lesson_passes_from_a_clean_copy_of_the_repository(tmp_path: Path) -> None:
    copy = tmp_path / "micrograd2-copy"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    env = {**os.environ, "PYTHONPATH": str(copy), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "micrograd2", "lesson", "run", "all", "--no-color"],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"\nAll 10 lessons: \d+ checks: .*; all pass\.\n$", done.stdout), done.stdout[-500:]
    assert "Traceback (most recent call last)" not in done.stdout + done.stderr
    assert "\x1b[" not in done.stdout


@pytest.mark.slow
def test_the_lessons_ship_in_the_wheel_and_run_from_a_plain_install(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")
    pytest.importorskip("wheel")
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_COPIED, "tests"))
    (source / "README.md").touch()
    run = {"capture_output": True, "text": True, "timeout": 600}
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
                            "-w", str(tmp_path / "wheel"), "-q"], cwd=source, **run)  # type: ignore[call-overload]
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "wheel").glob("micrograd2-*.whl"))
    target = tmp_path / "installed"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target),
                                str(wheel), "-q"], **run)  # type: ignore[call-overload]
    assert installed.returncode == 0, installed.stderr
    env = {**os.environ, "PYTHONPATH": str(target)}
    listed = subprocess.run([sys.executable, "-m", "micrograd2", "lesson", "list"], cwd=tmp_path, env=env, **run)
    assert listed.returncode == 0, listed.stderr
    shipped = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.py"))
    assert len(listed.stdout.splitlines()) == len(shipped) >= 10  # lessons 1-10
    lesson = subprocess.run([sys.executable, "-m", "micrograd2", "lesson", "run", "3", "--no-trace"], cwd=tmp_path,
                            env=env, **run)  # type: ignore[call-overload]
    assert lesson.returncode == 0 and re.search(r"✓ Lesson 3: \d+ checks: .*; all pass\.", lesson.stdout)
    assert str(target) in subprocess.run(
        [sys.executable, "-c", "import micrograd2.lessons as l; print(l.__file__)"], cwd=tmp_path, env=env,
        **run).stdout  # type: ignore[call-overload]
