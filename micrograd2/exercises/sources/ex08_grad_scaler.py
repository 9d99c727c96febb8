"""Exercise U5.4 — A minimal GradScaler (lesson 6: mixed precision).

In float16 small gradients underflow to 0.  Loss scaling multiplies the loss by
a big factor S (2¹⁶ at first) before backward, so every gradient is S times
bigger; the gradients are divided by S again ("unscaled") before the optimizer
uses them.  If S was too big, some gradient overflows to inf (or NaN): that
step is skipped and S is halved.  After ``growth_interval`` clean steps in a
row, S is doubled.  The training loop reads, as with PyTorch's GradScaler::

    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)      # optional: e.g. to clip gradients first
    scaler.step(optimizer)
    scaler.update()

Your task: write ``unscale_``, ``step`` and ``update`` of ``MiniGradScaler`` (one
optimizer) with the semantics of ``torch.amp.GradScaler`` and ``mg.GradScaler``:

* ``unscale_(optimizer)``: multiply every existing ``p.grad`` by 1/S and note
  whether any gradient is inf or NaN.  Calling it a second time before
  ``update()`` raises ``RuntimeError("unscale_() has already been called on this
  optimizer since the last update().")``.
* ``step(optimizer)``: unscale first unless ``unscale_`` was already called; then
  call ``optimizer.step()`` and return its result, or skip it (return None)
  when a gradient was inf or NaN.
* ``update()``: after a skipped step, S ← S·backoff_factor and the count of
  clean steps restarts from 0; otherwise the count grows by one, and when it
  reaches ``growth_interval``, S ← S·growth_factor and the count restarts.
  Then the next iteration starts afresh (not unscaled, no inf found).

Check: ``micrograd2 exercise check U5.4`` (or ``pytest -m u5_4``).
Hints: ``micrograd2 exercise hint U5.4``.
"""
from __future__ import annotations

import math  # noqa: F401 - unused in the stub, needed by a solution
from typing import Any

import micrograd2 as mg


def parameters_of(optimizer: Any) -> list[Any]:
    """Every parameter an optimizer updates (given): PyTorch's ``param_groups`` layout."""
    return [p for group in optimizer.param_groups for p in group["params"]]


class MiniGradScaler:
    """Dynamic loss scaling for one optimizer."""

    def __init__(self, init_scale: float = 65536.0, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000) -> None:
        self._scale = float(init_scale)
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval
        self._growth_tracker = 0  # clean steps in a row
        self._unscaled = False  # has unscale_ run since the last update()?
        self._found_inf = False  # did unscale_ see an inf/NaN gradient?

    def scale(self, loss: Any) -> Any:
        """loss · S (given).  S is a float32 number, as PyTorch's scaler keeps it, and dtype promotion
        decides the result: a 0-d float16/bfloat16 loss (a Value) becomes float32, a Tensor loss with
        dimensions stays in its dtype, a float64 loss stays float64."""
        factor = mg.tensor(self._scale, dtype="float32") if isinstance(loss, mg.Tensor) else \
            mg.Value(self._scale, dtype="float32")
        return loss * factor

    def get_scale(self) -> float:
        """The current scale S (given)."""
        return self._scale

    def unscale_(self, optimizer: Any) -> None:
        """Divide every gradient by S; note any inf/NaN."""
        raise NotImplementedError("Exercise U5.4: implement MiniGradScaler.unscale_")

    def step(self, optimizer: Any) -> Any:
        """Unscale unless done, then ``optimizer.step()`` unless a gradient was inf/NaN."""
        raise NotImplementedError("Exercise U5.4: implement MiniGradScaler.step")

    def update(self) -> None:
        """Back off after a skipped step, grow after ``growth_interval`` clean ones; start a new iteration."""
        raise NotImplementedError("Exercise U5.4: implement MiniGradScaler.update")
