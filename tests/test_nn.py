"""Tests for ``micrograd2.nn.functional``: the losses on Values (values and gradients as torch) and their
dispatch to the Tensor engine's losses.  The Neuron/Layer/MLP tests are in ``test_modules.py``."""
from __future__ import annotations

import math
import sys
import types

import pytest

import micrograd2 as mg
from micrograd2.nn.functional import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    hinge_loss,
    log_softmax,
    mse_loss,
)


# -- losses ----------------------------------------------------------------------------------------------
def _values(xs, dtype="float64"):
    return [mg.Value(x, requires_grad=True, dtype=dtype) for x in xs]


PRED = [0.3, -1.2, 2.5, 0.8]
TARGET = [0.0, -1.0, 2.0, 1.5]


def test_mse_loss_and_its_gradient_match_torch() -> None:
    torch = pytest.importorskip("torch")
    ps = _values(PRED)
    loss = mse_loss(ps, TARGET)
    tp = torch.tensor(PRED, dtype=torch.float64, requires_grad=True)
    tl = torch.nn.functional.mse_loss(tp, torch.tensor(TARGET, dtype=torch.float64))
    loss.backward()
    tl.backward()
    assert loss.data == pytest.approx(tl.item(), rel=1e-15)
    assert [p.grad for p in ps] == pytest.approx(tp.grad.tolist(), rel=1e-15)


def test_binary_cross_entropy_matches_torch_including_the_clamp_at_minus_100() -> None:
    torch = pytest.importorskip("torch")
    probs, targets = [0.1, 0.7, 0.99, 0.5], [0.0, 1.0, 1.0, 0.0]
    ps = _values(probs)
    loss = binary_cross_entropy(ps, targets)
    tp = torch.tensor(probs, dtype=torch.float64, requires_grad=True)
    tl = torch.nn.functional.binary_cross_entropy(tp, torch.tensor(targets, dtype=torch.float64))
    loss.backward()
    tl.backward()
    assert loss.data == pytest.approx(tl.item(), rel=1e-14)
    assert [p.grad for p in ps] == pytest.approx(tp.grad.tolist(), rel=1e-12)
    certain_and_wrong = binary_cross_entropy(mg.Value(0.0, requires_grad=True), 1.0)
    assert certain_and_wrong.data == 100.0  # log(0) clamped to -100, as torch
    assert torch.nn.functional.binary_cross_entropy(torch.tensor([0.0]), torch.tensor([1.0])).item() == 100.0


EXTREME_LOGITS = [-1e4, -100.0, -30.0, -2.0, 0.0, 0.5, 30.0, 100.0, 1e4]
LOGIT_TARGETS = [1.0, 0.0, 1.0, 0.25, 0.5, 1.0, 0.0, 1.0, 0.0]


def test_binary_cross_entropy_with_logits_matches_torch_for_extreme_logits() -> None:
    """Stable for any finite logit: e^±1e4 would overflow, log(σ(−100)) would be log(0) in float32."""
    torch = pytest.importorskip("torch")
    xs = _values(EXTREME_LOGITS)
    ys = _values(LOGIT_TARGETS)
    loss = binary_cross_entropy_with_logits(xs, ys)
    tx = torch.tensor(EXTREME_LOGITS, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(LOGIT_TARGETS, dtype=torch.float64, requires_grad=True)
    tl = torch.nn.functional.binary_cross_entropy_with_logits(tx, ty)
    loss.backward()
    tl.backward()
    assert math.isfinite(loss.data) and loss.data == pytest.approx(tl.item(), rel=1e-14)
    assert [x.grad for x in xs] == pytest.approx(tx.grad.tolist(), rel=1e-12, abs=1e-15)
    assert [y.grad for y in ys] == pytest.approx(ty.grad.tolist(), rel=1e-14)


def test_binary_cross_entropy_with_logits_in_float32_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    xs = [mg.Value(x, dtype="float32", requires_grad=True) for x in EXTREME_LOGITS]
    loss = binary_cross_entropy_with_logits(xs, LOGIT_TARGETS)
    tx = torch.tensor(EXTREME_LOGITS, requires_grad=True)
    tl = torch.nn.functional.binary_cross_entropy_with_logits(tx, torch.tensor(LOGIT_TARGETS))
    loss.backward()
    tl.backward()
    assert loss.dtype == "float32" and loss.data == pytest.approx(tl.item(), rel=1e-6)
    assert [x.grad for x in xs] == pytest.approx(tx.grad.tolist(), rel=1e-6, abs=1e-7)


def test_binary_cross_entropy_with_logits_is_bce_of_the_sigmoid() -> None:
    xs = _values([-1.5, 0.25, 2.0])
    direct = binary_cross_entropy([x.sigmoid() for x in xs], [0.0, 1.0, 1.0])
    assert binary_cross_entropy_with_logits(xs, [0.0, 1.0, 1.0]).data == pytest.approx(direct.data, rel=1e-14)
    assert binary_cross_entropy_with_logits(mg.Value(-200.0), 1.0).data == 200.0  # bce would clamp at 100


def test_hinge_loss_is_micrograds_max_margin_loss() -> None:
    scores = _values([2.0, 0.5, -0.25])
    loss = hinge_loss(scores, [1.0, -1.0, 1.0])
    assert loss.data == pytest.approx((0.0 + 1.5 + 1.25) / 3)
    loss.backward()
    assert [s.grad for s in scores] == pytest.approx([0.0, 1 / 3, -1 / 3])


def test_cross_entropy_and_log_softmax_match_torch() -> None:
    torch = pytest.importorskip("torch")
    logits = [[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]]
    targets = [1, 0]
    zs = [_values(row) for row in logits]
    loss = cross_entropy(zs, targets)
    tz = torch.tensor(logits, dtype=torch.float64, requires_grad=True)
    tl = torch.nn.functional.cross_entropy(tz, torch.tensor(targets))
    loss.backward()
    tl.backward()
    assert loss.data == pytest.approx(tl.item(), rel=1e-14)
    assert [z.grad for row in zs for z in row] == pytest.approx(tz.grad.flatten().tolist(), rel=1e-12, abs=1e-15)
    lsm = [v.data for v in log_softmax(_values(logits[0]))]
    assert lsm == pytest.approx(torch.log_softmax(torch.tensor(logits[0], dtype=torch.float64), 0).tolist())
    single = cross_entropy(_values(logits[0]), 1)
    assert single.data == pytest.approx(-lsm[1])


def test_cross_entropy_is_stable_for_large_logits() -> None:
    loss = cross_entropy(_values([1000.0, 0.0]), 0)
    assert loss.data == 0.0 and math.isfinite(loss.data)


@pytest.mark.parametrize("loss", [mse_loss, hinge_loss, binary_cross_entropy, binary_cross_entropy_with_logits])
def test_losses_refuse_sequences_of_different_lengths(loss) -> None:
    with pytest.raises(ValueError, match="same length"):
        loss(_values([0.5, 0.5]), [1.0])
    with pytest.raises(ValueError, match="at least one"):
        loss([], [])


def test_cross_entropy_errors() -> None:
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        cross_entropy(_values([1.0, 2.0]), 3)
    with pytest.raises(ValueError, match="one target class per sample"):
        cross_entropy([_values([1.0, 2.0])], [0, 1])


def test_single_values_are_accepted() -> None:
    assert mse_loss(mg.Value(3.0), 1.0).data == 4.0


@pytest.mark.parametrize("name", ["mse_loss", "hinge_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                  "cross_entropy", "log_softmax"])
def test_tensors_are_handed_to_the_tensor_engines_function_of_the_same_name(monkeypatch, name) -> None:
    import micrograd2.nn.functional as F

    class Tensor:  # stands in for mg.Tensor
        pass

    calls = []
    fake_tensors = types.ModuleType("micrograd2.tensors")
    fake_tensors.Tensor = Tensor  # type: ignore[attr-defined]
    fake_functional = types.ModuleType("micrograd2.tensors.functional")
    setattr(fake_functional, name, lambda *args, **kw: calls.append(args) or "tensor result")
    monkeypatch.setitem(sys.modules, "micrograd2.tensors", fake_tensors)
    monkeypatch.setitem(sys.modules, "micrograd2.tensors.functional", fake_functional)
    t, target = Tensor(), object()
    assert getattr(F, name)(t, target) == "tensor result"
    assert calls == [(t, target)]


def test_losses_take_their_inputs_by_name_on_either_engine() -> None:
    from micrograd2.nn import functional as F

    z = mg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    assert F.cross_entropy(logits=z, targets=[2]).grad_fn.name() == "NllLossBackward0"
    assert F.mse_loss(pred=mg.Value(3.0), target=1.0).data == 4.0
    assert F.log_softmax(z, dim=1).grad_fn.name() == "LogSoftmaxBackward0"
