"""``micrograd2.tensors.arithmetic``: the ops behind ``+ - * / **``, the comparisons and the in-place updates.

It proves that integer Tensors promote to float only with floats, that comparisons give bool Tensors without
history (NaN compares as IEEE says), and that the in-place ops (``+=``, ``add_``, ``mul_``, ``zero_``) change the
Tensor itself, bump its version, keep what backward needs (the old value), scale by ``alpha``, keep an integer
Tensor's dtype (or refuse, as PyTorch does) and record PyTorch's nodes.  Every op's values and gradients against
torch and central differences are in ``test_tensor_ops.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg


def test_in_place_under_no_grad_is_allowed_and_bumps_the_version() -> None:
    x = mg.tensor([1.0], requires_grad=True)
    data = x.data
    with mg.no_grad():
        x.add_(1)
        x -= 0.5
        x *= 4
    assert x.tolist() == [6.0] and x._version == 3 and x.is_leaf and x.data is data  # E7


def test_plus_equals_is_in_place_as_in_pytorch() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    alias = a
    a += 1
    assert a is alias and a.grad_fn.name() == "AddBackward0" and a._version == 1
    (a * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_in_place_mul_keeps_the_old_value_for_backward() -> None:
    x = mg.tensor([2.0], requires_grad=True)
    w = mg.tensor([3.0], requires_grad=True)
    a = x * 1
    a.mul_(w)  # MulBackward0 needs a's value before the multiplication for w's gradient
    a.sum().backward()
    assert w.grad.tolist() == [2.0] and x.grad.tolist() == [3.0]


def test_zero_on_a_non_leaf_cuts_the_gradient() -> None:
    x = mg.tensor([1.0], requires_grad=True)
    a = x * 2
    a.zero_()
    assert a.grad_fn.name() == "ZeroBackward0" and a.tolist() == [0.0]
    (a + x).sum().backward()
    assert x.grad.tolist() == [1.0]  # only the "+ x" path: zero_ sent 0 to x * 2


def test_integer_tensors_promote_to_float_with_floats() -> None:
    i = mg.tensor([1, 2], dtype="int64")
    assert (i * 2).dtype == "int64"
    assert (i * 0.5).dtype == "float32" and (i * 0.5).tolist() == [0.5, 1.0]
    assert (i / 2).dtype == "float32"
    assert (i + mg.tensor([0.5, 0.5])).dtype == "float32"


def test_comparisons_give_bool_tensors_without_history() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert (x > 2).tolist() == [False, False, True]
    assert (x <= 2).tolist() == [True, True, False]
    assert (x == mg.tensor([1.0, 0.0, 3.0])).dtype == "bool"
    assert (x != 2).tolist() == [True, False, True]
    assert (x >= 2).grad_fn is None and (x >= 2).tolist() == [False, True, True]
    assert (x < 2).tolist() == [True, False, False]
    nan = mg.tensor([float("nan")])
    assert not (nan >= 0).item() and not (nan <= 0).item() and (nan != nan).item()


def test_an_in_place_op_keeps_an_integer_tensors_dtype_or_refuses() -> None:
    for update in (lambda t: t.add_(0.5), lambda t: t.div_(2)):
        with pytest.raises(RuntimeError, match="(?s)result type Float can't be cast to the desired output type Long"
                                               ".*What to do"):
            update(mg.tensor([1, 2], dtype="int64"))
    doubled = mg.tensor([1, 2], dtype="int64").mul_(2)
    assert doubled.tolist() == [2, 4] and doubled.dtype == "int64"


def test_alpha_scales_the_other_operand_with_grad_and_without() -> None:
    x = mg.tensor([1.0, 2.0])
    x.add_(mg.tensor([1.0, 1.0]), alpha=3)
    x.sub_(1.0, alpha=2)
    assert x.tolist() == [2.0, 3.0] and x._version == 2
    w = mg.tensor([1.0], requires_grad=True)
    a = w * 1
    a.add_(w, alpha=3)
    assert a.grad_fn.name() == "AddBackward0"
    a.sum().backward()
    assert w.grad.tolist() == [4.0]  # 1 through w * 1, 3 through alpha · w


def test_add_and_sub_with_alpha_record_one_node_that_keeps_alpha() -> None:
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([5.0], requires_grad=True)  # broadcast: its gradient is summed back
    for op, sign in (("add_", 1.0), ("sub_", -1.0)):
        w.grad = b.grad = None
        x = w * 1.0
        mul_node = x.grad_fn
        getattr(x, op)(b, alpha=2.5)
        assert x.grad_fn.name() == ("AddBackward0" if op == "add_" else "SubBackward0")
        assert x.grad_fn.alpha == 2.5
        (first, _), (second, _) = x.grad_fn.next_functions  # two edges, as PyTorch's
        assert first is mul_node and second.name() == "AccumulateGrad"  # b's own edge: no MulBackward0
        (x * x).sum().backward()
        expected = [1.0 + sign * 2.5 * 5.0, 2.0 + sign * 2.5 * 5.0]
        assert w.grad.tolist() == [2 * e for e in expected]
        assert b.grad.tolist() == [sign * 2.5 * sum(2 * e for e in expected)]


def test_add_with_alpha_rounds_once_as_a_fused_multiply_add() -> None:
    """x + alpha·y in float32: the float64 sum, rounded once; the same with grad, without, and on a view."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(50_000).astype(np.float32) for _ in range(2))
    alpha = -0.0123
    once = (a.astype(np.float64) + float(np.float32(alpha)) * b.astype(np.float64)).astype(np.float32)
    assert (once != a + np.float32(alpha) * b).any()  # two roundings differ somewhere
    with mg.no_grad():
        fast = mg.tensor(a.copy()).add_(mg.tensor(b), alpha=alpha)
        base = mg.tensor(np.concatenate([[0.0], a]).astype(np.float32))
        base[1:].add_(mg.tensor(b), alpha=alpha)
    recorded = mg.tensor(a.copy(), requires_grad=True).clone().add_(mg.tensor(b), alpha=alpha)
    for result in (fast.numpy(), base.numpy()[1:], recorded.detach().numpy()):
        assert (result.view(np.uint32) == once.view(np.uint32)).all()
