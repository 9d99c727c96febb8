"""MUTANT (teacher/mutants/, never handed out): Checkpoint.backward recomputes f and backpropagates
from 1, ignoring the upstream gradient grad.

U4.3 — Checkpointing: trade compute for memory, and predict the saving.

A recorded graph keeps, until backward, every node of the forward pass and what each node saved
for its backward.  For a chain of N ops that is N nodes.  ``checkpoint(f, *inputs)`` keeps ONE:

* forward runs ``f`` under ``mg.no_grad()``, so nothing inside f is recorded, and saves only
  the inputs (``ctx.save_for_backward``);
* backward runs ``f`` AGAIN, on fresh leaves made from the saved inputs, with grad enabled
  (``mg.enable_grad()``: a backward runs with grad mode off), and backpropagates through that
  new graph with ``mg.autograd.grad``, which lives only as long as this backward.

The gradients are the same as without it; f runs twice.  PyTorch's
``torch.utils.checkpoint.checkpoint`` is this idea (its reentrant variant is this very design,
and like it this checkpoint gives first derivatives only: its backward is not recorded).

NOTE [What a Function's forward receives]
``Checkpoint.forward`` receives the inputs as plain floats, and ``f`` computes on Values: wrap
each float in ``mg.Value(...)`` to call ``f``, and return the result's ``.data``.

Then predict, for a chain of ``n_ops`` ops from one input, how many nodes stay alive after the
forward pass (the leaf's AccumulateGrad not counted) without and with the checkpoint; the tests
measure them.

U4 runs on the reference engine; with ``--engine DIR`` it runs on your own engine's holes too.

Check: ``micrograd2 exercise check U4.3``; hints: ``micrograd2 exercise hint U4.3``.
"""
from __future__ import annotations

from typing import Any, Callable

import micrograd2 as mg


class Checkpoint(mg.Function):
    """``f(*inputs)`` recorded as one node that saves only the inputs and recomputes f in
    backward.  ``Checkpoint.apply(f, *inputs)``: f is a plain argument (it gets None)."""

    @staticmethod
    def forward(ctx: Any, f: Callable[..., mg.Value], *inputs: float) -> float:
        # BEGIN SOLUTION
        ctx.f = f  # a function, not a Value: nothing to check for in-place changes
        ctx.save_for_backward(*inputs)
        with mg.no_grad():
            return f(*[mg.Value(x) for x in inputs]).data
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad: float) -> tuple[Any, ...]:
        # BEGIN SOLUTION
        saved = ctx.saved_tensors
        with mg.enable_grad():
            leaves = [mg.Value(float(x), requires_grad=True) for x in saved]
            grads = mg.autograd.grad(ctx.f(*leaves), leaves, allow_unused=True)  # MUTANT: grad is never multiplied in
        needs = ctx.needs_input_grad[1:]  # f first: it gets None, as a plain-number input
        return (None, *[g if need else None for g, need in zip(grads, needs)])
        # END SOLUTION


def checkpoint(f: Callable[..., mg.Value], *inputs: mg.Value) -> mg.Value:
    """``f(*inputs)``, checkpointed."""
    # BEGIN SOLUTION
    return Checkpoint.apply(f, *inputs)
    # END SOLUTION


def predicted_nodes(n_ops: int) -> tuple[int, int]:
    """For y = f(x), f a chain of ``n_ops`` one-input ops: the nodes alive after forward
    (AccumulateGrad not counted), (without the checkpoint, with it)."""
    # BEGIN SOLUTION
    return n_ops, 1
    # END SOLUTION
