"""The floating-point formats a Value can have, and how a float is rounded to each.

A Python float is an IEEE 754 binary64 number. The narrower formats keep fewer
significant bits (the precision ``p``) and a smaller range of exponents::

    format     p    emin   emax    largest finite
    float64   53   -1022   1023    1.7976931348623157e308
    float32   24    -126    127    3.4028234663852886e38
    float16   11     -14     15    65504.0
    bfloat16   8    -126    127    3.3895313892515355e38

``round_to`` rounds a float once, straight from binary64, the way hardware does:
to the nearest representable number, ties to the one with an even last bit,
with subnormals, overflow to infinity, and signed zeros, infinities and nans
passed through.
"""
from __future__ import annotations

import math
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

FLOAT64 = "float64"
FLOAT32 = "float32"
FLOAT16 = "float16"
BFLOAT16 = "bfloat16"
DTYPES = (FLOAT64, FLOAT32, FLOAT16, BFLOAT16)

_ALIASES = {"double": FLOAT64, "float": FLOAT32, "half": FLOAT16}
_CANONICAL = {**{name: name for name in DTYPES}, **_ALIASES}


# ---------------------------------------------------------------- names


def check_dtype(dtype: object) -> str:
    """The canonical name of ``dtype`` (the module constant itself, so ``is`` works).

    Accepts the four names, the aliases ``double``, ``float`` and ``half``, and
    objects that print as a name, such as ``torch.float16``.
    """
    name = dtype if isinstance(dtype, str) else str(dtype)
    name = name.removeprefix("torch.")
    if name in _CANONICAL:
        return _CANONICAL[name]
    valid = ", ".join(repr(n) for n in (*DTYPES, *_ALIASES))
    message = f"unknown dtype {dtype!r}; expected one of {valid}"
    if isinstance(dtype, str):
        raise ValueError(message)
    raise TypeError(f"{message} (got a {type(dtype).__name__})")


_RANK = {FLOAT64: 3, FLOAT32: 2, FLOAT16: 1, BFLOAT16: 1}  # width, for promotion


def promote(a: str, b: str) -> str:
    """PyTorch's result dtype for an op on ``a`` and ``b``: the wider one wins.

    float16 and bfloat16 are equally wide but different, so they meet in float32.
    """
    a, b = check_dtype(a), check_dtype(b)
    if a is b:
        return a
    if _RANK[a] == _RANK[b]:
        return FLOAT32
    return a if _RANK[a] > _RANK[b] else b


# ---------------------------------------------------------------- formats


class _Format(NamedTuple):
    """A binary floating-point format: ``p`` significant bits, exponents ``emin..emax``."""

    p: int
    emin: int
    emax: int


_FORMATS = {
    FLOAT32: _Format(p=24, emin=-126, emax=127),
    FLOAT16: _Format(p=11, emin=-14, emax=15),
    BFLOAT16: _Format(p=8, emin=-126, emax=127),
}
_BITS = {FLOAT64: 64, FLOAT32: 32, FLOAT16: 16, BFLOAT16: 16}


@dataclass(frozen=True)
class FInfo:
    """Machine limits of a format, like ``torch.finfo``."""

    bits: int
    max: float  # largest finite number
    tiny: float  # smallest positive normal number, 2**emin
    smallest_subnormal: float  # 2**(emin - p + 1)
    eps: float  # gap between 1.0 and the next number, 2**(1 - p)


def _finfo_of(fmt: _Format, bits: int) -> FInfo:
    eps = 2.0 ** (1 - fmt.p)
    return FInfo(
        bits=bits,
        max=(2.0 - eps) * 2.0**fmt.emax,
        tiny=2.0**fmt.emin,
        smallest_subnormal=2.0 ** (fmt.emin - fmt.p + 1),
        eps=eps,
    )


_FINFO = {name: _finfo_of(fmt, _BITS[name]) for name, fmt in _FORMATS.items()}
_FINFO[FLOAT64] = FInfo(
    bits=64,
    max=sys.float_info.max,
    tiny=sys.float_info.min,
    smallest_subnormal=sys.float_info.min * sys.float_info.epsilon,
    eps=sys.float_info.epsilon,
)


def finfo(dtype: object) -> FInfo:
    """The limits of ``dtype``: bits, max, tiny, smallest_subnormal, eps."""
    return _FINFO[check_dtype(dtype)]


# ---------------------------------------------------------------- rounding


def _round_exact(x: float, fmt: _Format) -> float:
    """Round ``x`` to ``fmt`` with exact arithmetic: count it in ulps, round(), scale back.

    Scaling by a power of two is exact, and Python's ``round`` breaks ties to even.
    """
    if x == 0.0 or not math.isfinite(x):
        return x  # signed zeros, infinities and nans pass through
    half_ulp_above_max = (2.0 - 2.0**-fmt.p) * 2.0**fmt.emax
    if abs(x) >= half_ulp_above_max:
        return math.copysign(math.inf, x)
    _, e = math.frexp(x)  # |x| = m * 2**e with 1/2 <= m < 1
    ulp_exponent = max(e - fmt.p, fmt.emin - fmt.p + 1)  # subnormals share the smallest ulp
    ulps = round(math.ldexp(abs(x), -ulp_exponent))
    return math.copysign(math.ldexp(ulps, ulp_exponent), x)


_FLOAT32_STRUCT = struct.Struct("<f")
_FLOAT16_STRUCT = struct.Struct("<e")


def _round_float32(x: float) -> float:
    """binary32: let ``struct`` do it (hardware rounding); it raises past the range."""
    try:
        return _FLOAT32_STRUCT.unpack(_FLOAT32_STRUCT.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _round_float16(x: float) -> float:
    """binary16: let ``struct`` do it (CPython rounds half to even); it raises past the range."""
    try:
        return _FLOAT16_STRUCT.unpack(_FLOAT16_STRUCT.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _round_bfloat16(x: float) -> float:
    """bfloat16, straight from float64 (going through float32 would round twice)."""
    return _round_exact(x, _FORMATS[BFLOAT16])


def _keep(x: float) -> float:
    return x


_ROUNDERS: dict[str, Callable[[float], float]] = {
    FLOAT64: _keep,
    FLOAT32: _round_float32,
    FLOAT16: _round_float16,
    BFLOAT16: _round_bfloat16,
}


def round_to(x: float, dtype: str) -> float:
    """The number of format ``dtype`` nearest to ``x`` (ties to even), as a Python float."""
    if dtype is FLOAT64:
        return x
    rounder = _ROUNDERS.get(dtype)
    if rounder is None:
        rounder = _ROUNDERS[check_dtype(dtype)]
    return rounder(x)


# PyTorch's EPSILON in binary_cross_entropy's backward: 1e-12, held in a float32 there.
BCE_EPSILON = round_to(1e-12, FLOAT32)
