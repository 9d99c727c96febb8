"""Grading a class (micrograd2/exercises/classroom.py, ``exercise check --class``): three workspaces (right,
wrong, empty) and a folder that is not one, into a CSV checked cell by cell and a JSON with every reason;
what "to do" means; and the usage errors of the grammar ``check [DIR] [ID]... [--class DIR]``."""
from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from micrograd2.cli import main
from micrograd2.exercises import catalog, classroom, stubs

TEACHER = Path(__file__).resolve().parents[1] / "teacher"
CHEAP = ("U1.1", "U2.2", "U5.3")  # three exercises that grade in about a second each


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["exercise", *args])
    return result.exit_code, result.output


def solution(key: str) -> str:
    return (TEACHER / "solutions" / catalog.get(key).filename).read_text(encoding="utf-8")


def write_class(folder: Path) -> Path:
    """right: the model solutions; wrong: U1.1 ignores the upstream gradient, U2.2 does not parse, U5.3
    untouched; empty: fresh stubs; notes: not a workspace."""
    for student in ("right", "wrong", "empty"):
        stubs.make_workspace(folder / student)
    for key in CHEAP:
        (folder / "right" / catalog.get(key).filename).write_text(solution(key), encoding="utf-8")
    wrong = folder / "wrong"
    assert "return grad * b, grad * a" in solution("U1.1")
    (wrong / "ex01_mul_sum.py").write_text(solution("U1.1").replace("return grad * b, grad * a", "return b, a"))
    (wrong / "ex04_backprop.py").write_text(solution("U2.2") + "\ndef broken(:\n    pass\n")
    (folder / "notes").mkdir()
    (folder / "notes" / "todo.txt").write_text("grade by Friday")
    predictions = {"L3.a": {"answer": 2.0, "right": True}, "L3.b": {"answer": 1.0, "right": False},
                   "L4.c": {"answer": "b", "right": True}}
    (folder / "right" / "predictions.json").write_text(json.dumps(predictions))
    return folder


def read_csv(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as rows:
        return list(csv.reader(rows))


def test_a_class_is_graded_into_a_csv_cell_by_cell_and_a_json_with_every_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = write_class(tmp_path / "class")
    monkeypatch.setenv("MICROGRAD2_WORKSPACE", str(folder / "right"))
    for args in (("U1.1",), ("U1.1", "2"), ("U1.1", "2"), ("U5.3", "3")):  # the same hint twice counts once
        assert invoke("hint", *args)[0] == 0
    monkeypatch.delenv("MICROGRAD2_WORKSPACE")
    code, out = invoke("check", "--class", str(folder), *CHEAP, "--jobs", "2")
    assert code == 0, out
    assert read_csv(folder / "grades.csv") == [
        ["student", "U1.1", "U2.2", "U5.3", "passed", classroom.HINTS_COLUMN, classroom.PREDICTIONS_COLUMN],
        ["empty", "to do", "to do", "to do", "0/3", "0", "0/0"],
        ["right", "pass", "pass", "pass", "3/3", "3", "2/3"],
        ["wrong", "fail", "error", "to do", "0/3", "0", "0/0"],
    ]
    report = json.loads((folder / "grades.json").read_text(encoding="utf-8"))
    assert report["exercises"] == list(CHEAP) and report["tests"] == "public"
    assert report["skipped"] == [{"folder": "notes", "why": "not a workspace (no exercise file in it)"}]
    students = {s["student"]: s for s in report["students"]}
    wrong = {e["id"]: e for e in students["wrong"]["exercises"]}
    assert wrong["U1.1"]["status"] == "failed" and "upstream gradient is ignored" in wrong["U1.1"]["details"]
    assert re.match(r"ex04_backprop\.py:\d+: SyntaxError", wrong["U2.2"]["reason"])
    assert wrong["U5.3"]["reason"] == "to do: ex07_custom_function.py still as `micrograd2 exercise start` wrote it"
    assert all(e["reason"] for s in report["students"] for e in s["exercises"])  # a reason for every cell
    right = students["right"]["informational"]
    assert right["hints_used"] == 3 and right["hints"] == {"U1.1": 2, "U5.3": 3}
    assert right["predictions"] == {"right": 2, "answered": 3} and "not part of the grade" in right["note"]
    lines = out.splitlines()
    assert lines[0].startswith("engine: ") and lines[1].startswith("student  passed")
    assert lines[3].split()[:2] == ["empty", "0/3"] and "U1.1 to do, U2.2 to do, U5.3 to do" in lines[3]
    assert "skipped notes/: not a workspace" in out and "3 workspaces graded" in out


def test_the_csv_and_json_go_where_asked_and_hidden_tests_grade_the_class(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    stubs.make_workspace(folder / "ann")
    (folder / "ann" / "ex07_custom_function.py").write_text(solution("U5.3"))
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_ex07_custom_function.py").write_text("def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    code, out = invoke("check", "--class", str(folder), "--tests", str(hidden), "--csv", str(tmp_path / "o" / "g.csv"),
                       "--json", str(tmp_path / "o" / "g.json"))
    assert code == 0, out
    assert read_csv(tmp_path / "o" / "g.csv")[1][:3] == ["ann", "pass", "1/1"]
    report = json.loads((tmp_path / "o" / "g.json").read_text())
    assert report["tests"] == str(hidden.resolve()) and report["students"][0]["exercises"][0]["tests_total"] == 2
    assert not (folder / "grades.csv").exists()


def test_class_usage_errors_are_one_line_with_exit_2(tmp_path: Path) -> None:
    (tmp_path / "class" / "notes").mkdir(parents=True)
    code, out = invoke("check", "--class", str(tmp_path / "class"))
    assert code == 2 and "holds no workspace" in out.splitlines()[-1]
    assert invoke("check", "--class", str(tmp_path / "nowhere"))[0] == 2
    stubs.make_workspace(tmp_path / "class" / "bo")
    code, out = invoke("check", "--class", str(tmp_path / "class"), str(tmp_path / "class" / "bo"))
    assert code == 2 and "name no workspace" in out.splitlines()[-1]
    code, out = invoke("check", "--class", str(tmp_path / "class"), "U9.9")
    assert code == 2 and "there is no exercise or unit U9.9" in out.splitlines()[-1]
    assert not (tmp_path / "class" / "grades.csv").exists()


def test_to_do_means_every_file_the_student_writes_is_still_the_stub(tmp_path: Path) -> None:
    stubs.make_workspace(tmp_path)
    fresh = stubs.workspace_files()
    u11, u13 = catalog.get("U1.1"), catalog.get("U1.3")
    assert classroom.untouched(tmp_path, u11, fresh) and classroom.untouched(tmp_path, u13, fresh)
    path = tmp_path / u11.filename
    path.write_bytes(path.read_text().replace("\n", "  \r\n").encode())  # line endings and blanks aside
    assert classroom.untouched(tmp_path, u11, fresh)
    path.write_text(path.read_text() + "x = 1\n")
    assert not classroom.untouched(tmp_path, u11, fresh)
    path.unlink()
    assert not classroom.untouched(tmp_path, u11, fresh)  # missing: graded, so the grader says so
    hole = tmp_path / "engine" / "u1_record.py"
    hole.write_text(hole.read_text() + "\n# begun\n")
    assert not classroom.untouched(tmp_path, u13, fresh)  # U1.3 is written in engine/, not in its sheet


def test_the_student_writes_in_the_sheet_except_where_it_names_engine_files() -> None:
    files = stubs.workspace_files()
    for exercise in catalog.EXERCISES:
        raises = re.findall(rf'NotImplementedError\("Exercise {re.escape(exercise.id)}: ([^"]*)"', stubs.stub(exercise))
        to_write = [r for r in raises if not r.startswith("no engine/")]
        if exercise.id in catalog.ENGINE_FILES:
            assert not to_write and all(f in files for f in catalog.student_files(exercise)), exercise.id
        else:
            assert to_write, f"{exercise.id}: nothing to write in {exercise.filename}: add it to ENGINE_FILES"


def test_a_folder_of_folders_is_split_into_workspaces_and_the_rest(tmp_path: Path) -> None:
    stubs.make_workspace(tmp_path / "b")
    stubs.make_workspace(tmp_path / "a")
    (tmp_path / "c").mkdir()
    (tmp_path / "grades.csv").write_text("a file, not a folder")
    shutil.copytree(tmp_path / "a", tmp_path / "d")
    workspaces, skipped = classroom.find_workspaces(tmp_path)
    assert [name for name, _ in workspaces] == ["a", "b", "d"] and list(skipped) == ["c"]
