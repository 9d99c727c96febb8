"""The one autograd core shared by the scalar and the vectorized engines (``mg.autograd``).

Nodes, edges and saved values (``node``), ``Function`` and its ``apply`` (``function``), the
backward walk (``engine``), grad mode, anomaly detection, ``gradcheck`` and the event hook point.
"""
from __future__ import annotations

from typing import Any, Sequence, Union

from . import functional as functional  # mg.autograd.functional.jacobian
from .anomaly import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
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
from .variable import Variable, backward_to, seeds

__all__ = [
    "AccumulateGrad", "Function", "GradcheckError", "Node", "Variable", "backward",
    "detect_anomaly", "enable_grad", "grad", "gradcheck", "gradgradcheck", "gradient_edge",
    "inference_mode", "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad", "set_detect_anomaly", "set_grad_enabled",
]

Variables = Union[Variable, Sequence[Variable]]  # one Variable, or several


def _as_tuple(x: object) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def grad(outputs: Variables, inputs: Variables, grad_outputs: object = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool | None = None,
         materialize_grads: bool = False) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, one per input.

    (Typed ``Any``: each is of the engine's kind, which the core cannot name; a student's code
    computes with it as a float, a Value or a Tensor.)

    It does not touch ``.grad``. The gradients are floats (arrays), or Values (Tensors) with
    ``create_graph=True``. An unused input gets ``None`` when ``allow_unused=True``, zeros of its
    shape with ``materialize_grads=True`` (which implies ``allow_unused``).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False.\n"
            "What to do: leave allow_unused out (materialize_grads allows unused inputs)."
        )
    outs, ins = _as_tuple(outputs), _as_tuple(inputs)
    grads: Sequence[object] = (_as_tuple(grad_outputs) if grad_outputs is not None
                               else (None,) * len(outs))
    result = run_backward(outs, seeds(outs, grads, create_graph), retain_graph,
                          create_graph, inputs=ins,
                          allow_unused=bool(allow_unused or materialize_grads))
    assert result is not None
    if materialize_grads:  # an unused input's gradient is zeros, as PyTorch's
        result = tuple(x._zeros_like(x.data, x.dtype) if g is None else g
                       for g, x in zip(result, ins))
    return result


def backward(tensors: Variables, grad_tensors: object = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Variables | None = None) -> None:
    """``autograd.backward``: backward from several outputs at once.

    With ``inputs`` (a Variable or several), only their ``.grad`` is accumulated."""
    outs = _as_tuple(tensors)
    grads: Sequence[object] = (_as_tuple(grad_tensors) if grad_tensors is not None
                               else (None,) * len(outs))
    seed = seeds(outs, grads, create_graph)
    if inputs is not None:
        return backward_to(outs, seed, retain_graph, create_graph, inputs)
    run_backward(outs, seed, retain_graph, create_graph)
