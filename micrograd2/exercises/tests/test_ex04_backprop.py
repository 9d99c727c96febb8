"""Exercise U2.2 — Backpropagation by hand: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import (
    Mistake,
    close,
    consumers,
    engine_order,
    expect,
    load_student,
    node_names,
    show,
)

pytestmark = [pytest.mark.u2, pytest.mark.u2_2]

Build = Callable[[list[Any]], Any]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex04_backprop", __file__)


def leaves(*xs: float) -> list[Any]:
    return [mg.Value(x, requires_grad=True, label=f"x{i}") for i, x in enumerate(xs)]


def check_backprop(student: ModuleType, build: Build, xs: list[float], what: str) -> None:
    """Run the student's backprop (recording each call of local_backward), then the engine under the tracer on
    the same graph; step k of the trace is the k-th node the engine visits (``engine_order``), which gives each
    node its right upstream gradient; report the first call of the student's walk that got it wrong."""
    mine = leaves(*xs)
    root = build(mine)
    order = engine_order(root)
    calls: list[tuple[Any, Any]] = []
    given = student.local_backward

    def recording(node: Any, grad_output: Any) -> Any:
        calls.append((node, grad_output))
        return given(node, grad_output)

    vars(student)["local_backward"] = recording  # backprop looks local_backward up in its module
    try:
        student.backprop(root, order)
    finally:
        vars(student)["local_backward"] = given
    got = [leaf.grad for leaf in mine]
    for leaf in mine:
        leaf.grad = None
    with mg.trace() as t:
        root.backward()
    visits = [e for e in t.events if e.kind == "backward"]
    want = [leaf.grad for leaf in mine]
    names = node_names(root.grad_fn)
    uses = consumers(root.grad_fn)
    visited = [n for n in order if n.name() != "AccumulateGrad"]  # step k of the trace is visited[k - 1]
    assert [n.name() for n in visited] == [e.node for e in visits], "engine_order differs from the engine"
    upstream = {n: e.grad_output for n, e in zip(visited, visits)}
    seen: set[Any] = set()
    for k, (node, grad) in enumerate(calls, start=1):
        expect(node.name() != "AccumulateGrad", f"{what}: at step {k} of your walk you called local_backward on "
                                                "an AccumulateGrad node: it has no backward formula — add its "
                                                "gradient into node.variable.grad instead")
        expect(node not in seen, f"{what}: at step {k} of your walk you called local_backward on {names[node]} a "
                                 "second time: visit each node once, when all its gradients have arrived")
        seen.add(node)
        if not close(grad, upstream[node]):
            extra = ""
            if uses[node] > 1:
                extra = (f" — {names[node]} is used {uses[node]} times, so its upstream gradient is the SUM of "
                         "what each use sends back: add (+=) into your dictionary, don't assign (=)")
            raise Mistake(f"{what}: at step {k} of your walk you called local_backward({names[node]}, "
                          f"{show(grad)}), but the engine's upstream gradient there is "
                          f"{show(upstream[node])}{extra}")
    expect(len(calls) == len(visits),
           f"{what}: you ran local_backward {len(calls)} times, the engine visited {len(visits)} nodes — call it "
           "once for every node of `order` that received a gradient (not for AccumulateGrad nodes)")
    for i, (g, w) in enumerate(zip(got, want)):
        expect(close(g, w), f"{what}: x{i}.grad is {show(g)}, expected {show(w)} — an AccumulateGrad node may "
                            "receive several gradients too (x0*x0): add them all up (+=), then add the total "
                            "into node.variable.grad")


def test_block1_by_hand(student: ModuleType) -> None:
    check_backprop(student, lambda v: mg.sum([v[0] * v[2], v[1] * v[3]]), [2.0, 3.0, 4.0, 5.0],
                   "z = x0*x2 + x1*x3")


def test_a_leaf_used_twice_gets_the_sum_of_both_gradients(student: ModuleType) -> None:
    check_backprop(student, lambda v: v[0] * v[0], [3.0], "z = x0*x0")
    check_backprop(student, lambda v: (v[0] * v[1] + v[0]).tanh(), [0.5, -2.0], "z = tanh(x0*x1 + x0)")


def test_a_reused_non_leaf_gets_the_sum_of_all_its_gradients(student: ModuleType) -> None:
    def build(v: list[Any]) -> Any:
        h = v[0] * v[1]
        return h * h + h * 3.0

    check_backprop(student, build, [2.0, -1.0], "z = h*h + 3h with h = x0*x1")

    def diamond(v: list[Any]) -> Any:
        a = v[0] + 1.0
        b = a.exp()
        return mg.sum([a * b, b, a.tanh()])

    check_backprop(student, diamond, [0.25], "z = a*e^a + e^a + tanh(a) with a = x0 + 1")


def test_constants_and_unused_inputs_get_no_gradient(student: ModuleType) -> None:
    c = mg.Value(5.0)  # needs no grad: its next_functions entry is None
    check_backprop(student, lambda v: (v[0] * c + c) * v[0] * 2.0, [1.5], "z = 2(x0*c + c)*x0 with c constant")


def test_leaf_gradients_accumulate_across_calls_as_in_pytorch(student: ModuleType) -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    w = mg.Value(3.0, requires_grad=True, label="w")
    for _ in range(3):
        z = x * w
        student.backprop(z, engine_order(z))
    expect(x.grad == 9.0 and w.grad == 6.0,
           f"after three backprop calls x.grad = {show(x.grad)} and w.grad = {show(w.grad)}; the article's block 3 "
           "gives 9 and 6: add into leaf.grad (it starts as None), don't overwrite it")
