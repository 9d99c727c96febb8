"""Tests for micrograd2.dtypes: names, promotion, limits, and rounding to each format.

Rounding is checked against three independent references: NumPy's float64 ->
float16/float32 casts, an exact search over every 16-bit pattern (distances
compared with ``fractions.Fraction``), and PyTorch's bfloat16 cast on inputs
where PyTorch's detour through float32 cannot change the answer.
"""
from __future__ import annotations

import ast
import bisect
import dataclasses
import math
import random
import struct
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd2 import dtypes
from micrograd2.dtypes import (
    BFLOAT16,
    DTYPES,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FInfo,
    check_dtype,
    finfo,
    promote,
    round_to,
)

INF = math.inf
NAN = math.nan
NARROW = (FLOAT32, FLOAT16, BFLOAT16)
PROPERTY = settings(max_examples=300, deadline=None)


# ---------------------------------------------------------------- helpers


def same(a: float, b: float) -> bool:
    """Equal as floats, including the sign of zero; any nan equals any nan."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def mismatches(xs: list[float], got: list[float], want: list[float]) -> list[tuple[float, float, float]]:
    return [(x, g, w) for x, g, w in zip(xs, got, want) if not same(g, w)]


def float16_from_bits(bits: int) -> float:
    return struct.unpack("<e", bits.to_bytes(2, "little"))[0]


def bfloat16_from_bits(bits: int) -> float:
    return struct.unpack("<f", (bits << 16).to_bytes(4, "little"))[0]


def float32_from_bits(bits: int) -> float:
    return struct.unpack("<f", bits.to_bytes(4, "little"))[0]


def nonnegative_table(from_bits, first_inf_pattern: int, emax: int) -> list[float]:
    """Every finite non-negative value in bit-pattern order (= value order), then the
    infinity pattern standing for 2**(emax+1), the value that rounding overflows to."""
    return [from_bits(b) for b in range(first_inf_pattern)] + [2.0 ** (emax + 1)]


TABLES = {
    FLOAT16: nonnegative_table(float16_from_bits, 0x7C00, 15),
    BFLOAT16: nonnegative_table(bfloat16_from_bits, 0x7F80, 127),
}


def reference_round(x: float, dtype: str) -> float:
    """Nearest value by search over all bit patterns; ties go to the even pattern."""
    if x == 0.0 or math.isnan(x):
        return x
    if x < 0:
        return -reference_round(-x, dtype)
    table = TABLES[dtype]
    i = bisect.bisect_left(table, x)
    if i == len(table):
        return INF
    if table[i] == x:
        pick = i
    else:
        below, above = Fraction(x) - Fraction(table[i - 1]), Fraction(table[i]) - Fraction(x)
        pick = i - 1 if below < above or (below == above and (i - 1) % 2 == 0) else i
    return INF if pick == len(table) - 1 else table[pick]


def numpy_round(xs: list[float], dtype: str) -> list[float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow in cast
        return np.asarray(xs, dtype=np.float64).astype(dtype).astype(np.float64).tolist()


def random_floats(rng: random.Random, n: int, min_exp: int, max_exp: int) -> list[float]:
    """Random signs, random 52-bit mantissas, exponents uniform in [min_exp, max_exp]."""
    return [
        rng.choice((-1.0, 1.0)) * math.ldexp(1.0 + rng.getrandbits(52) / 2**52, rng.randint(min_exp, max_exp))
        for _ in range(n)
    ]


def random_float64_patterns(rng: random.Random, n: int) -> list[float]:
    """Arbitrary finite float64 bit patterns: the whole range, subnormals included."""
    xs = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(n)]
    return [x for x in xs if math.isfinite(x)]


def ties_and_near_ties(representable: list[float]) -> list[float]:
    """Midpoints of neighbouring representable numbers, and the floats just either side."""
    out = []
    for lo, hi in zip(representable, representable[1:]):
        mid = (lo + hi) / 2  # exact: the formats have far fewer bits than float64
        out += [mid, math.nextafter(mid, -INF), math.nextafter(mid, INF)]
    return out + [-x for x in out]


def sample_16bit(rng: random.Random, from_bits, max_finite_pattern: int, n: int) -> list[float]:
    starts = rng.sample(range(max_finite_pattern), n)
    return [v for b in starts for v in (from_bits(b), from_bits(b + 1))]


# ---------------------------------------------------------------- names


def test_dtype_constants_are_the_four_names() -> None:
    assert (FLOAT64, FLOAT32, FLOAT16, BFLOAT16) == ("float64", "float32", "float16", "bfloat16")
    assert DTYPES == (FLOAT64, FLOAT32, FLOAT16, BFLOAT16)


@pytest.mark.parametrize(
    "given_name, constant",
    [
        ("float64", FLOAT64),
        ("float32", FLOAT32),
        ("float16", FLOAT16),
        ("bfloat16", BFLOAT16),
        ("double", FLOAT64),
        ("float", FLOAT32),
        ("half", FLOAT16),
        ("torch.float16", FLOAT16),
        ("torch.bfloat16", BFLOAT16),
        ("".join(["float", "32"]), FLOAT32),  # built at run time, so not the same object
    ],
)
def test_check_dtype_returns_the_module_constant_itself(given_name: str, constant: str) -> None:
    assert check_dtype(given_name) is constant


def test_check_dtype_accepts_objects_that_print_as_a_name() -> None:
    class FakeTorchDtype:
        def __str__(self) -> str:
            return "torch.float32"

    assert check_dtype(FakeTorchDtype()) is FLOAT32
    assert check_dtype(np.dtype("float16")) is FLOAT16


def test_check_dtype_accepts_torch_dtypes() -> None:
    torch = pytest.importorskip("torch")
    assert check_dtype(torch.float64) is FLOAT64
    assert check_dtype(torch.float32) is FLOAT32
    assert check_dtype(torch.float16) is FLOAT16
    assert check_dtype(torch.bfloat16) is BFLOAT16


@pytest.mark.parametrize("bad", ["float8", "int64", "Float32", "", "torch."])
def test_check_dtype_rejects_unknown_strings_with_value_error(bad: str) -> None:
    with pytest.raises(ValueError) as info:
        check_dtype(bad)
    message = str(info.value)
    assert repr(bad) in message
    assert all(name in message for name in DTYPES)


@pytest.mark.parametrize("bad", [32, None, 3.5, True, object])
def test_check_dtype_rejects_non_strings_with_type_error(bad: object) -> None:
    with pytest.raises(TypeError) as info:
        check_dtype(bad)
    message = str(info.value)
    assert repr(bad) in message
    assert all(name in message for name in DTYPES)


def test_round_to_rejects_unknown_dtype() -> None:
    with pytest.raises(ValueError, match="float8"):
        round_to(1.0, "float8")


def test_dtypes_module_imports_only_the_standard_library() -> None:
    imported = set()
    for node in ast.walk(ast.parse(Path(dtypes.__file__).read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)


# ---------------------------------------------------------------- promotion

PROMOTION_TABLE = {
    (FLOAT64, FLOAT64): FLOAT64,
    (FLOAT64, FLOAT32): FLOAT64,
    (FLOAT64, FLOAT16): FLOAT64,
    (FLOAT64, BFLOAT16): FLOAT64,
    (FLOAT32, FLOAT32): FLOAT32,
    (FLOAT32, FLOAT16): FLOAT32,
    (FLOAT32, BFLOAT16): FLOAT32,
    (FLOAT16, FLOAT16): FLOAT16,
    (FLOAT16, BFLOAT16): FLOAT32,
    (BFLOAT16, BFLOAT16): BFLOAT16,
}


@pytest.mark.parametrize("a, b", list(PROMOTION_TABLE))
def test_promote_follows_the_table_in_both_orders(a: str, b: str) -> None:
    assert promote(a, b) is PROMOTION_TABLE[a, b]
    assert promote(b, a) is PROMOTION_TABLE[a, b]


def test_promote_agrees_with_torch_promote_types() -> None:
    torch = pytest.importorskip("torch")
    for a in DTYPES:
        for b in DTYPES:
            theirs = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert promote(a, b) == str(theirs).removeprefix("torch.")


def test_promote_accepts_aliases_and_rejects_unknown_names() -> None:
    assert promote("half", "double") is FLOAT64
    with pytest.raises(ValueError):
        promote(FLOAT32, "int64")


# ---------------------------------------------------------------- limits


@pytest.mark.parametrize(
    "dtype, expected",
    [
        (FLOAT64, FInfo(64, sys.float_info.max, sys.float_info.min, 5e-324, 2.0**-52)),
        (FLOAT32, FInfo(32, 3.4028234663852886e38, 2.0**-126, 2.0**-149, 2.0**-23)),
        (FLOAT16, FInfo(16, 65504.0, 2.0**-14, 2.0**-24, 2.0**-10)),
        (BFLOAT16, FInfo(16, 3.3895313892515355e38, 2.0**-126, 2.0**-133, 2.0**-7)),
    ],
)
def test_finfo_has_the_ieee_values(dtype: str, expected: FInfo) -> None:
    assert finfo(dtype) == expected


def test_finfo_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        finfo(FLOAT16).max = 1.0  # type: ignore[misc]


def test_finfo_agrees_with_torch_finfo() -> None:
    torch = pytest.importorskip("torch")
    for dtype in DTYPES:
        ours, theirs = finfo(dtype), torch.finfo(getattr(torch, dtype))
        assert (ours.bits, ours.max, ours.eps) == (theirs.bits, theirs.max, theirs.eps)
        assert ours.tiny == theirs.tiny
        assert ours.smallest_subnormal == theirs.smallest_normal * theirs.eps


@pytest.mark.parametrize("dtype", NARROW)
def test_finfo_values_round_to_themselves(dtype: str) -> None:
    info = finfo(dtype)
    for value in (info.max, info.tiny, info.smallest_subnormal, 1.0 + info.eps):
        assert round_to(value, dtype) == value
    assert round_to(1.0 + info.eps / 2, dtype) == 1.0  # a tie: 1.0 is the even one


# ---------------------------------------------------------------- rounding: hand-picked cases


def test_float64_is_returned_unchanged() -> None:
    x = 0.1 + 0.2
    assert round_to(x, FLOAT64) is x
    assert round_to(x, "double") == x


def test_the_documented_examples() -> None:
    assert round_to(1e-8, FLOAT16) == 0.0
    assert round_to(1e-8, BFLOAT16) == 1.0011717677116394e-08
    assert round_to(65536.0, FLOAT16) == INF


HAND_PICKED_FLOAT16 = [
    (65504.0, 65504.0),
    (65519.99, 65504.0),  # just under max + half an ulp
    (65520.0, INF),  # exactly max + half an ulp: ties to even overflows
    (-65520.0, -INF),
    (1e6, INF),
    (2.0**-24, 2.0**-24),  # smallest subnormal
    (2.0**-25, 0.0),  # half of it: a tie, rounds to even (zero)
    (-(2.0**-25), -0.0),
    (math.nextafter(2.0**-25, 1.0), 2.0**-24),
    (3 * 2.0**-26, 2.0**-24),
    (3 * 2.0**-25, 2 * 2.0**-24),  # 1.5 ulps: tie, goes to the even 2 ulps
    (5 * 2.0**-25, 2 * 2.0**-24),  # 2.5 ulps: tie, goes to the even 2 ulps
    (2.0**-14, 2.0**-14),  # smallest normal
    (2.0**-14 - 2.0**-25, 2.0**-14),  # largest subnormal plus half an ulp: tie, up to even
    (1.0 + 2.0**-11, 1.0),  # tie at 1: down to even
    (1.0 + 3 * 2.0**-11, 1.0 + 2 * 2.0**-10),  # tie: up to even
    (2049.0, 2048.0),
    (2051.0, 2052.0),
    (-2051.0, -2052.0),
    (0.1, 0.0999755859375),
    (1e-8, 0.0),
    (-0.0, -0.0),
    (0.0, 0.0),
    (INF, INF),
    (-INF, -INF),
]


@pytest.mark.parametrize("x, expected", HAND_PICKED_FLOAT16)
def test_float16_hand_picked_cases(x: float, expected: float) -> None:
    assert same(round_to(x, FLOAT16), expected)
    assert same(numpy_round([x], FLOAT16)[0], expected)


FLOAT32_MAX = 3.4028234663852886e38
FLOAT32_MAX_PLUS_HALF_ULP = FLOAT32_MAX + 2.0**103

HAND_PICKED_FLOAT32 = [
    (FLOAT32_MAX, FLOAT32_MAX),
    (math.nextafter(FLOAT32_MAX_PLUS_HALF_ULP, 0.0), FLOAT32_MAX),
    (FLOAT32_MAX_PLUS_HALF_ULP, INF),
    (-FLOAT32_MAX_PLUS_HALF_ULP, -INF),
    (1e300, INF),
    (sys.float_info.max, INF),
    (2.0**-149, 2.0**-149),
    (2.0**-150, 0.0),  # tie with zero: zero is even
    (-(2.0**-150), -0.0),
    (3 * 2.0**-151, 2.0**-149),
    (5e-324, 0.0),
    (2.0**-126, 2.0**-126),
    (1.0 + 2.0**-24, 1.0),
    (1.0 + 3 * 2.0**-24, 1.0 + 2.0**-22),
    (16777217.0, 16777216.0),
    (0.1, 0.10000000149011612),
    (-0.0, -0.0),
    (INF, INF),
    (-INF, -INF),
]


@pytest.mark.parametrize("x, expected", HAND_PICKED_FLOAT32)
def test_float32_hand_picked_cases(x: float, expected: float) -> None:
    assert same(round_to(x, FLOAT32), expected)
    assert same(numpy_round([x], FLOAT32)[0], expected)


BFLOAT16_MAX = 3.3895313892515355e38

HAND_PICKED_BFLOAT16 = [
    (BFLOAT16_MAX, BFLOAT16_MAX),
    (BFLOAT16_MAX + 2.0**119, INF),  # max + half an ulp
    (math.nextafter(BFLOAT16_MAX + 2.0**119, 0.0), BFLOAT16_MAX),
    (FLOAT32_MAX, INF),
    (sys.float_info.max, INF),
    (-sys.float_info.max, -INF),
    (2.0**-133, 2.0**-133),  # smallest subnormal
    (2.0**-134, 0.0),
    (math.nextafter(2.0**-134, 1.0), 2.0**-133),
    (-(2.0**-134), -0.0),
    (5e-324, 0.0),
    (1.0 + 2.0**-8, 1.0),
    (1.0 + 3 * 2.0**-8, 1.0 + 2.0**-6),
    (257.0, 256.0),
    (259.0, 260.0),
    (0.1, 0.10009765625),
    (-0.0, -0.0),
    (INF, INF),
    (-INF, -INF),
]


@pytest.mark.parametrize("x, expected", HAND_PICKED_BFLOAT16)
def test_bfloat16_hand_picked_cases(x: float, expected: float) -> None:
    assert same(round_to(x, BFLOAT16), expected)
    assert same(reference_round(x, BFLOAT16), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_passes_through(dtype: str) -> None:
    assert math.isnan(round_to(NAN, dtype))
    assert math.isnan(round_to(-NAN, dtype))


def test_bfloat16_rounds_once_not_through_float32() -> None:
    x = 1.0 + 2.0**-8 + 2.0**-30  # just above a bfloat16 tie; float32 would land on the tie
    assert round_to(x, BFLOAT16) == 1.0 + 2.0**-7
    assert round_to(round_to(x, FLOAT32), BFLOAT16) == 1.0  # the double-rounding answer


# ---------------------------------------------------------------- rounding: many random values


def test_float16_matches_numpy_on_random_values() -> None:
    rng = random.Random(1616)
    xs = random_floats(rng, 20_000, -30, 18) + random_float64_patterns(rng, 2_000)
    xs += ties_and_near_ties(sample_16bit(rng, float16_from_bits, 0x7BFF, 1_000))
    assert mismatches(xs, [round_to(x, FLOAT16) for x in xs], numpy_round(xs, FLOAT16)) == []


def test_float32_matches_numpy_on_random_values() -> None:
    rng = random.Random(3232)
    xs = random_floats(rng, 20_000, -155, 130) + random_float64_patterns(rng, 2_000)
    patterns = rng.sample(range(0x7F7FFFFF), 1_000)
    xs += ties_and_near_ties([v for b in patterns for v in (float32_from_bits(b), float32_from_bits(b + 1))])
    assert mismatches(xs, [round_to(x, FLOAT32) for x in xs], numpy_round(xs, FLOAT32)) == []


def test_float16_matches_exact_search_on_random_values() -> None:
    rng = random.Random(1661)
    xs = random_floats(rng, 3_000, -30, 18) + random_float64_patterns(rng, 500)
    xs += ties_and_near_ties(sample_16bit(rng, float16_from_bits, 0x7BFF, 500))
    xs += [65504.0, 65519.99, 65520.0, 2.0**-25, 3 * 2.0**-26]
    assert mismatches(xs, [round_to(x, FLOAT16) for x in xs], [reference_round(x, FLOAT16) for x in xs]) == []


def test_bfloat16_matches_exact_search_on_random_values() -> None:
    rng = random.Random(8787)
    xs = random_floats(rng, 5_000, -140, 130) + random_float64_patterns(rng, 1_000)
    xs += ties_and_near_ties(sample_16bit(rng, bfloat16_from_bits, 0x7F7F, 1_000))
    want = [reference_round(x, BFLOAT16) for x in xs]
    assert mismatches(xs, [round_to(x, BFLOAT16) for x in xs], want) == []


def test_bfloat16_matches_torch_on_float32_representable_values() -> None:
    # torch casts float64 -> float32 -> bfloat16; on float32 inputs the first step is exact.
    torch = pytest.importorskip("torch")
    rng = random.Random(1616)
    xs = [float32_from_bits(rng.getrandbits(32)) for _ in range(20_000)]
    xs += ties_and_near_ties(sample_16bit(rng, bfloat16_from_bits, 0x7F7F, 1_000))
    xs = [x for x in xs if round_to(x, FLOAT32) == x or math.isnan(x)]  # drop the near ties
    xs += [2.0**-133, 2.0**-134, 3 * 2.0**-135, BFLOAT16_MAX, BFLOAT16_MAX + 2.0**119, FLOAT32_MAX, -0.0]
    theirs = torch.tensor(xs, dtype=torch.float64).to(torch.bfloat16).to(torch.float64).tolist()
    assert mismatches(xs, [round_to(x, BFLOAT16) for x in xs], theirs) == []


# ---------------------------------------------------------------- rounding: properties

narrow_dtypes = st.sampled_from(NARROW)
any_float = st.floats(allow_nan=True, allow_infinity=True)
ordered_float = st.floats(allow_nan=False, allow_infinity=True)


@PROPERTY
@given(x=any_float, dtype=narrow_dtypes)
def test_rounding_twice_equals_rounding_once(x: float, dtype: str) -> None:
    once = round_to(x, dtype)
    assert same(round_to(once, dtype), once)


@PROPERTY
@given(x=ordered_float, y=ordered_float, dtype=narrow_dtypes)
def test_rounding_is_monotonic(x: float, y: float, dtype: str) -> None:
    low, high = sorted((x, y))
    assert round_to(low, dtype) <= round_to(high, dtype)


@PROPERTY
@given(x=ordered_float, dtype=narrow_dtypes)
def test_rounding_keeps_the_sign(x: float, dtype: str) -> None:
    assert math.copysign(1.0, round_to(x, dtype)) == math.copysign(1.0, x)
    assert same(round_to(-x, dtype), -round_to(x, dtype))


@PROPERTY
@given(x=ordered_float, dtype=narrow_dtypes)
def test_result_is_representable(x: float, dtype: str) -> None:
    r = round_to(x, dtype)
    if dtype == FLOAT32:
        assert np.float32(r) == r
    else:
        assert math.isinf(r) or abs(r) in TABLES[dtype][:-1]


@PROPERTY
@given(x=st.floats(allow_nan=False, allow_infinity=False), dtype=narrow_dtypes)
def test_result_is_a_nearest_neighbour(x: float, dtype: str) -> None:
    r = round_to(x, dtype)
    if math.isinf(r):
        assert abs(x) >= finfo(dtype).max
        return
    assert abs(Fraction(r) - Fraction(x)) <= Fraction(_ulp_of(r, dtype)) / 2


def _ulp_of(r: float, dtype: str) -> float:
    """Gap between |r| and the next number up in ``dtype``."""
    info = finfo(dtype)
    if abs(r) < info.tiny:
        return info.smallest_subnormal
    return math.ldexp(info.eps, math.frexp(abs(r))[1] - 1)
