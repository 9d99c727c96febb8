"""``clip_grad_norm_`` and ``clip_grad_value_`` next to torch 2.13's ``clip_grad.py``, on a grid.

The norm is in the gradients' dtype, 1 ulp from torch's at most (torch's ``vector_norm`` adds in its
own order); given that norm, the clamp and the one multiply are exact.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

import micrograd2 as mg  # noqa: E402

DTYPES = ("float16", "bfloat16", "float32", "float64")
SHAPES = [(5,), (3, 4), (7,)]


def _pairs(dtype: str, scale: float, seed: int):
    rng = np.random.default_rng(seed)
    ours, theirs = [], []
    for shape in SHAPES:
        q = torch.zeros(shape, dtype=getattr(torch, dtype), requires_grad=True)
        q.grad = torch.tensor(rng.standard_normal(shape) * scale).to(q.dtype)
        p = mg.tensor(np.zeros(shape), dtype=dtype, requires_grad=True)
        p.grad = mg.tensor(q.grad.double().numpy(), dtype=dtype)
        ours.append(p)
        theirs.append(q)
    return ours, theirs


def _grads(ps) -> list[list[float]]:
    return [p.grad.to("float64").tolist() for p in ps]


@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0, math.inf])
@pytest.mark.parametrize("dtype", DTYPES)
def test_clip_grad_norm(dtype: str, norm_type: float, max_norm: float) -> None:
    ours, theirs = _pairs(dtype, 1.0, int(norm_type if norm_type < 9 else 9))
    norm = mg.nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    want = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    kind = getattr(torch, dtype)
    got = torch.tensor(norm, dtype=torch.float64).to(kind)
    assert got.item() == norm  # a number of the gradients' dtype
    ints = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[kind.itemsize]
    apart = abs(int(got.view(ints)) - int(want.view(ints)))  # (both positive: no sign to order)
    assert apart <= 1
    coef = torch.clamp(max_norm / (got + 1e-6), max=1.0)  # torch's formula, from our norm: exact
    start, _ = _pairs(dtype, 1.0, int(norm_type if norm_type < 9 else 9))
    expected = [(torch.tensor(p.grad.to("float64").tolist(), dtype=torch.float64).to(kind) * coef).double().tolist()
                for p in start]
    assert _grads(ours) == expected


@pytest.mark.parametrize("dtype", DTYPES)
def test_clip_grad_value(dtype: str) -> None:
    ours, theirs = _pairs(dtype, 2.0, 3)
    ours[0].grad = mg.tensor([math.nan, 5.0, -5.0, 0.1, -0.0], dtype=dtype)
    theirs[0].grad = torch.tensor([math.nan, 5.0, -5.0, 0.1, -0.0], dtype=torch.float64).to(getattr(torch, dtype))
    assert mg.nn.utils.clip_grad_value_(ours, 0.7) is None
    torch.nn.utils.clip_grad_value_(theirs, 0.7)
    got, want = _grads(ours), [q.grad.double().tolist() for q in theirs]
    assert str(got) == str(want)  # nan where torch has nan


def test_clip_grad_value_on_values() -> None:
    xs = [mg.Value(0.0, requires_grad=True) for _ in range(3)]
    for x, g in zip(xs, [3.0, -0.2, math.nan]):
        x.grad = g
    mg.nn.utils.clip_grad_value_(xs, 1.0)
    assert [xs[0].grad, xs[1].grad] == [1.0, -0.2] and math.isnan(xs[2].grad)
