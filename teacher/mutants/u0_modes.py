"""MUTANT (teacher/mutants/, never handed out): cheaper_mode weighs a dual-number op as two ops
(value and tangent) and picks forward mode only when m ≥ 2n; the question is which needs fewer
passes.

U0.2 — Forward mode vs reverse mode, counted before you run them.

Take f(x1, x2, x3, x4): one output, n = 4 inputs, written as N = 5 ops:

    v1 = x1 * x2
    v2 = v1 + x3
    v3 = tanh(v2)
    v4 = v3 * x4
    y  = v4 + v1

FORWARD MODE runs the ops on dual numbers x + ẋ·ε (with ε² = 0): each op computes its value
and its tangent, its derivative along ONE chosen direction, in the same step; for v1 = x1 * x2,
v̇1 = ẋ1 * x2 + x1 * ẋ2.  Tangents ẋ1 = 1, ẋ2 = ẋ3 = ẋ4 = 0 give ẏ = ∂y/∂x1 at the end of the pass.

REVERSE MODE runs the ops forward once, recording the graph, then walks it backward once from y:
each node's backward call sends dy/d(its output) on to its inputs (what U0.1 did by hand), and
the walk ends with dy/dx for every input.

Predict what each mode costs for the whole gradient (all n partial derivatives) of ANY
f: R^n -> R made of N ops, every op's value used, and which mode needs fewer passes for a
Jacobian of f: R^n -> R^m.  Count on paper with the f above first.

Check: ``micrograd2 exercise check U0.2``: the tests RUN both modes on random functions (dual
numbers, and micrograd2's backward, counted) and compare what they measure with your answers.
Hints: ``micrograd2 exercise hint U0.2``.
"""
from __future__ import annotations


def forward_mode_cost(n_inputs: int, n_ops: int) -> tuple[int, int]:
    """Forward mode on f: R^n -> R of ``n_ops`` ops: (passes over the ops, dual-number ops
    evaluated in all the passes together)."""
    # BEGIN SOLUTION
    return n_inputs, n_inputs * n_ops  # one pass per input direction, every op in every pass
    # END SOLUTION


def reverse_mode_cost(n_inputs: int, n_ops: int) -> tuple[int, int]:
    """Reverse mode on f: R^n -> R of ``n_ops`` ops, after its one forward pass: (backward
    passes, backward calls of nodes in all, the leaves' AccumulateGrad not counted)."""
    # BEGIN SOLUTION
    return 1, n_ops  # one walk from the output reaches every input; each node is called once
    # END SOLUTION


def cheaper_mode(n_inputs: int, n_outputs: int) -> str:
    """``"forward"`` or ``"reverse"``: the mode that needs fewer passes for the whole Jacobian of
    f: R^n -> R^m (n and m differ)."""
    # BEGIN SOLUTION
    return "forward" if n_outputs >= 2 * n_inputs else "reverse"  # MUTANT: op cost, not passes
    # END SOLUTION
