"""IEEE-754 arithmetic on Python floats, as PyTorch computes it: results, never exceptions.

Python raises where IEEE arithmetic gives ``inf`` or ``nan`` (``1/0``,
``math.exp(1000)``, ``math.log(0)``); PyTorch doesn't, and neither does micrograd2.
"""
from __future__ import annotations

import math

inf = math.inf
nan = math.nan


def _nan() -> float:
    """A new nan object each time: the autograd core tells an op's saved inputs from its output by
    identity, so an op must not return ``math.nan`` itself when an input may be that very object."""
    return float("nan")


def div(a: float, b: float) -> float:
    """a / b, with ``x/0 = ±inf`` and ``0/0 = nan``."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or a != a:
            return _nan()
        return math.copysign(inf, a) * math.copysign(1.0, b)


def exp(x: float) -> float:
    """e**x, ``inf`` past the float range."""
    try:
        return math.exp(x)
    except OverflowError:
        return inf


def log(x: float) -> float:
    """Natural log: ``log(0) = -inf``, ``log(x<0) = nan``."""
    if x > 0:
        return math.log(x)
    return -inf if x == 0 else _nan()


def sqrt(x: float) -> float:
    """Square root: ``nan`` for x < 0 (and √−0 = −0)."""
    return math.sqrt(x) if x >= 0 else _nan()


def pow(x: float, p: float) -> float:
    """x**p as C's ``pow``: real results only (``nan`` where Python would give a complex)."""
    try:
        r = math.pow(x, p)
    except OverflowError:
        r = inf if x > 0 or float(p).is_integer() and p % 2 == 0 else -inf
    except ValueError:  # 0 ** negative, or negative ** fraction
        if x == 0:
            return inf if math.copysign(1.0, x) > 0 or float(p) % 2 != 1 else -inf
        return _nan()
    return r


def pow_scalar(x: float, p: float) -> float:
    """x ** p for a number p as PyTorch's pow(Tensor, Scalar) kernel computes it: x·x for p = 2, x·x·x
    for 3, 1/x and 1/(x·x) for −1 and −2, √x and 1/√x for ½ and −½ (so (−0)^½ = −0 and (−inf)^½ = nan,
    where C's pow gives 0 and inf); any other p with C's ``pow``."""
    if p == 2:
        return x * x
    if p == 3:
        return x * x * x
    if p == -1:
        return div(1.0, x)
    if p == -2:
        return div(1.0, x * x)
    if p == 0.5:
        return sqrt(x)
    if p == -0.5:
        return div(1.0, sqrt(x))
    return pow(x, p)


def sgn(x: float) -> float:
    """-1.0, 0.0 or 1.0, and 0.0 at nan: PyTorch's ``sgn`` (abs's derivative)."""
    return float((x > 0) - (x < 0))


def sign(x: float) -> float:
    """-1.0, 0.0 or 1.0 (``nan`` stays ``nan``)."""
    return (x > 0) - (x < 0) if x == x else _nan()
