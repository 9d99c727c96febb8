"""MUTANT (teacher/mutants/, never handed out): record_norms logs abs(grad) without float(): under
create_graph=True the log holds Values (with their graph), not numbers.

U4.2 — Hooks: clip each gradient, and log each gradient's norm by name.

``v.register_hook(fn)`` asks the backward walk to call ``fn(grad)`` with the gradient of ``v``
(the sum over all of v's uses) once it is complete, before it goes on to v's inputs.  If ``fn``
returns a number, that number REPLACES the gradient: everything below v (a leaf's ``.grad``
too) then receives the new one.  If it returns ``None``, the gradient goes on unchanged.  Hooks
on one Value run in the order they were registered, each receiving what the one before returned
(PyTorch's rules, ``torch.Tensor.register_hook``).

Write:

* ``clip_gradients(values, limit)``: on each Value a hook that clamps its gradient to
  [-limit, limit]; return the handles (``handle.remove()`` takes a hook off again);
* ``record_norms(named)``: for a dict name -> Value, a hook on each Value that appends
  ``(name, |gradient|)`` to one list and changes nothing; return that list, which the backward
  passes fill in the order the hooks fire.

U4 runs on the reference engine; with ``--engine DIR`` it runs on your own engine's holes too.

Check: ``micrograd2 exercise check U4.2``; hints: ``micrograd2 exercise hint U4.2``.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import micrograd2 as mg


def clamp_hook(limit: float) -> Callable[[Any], Any]:
    """A hook that returns its gradient clamped to [-limit, limit]."""
    # BEGIN SOLUTION
    def hook(grad: Any) -> Any:
        return max(-limit, min(limit, grad))

    return hook
    # END SOLUTION


def clip_gradients(values: Sequence[mg.Value], limit: float) -> list[Any]:
    """A clamping hook on each of ``values``; the handles, in the same order."""
    # BEGIN SOLUTION
    return [v.register_hook(clamp_hook(limit)) for v in values]
    # END SOLUTION


def record_norms(named: Mapping[str, mg.Value]) -> list[tuple[str, float]]:
    """A hook on each Value of ``named`` that appends ``(name, |grad|)`` to the list returned,
    leaving the gradient as it is."""
    # BEGIN SOLUTION
    log: list[tuple[str, float]] = []

    def recorder(name: str) -> Callable[[Any], None]:
        def hook(grad: Any) -> None:
            log.append((name, abs(grad)))  # MUTANT: a Value under create_graph

        return hook

    for name, value in named.items():
        value.register_hook(recorder(name))
    return log
    # END SOLUTION
