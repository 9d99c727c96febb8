"""Hidden tests of exercise U4.2, hooks: the log under create_graph=True, a clip that leaves a
small gradient alone, hooks on a leaf used twice, never shown.  ``micrograd2 exercise check
WORKSPACE --tests teacher/hidden U4.2`` grades with them (no PyTorch needed).
"""
from __future__ import annotations

from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import expect, load_student, show

pytestmark = [pytest.mark.u4, pytest.mark.u4_2]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u4_hooks", __file__)


def test_the_log_holds_numbers_under_create_graph(student: ModuleType) -> None:
    x = mg.Value(0.5, requires_grad=True)
    h = x * x
    log = student.record_norms({"h": h, "x": x})
    (h.tanh() * 4.0).backward(create_graph=True)  # the gradients are Values now, with a history
    expect(isinstance(log, list) and len(log) == 2
           and all(type(entry[1]) is float for entry in log),
           f"under backward(create_graph=True) the log is {log!r:.120}: a hook then receives a "
           "Value with a graph; log the NUMBER, abs(float(grad)), not a Value that keeps the "
           "graph alive")
    want = [("h", 4.0 * (1 - mg.Value(0.25).tanh().data ** 2))]
    expect(log[0][0] == "h" and abs(log[0][1] - want[0][1]) < 1e-12,
           f"the first entry is {log[0]!r}, expected ('h', {show(want[0][1])})")


def test_a_leaf_used_twice_fires_once_with_the_sum(student: ModuleType) -> None:
    x = mg.Value(2.0, requires_grad=True)
    log = student.record_norms({"x": x})
    student.clip_gradients([x], 100.0)
    (x * 3.0 + x * -5.0).backward()
    expect(log == [("x", 2.0)] and x.grad == -2.0,
           f"x used twice (3x − 5x): its hook fires once, with the sum -2; got log {log} and "
           f"x.grad = {show(x.grad)}")
