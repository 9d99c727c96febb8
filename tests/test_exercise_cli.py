"""``micrograd2 exercise``: list (by unit), start, check (a unit, an id or an alias; public or hidden tests) and
hint, with click's exit codes (0 ok, 1 failed, 2 usage)."""
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

TEACHER = Path(__file__).resolve().parents[1] / "teacher"
SOLVED_7 = TEACHER / "solutions" / "ex07_custom_function.py"


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["exercise", *args])
    return result.exit_code, result.output


def check_lines(out: str) -> list[str]:
    """``check``'s output less its first line, which names the engine (``engine: …``)."""
    lines = out.splitlines()
    assert lines[0].startswith("engine: "), out
    return lines[1:]


def test_list_shows_each_unit_then_its_exercises() -> None:
    code, out = invoke("list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(catalog.EXERCISES) + len(catalog.units())
    units = [line for line in lines if not line.startswith(" ")]
    assert [line.split()[0] for line in units] == [u.key for u in catalog.units()]
    rows = [line for line in lines if line.startswith(" ")]
    for line, e in zip(rows, catalog.EXERCISES):
        assert line.split()[0] == e.id and e.title in line and f"(lesson {e.lesson})" in line
        where = "engine/u1_record.py" if e.id == "U1.3" else "engine/u2_walk.py" if e.id == "U2.3" \
            else e.filename  # the file the student writes in
        assert line.split(e.title, 1)[1].split()[0] == where, line
    assert lines[lines.index(next(u for u in units if u.startswith("U2"))) + 1].split()[0] == "U2.1"
    assert rows[[e.id for e in catalog.EXERCISES].index("U2.1")].endswith("[3]")  # its alias


def test_hint_prints_one_level_and_points_to_the_next() -> None:
    code, out = invoke("hint", "3")
    assert code == 0 and catalog.hint(3, 1) in out and "hint 1 of 3" in out
    assert "Exercise U2.1, " in out and "micrograd2 exercise hint U2.1 2" in out
    code, out = invoke("hint", "3", "--level", "3")
    assert code == 0 and catalog.hint(3, 3) in out and "more:" not in out


def test_hint_takes_the_level_as_a_second_argument() -> None:
    code, out = invoke("hint", "3", "2")
    assert code == 0 and catalog.hint(3, 2) in out and "hint 2 of 3" in out
    assert invoke("hint", "u2.1", "2") == (code, out)


def test_each_hint_shown_in_a_workspace_is_logged_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MICROGRAD2_WORKSPACE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert invoke("hint", "3")[0] == 0 and list(tmp_path.iterdir()) == []  # not a workspace: no log
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    monkeypatch.chdir(tmp_path / "ws")
    assert invoke("hint", "3", "2")[0] == 0 and invoke("hint", "U1.1")[0] == 0
    assert invoke("hint", "U1.1", "9")[0] == 2  # not shown: not logged
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MICROGRAD2_WORKSPACE", str(tmp_path / "ws"))
    assert invoke("hint", "u2.1", "2")[0] == 0
    entries = [json.loads(line) for line in (tmp_path / "ws" / "hints.jsonl").read_text().splitlines()]
    assert [(e["id"], e["level"]) for e in entries] == [("U2.1", 2), ("U1.1", 1), ("U2.1", 2)]
    assert all(e["time"].endswith("+00:00") for e in entries)
    code, out = invoke("check", str(tmp_path / "ws"), "U5.3", "--json", str(tmp_path / "r.json"))
    shown = json.loads((tmp_path / "r.json").read_text())["informational"]
    assert code == 1 and shown["hints_used"] == 2 and shown["hints"] == {"U1.1": 1, "U2.1": 2}
    assert shown["predictions"] == {"right": 0, "answered": 0} and "not part of the grade" in shown["note"]


def test_an_unknown_exercise_or_hint_level_is_a_usage_error_listing_the_valid_ones() -> None:
    for args in (["hint", "42"], ["hint", "0"], ["hint", "U2"]):
        code, out = invoke(*args)
        assert code == 2 and "valid: units " in out and "aliases 1-9" in out
    for args in (["hint", "1", "--level", "4"], ["hint", "1", "4"]):
        code, out = invoke(*args)
        assert code == 2 and "exercise U1.1 has hints 1-3" in out


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
    assert code == 2 and "there is no exercise or unit 42; valid: units " in out
    assert invoke("check", str(tmp_path), "U3")[0] == 2  # a unit without exercises
    assert invoke("check", str(tmp_path), "1", "--timeout", "0")[0] == 2


def test_an_empty_or_foreign_folder_is_not_an_exercise_workspace(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notes.txt").write_text("my notes")
    for args in ([str(tmp_path)], [str(tmp_path / "nowhere")]):
        code, out = invoke("check", *args)
        assert code == 2 and "is not an exercise workspace (run `micrograd2 exercise start" in out
        assert "missing" not in out
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MICROGRAD2_WORKSPACE", raising=False)
    code, out = invoke("check")
    assert code == 2 and "Error: the current folder is not an exercise workspace, nor is any folder " \
        "above it: start one with `micrograd2 exercise start DIR`" in out


def test_ids_without_a_directory_are_ids_and_the_error_says_so(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MICROGRAD2_WORKSPACE", raising=False)
    code, out = invoke("check", "U2.1", "U2.2")
    text = " ".join(out.split())
    assert code == 2 and "(U2.1 U2.2: read as exercise IDs)" in text and ". is not" not in text
    assert "`micrograd2 exercise start DIR`" in text and "`micrograd2 exercise check DIR U2.1 U2.2`" in text
    code, out = invoke("check", "U9.9")  # looks like an ID: never read as a folder to grade
    assert code == 2 and "there is no exercise or unit U9.9" in out
    monkeypatch.setenv("MICROGRAD2_WORKSPACE", str(tmp_path / "nowhere"))
    code, out = invoke("check", "U2.1")
    assert code == 2 and f"nor is $MICROGRAD2_WORKSPACE ({tmp_path / 'nowhere'})" in " ".join(out.split())


def test_without_a_directory_check_grades_the_workspace_above_or_the_named_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    shutil.copy(SOLVED_7, tmp_path / "ws" / catalog.get(7).filename)
    monkeypatch.delenv("MICROGRAD2_WORKSPACE", raising=False)
    monkeypatch.chdir(tmp_path / "ws" / "engine")  # a student in the engine's folder
    code, out = invoke("check", "U5.3")
    assert code == 0 and check_lines(out)[0] == f"workspace: {(tmp_path / 'ws').resolve()}", out
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MICROGRAD2_WORKSPACE", str(tmp_path / "ws"))
    code, out = invoke("check", "U5.3", "U5.3")
    assert code == 0 and out.splitlines()[-1] == "1/1 exercises passed"


def test_check_without_a_directory_grades_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    shutil.copy(SOLVED_7, tmp_path / "ws" / catalog.get(7).filename)
    monkeypatch.chdir(tmp_path / "ws")
    code, out = invoke("check", "7")
    assert code == 0 and out.splitlines()[-1] == "1/1 exercises passed" and check_lines(out)[2].startswith("U5.3")
    code, out = invoke("check", "--jobs", "2", "--timeout", "5")
    assert code == 1 and out.splitlines()[-1] == f"1/{len(catalog.EXERCISES)} exercises passed"


def test_verbose_lists_every_failing_test(tmp_path: Path) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    code, out = invoke("check", str(tmp_path / "ws"), "U1.2", "-v")
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
    assert screen.getvalue() == "\r\x1b[Kgrading: 2/9 done; running exercise U2.1 (1 s), U2.2 (0 s)\r\x1b[K"
    assert _status_line(io.StringIO()) is None  # not a terminal: no status line


def test_start_then_check_a_fresh_workspace_fails_every_exercise(tmp_path: Path) -> None:
    target = tmp_path / "class1"
    assert invoke("start", str(target))[0] == 0
    code, out = invoke("check", str(target), "U5", "--json", str(tmp_path / "report.json"), "--jobs", "2")
    lines = check_lines(out)
    assert code == 1 and lines[-1] == "0/6 exercises passed"
    rows = lines[2:8]
    assert [row.split()[0] for row in rows] == ["U5.1", "U5.2", "U5.3", "U5.4", "U5.5", "U5.6"]
    assert all(" failed " in row and "to do: implement" in row for row in rows[:5])
    assert "not implemented yet: record" in rows[5]  # the capstone on the student's engine (U5.6)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["passed"] == 0 and report["total"] == 6 and report["workspace"] == str(target.resolve())
    assert report["tests"] == "public" and report["exercises"][0]["id"] == "U5.1"


def test_check_one_solved_exercise_exits_0(tmp_path: Path) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    shutil.copy(SOLVED_7, tmp_path / "ws" / catalog.get(7).filename)
    code, out = invoke("check", str(tmp_path / "ws"), "7")
    assert code == 0 and out.splitlines()[-1] == "1/1 exercises passed" and " passed " in out


HIDDEN_EX01 = """\
import micrograd2 as mg
from micrograd2.exercises.harness import check_backward, load_student


def test_a_scaled_product():
    mul = load_student("ex01_mul_sum", __file__).Mul.apply
    check_backward(lambda a, b: mul(a, b) * 3.0, lambda a, b: a * b * 3.0, [2.0, -1.5])


def test_a_sum_of_two():
    add = load_student("ex01_mul_sum", __file__).Sum.apply
    check_backward(lambda a, b: add(a, b) * 2.0, lambda a, b: mg.sum([a, b]) * 2.0, [0.5, 4.0])
"""
HIDDEN_EX07 = """\
import micrograd2 as mg
from micrograd2.exercises.harness import load_student


def test_hypot_of_a_triple():
    a, b = mg.Value(3.0, requires_grad=True), mg.Value(4.0, requires_grad=True)
    load_student("ex07_custom_function", __file__).Hypot.apply(a, b).backward()
    assert (a.grad, b.grad) == (0.6, 0.8)
"""


def hidden_folder(folder: Path) -> Path:
    """A teacher's folder of hidden tests for U1.1 and U5.3 (written here, so that the test does not
    follow the teacher's own, which change)."""
    folder.mkdir()
    (folder / "test_ex01_mul_sum.py").write_text(HIDDEN_EX01)
    (folder / "test_ex07_custom_function.py").write_text(HIDDEN_EX07)
    return folder


def wrong_ex01() -> str:
    """U1.1's model solution with Mul's backward ignoring the upstream gradient."""
    source = (TEACHER / "solutions" / "ex01_mul_sum.py").read_text(encoding="utf-8")
    assert "return grad * b, grad * a" in source
    return source.replace("return grad * b, grad * a", "return b, a")


def test_check_with_hidden_tests_gives_the_same_table_and_json(tmp_path: Path) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    (tmp_path / "ws" / "ex01_mul_sum.py").write_text(wrong_ex01())
    shutil.copy(SOLVED_7, tmp_path / "ws" / catalog.get(7).filename)
    hidden = str(hidden_folder(tmp_path / "hidden"))
    code, out = invoke("check", str(tmp_path / "ws"), "--tests", hidden, "--json", str(tmp_path / "r.json"))
    lines = check_lines(out)
    assert code == 1 and lines[-1] == "1/2 exercises passed"  # without ID: what the folder has tests for
    assert lines[0].startswith("id    exercise") and lines[2].startswith("U1.1") and " 1/2 " in lines[2]
    assert lines[3].startswith("U5.3") and " passed " in lines[3] and "upstream gradient is ignored" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["tests"] == str(Path(hidden).resolve()) and [e["id"] for e in report["exercises"]] == [
        "U1.1", "U5.3"]
    assert report["exercises"][-1]["tests_total"] == 1 and report["exercises"][-1]["status"] == "passed"
    code, out = invoke("check", str(tmp_path / "ws"), "U5.3", "--tests", hidden)
    assert code == 0 and out.splitlines()[-1] == "1/1 exercises passed"


def test_check_takes_several_ids_after_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    shutil.copy(SOLVED_7, tmp_path / "ws" / catalog.get(7).filename)
    code, out = invoke("check", str(tmp_path / "ws"), "U5.3", "1", "u5.3")
    assert code == 1 and [line.split()[0] for line in check_lines(out)[2:4]] == ["U1.1", "U5.3"]
    monkeypatch.chdir(tmp_path / "ws")
    code, out = invoke("check", "7", "U1.1")  # no DIR: the current folder
    assert code == 1 and out.splitlines()[-1] == "1/2 exercises passed"
    code, out = invoke("check", str(tmp_path / "ws"), "--csv", str(tmp_path / "g.csv"))
    assert code == 2 and "--csv writes a class's grades: use it with --class CLASS" in out


def test_hidden_tests_must_be_named_for_an_exercise(tmp_path: Path) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    (tmp_path / "hidden").mkdir()
    code, out = invoke("check", str(tmp_path / "ws"), "--tests", str(tmp_path / "hidden"))
    assert code == 2 and "holds no hidden tests" in out
    code, out = invoke("check", str(tmp_path / "ws"), "U2", "--tests", str(hidden_folder(tmp_path / "h2")))
    assert code == 2 and "has no tests for U2.1 (expected test_ex03_topo_order.py" in out
    (tmp_path / "hidden" / "test_mistyped.py").write_text("def test_x():\n    pass\n")
    code, out = invoke("check", str(tmp_path / "ws"), "--tests", str(tmp_path / "hidden"))
    assert code == 2 and "test_mistyped.py in " in out and "grades no exercise" in out


def test_a_missing_student_file_fails_its_exercise(tmp_path: Path) -> None:
    assert invoke("start", str(tmp_path / "ws"))[0] == 0
    (tmp_path / "ws" / "ex01_mul_sum.py").unlink()
    code, out = invoke("check", str(tmp_path / "ws"), "U1")  # U1.0-U1.3
    assert code == 1 and out.splitlines()[-1] == "0/4 exercises passed"
    assert " error " in out and "ex01_mul_sum.py is missing from" in out


def test_python_dash_m_runs_the_exercise_command() -> None:
    out = subprocess.run([sys.executable, "-m", "micrograd2", "exercise", "list"], capture_output=True, text=True)
    assert out.returncode == 0 and "Mul and Sum as Functions" in out.stdout
