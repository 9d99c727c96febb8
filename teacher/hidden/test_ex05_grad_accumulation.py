"""Hidden tests of exercise U5.1, gradient accumulation: a parameter the loss does not use,
other batch sizes, micro-batches of one sample, never shown.  ``micrograd2 exercise check
WORKSPACE --tests teacher/hidden U5.1`` grades with them.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any, Sequence

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_1]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex05_grad_accumulation", __file__)


def problem(n: int, seed: int) -> tuple[Any, list[Any], Any]:
    model = mg.nn.MLP(2, [4, 1], seed=seed)
    X, y = mg.data.make_moons(n, noise=0.2, seed=seed)
    batch = list(zip(X, y))

    def loss_fn(samples: Sequence[Any]) -> Any:
        return mg.nn.functional.mse_loss([model(x) for x, _ in samples],
                                         [float(t) for _, t in samples])

    return model, batch, loss_fn


@pytest.mark.parametrize("n, n_micro", [(12, 3), (6, 6), (10, 5)])
def test_other_batches_and_micro_batch_counts(student: ModuleType, n: int, n_micro: int) -> None:
    model, batch, loss_fn = problem(n, 11 + n)
    model.zero_grad()
    full = loss_fn(batch)
    full.backward()
    want = [p.grad for p in model.parameters()]
    model.zero_grad()
    total = student.accumulate_gradients(model.parameters(), batch, loss_fn, n_micro)
    for p, w in zip(model.parameters(), want):
        expect(close(p.grad, w), f"{n} samples in {n_micro} micro-batches: {p.label}.grad is "
                                 f"{show(p.grad)}, the full-batch gradient is {show(w)}")
    expect(close(total, full.item(), rel=1e-9),
           f"{n} samples in {n_micro} micro-batches returned {show(total)}, the full-batch loss "
           f"is {show(full.item())}")


def test_a_parameter_the_loss_does_not_use_keeps_no_gradient(student: ModuleType) -> None:
    model, batch, loss_fn = problem(8, 3)
    unused = mg.Value(0.5, requires_grad=True, label="unused")
    unused.grad = 7.0  # stale, from some earlier pass
    student.accumulate_gradients([*model.parameters(), unused], batch, loss_fn, 2)
    expect(unused.grad is None,
           f"a parameter the loss never uses ends with .grad = {show(unused.grad)}; the full-batch "
           "backward leaves it None: clear gradients to None (as zero_grad does), not to 0.0, "
           "which says a gradient was computed")
