"""Tests for micrograd2.nn.utils.clip_grad_norm_: PyTorch's clipping (PYTORCH_TRUTH E14).

Compared with torch on the same Linear(3,4)-Tanh-Linear(4,1) network (float64), and
checked on E14's own numbers: a total norm of 76.3775 scaled by 1 / (76.3775 + 1e-6).
"""
from __future__ import annotations

import math
import random

import pytest

import micrograd2 as mg
from micrograd2.nn import Layer
from micrograd2.nn.functional import mse_loss
from micrograd2.nn.utils import clip_grad_norm_

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75]]
Y = [10.0, -8.0, 12.0]  # far from the outputs: large gradients


def net_with_grads(seed: int = 0):
    rng = random.Random(seed)
    l1, l2 = Layer(3, 4, activation="tanh", rng=rng), Layer(4, 1, nonlin=False, rng=rng)
    params = l1.parameters() + l2.parameters()
    mse_loss([l2(l1(x)) for x in X], Y).backward()
    return l1, l2, params


def torch_grads_and_norm(l1, l2, max_norm: float):
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).double()
    with torch.no_grad():
        for linear, layer in ((model[0], l1), (model[2], l2)):
            linear.weight.copy_(torch.tensor([[w.data for w in n.w] for n in layer.neurons], dtype=torch.float64))
            linear.bias.copy_(torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64))
    out = model(torch.tensor(X, dtype=torch.float64))
    torch.nn.functional.mse_loss(out, torch.tensor(Y, dtype=torch.float64).unsqueeze(1)).backward()
    before = [g for linear in (model[0], model[2]) for g in _ours_order(linear, grad=True)]
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm, foreach=False)
    after = [g for linear in (model[0], model[2]) for g in _ours_order(linear, grad=True)]
    return before, norm.item(), after


def _ours_order(linear, grad: bool) -> list[float]:
    w = linear.weight.grad if grad else linear.weight
    b = linear.bias.grad if grad else linear.bias
    out: list[float] = []
    for j in range(linear.out_features):
        out += w[j].tolist() + [b[j].item()]
    return out


def test_clip_grad_norm_matches_torch_on_the_same_network() -> None:
    l1, l2, params = net_with_grads()
    before, torch_norm, torch_after = torch_grads_and_norm(l1, l2, max_norm=1.0)
    assert max(abs(p.grad - g) for p, g in zip(params, before)) < 1e-12
    norm = clip_grad_norm_(params, max_norm=1.0)
    assert norm == pytest.approx(torch_norm, rel=1e-14, abs=0)
    assert norm > 1.0  # it did clip
    assert max(abs(p.grad - g) for p, g in zip(params, torch_after)) < 1e-14
    assert math.sqrt(sum(p.grad**2 for p in params)) == pytest.approx(1.0, abs=1e-6)


def test_it_returns_the_total_norm_before_clipping_and_scales_by_max_norm_over_norm_plus_1e_6() -> None:
    """E14: norm 76.3775 -> scale 0.0130928578 = 1 / (76.3775 + 1e-6); a second call returns ~1."""
    p = mg.Value(0.0, requires_grad=True)
    p.grad = 76.3775
    assert clip_grad_norm_([p], max_norm=1.0) == 76.3775
    assert p.grad == pytest.approx(76.3775 / (76.3775 + 1e-6), rel=1e-15)
    assert 1.0 / (76.3775 + 1e-6) == pytest.approx(0.0130928578, rel=1e-6)  # E14 printed the norm rounded
    clipped = p.grad
    assert clip_grad_norm_([p], max_norm=100.0) == clipped  # below max_norm: untouched
    assert p.grad == clipped


def test_the_norm_is_over_all_gradients_together() -> None:
    a, b = mg.Value(0.0, requires_grad=True), mg.Value(0.0, requires_grad=True)
    a.grad, b.grad = 3.0, 4.0
    assert clip_grad_norm_([a, b], max_norm=1.0) == 5.0
    assert (a.grad, b.grad) == pytest.approx((0.6, 0.8), rel=1e-6)


def test_a_nan_gradient_gives_a_nan_norm_and_nan_gradients() -> None:
    a, b = mg.Value(0.0, requires_grad=True), mg.Value(0.0, requires_grad=True)
    a.grad, b.grad = math.nan, 1.0
    assert math.isnan(clip_grad_norm_([a, b], 1.0))
    assert math.isnan(a.grad) and math.isnan(b.grad)  # E14: grads get scaled by nan


def test_an_inf_gradient_gives_an_inf_norm() -> None:
    a, b = mg.Value(0.0, requires_grad=True), mg.Value(0.0, requires_grad=True)
    a.grad, b.grad = math.inf, 1.0
    assert clip_grad_norm_([a, b], 1.0) == math.inf
    assert b.grad == 0.0


def test_error_if_nonfinite_raises_pytorchs_message() -> None:
    a = mg.Value(0.0, requires_grad=True)
    a.grad = math.nan
    with pytest.raises(RuntimeError) as info:
        clip_grad_norm_([a], 1.0, error_if_nonfinite=True)
    assert str(info.value).startswith(
        "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. "
        "To disable this error and scale the gradients by the non-finite norm anyway, set "
        "`error_if_nonfinite=False`"
    )
    assert "What to do:" in str(info.value)
    assert math.isnan(a.grad)  # untouched


def test_parameters_without_a_gradient_are_skipped_and_no_gradients_give_zero() -> None:
    a, b = mg.Value(0.0, requires_grad=True), mg.Value(0.0, requires_grad=True)
    assert clip_grad_norm_([a, b], 1.0) == 0.0
    a.grad = 2.0
    assert clip_grad_norm_([a, b], 1.0) == 2.0 and b.grad is None


def test_a_single_value_is_accepted_like_a_single_tensor() -> None:
    a = mg.Value(0.0, requires_grad=True)
    a.grad = -3.0
    assert clip_grad_norm_(a, 1.5) == 3.0
    assert a.grad == pytest.approx(-1.5, rel=1e-6)


def test_clipped_gradients_keep_their_dtype() -> None:
    a = mg.Value(0.0, dtype="float16", requires_grad=True)
    a.grad = 1000.0
    clip_grad_norm_([a], 1.0)
    assert a.grad == float(__import__("numpy").float16(1000.0 / (1000.0 + 1e-6)))


def _with_grads(*grads: float) -> list[mg.Value]:
    ps = [mg.Value(0.0, requires_grad=True) for _ in grads]
    for p, g in zip(ps, grads):
        p.grad = g
    return ps


@pytest.mark.parametrize("norm_type, expected", [(1.0, 7.0), (2.0, 5.0), (math.inf, 4.0), (3.0, 91.0 ** (1 / 3))])
def test_norm_type_is_the_third_argument(norm_type: float, expected: float) -> None:
    ps = _with_grads(3.0, -4.0)
    assert clip_grad_norm_(ps, 100.0, norm_type) == pytest.approx(expected, rel=1e-15)
    assert [p.grad for p in ps] == [3.0, -4.0]  # below max_norm: untouched


def test_error_if_nonfinite_names_the_norm_type() -> None:
    with pytest.raises(RuntimeError, match="total norm of order inf for gradients"):
        clip_grad_norm_(_with_grads(1.0, math.inf), 1.0, math.inf, True)
    assert math.isnan(clip_grad_norm_(_with_grads(1.0, math.nan), 1.0, math.inf))


def test_tensor_gradients_with_each_norm_type() -> None:
    p = mg.tensor([3.0, -4.0], dtype="float64", requires_grad=True)
    for norm_type, expected in ((1.0, 7.0), (math.inf, 4.0)):
        p.grad = mg.tensor([3.0, -4.0], dtype="float64")
        assert clip_grad_norm_([p], 1.0, norm_type) == expected
        assert p.grad.tolist() == pytest.approx([3.0 / expected, -4.0 / expected], rel=1e-6)
