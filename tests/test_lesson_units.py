"""Lessons 9 and 10 on a student's engine (``--engine DIR``): every U3 hole is exercised by a check
of lesson 9 that fails (✗, and the lesson's summary a failure) when the hole is wrong.

The engines are the reference solution of the holes (``teacher/solution_engine``) and copies of
it with one hole made wrong, the way a student gets it wrong. Each run is a new process
(``--engine`` restarts the command): the tests are marked slow.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_course_engine import SOLUTION, micrograd2  # the engine tests' runner and engine

pytestmark = pytest.mark.slow

# what is wrong -> (the edits to u3_tensors.py, right text -> wrong text; a check of lesson 9 that
# must fail)
WRONG_U3 = {
    "sum_to takes the mean instead of the sum": (
        [("grad = grad.sum(tuple(range(lead)))", "grad = grad.mean(tuple(range(lead)))"),
         ("return grad.sum(axes, keepdim=True) if axes", "return grad.mean(axes, keepdim=True) if axes")],
        "b.grad for y = a + b, upstream ones"),
    "sum_to ignores the size-1 axes": (
        [("return grad.sum(axes, keepdim=True) if axes else grad", "return grad")],
        "each gradient has its input's shape"),
    "sum_backward forgets the summed axes": (
        [("return grad.reshape(kept).expand(shape)", "return grad.expand(shape)")],
        "x.grad for x.sum(1), upstream"),
    "mean_backward divides by every element": (
        [("n = math.prod(shape) // max(math.prod(kept), 1)", "n = math.prod(shape)")],
        "x.grad for x.mean(0), upstream"),
    "matmul's grad_a misses a transpose": (
        [("grad @ b.t()", "grad @ b")], "[A.grad, B.grad] for C = A @ B"),
    "matmul's grad_b misses a transpose": (
        [("a.t() @ grad", "a @ grad")], "[A.grad, B.grad] for C = A @ B"),
    "matmul's operands swapped": (
        [("grad @ b.t()", "b.t() @ grad")], "[A.grad, B.grad] for C = A @ B"),
}


def engine_with(tmp_path: Path, edits: list[tuple[str, str]]) -> Path:
    """A copy of the solution engine with ``edits`` made in u3_tensors.py."""
    folder = tmp_path / "engine"
    shutil.copytree(SOLUTION, folder, ignore=shutil.ignore_patterns("__pycache__"))
    module = folder / "u3_tensors.py"
    text = module.read_text(encoding="utf-8")
    for right, wrong in edits:
        assert text.count(right) == 1, f"{right!r} should occur once in u3_tensors.py"
        text = text.replace(right, wrong)
    module.write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("number", ["9", "10"])
def test_lessons_9_and_10_pass_on_the_solution_engine(number: str) -> None:
    done = micrograd2("lesson", "run", number, "--no-trace", "--no-color", "--engine", str(SOLUTION))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(rf"^✓ Lesson {number}: \d+ checks: .*; all pass\.$", done.stdout, re.M)
    assert "✗" not in done.stdout


@pytest.mark.parametrize("mistake", sorted(WRONG_U3))
def test_a_wrong_u3_hole_fails_a_check_of_lesson_9(mistake: str, tmp_path: Path) -> None:
    edits, failing = WRONG_U3[mistake]
    done = micrograd2("lesson", "run", "9", "--no-trace", "--no-color",
                      "--engine", str(engine_with(tmp_path, edits)))
    assert done.returncode == 1, done.stdout[-3000:]
    assert f"  ✗ {failing}" in done.stdout, f"{mistake}: {done.stdout[-3000:]}"
    assert re.search(r"^✗ Lesson 9: \d+ checks: .*; \d+ fail\.$", done.stdout, re.M), mistake
    assert "lesson 9 stopped" not in done.stderr  # an error in a hole is a failed check, not a crash
    assert "all pass" not in done.stdout


def test_every_u3_hole_has_a_wrong_version_that_lesson_9_catches() -> None:
    edited = {right for edits, _ in WRONG_U3.values() for right, _ in edits}
    text = (SOLUTION / "u3_tensors.py").read_text(encoding="utf-8")
    holes = re.findall(r"^def (\w+)\(", text, re.M)
    assert holes == ["sum_to", "sum_backward", "mean_backward", "matmul_backward"]
    for hole in holes:  # each hole's body holds at least one of the edited lines
        body = text.split(f"def {hole}(", 1)[1].split("\ndef ", 1)[0]
        assert any(right in body for right in edited), hole
