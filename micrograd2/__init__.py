"""micrograd2: autograd you can watch — a teaching-grade autograd with PyTorch's real semantics.

``import micrograd2 as mg``; the public names below are the contract of
``API.md``.  The scalar engine (``Value``) is pure Python and loads at once;
everything else (``mg.tensor``, ``mg.trace``, ``mg.draw``, ``mg.nn``,
``mg.optim``, ``mg.amp``…) is imported on first use, so ``import micrograd2``
never pulls in NumPy, Graphviz or pycuda.
"""
from __future__ import annotations

import importlib
from typing import Any

from . import _checkout, autograd
from .autograd import (
    Function,
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .autograd.anomaly import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .scalar import Value, dot, sum

__version__ = "0.1.0"

_checkout.add_lessons_finder()  # only in a source checkout that is not installed

# public name -> (module, attribute or None for the module itself), imported when first used
_LAZY = {
    "nn": ("micrograd2.nn", None),
    "optim": ("micrograd2.optim", None),
    "amp": ("micrograd2.amp", None),
    "data": ("micrograd2.data", None),
    "viz": ("micrograd2.viz", None),
    "trace": ("micrograd2.tracing", "trace"),
    "draw": ("micrograd2.viz", "draw"),
    "render": ("micrograd2.viz", "render_file"),  # the module micrograd2.viz.render has another name
    "tensor": ("micrograd2.tensors", "tensor"),
    "Tensor": ("micrograd2.tensors", "Tensor"),
    "autocast": ("micrograd2.amp", "autocast"),
    "GradScaler": ("micrograd2.amp", "GradScaler"),
    # PyTorch's factory functions (micrograd2/tensors/creation.py)
    **{name: ("micrograd2.tensors", name) for name in (
        "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "empty_like", "arange",
        "linspace", "eye", "rand", "randn", "manual_seed")},
    # PyTorch's functions at the top level (toplevel.py: each the method of its input)
    **{name: ("micrograd2.toplevel", name) for name in (
        "exp", "log", "tanh", "sigmoid", "relu", "softmax", "log_softmax", "clamp", "maximum", "minimum",
        "where", "matmul", "cat", "stack")},
}

__all__ = [
    "Function", "Value", "autograd", "detect_anomaly", "dot", "enable_grad", "inference_mode",
    "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
    "is_grad_enabled", "is_inference_mode_enabled", "no_grad", "set_detect_anomaly", "set_grad_enabled", "sum",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'micrograd2' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
