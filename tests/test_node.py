"""Nodes: PyTorch's names, next_functions' shape, AccumulateGrad and edges (D10); what a node saves is
test_saved.py's."""
from __future__ import annotations

import itertools

import pytest

import micrograd2 as mg
from micrograd2.autograd import AccumulateGrad


def test_block1_graph_has_pytorchs_node_names_and_shape(block1) -> None:
    z = block1["z"]
    assert z.grad_fn.name() == "SumBackward0"
    (mul0, i0), (mul1, i1) = z.grad_fn.next_functions
    assert mul0.name() == mul1.name() == "MulBackward0" and i0 == i1 == 0
    (acc_x, _), (acc_w, _) = mul0.next_functions
    assert acc_x.name() == "AccumulateGrad" and isinstance(acc_x, AccumulateGrad)
    assert acc_x.variable is block1["x"][0] and acc_w.variable is block1["w"][0]
    assert block1["x"][0].grad_fn is None


def test_an_input_that_needs_no_grad_appears_as_none() -> None:
    x, c = mg.Value(1.0, requires_grad=True), mg.Value(2.0)
    assert (x * c).grad_fn.next_functions[1] == (None, 0)
    assert (x * 2).grad_fn.next_functions[1] == (None, 0)


def test_a_leaf_has_one_accumulate_grad_node_shared_by_its_uses() -> None:
    x = mg.Value(1.0, requires_grad=True)
    a, b = x * 2, x + 1
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda x, y: x + y, "AddBackward0"),
        (lambda x, y: x - y, "SubBackward0"),
        (lambda x, y: 2 - x, "RsubBackward1"),
        (lambda x, y: x * y, "MulBackward0"),
        (lambda x, y: x / y, "DivBackward0"),
        (lambda x, y: 2 / x, "DivBackward0"),
        (lambda x, y: x**2, "PowBackward0"),
        (lambda x, y: x**y, "PowBackward1"),
        (lambda x, y: 2**x, "PowBackward2"),
        (lambda x, y: -x, "NegBackward0"),
        (lambda x, y: x.exp(), "ExpBackward0"),
        (lambda x, y: x.log(), "LogBackward0"),
        (lambda x, y: x.tanh(), "TanhBackward0"),
        (lambda x, y: x.relu(), "ReluBackward0"),
        (lambda x, y: x.sigmoid(), "SigmoidBackward0"),
        (lambda x, y: x.sqrt(), "SqrtBackward0"),
        (lambda x, y: x.abs(), "AbsBackward0"),
        (lambda x, y: mg.sum([x, y]), "SumBackward0"),
        (lambda x, y: mg.dot([x], [y]), "DotBackward0"),
        (lambda x, y: x.half(), "ToCopyBackward0"),
    ],
)
def test_each_op_has_pytorchs_node_name(make, name) -> None:
    x, y = mg.Value(1.5, requires_grad=True), mg.Value(2.0, requires_grad=True)
    assert make(x, y).grad_fn.name() == name


def test_rsub_and_number_pow_have_one_input_like_pytorch() -> None:
    x = mg.Value(1.5, requires_grad=True)
    assert len((2 - x).grad_fn.next_functions) == 1
    assert len((x**2).grad_fn.next_functions) == 1
    assert len((2**x).grad_fn.next_functions) == 1


def test_node_repr_is_pytorch_like() -> None:
    node = (mg.Value(1.0, requires_grad=True) * 2).grad_fn
    assert repr(node).startswith("<MulBackward0 object at 0x")


def test_node_hooks_see_grad_outputs_and_grad_inputs_as_pytorch() -> None:
    seen = []
    x = mg.Value(1.0, requires_grad=True)
    y = x * 5
    y.grad_fn.register_prehook(lambda grad_outputs: seen.append(("pre", grad_outputs)))
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(("post", grad_inputs, grad_outputs)))
    (y * 2).backward()
    assert seen == [("pre", (2.0,)), ("post", (10.0, None), (2.0,))] and x.grad == 10.0


def test_a_removed_node_hook_no_longer_runs() -> None:
    seen = []
    y = mg.Value(1.0, requires_grad=True) * 5
    handle = y.grad_fn.register_hook(lambda gi, go: seen.append(gi))
    handle.remove()
    y.backward()
    assert seen == []


# -- saved values: an input is read at backward time, the output as it was saved (issue 23) ---------------


def test_a_node_reaches_its_output_and_inputs_without_keeping_the_values() -> None:
    x = mg.Value(2.0, requires_grad=True)
    h = x * 3.0
    y = (h + 1.0).tanh()
    mul = h.grad_fn
    del h
    assert mul.output == 6.0 and mul.inputs == (2.0, 3.0)
    assert y.grad_fn.inputs == (7.0,) and y.grad_fn.next_functions[0][0].inputs == (6.0, None)
    assert x.grad_fn is None and mul.next_functions[0][0].output == 2.0  # AccumulateGrad: the leaf's data


def test_gradient_edge_is_the_grad_fn_or_the_one_accumulator_of_a_leaf() -> None:
    x = mg.Value(1.0, requires_grad=True)
    node, nr = mg.autograd.gradient_edge(x)
    assert node.name() == "AccumulateGrad" and nr == 0 and node.variable is x
    assert mg.autograd.gradient_edge(x)[0] is node
    y = x * 2
    assert mg.autograd.gradient_edge(y) == (y.grad_fn, 0) and y.grad_fn.next_functions[0] == (node, 0)


# -- what the tracer and diagrams read of a node, without raising -----------------------------
def test_a_node_shows_its_saved_values_inputs_and_output() -> None:
    x = mg.Value(3.0, requires_grad=True)
    y = x * 2.0
    node = y.grad_fn
    assert node.saved == (None, 2.0) and node.inputs == (3.0, 2.0) and node.output == 6.0
    assert node.saved_entries() == (("self", "other", None, None), ("other", "other", None, 2.0))




def test_the_edges_written_out_for_one_or_two_inputs_are_the_ones_init_builds() -> None:
    """NOTE [A node's edges, by its number of inputs]: every case of a needing tuple, a leaf, a
    non-leaf and an output of a node of several outputs (edge to output 1)."""
    from micrograd2.autograd.function import EDGES, BackwardNode
    from micrograd2.scalar import ops

    leaf = mg.Value(1.0, requires_grad=True)
    made = leaf * 2.0
    second = mg.tensor([1.0, 2.0], requires_grad=True).unbind()[1]  # output_nr 1
    for n, cls in ((1, ops.Exp._node_class), (2, ops.Mul._node_class)):
        assert cls.__init__ is EDGES[n]
        for needing in itertools.product([None, leaf, made, second], repeat=n):
            written, looped = object.__new__(cls), object.__new__(cls)
            EDGES[n](written, needing)
            BackwardNode.__init__(looped, needing)
            assert written.next_functions == looped.next_functions, needing
    node = object.__new__(ops.Pow._node_class)  # Pow.apply(x, exponent=2): one input, not two
    EDGES[2](node, (leaf,))
    assert len(node.next_functions) == 1
