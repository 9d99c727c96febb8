"""Tests for the dtypes of Values: rounding of results and gradients, promotion, casts.

References: NumPy's float16 (conversion and arithmetic) and, when installed,
torch's bfloat16/float16 autograd on the same numbers.  Inputs include
subnormals, values that overflow, and gradients that underflow.
"""
from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.dtypes import BFLOAT16, FLOAT16, FLOAT32, FLOAT64, finfo, round_to

F16_MAX = 65504.0
F16_TINY_SUB = 2.0**-24


def np16(x: float) -> float:
    """x (a float64) converted to float16 by NumPy, back as a Python float."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(np.float64(x).astype(np.float16))


def same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def float16_samples(n: int, seed: int) -> list[float]:
    """Random float16 numbers across the whole range: subnormals, normals, near the max."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        bits = rng.randrange(0, 0x7C00)  # every finite non-negative float16 pattern
        x = float(np.array([bits], dtype=np.uint16).view(np.float16)[0])
        out.append(x if rng.random() < 0.5 else -x)
    return out


def wide_samples(n: int, seed: int) -> list[float]:
    """float64 numbers from far below float16's subnormals to beyond its max."""
    rng = random.Random(seed)
    return [rng.choice((-1, 1)) * math.ldexp(rng.random() + 0.5, rng.randint(-30, 18)) for _ in range(n)]


# -- results rounded to their dtype ----------------------------------------------------------------
def test_a_float16_value_is_numpys_float16_of_the_number_including_subnormals_and_overflow() -> None:
    xs = wide_samples(2000, 1) + [65519.99, 65520.0, 70000.0, 2.0**-25, 3 * 2.0**-26, 1e-8]
    for x in xs:
        assert same(mg.Value(x, dtype="float16").data, np16(x)), x


def test_float16_limits_as_in_the_api() -> None:
    assert mg.Value(65504.0, dtype="float16").data == F16_MAX
    assert mg.Value(65536.0, dtype="float16").data == math.inf  # the GradScaler trap (D17)
    assert mg.Value(F16_TINY_SUB, dtype="float16").data == F16_TINY_SUB
    assert mg.Value(1e-8, dtype="float16").data == 0.0  # E15
    assert finfo("float16").max == F16_MAX


@pytest.mark.parametrize("op", ["mul", "div"])
def test_float16_products_and_quotients_match_numpys_float16_arithmetic(op) -> None:
    xs, ys = float16_samples(1500, 2), float16_samples(1500, 3)
    for a, b in zip(xs, ys):
        va, vb = mg.Value(a, dtype="float16"), mg.Value(b, dtype="float16")
        with np.errstate(all="ignore"):
            na, nb = np.float16(a), np.float16(b)
            want = float(na * nb) if op == "mul" else float(na / nb)
        got = (va * vb).data if op == "mul" else (va / vb).data
        assert same(got, want), (a, b)


def test_float16_sums_are_the_exact_sum_rounded_once() -> None:
    """The API's model: exact in float64, one rounding.  NumPy's native float16 add goes through
    float32 and may be one ulp off at rare ties; it is never further."""
    xs, ys = float16_samples(1500, 4), float16_samples(1500, 5)
    for a, b in zip(xs, ys):
        got = (mg.Value(a, dtype="float16") + mg.Value(b, dtype="float16")).data
        assert same(got, np16(a + b)), (a, b)
        with np.errstate(all="ignore"):
            native = float(np.float16(a) + np.float16(b))
        if math.isfinite(native) and math.isfinite(got):
            assert abs(got - native) <= float(np.spacing(np.float16(abs(native)))), (a, b)


def test_subnormal_results_round_half_to_even() -> None:
    tiny = mg.Value(F16_TINY_SUB, dtype="float16")
    assert (tiny * 0.5).data == 0.0  # exactly half the smallest subnormal: ties to even (0)
    assert (tiny * 1.5).data == 2 * F16_TINY_SUB  # 1.5 ulps: ties to even (2)
    assert (tiny * 0.75).data == F16_TINY_SUB


def test_bfloat16_products_match_torch_bfloat16() -> None:
    torch = pytest.importorskip("torch")
    rng = random.Random(6)
    xs = [float(torch.tensor(rng.uniform(-1e3, 1e3)).to(torch.bfloat16)) for _ in range(500)]
    ys = [float(torch.tensor(math.ldexp(rng.uniform(-1, 1), rng.randint(-133, 120))).to(torch.bfloat16))
          for _ in range(500)]  # products from below bfloat16's subnormals to beyond its max
    got = [(mg.Value(a, dtype="bfloat16") * mg.Value(b, dtype="bfloat16")).data for a, b in zip(xs, ys)]
    want = (torch.tensor(xs, dtype=torch.bfloat16) * torch.tensor(ys, dtype=torch.bfloat16)).double().tolist()
    assert all(same(g, w) for g, w in zip(got, want))


def test_bfloat16_keeps_float32s_range() -> None:
    assert mg.Value(1e-8, dtype="bfloat16").data == 1.0011717677116394e-08  # E15, D6
    assert mg.Value(1e38, dtype="bfloat16").data < math.inf
    assert mg.Value(3.4e38, dtype="bfloat16").data == math.inf


# -- gradients rounded to their Value's dtype ----------------------------------------------------------
def test_the_gradient_of_a_float16_leaf_is_rounded_to_float16() -> None:
    for c in wide_samples(500, 7):
        x = mg.Value(1.0, dtype="float16", requires_grad=True)
        (x * c).backward()
        assert same(x.grad, np16(c)), c


def test_a_small_gradient_underflows_to_zero_in_float16_and_a_large_one_overflows() -> None:
    x = mg.Value(1.0, dtype="float16", requires_grad=True)
    y = mg.Value(1.0, dtype="float32", requires_grad=True)
    (x.float() * 1e-8 + y * 1e-8).backward()
    assert x.grad == 0.0  # 1e-8 is below float16's smallest subnormal
    assert y.grad == round_to(1e-8, FLOAT32)
    z = mg.Value(1.0, dtype="float16", requires_grad=True)
    (z.float() * 1e5).backward()
    assert z.grad == math.inf


def test_gradients_of_intermediate_float16_results_are_rounded_too() -> None:
    """The gradient arriving at a float16 node is float16 before it goes on (the chain rounds at each hop)."""
    x = mg.Value(1.0, dtype="float32", requires_grad=True)
    h = x.half() * 3.0  # float16
    out = h.float() * 1e-6  # float32
    out.backward()
    g_h = np16(round_to(1e-6, FLOAT32))  # gradient at h, rounded to float16 (a subnormal)
    assert x.grad == round_to(np16(g_h * 3.0), FLOAT32)


def test_gradients_match_torch_float16_and_bfloat16_autograd() -> None:
    torch = pytest.importorskip("torch")
    rng = random.Random(8)
    for dtype, tdtype in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        for _ in range(200):
            a, b, c = (rng.uniform(-4, 4) for _ in range(3))
            a, b, c = (float(torch.tensor(v, dtype=tdtype)) for v in (a, b, c))
            scale = math.ldexp(1.0, rng.randint(-30, 10))
            xa, xb = mg.Value(a, dtype=dtype, requires_grad=True), mg.Value(b, dtype=dtype, requires_grad=True)
            y = ((xa * xb) * c + xa).float() * scale
            y.backward()
            ta = torch.tensor(a, dtype=tdtype, requires_grad=True)
            tb = torch.tensor(b, dtype=tdtype, requires_grad=True)
            ty = ((ta * tb) * c + ta).float() * scale
            ty.backward()
            assert same(y.data, ty.item()), (dtype, a, b, c, scale)
            assert same(xa.grad, ta.grad.item()), (dtype, a, b, c, scale)
            assert same(xb.grad, tb.grad.item()), (dtype, a, b, c, scale)


def test_accumulating_gradients_rounds_the_running_sum() -> None:
    x = mg.Value(1.0, dtype="float16", requires_grad=True)
    (x * 1.0).backward()
    (x * 2.0**-11).backward()  # 1 + 2**-11 is a tie in float16: rounds to even, 1.0
    assert x.grad == 1.0
    (x * 2.0**-10).backward()
    assert x.grad == 1.0 + 2.0**-10


def test_the_seed_of_backward_is_rounded_to_the_roots_dtype_as_torch() -> None:
    """PyTorch casts backward(gradient) to the root's dtype: 1e-8 becomes 0 for a float16 root."""
    x = mg.Value(1000.0, dtype="float16", requires_grad=True)
    (x * 1000.0).backward(1e-8)
    assert x.grad == 0.0
    y = mg.Value(1.0, dtype="float16", requires_grad=True)
    y.backward(65536.0)  # a leaf root too
    assert y.grad == math.inf


# -- promotion ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b", "result"),
    [
        (FLOAT16, FLOAT16, FLOAT16),
        (FLOAT16, BFLOAT16, FLOAT32),
        (FLOAT16, FLOAT32, FLOAT32),
        (BFLOAT16, FLOAT32, FLOAT32),
        (FLOAT16, FLOAT64, FLOAT64),
        (FLOAT32, FLOAT64, FLOAT64),
        (BFLOAT16, BFLOAT16, BFLOAT16),
    ],
)
def test_an_op_on_two_values_has_the_wider_dtype(a, b, result) -> None:
    for op in (lambda x, y: x * y, lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x / y):
        assert op(mg.Value(1.5, dtype=a), mg.Value(2.0, dtype=b)).dtype == result
        assert op(mg.Value(1.5, dtype=b), mg.Value(2.0, dtype=a)).dtype == result


def test_a_python_number_does_not_widen() -> None:
    h = mg.Value(1.5, dtype="float16")
    assert (h * 2.0).dtype == FLOAT16
    assert (2.0 * h).dtype == FLOAT16
    assert (h + 1e-3).dtype == FLOAT16
    assert (1.0 - h).dtype == FLOAT16
    assert (h**2).dtype == FLOAT16
    assert h.exp().dtype == FLOAT16 and h.tanh().dtype == FLOAT16


def test_a_python_number_takes_part_at_its_full_value_and_the_result_is_rounded_once() -> None:
    h = mg.Value(1.0, dtype="float16")
    assert (h + 2.0**-11 + 2.0**-30).dtype == FLOAT16
    assert (h + (2.0**-11 + 2.0**-30)).data == 1.0 + 2.0**-10  # just above the tie: rounds up


# -- casts ------------------------------------------------------------------------------------------
def test_casts_are_differentiable_tocopy_nodes() -> None:
    x = mg.Value(1.0 / 3.0, requires_grad=True)
    h = x.half()
    assert h.dtype == FLOAT16 and h.data == np16(1.0 / 3.0)
    assert h.grad_fn.name() == "ToCopyBackward0"
    assert x.bfloat16().dtype == BFLOAT16 and x.float().dtype == FLOAT32 and h.double().dtype == FLOAT64
    (h * 3.0).backward()
    assert x.grad == 3.0 and type(x.grad) is float


def test_to_the_same_dtype_returns_the_value_itself() -> None:
    h = mg.Value(1.0, dtype="float16", requires_grad=True)
    assert h.to("float16") is h and h.half() is h and h.to("half") is h
    x = mg.Value(1.0)
    assert x.double() is x


def test_under_create_graph_the_gradient_through_a_cast_has_the_inputs_dtype() -> None:
    """PyTorch: x float32, y = x.half(); grad(y*y, x) is float32 (ToCopyBackward0 casts back)."""
    x = mg.Value(3.0, dtype="float32", requires_grad=True)
    y = x.half()
    (g,) = mg.autograd.grad(y * y, x, create_graph=True)
    assert g.dtype == FLOAT32 and g.data == 6.0 and g.grad_fn.name() == "ToCopyBackward0"
    (g2,) = mg.autograd.grad(g, x)
    assert g2 == 2.0


def test_in_place_ops_keep_the_dtype_of_the_value_changed() -> None:
    p = mg.Value(1.0, dtype="float16", requires_grad=True)
    with mg.no_grad():
        p.sub_(mg.Value(1e-4))  # float64 operand: computed wide, stored back as float16
    assert p.dtype == FLOAT16 and p.data == np16(1.0 - 1e-4) and p._version == 1
