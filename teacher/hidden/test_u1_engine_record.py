"""Hidden tests of exercise U1.3, the piece ``record`` (engine/u1_record.py): an input that is
the second output of a two-output Function, grad mode switched back on, a detached input and a
Tensor, an input at the end of a long chain, never shown.  ``micrograd2 exercise check WORKSPACE
--tests teacher/hidden U1.3`` grades with them; they call the piece directly
(course_units.hole), as the public tests do.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.autograd import gradient_edge
from micrograd2.exercises.course_units import edge_name, edge_pair, hole
from micrograd2.exercises.harness import Mistake, expect, load_student

pytestmark = [pytest.mark.u1, pytest.mark.u1_3]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u1_engine_record", __file__)


class Split(mg.Function):
    """(x, 2x): one node, two outputs."""

    @staticmethod
    def forward(ctx: Any, x: float) -> tuple[float, float]:
        return x, 2 * x

    @staticmethod
    def backward(ctx: Any, first: float, second: float) -> float:
        return first + 2 * second


def recorded(student: ModuleType, *inputs: Any) -> Any:
    return hole(student, "record")(mg.autograd.Function, tuple(inputs), mg.Value(1.0), None)


def test_the_second_output_of_a_node_gets_its_own_edge(student: ModuleType) -> None:
    x = mg.Value(1.5, requires_grad=True)
    first, second = Split.apply(x)
    edges = recorded(student, second, first)
    expect(edges is not None and len(edges) == 2, f"record(second * first) should return 2 edges, "
                                                  f"got {edges!r:.80}")
    expect(edge_pair(edges[0]) == gradient_edge(second) and edge_pair(edges[1]) == gradient_edge(first),
           f"second and first are outputs 1 and 0 of one SplitBackward node: their edges are "
           f"(SplitBackward, 1) and (SplitBackward, 0), got {edge_name(edges[0])} and "
           f"{edge_name(edges[1])}: an edge's number says which OUTPUT of its node the input is "
           "(gradient_edge reads x.output_nr)")


def test_grad_mode_switched_back_on_inside_no_grad(student: ModuleType) -> None:
    x, w = mg.Value(2.0, requires_grad=True), mg.Value(-1.0, requires_grad=True)
    with mg.no_grad():
        with mg.enable_grad():
            edges = recorded(student, x, w)
    expect(edges is not None, "inside `with mg.enable_grad():` (itself inside no_grad) grad mode "
                              "is on again: record(x * w) must record it")


def test_a_detached_input_and_a_tensor(student: ModuleType) -> None:
    x = mg.Value(2.0, requires_grad=True)
    h = x * 3.0
    edges = recorded(student, h.detach(), x)
    expect(edges is not None and edge_pair(edges[0]) == (None, 0)
           and edge_pair(edges[1]) == gradient_edge(x),
           f"h.detach() requires no grad: its edge is (None, 0), and x's (AccumulateGrad, 0); got "
           f"{edges!r:.120}")
    t = mg.tensor([1.0, 2.0], requires_grad=True)
    edges = recorded(student, t, mg.tensor([3.0, 4.0]))
    expect(edges is not None and edge_pair(edges[0]) == gradient_edge(t)
           and edge_pair(edges[1]) == (None, 0),
           f"a Tensor that requires grad gets its gradient edge, one that does not (None, 0); got "
           f"{edges!r:.120}")


def test_an_input_at_the_end_of_a_long_chain(student: ModuleType) -> None:
    x = mg.Value(0.5, requires_grad=True)
    h = x
    for _ in range(5000):
        h = h * 1.0
    try:
        edges = recorded(student, h, x)
    except RecursionError:
        raise Mistake("record(h * x) for h at the end of a 5000-op chain raised RecursionError: "
                      "h.requires_grad already says whether h requires grad; read it, never walk "
                      "the input's history (record runs at every op)") from None
    expect(edges is not None and edge_pair(edges[0]) == gradient_edge(h),
           f"record(h * x) for h at the end of a chain should give h the edge "
           f"(MulBackward0, 0), got {edges!r:.80}")
