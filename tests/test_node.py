"""Nodes: PyTorch's names, next_functions' shape, AccumulateGrad, what each op saves (D10, D12, E4)."""
from __future__ import annotations

import math

import pytest

import micrograd2 as mg
from micrograd2.autograd import AccumulateGrad
from micrograd2.autograd.node import FREED, SavedInput, SavedOutput


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


def test_mul_saves_each_input_only_if_the_other_needs_a_gradient() -> None:
    x, w, c = mg.Value(2.0, requires_grad=True), mg.Value(4.0, requires_grad=True), mg.Value(3.0)
    assert (x * w).grad_fn.saved == (x, w)
    assert (x * c).grad_fn.saved == (None, c)  # keeps c for x's gradient, not x


def test_exp_saves_its_output_add_saves_nothing_sum_saves_nothing() -> None:
    x = mg.Value(0.0, requires_grad=True)
    assert (x.exp()).grad_fn.saved == (1.0,)
    assert (x + 1).grad_fn.saved == ()
    assert mg.sum([x, x]).grad_fn.saved == ()


def test_saved_values_become_freed_after_backward(block1) -> None:
    mul = block1["z"].grad_fn.next_functions[0][0]
    assert mul.saved == (block1["x"][0], block1["w"][0])
    block1["z"].backward()
    assert mul.saved == FREED


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


def test_an_input_changed_in_place_before_it_was_saved_is_checked_against_that_version() -> None:
    x = mg.Value(2.0, requires_grad=True)
    with mg.no_grad():
        x.add_(1)  # version 1 before the graph saves it
    y = x * x
    y.backward(retain_graph=True)  # still version 1: fine
    assert x.grad == 6.0
    with mg.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match="is at version 2; expected version 1"):
        y.backward()


def test_a_saved_input_is_a_record_of_the_variable_itself_and_its_version() -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x * x
    assert all(type(item) is SavedInput and item.variable is x and item.version == 0
               for item in y.grad_fn._saved)
    (out,) = x.exp().grad_fn._saved
    assert type(out) is SavedOutput and out.version == 0 and out.kind is mg.Value
    x.detach().add_(1)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.backward()


# -- saved values: an input is read at backward time, the output as it was saved (issue 23) ---------------
def test_a_saved_output_reads_the_data_it_had_when_saved() -> None:
    a = mg.Value(1.0, requires_grad=True)
    b = a.exp()
    b.data = 10.0  # bypasses autograd: PyTorch's saved output keeps its own copy of the data
    assert b.grad_fn.saved == (math.e,) and b.grad_fn.output == math.e
    b.backward()
    assert a.grad == math.e


def test_a_saved_input_is_read_at_backward_time_the_data_trap() -> None:
    a = mg.Value(3.0, requires_grad=True)
    b = a * a
    a.data = 10.0  # bypasses autograd: the saved input is read as it is now, as in PyTorch
    b.backward()
    assert a.grad == 20.0


def test_a_saved_output_changed_in_place_still_raises_even_once_it_is_gone() -> None:
    a = mg.Value(1.0, requires_grad=True)
    b = a.exp()
    b.mul_(2)  # in place on the saved output
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[\]\], which is output 0 of Exp, is at version 1"):
        b.backward()
    c = a.exp()
    d = c + 1
    c.detach().add_(1)
    del c  # the output is gone, its version counter is not
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        d.backward()


def test_division_by_a_number_keeps_the_number_only() -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x / 4
    assert y.grad_fn.saved == (None, 4)
    x.detach().add_(1)  # x is not saved: harmless, as in PyTorch (E6)
    y.backward()
    assert x.grad == 0.25


def test_ops_save_only_what_the_needed_gradients_use() -> None:
    x, c = mg.Value(2.0, requires_grad=True), mg.Value(3.0)
    assert (x ** c).grad_fn.saved[2] is None  # the output is needed only for the exponent's gradient
    assert (c ** x).grad_fn.saved[1] is None
    assert mg.dot([x], [c]).grad_fn.saved == (None, c)  # w's gradient needs x only


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


def test_saved_entries_name_the_role_of_each_saved_item() -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x * 3.0
    z = y.exp()
    assert y.grad_fn.saved_entries() == (("self", "other", None, None), ("other", "other", None, 3.0))
    (name, role, variable, value), = z.grad_fn.saved_entries()
    assert (name, role, variable, value) == ("result", "output", None, z.data)
    assert (x * x).grad_fn.saved_entries() == (("self", "input", x, 2.0), ("other", "input", x, 2.0))
    z.backward()
    assert z.grad_fn.saved_entries() == FREED


# -- what the tracer and diagrams read of a node, without raising -----------------------------
def test_a_node_shows_its_saved_values_inputs_and_output() -> None:
    x = mg.Value(3.0, requires_grad=True)
    y = x * 2.0
    node = y.grad_fn
    assert node.saved == (None, 2.0) and node.inputs == (3.0, 2.0) and node.output == 6.0
    assert node.saved_entries() == (("self", "other", None, None), ("other", "other", None, 2.0))


def test_a_saved_output_is_shown_as_it_was_saved() -> None:
    y = mg.Value(0.0, requires_grad=True).exp()
    node = y.grad_fn
    assert node.saved == (1.0,) and node.output == 1.0
    y.data = 10.0  # (PyTorch keeps the output's data as saved: so does the node)
    assert node.saved == (1.0,) and node.output == 1.0


def test_after_backward_the_saved_values_are_freed_and_shown_so() -> None:
    x = mg.Value(2.0, requires_grad=True)
    y = x * x
    node = y.grad_fn
    assert node.saved == (x, x)
    y.backward()
    assert node.saved is FREED and node.saved_entries() is FREED and node.output == 4.0
