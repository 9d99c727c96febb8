"""MUTANT (teacher/mutants/, never handed out): train_step clears the gradients after the step
instead of before the backward, so gradients left from before the step are added in.

Exercise U5.5 — A training loop on two moons (lesson 7: the engineering rules).

An MLP (``mg.nn.MLP(2, [8, 8, 1])``) learns to separate two interleaving half
circles (``mg.data.make_moons``).  ``moons_loss`` (given) is micrograd's
max-margin loss — the mean of relu(1 − yᵢ·scoreᵢ) with labels ±1 — plus a small
L2 penalty.  ``accuracy`` (given) counts the points on the right side.

Your task:

* ``train_step(model, optimizer, X, y)``: one step of gradient descent — clear
  the gradients, compute ``moons_loss``, backpropagate, let the optimizer
  update the parameters — and return the loss as a float.  The gradients of
  earlier steps must not leak into this one (backward accumulates!).
* ``fit(model, X, y, steps, lr)``: make ``mg.optim.SGD`` over the model's
  parameters with learning rate ``lr`` and run ``steps`` train steps; return the
  list of losses.  The tests expect ≥ 95% training accuracy.

Check: ``micrograd2 exercise check U5.5`` (or ``pytest -m u5_5``).
Hints: ``micrograd2 exercise hint U5.5``.
"""
from __future__ import annotations

from typing import Any, Sequence

import micrograd2 as mg
from micrograd2.nn.functional import hinge_loss


def moons_loss(model: Any, X: Sequence[Sequence[float]], y: Sequence[int], alpha: float = 1e-4) -> Any:
    """micrograd's loss (given): mean hinge loss on labels ±1, plus alpha · Σ p²."""
    scores = [model(x) for x in X]
    data_loss = hinge_loss(scores, [2.0 * label - 1.0 for label in y])
    return data_loss + alpha * mg.sum(p * p for p in model.parameters())


def accuracy(model: Any, X: Sequence[Sequence[float]], y: Sequence[int]) -> float:
    """The fraction of points whose score has the sign of their label (given)."""
    with mg.no_grad():
        right = sum((model(x).data > 0) == (label == 1) for x, label in zip(X, y))
    return right / len(y)


def train_step(model: Any, optimizer: Any, X: Sequence[Sequence[float]], y: Sequence[int]) -> float:
    """One step: clear the gradients, loss, backward, optimizer step; return the loss."""
    # BEGIN SOLUTION
    loss = moons_loss(model, X, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()  # MUTANT: tidying up after the step: stale .grad counts in the first
    return loss.item()
    # END SOLUTION


def fit(model: Any, X: Sequence[Sequence[float]], y: Sequence[int], steps: int = 40, lr: float = 0.5) -> list[float]:
    """SGD over the model's parameters, ``steps`` train steps; return the losses."""
    # BEGIN SOLUTION
    optimizer = mg.optim.SGD(model.parameters(), lr=lr)
    return [train_step(model, optimizer, X, y) for _ in range(steps)]
    # END SOLUTION
