"""The one autograd core shared by the scalar and the vectorized engines (``mg.autograd``).

Nodes and saved values (``node``), the backward walk (``engine``), grad mode,
``Function``, anomaly detection, ``gradcheck`` and the event hook point.
"""
from __future__ import annotations

from typing import Any, Sequence

from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import run_backward
from .function import Function
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .node import AccumulateGrad, Node, gradient_edge
from .variable import Variable

__all__ = [
    "AccumulateGrad", "Function", "GradcheckError", "Node", "Variable", "backward", "detect_anomaly",
    "enable_grad", "grad", "gradcheck", "gradgradcheck", "gradient_edge", "inference_mode", "is_anomaly_enabled",
    "is_grad_enabled", "is_inference_mode_enabled", "no_grad", "set_detect_anomaly", "set_grad_enabled",
]


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, one per input, without touching ``.grad``.

    Floats (arrays), or Values (Tensors) with ``create_graph=True``; ``None`` for an
    unused input when ``allow_unused=True``.
    """
    outs = _as_tuple(outputs)
    seeds: Sequence[Any] = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    result = run_backward(outs, tuple(o._seed(g) for o, g in zip(outs, seeds)), retain_graph,
                          create_graph, inputs=_as_tuple(inputs), allow_unused=allow_unused)
    assert result is not None
    return result


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False) -> None:
    """``autograd.backward``: backward from several outputs at once."""
    outs = _as_tuple(tensors)
    seeds: Sequence[Any] = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outs)
    run_backward(outs, tuple(o._seed(g) for o, g in zip(outs, seeds)), retain_graph, create_graph)
