"""MUTANT (teacher/mutants/, never handed out): the gradients are cleared to 0.0 instead of None, so
a parameter the loss never uses ends with 0.0 where the full batch leaves None.

Exercise U5.1 — Gradient accumulation over micro-batches (lesson 3: backward does not reset .grad).

A batch too big for memory is split into micro-batches: each one builds its
own small graph, runs ``backward()`` and frees it, and because ``backward()``
ADDS into ``.grad``, the gradients pile up into the gradient of the whole
batch — provided each micro-batch's loss is weighted right.

Your task: ``accumulate_gradients(params, batch, loss_fn, n_micro)`` leaves in
every ``p.grad`` (for ``p`` in ``params``) exactly the gradient of
``loss_fn(batch)``, the MEAN loss over the whole batch, while only ever calling
``loss_fn`` on one micro-batch at a time.  ``batch`` is a list of samples whose
length is a multiple of ``n_micro``; split it into ``n_micro`` equal,
consecutive micro-batches.  ``loss_fn(samples)`` returns the mean loss over
``samples`` as a Value.  Start from clean gradients (whatever ``.grad`` held
before must not count), and return the full-batch loss as a float.

Check: ``micrograd2 exercise check U5.1`` (or ``pytest -m u5_1``).
Hints: ``micrograd2 exercise hint U5.1``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence


def accumulate_gradients(params: Sequence[Any], batch: Sequence[Any], loss_fn: Callable[[Sequence[Any]], Any],
                         n_micro: int) -> float:
    """Fill each ``p.grad`` with the gradient of the full batch's mean loss, one micro-batch at a time."""
    if n_micro < 1 or len(batch) % n_micro:
        raise ValueError(f"a batch of {len(batch)} samples can't be split into {n_micro} equal micro-batches")
    # BEGIN SOLUTION
    for p in params:
        p.grad = 0.0  # MUTANT: zero_grad sets None, as PyTorch's does
    size = len(batch) // n_micro
    total = 0.0
    for k in range(n_micro):
        loss = loss_fn(batch[k * size:(k + 1) * size]) / n_micro  # each micro-batch is 1/n_micro of the mean
        loss.backward()
        total += loss.item()
    return total
    # END SOLUTION
