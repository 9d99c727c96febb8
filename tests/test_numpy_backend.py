"""The NumPy backend: every ArrayBackend method, arrays in and arrays out, IEEE results without warnings."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from micrograd2.backends.base import BINARY_OPS, UNARY_OPS, ArrayBackend
from micrograd2.backends.numpy_backend import NumpyBackend, round_bfloat16

be = NumpyBackend()


def test_numpy_backend_implements_the_interface_and_is_named_cpu() -> None:
    assert isinstance(be, ArrayBackend)
    assert be.name == "cpu"


def test_from_host_copies_and_converts_dtype() -> None:
    host = np.array([1.5, 2.5])
    a = be.from_host(host, "float32")
    host[0] = 100.0
    assert a.dtype == np.float32 and a.tolist() == [1.5, 2.5]
    assert be.from_host([[1, 2]], "int64").dtype == np.int64
    assert be.dtype(be.from_host([1.0], "float16")) == "float16"


def test_to_host_full_shape_dtype_astype() -> None:
    a = be.full((2, 3), 7.0, "float64")
    assert be.to_host(a) is a
    assert be.shape(a) == (2, 3) and be.dtype(a) == "float64"
    b = be.astype(a, "float32")
    assert b.dtype == np.float32 and b is not a and b.flags.c_contiguous


@pytest.mark.parametrize("op", BINARY_OPS)
def test_binary_ops_broadcast_and_match_numpy(op: str) -> None:
    a = np.array([[1.0], [2.0], [3.0]])
    b = np.array([0.5, 2.0, 3.0, -1.0])
    expected = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "pow": a**b,
                "maximum": np.maximum(a, b), "gt": a > b, "eq": a == b}[op]
    out = be.binary(op, a, b)
    assert out.shape == (3, 4)
    np.testing.assert_array_equal(out, expected)


def test_binary_with_a_number_on_either_side() -> None:
    a = np.array([1.0, 2.0], dtype=np.float32)
    assert be.binary("sub", 1.0, a).tolist() == [0.0, -1.0]
    assert be.binary("mul", a, 2.0).dtype == np.float32  # a Python number does not widen


@pytest.mark.parametrize("op", UNARY_OPS)
def test_unary_ops_match_numpy(op: str) -> None:
    x = np.array([-2.0, -0.5, 0.0, 0.5, 3.0])
    with np.errstate(all="ignore"):
        expected = {"neg": -x, "exp": np.exp(x), "log": np.log(x), "tanh": np.tanh(x), "sqrt": np.sqrt(x),
                    "abs": np.abs(x), "relu": np.maximum(x, 0), "sigmoid": 1 / (1 + np.exp(-x)),
                    "sign": np.sign(x)}[op]
    np.testing.assert_allclose(be.unary(op, x), expected, rtol=1e-15)


def test_sigmoid_is_stable_for_large_inputs() -> None:
    out = be.unary("sigmoid", np.array([-1000.0, 1000.0], dtype=np.float32))
    assert out.tolist() == [0.0, 1.0]


def test_ieee_specials_come_out_silently() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert be.binary("div", np.array(1.0), 0.0) == np.inf
        assert np.isnan(be.unary("log", np.array(-1.0)))
        assert be.unary("exp", np.array(1000.0)) == np.inf


def test_results_are_arrays_never_numpy_scalars() -> None:
    zero_d = np.array(2.0)
    for out in (be.binary("add", zero_d, zero_d), be.unary("exp", zero_d), be.sum(np.ones(3)),
                be.max(np.ones(3)), be.matmul(np.ones(3), np.ones(3)), be.getitem(np.ones(3), 0)):
        assert type(out) is np.ndarray


def test_where_sum_max_argmax() -> None:
    x = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 0.0]])
    assert be.where(x > 2, x, 0.0).tolist() == [[0.0, 5.0, 5.0], [7.0, 0.0, 0.0]]
    assert be.sum(x).item() == 20.0
    assert be.sum(x, axis=1, keepdims=True).shape == (2, 1)
    assert be.max(x, axis=0).tolist() == [7.0, 5.0, 5.0]
    idx = be.argmax(x, axis=1)
    assert idx.dtype == np.int64 and idx.tolist() == [1, 0]  # the first maximum


def test_sum_to_shape_reverses_broadcasting() -> None:
    g = np.ones((4, 3, 5))
    assert be.sum_to_shape(g, (3, 1)).tolist() == [[20.0]] * 3
    assert be.sum_to_shape(g, (5,)).tolist() == [12.0] * 5
    assert be.sum_to_shape(g, (4, 3, 5)) is g


def test_matmul_reshape_transpose_broadcast_to() -> None:
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(be.matmul(a, a.T), a @ a.T)
    assert be.reshape(a, (3, 2)).shape == (3, 2)
    assert be.transpose(a, (1, 0)).shape == (3, 2)
    assert be.broadcast_to(np.ones(3), (2, 3)).shape == (2, 3)


def test_is_column_major_spots_transposed_matrices() -> None:
    a = np.ones((3, 4))
    assert not be.is_column_major(a)
    assert be.is_column_major(a.T)
    assert not be.is_column_major(np.ones((1, 4)).T)  # both layouts at once: not only column-major


def test_getitem_and_scatter_add_are_inverse_and_add_repeats() -> None:
    x = np.arange(12.0).reshape(3, 4)
    assert be.getitem(x, (1, slice(1, 3))).tolist() == [5.0, 6.0]
    out = be.scatter_add((3,), (np.array([0, 2, 0]),), np.array([1.0, 2.0, 3.0]), "float64")
    assert out.tolist() == [4.0, 0.0, 2.0]  # index 0 twice: 1 + 3
    basic = be.scatter_add((2, 3), (0, slice(None)), np.array([1.0, 2.0, 3.0]), "float32")
    assert basic.dtype == np.float32 and basic.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]


def test_log_softmax_is_stable_and_normalized() -> None:
    x = np.array([[1000.0, 1000.0], [0.0, -1000.0]])
    out = be.log_softmax(x, 1)
    assert np.isfinite(out).all()
    np.testing.assert_allclose(np.exp(out).sum(axis=1), [1.0, 1.0])
    np.testing.assert_allclose(out[0], [-np.log(2)] * 2)


def test_take_along_rows_and_arange() -> None:
    x = np.arange(6.0).reshape(2, 3)
    assert be.take_along_rows(x, np.array([2, 0])).tolist() == [2.0, 3.0]
    assert be.arange(3).dtype == np.int64


def test_in_place_ops_write_into_the_array() -> None:
    x = np.ones(3, dtype=np.float32)
    be.iadd(x, np.array([1.0, 2.0, 3.0], dtype=np.float32))
    be.iadd(x, 1.0, alpha=-2.0)
    be.imul(x, 2.0)
    assert x.tolist() == [0.0, 2.0, 4.0]
    be.assign(x, 0.5)
    assert x.tolist() == [0.5] * 3


def test_bfloat16_rounds_to_nearest_even_with_8_bits() -> None:
    x = np.array([1.0 + 2**-8, 1.0 + 3 * 2**-8, 1e-8, 3.4e38, np.nan, -np.inf])
    out = round_bfloat16(x)
    assert out.dtype == np.float32
    assert out[0] == 1.0  # a tie: to even
    assert out[1] == 1.0 + 2**-6  # a tie: to even (up)
    assert out[2] == pytest.approx(1.0011717677116394e-08, rel=1e-7)  # PYTORCH_TRUTH E15
    assert np.isinf(out[3]) and np.isnan(out[4]) and out[5] == -np.inf
    assert be.dtype(be.astype(np.ones(2), "bfloat16")) == "float32"


def test_float16_matmul_and_sum_accumulate_in_float32_and_round_once() -> None:
    a = np.full((1, 4096), 1.0, dtype=np.float16)
    b = np.full((4096, 1), 1.0, dtype=np.float16)
    assert be.matmul(a, b).dtype == np.float16 and be.matmul(a, b).item() == 4096.0
    assert be.sum(np.full(4096, 1.0, dtype=np.float16)).item() == 4096.0  # float16 steps are 4 here
    assert be.sum(np.full(4096, 1.0, dtype=np.float16)).dtype == np.float16


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_where_with_a_zero_side_is_a_select_to_the_last_bit(dtype: Any) -> None:
    """``where(mask, g, 0)`` and ``where(mask, 0, g)`` (ReLU's backward) are computed as a product of g's
    bits; they give exactly what NumPy's select gives, bit for bit: inf and NaN dropped where the mask
    drops them, +0.0 (never −0.0) for a dropped negative."""
    be = NumpyBackend()
    mask = np.array([[True, False, True, False], [False, False, True, True]])
    g = np.array([[1.5, np.inf, np.nan, -np.inf], [np.nan, -2.0, -0.0, -3.0]], dtype=dtype)
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    for out, expected in ((be.where(mask, g, 0.0), np.where(mask, g, 0.0)),
                          (be.where(mask, 0.0, g), np.where(mask, 0.0, g)),
                          (be.where(mask, g.T.T, 0), np.where(mask, g, 0))):
        assert out.dtype == expected.dtype == dtype
        np.testing.assert_array_equal(out.view(bits), expected.view(bits))
    minus_zero = be.where(mask, g, -0.0)  # a −0.0 "else" is no zero side: the select, as NumPy
    np.testing.assert_array_equal(minus_zero.view(bits), np.where(mask, g, -0.0).view(bits))
    assert be.where(np.zeros(0, bool), np.zeros(0, dtype), 0.0).shape == (0,)
    for keep in (True, False):  # 0-d: an array still (never a NumPy scalar), the select's bits
        zero_d = be.where(np.array(keep), np.array(-1.5, dtype), 0.0)
        assert type(zero_d) is np.ndarray and zero_d.shape == () and zero_d.dtype == dtype
        np.testing.assert_array_equal(zero_d.view(bits), np.where(keep, np.array(-1.5, dtype), 0.0).view(bits))


def _fused(x: Any, y: Any, alpha: float) -> Any:
    """PyTorch's ``x + alpha·y`` on CPU: alpha in x's dtype, one rounding (float64: NumPy's two)."""
    if x.dtype == np.float64:
        return x + alpha * y
    y = y if isinstance(y, np.ndarray) else x.dtype.type(y)  # a number: in x's dtype, as alpha
    wide = x.astype(np.float64) + float(x.dtype.type(alpha)) * np.asarray(y, np.float64)
    return wide.astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_iadd_with_alpha_goes_block_by_block_through_one_scratch_and_rounds_once(dtype: Any) -> None:
    """``x += alpha·y`` (an optimizer's step) goes block by block through one float64 scratch array: the
    results are the float64 sum rounded once (PyTorch's fused multiply-add), bit for bit, small or large,
    strided, or y = x; float64 is the plain expression."""
    be = NumpyBackend()
    rng = np.random.default_rng(0)
    block = be._scratch(np.dtype(np.float64)).size
    for shape in [(3, 4), (), (block,), (3, block // 2 + 7), (2 * block + 1,)]:
        x, y = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
        if dtype == np.float16 and x.size < 32:  # fewer than a vector block: PyTorch's scalar loop
            continue  # rounds each step: NOTE [float16's scalar loop], tests/parity/test_silent_differences.py
        expected = _fused(x, y, -0.1)
        be.iadd(x, y, -0.1)
        np.testing.assert_array_equal(x, expected)
    x = rng.standard_normal((2 * block + 1,)).astype(dtype)
    expected = _fused(x, x, 0.5)
    be.iadd(x, x, 0.5)  # y is x: each block is read before it is written
    np.testing.assert_array_equal(x, expected)
    x, y = rng.standard_normal((2, 3 * block)).astype(dtype), rng.standard_normal((3 * block, 2)).astype(dtype)
    expected = _fused(x, y.T, 0.25)
    be.iadd(x, y.T, 0.25)  # strided
    np.testing.assert_array_equal(x, expected)
    base = rng.standard_normal(3 * block).astype(dtype)
    x, y = base[1:], base[:-1]
    expected = _fused(x, y, 2.0)
    be.iadd(x, y, 2.0)  # overlapping
    np.testing.assert_array_equal(x, expected)
    x = rng.standard_normal(1000).astype(dtype)
    expected = _fused(x, 0.1, 0.37)  # a number: 0.1 and 0.37 in x's dtype, their product exact in float64
    be.iadd(x, 0.1, 0.37)
    np.testing.assert_array_equal(x, expected)
    if dtype is not np.float64:  # the one rounding differs from two (product, then sum) somewhere
        x, y = (rng.standard_normal(10_000).astype(dtype) for _ in range(2))
        assert (_fused(x, y, -0.0123) != x + dtype(-0.0123) * y).any()
    assert be._scratch(np.dtype(dtype)) is be._scratch(np.dtype(dtype))
    assert be._scratch(np.dtype(dtype)).nbytes == be._scratch(np.dtype(np.float64)).nbytes


def test_iadd_with_alpha_on_integers_is_exact() -> None:
    """An int64 ``x += alpha·y`` stays in integers (no float64 sum that loses bits past 2**53), as PyTorch."""
    be = NumpyBackend()
    big = 2**60 + 1
    for y in (np.full(40_000, 1, np.int64), 1):  # an array (larger than a block) and a number
        x = np.full(40_000, big, np.int64)
        be.iadd(x, y, 2)
        assert x.dtype == np.int64 and (x == big + 2).all()
