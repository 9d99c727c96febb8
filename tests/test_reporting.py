"""Showing a grade: the table cut at the terminal's width, each diagnosis in full and wrapped under it, every
failing test with ``verbose``, ``K/N exercises passed`` last, and the JSON report."""
from __future__ import annotations

import json
from pathlib import Path

from micrograd2.exercises import reporting
from micrograd2.exercises.grader import CaseResult, ExerciseResult

LONG = ("step 3 of the backward walk of tanh(a * b + c) (x0=0.5, x1=-1.5, x2=2.0): node TanhBackward (the "
        "reference's TanhBackward0), output 0.905148, upstream gradient 1.0: its gradient for input 0 is "
        "0.180707, expected 0.180707 (all inputs: got (0.5, 1.5), expected (0.180707))")


def results() -> list[ExerciseResult]:
    failing = [CaseResult("test_tanh_walk", "failed", LONG[:199] + "…", LONG),
               CaseResult("test_exp_walk", "failed", "exp is wrong", "exp is wrong"),
               CaseResult("test_ok", "passed")]
    return [
        ExerciseResult("U1.1", "ex01_mul_sum", "Mul and Sum as Functions", "passed", "all 1 tests passed", 0.5, 1,
                       [CaseResult("test_ok", "passed")]),
        ExerciseResult("U1.2", "ex02_activations", "Tanh, Exp and Sigmoid backward", "failed", LONG[:199] + "…", 0.7, 3,
                       failing, details=LONG),
        ExerciseResult("U2.1", "ex03_topo_order", "Reverse topological order", "failed", "to do: implement topo_order",
                       0.5, 1, [CaseResult("test_a", "failed", "to do: implement topo_order")],
                       details="to do: implement topo_order"),
    ]


def test_the_table_has_a_row_per_exercise_cut_at_the_width() -> None:
    lines = reporting.table(results(), width=100).splitlines()
    assert len(lines) == 2 + 3 and all(len(line) <= 100 for line in lines)
    assert lines[2].startswith("U1.1  Mul and Sum as Functions") and lines[2].endswith("1/1")
    assert lines[3].endswith("…") and " failed " in lines[3] and "1/3" in lines[3]


def test_the_whole_diagnosis_is_printed_wrapped_under_the_table() -> None:
    text = reporting.render(results(), width=100)
    lines = text.splitlines()
    assert lines[-1] == "1/3 exercises passed"
    below = text.split("\n\n")[1]
    assert "add -v" not in reporting.render(results()[:1])
    assert below.startswith("Exercise U1.2, Tanh, Exp and Sigmoid backward:\n  test_tanh_walk:\n")
    assert " ".join(below.split()).endswith(" ".join(LONG.split()) + " (1 more failing test(s))")
    assert lines[-3:] == ["(add -v to list every failing test)", "", "1/3 exercises passed"]
    assert all(len(line) <= 100 for line in lines)
    assert "Exercise U2.1" not in text  # its row showed all there is to say
    assert "Exercise U2.1" not in reporting.render(results(), width=40)  # a stub: "to do" is all there is to say


def test_verbose_lists_every_failing_test() -> None:
    text = reporting.diagnoses(results(), width=100, verbose=True)
    assert "test_tanh_walk:" in text and "test_exp_walk:" in text and "exp is wrong" in text
    assert "test_ok" not in text and "Exercise U2.1, Reverse topological order:\n  test_a:" in text


def test_a_diagnosis_keeps_its_own_line_breaks() -> None:
    r = results()[2]
    r.summary, r.details = "ex03.py:4: SyntaxError: expected ':'", "ex03.py:4: SyntaxError: expected ':'\n    if x"
    r.status, r.tests = "error", []
    text = reporting.diagnoses([r], width=100)
    assert text.splitlines()[1:] == ["    ex03.py:4: SyntaxError: expected ':'", "        if x"]


def test_the_json_report_lists_every_test(tmp_path: Path) -> None:
    path = tmp_path / "out" / "report.json"
    reporting.write_report(path, reporting.report(results(), tmp_path, 4))
    data = json.loads(path.read_text())
    assert data["passed"] == 1 and data["total"] == 3 and data["timeout_s"] == 4 and data["tests"] == "public"
    second = data["exercises"][1]
    assert second["id"] == "U1.2" and second["status"] == "failed" and second["tests_total"] == 3
    assert second["details"] == LONG and {"name", "outcome", "message", "details"} <= set(second["tests"][0])


def test_a_skip_is_shown_on_a_passed_row_and_a_not_graded_exercise_is_counted_apart() -> None:
    skipped = CaseResult("test_live", "skipped", "skipped: PyTorch not installed", "skipped: PyTorch not installed",
                         needs="PyTorch")
    passed = ExerciseResult("U4.1", "u4_double_backward", "Double backward", "passed",
                            "skipped: PyTorch not installed (test_live); 1 test passed", 1.0, 2,
                            [CaseResult("test_ok", "passed"), skipped])
    not_graded = ExerciseResult("U4.2", "u4_hooks", "Hooks", "not graded", "not graded: needs PyTorch", 1.0, 1,
                                [skipped], details="not graded: needs PyTorch")
    lines = reporting.table([passed, not_graded]).splitlines()
    assert lines[0].split()[-1] == "skipped"
    assert lines[2].endswith(" passed       1/2   skipped: PyTorch not installed (test_live); 1 test passed")
    assert lines[3].endswith(" not graded   0/1   not graded: needs PyTorch")
    text = reporting.render([passed, not_graded], verbose=True)
    assert "Exercise U4.1, Double backward: passed, with tests skipped:\n  test_live: skipped: PyTorch" in text
    assert text.splitlines()[-1] == "1/2 exercises passed; 1 not graded: needs PyTorch"
    assert "Exercise U4.2, Hooks: not graded, every test skipped:\n  test_live: skipped: PyTorch" in text
    assert "Exercise U4.2" not in reporting.render([passed, not_graded])  # its row said it all


def _stubs() -> list[ExerciseResult]:
    """A fresh workspace's rows: long titles, each a stub whose reason names a function, file and line."""
    rows = []
    for i, (title, what) in enumerate([
            ("Forward vs reverse mode, counted", "implement forward_mode_cost (u0_modes.py:33)"),
            ("Record: requires_grad spreading, on your engine", "implement Mul.forward (ex01_mul_sum.py:34)"),
            ("Reverse topological order, without recursion",
             "implement reverse_topological_order (ex03_topo_order.py:28)")]):
        reason = f"to do: {what}"
        rows.append(ExerciseResult(f"U{i}.1", f"m{i}", title, "failed", reason, 0.5, 4,
                                   [CaseResult("test_a", "failed", reason, reason)], details=reason))
    return rows


def test_every_reason_the_table_cuts_follows_it_in_full_to_do_rows_too() -> None:
    for width in (80, 100, 120):
        rows = [*_stubs(), results()[1]]
        text = reporting.render(rows, width=width)
        table, after = text.split("\n\n", 1)
        assert all(len(line) <= width for line in text.splitlines()), (width, text)
        flat = " ".join(after.split())
        for r in rows:
            cut = next(line for line in table.splitlines() if line.startswith(r.id)).endswith("…")
            whole = r.summary.removeprefix("to do: ") if r.summary.startswith("to do: ") else LONG
            assert not cut or " ".join(whole.split()) in flat, (width, r.id, text)
        if width == 80:  # the reason column keeps its room: the titles go, the ids name the rows
            assert "Forward vs reverse" not in table and "to do: implement forward_mode_cost" in table


def test_a_to_do_list_is_whole_once_any_stub_row_is_cut() -> None:
    text = reporting.render(_stubs(), width=80)
    listed = text.split("To do (where each exercise still runs its stub: the function, file and line):\n")[1]
    assert [line.split()[0] for line in listed.splitlines()[:3]] == ["U0.1", "U1.1", "U2.1"]
    assert "To do" not in reporting.render(_stubs()[:1], width=120)  # nothing cut, nothing repeated
