"""Hidden tests of exercise U5.4, a minimal GradScaler: an inf or NaN in any parameter, not
only the last, and a growth interval of 1, never shown.  ``micrograd2 exercise check WORKSPACE
--tests teacher/hidden U5.4`` grades with them.
"""
from __future__ import annotations

import math
from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_4]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex08_grad_scaler", __file__)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("grads", [[math.inf, 1.0, 2.0], [1.0, math.nan, 2.0],
                                   [-math.inf, None, 1.0]],
                         ids=["inf-first", "nan-middle", "inf-then-none"])
def test_any_bad_gradient_skips_the_step(student: ModuleType, grads: list[float | None]) -> None:
    params = [mg.Value(1.0, requires_grad=True, label=f"p{i}") for i in range(len(grads))]
    for p, g in zip(params, grads):
        p.grad = g
    scaler = student.MiniGradScaler(init_scale=4.0)
    result = scaler.step(mg.optim.SGD(params, lr=0.1))
    expect(result is None and [p.data for p in params] == [1.0] * len(params),
           f"with gradients {grads} step() changed the parameters to "
           f"{[show(p.data) for p in params]}: ONE inf or NaN, wherever it is, skips the step "
           "(once found, the flag must stay set for the other parameters)")
    scaler.update()
    expect(scaler.get_scale() == 2.0, f"after the skipped step the scale is "
                                      f"{show(scaler.get_scale())}, expected 4 · 0.5 = 2")


def test_a_growth_interval_of_one_grows_after_every_clean_step(student: ModuleType) -> None:
    p = mg.Value(0.0, requires_grad=True)
    scaler = student.MiniGradScaler(init_scale=2.0, growth_interval=1, growth_factor=3.0)
    scales = []
    for grad in (1.0, 1.0, math.inf, 1.0):
        p.grad = grad
        scaler.step(mg.optim.SGD([p], lr=0.0))
        scaler.update()
        scales.append(scaler.get_scale())
    expect(scales == [6.0, 18.0, 9.0, 27.0], f"with growth_interval=1, growth_factor=3 the scales "
                                             f"are {scales}, expected [6, 18, 9, 27]")
