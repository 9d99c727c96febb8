"""``micrograd2.lessons.torch_amp``: the either-library helpers give micrograd2's scaler and autocast for
micrograd2 and PyTorch's CPU ones for PyTorch; ``documented_scales`` is PyTorch's documented GradScaler rule, which
micrograd2's scaler follows; PyTorch's side of lessons 6 and 7 gives what PyTorch gives (run live, skipped without
PyTorch)."""
from __future__ import annotations

import importlib.util
import math
import os

import pytest

import micrograd2 as mg
from micrograd2.lessons import torch_amp

HAS_TORCH = importlib.util.find_spec("torch") is not None and not os.environ.get("MICROGRAD2_NO_TORCH")
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")


def test_for_micrograd2_the_helpers_give_its_own_scaler_autocast_and_dtype_names() -> None:
    assert isinstance(torch_amp.grad_scaler(mg, init_scale=8.0), mg.GradScaler)
    assert torch_amp.grad_scaler(mg, init_scale=8.0).get_scale() == 8.0
    w = mg.Value(0.5, requires_grad=True, dtype="float32")
    with torch_amp.fp16_autocast(mg):
        y = mg.dot([w], [1.0])
    assert torch_amp.dtype_name(y) == "float16" and torch_amp.dtype_name(w) == "float32"


def test_documented_scales_halves_after_a_skip_and_doubles_after_growth_interval_clean_steps() -> None:
    assert torch_amp.documented_scales(65536.0, 2000, [1.0, math.inf, math.inf, math.nan]) == [
        (True, 65536.0), (False, 32768.0), (False, 16384.0), (False, 8192.0)]
    assert torch_amp.documented_scales(8.0, 3, [1.0] * 6) == [
        (True, 8.0), (True, 8.0), (True, 16.0), (True, 16.0), (True, 16.0), (True, 32.0)]
    assert torch_amp.documented_scales(8.0, 2, [1.0, math.inf, 1.0, 1.0]) == [  # a skip restarts the count
        (True, 8.0), (False, 4.0), (True, 4.0), (True, 8.0)]


def test_micrograd2s_scaler_follows_the_documented_rule() -> None:
    gradients = [1.0, 1.0, math.inf, 1.0, 1.0, 1.0]
    p = mg.tensor(1.0, requires_grad=True)
    optimizer = mg.optim.SGD([p], lr=0.1)
    scaler = torch_amp.grad_scaler(mg, init_scale=4.0, growth_interval=2)
    seen = []
    for g in gradients:
        optimizer.zero_grad()
        scaler.scale(p * g).backward()
        before = p.item()
        scaler.step(optimizer)
        scaler.update()
        seen.append((p.item() != before, scaler.get_scale()))
    assert seen == torch_amp.documented_scales(4.0, 2, gradients)


@needs_torch
def test_for_pytorch_the_helpers_give_its_cpu_scaler_and_autocast() -> None:
    import torch

    assert isinstance(torch_amp.grad_scaler(torch), torch.amp.GradScaler)
    with torch_amp.fp16_autocast(torch):
        y = torch.ones(1, 2) @ torch.ones(2, 1)
    assert torch_amp.dtype_name(y) == "float16"


@needs_torch
def test_pytorchs_side_of_lesson_6() -> None:
    import torch

    assert torch_amp.to_float16(65536.0) == math.inf and torch_amp.to_float16(3e-8) == 2.0 ** -24
    assert torch_amp.small_gradient(torch.float16, scaled=False) == [0.0, 0.0]
    before, after = torch_amp.small_gradient(torch.float16, scaled=True)
    assert before == pytest.approx(1e-8 * 65536, rel=1e-3) and after == pytest.approx(1e-8, rel=1e-3)
    y, after_y, cpu_lists, mse, weight = torch_amp.dtypes([0.75, -0.5], 0.125, [0.5, -1.0])
    assert (y, after_y, mse, weight) == ("float16", ["float16"] * 4, "float32", "float32")
    assert cpu_lists == ["float16"] * 4  # PyTorch's CPU lists, unlike CUDA's
    error, with_logits = torch_amp.bce_under_autocast(0.5)
    assert error is None and with_logits.item() == pytest.approx(math.log1p(math.exp(-0.5)), rel=1e-6)


@needs_torch
def test_pytorchs_side_of_lesson_7_clips_before_or_after_unscaling() -> None:
    scaled = [3.0 * 65536, 4.0 * 65536]  # true norm 5
    assert torch_amp.clipped(scaled, True, 0.01) == pytest.approx(0.01, rel=1e-4)
    assert torch_amp.clipped(scaled, False, 0.01) == pytest.approx(0.01 / 65536, rel=1e-4)
