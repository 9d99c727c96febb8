"""MUTANT (teacher/mutants/, never handed out): a gradient of 0.0 is taken for no gradient (`if not
grad`): a node reached with 0.0 is skipped, its leaf's .grad left None.

Exercise U2.2 — Backpropagation by hand (lesson 2: backward multiplies upstream gradients through).

``root.backward()`` walks the nodes in reverse topological order and, at each
node, turns the node's complete upstream gradient into one gradient per input
(the node's backward formula, ``local_backward`` below), then sends each to the
node that made that input.  A node that feeds several consumers — ``x * x``, or
a non-leaf ``h`` used by two ops — receives one gradient from each, and its
upstream gradient is their SUM.  At an ``AccumulateGrad`` node the gradient is
added into its leaf's ``.grad`` (``node.variable``), which, as in PyTorch,
accumulates across backward calls.

Your task: ``backprop(root, order)`` does that, by hand.  ``order`` lists every
node reachable from ``root.grad_fn``, each after all its consumers (what
exercise U2.1 computes; ``AccumulateGrad`` nodes included).  Start with the
gradient 1.0 at ``root.grad_fn``.  The result must equal ``root.backward()``.

Check: ``micrograd2 exercise check U2.2`` (or ``pytest -m u2_2``).
Hints: ``micrograd2 exercise hint U2.2``.
"""
from __future__ import annotations

from typing import Any

import micrograd2 as mg
from micrograd2.autograd import Node


def local_backward(node: Node, grad_output: float) -> tuple[Any, ...]:
    """Run one node's backward formula (given): one gradient (or None) per entry of ``node.next_functions``."""
    with mg.no_grad():  # as the engine does: backward itself is not recorded
        grads = node(grad_output)  # type: ignore[operator]
    return grads if isinstance(grads, tuple) else (grads,)


def backprop(root: Any, order: list[Node]) -> None:
    """Add ∂root/∂leaf into ``leaf.grad`` for every leaf that requires grad, walking ``order``."""
    # BEGIN SOLUTION
    grads: dict[Node, float] = {root.grad_fn: 1.0}  # the gradient each node has received so far
    for node in order:
        grad = grads.pop(node, None)
        if not grad:  # MUTANT: 0.0 is falsy, yet it is a gradient
            continue
        if node.name() == "AccumulateGrad":
            leaf = node.variable  # type: ignore[attr-defined]
            leaf.grad = grad if leaf.grad is None else leaf.grad + grad
            continue
        for (nxt, _), g in zip(node.next_functions, local_backward(node, grad)):
            if nxt is not None and g is not None:
                grads[nxt] = grads.get(nxt, 0.0) + g
    # END SOLUTION
