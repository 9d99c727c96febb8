"""Exercise U5.5 — A training loop on two moons: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_5]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex09_train_moons", __file__)


class CountingSGD(mg.optim.SGD):
    """SGD that counts its steps."""

    steps = 0

    def step(self, *args: Any, **kwargs: Any) -> Any:
        self.steps += 1
        return super().step(*args, **kwargs)


def small_problem() -> tuple[Any, list[list[float]], list[int]]:
    X, y = mg.data.make_moons(12, noise=0.1, seed=3)
    return mg.nn.MLP(2, [4, 1], seed=2), X, y


def test_train_step_returns_the_loss_and_steps_once(student: ModuleType) -> None:
    model, X, y = small_problem()
    want = student.moons_loss(model, X, y).item()
    opt = CountingSGD(model.parameters(), lr=0.1)
    got = student.train_step(model, opt, X, y)
    expect(isinstance(got, float), f"train_step should return the loss as a float (loss.item()), got {got!r}")
    expect(close(got, want), f"train_step returned {show(got)}, the loss before the step is {show(want)}")
    expect(opt.steps == 1, f"train_step called optimizer.step() {opt.steps} times, expected once")


def test_gradients_do_not_leak_from_one_step_to_the_next(student: ModuleType) -> None:
    model, X, y = small_problem()
    opt = mg.optim.SGD(model.parameters(), lr=0.0)  # lr 0: the parameters, hence the gradients, stay the same
    student.train_step(model, opt, X, y)
    first = [p.grad for p in model.parameters()]
    student.train_step(model, opt, X, y)
    for p, g in zip(model.parameters(), first):
        if g and p.grad is not None and not close(p.grad, g):
            raise Mistake(
                f"with lr = 0 two train steps should see the same gradient, but {p.label}.grad went from {show(g)} "
                f"to {show(p.grad)} ({p.grad / g:.3g}×): backward ADDS into .grad — clear the gradients "
                "(optimizer.zero_grad()) before each backward")


def test_the_step_uses_this_steps_gradient(student: ModuleType) -> None:
    model, X, y = small_problem()
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    before = [p.data for p in model.parameters()]
    student.train_step(model, opt, X, y)
    expect(any(p.data != b for p, b in zip(model.parameters(), before)),
           "train_step did not change any parameter: backward before optimizer.step(), and don't clear the "
           "gradients between the two")


def test_fit_separates_the_moons(student: ModuleType) -> None:
    X, y = mg.data.make_moons(30, noise=0.1, seed=3)
    model = mg.nn.MLP(2, [8, 8, 1], seed=2)
    losses = student.fit(model, X, y, steps=30, lr=0.5)
    expect(isinstance(losses, list) and len(losses) == 30, f"fit should return the 30 losses, got {losses!r:.80}")
    acc = student.accuracy(model, X, y)
    expect(losses[-1] < losses[0], f"the loss went from {show(losses[0])} to {show(losses[-1])}: it should go down")
    expect(acc >= 0.95, f"after 30 steps the training accuracy is {acc:.0%}, expected at least 95%")
