"""Exercise U5.4 — A minimal GradScaler: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_4]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex08_grad_scaler", __file__)


def params_and_optimizer(grads: list[float | None], lr: float = 0.1) -> tuple[list[Any], Any]:
    params = [mg.Value(1.0, requires_grad=True, label=f"p{i}") for i in range(len(grads))]
    for p, g in zip(params, grads):
        p.grad = g
    return params, mg.optim.SGD(params, lr=lr)


def test_unscale_divides_every_gradient_by_the_scale(student: ModuleType) -> None:
    scaler = student.MiniGradScaler()
    params, opt = params_and_optimizer([65536.0 * 0.5, -65536.0 * 3.0, None])
    scaler.unscale_(opt)
    got = [p.grad for p in params]
    expect(close(got[0], 0.5) and close(got[1], -3.0) and got[2] is None,
           f"after unscale_ with scale 65536 the gradients are {got}, expected [0.5, -3.0, None]: unscale_ undoes "
           "the scaling of each existing p.grad (and leaves a None gradient alone)")


def test_unscale_twice_before_update_raises(student: ModuleType) -> None:
    scaler = student.MiniGradScaler()
    _, opt = params_and_optimizer([2.0])
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
        raise Mistake("a second unscale_() before update() should raise RuntimeError('unscale_() has already "
                      "been called on this optimizer since the last update().')")


def test_step_unscales_then_steps(student: ModuleType) -> None:
    scaler = student.MiniGradScaler(init_scale=8.0)
    params, opt = params_and_optimizer([8.0 * 2.0])
    scaler.step(opt)
    expect(close(params[0].grad, 2.0), f"step() left p.grad = {show(params[0].grad)}: it must unscale first "
                                       "(p.grad = 2.0 after dividing by the scale 8)")
    expect(close(params[0].data, 1.0 - 0.1 * 2.0), f"after step() p = {show(params[0].data)}, expected 0.8: "
                                                  "call optimizer.step() when every gradient is finite")


def test_step_after_unscale_does_not_unscale_again(student: ModuleType) -> None:
    scaler = student.MiniGradScaler(init_scale=4.0)
    params, opt = params_and_optimizer([4.0])
    scaler.unscale_(opt)
    try:
        scaler.step(opt)
    except RuntimeError as error:
        raise Mistake(f"step() after unscale_() raised {error!r}: unscale only if unscale_ was not called "
                      "yet in this iteration") from None
    expect(close(params[0].data, 0.9), f"after unscale_ then step the parameter is {show(params[0].data)}, "
                                       "expected 0.9: the gradient must be divided by the scale exactly once")


@pytest.mark.filterwarnings("ignore")
def test_a_step_with_inf_or_nan_is_skipped_and_the_scale_backs_off(student: ModuleType) -> None:
    for bad in (math.inf, math.nan):
        scaler = student.MiniGradScaler()
        params, opt = params_and_optimizer([1.0, bad])
        result = scaler.step(opt)
        expect([p.data for p in params] == [1.0, 1.0],
               f"a gradient was {bad} but step() changed the parameters: skip optimizer.step() when unscale_ "
               "found an inf or NaN")
        expect(result is None, "a skipped step() should return None")
        scaler.update()
        expect(scaler.get_scale() == 32768.0, f"after a skipped step the scale is {show(scaler.get_scale())}, "
                                              "expected 65536 · backoff_factor 0.5 = 32768")
        params[1].grad = 1.0
        params[0].grad = 1.0
        scaler.step(opt)
        expect(params[0].data != 1.0, "after update() the next clean step was skipped too: update() must forget "
                                      "the inf found in the previous iteration")


def test_the_scale_grows_after_growth_interval_clean_steps(student: ModuleType) -> None:
    scaler = student.MiniGradScaler(init_scale=16.0, growth_interval=3)
    params, opt = params_and_optimizer([0.0])
    history = []
    for grad in (1.0, 1.0, 1.0, 1.0, math.inf, 1.0, 1.0, 1.0):
        params[0].grad = grad
        scaler.step(opt)
        scaler.update()
        history.append(scaler.get_scale())
    want = [16.0, 16.0, 32.0, 32.0, 16.0, 16.0, 16.0, 32.0]
    expect(history == want, f"with growth_interval=3 and an inf at the 5th step the scales are {history}, expected "
                            f"{want}: double after 3 clean steps IN A ROW (a skipped step halves the scale and "
                            "restarts the count)")


def test_matches_mg_grad_scaler_on_a_float16_training_loop(student: ModuleType) -> None:
    def run(scaler: Any) -> list[tuple[float, float]]:
        w = mg.Value(0.5, requires_grad=True, dtype="float32")
        opt = mg.optim.SGD([w], lr=0.01)
        out = []
        for x in (1.0, 2.0, 3.0, -1.0, 0.5, 0.25):
            opt.zero_grad()
            with mg.autocast(dtype="float16"):
                loss = (mg.Value(x) * w).half() * 2.0
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            out.append((w.data, scaler.get_scale()))
        return out

    got, want = run(student.MiniGradScaler(growth_interval=2)), run(mg.GradScaler(growth_interval=2))
    expect(got == want, f"(w, scale) after each step: {got}; mg.GradScaler gives {want}")
