"""MUTANT (teacher/mutants/, never handed out): a terminal transition's bootstrap is masked by
multiplying with (1 − done), so an inf or NaN from target_net(s2) still reaches y (0 · inf = NaN).

Exercise U5.2 — A detached target network (lesson 4: the boundary of detach and no_grad).

In Q-learning the online network ``q_net`` learns to predict
``y = r + γ · target_net(s′)`` (just ``r`` when the episode is done).  The target
``y`` is a constant for the loss: no gradient may flow into ``target_net``, and
``q_net``'s gradient must come only through its prediction ``q_net(s)`` — even
when ``target_net`` IS ``q_net`` (semi-gradient TD learning).  Every so often the
target network moves a little towards the online one (a "soft update").

Your task:

* ``td_loss(q_net, target_net, batch, gamma)``: the mean over the transitions
  ``(s, r, s2, done)`` of ``(q_net(s) − y)²``, with ``y`` computed under
  ``mg.no_grad()`` (or detached).  Networks map a state (a list of floats) to one Value.
* ``soft_update(target_net, q_net, tau)``: θ′ ← (1 − τ)·θ′ + τ·θ for each pair of
  parameters, IN PLACE (``mul_``, ``add_``…) on the target's own parameter Values,
  under ``mg.no_grad()`` — as optimizers update parameters.

Check: ``micrograd2 exercise check U5.2`` (or ``pytest -m u5_2``).
Hints: ``micrograd2 exercise hint U5.2``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import micrograd2 as mg  # noqa: F401 - unused in the stub, needed by a solution

Transition = tuple[Sequence[float], float, Sequence[float], bool]  # (s, r, s2, done)


def td_loss(q_net: Callable[[Any], Any], target_net: Callable[[Any], Any], batch: Sequence[Transition],
            gamma: float) -> Any:
    """Mean of (q_net(s) − y)² with y = r + γ·target_net(s2) (y = r when done), y a constant."""
    # BEGIN SOLUTION
    errors = []
    for s, r, s2, done in batch:
        with mg.no_grad():
            y = r + (1 - done) * gamma * target_net(s2)  # MUTANT: a mask still evaluates target_net(s2)
        errors.append((q_net(s) - y) ** 2)
    return mg.sum(errors) / len(errors)
    # END SOLUTION


def soft_update(target_net: Any, q_net: Any, tau: float) -> None:
    """θ′ ← (1 − τ)·θ′ + τ·θ in place, for θ′ in target_net.parameters(), θ in q_net.parameters()."""
    # BEGIN SOLUTION
    with mg.no_grad():
        for target_p, p in zip(target_net.parameters(), q_net.parameters()):
            target_p.mul_(1 - tau).add_(tau * p.data)
    # END SOLUTION
