"""``mg.nn``: layers and losses for both engines (micrograd's ``Neuron``/``Layer``/``MLP``, PyTorch's names)."""
from __future__ import annotations

from . import functional, utils
from .modules import MLP, Layer, Module, Neuron

__all__ = ["MLP", "Layer", "Module", "Neuron", "functional", "utils"]
