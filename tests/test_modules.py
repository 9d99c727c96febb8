"""``micrograd2.nn.modules``: micrograd's ``Module``, ``Neuron``, ``Layer`` and ``MLP`` on the scalar engine.

It proves that the MLP has micrograd 0.1.0's layout, initialisation (drawn from ``random`` as micrograd does, or
seeded), parameter order, repr, outputs and gradients, that micrograd's demo loop runs with only its imports
changed, that a Neuron is one ``DotBackward0`` node (weights, then inputs, then bias) followed by its activation,
and that ``zero_grad`` and ``named_parameters`` work as PyTorch's.
"""
from __future__ import annotations

import random

import pytest

import micrograd2 as mg
from micrograd2.nn import MLP, Layer, Module, Neuron


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
