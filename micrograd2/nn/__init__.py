"""``mg.nn``: layers and losses for both engines (micrograd's ``Neuron``/``Layer``/``MLP``, PyTorch's names).

``mg.nn.Parameter`` is imported on first use (it is a Tensor: NumPy comes with it)."""
from __future__ import annotations

from typing import Any

from . import functional, utils
from .linear import Linear, TensorMLP
from .modules import MLP, Layer, Module, Neuron, ReLU

__all__ = ["MLP", "Layer", "Linear", "Module", "Neuron", "Parameter", "ReLU", "TensorMLP", "functional",
           "utils"]


def __getattr__(name: str) -> Any:
    if name == "Parameter":
        from .parameter import Parameter

        return Parameter
    raise AttributeError(f"module 'micrograd2.nn' has no attribute {name!r}")
