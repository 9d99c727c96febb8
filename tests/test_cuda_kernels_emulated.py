"""Every kernel of kernels.cu, run on the CPU (g++ and tests/cuda_emu/), against NumPy.

The kernels are the unchanged source; blocks are small here (16-64 threads) and grids smaller than
the data, so the grid-stride and row loops wrap around.  The matrix product runs with small tiles on
many ragged shapes, and with the real tiles on a few.  ``MG2_ASAN=1`` reruns this file and the
emulated backend tests under AddressSanitizer, in a child process (see emulator.py).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cuda_emu import emulator

from micrograd2.backends import kernel_source
from micrograd2.backends.base import BINARY_OPS, UNARY_OPS

DTYPES = ["float32", "float64"]
RTOL = {"float32": 2e-6, "float64": 1e-13}
BINARY = kernel_source.BINARY_CODES
UNARY = kernel_source.UNARY_CODES
REDUCE = kernel_source.REDUCE_CODES
HERE = Path(__file__).resolve().parent

def emulators_or_skip(defines: dict[str, int] | None = None) -> dict[str, emulator.Emulator]:
    reason = emulator.skip_reason()
    if reason:
        pytest.skip(reason)
    return emulator.emulators(defines)


@pytest.fixture(scope="module")
def emu() -> dict[str, emulator.Emulator]:
    """The kernels built with their own #defines (the real matmul tiles)."""
    return emulators_or_skip()


@pytest.fixture(scope="module")
def emu_small() -> dict[str, emulator.Emulator]:
    """The kernels built with small matmul tiles (fewer threads, faster emulation)."""
    return emulators_or_skip(emulator.SMALL_TILES)


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def layout(out_shape: tuple[int, ...], *in_shapes: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """``[dims, strides of each input]`` for NumPy broadcasting, without merging any axes."""
    dims = list(out_shape) or [1]
    rows = [dims]
    for shape in in_shapes:
        padded = (1,) * (len(dims) - len(shape)) + tuple(shape)
        contiguous = np.cumprod((1, *padded[::-1]))[:-1][::-1]
        rows.append([0 if n == 1 else int(s) for n, s in zip(padded, contiguous)])
    return np.array(rows, dtype=np.int64).reshape(-1), len(dims)


def nan_like(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """An output buffer full of NaN, so an element the kernel forgets to write is seen."""
    return np.full(shape, np.nan, dtype=dtype)


def check(got: np.ndarray, want: np.ndarray, dtype: str) -> None:
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=RTOL[dtype], equal_nan=True)


# ---------------------------------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------------------------------

BROADCASTS = [
    ((3, 1), (1, 4)),
    ((), (2, 3)),
    ((5,), (4, 5)),
    ((2, 3, 4), (2, 3, 4)),
    ((1,), (7,)),
    ((4, 1, 3), (2, 1)),
    ((2, 1, 3, 1, 2, 1, 2, 3), (1, 2, 1, 3, 1, 2, 1, 1)),  # eight axes, the most a layout holds
    ((0, 3), (1, 3)),
]

NUMPY_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "pow": np.power,
    "maximum": np.maximum,
    "gt": np.greater,
    "eq": np.equal,
}


def operand(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    """Random values in [0.5, 2) with some repeats (so ``eq`` and ``maximum`` see ties)."""
    values = rng(seed).choice([0.5, 1.0, 1.25, 1.5, 1.75], size=shape) + rng(seed + 1).random(shape) * (seed % 2)
    return np.ascontiguousarray(values, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", BINARY_OPS)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_binary_op_and_compare_op_broadcast(emu, dtype, op, shapes):
    a, b = operand(shapes[0], dtype, 1), operand(shapes[1], dtype, 2)
    want = NUMPY_BINARY[op](a, b)
    lay, ndim = layout(want.shape, a.shape, b.shape)
    comparison = op in ("gt", "eq")
    out = np.zeros(want.shape, bool) if comparison else nan_like(want.shape, dtype)
    kernel = "compare_op" if comparison else "binary_op"
    emu[dtype].launch(kernel, 2, 32, a, b, out, lay, out.size, ndim, BINARY[op])
    if comparison:
        np.testing.assert_array_equal(out, want)
    else:
        check(out, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_op_in_place_and_nan_maximum(emu, dtype):
    """``out`` may be ``a`` (in-place ops); ``maximum`` propagates NaN as NumPy does."""
    a = np.array([1.0, np.nan, 3.0, -np.inf, 2.0], dtype)
    b = np.array([np.nan, 2.0, 1.0, 0.0, 2.0], dtype)
    want = np.maximum(a, b)
    lay, ndim = layout(a.shape, a.shape, b.shape)
    emu[dtype].launch("binary_op", 1, 16, a, b, a, lay, a.size, ndim, BINARY["maximum"])
    check(a, want, dtype)


SPECIALS = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30, -3.5, 2.0, -1.0, 0.25, 40.0, -40.0, 700.0, -700.0]


def sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x64 = x.astype(np.float64)
        return (np.where(x64 >= 0, 1 / (1 + np.exp(-x64)), np.exp(x64) / (1 + np.exp(x64)))).astype(x.dtype)


NUMPY_UNARY = {
    "neg": np.negative,
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": sigmoid,
    "sign": np.sign,
    "copy": lambda x: x.copy(),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", [*UNARY_OPS, "copy"])
def test_unary_op_through_a_transposed_layout(emu, dtype, op):
    """f(x.T) with x read through transposed strides: special values, then random ones."""
    values = np.array(SPECIALS + list(rng(3).normal(0, 3, 6 * 5 - len(SPECIALS))), dtype=dtype).reshape(6, 5)
    with np.errstate(all="ignore"):
        want = NUMPY_UNARY[op](values.T)
    lay = np.array([5, 6, 1, 5], dtype=np.int64)  # dims (5, 6), strides of x.T
    out = nan_like((5, 6), dtype)
    emu[dtype].launch("unary_op", 2, 16, values, out, lay, out.size, 2, UNARY[op])
    check(out, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_where_op_broadcasts_three_inputs(emu, dtype):
    cond = np.array([[True], [False], [True]])
    a, b = operand((1, 4), dtype, 4), np.array(-1.0, dtype)
    want = np.where(cond, a, b)
    lay, ndim = layout(want.shape, cond.shape, a.shape, ())
    out = nan_like(want.shape, dtype)
    emu[dtype].launch("where_op", 1, 16, cond, a, b.reshape(1), out, lay, out.size, ndim)
    check(out, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill(emu, dtype):
    out = nan_like((37,), dtype)
    emu[dtype].launch("fill", 2, 16, out, out.size, 2.5)
    check(out, np.full(37, 2.5, dtype), dtype)


# ---------------------------------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------------------------------

CAST_INPUTS = {
    "cast_from_f32": np.array([1.5, -2.75, 1e30, 3.0000001], np.float32),
    "cast_from_f64": np.array([1.5, -2.75, 1 / 3, 1e300, 2.0**-149 / 3], np.float64),
    "cast_from_i64": np.array([0, -7, 2**40, 2**53 + 1], np.int64),
    "cast_from_bool": np.array([True, False, True]),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel", list(CAST_INPUTS))
def test_cast_into_real(emu, dtype, kernel):
    """Conversions into float32 round to nearest even, as NumPy's astype."""
    source = CAST_INPUTS[kernel]
    out = nan_like(source.shape, dtype)
    with np.errstate(over="ignore"):
        want = source.astype(dtype)
    emu[dtype].launch(kernel, 1, 16, source, out, out.size)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cast_to_int64_truncates_and_to_bool_tests_nonzero(emu, dtype):
    x = np.array([2.7, -2.7, 0.0, -0.0, 1e15, np.nan], dtype)
    ints = np.zeros(5, np.int64)
    emu[dtype].launch("cast_to_i64", 1, 16, x[:5].copy(), ints, 5)
    np.testing.assert_array_equal(ints, x[:5].astype(np.int64))
    bools = np.zeros(6, bool)
    emu[dtype].launch("cast_to_bool", 1, 16, x, bools, 6)
    np.testing.assert_array_equal(bools, x.astype(bool))


# ---------------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------------

ROWS = [(5, 1), (3, 37), (1, 1000), (4, 64), (2, 0)]


def rows_data(rows: int, n: int, dtype: str) -> np.ndarray:
    return rng(rows * 1000 + n).normal(0, 10, (rows, n)).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows, n", ROWS)
@pytest.mark.parametrize("op", ["sum", "max"])
def test_reduce_rows(emu, dtype, rows, n, op):
    """Two blocks for up to five rows: the row loop wraps around; 32 threads for up to 1000 columns."""
    x = rows_data(rows, n, dtype)
    out = nan_like((rows,), dtype)
    emu[dtype].launch("reduce_rows", 2, 32, x, out, rows, n, REDUCE[op])
    want = x.astype(np.float64).sum(axis=1) if op == "sum" else (x.max(axis=1) if n else np.full(rows, -np.inf))
    np.testing.assert_allclose(out, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_rows_with_a_real_block_and_nan(emu, dtype):
    """256 threads (the GPU's block), and max propagating a NaN."""
    x = rows_data(3, 700, dtype)
    x[1, 123] = np.nan
    out = nan_like((3,), dtype)
    emu[dtype].launch("reduce_rows", 3, 256, x, out, 3, 700, REDUCE["max"])
    np.testing.assert_array_equal(out, x.max(axis=1))


COLS = [(2, 5, 3), (1, 100, 7), (3, 1, 2), (3, 0, 2), (1, 2, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("outer, n, inner", COLS)
@pytest.mark.parametrize("op", ["sum", "max"])
def test_reduce_cols(emu, dtype, outer, n, inner, op):
    x = rng(outer + n + inner).normal(0, 10, (outer, n, inner)).astype(dtype)
    out = nan_like((outer * inner,), dtype)
    emu[dtype].launch("reduce_cols", 2, 16, x, out, outer, n, inner, REDUCE[op])
    if op == "sum":
        want = x.astype(np.float64).sum(axis=1)
    else:
        want = x.max(axis=1) if n else np.full((outer, inner), -np.inf)
    np.testing.assert_allclose(out, want.reshape(-1), rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-4)


def argmax_data(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Small integers: many ties, so "the first maximum" is tested; in the last outer slice two NaNs
    along the axis (NumPy picks the first NaN)."""
    x = rng(sum(shape)).integers(0, 4, shape).astype(dtype)
    n = shape[1]
    x[-1, n - 1] = x[-1, n // 2] = np.nan
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows, n, block", [(4, 9, 16), (3, 300, 32), (2, 1, 16), (5, 700, 256)])
def test_argmax_rows(emu, dtype, rows, n, block):
    x = argmax_data((rows, n), dtype)
    x[0] = -np.inf  # all -inf: the first one
    out = np.full(rows, -1, np.int64)
    emu[dtype].launch("argmax_rows", 2, block, x, out, rows, n)
    np.testing.assert_array_equal(out, np.argmax(x, axis=1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("outer, n, inner", [(2, 5, 3), (1, 40, 7), (3, 1, 2)])
def test_argmax_cols(emu, dtype, outer, n, inner):
    x = argmax_data((outer, n, inner), dtype)
    out = np.full(outer * inner, -1, np.int64)
    emu[dtype].launch("argmax_cols", 2, 16, x, out, outer, n, inner)
    np.testing.assert_array_equal(out, np.argmax(x, axis=1).reshape(-1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows, n, block", [(4, 10, 16), (3, 1, 16), (2, 300, 32), (3, 1000, 256)])
def test_log_softmax_rows_is_stable(emu, dtype, rows, n, block):
    """Logits in the thousands: a naive exp would overflow, the kernel must not."""
    x = rng(n).normal(0, 1000, (rows, n)).astype(dtype)
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(axis=1, keepdims=True)
    want = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    out = nan_like((rows, n), dtype)
    emu[dtype].launch("log_softmax_rows", 2, block, x, out, rows, n)
    np.testing.assert_allclose(out, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-4)


# ---------------------------------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather(emu, dtype):
    x = rng(5).normal(size=50).astype(dtype)
    position = rng(6).integers(0, 50, 77).astype(np.int64)
    out = nan_like((77,), dtype)
    emu[dtype].launch("gather", 2, 16, x, position, out, 77)
    np.testing.assert_array_equal(out, x[position])


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_adds_repeated_positions(emu, dtype):
    values = rng(7).normal(size=200).astype(dtype)
    position = rng(8).integers(0, 6, 200).astype(np.int64)  # every position many times
    out = np.zeros(6, dtype)
    emu[dtype].launch("scatter_add", 3, 32, values, position, out, 200)
    want = np.zeros(6, np.float64)
    np.add.at(want, position, values.astype(np.float64))
    np.testing.assert_allclose(out, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


# ---------------------------------------------------------------------------------------------------
# Matrix product
# ---------------------------------------------------------------------------------------------------


def run_matmul(em: emulator.Emulator, m: int, k: int, n: int, seed: int, batch: int = 0,
               grid_z: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """C from the kernel (grid and block from the library's own tile sizes) and A @ B from NumPy; with
    ``batch``, a stack of that many products, on ``grid_z`` layers of blocks."""
    lead = (batch,) if batch else ()
    a = rng(seed).normal(size=(*lead, m, k)).astype(em.dtype)
    b = rng(seed + 1).normal(size=(*lead, k, n)).astype(em.dtype)
    c = nan_like((*lead, m, n), em.dtype)
    t = em.defines
    threads = (t["MM_BM"] // t["MM_TM"]) * (t["MM_BN"] // t["MM_TN"])
    grid = (-(-n // t["MM_BN"]), -(-m // t["MM_BM"]), grid_z)
    em.launch("matmul", grid, threads, a, b, c, m, n, k, max(batch, 1))
    return c, a.astype(np.float64) @ b.astype(np.float64)


RAGGED = [(1, 1, 1), (17, 5, 33), (16, 16, 16), (33, 31, 15), (1, 40, 17), (20, 1, 3), (3, 0, 4), (5, 9, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, k, n", RAGGED)
def test_matmul_small_tiles_ragged(emu_small, dtype, m, k, n):
    c, want = run_matmul(emu_small[dtype], m, k, n, seed=m + k + n)
    np.testing.assert_allclose(c, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, k, n", [(130, 9, 131), (129, 17, 1)])
def test_matmul_real_tiles_ragged(emu, dtype, m, k, n):
    """The tile sizes the GPU runs (128 x 128 x 8, 8 x 8 per thread: 256 threads) on ragged edges."""
    assert emu[dtype].defines["MM_BM"] == 128
    c, want = run_matmul(emu[dtype], m, k, n, seed=1)
    np.testing.assert_allclose(c, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch, grid_z", [(1, 1), (3, 3), (5, 2), (4, 7)])
def test_matmul_batched(emu_small, dtype, batch, grid_z):
    """A stack of products: block layer z takes products z, z + gridDim.z, … (fewer layers than products
    loop; more layers than products leave the extra ones idle)."""
    c, want = run_matmul(emu_small[dtype], 17, 5, 19, seed=batch, batch=batch, grid_z=grid_z)
    np.testing.assert_allclose(c, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


# ---------------------------------------------------------------------------------------------------
# Coverage, and AddressSanitizer
# ---------------------------------------------------------------------------------------------------


def test_every_kernel_has_a_test_here():
    text = Path(__file__).read_text()
    missing = [name for name in kernel_source.kernel_names() if f'"{name}"' not in text]
    assert not missing, f"kernels without an emulated test: {missing}"


@pytest.mark.timeout(1200)
@pytest.mark.skipif(not emulator.ASAN, reason="set MG2_ASAN=1 to rerun the emulated tests under AddressSanitizer")
@pytest.mark.skipif(emulator.asan_preloaded(), reason="this is the AddressSanitizer child itself")
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")
def test_under_address_sanitizer():
    """Rerun the emulated kernel and backend tests in a child with libasan preloaded: any
    out-of-bounds access aborts that child with an ASan report."""
    env = dict(os.environ, LD_PRELOAD=emulator.asan_runtime(), ASAN_OPTIONS="detect_leaks=0")
    files = [str(HERE / "test_cuda_kernels_emulated.py"), str(HERE / "test_cuda_backend.py")]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "not gpu", *files]
    child = subprocess.run(command, env=env, capture_output=True, text=True, cwd=HERE.parent)
    report = (child.stdout + child.stderr)[-6000:]
    assert child.returncode == 0, report
    assert "AddressSanitizer" not in report, report
    print(report.splitlines()[-1])


@pytest.mark.skipif(not emulator.asan_preloaded(), reason="only meaningful under AddressSanitizer (MG2_ASAN=1)")
def test_address_sanitizer_catches_out_of_bounds():
    """A test that can fail: ASan must abort a process whose kernel writes one element too far."""
    (library,) = emulator.build([("float32", {})])
    script = (
        "import ctypes, numpy as np\n"
        f"lib = ctypes.CDLL({str(library)!r})\n"
        "lib.probe_out_of_bounds.argtypes = [ctypes.c_void_p, ctypes.c_longlong]\n"
        "out = np.zeros(1000, np.float32)\n"
        "lib.probe_out_of_bounds(out.ctypes.data, out.size)\n"
    )
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert child.returncode != 0
    assert "heap-buffer-overflow" in child.stderr
