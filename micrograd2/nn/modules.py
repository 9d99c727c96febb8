"""``Module``, ``Neuron``, ``Layer`` and ``MLP`` on the scalar engine, as in micrograd.

A ``Neuron`` computes ``mg.dot(w, x, b)``: one ``DotBackward0`` node per neuron.
``parameters()`` lists them in micrograd's order (layer by layer, neuron by
neuron, its weights then its bias), so micrograd's demo code runs unchanged.
"""
from __future__ import annotations

import random
from typing import Any, Iterator, Sequence

from ..optim import zero_grad
from ..scalar import Value, dot

ACTIVATIONS = ("relu", "tanh", "sigmoid", "linear")
_NAMES = {"relu": "ReLU", "tanh": "Tanh", "sigmoid": "Sigmoid", "linear": "Linear"}  # micrograd's repr


class Module:
    """Something with parameters: ``parameters()``, ``zero_grad()`` and ``__call__``.

    As ``torch.nn.Module``, it finds what is set as an attribute: its ``mg.nn.Parameter`` objects first,
    then each sub-module's parameters, in the order they were set.  (``Neuron``, ``Layer`` and
    ``MLP`` list their own, in micrograd's order.)"""

    def parameters(self) -> list[Any]:
        return [p for _, p in self.named_parameters()]

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad``: ``None`` by default (PyTorch's default), or 0."""
        zero_grad(self.parameters(), set_to_none)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        """Set an attribute; over a registered ``Parameter`` only another Parameter or ``None``
        (PyTorch's ``TypeError``: a plain Tensor there would drop out of ``parameters()``)."""
        if value is not None and _is_parameter(vars(self).get(name)) and not _is_parameter(value):
            raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                            "(mg.nn.Parameter or None expected)\n"
                            f"What to do: assign mg.nn.Parameter(value), or change it in place under "
                            f"mg.no_grad() (self.{name}.copy_(value)).")
        object.__setattr__(self, name, value)

    def named_parameters(self) -> Iterator[tuple[str, Any]]:
        """``(name, parameter)`` pairs, each parameter once: ``"l1.weight"`` for the ``weight`` of
        the sub-module set as ``self.l1``; a module that lists its own names each by its label."""
        seen: set[int] = set()
        todo: list[tuple[str, Module]] = [("", self)]
        while todo:  # (a stack, not recursion: a sub-module's parameters come before the next one's)
            prefix, module = todo.pop()
            if type(module).parameters is not Module.parameters:  # it lists its own
                found = [(p.label or f"param{i}", p) for i, p in enumerate(module.parameters())]
                children: list[tuple[str, Module]] = []
            else:
                found = [(name, v) for name, v in vars(module).items() if _is_parameter(v)]
                children = [(name, v) for name, v in vars(module).items() if isinstance(v, Module)]
            for name, p in found:
                if id(p) not in seen:
                    seen.add(id(p))
                    yield prefix + name, p
            todo += [(f"{prefix}{name}.", child) for name, child in reversed(children)]


def _is_parameter(value: object) -> bool:
    """Is ``value`` an ``mg.nn.Parameter``?  (Without importing it: that would import NumPy.)"""
    return any(c.__name__ == "Parameter" and c.__module__ == "micrograd2.nn.parameter"
               for c in type(value).__mro__)


class ReLU(Module):
    """``max(x, 0)`` as a module (``torch.nn.ReLU``): for a Value or a Tensor."""

    def forward(self, x: Any) -> Any:
        return x.relu()

    def __repr__(self) -> str:
        return "ReLU()"


def _check_activation(activation: str) -> str:
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    return activation


class Neuron(Module):
    """``act(Σ wᵢxᵢ + b)`` with weights uniform in [-1, 1] and bias 0."""

    def __init__(self, nin: int, nonlin: bool = True, activation: str = "relu",
                 rng: random.Random | None = None, name: str = "") -> None:
        uniform = (rng or random).uniform
        self.w = [Value(uniform(-1, 1), requires_grad=True, label=f"{name}w[{i}]") for i in range(nin)]
        self.b = Value(0.0, requires_grad=True, label=f"{name}b")
        self.nonlin = nonlin
        self.activation = _check_activation(activation)
        self.name = name.removesuffix(".")  # "l1.n0": what its output is called (NOTE [Named outputs])

    def forward(self, x: Sequence[Any]) -> Value:
        if len(x) != len(self.w):
            raise ValueError(f"this Neuron takes {len(self.w)} inputs, got {len(x)}")
        out = dot(self.w, x, self.b)
        if self.nonlin and self.activation != "linear":
            out = getattr(out, self.activation)()
        if self.name:
            out.label = self.name
        return out

    # NOTE [Named outputs]: a neuron of an MLP names its output after itself ("l1.n0", as its
    # parameters are "l1.n0.w[0]"), so a traced MLP's narration uses names found in the code.

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        kind = _NAMES[self.activation] if self.nonlin else "Linear"
        return f"{kind}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons reading the same ``nin`` inputs."""

    def __init__(self, nin: int, nout: int, nonlin: bool = True, activation: str = "relu",
                 rng: random.Random | None = None, name: str = "") -> None:
        self.neurons = [Neuron(nin, nonlin, activation, rng, name=f"{name}n{j}.") for j in range(nout)]

    def forward(self, x: Sequence[Any]) -> Any:
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: ``MLP(2, [16, 16, 1])`` has ReLU hidden layers and a linear output."""

    def __init__(self, nin: int, nouts: Sequence[int], activation: str = "relu",
                 seed: int | None = None) -> None:
        rng = random.Random(seed) if seed is not None else None
        sizes = [nin, *nouts]
        self.layers = [
            Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1, activation=activation, rng=rng,
                  name=f"l{i}.")
            for i in range(len(nouts))
        ]

    def forward(self, x: Sequence[Any]) -> Any:
        for layer in self.layers:
            x = layer(x)
            if not isinstance(x, list):
                x = [x] if layer is not self.layers[-1] else x
        return x

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
