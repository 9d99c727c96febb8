"""U0.2 — Forward vs reverse mode, counted: the public tests (the grader runs these, not your copy).

Each test RUNS both modes on random functions (``micrograd2.exercises.paper``: forward mode on
dual numbers, one pass per input; reverse mode with micrograd2's backward, its node calls
counted from a trace) and compares what they measure with the student's predictions.
"""
from __future__ import annotations

from types import ModuleType

import pytest

from micrograd2.exercises import paper
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u0, pytest.mark.u0_2]

SIZES = [(1, 3), (2, 5), (4, 5), (6, 9), (10, 12), (3, 20)]  # (n inputs, N ops) of f: R^n -> R
SHAPES = [(1, 4), (2, 6), (5, 1), (8, 3), (1, 2), (3, 1)]  # (n inputs, m outputs) of f: R^n -> R^m


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u0_modes", __file__)


def measured(n_inputs: int, n_ops: int) -> tuple[paper.Cost, paper.Cost]:
    """Forward and reverse mode, run on a random f: R^n -> R of ``n_ops`` ops."""
    graph = paper.random_function(100 * n_inputs + n_ops, n_inputs, n_ops)
    return paper.forward_mode(graph), paper.reverse_mode(graph)


def pair(value: object, what: str) -> tuple[int, int]:
    expect(isinstance(value, tuple) and len(value) == 2
           and all(isinstance(v, int) and not isinstance(v, bool) for v in value),
           f"{what} should return a pair of ints (passes, ops), got {value!r}")
    assert isinstance(value, tuple)
    return value[0], value[1]


def test_forward_mode_needs_one_pass_per_input(student: ModuleType) -> None:
    for n, size in SIZES:
        passes, _ = pair(student.forward_mode_cost(n, size), f"forward_mode_cost({n}, {size})")
        cost, _ = measured(n, size)
        expect(passes == cost.passes,
               f"forward_mode_cost({n}, {size}) predicts {passes} passes; forward mode on a random "
               f"{n}-input function of {size} ops ran {cost.passes}: a dual number carries the "
               "derivative along ONE input's direction, so each input needs its own pass")


def test_forward_mode_evaluates_every_op_in_every_pass(student: ModuleType) -> None:
    for n, size in SIZES:
        _, ops = pair(student.forward_mode_cost(n, size), f"forward_mode_cost({n}, {size})")
        cost, _ = measured(n, size)
        expect(ops == cost.ops,
               f"forward_mode_cost({n}, {size}) predicts {ops} dual-number ops; forward mode "
               f"evaluated {cost.ops} ({cost.passes} passes × {size} ops: every pass runs the "
               "whole function again)")


def test_reverse_mode_needs_one_backward_pass(student: ModuleType) -> None:
    for n, size in SIZES:
        passes, _ = pair(student.reverse_mode_cost(n, size), f"reverse_mode_cost({n}, {size})")
        _, cost = measured(n, size)
        expect(passes == cost.passes,
               f"reverse_mode_cost({n}, {size}) predicts {passes} backward passes; reverse mode on "
               f"a random {n}-input function ran {cost.passes}: one walk back from the single "
               "output reaches every input, whatever n is")


def test_reverse_mode_calls_each_node_once(student: ModuleType) -> None:
    for n, size in SIZES:
        _, calls = pair(student.reverse_mode_cost(n, size), f"reverse_mode_cost({n}, {size})")
        _, cost = measured(n, size)
        expect(calls == cost.ops,
               f"reverse_mode_cost({n}, {size}) predicts {calls} backward calls; one backward pass "
               f"over {size} ops called {cost.ops} nodes (one per op, not one per input)")


def test_the_cheaper_mode_for_a_jacobian(student: ModuleType) -> None:
    for n, m in SHAPES:
        graph = paper.random_function(10 * n + m, n, max(n, m) + 3, m)
        forward, reverse = paper.forward_mode(graph), paper.reverse_mode(graph)
        fewer = "forward" if forward.passes < reverse.passes else "reverse"
        said = student.cheaper_mode(n, m)
        expect(said == fewer,
               f"cheaper_mode({n}, {m}) says {said!r}; for f: R^{n} -> R^{m} forward mode ran "
               f"{forward.passes} passes (one per input) and reverse mode {reverse.passes} "
               f"(one per output): {fewer!r} needs fewer")
