"""MUTANT (teacher/mutants/, never handed out): the worksheet of SEED 12, answered right, handed in
instead of the one given out (SEED 4): the student practised on another graph, as the docstring
invites, and never put the assigned one back.

U0.1 — Gradients on paper (the graph of seed 12).

Below, a small graph is written as Python, one op per line, each value in a comment.  Work out
dL/dv for every value v by hand, from L back to the leaves, and write it into gradients(): a
number (three or four digits are enough) or an expression of the values above and of the
gradients you have already written.

The rules you need:
  * dL/dL = 1;
  * c = a + b:     dL/da = dL/dc               and  dL/db = dL/dc;
  * c = a * b:     dL/da = dL/dc * b           and  dL/db = dL/dc * a;
  * t = tanh(x):   dL/dx = dL/dt * (1 - t ** 2)     (written with the output t);
  * y = exp(x):    dL/dx = dL/dy * y;
  * y = x ** k:    dL/dx = dL/dy * k * x ** (k - 1);
  * a value used by several ops gets the SUM of what each use sends back.

Check: ``micrograd2 exercise check U0.1`` (it names the first wrong gradient and the likely
mistake).  Hints: ``micrograd2 exercise hint U0.1``.
Another graph to practise on: ``python -m micrograd2.exercises.paper 12 > u0_gradients.py``
(the checks follow this file's SEED).
"""
from __future__ import annotations

from math import exp

SEED = 12

a = 0.5
b = 1.5
c = -1.0
d = a * b   # = 0.75
f = c + d   # = -0.25
g = exp(f)  # = 0.778801
h = g * f   # = -0.1947
L = h + c   # = -1.1947


def gradients() -> dict[str, float]:
    """dL/dv for every value v above, by name.  From L back, each value and its uses:

        h is used in  L = h + c
        g is used in  h = g * f
        f is used in  g = exp(f); h = g * f
        d is used in  f = c + d
        c is used in  f = c + d; L = h + c
        b is used in  d = a * b
        a is used in  d = a * b
    """
    dL = {"L": 1.0}  # dL/dL
    # BEGIN SOLUTION: fill in dL[name] = ... for every value, from L back to the leaves
    dL["h"] = dL["L"]
    dL["g"] = dL["h"] * f
    dL["f"] = dL["g"] * g + dL["h"] * g
    dL["d"] = dL["f"]
    dL["c"] = dL["f"] + dL["L"]
    dL["b"] = dL["d"] * a
    dL["a"] = dL["d"] * b
    # END SOLUTION
    return dL
