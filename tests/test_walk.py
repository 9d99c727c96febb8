"""``micrograd2.fast.walk``: the backward walk when nothing watches it.

It proves that its dependency counts are the edges leading into each node, that the roots' seeds are rounded
and added up per node with only the roots no edge reaches ready at first, that it finds a custom Function's node
while counting, so that only the graphs holding one go to the reference walk, and that its
pass gives the reference walk's gradients and frees what the nodes saved.  That the two walks agree on random
graphs is the hypothesis test in ``test_fast.py``.
"""
from __future__ import annotations

import gc

import pytest

import micrograd2 as mg
from micrograd2 import fast
from micrograd2.autograd.engine import reference_walk
from micrograd2.autograd.node import gradient_node
from micrograd2.fast import walk
from micrograd2.scalar import Value


def _diamond() -> tuple[Value, Value, Value]:
    """z = y + y with y = x·x: two edges into y's node, two into x's AccumulateGrad."""
    x = Value(2.0, requires_grad=True)
    y = x * x
    return x, y, y + y


def test_dependencies_count_the_edges_leading_into_each_node() -> None:
    x, y, z = _diamond()
    deps = walk.dependencies([z.grad_fn])
    assert deps == {z.grad_fn: 0, y.grad_fn: 2, gradient_node(x): 2}


def test_pending_adds_up_the_seeds_per_node_and_readies_only_roots_no_edge_reaches() -> None:
    x, y, z = _diamond()
    entries = walk.dependencies([z.grad_fn, y.grad_fn])
    ready = walk.pending(entries, [(z.grad_fn, 0, 1.0), (z.grad_fn, 0, 2.0), (y.grad_fn, 0, 5.0)],
                         Value._round_gradient)
    assert entries == {z.grad_fn: [0, 3.0], y.grad_fn: [2, 5.0], gradient_node(x): 2}
    assert [node for _, node in ready] == [z.grad_fn]
    assert walk.first_ready(entries, ready) == (z.grad_fn, 3.0) and walk.first_ready(entries, ready) == (None, None)


def test_pending_rounds_the_seeds_to_the_nodes_dtype() -> None:
    x = Value(1.0, requires_grad=True, dtype="float16")
    y = x * 3.0
    entries = walk.dependencies([y.grad_fn])
    walk.pending(entries, [(y.grad_fn, 0, 0.1), (y.grad_fn, 0, 0.1)], Value._round_gradient)
    seed = Value._round_gradient(0.1, "float16")
    assert entries[y.grad_fn] == [0, Value._round_gradient(seed + seed, "float16")]


def test_dependencies_find_a_custom_functions_node_whichever_output_leads_to_it() -> None:
    from conftest import SumAndProduct

    x, _, z = _diamond()
    assert walk.dependencies([z.grad_fn]) is not None
    a, b = Value(2.0, requires_grad=True), Value(3.0, requires_grad=True)
    total, product = SumAndProduct.apply(a, b)
    assert walk.dependencies([(total * 2).grad_fn]) is None
    assert walk.dependencies([(product * 2).grad_fn]) is None
    assert walk.dependencies([(a * b).grad_fn]) is not None


def test_run_gives_the_reference_walks_gradients_and_frees_what_was_saved() -> None:
    grads = []
    for pass_ in (lambda starts: walk.walk(Value, starts, False, None, 0),
                  lambda starts: reference_walk(Value, starts, False, None, 0)):
        x, y, z = _diamond()
        w = (z * x).tanh() + x.exp()
        with mg.no_grad():
            assert pass_([(w.grad_fn, 0, 1.0)]) == {}
        assert y.grad_fn._saved.freed
        grads.append(x.grad)
    assert grads[0] == pytest.approx(grads[1], rel=1e-15) and grads[0] != 0.0


def test_run_walks_a_long_chain_without_recursion() -> None:
    x = Value(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    with mg.no_grad():
        walk.walk(Value, [(y.grad_fn, 0, 1.0)], False, None, 0)
    assert x.grad == 1.0


@pytest.mark.skipif(not fast.ENABLED, reason="the speed layer is off (MICROGRAD2_REFERENCE=1)")
def test_a_live_custom_function_sends_only_the_graphs_holding_it_to_the_reference_walk(monkeypatch) -> None:
    from conftest import SumAndProduct

    from micrograd2.autograd import engine
    from micrograd2.fast import walk as fast_walk

    gc.collect()  # a hook on a node of some earlier test, garbage not yet collected, makes every pass watched:
    monkeypatch.setattr(engine, "REGISTERED", {})  # (none is on this test's nodes)
    assert engine._walk_for(mg.Value, None) is mg.Value.pieces.unwatched_walk, "a tracer or anomaly mode is on"
    taken: list[str] = []
    run, reference = fast_walk.run, engine.reference_walk
    monkeypatch.setattr(fast_walk, "run", lambda *a: taken.append("fast") or run(*a))
    monkeypatch.setattr(fast_walk, "reference_walk", lambda *a: taken.append("reference") or reference(*a))
    a, b = mg.Value(2.0, requires_grad=True), mg.Value(3.0, requires_grad=True)
    total, product = SumAndProduct.apply(a, b)
    (a * a).backward()  # a graph without it
    total.backward(retain_graph=True)  # through it, output 0
    product.backward()  # output 1: the root's edge is (node, 1)
    assert taken == ["fast", "reference", "reference"]
    assert a.grad == 4.0 + 1.0 + 3.0 and b.grad == 1.0 + 2.0
