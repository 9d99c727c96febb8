"""micrograd2/autograd/hooks.py: Variable hooks, retain_grad, node pre- and post-hooks, post-accumulate hooks."""
from __future__ import annotations

import weakref

import pytest

import micrograd2 as mg
from micrograd2.autograd import hooks


def test_hooks_run_in_pytorchs_order_variable_hooks_retain_grad_prehooks_backward_posthooks() -> None:
    order = []
    x = mg.Value(2.0, requires_grad=True)
    y = x * 3
    y.retain_grad()  # registered first, runs after the Variable's other hooks
    y.register_hook(lambda g: order.append(("tensor", g, y.grad)))
    y.grad_fn.register_prehook(lambda go: order.append(("pre", go, y.grad)))
    y.grad_fn.register_hook(lambda gi, go: order.append(("post", gi, go)))
    (y * 5).backward()
    assert order == [("tensor", 5.0, None), ("pre", (5.0,), 5.0), ("post", (15.0, None), (5.0,))]


def test_a_variable_hooks_result_replaces_the_gradient_and_the_handle_removes_it() -> None:
    x = mg.Value(2.0, requires_grad=True)
    handle = x.register_hook(lambda g: g * 10)
    (x * 3).backward()
    assert x.grad == 30.0
    handle.remove()
    x.grad = None
    (x * 3).backward()
    assert x.grad == 3.0


def test_a_prehook_and_a_hook_may_replace_what_they_receive() -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
    y.backward()
    assert x.grad == 7.0  # (1 · 2) · 3 + 1


def test_a_hook_returning_the_wrong_count_is_refused_with_pytorchs_message() -> None:
    y = mg.Value(2.0, requires_grad=True) * 3
    y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match=r"(?s)hook '<lambda>' has returned an incorrect number of values "
                                           r"\(got 2, but expected 1\).*What to do"):
        y.backward()


def test_post_accumulate_grad_hooks_see_the_sum_once_per_backward() -> None:
    p = mg.Value(1.0, requires_grad=True)
    seen = []
    p.register_post_accumulate_grad_hook(lambda leaf: seen.append(leaf.grad))
    (p * 2 + p * 3).backward()
    assert seen == [5.0]


def test_hooks_live_in_the_side_table_only_while_their_node_lives() -> None:
    y = mg.Value(1.0, requires_grad=True) * 2
    y.grad_fn.register_hook(lambda gi, go: None)
    node = weakref.ref(y.grad_fn)
    assert node() in hooks.HOOKS
    count = len(hooks.HOOKS)
    del y
    assert node() is None and len(hooks.HOOKS) == count - 1


def test_a_node_hook_may_not_change_a_gradients_size_or_dtype() -> None:
    x, w = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    y.grad_fn.register_prehook(lambda g: (mg.tensor([1.0, 1.0, 1.0]),))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        y.sum().backward(retain_graph=True)
    z = x * w
    z.grad_fn.register_hook(lambda gi, go: (gi[0].double(), gi[1]))
    with pytest.raises(RuntimeError, match=r"changed the type of value \(was torch.FloatTensor got"):
        z.sum().backward()


def test_a_hook_on_an_output_that_gets_no_gradient_is_called_with_none() -> None:
    from conftest import SumAndProduct

    a, b = mg.Value(2.0, requires_grad=True), mg.Value(5.0, requires_grad=True)
    s, p = SumAndProduct.apply(a, b)
    seen = []
    p.register_hook(seen.append)
    (s * 1).backward()
    assert seen == [None]


def test_retain_grad_under_create_graph_is_a_clone() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward(create_graph=True)
    assert h.grad.grad_fn.name() == "CloneBackward0"


def test_the_side_table_is_our_own_weak_table_and_the_walk_reads_its_plain_dict() -> None:
    assert type(hooks.HOOKS) is hooks.HookTable and hooks.REGISTERED is hooks.HOOKS.entries
    assert type(hooks.REGISTERED) is dict  # the walk's truth test on it is a C-level check
    before = len(hooks.REGISTERED)
    ys = [mg.Value(1.0, requires_grad=True) * k for k in (2.0, 3.0)]
    ys[0].register_hook(lambda g: None)
    ys[1].register_hook(lambda g: None)
    assert ys[0].grad_fn in hooks.HOOKS and len(hooks.REGISTERED) == before + 2
    del ys[0]
    assert len(hooks.REGISTERED) == before + 1  # the weak reference's callback took it out
    ys.clear()
    assert len(hooks.REGISTERED) == before
