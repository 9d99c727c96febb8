"""micrograd2/exercises/value_checks.py: how U1.0 compares a student's Value with micrograd2.

It proves that a backward order is read in the right direction (the root first, each Value before
its inputs: a topological order, inputs first, is named as such, and a consumer placed after its
input is named "before its consumer"), that micrograd2's run gives each use's gradient, that a
program leaving a value unnamed is refused, that the closures' calls are logged with what each
sent, and that each misconception gets its own sentence.  The exercise's stub, model solution and
mutants are graded in test_exercises.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from micrograd2.exercises.value_checks import (
    Leaf,
    Use,
    misconception,
    order_problem,
    record_calls,
    reference,
)


class Node:
    """The least a student's Value needs for the order checks: data and ``_prev``."""

    def __init__(self, data: float, *prev: Node) -> None:
        self.data, self._prev, self.grad = data, prev, 0.0
        self._backward = lambda: None


def diamond() -> tuple[Node, dict[int, str], dict[str, Node]]:
    x = Node(1.0)
    a = Node(2.0, x)
    b, c = Node(3.0, a), Node(4.0, a)
    z = Node(5.0, b, c)
    nodes = {"x": x, "a": a, "b": b, "c": c, "z": z}
    return z, {id(v): n for n, v in nodes.items()}, nodes


def test_the_root_first_and_each_value_before_its_inputs_is_a_backward_order() -> None:
    z, names, n = diamond()
    assert order_problem([z, n["b"], n["c"], n["a"], n["x"]], z, names) is None
    assert order_problem((z, n["c"], n["b"], n["a"], n["x"]), z, names) is None


def test_each_wrong_order_is_named_in_its_direction() -> None:
    z, names, n = diamond()
    topological = [n["x"], n["a"], n["b"], n["c"], z]
    assert "it ends with the root: that is a topological order, inputs first; reverse it" in str(
        order_problem(topological, z, names)
    )
    problem = order_problem([z, n["b"], n["a"], n["c"], n["x"]], z, names)
    assert problem is not None and problem.startswith(
        "a comes at position 2, before c at position 3, which was computed from it: the order visits a "
        "node before its consumer"
    )
    assert "appears twice" in str(
        order_problem([z, n["b"], n["b"], n["c"], n["a"], n["x"]], z, names)
    )
    assert "1 of the 5 Values are missing, e.g. x" in str(
        order_problem([z, n["b"], n["c"], n["a"]], z, names)
    )
    assert "expected a list of Values, got set" in str(order_problem({z}, z, names))
    assert "which z was not computed from" in str(order_problem([z, Node(9.0)], z, names))


def twice(leaf: Leaf) -> dict[str, Any]:
    x = leaf(3.0, "x")
    h = x * x
    return {"x": x, "h": h, "z": h + x}


def test_micrograd2s_run_gives_each_use_and_its_gradient() -> None:
    want = reference(twice)
    assert want.data == {"x": 3.0, "h": 9.0, "z": 12.0}
    assert want.grad == {"x": 7.0, "h": 1.0, "z": 1.0}
    assert sorted(want.uses["x"], key=lambda u: (u.consumer, u.sends)) == [
        Use("h", 3.0),
        Use("h", 3.0),
        Use("z", 1.0),
    ]


def test_a_program_must_name_every_value() -> None:
    with pytest.raises(ValueError, match="leaves 1 value"):
        reference(lambda leaf: {"x": (x := leaf(1.0, "x")), "z": x * 2.0 + 1.0})


def test_the_closures_calls_are_logged_with_what_each_sent() -> None:
    z, _, n = diamond()

    def send() -> None:
        n["b"].grad += 2.0
        n["c"].grad += 0.5

    z._backward = send
    calls = record_calls(z)
    z._backward()
    n["b"]._backward()
    assert [c.value for c in calls] == [z, n["b"]]
    assert calls[0].sent == {id(n["b"]): 2.0, id(n["c"]): 0.5} and calls[1].sent == {
        id(n["a"]): 0.0
    }


def test_each_misconception_has_its_sentence() -> None:
    uses = [Use("h", 3.0), Use("h", 3.0), Use("z", 1.0)]
    assert "assigns instead of adding: a value used twice gets one gradient" in misconception(
        "x", 1.0, 7.0, uses, {"h": 6.0, "z": 1.0}
    )
    assert "(in h 2 times, z)" in misconception("x", 3.0, 7.0, uses, {"h": 3.0, "z": 1.0})
    assert "the _backward of h sends 5.0 back to x, expected 6.0" in misconception(
        "x", 6.0, 7.0, uses, {"h": 5.0, "z": 1.0}
    )
    assert "the _backward of z never ran, or never reached x" in misconception(
        "x", 6.5, 7.0, uses, {"h": 6.0}
    )
    assert "yet its .grad is not their sum" in misconception(
        "x", 8.0, 7.0, uses, {"h": 6.0, "z": 1.0}
    )
