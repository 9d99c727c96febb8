"""``Linear`` and ``TensorMLP``: the Tensor engine's layers, PyTorch's ``nn.Linear`` and an MLP of them.

``Linear(nin, nout)`` holds ``.weight`` of shape ``(nout, nin)`` and ``.bias`` of
shape ``(nout,)``, both ``mg.nn.Parameter`` drawn from U(−1/√nin, 1/√nin) as PyTorch initialises
them; on a batch it computes ``x @ weight.t() + bias`` as one ``AddmmBackward0``.
``TensorMLP.from_mlp(mlp)`` copies the weights of a scalar ``mg.nn.MLP``, so the
two engines can be checked against each other.

NumPy is imported when a layer is made, not when ``mg.nn`` is imported.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

from .modules import ACTIVATIONS, MLP, Module

if TYPE_CHECKING:  # (imported when a layer is made: ``import micrograd2.nn`` stays free of NumPy)
    from ..tensors import Tensor

__all__ = ["Linear", "TensorMLP"]


class Linear(Module):
    """``y = x @ weight.t() + bias``, weights U(−1/√nin, 1/√nin) as ``torch.nn.Linear`` (drawn from
    ``mg.manual_seed``'s generator, unless ``seed`` or ``rng`` is given)."""

    def __init__(self, nin: int, nout: int, bias: bool = True, dtype: str = "float32", device: str = "cpu",
                 seed: int | None = None, rng: Any = None) -> None:
        import numpy as np

        from ..tensors import tensor
        from ..tensors.creation import generator
        from .parameter import Parameter

        rng = rng if rng is not None else np.random.default_rng(seed) if seed is not None else generator()
        bound = 1.0 / math.sqrt(nin) if nin else 0.0
        self.in_features, self.out_features = nin, nout
        self.weight = Parameter(tensor(rng.uniform(-bound, bound, (nout, nin)), dtype=dtype, device=device))
        self.weight.label = "weight"
        self.bias = None
        if bias:
            self.bias = Parameter(tensor(rng.uniform(-bound, bound, nout), dtype=dtype, device=device))
            self.bias.label = "bias"

    def forward(self, x: Tensor) -> Tensor:
        from ..tensors.functional import linear

        return linear(x, self.weight, self.bias)

    def parameters(self) -> list[Tensor]:
        return [p for p in (self.weight, self.bias) if p is not None]  # (either may be set to None)

    def __repr__(self) -> str:
        return f"Linear(in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None})"


class TensorMLP(Module):
    """An MLP of ``Linear`` layers: ``TensorMLP(2, [16, 16, 1])`` has ``activation`` (ReLU) between the
    layers and a linear output, like the scalar ``MLP``; it takes a batch ``(N, nin)``."""

    def __init__(self, nin: int, nouts: Sequence[int], activation: str = "relu", dtype: str = "float32",
                 device: str = "cpu", seed: int | None = None) -> None:
        import numpy as np

        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        from ..tensors.creation import generator

        rng = np.random.default_rng(seed) if seed is not None else generator()
        sizes = [nin, *nouts]
        self.activation = activation
        self.layers = [Linear(sizes[i], sizes[i + 1], dtype=dtype, device=device, rng=rng)
                       for i in range(len(nouts))]
        for i, layer in enumerate(self.layers):
            layer.weight.label, layer.bias.label = f"l{i}.weight", f"l{i}.bias"  # type: ignore[union-attr]

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers[:-1]:
            x = layer(x)
            if self.activation != "linear":
                x = getattr(x, self.activation)()
        return self.layers[-1](x)

    def parameters(self) -> list[Tensor]:
        return [p for layer in self.layers for p in layer.parameters()]

    @classmethod
    def from_mlp(cls, mlp: MLP, dtype: str = "float64", device: str = "cpu") -> TensorMLP:
        """A TensorMLP with the same weights as the scalar ``mlp`` (layer i's neuron j becomes row j of
        ``layers[i].weight``; its bias, ``bias[j]``)."""
        from ..tensors import tensor
        from .parameter import Parameter

        sizes = [len(mlp.layers[0].neurons[0].w)] + [len(layer.neurons) for layer in mlp.layers]
        activation = next((n.activation for layer in mlp.layers for n in layer.neurons if n.nonlin), "relu")
        model = cls(sizes[0], sizes[1:], activation=activation, dtype=dtype, device=device, seed=0)
        for i, (layer, scalar_layer) in enumerate(zip(model.layers, mlp.layers)):
            rows = [[w.data for w in n.w] for n in scalar_layer.neurons]
            layer.weight = Parameter(tensor(rows, dtype=dtype, device=device))
            layer.bias = Parameter(tensor([n.b.data for n in scalar_layer.neurons], dtype=dtype, device=device))
            layer.weight.label, layer.bias.label = f"l{i}.weight", f"l{i}.bias"
        return model

    def __repr__(self) -> str:
        return f"TensorMLP of [{', '.join(str(layer) for layer in self.layers)}]"
