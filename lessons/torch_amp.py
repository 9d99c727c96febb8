"""Mixed precision on PyTorch, live, for the lessons' comparisons (lessons 6 and 7).

Two kinds of helpers:

* the spellings that differ, so one experiment runs on either library (``lib`` is
  ``micrograd2`` or ``torch``): ``grad_scaler(lib)`` (PyTorch's for the CPU),
  ``fp16_autocast(lib)`` (PyTorch's CPU autocast) and ``dtype_name(t)``; and
  ``documented_scales``, the scale rule PyTorch documents for its GradScaler, which
  both libraries' scalers must follow;
* PyTorch's side of an experiment a lesson runs on micrograd2 in its own cells, called
  as ``torch_amp.small_gradient(...)``: ``to_float16``, ``small_gradient``, ``dtypes``,
  ``bce_under_autocast`` (lesson 6) and ``clipped`` (lesson 7).

A lesson calls the second kind only where PyTorch is installed (``torch = live_torch()``).
PyTorch's CPU autocast has other op lists than its CUDA autocast (lesson 6, part 5).
"""
from __future__ import annotations

import math
from typing import Any

from .tools import error_of


def _torch() -> Any:
    import torch

    return torch


def _is_torch(lib: Any) -> bool:
    return getattr(lib, "__name__", None) == "torch"


# -- either library ---------------------------------------------------------------------------------
def grad_scaler(lib: Any, **options: Any) -> Any:
    """A GradScaler of ``lib`` (micrograd2, or PyTorch's for the CPU) with ``options``."""
    return lib.amp.GradScaler("cpu", **options) if _is_torch(lib) else lib.GradScaler(**options)


def fp16_autocast(lib: Any) -> Any:
    """float16 autocast of ``lib``: micrograd2's, or PyTorch's CPU autocast."""
    return lib.autocast("cpu", dtype=lib.float16) if _is_torch(lib) else lib.autocast(dtype="float16")


def dtype_name(t: Any) -> str:
    """A dtype as micrograd2 spells it: PyTorch's ``torch.float16`` is ``"float16"``."""
    return str(t.dtype).replace("torch.", "")


def documented_scales(init_scale: float, growth_interval: int, gradients: list[float]) -> list[tuple[bool, float]]:
    """PyTorch's documented rule: [(step taken?, scale after update())] for one step per gradient."""
    scale, clean, result = init_scale, 0, []
    for g in gradients:
        finite = math.isfinite(g * scale)
        clean = clean + 1 if finite else 0
        scale = scale * 0.5 if not finite else scale * 2 if clean == growth_interval else scale
        clean = 0 if clean == growth_interval else clean
        result.append((finite, scale))
    return result


# -- PyTorch's side of lesson 6 ---------------------------------------------------------------------
def to_float16(v: float) -> float:
    """``v`` converted to float16 by PyTorch, live."""
    torch = _torch()
    return torch.tensor(v, dtype=torch.float64).to(torch.float16).item()  # type: ignore[no-any-return]


def small_gradient(dtype: Any, scaled: bool) -> list[float]:
    """PyTorch, live: [w.grad after backward, after unscale_] for the loss 1e-8·(w·1), the product in ``dtype``."""
    torch = _torch()
    linear = torch.nn.Linear(1, 1, bias=False)
    with torch.no_grad():
        linear.weight.fill_(0.5)
    optimizer = torch.optim.SGD(linear.parameters(), lr=1.0)
    scaler = torch.amp.GradScaler("cpu", enabled=scaled)
    with torch.autocast("cpu", dtype=dtype):
        loss = linear(torch.ones(1, 1)).float().sum() * 1e-8
    scaler.scale(loss).backward()
    before = linear.weight.grad.item()
    scaler.unscale_(optimizer)  # does nothing when the scaler is disabled
    return [before, linear.weight.grad.item()]


def dtypes(weights: list[float], bias: float, inputs: list[float]) -> tuple[Any, ...]:
    """PyTorch under CPU autocast: the dtypes of y = linear(x), of relu, sigmoid, +, * of y, of
    [exp, log, sum, softmax] of y, of mse_loss(y, 0) and of the weight."""
    torch = _torch()
    linear = torch.nn.Linear(len(weights), 1)
    with torch.no_grad():
        linear.weight.copy_(torch.tensor([weights]))
        linear.bias.fill_(bias)
    with torch.autocast("cpu", dtype=torch.float16):
        y = linear(torch.tensor([inputs]))
        after = [y.relu(), y.sigmoid(), y + 1, y * 2]
        cpu_lists = [y.exp(), y.log(), y.sum(), y.softmax(-1)]
        mse = torch.nn.functional.mse_loss(y, torch.zeros_like(y))
    return (dtype_name(y), [dtype_name(t) for t in after], [dtype_name(t) for t in cpu_lists], dtype_name(mse),
            dtype_name(linear.weight))


def bce_under_autocast(logit: float) -> tuple[Any, Any]:
    """PyTorch under CPU autocast: (the error binary_cross_entropy raises or None, the with-logits loss)."""
    torch = _torch()
    z = torch.tensor([logit], dtype=torch.float16)
    with torch.autocast("cpu", dtype=torch.float16):
        error = error_of(lambda: torch.nn.functional.binary_cross_entropy(z.sigmoid(), torch.ones(1)))
        with_logits = torch.nn.functional.binary_cross_entropy_with_logits(z, torch.ones(1))
    return error.value, with_logits


def dot_under_autocast() -> str:
    """PyTorch under CPU autocast (float16): the dtype of ``torch.dot`` of two float32 vectors."""
    torch = _torch()
    with torch.autocast("cpu", dtype=torch.float16):
        return dtype_name(torch.dot(torch.ones(2), torch.ones(2)))


# -- PyTorch's side of lesson 7 ---------------------------------------------------------------------
def clipped(scaled_grads: list[float], unscale_first: bool, max_norm: float) -> float:
    """PyTorch: the norm of the gradients after unscale_ and clip_grad_norm_ in the given order."""
    torch = _torch()
    params = [torch.nn.Parameter(torch.zeros((), dtype=torch.float64)) for _ in scaled_grads]
    for p, g in zip(params, scaled_grads):
        p.grad = torch.tensor(g, dtype=torch.float64)
    optimizer, scaler = torch.optim.SGD(params, lr=0.1), torch.amp.GradScaler("cpu")
    scaler.scale(torch.ones(()))  # the first scale() sets the scale (65536), as in a real step
    if unscale_first:
        scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    if not unscale_first:
        scaler.unscale_(optimizer)
    return math.sqrt(sum(p.grad.item() ** 2 for p in params))
