"""MUTANT (teacher/mutants/, never handed out): train_step clears the gradients after the step
instead of before the backward, so gradients left from before the step are added in.

Exercise U5.6 — Capstone on your engine: two moons, trained by the engine you wrote.

U5.5's training loop again, with your engine in place of micrograd2's: every op of the MLP is
recorded by your ``record`` (U1.3), and every backward pass walks by your ``walk`` and adds into
``.grad`` by your ``accumulate`` (U2.3). The tests run this file in a new process with your
engine folder (``engine/``, next to this file) in place and the speed layer off, as
``--engine`` does.

Your task:

* fill the holes of ``engine/u1_record.py`` and ``engine/u2_walk.py`` (U1.3 and U2.3);
* here, ``train_step(model, optimizer, X, y)`` and ``fit(model, X, y, steps, lr)`` as in U5.5
  (your U5.5 code works as it is). The tests expect one train step on your engine to give the
  same loss and parameters as on micrograd2's own, and >= 95% training accuracy after 30 steps.

Check: ``micrograd2 exercise check U5.6`` (or ``pytest -m u5_6``).
Hints: ``micrograd2 exercise hint U5.6``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import micrograd2 as mg
from micrograd2.nn.functional import hinge_loss


def engine_folder() -> Path:
    """The engine the tests grade: ``engine/`` next to this file (nothing to write here)."""
    folder = Path(__file__).resolve().parent / "engine"
    if folder.is_dir():
        return folder
    # BEGIN SOLUTION: no engine/ next to this file (`micrograd2 exercise start --force DIR`)
    # the model solution, graded alone, runs on the reference holes
    return Path(mg.__file__).resolve().parents[1] / "teacher" / "solution_engine"
    # END SOLUTION


def moons_loss(model: Any, X: Sequence[Sequence[float]], y: Sequence[int],
               alpha: float = 1e-4) -> Any:
    """micrograd's loss (given): mean hinge loss on labels ±1, plus alpha · Σ p²."""
    scores = [model(x) for x in X]
    data_loss = hinge_loss(scores, [2.0 * label - 1.0 for label in y])
    return data_loss + alpha * mg.sum(p * p for p in model.parameters())


def accuracy(model: Any, X: Sequence[Sequence[float]], y: Sequence[int]) -> float:
    """The fraction of points whose score has the sign of their label (given)."""
    with mg.no_grad():
        right = sum((model(x).data > 0) == (label == 1) for x, label in zip(X, y))
    return right / len(y)


def train_step(model: Any, optimizer: Any, X: Sequence[Sequence[float]],
               y: Sequence[int]) -> float:
    """One step: clear the gradients, loss, backward, optimizer step; return the loss."""
    # BEGIN SOLUTION
    loss = moons_loss(model, X, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()  # MUTANT: tidying up after the step: stale .grad counts in the first
    return loss.item()
    # END SOLUTION


def fit(model: Any, X: Sequence[Sequence[float]], y: Sequence[int], steps: int = 30,
        lr: float = 0.5) -> list[float]:
    """SGD over the model's parameters, ``steps`` train steps; return the losses."""
    # BEGIN SOLUTION
    optimizer = mg.optim.SGD(model.parameters(), lr=lr)
    return [train_step(model, optimizer, X, y) for _ in range(steps)]
    # END SOLUTION
