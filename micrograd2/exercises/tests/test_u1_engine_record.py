"""Exercise U1.3 — Record: the public tests (the grader runs these, not your copy).

They call your ``record`` (engine/u1_record.py) directly, then run lesson 1 on your engine in a
new process. Where the engine is: micrograd2/exercises/course_units.py, NOTE [Where the tests
find the engine].
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.autograd import gradient_edge
from micrograd2.exercises.course_units import check_lesson, edge_name, edge_pair, hole
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u1, pytest.mark.u1_3]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u1_engine_record", __file__)


def recorded(student: ModuleType, *inputs: Any) -> Any:
    """What the student's ``record`` answers for a product of ``inputs`` just run by forward."""
    record = hole(student, "record")
    output = mg.Value(1.0)  # the op's result: no history yet
    return record(mg.autograd.Function, tuple(inputs), output, None)


def shown(edges: Any) -> str:
    """What ``record`` returned, its edges by name: ``((AccumulateGrad, 0), (None, 0))``."""
    if isinstance(edges, (tuple, list)):
        return f"({', '.join(edge_name(e) for e in edges)})"
    return repr(edges)[:80]


def test_an_input_that_requires_grad_gets_its_gradient_edge(student: ModuleType) -> None:
    x, c = mg.Value(2.0, requires_grad=True), mg.Value(5.0)
    edges = recorded(student, x, c, 3.0)
    expect(edges is not None, "record(x * c * 3.0) returned None, but x requires grad: the op must be "
                              "recorded (an output requires grad as soon as ONE input does)")
    expect(isinstance(edges, (tuple, list)) and len(edges) == 3,
           f"record should return one edge per input (3 here: x, c, 3.0), got {shown(edges)}")
    got = [edge_name(e) for e in edges]
    expect(edge_pair(edges[0]) == gradient_edge(x), f"the edge of x (a leaf that requires grad) should be "
           f"gradient_edge(x) = (AccumulateGrad, 0), got {got[0]}")
    expect(edge_pair(edges[1]) == (None, 0) and edge_pair(edges[2]) == (None, 0),
           f"the edges of c (requires no grad) and of 3.0 (a plain number) should be (None, 0), got "
           f"{got[1]} and {got[2]}: no gradient goes to an input that requires none")


def test_a_non_leaf_input_gets_the_edge_to_its_grad_fn(student: ModuleType) -> None:
    x, w = mg.Value(2.0, requires_grad=True), mg.Value(-3.0, requires_grad=True)
    h = x * w  # made by micrograd2's own record: h.grad_fn is a MulBackward0
    edges = recorded(student, h, x)
    expect(edges is not None and len(edges) == 2, f"record(h * x) should return 2 edges, got {shown(edges)}")
    expect(edge_pair(edges[0]) == gradient_edge(h), f"the edge of h = x * w should be gradient_edge(h) = "
           f"(MulBackward0, 0), got {edge_name(edges[0])}: the gradient of a non-leaf goes to its grad_fn")
    expect(edge_pair(edges[1]) == gradient_edge(x), f"the edge of x should be (AccumulateGrad, 0), got "
           f"{edge_name(edges[1])}")


def test_no_input_that_requires_grad_records_nothing(student: ModuleType) -> None:
    c, d = mg.Value(5.0), mg.Value(7.0)
    for inputs, what in (((c, d), "c * d"), ((c, 3.0), "c * 3.0"), ((2.0, 3.0), "2.0 * 3.0")):
        edges = recorded(student, *inputs)
        expect(edges is None, f"record({what}) returned {shown(edges)}, but no input requires grad: return "
                              "None (the output requires grad if and only if an input does)")


def test_nothing_is_recorded_under_no_grad(student: ModuleType) -> None:
    x, w = mg.Value(2.0, requires_grad=True), mg.Value(-3.0, requires_grad=True)
    with mg.no_grad():
        edges = recorded(student, x, w)
    expect(edges is None, f"under `with mg.no_grad():` record(x * w) returned {shown(edges)}: return None "
                          "while grad mode is off (mg.is_grad_enabled() is False), even when inputs "
                          "require grad")
    expect(recorded(student, x, w) is not None, "after the no_grad block, record(x * w) returned None: "
                                                "read mg.is_grad_enabled() at each call")


def test_lesson_1_passes_on_your_engine(student: ModuleType) -> None:
    check_lesson(student, 1)
