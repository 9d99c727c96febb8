"""``mg.nn``: layers and losses for both engines (micrograd's ``Neuron``/``Layer``/``MLP``, PyTorch's names)."""
from __future__ import annotations

from . import functional, utils
from .linear import Linear, TensorMLP
from .modules import MLP, Layer, Module, Neuron

__all__ = ["MLP", "Layer", "Linear", "Module", "Neuron", "TensorMLP", "functional", "utils"]
