"""Hidden tests of exercise U5.5, the training loop: a step on a model that already holds
gradients, and another problem to fit, never shown.  ``micrograd2 exercise check WORKSPACE
--tests teacher/hidden U5.5`` grades with them.
"""
from __future__ import annotations

from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_5]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex09_train_moons", __file__)


def test_a_step_after_an_earlier_backward_uses_this_steps_gradient(student: ModuleType) -> None:
    X, y = mg.data.make_moons(10, noise=0.1, seed=8)
    model = mg.nn.MLP(2, [4, 1], seed=8)
    reference = mg.nn.MLP(2, [4, 1], seed=8)
    student.moons_loss(model, X[:3], y[:3]).backward()  # a gradient computed earlier, to log it
    student.train_step(model, mg.optim.SGD(model.parameters(), lr=0.2), X, y)
    opt = mg.optim.SGD(reference.parameters(), lr=0.2)
    opt.zero_grad()
    student.moons_loss(reference, X, y).backward()
    opt.step()
    for p, r in zip(model.parameters(), reference.parameters()):
        expect(close(p.data, r.data, rel=1e-9),
               f"a train step on a model whose .grad held an earlier gradient left {p.label} = "
               f"{show(p.data)}, a step from clean gradients gives {show(r.data)}: clear the "
               "gradients BEFORE the backward, not after the step")


def test_fit_on_another_draw(student: ModuleType) -> None:
    X, y = mg.data.make_moons(24, noise=0.05, seed=13)
    model = mg.nn.MLP(2, [8, 8, 1], seed=4)
    losses = student.fit(model, X, y, steps=25, lr=0.5)
    expect(len(losses) == 25 and losses[-1] < losses[0],
           f"fit(steps=25) returned {len(losses)} losses, from {show(losses[0])} to "
           f"{show(losses[-1])}: one loss per step, going down")
