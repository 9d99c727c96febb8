"""Optimizers on float32 Tensors against torch 2.13, bit for bit: five steps on random parameters and gradients.

torch updates with ``add_(g, alpha=-lr)`` (one fused multiply-add, one rounding), ``addcmul_``, ``addcdiv_``
and ``lerp_``; each configuration's parameters (and state buffers) after five steps must equal torch's in
every bit.  Where the remaining fused ops of Adam round elsewhere, the case is a strict xfail (``KNOWN``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

import micrograd2 as mg  # noqa: E402

SIZE, STEPS = 4096, 5

CONFIGS = {
    "sgd": ("SGD", {"lr": 0.01}),
    "sgd_momentum": ("SGD", {"lr": 0.01, "momentum": 0.9}),
    "sgd_dampening": ("SGD", {"lr": 0.01, "momentum": 0.9, "dampening": 0.3}),
    "sgd_nesterov": ("SGD", {"lr": 0.01, "momentum": 0.9, "nesterov": True}),
    "sgd_weight_decay": ("SGD", {"lr": 0.01, "weight_decay": 0.013}),
    "sgd_all": ("SGD", {"lr": 0.01, "momentum": 0.8, "weight_decay": 0.013, "nesterov": True}),
    "adam": ("Adam", {"lr": 0.01}),
    "adam_weight_decay": ("Adam", {"lr": 0.01, "weight_decay": 0.013}),
    "adamw": ("AdamW", {"lr": 0.01, "weight_decay": 0.013}),
}

ADAM = ("torch's Adam rounds lerp_, addcmul_ and addcdiv_ as its fused CPU kernels do (self + value·t1·t2, "
        "self + value·t1/t2); ours is the plain expression, rounded elsewhere")
KNOWN = {"adam": ADAM, "adam_weight_decay": ADAM, "adamw": ADAM}


def _data() -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(7)
    start = rng.standard_normal(SIZE).astype(np.float32)
    grads = [rng.standard_normal(SIZE).astype(np.float32) for _ in range(STEPS)]
    return start, grads


def _steps(lib: Any, name: str) -> np.ndarray:
    """The parameter after STEPS steps of optimizer ``name`` in library ``lib`` (torch or micrograd2)."""
    cls, kwargs = CONFIGS[name]
    start, grads = _data()
    p = lib.tensor(start, requires_grad=True)
    opt = getattr(lib.optim, cls)([p], **kwargs)
    for g in grads:
        p.grad = lib.tensor(g)
        opt.step()
    return p.detach().numpy()


@pytest.mark.parametrize("name", list(CONFIGS))
def test_five_float32_steps_equal_torchs_bits(name: str, request) -> None:
    if name in KNOWN:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KNOWN[name]))
    ours, theirs = _steps(mg, name), _steps(torch, name)
    differ = int((ours.view(np.uint32) != theirs.view(np.uint32)).sum())
    assert differ == 0, f"{differ} of {SIZE} parameters differ from torch's in some bit"


@pytest.mark.parametrize("alpha", [-0.0123, 0.01, 3.0])
def test_add_with_alpha_is_torchs_fused_multiply_add(alpha: float) -> None:
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(100_000).astype(np.float32) for _ in range(2))
    theirs = torch.from_numpy(a.copy()).add_(torch.from_numpy(b), alpha=alpha).numpy()
    with mg.no_grad():
        fast = mg.tensor(a.copy()).add_(mg.tensor(b), alpha=alpha).numpy()
    recorded = mg.tensor(a.copy()).add_(mg.tensor(b), alpha=alpha).numpy()
    assert (fast.view(np.uint32) == theirs.view(np.uint32)).all()
    assert (recorded.view(np.uint32) == theirs.view(np.uint32)).all()
    sub_theirs = torch.from_numpy(a.copy()).sub_(torch.from_numpy(b), alpha=alpha).numpy()
    sub_ours = mg.tensor(a.copy()).sub_(mg.tensor(b), alpha=alpha).numpy()
    assert (sub_ours.view(np.uint32) == sub_theirs.view(np.uint32)).all()


def test_add_with_alpha_records_one_node_as_torch() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True).clone()
    w = mg.tensor([2.0, 3.0], requires_grad=True)
    tx = torch.tensor([1.0, 2.0], requires_grad=True).clone()
    tw = torch.tensor([2.0, 3.0], requires_grad=True)
    for op in ("add_", "sub_"):
        y, ty = getattr(x.clone(), op)(w, alpha=2.5), getattr(tx.clone(), op)(tw, alpha=2.5)
        names = [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions]
        theirs = [type(n).__name__ if n is not None else None for n, _ in ty.grad_fn.next_functions]
        assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ and names == theirs
        assert y.grad_fn.next_functions[1][0] is w.grad_fn or names[1] == "AccumulateGrad"
        w.grad, tw.grad = None, None
        (y * y).sum().backward()
        (ty * ty).sum().backward()
        assert w.grad.tolist() == tw.grad.tolist()
