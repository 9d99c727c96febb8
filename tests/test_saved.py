"""What a node saves for backward (saved.py): what each op keeps, the records of saved Variables, their
version checks, and their freeing after backward (D12, E4)."""
from __future__ import annotations

import math

import pytest

import micrograd2 as mg
from micrograd2.autograd.saved import FREED, SavedInput, SavedOutput


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


def test_an_op_declares_what_it_keeps_and_when_and_the_node_keeps_just_that() -> None:
    from micrograd2.autograd.saved import RESULT, Keep
    from micrograd2.scalar import ops

    assert ops.Mul.keeps == (Keep(0, when=1), Keep(1, when=0))
    assert ops.Exp.keeps == (Keep(RESULT),)
    assert ops.Dot.keeps_for(5) == (Keep(0, 2), Keep(1, 3), Keep(2, 0), Keep(3, 1))  # not the bias
    w = [mg.Value(2.0, requires_grad=True), mg.Value(3.0)]
    x = [mg.Value(4.0), mg.Value(5.0, requires_grad=True)]
    node = mg.dot(w, x, 1.0).grad_fn
    # w0 needs a gradient: x0 kept; x1 needs one: w1 kept; w1 and x0 need none: nothing for them
    assert node.saved == (None, w[1], x[0], None)


def test_a_custom_function_keeps_what_its_forward_saved() -> None:
    class Cube(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

    x = mg.Value(2.0, requires_grad=True)
    y = Cube.apply(x)
    assert Cube.keeps is None and y.grad_fn.saved == (x,)
    y.backward()
    assert x.grad == 12.0
