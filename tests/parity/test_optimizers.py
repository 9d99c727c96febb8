"""Optimizers, ``clip_grad_norm_`` and ``GradScaler`` against torch 2.13: the same parameters after the same steps.

Each optimizer configuration runs five steps on the same float64 parameters and the same loss, on Values,
on a Tensor and on torch; the parameters must agree to the last bit but a few (torch's fused ``addcdiv_``,
``lerp_`` and ``addcmul_`` round in other places: ``ULPS`` says where).
"""
from __future__ import annotations

import fnmatch
import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import same  # noqa: E402

import micrograd2 as mg  # noqa: E402

START = [0.5, -1.25, 2.0, 3e-3]
STEPS = 5

CONFIGS = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "sgd_dampening": ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.5}),
    "sgd_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    "sgd_weight_decay": ("SGD", {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.01}),
    "sgd_maximize": ("SGD", {"lr": 0.1, "momentum": 0.9, "maximize": True}),
    "adam": ("Adam", {"lr": 0.1}),
    "adam_weight_decay": ("Adam", {"lr": 0.1, "weight_decay": 0.01}),
    "adam_amsgrad": ("Adam", {"lr": 0.1, "amsgrad": True}),
    "adam_maximize": ("Adam", {"lr": 0.1, "maximize": True}),
    "adamw": ("AdamW", {"lr": 0.1}),
    "adamw_amsgrad": ("AdamW", {"lr": 0.1, "weight_decay": 0.1, "amsgrad": True}),
}

KNOWN: dict[str, str] = {
}
# torch's in-place updates fuse a multiply into an add: add_(g, alpha=-lr) is one fused multiply-add, and
# Adam's lerp_, addcmul_ and addcdiv_ round once where a plain expression rounds twice.
FUSED = "torch's add_(alpha=…), lerp_, addcmul_ and addcdiv_ round once (fused multiply-add); ours twice"
ULPS: dict[str, tuple[int, str]] = {
    **{name: (16, FUSED) for name in CONFIGS if name.startswith("sgd")},
    **{name: (32, FUSED) for name in CONFIGS if name.startswith("adam")},
}


def _loss(ps):
    """A loss whose gradients differ per parameter and change every step."""
    total = 0
    for i, p in enumerate(ps):
        total = total + (p - i) * (p - i) * (i + 1) + p * p * p * 0.1
    return total


def _run(engine: str, name: str) -> list[float]:
    cls, kwargs = CONFIGS[name]
    if engine == "torch":
        params = [torch.tensor(START, dtype=torch.float64, requires_grad=True)]
        opt = getattr(torch.optim, cls)(params, **kwargs)
        for _ in range(STEPS):
            opt.zero_grad()
            _loss(list(params[0])).backward()
            opt.step()
        return params[0].tolist()
    if engine == "value":
        values = [mg.Value(x, requires_grad=True) for x in START]
        opt = getattr(mg.optim, cls)(values, **kwargs)
        for _ in range(STEPS):
            opt.zero_grad()
            _loss(values).backward()
            opt.step()
        return [v.data for v in values]
    t = mg.tensor(START, dtype="float64", requires_grad=True)
    opt = getattr(mg.optim, cls)([t], **kwargs)
    for _ in range(STEPS):
        opt.zero_grad()
        _loss(list(t)).backward()
        opt.step()
    return t.tolist()


def _marks(key: str) -> list:
    for pattern, reason in KNOWN.items():
        if fnmatch.fnmatchcase(key, pattern):
            return [pytest.mark.xfail(strict=True, reason=reason)]
    return []


@pytest.mark.parametrize("engine", ["value", "tensor"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_optimizer_steps_match_torch(name: str, engine: str, request) -> None:
    for mark in _marks(f"{name}/{engine}"):
        request.applymarker(mark)
    ours, theirs = _run(engine, name), _run("torch", name)
    ulps = ULPS.get(name, (0, ""))[0]
    assert all(same(a, b, "float64", ulps) for a, b in zip(ours, theirs)), f"{ours} vs torch {theirs}"


# -- clip_grad_norm_ ------------------------------------------------------------------------------
GRADS = [[3.0, -4.0], [12.0], [-0.5, 0.25, 1e-3]]


def _with_grads(lib):
    if lib is torch:
        ps = [torch.tensor([0.0] * len(g), dtype=torch.float64, requires_grad=True) for g in GRADS]
        for p, g in zip(ps, GRADS):
            p.grad = torch.tensor(g, dtype=torch.float64)
        return ps
    ps = [mg.tensor([0.0] * len(g), dtype="float64", requires_grad=True) for g in GRADS]
    for p, g in zip(ps, GRADS):
        p.grad = mg.tensor(g, dtype="float64")
    return ps


def _values_with_grads():
    flat = [x for grads in GRADS for x in grads]
    ps = [mg.Value(0.0, requires_grad=True) for _ in flat]
    for p, g in zip(ps, flat):
        p.grad = g
    return ps


@pytest.mark.parametrize("norm_type", [1.0, 2.0, math.inf, 3.0])
@pytest.mark.parametrize("engine", ["tensor", "value"])
def test_clip_grad_norm_in_torchs_argument_order(norm_type: float, engine: str, request) -> None:
    for mark in _marks(f"clip/{engine}/{norm_type}"):
        request.applymarker(mark)
    theirs = _with_grads(torch)
    total_theirs = torch.nn.utils.clip_grad_norm_(theirs, 1.0, norm_type)
    ours = _with_grads(mg) if engine == "tensor" else _values_with_grads()
    total_ours = mg.nn.utils.clip_grad_norm_(ours, 1.0, norm_type)
    assert same(float(total_ours), float(total_theirs), ulps=1)
    flat_theirs = [x for p in theirs for x in p.grad.tolist()]
    flat_ours = [x for p in ours for x in (p.grad.tolist() if engine == "tensor" else [p.grad])]
    assert all(same(a, b, ulps=1) for a, b in zip(flat_ours, flat_theirs)), f"{flat_ours} vs {flat_theirs}"


def test_clip_grad_norm_error_if_nonfinite_is_the_fourth_argument() -> None:
    p = mg.tensor([1.0], requires_grad=True)
    p.grad = mg.tensor([math.inf])
    with pytest.raises(RuntimeError, match="non-finite"):
        mg.nn.utils.clip_grad_norm_([p], 1.0, 2.0, True)


# -- GradScaler --------------------------------------------------------------------------------------
def _scaler_scales(lib, init_scale: float, steps: int) -> list[float]:
    if lib is torch:
        p = torch.tensor([1.0], requires_grad=True)
        opt = torch.optim.SGD([p], lr=0.0)
        scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=1)
    else:
        p = mg.tensor([1.0], requires_grad=True)
        opt = mg.optim.SGD([p], lr=0.0)
        scaler = mg.GradScaler(init_scale=init_scale, growth_interval=1)
    scales = []
    for _ in range(steps):
        opt.zero_grad()
        scaler.scale((p * 1e-30).sum()).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(float(scaler.get_scale()))
    return scales


def test_grad_scaler_growth_never_reaches_inf() -> None:
    init = 2.0**126
    theirs = _scaler_scales(torch, init, 3)
    assert theirs == [2.0**127, 2.0**127, 2.0**127]  # torch keeps the scale when growing would overflow float32
    assert _scaler_scales(mg, init, 3) == theirs
