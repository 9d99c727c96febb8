"""``micrograd2 exercise``: list, start, check and hint, with click's exit codes (0 ok, 1 failed, 2 usage)."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from micrograd2.cli import main
from micrograd2.exercises import catalog


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["exercise", *args])
    return result.exit_code, result.output


def test_list_shows_every_exercise_in_order() -> None:
    code, out = invoke("list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(catalog.EXERCISES)
    for line, e in zip(lines, catalog.EXERCISES):
        assert line.startswith(f"{e.number:>2}  {e.title}") and f"(lesson {e.lesson})" in line


def test_hint_prints_one_level_and_points_to_the_next() -> None:
    code, out = invoke("hint", "3")
    assert code == 0 and catalog.hint(3, 1) in out and "hint 1 of 3" in out and "micrograd2 exercise hint 3 2" in out
    code, out = invoke("hint", "3", "--level", "3")
    assert code == 0 and catalog.hint(3, 3) in out and "more:" not in out


def test_hint_takes_the_level_as_a_second_argument() -> None:
    code, out = invoke("hint", "3", "2")
    assert code == 0 and catalog.hint(3, 2) in out and "hint 2 of 3" in out


def test_an_unknown_exercise_or_hint_level_is_a_usage_error_listing_the_valid_ones() -> None:
    for args in (["hint", "42"], ["hint", "0"]):
        code, out = invoke(*args)
        assert code == 2 and "valid numbers: 1-9" in out
    for args in (["hint", "1", "--level", "4"], ["hint", "1", "4"]):
        code, out = invoke(*args)
        assert code == 2 and "exercise 1 has hints 1-3" in out


def test_start_writes_a_workspace_and_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    target = tmp_path / "class1"
    code, out = invoke("start", str(target))
    assert code == 0 and (target / "ex01_mul_sum.py").exists()
    assert (target / "tests" / "test_ex09_train_moons.py").exists()
    (target / "ex01_mul_sum.py").write_text("my work")
    code, out = invoke("start", str(target))
    assert code == 2 and "is not empty" in out and "--force" in out
    assert (target / "ex01_mul_sum.py").read_text() == "my work"
    code, out = invoke("start", str(target), "--force")
    assert code == 0 and "NotImplementedError" in (target / "ex01_mul_sum.py").read_text()
    (tmp_path / "a_file").write_text("x")
    code, out = invoke("start", str(tmp_path / "a_file"))
    assert code == 2


def test_check_usage_errors(tmp_path: Path) -> None:
    assert invoke("check", str(tmp_path / "nowhere"))[0] == 2
    code, out = invoke("check", str(tmp_path), "42")
    assert code == 2 and "there is no exercise 42; valid numbers: 1-9" in out
    assert invoke("check", str(tmp_path), "1", "--timeout", "0")[0] == 2


def test_an_empty_or_foreign_folder_is_not_an_exercise_workspace(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notes.txt").write_text("my notes")
    for args in ([str(tmp_path)], [str(tmp_path / "nowhere")]):
        code, out = invoke("check", *args)
        assert code == 2 and "is not an exercise workspace (run `micrograd2 exercise start" in out
        assert "missing" not in out
    monkeypatch.chdir(tmp_path)
    code, out = invoke("check")
    assert code == 2 and "Error: . is not an exercise workspace (run `micrograd2 exercise start .`)" in out


def test_check_without_a_directory_grades_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    shutil.copy(catalog.get(7).source, tmp_path / "ws" / catalog.get(7).filename)
    monkeypatch.chdir(tmp_path / "ws")
    code, out = invoke("check", "7")
    assert code == 0 and out.splitlines()[-1] == "1/1 exercises passed"
    code, out = invoke("check", "--jobs", "2", "--timeout", "5")
    assert code == 1 and out.splitlines()[-1] == "1/9 exercises passed"


def test_verbose_lists_every_failing_test(tmp_path: Path) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    code, out = invoke("check", str(tmp_path / "ws"), "2", "-v")
    assert code == 1
    failing = [line.strip() for line in out.splitlines() if line.startswith("  test_")]
    assert len(failing) == len(catalog.get(2).test_file.read_text().split("def test_")) - 1
    code, out = invoke("check", str(tmp_path / "ws"), "2")
    assert "add -v to list every failing test" in out
    assert len([line for line in out.splitlines() if line.startswith("  test_")]) <= 1


def test_the_status_line_says_which_exercises_are_running() -> None:
    from micrograd2.commands.exercise import _status_line

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    class Running:
        def __init__(self, number: int, elapsed: float) -> None:
            self.exercise, self.elapsed = catalog.get(number), elapsed

    screen = Terminal()
    show = _status_line(screen)
    show([Running(3, 1.2), Running(4, 0.1)], 2, 9)
    show([], 9, 9)
    assert screen.getvalue() == "\r\x1b[Kgrading: 2/9 done; running exercise 3 (1 s), 4 (0 s)\r\x1b[K"
    assert _status_line(io.StringIO()) is None  # not a terminal: no status line


def test_start_then_check_a_fresh_workspace_fails_every_exercise(tmp_path: Path) -> None:
    target = tmp_path / "class1"
    assert invoke("start", str(target))[0] == 0
    code, out = invoke("check", str(target), "--json", str(tmp_path / "report.json"), "--jobs", "2")
    lines = out.splitlines()
    assert code == 1 and lines[-1] == "0/9 exercises passed"
    rows = lines[2:11]
    assert all(" failed " in row and "to do: implement" in row for row in rows)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["passed"] == 0 and report["total"] == 9 and report["workspace"] == str(target.resolve())


def test_check_one_solved_exercise_exits_0(tmp_path: Path) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    shutil.copy(catalog.get(7).source, tmp_path / "ws" / catalog.get(7).filename)
    code, out = invoke("check", str(tmp_path / "ws"), "7")
    assert code == 0 and out.splitlines()[-1] == "1/1 exercises passed" and " passed " in out


def test_python_dash_m_runs_the_exercise_command() -> None:
    out = subprocess.run([sys.executable, "-m", "micrograd2", "exercise", "list"], capture_output=True, text=True)
    assert out.returncode == 0 and "Mul and Sum as Functions" in out.stdout
