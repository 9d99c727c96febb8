"""U0.1 — Gradients on paper (the graph of seed 4).

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

from math import exp, tanh

SEED = 4

a = -1.5
b = 0.5
c = 1.0
d = a ** 3   # = -3.375
f = b * d    # = -1.6875
g = exp(c)   # = 2.71828
h = tanh(f)  # = -0.933828
k = g * h    # = -2.53841
L = k + g    # = 0.179874


def gradients() -> dict[str, float]:
    """dL/dv for every value v above, by name.  From L back, each value and its uses:

        k is used in  L = k + g
        h is used in  k = g * h
        g is used in  k = g * h; L = k + g
        f is used in  h = tanh(f)
        d is used in  f = b * d
        c is used in  g = exp(c)
        b is used in  f = b * d
        a is used in  d = a ** 3
    """
    dL = {"L": 1.0}  # dL/dL
    # BEGIN SOLUTION: fill in dL[name] = ... for every value, from L back to the leaves
    dL["k"] = dL["L"]
    dL["h"] = dL["k"] * g
    dL["g"] = dL["k"] * h + dL["L"]
    dL["f"] = dL["h"] * (1 - h ** 2)
    dL["d"] = dL["f"] * b
    dL["c"] = dL["g"] * g
    dL["b"] = dL["f"] * d
    dL["a"] = dL["d"] * 3 * a ** 2
    # END SOLUTION
    return dL
