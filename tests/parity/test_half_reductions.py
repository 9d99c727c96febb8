"""Every reduction of the Tensor engine on a grid of shapes and dtypes, next to torch 2.13's CPU kernels.

PyTorch's CPU reductions of float16/bfloat16 accumulate in float32 (its ``acc_type``) and round once to
the result's dtype: the mean of 100 × 1000.0 in float16 is 1000, not inf.  torch adds in its own order,
so a result may be 1 ulp away where the exact sum is not representable; where it is (small multiples
of 1/8), the bits must be equal.  Gradients are compared too.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

import micrograd2 as mg  # noqa: E402

DTYPES = ("float16", "bfloat16", "float32", "float64")
SHAPES = ((7,), (3, 5), (2, 3, 4), (100,))
INT_VIEW = {"float16": torch.int16, "bfloat16": torch.int16, "float32": torch.int32, "float64": torch.int64}

REDUCTIONS: dict[str, Callable[[Any], Any]] = {
    "sum": lambda t: t.sum(),
    "sum_dim0": lambda t: t.sum(0),
    "sum_last_keepdim": lambda t: t.sum(-1, keepdim=True),
    "mean": lambda t: t.mean(),
    "mean_dim0": lambda t: t.mean(0),
    "mean_last_keepdim": lambda t: t.mean(-1, keepdim=True),
    "max": lambda t: t.max(),
    "min": lambda t: t.min(),
    "max_dim": lambda t: t.max(0).values,
    "min_dim": lambda t: t.min(-1).values,
    "amax": lambda t: t.amax(),
    "amin_dim": lambda t: t.amin(0),
    "softmax": lambda t: t.softmax(-1),
    "log_softmax": lambda t: t.log_softmax(-1),
    "sum_to_size": lambda t: t.sum_to_size((1,) * (t.ndim - 1) + (t.shape[-1],)),
}


def _values(shape: tuple[int, ...], kind: str) -> np.ndarray:
    """``exact``: multiples of 1/8 in ±8 (every float32 sum of them is exact); ``random``: normals;
    ``large``: 1000.0 plus small steps (a float16 sum of them overflows)."""
    rng = np.random.default_rng(sum(shape) * 31 + len(kind))
    n = math.prod(shape)
    if kind == "exact":
        return (rng.integers(-64, 65, n) / 8.0).reshape(shape)
    if kind == "large":
        return (1000.0 + rng.integers(0, 8, n)).reshape(shape)
    return rng.standard_normal(n).reshape(shape) * 3.0


def _pair(data: np.ndarray, dtype: str) -> tuple[Any, Any]:
    """The same values as a micrograd2 Tensor and a torch tensor of ``dtype``, both requiring grad."""
    theirs = torch.tensor(data, dtype=torch.float64).to(getattr(torch, dtype)).requires_grad_()
    ours = mg.tensor(theirs.detach().double().numpy(), dtype=dtype, requires_grad=True)
    return ours, theirs


def _bits(values: Any, dtype: str) -> np.ndarray:
    """The results' bit patterns as integers ordered as the floats (nan collapsed to one pattern)."""
    t = torch.as_tensor(values, dtype=torch.float64).to(getattr(torch, dtype)).reshape(-1)
    t = torch.where(torch.isnan(t), torch.full_like(t, math.nan), t)
    i = t.view(INT_VIEW[dtype]).to(torch.int64)
    sign = 1 << (torch.finfo(getattr(torch, dtype)).bits - 1)
    return torch.where(i < 0, -(i & (sign - 1)), i).numpy()


def _ulps_apart(ours: Any, theirs: Any, dtype: str) -> int:
    a = np.asarray(ours.detach().to("float64").tolist(), dtype=np.float64)
    b = theirs.detach().double().numpy()
    assert a.shape == b.shape
    return int(np.max(np.abs(_bits(a, dtype) - _bits(b, dtype)), initial=0))


def _off_by(ours: Any, theirs: Any, dtype: str, scale: float) -> float:
    """The largest difference, in units of ``eps(dtype)·scale`` (how far a sum in another order goes)."""
    a = np.asarray(ours.detach().to("float64").tolist(), dtype=np.float64)
    b = theirs.detach().double().numpy()
    diff = np.where(np.isnan(a) & np.isnan(b), 0.0, np.abs(a - b))
    return float(np.max(diff, initial=0.0)) / (torch.finfo(getattr(torch, dtype)).eps * scale)


def _agree(ours: Any, theirs: Any, dtype: str, exact: bool, scale: float) -> bool:
    """Exact bits; or at most 1 ulp apart; or, where a float32/float64 sum is added in another order
    (or a softmax's exp comes from another libm), within a few eps of the magnitude summed."""
    ulps = _ulps_apart(ours, theirs, dtype)
    if exact or ulps <= 1:
        return ulps == 0 or not exact
    return _off_by(ours, theirs, dtype, scale) <= 4.0


SOFTMAXES = ("softmax", "log_softmax")


@pytest.mark.parametrize("kind", ["exact", "random", "large"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_matches_torch(name: str, dtype: str, shape: tuple[int, ...], kind: str) -> None:
    ours, theirs = _pair(_values(shape, kind), dtype)
    fn = REDUCTIONS[name]
    got, want = fn(ours), fn(theirs)
    assert got.dtype == dtype and tuple(got.shape) == tuple(want.shape)
    exact = kind == "exact" and name not in SOFTMAXES  # exp is rounded; sums of 1/8s are not
    half = dtype in ("float16", "bfloat16")
    # a float32/float64 sum in torch's order, or torch's exp: within a few eps of what was summed
    summed = float(theirs.detach().abs().double().sum()) if not half or name in SOFTMAXES else 0.0
    assert _agree(got, want, dtype, exact, max(summed, float(want.detach().abs().double().max()))), (
        got, want)
    seed = np.linspace(-1.0, 1.0, max(1, want.numel())).reshape(tuple(want.shape))
    got.backward(mg.tensor(seed, dtype=dtype))
    want.backward(torch.tensor(seed, dtype=torch.float64).to(want.dtype))
    assert ours.grad.dtype == dtype
    scale = float(np.abs(seed).sum()) if name in SOFTMAXES else 0.0
    assert _agree(ours.grad, theirs.grad, dtype, exact, scale)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_mean_of_a_hundred_thousands_is_a_thousand(dtype: str) -> None:
    x = mg.tensor([1000.0] * 100, dtype=dtype)
    assert x.mean().item() == 1000.0
    assert x.reshape(10, 10).mean(1).tolist() == [1000.0] * 10
    want = torch.full((100,), 1000.0, dtype=getattr(torch, dtype)).sum().item()
    assert x.sum().item() == want  # the sum itself rounds once: inf in float16, as torch
