"""Value: construction, flags, repr, comparisons, identity, detach and in-place semantics."""
from __future__ import annotations

import math
import operator
from fractions import Fraction

import pytest

import micrograd2 as mg


@pytest.mark.parametrize("good", [3, 2.5, True, Fraction(1, 4)])
def test_value_accepts_any_real_number_and_stores_a_float(good) -> None:
    v = mg.Value(good)
    assert type(v.data) is float and v.data == float(good)


def test_value_accepts_numpy_scalars() -> None:
    np = pytest.importorskip("numpy")
    assert mg.Value(np.float32(1.5)).data == 1.5 and mg.Value(np.int64(2)).data == 2.0


@pytest.mark.parametrize("bad, name", [("abc", "str"), (1 + 2j, "complex"), (None, "NoneType"), ([1.0], "list")])
def test_value_rejects_non_real_data_with_a_type_error_naming_the_type(bad, name) -> None:
    with pytest.raises(TypeError, match=name):
        mg.Value(bad)


def test_value_of_a_value_is_a_type_error_with_a_hint() -> None:
    with pytest.raises(TypeError, match="detach"):
        mg.Value(mg.Value(1.0))


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.sub, operator.truediv, operator.pow])
def test_an_op_with_an_unsupported_type_is_a_type_error(op) -> None:
    with pytest.raises(TypeError, match="Value"):
        op(mg.Value(1.0), "x")
    with pytest.raises(TypeError, match="Value"):
        op(None, mg.Value(1.0))


def test_user_made_values_are_leaves_and_results_carry_grad_fn() -> None:
    x = mg.Value(2.0, requires_grad=True)
    c = mg.Value(3.0)
    y = x * c
    assert x.is_leaf and c.is_leaf and not y.is_leaf
    assert y.requires_grad and y.grad_fn.name() == "MulBackward0"
    z = c * 2
    assert z.is_leaf and not z.requires_grad and z.grad_fn is None  # D13


def test_repr_shows_data_grad_fn_and_label() -> None:
    assert repr(mg.Value(2.0, requires_grad=True, label="x")) == "Value(2.0, requires_grad=True, label='x')"
    y = mg.Value(2.0, requires_grad=True) * 3
    assert repr(y) == "Value(6.0, grad_fn=<MulBackward0>)"
    assert repr(mg.Value(1.0, dtype="float16")) == "Value(1.0, dtype=float16)"
    assert f"{mg.Value(1 / 3):.3f}" == "0.333"


def test_comparisons_return_plain_bools_and_equality_is_identity() -> None:
    a, b = mg.Value(1.0), mg.Value(1.0)
    assert (a < 2) is True and (a >= b) is True and (a > b) is False
    assert a != b and a == a
    assert len({a, b}) == 2


def test_there_is_no_iadd_so_plus_equals_rebinds() -> None:
    v = mg.Value(1.0, requires_grad=True)
    original = v
    v += 1
    assert v is not original and original.data == 1.0 and v.grad_fn.name() == "AddBackward0"


def test_item_and_float_give_the_number() -> None:
    v = mg.Value(2.5)
    assert v.item() == 2.5 and float(v) == 2.5


def test_requires_grad_can_be_set_on_leaves_only() -> None:
    x = mg.Value(1.0)
    x.requires_grad = True
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad = False


# -- detach (E5, E6) -----------------------------------------------------------------------------
def test_detach_is_a_leaf_without_grad_that_shares_data_and_version() -> None:
    x = mg.Value(2.0, requires_grad=True)
    d = x.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    d.add_(1)
    assert x.data == 3.0 and x._version == 1 and d._version == 1
    with mg.no_grad():
        x.add_(1)
    assert d.data == 4.0 and d._version == 2


def test_in_place_change_through_detach_of_a_saved_value_fails_at_backward() -> None:
    x = mg.Value(2.0, requires_grad=True)
    z = x * x
    x.detach().add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_in_place_change_through_detach_of_an_unsaved_value_is_fine() -> None:
    x = mg.Value(2.0, requires_grad=True)
    z = x * 3
    x.detach().add_(1)
    z.backward()
    assert x.grad == 3.0


def test_the_data_trap_gives_silently_wrong_gradients() -> None:
    x = mg.Value(3.0, requires_grad=True)
    z = x * x  # saves x twice; the gradient should be 2·3 = 6
    x.data = x.data + 1  # bypasses autograd: no version bump, no error
    z.backward()
    assert x.grad == 8.0


def test_a_detached_branch_contributes_nothing() -> None:
    x = mg.Value(2.0, requires_grad=True)
    z = x.detach() * 3 + x * 5
    z.backward()
    assert x.grad == 5.0


# -- in place (D2, D15, E7) -----------------------------------------------------------------------
def test_in_place_on_a_leaf_that_requires_grad_fails_at_the_call() -> None:
    x = mg.Value(2.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    assert x.data == 2.0 and x._version == 0


def test_in_place_on_a_leaf_under_no_grad_is_allowed_and_bumps_version() -> None:
    x = mg.Value(2.0, requires_grad=True)
    with mg.no_grad():
        assert x.add_(1) is x
    assert x.data == 3.0 and x.is_leaf and x.requires_grad and x._version == 1


def test_in_place_on_a_saved_output_fails_at_backward_naming_the_op() -> None:
    a = mg.Value(0.5, requires_grad=True)
    b = a.exp()
    b.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of Exp, is at version"):  # PyTorch's words
        b.backward()


def test_in_place_on_a_saved_non_leaf_fails_at_backward() -> None:
    x = mg.Value(2.0, requires_grad=True)
    a = x + 0
    y = a * a
    a.mul_(2)
    assert a.grad_fn.name() == "MulBackward0"
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.backward()


def test_in_place_on_an_unsaved_non_leaf_records_history() -> None:
    x = mg.Value(2.0, requires_grad=True)
    a = x + 0
    a.add_(1)
    assert a.grad_fn.name() == "AddBackward0"
    (a * 3).backward()
    assert x.grad == 3.0


def test_each_in_place_op_computes_the_right_value() -> None:
    with mg.no_grad():
        v = mg.Value(6.0)
        assert v.add_(2).data == 8.0 and v.sub_(1).data == 7.0
        assert v.mul_(2).data == 14.0 and v.div_(7).data == 2.0 and v.zero_().data == 0.0
    assert v._version == 5


def test_zero_on_a_non_leaf_makes_zero_backward() -> None:
    x = mg.Value(2.0, requires_grad=True)
    a = x * 3
    a.zero_()
    assert a.grad_fn.name() == "ZeroBackward0"
    (a + x).backward()
    assert x.grad == 1.0


def test_bool_of_a_value_is_its_truth() -> None:
    assert bool(mg.Value(2.0)) and not bool(mg.Value(0.0))


def test_inf_and_nan_data_round_trip() -> None:
    assert math.isinf(mg.Value(math.inf).data) and math.isnan(mg.Value(math.nan).data)
