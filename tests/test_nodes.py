"""micrograd2/tracing/nodes.py: the one graph walker the tracer, diagrams and lessons share."""
from __future__ import annotations

import micrograd2 as mg
from micrograd2.tracing import nodes


def test_walk_visits_every_edge_once_and_reachable_each_node_once() -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x * x
    z = y + y
    visits = list(nodes.walk([z.grad_fn]))
    assert [v.first for v in visits].count(True) == len(set(nodes.reachable([z.grad_fn]))) == 3
    assert {v.node.name() for v in visits} == {"AddBackward0", "MulBackward0", "AccumulateGrad"}


def test_walk_follows_a_long_chain_without_recursion() -> None:
    x = mg.Value(1.0, requires_grad=True)
    h = x
    for _ in range(20_000):
        h = h * 1.0
    assert sum(1 for _ in nodes.reachable([h.grad_fn])) == 20_001


def test_node_of_and_grad_of_read_a_variable_without_warnings(recwarn) -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x * 3.0
    assert nodes.node_of(y) is y.grad_fn and nodes.node_of(x).name() == "AccumulateGrad"
    assert nodes.node_of(mg.Value(1.0)) is None
    assert nodes.grad_of(y) is None and not recwarn.list


def test_creation_order_sorts_by_sequence_nr_and_saved_items_are_named() -> None:
    x = mg.Value(2.0, requires_grad=True)
    a = x * x
    b = a.exp()
    assert nodes.creation_order([b.grad_fn, a.grad_fn]) == [a.grad_fn, b.grad_fn]
    assert [e.name for e in nodes.saved_items(a.grad_fn)][:2] == ["self", "other"]
    assert nodes.outputs_of(b.grad_fn) == (b.data,)
