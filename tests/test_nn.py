"""Tests for micrograd2.nn: micrograd's Neuron/Layer/MLP (same weights, order, outputs and gradients
as micrograd 0.1.0) and the losses of nn.functional (values and gradients as torch, Tensor dispatch)."""
from __future__ import annotations

import math
import random
import sys
import types

import pytest

import micrograd2 as mg
from micrograd2.nn import MLP, Layer, Module, Neuron
from micrograd2.nn.functional import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    hinge_loss,
    log_softmax,
    mse_loss,
)


# -- modules ------------------------------------------------------------------------------------------
def test_mlp_has_micrographs_layout_and_parameter_order() -> None:
    model = MLP(2, [16, 16, 1])
    params = model.parameters()
    assert len(params) == 16 * 3 + 16 * 17 + 17 == 337
    first = model.layers[0].neurons[0]
    assert params[:3] == [*first.w, first.b]
    assert all(p.is_leaf and p.requires_grad and p.dtype == "float64" for p in params)
    assert all(-1 <= n.w[i].data <= 1 for layer in model.layers for n in layer.neurons for i in range(len(n.w)))
    assert all(n.b.data == 0.0 for layer in model.layers for n in layer.neurons)


def test_hidden_layers_are_relu_by_default_and_the_output_is_linear() -> None:
    model = MLP(2, [3, 1])
    assert repr(model) == "MLP of [Layer of [ReLUNeuron(2), ReLUNeuron(2), ReLUNeuron(2)], Layer of [LinearNeuron(3)]]"
    assert model([1.0, 2.0]).grad_fn.name() == "DotBackward0"  # linear output
    tanh = MLP(2, [3, 1], activation="tanh")
    assert tanh.layers[0]([1.0, 2.0])[0].grad_fn.name() == "TanhBackward0"


def test_a_seed_makes_initialisation_reproducible() -> None:
    a, b, c = MLP(3, [4, 1], seed=7), MLP(3, [4, 1], seed=7), MLP(3, [4, 1], seed=8)
    assert [p.data for p in a.parameters()] == [p.data for p in b.parameters()]
    assert [p.data for p in a.parameters()] != [p.data for p in c.parameters()]


def test_without_a_seed_it_draws_from_random_like_micrograd() -> None:
    micrograd_nn = pytest.importorskip("micrograd.nn")
    random.seed(1337)
    theirs = micrograd_nn.MLP(2, [16, 16, 1])
    random.seed(1337)
    ours = MLP(2, [16, 16, 1])
    assert [p.data for p in ours.parameters()] == [p.data for p in theirs.parameters()]
    assert repr(ours) == repr(theirs)


def test_outputs_and_gradients_equal_micrograds() -> None:
    micrograd_nn = pytest.importorskip("micrograd.nn")
    engine = pytest.importorskip("micrograd.engine")
    random.seed(3)
    theirs = micrograd_nn.MLP(3, [4, 4, 1])
    random.seed(3)
    ours = MLP(3, [4, 4, 1])
    xs = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75]]
    their_loss = sum((theirs([engine.Value(v) for v in x]) - 1) ** 2 for x in xs)
    our_loss = sum((ours([mg.Value(v) for v in x]) - 1) ** 2 for x in xs)
    assert our_loss.data == pytest.approx(their_loss.data, rel=1e-13)
    their_loss.backward()
    our_loss.backward()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert p.grad == pytest.approx(q.grad, rel=1e-12, abs=1e-14)


def test_micrograds_demo_loop_runs_with_only_the_imports_changed() -> None:
    from micrograd2 import Value  # was: from micrograd.engine import Value

    random.seed(1337)
    X = [[random.uniform(-1, 1), random.uniform(-1, 1)] for _ in range(20)]
    y = [1 if a * b > 0 else -1 for a, b in X]
    model = MLP(2, [16, 16, 1])  # 2-layer neural network

    def loss():
        inputs = [list(map(Value, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        alpha = 1e-4
        reg_loss = alpha * sum(p * p for p in model.parameters())
        total_loss = data_loss + reg_loss
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(y, scores)]
        return total_loss, sum(accuracy) / len(accuracy)

    first, _ = loss()
    for k in range(3):
        total_loss, acc = loss()
        model.zero_grad()
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        for p in model.parameters():
            p.data -= learning_rate * p.grad
    assert loss()[0].data < first.data


def test_a_neuron_is_one_dot_node_with_weights_then_inputs_then_bias() -> None:
    n = Neuron(2, nonlin=False)
    x = [mg.Value(1.0, requires_grad=True), mg.Value(2.0, requires_grad=True)]
    out = n(x)
    node = out.grad_fn
    assert node.name() == "DotBackward0"
    leaves = [nxt.variable for nxt, _ in node.next_functions]
    assert leaves == [*n.w, *x, n.b]


@pytest.mark.parametrize(("activation", "node"), [("relu", "ReluBackward0"), ("tanh", "TanhBackward0"),
                                                  ("sigmoid", "SigmoidBackward0")])
def test_neuron_activations(activation, node) -> None:
    assert Neuron(2, activation=activation)([1.0, -1.0]).grad_fn.name() == node


def test_bad_activation_and_wrong_input_size_are_value_errors() -> None:
    with pytest.raises(ValueError, match="activation must be one of"):
        Neuron(2, activation="gelu")
    with pytest.raises(ValueError, match="takes 2 inputs, got 3"):
        Neuron(2)([1.0, 2.0, 3.0])


def test_module_zero_grad_sets_none_or_zero() -> None:
    layer = Layer(2, 2)
    mg.sum(layer([1.0, 2.0])).backward()
    assert all(p.grad is not None for p in layer.parameters())
    layer.zero_grad(set_to_none=False)
    assert all(p.grad == 0.0 for p in layer.parameters())
    layer.zero_grad()
    assert all(p.grad is None for p in layer.parameters())


def test_named_parameters_use_labels() -> None:
    names = [name for name, _ in MLP(2, [1]).named_parameters()]
    assert names == ["l0.n0.w[0]", "l0.n0.w[1]", "l0.n0.b"]
    assert Module().parameters() == []


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
    setattr(fake_functional, name, lambda *args: calls.append(args) or "tensor result")
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
