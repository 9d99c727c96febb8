"""How a trace names what it sees (micrograd2/tracing/names.py): nodes by their class, values by their expression.

It proves that values are named by their label, else by their expression (``leaf#1·leaf#2``), and by a counter
(``v1``) once the expression is too long; that a label given after an op is used from then on; that an op run
without recording has no node id; and that the ``IdentityMap`` the names live in forgets dead keys and never
compares its keys with ``==`` (a Tensor's ``==`` is not a bool).
"""
from __future__ import annotations

import gc

import micrograd2 as mg
from micrograd2.tracing.names import IdentityMap


def test_values_are_named_by_their_expression_nodes_by_their_class() -> None:
    with mg.trace() as t:
        a, b = mg.Value(1.0, requires_grad=True), mg.Value(2.0, requires_grad=True)
        c = a * b
        d = c * 3.0
        d.backward()
    forward = [e for e in t.events if e.kind == "forward"]
    assert forward[0].inputs == (("leaf#1", 1.0), ("leaf#2", 2.0))
    assert (forward[0].node_id, forward[0].label) == ("MulBackward0#1", "leaf#1·leaf#2")
    assert forward[1].inputs == (("leaf#1·leaf#2", 2.0), ("const", 3.0))
    assert (forward[1].node_id, forward[1].label) == ("MulBackward0#2", "leaf#1·leaf#2·3.0")
    assert forward[1].input_ids == ("MulBackward0#1", None)
    visit = t.backward_events()[0]
    assert visit.grad_inputs == (("leaf#1·leaf#2", 3.0), ("const", None))
    assert t.passes[0].roots == (("leaf#1·leaf#2·3.0", 6.0),)


def test_a_value_whose_expression_is_long_gets_a_counter() -> None:
    with mg.trace() as t:
        xs = [mg.Value(float(i), requires_grad=True, label=f"x{i}") for i in range(4)]
        s = mg.sum(xs)  # x0 + x1 + x2 + x3: short
        h = (s * s).tanh()  # tanh((x0 + x1 + x2 + x3)·(x0 + x1 + x2 + x3)): long
        out = h + 1.0
        with mg.no_grad():
            u = xs[0] * 2.0  # not recorded: still named by its expression
        out.backward()
    labels = [e.label for e in t.events if e.kind == "forward"]
    assert labels == ["x0 + x1 + x2 + x3", "v1", "tanh(v1)", "tanh(v1) + 1.0", "x0·2.0"]
    assert t.name_of(u) == "x0·2.0" and t.name_of(s) == "x0 + x1 + x2 + x3"
    assert t.node_id(s.grad_fn) == "SumBackward0#1"


def test_a_label_given_after_the_op_is_used_from_then_on() -> None:
    with mg.trace() as t:
        a = mg.Value(2.0, requires_grad=True, label="a")
        e = a * a
        L = e.exp()
        e.label = "e"
        L.backward()
    assert t.events[1].inputs == (("a·a", 4.0),)  # when exp ran, e had no label yet
    assert t.backward_events()[0].grad_inputs[0][0] == "e"  # at backward time it has one
    assert t.backward_events()[1].label == "e"


def test_forward_without_recording_has_no_node_id() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        with mg.no_grad():
            y = x * 2.0
        z = mg.Value(1.0) + 1.0
    assert [(e.node, e.node_id, e.output) for e in t.events] == [("MulBackward0", None, 4.0),
                                                                 ("AddBackward0", None, 2.0)]
    assert y.grad_fn is None and z.grad_fn is None


def test_identity_map_forgets_dead_keys_and_ignores_equality() -> None:
    class Elementwise:
        def __eq__(self, other):  # like a Tensor: == is not a bool
            raise AssertionError("never compared")

        __hash__ = object.__hash__

    m = IdentityMap()
    a, b = Elementwise(), Elementwise()
    m[a] = "a"
    m[b] = "b"
    assert (m.get(a), m.get(b), len(m)) == ("a", "b", 2)
    del a
    gc.collect()
    assert len(m) == 1 and m.pop(b) == "b" and m.get(b) is None

