"""IEEE arithmetic on floats: inf and nan where Python would raise."""
from __future__ import annotations

import math

from micrograd2 import ieee


def test_division_by_zero_gives_signed_inf_or_nan() -> None:
    assert ieee.div(1.0, 0.0) == math.inf and ieee.div(-1.0, 0.0) == -math.inf
    assert ieee.div(1.0, -0.0) == -math.inf and math.isnan(ieee.div(0.0, 0.0))


def test_exp_log_sqrt_pow_never_raise() -> None:
    assert ieee.exp(1e4) == math.inf and ieee.log(0.0) == -math.inf and math.isnan(ieee.log(-1.0))
    assert math.isnan(ieee.sqrt(-4.0)) and ieee.pow(0.0, -1.0) == math.inf
    assert math.isnan(ieee.pow(-8.0, 1 / 3)) and ieee.pow(10.0, 400.0) == math.inf
    assert ieee.pow(-10.0, 401.0) == -math.inf and ieee.pow(2.0, 3) == 8.0


def test_sign() -> None:
    assert [ieee.sign(v) for v in (-2.0, 0.0, 3.0)] == [-1, 0, 1] and math.isnan(ieee.sign(math.nan))
