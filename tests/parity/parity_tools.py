"""The differential suite's measuring tools: run one program on micrograd2 and on torch, compare exactly.

Four *configurations* run every op: the scalar engine (``Value``) and the Tensor engine, each in float64
and float32.  A ``Value`` is compared with a 0-d torch tensor (torch's one-element path); a Tensor holding
the whole edge grid is compared with a torch tensor of the same shape (torch's vectorized path).

For each point three things are compared: the forward value, the gradient of each input, and the second
derivatives under ``create_graph=True`` (for each first gradient: whether it is part of a graph at all,
and if so its gradient with respect to each input).  Equal means the same float: the sign of zero counts,
any NaN equals any NaN, and nothing else is allowed, except ``ulps`` units in the last place where an
entry of the catalogue says why (torch computes with a fused multiply-add or another libm there).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

import micrograd2 as mg

try:
    import torch
except ImportError:  # every test module skips itself with pytest.importorskip("torch")
    torch = None

CONFIGS = ("value-float64", "value-float32", "tensor-float64", "tensor-float32")

CONST = "const"      # a first gradient that is not part of a graph (requires_grad=False)
UNUSED = "unused"    # an input the output does not depend on (autograd returns None)


def edge_grid(dtype: str) -> list[float]:
    """The edge values every op meets: ±0, ±1, plain numbers, tiny, subnormal, huge, ±inf, nan."""
    if dtype == "float64":
        tiny, sub, huge = 1e-300, 5e-324, 1e300
    else:
        tiny, sub, huge = 1e-37, 1e-45, 3e38
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, tiny, -tiny, sub, -sub, huge, -huge,
            math.inf, -math.inf, math.nan]


def pair_grid(dtype: str) -> list[tuple[float, float]]:
    """Every pair of a smaller grid (for ops of two inputs)."""
    tiny, big, huge = (1e-300, 1e200, 1e300) if dtype == "float64" else (1e-37, 1e30, 3e38)
    small = [0.0, -0.0, 1.0, -1.0, 2.5, -0.5, tiny, big, huge, -huge, math.inf, -math.inf, math.nan]
    return [(a, b) for a in small for b in small]


# -- exact comparison -----------------------------------------------------------------------------
def _ordered_bits(x: float, dtype: str) -> int:
    """The float's bit pattern as an integer that counts up with the float (for ULP distances)."""
    if dtype == "float32":
        i = int(np.array(x, dtype=np.float32).view(np.int32))
        return i if i >= 0 else -(i & 0x7FFFFFFF)
    i = int(np.array(x, dtype=np.float64).view(np.int64))
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def same(a: Any, b: Any, dtype: str = "float64", ulps: int = 0) -> bool:
    """Equal as torch's result would be: the sign of zero counts; NaN equals NaN; ``ulps`` apart at most."""
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return a == b
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    if ulps and math.isfinite(a) and math.isfinite(b):
        return abs(_ordered_bits(a, dtype) - _ordered_bits(b, dtype)) <= ulps
    return False


# -- running one program on both --------------------------------------------------------------------
@dataclass
class Outcome:
    """What a program gave at each point: forward values, gradients, second derivatives (flat lists)."""

    forward: list[Any] = field(default_factory=list)
    grad: list[Any] = field(default_factory=list)
    grad2: list[Any] = field(default_factory=list)
    error: str | None = None


def _float(x: Any) -> Any:
    return float(x.item()) if hasattr(x, "item") else float(x)


def _flat(t: Any) -> list[float]:
    """A Tensor's (or torch tensor's) elements as floats."""
    if hasattr(t, "detach"):
        t = t.detach()
    if torch is not None and isinstance(t, torch.Tensor):
        if t._is_zerotensor():  # torch's symbolic zeros (e.g. abs's second derivative) have no storage
            t = torch.zeros(t.shape, dtype=t.dtype)
        return [float(v) for v in t.reshape(-1).tolist()]
    return [float(v) for v in np.asarray(t.numpy()).reshape(-1).tolist()]


def run_scalar(lib: Any, fn: Callable[..., Any], point: Sequence[float], dtype: str) -> Outcome:
    """``fn`` on one point, as Values (``lib`` is ``mg``) or as 0-d torch tensors (``lib`` is ``torch``)."""
    xs = [_leaf(lib, x, dtype, ()) for x in point]
    out = Outcome()
    y = fn(*xs)
    out.forward.append(_float(y))
    grads = lib.autograd.grad(y, xs, allow_unused=True, retain_graph=True)
    out.grad += [UNUSED if g is None else _float(g) for g in grads]
    firsts = lib.autograd.grad(y, xs, create_graph=True, allow_unused=True)
    for g in firsts:
        if g is None:
            out.grad2.append(UNUSED)
        elif not g.requires_grad:
            out.grad2.append(CONST)
        else:
            seconds = lib.autograd.grad(g, xs, allow_unused=True, retain_graph=True)
            out.grad2 += [UNUSED if s is None else _float(s) for s in seconds]
    return out


def _leaf(lib: Any, x: Any, dtype: str, shape: tuple[int, ...] | None) -> Any:
    if lib is mg and shape == ():
        return mg.Value(x, requires_grad=True, dtype=dtype)
    if lib is mg:
        return mg.tensor(x, requires_grad=True, dtype=dtype)
    return torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)


def run_tensor(lib: Any, fn: Callable[..., Any], columns: Sequence[Sequence[float]], dtype: str,
               weights: bool = False) -> Outcome:
    """``fn`` on Tensors (one per input, all points at once), on micrograd2 or on torch.

    The output is seeded with ones (or 1, 2, 3… with ``weights``, to see gradients land in the right
    place); for elementwise ops each element's gradient is then that point's derivative.
    """
    xs = [_leaf(lib, list(c) if not isinstance(c, np.ndarray) else c.tolist(), dtype, None) for c in columns]
    out = Outcome()
    y = fn(*xs)
    out.forward += _flat(y)
    seed = _seed(lib, y, weights)
    grads = lib.autograd.grad(y, xs, grad_outputs=seed, allow_unused=True, retain_graph=True)
    for g, x in zip(grads, xs):
        out.grad += [UNUSED] * _numel(x) if g is None else _flat(g)
    firsts = lib.autograd.grad(y, xs, grad_outputs=_seed(lib, y, weights), create_graph=True, allow_unused=True)
    for g, x in zip(firsts, xs):
        if g is None:
            out.grad2 += [UNUSED] * _numel(x)
        elif not g.requires_grad:
            out.grad2 += [CONST] * _numel(x)
        else:
            seconds = lib.autograd.grad(g, xs, grad_outputs=_seed(lib, g, weights), allow_unused=True,
                                        retain_graph=True)
            for s, x2 in zip(seconds, xs):
                out.grad2 += [UNUSED] * _numel(x2) if s is None else _flat(s)
    return out


def _numel(x: Any) -> int:
    return int(x.numel())


def _seed(lib: Any, y: Any, weights: bool) -> Any:
    shape = tuple(y.shape)
    n = math.prod(shape)
    data = np.arange(1.0, n + 1.0).reshape(shape) if weights else np.ones(shape)
    if lib is mg:
        return mg.tensor(data, dtype=y.dtype)
    return torch.tensor(data, dtype=y.dtype)


def outcome_or_error(run: Callable[..., Outcome], *args: Any, **kwargs: Any) -> Outcome:
    """The outcome, or the error's class name in place of one (then both engines must raise alike)."""
    try:
        return run(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the class is what gets compared
        return Outcome(error=type(error).__name__ + ": " + str(error).split("\n")[0][:120])


def differences(ours: Outcome, theirs: Outcome, dtype: str, labels: Sequence[str], check: str,
                ulps: int = 0) -> list[str]:
    """Where ``ours`` and ``theirs`` differ in ``check`` ("forward", "grad", "grad2"), one line each."""
    if ours.error or theirs.error:
        if (ours.error or "").split(":")[0] == (theirs.error or "").split(":")[0]:
            return []
        return [f"micrograd2: {ours.error or 'no error'} | torch: {theirs.error or 'no error'}"]
    a, b = getattr(ours, check), getattr(theirs, check)
    if len(a) != len(b):
        return [f"{len(a)} entries vs torch's {len(b)}: {a} vs {b}"]
    out = []
    for k, (x, y) in enumerate(zip(a, b)):
        if not same(x, y, dtype, ulps):
            where = labels[k % len(labels)] if labels else str(k)
            out.append(f"{check} at {where} [entry {k}]: micrograd2 {x!r}, torch {y!r}{_ulp_note(x, y, dtype)}")
    return out


def _ulp_note(x: Any, y: Any, dtype: str) -> str:
    if isinstance(x, float) and isinstance(y, float) and math.isfinite(x) and math.isfinite(y):
        return f" ({abs(_ordered_bits(x, dtype) - _ordered_bits(y, dtype))} ulps)"
    return ""


# -- graphs ---------------------------------------------------------------------------------------
def graph_shape(node: Any, depth: int = 6) -> Any:
    """A node's name and, recursively, its ``next_functions``' shapes (``None`` where torch has None)."""
    if node is None:
        return None
    name = node.name().replace("torch::autograd::", "")
    if depth == 0 or name == "AccumulateGrad":
        return name
    return (name, tuple(graph_shape(n, depth - 1) for n, _ in node.next_functions))


def raised(fn: Callable[[Any], Any], lib: Any) -> BaseException | None:
    """What ``fn(lib)`` raises (``None`` if nothing): each library's error for the same misuse."""
    try:
        fn(lib)
    except Exception as error:  # noqa: BLE001 - what is raised is the point
        return error
    return None
