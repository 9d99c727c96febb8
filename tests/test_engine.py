"""The backward walk: order, accumulation, buffers, freeing, deep graphs, errors."""
from __future__ import annotations

import math
import sys

import pytest

import micrograd2 as mg
from micrograd2.autograd import events


def visits(fn) -> list[str]:
    """The names of the nodes the walk visits, in order, while ``fn()`` runs."""
    seen: list[str] = []

    def listen(kind, fields):
        if kind == "visit":
            seen.append(fields["node"].name())

    events.subscribe(listen)
    try:
        fn()
    finally:
        events.unsubscribe(listen)
    return seen


def test_article_block_2_gradients(block1) -> None:
    block1["z"].backward()
    assert [v.grad for v in block1["x"]] == [4.0, 5.0]
    assert [v.grad for v in block1["w"]] == [2.0, 3.0]
    assert block1["z"].item() == 23.0


def test_article_block_3_gradients_accumulate_over_three_backward_calls() -> None:
    x, w = mg.Value(2.0, requires_grad=True), mg.Value(3.0, requires_grad=True)
    for _ in range(3):
        (x * w).backward()
    assert x.grad == 9.0 and w.grad == 6.0


def test_second_backward_fails_after_saved_values_are_freed_but_nodes_stay(block1) -> None:
    z = block1["z"]
    z.backward()
    mul = z.grad_fn.next_functions[0][0]
    assert mul.name() == "MulBackward0"  # the node survives (D9)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        mul.saved_tensors


def test_retain_graph_allows_a_second_backward_that_accumulates() -> None:
    x = mg.Value(2.0, requires_grad=True)
    z = x * x
    z.backward(retain_graph=True)
    assert x.grad == 4.0
    z.backward()
    assert x.grad == 8.0
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()


def test_a_graph_that_saved_nothing_can_be_walked_twice() -> None:
    a = mg.Value(1.0, requires_grad=True)
    z = mg.sum([a + 1])
    z.backward()
    z.backward()
    assert a.grad == 2.0


def test_backward_from_a_value_without_grad_names_the_problem() -> None:
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        (mg.Value(1.0) * 2).backward()


def test_article_block_4_case_b_raises_and_leaves_grad_none() -> None:
    x = mg.Value(2.0, requires_grad=True)
    (x * 3).backward()
    assert x.grad == 3.0  # case A
    x.grad = None
    y = x.detach()
    z2 = y * 3
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        z2.backward()
    assert x.grad is None  # D1: never tensor([0.])


def test_backward_from_a_leaf_sets_its_grad_to_one() -> None:
    x = mg.Value(5.0, requires_grad=True)
    x.backward()
    assert x.grad == 1.0


def test_backward_with_an_explicit_gradient_scales_everything() -> None:
    x = mg.Value(2.0, requires_grad=True)
    (x * 3).backward(gradient=2.0)
    assert x.grad == 6.0


@pytest.mark.parametrize("bad", ["x", [1.0], None.__class__])
def test_backward_with_a_bad_gradient_is_a_type_error(bad) -> None:
    x = mg.Value(2.0, requires_grad=True)
    with pytest.raises(TypeError, match="gradient"):
        (x * 3).backward(gradient=bad)


def test_a_reused_value_gets_both_contributions() -> None:
    a = mg.Value(3.0, requires_grad=True)
    (a + a).backward()  # micrograd's set of parents loses this edge
    assert a.grad == 2.0
    b = mg.Value(3.0, requires_grad=True)
    (b * b).backward()
    assert b.grad == 6.0


def test_a_diamond_with_a_reused_non_leaf_sums_both_paths() -> None:
    x = mg.Value(2.0, requires_grad=True)
    h = x * x  # used twice below
    y = h * 3 + h.exp()
    y.backward()
    import math

    assert x.grad == pytest.approx((3 + math.exp(4.0)) * 4.0)


def test_second_backward_after_zeroing_gives_the_same_leaf_grads() -> None:
    # micrograd accumulates into every node, so its second pass is wrong even after zero_grad
    x = mg.Value(2.0, requires_grad=True)
    h = x * 3
    y = h * h
    y.backward(retain_graph=True)
    first = x.grad
    x.grad = None
    y.backward()
    assert x.grad == first == 36.0


def test_non_leaves_never_get_grad_without_retain_grad() -> None:
    x = mg.Value(2.0, requires_grad=True)
    h = x * 3
    (h * h).backward()
    assert h._grad is None


def test_visit_order_follows_creation_order_among_ready_nodes() -> None:
    x = mg.Value(1.0, requires_grad=True)
    a = x.exp()  # created first
    b = x.tanh()  # created second
    y = a + b
    assert visits(y.backward) == ["AddBackward0", "TanhBackward0", "ExpBackward0"]


def test_each_node_is_visited_once_after_all_its_consumers() -> None:
    x = mg.Value(0.5, requires_grad=True)
    h = x.exp()
    y = (h * 2) * (h + 1) + h
    order = visits(y.backward)
    assert order.count("ExpBackward0") == 1 and order[-1] == "ExpBackward0"


def test_a_million_node_chain_runs_forward_and_backward_without_recursion() -> None:
    assert sys.getrecursionlimit() <= 10_000
    x = mg.Value(1.0, requires_grad=True)
    h = x
    for _ in range(1_000_000):
        h = h + 1.0
    h.backward()
    assert h.data == 1_000_001.0 and x.grad == 1.0
    assert repr(h).startswith("Value(1000001.0")


def test_a_graph_freed_by_reference_counting_without_the_cyclic_collector() -> None:
    import gc
    import weakref

    gc.disable()
    try:
        x = mg.Value(1.0, requires_grad=True)
        y = (x * 2).exp().tanh()
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None  # no reference cycle: freed at once
    finally:
        gc.enable()


# -- with inputs, only the paths to them run (issue 13) --------------------------------------------------
def test_grad_runs_only_the_nodes_on_a_path_to_its_inputs() -> None:
    x = mg.Value(1.0, requires_grad=True)
    h = x.exp()
    y = h * h
    assert mg.autograd.grad(y, [h]) == (2 * math.e,)
    h.backward()  # exp's saved output was not freed: its node never ran
    assert x.grad == pytest.approx(math.e)  # 2.718…, as torch


def test_hooks_off_the_path_to_the_inputs_do_not_fire() -> None:
    x = mg.Value(1.0, requires_grad=True)
    w = mg.Value(2.0, requires_grad=True)
    fired: list[str] = []
    h = x * w
    w.register_hook(lambda g: fired.append("w"))
    h.register_hook(lambda g: fired.append("h"))
    y = h.tanh() + w
    mg.autograd.grad(y, [h])
    assert fired == ["h"]
    assert x.grad is None and w.grad is None


def test_grad_with_an_input_beyond_another_runs_the_node_between() -> None:
    x = mg.Value(0.5, requires_grad=True)
    h = x.exp()
    y = h * h
    gh, gx = mg.autograd.grad(y, [h, x])
    assert gh == 2 * math.exp(0.5) and gx == pytest.approx(2 * math.exp(1.0))


def test_backward_with_inputs_accumulates_only_into_them() -> None:
    x, w = mg.Value(3.0, requires_grad=True), mg.Value(2.0, requires_grad=True)
    y = x * w
    y.backward(inputs=[x])
    assert x.grad == 2.0 and w.grad is None
