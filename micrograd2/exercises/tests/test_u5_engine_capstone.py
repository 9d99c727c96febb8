"""Exercise U5.6 — Capstone on your engine: the public tests (the grader runs these, not your copy).

They run your training loop (u5_engine_capstone.py) in a new process on your engine (engine/,
the speed layer off, as ``--engine`` does) and compare it with the same loop on micrograd2's own
engine. Where the engine is: micrograd2/exercises/course_units.py, NOTE [Where the tests find
the engine].
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from micrograd2.exercises.course_units import capstone, one_step, unfilled
from micrograd2.exercises.harness import close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_6]

HOLES = ("record", "count_dependencies", "walk", "accumulate")  # U1's and U2's


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u5_engine_capstone", __file__)


def stopped(report: dict[str, Any]) -> str:
    """Why the capstone stopped on the student's engine, and which hole differs, if one does."""
    engine = f" ({report['engine']})" if report["engine"] else ""
    return f"the capstone on your engine stopped{engine}: {report['error']}"


def test_every_hole_of_u1_and_u2_is_filled(student: ModuleType) -> None:
    missing = unfilled(student, HOLES)
    expect(not missing, f"not implemented yet: {', '.join(missing)}: the capstone trains on YOUR engine, so "
                        "fill the holes of engine/u1_record.py (U1.3) and engine/u2_walk.py (U2.3) first")


def test_training_ran_on_your_engine(student: ModuleType) -> None:
    report = capstone(student)
    expect(report["error"] is None, stopped(report))
    filled = set(report["filled"])
    expect(set(HOLES) <= filled, f"the run used your {sorted(filled)} only; not implemented yet: "
                                 f"{', '.join(h for h in HOLES if h not in filled)}")


def test_one_train_step_matches_micrograd2s_own_engine(student: ModuleType) -> None:
    report = capstone(student)
    expect(report["error"] is None, stopped(report))
    want, got = one_step(student), report["step"]
    engine = f" ({report['engine']})" if report["engine"] else ""
    expect(close(got["loss"], want["loss"]), f"train_step's loss on your engine is {show(got['loss'])}, "
           f"on micrograd2's own {show(want['loss'])}{engine}")
    for i, (g, w) in enumerate(zip(got["parameters"], want["parameters"])):
        expect(close(g, w, rel=1e-9), f"after one train_step on your engine parameter {i} is {show(g)}, "
               f"on micrograd2's own {show(w)}: the gradients differ{engine}")
    expect(report["engine"] is None, f"one train step agrees, but {report['engine']}")


def test_fit_separates_the_moons_on_your_engine(student: ModuleType) -> None:
    report = capstone(student)
    expect(report["error"] is None, stopped(report))
    losses, acc = report["losses"], report["accuracy"]
    expect(len(losses) == 30, f"fit should return the 30 losses, got {len(losses)}")
    expect(losses[-1] < losses[0], f"on your engine the loss went from {show(losses[0])} to "
                                   f"{show(losses[-1])}: it should go down")
    expect(acc >= 0.95, f"after 30 steps on your engine the training accuracy is {acc:.0%}, expected at "
                        "least 95%")
