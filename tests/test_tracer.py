"""``mg.trace()`` (micrograd2/tracing/tracer.py): what autograd does, recorded as plain events, exactly.

It proves that the article's blocks 2, 3 and 5 give their events field for field (kind, step, pass, node,
names, values, gradients), that hooks, retain_grad and frees carry the step of the visit that caused them,
that a trace opened after the forward pass (or halfway through a backward) learns the graph and records the
same, that tracers nest, re-enter, clear, hold graphs only weakly, survive their own failures, drop events
past ``max_events`` and call ``on_pass_end``, and that an input which is output k >= 1 of a node of several
outputs is named and valued as that output; and that the tracer reads the graph through
tracing/nodes.py: one walk without recursion, a Variable's node and ``.grad``, and saved items
under PyTorch's names.
"""
from __future__ import annotations

import gc
import json
import math
import warnings
import weakref

import numpy as np
import pytest
from conftest import SquareAndDouble, SumAndProduct, block2

import micrograd2 as mg
from micrograd2.autograd import events
from micrograd2.tracing import TraceEvent
from micrograd2.tracing.nodes import grad_of, node_of, reachable, saved_items, walk


def summary(e: TraceEvent) -> tuple:
    """The fields that define an event of each kind, as a comparable tuple."""
    if e.kind == "forward":
        return (e.kind, e.node_id, e.inputs, e.output)
    if e.kind == "backward":
        return (e.kind, e.step, e.pass_no, e.node_id, e.label, e.output, e.grad_output, e.grad_inputs)
    if e.kind == "accumulate":
        return (e.kind, e.step, e.pass_no, e.label, e.old, e.new)
    if e.kind == "hook":
        return (e.kind, e.step, e.pass_no, e.label, e.before, e.after)
    return (e.kind, e.step, e.pass_no, e.node_id, dict(e.saved))  # what was saved, in any order


# -- the article's blocks ------------------------------------------------------------------------------------
def test_block2_events_exactly() -> None:
    t, x, w, z = block2()
    assert [summary(e) for e in t.events] == [
        ("forward", "MulBackward0#1", (("x[0]", 2.0), ("w[0]", 4.0)), 8.0),
        ("forward", "MulBackward0#2", (("x[1]", 3.0), ("w[1]", 5.0)), 15.0),
        ("forward", "SumBackward0#1", (("x[0]·w[0]", 8.0), ("x[1]·w[1]", 15.0)), 23.0),
        ("backward", 1, 1, "SumBackward0#1", "z", 23.0, 1.0, (("x[0]·w[0]", 1.0), ("x[1]·w[1]", 1.0))),
        # the Mul created last is visited first (priority on creation order, as PyTorch's engine)
        ("backward", 2, 1, "MulBackward0#2", "x[1]·w[1]", 15.0, 1.0, (("x[1]", 5.0), ("w[1]", 3.0))),
        ("free", 2, 1, "MulBackward0#2", {"w[1]": 5.0, "x[1]": 3.0}),
        ("accumulate", 2, 1, "x[1]", None, 5.0),
        ("accumulate", 2, 1, "w[1]", None, 3.0),
        ("backward", 3, 1, "MulBackward0#1", "x[0]·w[0]", 8.0, 1.0, (("x[0]", 4.0), ("w[0]", 2.0))),
        ("free", 3, 1, "MulBackward0#1", {"w[0]": 4.0, "x[0]": 2.0}),
        ("accumulate", 3, 1, "x[0]", None, 4.0),
        ("accumulate", 3, 1, "w[0]", None, 2.0),
    ]
    assert [e.node for e in t.events if e.kind == "backward"] == ["SumBackward0", "MulBackward0", "MulBackward0"]
    assert all(e.node == "AccumulateGrad" and e.leaf for e in t.events if e.kind == "accumulate")
    assert [xi.grad for xi in x] == [4.0, 5.0] and [wi.grad for wi in w] == [2.0, 3.0]
    assert len(t.passes) == 1
    p = t.passes[0]
    assert (p.pass_no, p.roots, p.root_nodes, p.seeds, p.finished) == (
        1, (("z", 23.0),), ("SumBackward0",), (1.0,), True)
    assert t.errors == []


def test_block3_three_passes_accumulate() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        w = mg.Value(3.0, requires_grad=True, label="w")
        for _ in range(3):
            z = mg.sum([x * w])
            z.backward()
    backward = [(e.step, e.pass_no, e.node) for e in t.events if e.kind == "backward"]
    assert backward == [(1, 1, "SumBackward0"), (2, 1, "MulBackward0"), (3, 2, "SumBackward0"),
                        (4, 2, "MulBackward0"), (5, 3, "SumBackward0"), (6, 3, "MulBackward0")]
    acc = [(e.step, e.pass_no, e.label, e.old, e.new) for e in t.events if e.kind == "accumulate"]
    assert acc == [(2, 1, "x", None, 3.0), (2, 1, "w", None, 2.0),
                   (4, 2, "x", 3.0, 6.0), (4, 2, "w", 2.0, 4.0),
                   (6, 3, "x", 6.0, 9.0), (6, 3, "w", 4.0, 6.0)]
    assert [p.pass_no for p in t.passes] == [1, 2, 3]
    # each pass builds a new graph: node names keep counting within the trace
    assert [e.node_id for e in t.events if e.kind == "backward"] == [
        "SumBackward0#1", "MulBackward0#1", "SumBackward0#2", "MulBackward0#2", "SumBackward0#3", "MulBackward0#3"]
    assert (x.grad, w.grad) == (9.0, 6.0)


def test_block5_custom_function() -> None:
    with mg.trace() as t:
        x = mg.Value(3.0, requires_grad=True, label="x")
        y = SquareAndDouble.apply(x)
        y.backward()
    assert [summary(e) for e in t.events] == [
        ("forward", "SquareAndDoubleBackward#1", (("x", 3.0),), 18.0),
        ("backward", 1, 1, "SquareAndDoubleBackward#1", "SquareAndDouble(x)", 18.0, 1.0, (("x", 12.0),)),
        ("free", 1, 1, "SquareAndDoubleBackward#1", {"x": 3.0}),
        ("accumulate", 1, 1, "x", None, 12.0),
    ]
    assert t.events[1].op == "SquareAndDouble" and t.events[1].node == "SquareAndDoubleBackward"
    assert (y.data, x.grad) == (18.0, 12.0)


# -- hooks, retain_grad, frees -------------------------------------------------------------------------------
def test_hooks_and_retain_grad_carry_the_step_of_their_visit() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        y = x * 3.0
        y.label = "y"
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: None)
        z = y + 1.0
        z.backward()
    kinds = [(e.kind, e.step, e.label) for e in t.events if e.kind != "forward"]
    assert kinds == [
        ("backward", 1, "y + 1.0"),
        ("hook", 2, "y"),  # y's hooks run on its gradient before MulBackward0 runs: they get its step
        ("accumulate", 2, "y"),
        ("backward", 2, "y"),
        ("free", 2, "y"),
        ("hook", 2, "x"),  # a leaf's hook runs when its gradient arrives, after the visit that sent it
        ("accumulate", 2, "x"),
    ]
    hook, retain = t.events[3], t.events[4]
    assert (hook.before, hook.after) == (1.0, 10.0)
    assert (retain.leaf, retain.old, retain.new) == (False, None, 10.0)  # retain_grad runs last, as in PyTorch
    assert x.grad == 30.0 and y.grad == 10.0


def test_backward_from_a_leaf_accumulates_without_a_step() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        x.backward()
    assert [(e.kind, e.step, e.pass_no, e.new) for e in t.events] == [("accumulate", None, 1, 1.0)]
    assert t.passes[0].root_nodes == ("AccumulateGrad",)


def test_retain_graph_keeps_saved_values_and_frees_nothing() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        y = x.exp()
        y.backward(retain_graph=True)
        y.backward()
    frees = [e for e in t.events if e.kind == "free"]
    assert [(e.step, e.pass_no) for e in frees] == [(2, 2)]
    assert frees[0].saved == (("exp(x)", math.exp(2.0)),)
    assert [e.saved for e in t.backward_events()] == [(("exp(x)", math.exp(2.0)),)] * 2


# -- a graph built before the trace --------------------------------------------------------------------------
def _block2_graph() -> tuple[list[mg.Value], mg.Value]:
    x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
    w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
    z = mg.sum(a * b for a, b in zip(x, w))
    z.label = "z"
    return x + w, z


def _chain_graph() -> tuple[list[mg.Value], mg.Value]:
    a, b = mg.Value(0.5, requires_grad=True), mg.Value(2.0, requires_grad=True)  # unlabelled leaves
    y = ((a * 3.0 - b) ** 2).relu() / mg.Value(4.0, label="n")
    return [a, b], y


@pytest.mark.parametrize("build", [_block2_graph, _chain_graph], ids=["block2", "chain"])
def test_a_trace_opened_after_the_forward_pass_knows_it(build) -> None:
    """The usual way, ``z = …; with mg.trace() as t: z.backward()``, records what a trace opened before
    the forward pass records: outputs, inputs, names and numbers, in the same order."""
    with mg.trace() as watched:
        keep, z = build()
        z.backward()
    keep, z = build()
    with mg.trace() as after:
        z.backward()
    assert [e.to_dict() for e in after.events] == [e.to_dict() for e in watched.events if e.kind != "forward"]
    assert after.narrate(color=False) == watched.narrate(color=False)
    assert all(e.output is not None and e.inputs for e in after.backward_events())


def test_graph_built_before_the_trace_is_still_named() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    y = (x * x).tanh()
    with mg.trace() as t:
        y.backward()
    b = t.backward_events()
    # no forward record, yet each node reaches its output and its inputs (issue 16 §3)
    assert [(e.node_id, e.output) for e in b] == [("TanhBackward0#1", math.tanh(4.0)), ("MulBackward0#1", 4.0)]
    assert b[1].grad_inputs[0][0] == "x"
    assert [v for _, v in b[0].inputs] == [4.0] and b[1].inputs == (("x", 2.0), ("x", 2.0))


def test_a_graph_built_partly_before_the_trace_is_learnt_below_what_the_trace_saw() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    h = (x * x).tanh()  # before the trace
    with mg.trace() as t:
        y = h * 3.0  # inside it
        y.backward()
    b = t.backward_events()
    assert [(e.node_id, e.label, e.output) for e in b] == [
        ("MulBackward0#2", "tanh(x·x)·3.0", pytest.approx(3 * math.tanh(4.0))),
        ("TanhBackward0#1", "tanh(x·x)", pytest.approx(math.tanh(4.0))), ("MulBackward0#1", "x·x", 4.0)]
    assert b[2].inputs == (("x", 2.0), ("x", 2.0))
    assert "step 2   TanhBackward0    tanh(x·x) = 0.999329" in t.narrate(color=False)


# -- on and off ----------------------------------------------------------------------------------------------
def test_nested_tracers_both_record_and_reentry_is_refused() -> None:
    with mg.trace() as outer:
        a = mg.Value(1.0, requires_grad=True)
        with mg.trace() as inner:
            (a * 2.0).backward()
        (a * 3.0).backward()
        with pytest.raises(RuntimeError, match="already recording"):
            with outer:
                pass
    assert len(inner.backward_events()) == 1 and len(outer.backward_events()) == 2
    assert [e.step for e in outer.backward_events()] == [1, 2]
    assert not events.listening


def test_a_tracer_can_be_entered_again_and_cleared() -> None:
    t = mg.trace()
    a = mg.Value(1.0, requires_grad=True)
    for _ in range(2):
        with t:
            (a * 2.0).backward()
        t.clear()
    with t:
        (a * 2.0).backward()
    assert [(e.kind, e.step, e.pass_no) for e in t.events] == [
        ("forward", None, None), ("backward", 3, 3), ("free", 3, 3), ("accumulate", 3, 3)]
    assert t.events[1].node_id == "MulBackward0#3"


def test_tracer_holds_graphs_only_weakly() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True)
        y = x * x
        node = weakref.ref(y.grad_fn)
        leaf = weakref.ref(x)
        del x, y
        gc.collect()
    assert node() is None and leaf() is None
    names = t.names
    assert len(names.records) == len(names.ids) == len(names.values) == len(names.others) == 0


def test_a_failing_tracer_warns_and_the_computation_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args, **kwargs):
        raise KeyError("bug")

    t = mg.trace()
    monkeypatch.setattr(t, "_on_visit", broken)
    x = mg.Value(2.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with t:
            (x * 3.0).backward()
    assert x.grad == 3.0
    assert len(t.errors) == 1 and "KeyError" in t.errors[0]
    assert [w.category for w in caught] == [RuntimeWarning]


def test_max_events_counts_what_was_dropped() -> None:
    with mg.trace(max_events=2) as t:
        x = mg.Value(2.0, requires_grad=True)
        (x * 3.0 + 1.0).backward()
    assert len(t.events) == 2 and t.dropped == 4  # backward ×2, free (of the 3.0 Mul kept), accumulate
    assert "not recorded" in t.narrate()


def test_on_pass_end_is_called_after_each_pass() -> None:
    seen = []
    with mg.trace(on_pass_end=lambda tr, p: seen.append((p.pass_no, p.finished, len(tr.events)))):
        x = mg.Value(2.0, requires_grad=True)
        (x * 3.0).backward()
        (x * 4.0).backward()
    assert seen == [(1, True, 4), (2, True, 8)]  # forward, backward, free, accumulate per pass


def test_a_tracer_started_during_a_backward_pass_records_what_it_can() -> None:
    t = mg.trace()
    x = mg.Value(2.0, requires_grad=True, label="x")
    y = x * 3.0
    y.register_hook(lambda g: t.__enter__() and None)  # start recording halfway through
    (y + 1.0).backward()
    t.__exit__(None, None, None)
    # from the hook on, the walk's announcements are recorded (the pass's start was not)
    assert [(e.kind, e.pass_no, e.label) for e in t.events] == [
        ("hook", 1, "v1"), ("backward", 1, "v1"), ("free", 1, "v1"), ("accumulate", 1, "x")]
    assert t.errors == [] and len(t.passes) == 1 and t.passes[0].roots == ()
    assert "backward pass 1 (begun before the trace started)" in t.narrate(color=False)
    assert not events.listening


# -- nodes of several outputs: a custom Function's second output, unbind's rows ------------------------------
def _through_the_second_output() -> tuple[mg.Value, mg.Value, mg.Value]:
    a, b = mg.Value(2.0, requires_grad=True, label="a"), mg.Value(5.0, requires_grad=True, label="b")
    _, p = SumAndProduct.apply(a, b)
    return a, b, p * 3.0


@pytest.mark.parametrize("watched", [True, False], ids=["forward_traced", "trace_opened_after"])
def test_an_input_that_is_a_later_output_is_named_and_valued_as_that_output(watched: bool) -> None:
    if watched:
        with mg.trace() as t:
            a, b, z = _through_the_second_output()
            z.backward()
    else:
        a, b, z = _through_the_second_output()
        with mg.trace() as t:
            z.backward()
    assert not t.errors
    mul = t.backward_events()[0]
    assert mul.inputs == (("SumAndProduct(a, b)[1]", 10.0), ("const", 3.0))  # output 1: a·b, not a + b
    assert mul.input_ids == ("SumAndProductBackward#1", None) and mul.input_nrs == (1, 0)
    node = t.backward_events()[1]
    assert (node.node_id, node.grad_output, node.grad_inputs) == (
        "SumAndProductBackward#1", (None, 3.0), (("a", 15.0), ("b", 6.0)))
    lines = [json.loads(line) for line in t.to_json().splitlines()]
    visits = [d for d in lines if d["kind"] == "backward"]
    assert visits[0]["input_nrs"] == [1, 0] and visits[1]["input_nrs"] == [0, 0]  # edges' input_nr
    assert (a.grad, b.grad) == (15.0, 6.0)


def test_iterating_a_tensor_traces_one_unbind_node_with_a_name_per_row() -> None:
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x.label = "x"
    with mg.trace() as t:
        first, second = x
        y = (second * 2).sum()
        y.backward()
    assert not t.errors
    forward = [e for e in t.events if e.kind == "forward"]
    assert (forward[0].node_id, forward[0].label) == ("UnbindBackward0#1", "Unbind(x)[0]")
    assert forward[1].inputs[0][0] == "Unbind(x)[1]" and forward[1].input_nrs == (1, 0)
    assert t.name_of(second) == "Unbind(x)[1]" and t.name_of(first) == "Unbind(x)[0]"
    unbind = t.backward_events()[-1]
    assert unbind.node == "UnbindBackward0" and unbind.grad_output[0] is None
    assert np.array_equal(unbind.grad_output[1], [2.0, 2.0])
    assert "Unbind(x)[1]" in t.narrate()



# -- how the tracer reads the graph: tracing/nodes.py ----------------------------------------------
def test_the_walk_follows_every_edge_depth_first_and_goes_below_a_node_once() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    h = x * x
    z = h + h.tanh()
    visits = [(v.node.name(), v.parent.name() if v.parent else None, v.edge_nr, v.first)
              for v in walk([z.grad_fn])]
    assert visits == [
        ("AddBackward0", None, 0, True), ("MulBackward0", "AddBackward0", 0, True),
        ("AccumulateGrad", "MulBackward0", 0, True), ("AccumulateGrad", "MulBackward0", 1, False),
        ("TanhBackward0", "AddBackward0", 1, True), ("MulBackward0", "TanhBackward0", 0, False),
    ]
    assert [n.name() for n in reachable([z.grad_fn, None])] == [
        "AddBackward0", "MulBackward0", "AccumulateGrad", "TanhBackward0"]
    above_mul = reachable([z.grad_fn], expand=lambda n: n.name() != "MulBackward0")
    assert [n.name() for n in above_mul] == ["AddBackward0", "MulBackward0", "TanhBackward0"]


def test_the_walk_needs_no_recursion() -> None:
    x = mg.Value(0.5, requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0
    assert sum(1 for _ in reachable([y.grad_fn])) == 20_001


def test_a_node_of_a_variable_and_its_grad_for_display() -> None:
    x = mg.Value(2.0, requires_grad=True)
    c = mg.Value(3.0)
    y = x * c
    assert node_of(c) is None and node_of(y) is y.grad_fn and node_of(x).name() == "AccumulateGrad"
    y.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading a non-leaf's .grad would warn
        assert (grad_of(x), grad_of(y)) == (3.0, None)


def test_saved_items_are_named_as_pytorch_names_them() -> None:
    x = mg.Value(2.0, requires_grad=True)
    items = saved_items((3.0 ** x).grad_fn)
    assert [(i.name, i.role) for i in items] == [
        ("result", "output"), ("self", "other"), ("exponent", "input")]
    assert [i.data for i in items] == [9.0, 3.0, 2.0]


def test_saved_items_add_what_an_op_shows_as_a_saved_attribute() -> None:
    class Scale(mg.Function):
        saved_names = ("self",)

        @staticmethod
        def forward(ctx, a, factor):
            ctx.save_for_backward(a)
            ctx.factor = factor
            return a * factor

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.factor, None

    x = mg.Value(2.0, requires_grad=True, label="x")
    node_class = type(Scale.apply(x, 4.0).grad_fn)
    node_class._saved_factor = property(lambda node: node.factor)  # as PyTorch's _saved_alpha
    with mg.trace() as t:
        Scale.apply(x, 4.0).backward()
    visit = t.backward_events()[0]
    assert (visit.saved, visit.saved_names) == ((("x", 2.0), (None, 4.0)), ("self", "factor"))


def test_the_ops_of_a_tensor_backward_formula_are_not_traced_as_forward_ops() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.trace() as t:
        y = (x * 2.0).exp().sum()
        y.backward()
    assert not t.errors
    forward = [e.node for e in t.events if e.kind == "forward"]
    assert forward == ["MulBackward0", "ExpBackward0", "SumBackward0"]
    assert t.names.counters["leaf"] == 1


def test_an_accumulate_event_keeps_the_grad_it_found_though_the_add_writes_into_it() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    held = x.grad
    with mg.trace() as t:
        (x * 3).sum().backward()
    (event,) = [e for e in t.events if e.kind == "accumulate"]
    assert x.grad is held  # added in place, as PyTorch does
    assert np.array_equal(event.old, [3.0, 3.0]) and np.array_equal(event.new, [6.0, 6.0])
    assert "x.grad: [3.0, 3.0] → [6.0, 6.0]" in t.narrate(color=False).replace("leaf#1", "x")
