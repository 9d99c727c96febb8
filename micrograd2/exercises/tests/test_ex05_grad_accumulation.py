"""Exercise U5.1 — Gradient accumulation: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

from types import ModuleType
from typing import Any, Sequence

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_1]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex05_grad_accumulation", __file__)


def setup(n: int = 8) -> tuple[Any, list[Any], Any]:
    model = mg.nn.MLP(2, [3, 1], seed=7)
    X, y = mg.data.make_moons(n, noise=0.1, seed=5)
    batch = list(zip(X, y))

    def loss_fn(samples: Sequence[Any]) -> Any:
        return mg.nn.functional.mse_loss([model(x) for x, _ in samples], [float(t) for _, t in samples])

    return model, batch, loss_fn


def full_batch(model: Any, batch: list[Any], loss_fn: Any) -> tuple[list[float], float]:
    model.zero_grad()
    loss = loss_fn(batch)
    loss.backward()
    grads = [p.grad for p in model.parameters()]
    model.zero_grad()
    return grads, loss.item()


def compare(model: Any, expected: list[float], what: str, n_micro: int) -> None:
    for p, want in zip(model.parameters(), expected):
        got = p.grad
        if close(got, want):
            continue
        ratio = f" ({got / want:.3g}× the right value)" if got is not None and want else ""
        advice = ""
        if got is not None and want and close(got / want, n_micro, rel=1e-6):
            advice = (f": each micro-batch's mean loss counts for 1/{n_micro} of the batch's mean — divide it by "
                      "n_micro before backward (the missing normalization)")
        elif got is None:
            advice = ": call backward() on each micro-batch's loss"
        raise Mistake(f"{what}: {p.label}.grad is {show(got)}, the full-batch gradient is "
                             f"{show(want)}{ratio}{advice}")


def test_accumulated_gradients_equal_the_full_batch_gradient(student: ModuleType) -> None:
    for n_micro in (1, 2, 4):
        model, batch, loss_fn = setup()
        expected, _ = full_batch(model, batch, loss_fn)
        student.accumulate_gradients(model.parameters(), batch, loss_fn, n_micro)
        compare(model, expected, f"8 samples in {n_micro} micro-batches", n_micro)


def test_returns_the_full_batch_loss(student: ModuleType) -> None:
    model, batch, loss_fn = setup()
    _, loss = full_batch(model, batch, loss_fn)
    got = student.accumulate_gradients(model.parameters(), batch, loss_fn, 4)
    expect(close(got, loss, rel=1e-9), f"accumulate_gradients returned {show(got)}, the full-batch mean loss is "
                                       f"{show(loss)} — return the sum of the normalized micro-batch losses")


def test_old_gradients_do_not_count(student: ModuleType) -> None:
    model, batch, loss_fn = setup()
    expected, _ = full_batch(model, batch, loss_fn)
    for p in model.parameters():
        p.grad = 100.0
    student.accumulate_gradients(model.parameters(), batch, loss_fn, 2)
    stale = [p.label for p, want in zip(model.parameters(), expected) if close(p.grad, want + 100.0)]
    expect(not stale, f"{stale[0] if stale else ''}.grad still holds the 100.0 it had before: clear every "
                      "p.grad (p.grad = None) before the first micro-batch")
    compare(model, expected, "starting from stale gradients", 2)


def test_builds_one_micro_batch_at_a_time(student: ModuleType) -> None:
    model, batch, loss_fn = setup()
    sizes: list[int] = []

    def spy(samples: Sequence[Any]) -> Any:
        sizes.append(len(samples))
        return loss_fn(samples)

    student.accumulate_gradients(model.parameters(), batch, spy, 4)
    expect(sizes == [2, 2, 2, 2], f"loss_fn was called on {sizes} samples; with 8 samples in 4 micro-batches it "
                                  "should see [2, 2, 2, 2] — never the whole batch at once")
