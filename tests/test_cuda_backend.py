"""The CUDA backend's glue: telling apart what is missing, the import rule, and every backend method against
NumPy.  pycuda's errors are in ``test_cuda_device.py``, the index arithmetic in ``test_cuda_layout.py``.

The method tests run twice: on the CPU emulator (``EmulatedDevice``: the same kernels.cu, the same
CudaBackend, NumPy arrays for memory), and on a real GPU when one is usable (``-m gpu``).
"""
from __future__ import annotations

import importlib.abc
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda_emu import emulator

from micrograd2.backends import cuda
from micrograd2.backends.base import BINARY_OPS, UNARY_OPS, ArrayBackend

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------------------------------
# cuda_status(): each missing piece, and what to do about it
# ---------------------------------------------------------------------------------------------------


@pytest.fixture
def no_pycuda_loaded(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """pycuda "installed" (find_spec finds it), none of it imported yet, and no backend made yet."""
    real_find_spec = cuda.importlib.util.find_spec
    monkeypatch.setattr(
        cuda.importlib.util, "find_spec", lambda name, *a: object() if name == "pycuda" else real_find_spec(name, *a)
    )
    for name in [m for m in sys.modules if m == "pycuda" or m.startswith("pycuda.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(cuda, "_backend", None)
    return monkeypatch


class _Raiser(importlib.abc.MetaPathFinder):
    """Makes ``import pycuda...`` raise ``error``, as a broken install does."""

    def __init__(self, error: ImportError) -> None:
        self.error = error

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "pycuda" or name.startswith("pycuda."):
            raise self.error


def fake_pycuda(monkeypatch: pytest.MonkeyPatch, init_error: str | None = None, count: int = 1) -> None:
    """Put a fake ``pycuda.driver`` in ``sys.modules``: its ``init()`` raises ``init_error`` (as a
    ``pycuda._driver.Error``, which is not a Python RuntimeError) or finds ``count`` GPUs."""
    driver = types.ModuleType("pycuda.driver")

    class Error(Exception):
        pass

    Error.__module__ = "pycuda._driver"

    def init() -> None:
        if init_error:
            raise Error(init_error)

    class Device:
        def __init__(self, ordinal: int) -> None:
            self.ordinal = ordinal

        @staticmethod
        def count() -> int:
            return count

        def name(self) -> str:
            return "NVIDIA H200 (fake)"

    driver.Error, driver.init, driver.Device = Error, init, Device  # type: ignore[attr-defined]
    package = types.ModuleType("pycuda")
    package.driver = driver  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pycuda", package)
    monkeypatch.setitem(sys.modules, "pycuda.driver", driver)


@pytest.mark.skipif(cuda.importlib.util.find_spec("pycuda") is not None, reason="pycuda is installed here")
def test_status_here_says_pycuda_is_not_installed():
    ready, message = cuda.cuda_status()
    assert not ready
    assert message == f"pycuda is not installed: {cuda.INSTALL_HINT}"
    assert "pip install -e '.[cuda]'" in message


def test_status_without_pycuda(monkeypatch):
    monkeypatch.setattr(cuda.importlib.util, "find_spec", lambda name, *a: None)
    assert cuda.cuda_status() == (False, f"pycuda is not installed: {cuda.INSTALL_HINT}")


IMPORT_FAILURES = [
    (ModuleNotFoundError("No module named 'numpy'", name="numpy"), "NumPy is missing: pip install numpy"),
    (ImportError("libcuda.so.1: cannot open shared object file: No such file or directory"), "libcuda.so is not"),
    (ImportError("/x/pycuda/_driver.cpython-312-x86_64-linux-gnu.so: undefined symbol: cuCtxCreate_v4"), "older"),
    (ImportError("something else"), "pycuda failed to import (something else)"),
]


@pytest.mark.parametrize("error, expected", IMPORT_FAILURES, ids=["numpy", "libcuda", "old-driver", "other"])
def test_status_when_pycuda_fails_to_import(no_pycuda_loaded, error, expected):
    no_pycuda_loaded.setattr(sys, "meta_path", [_Raiser(error), *sys.meta_path])
    ready, message = cuda.cuda_status()
    assert not ready
    assert expected in message
    with pytest.raises(RuntimeError, match="pycuda|NVIDIA|NumPy"):
        cuda.get_cuda_backend()


def test_status_with_a_driver_but_no_gpu(no_pycuda_loaded):
    fake_pycuda(no_pycuda_loaded, init_error="cuInit failed: no CUDA-capable device is detected")
    ready, message = cuda.cuda_status()
    assert not ready
    assert message.startswith("no usable GPU (cuInit failed: no CUDA-capable device is detected)")
    with pytest.raises(RuntimeError, match="no usable GPU"):
        cuda.get_cuda_backend()


def test_status_with_a_driver_that_counts_no_gpu(no_pycuda_loaded):
    fake_pycuda(no_pycuda_loaded, count=0)
    ready, message = cuda.cuda_status()
    assert not ready
    assert message == "the NVIDIA driver sees no GPU: run on a machine with an NVIDIA GPU, or use device='cpu'"


def test_status_when_ready(no_pycuda_loaded):
    fake_pycuda(no_pycuda_loaded, count=2)
    assert cuda.cuda_status() == (True, "CUDA is ready: 2 GPU(s), the first is NVIDIA H200 (fake)")


@pytest.mark.skipif(cuda.cuda_status()[0], reason="CUDA is usable here")
def test_get_cuda_backend_raises_a_python_runtime_error_here():
    with pytest.raises(RuntimeError) as caught:
        cuda.get_cuda_backend()
    assert str(caught.value) == cuda.cuda_status()[1]


def test_importing_micrograd2_does_not_import_pycuda():
    code = (
        "import sys, micrograd2\n"
        "assert not [m for m in sys.modules if m.startswith('pycuda')], 'micrograd2'\n"
        "import micrograd2.backends.cuda, micrograd2.backends.kernel_source\n"
        "assert not [m for m in sys.modules if m.startswith('pycuda')], 'backends.cuda'\n"
    )
    env = {"PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------------------------------------------
# Every backend method against NumPy: on the emulator here, on the GPU with -m gpu
# ---------------------------------------------------------------------------------------------------


@pytest.fixture(
    scope="module",
    params=["emulated", pytest.param("gpu", marks=pytest.mark.gpu)],
)
def backend(request: pytest.FixtureRequest) -> cuda.CudaBackend:
    if request.param == "gpu":
        ready, message = cuda.cuda_status()
        if not ready:
            pytest.skip(f"no usable GPU: {message}")
        return cuda.get_cuda_backend()
    reason = emulator.skip_reason()
    if reason:
        pytest.skip(reason)
    return cuda.CudaBackend(emulator.EmulatedDevice(tiles=emulator.SMALL_TILES))


FLOAT_DTYPES = ["float32", "float64"]
TOL = {"float32": 1e-5, "float64": 1e-12}


def put(backend: ArrayBackend, value: Any, dtype: str | None = None) -> Any:
    array = np.asarray(value)
    return backend.from_host(array, dtype or array.dtype.name)


def get(backend: ArrayBackend, x: Any) -> np.ndarray:
    return np.asarray(backend.to_host(x))


def same(backend: ArrayBackend, x: Any, want: Any, dtype: str | None = None) -> None:
    """``x`` (a backend array) equals ``want`` in shape, dtype and values (within the dtype's tolerance)."""
    got, want = get(backend, x), np.asarray(want)
    assert got.shape == want.shape
    assert backend.dtype(x) == (dtype or want.dtype.name)
    tol = TOL.get(got.dtype.name, 0)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol, equal_nan=True)


def data(shape: tuple[int, ...], dtype: str, seed: int = 0, low: float = 0.5) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, 2.0, shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4), (2, 1, 3)])
def test_from_host_to_host_round_trip(backend, dtype, shape):
    x = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype)
    y = backend.from_host(x, dtype)
    assert backend.shape(y) == shape and backend.dtype(y) == dtype
    got = backend.to_host(y)
    assert isinstance(got, np.ndarray) and got.dtype == x.dtype
    np.testing.assert_array_equal(got, x)


def test_float16_is_refused_with_a_type_error(backend):
    with pytest.raises(TypeError, match="float16"):
        backend.from_host([1.0], "float16")
    with pytest.raises(TypeError, match="float16"):
        backend.full((2,), 1.0, "float16")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_full(backend, dtype):
    same(backend, backend.full((2, 3), 1, dtype), np.full((2, 3), 1, dtype))
    same(backend, backend.full((), 2.5, "float32"), np.float32(2.5).reshape(()))


CASTS = ["float32", "float64", "int64", "bool"]


@pytest.mark.parametrize("source", CASTS)
@pytest.mark.parametrize("target", CASTS)
def test_astype(backend, source, target):
    x = np.array([0.0, -2.7, 3.5, 1.0, 7.0], np.float64).astype(source)
    y = backend.astype(put(backend, x), target)
    np.testing.assert_array_equal(get(backend, y), x.astype(target))
    assert backend.dtype(y) == target


def test_astype_rounds_to_nearest_even(backend):
    x = np.array([1 + 2.0**-24, 1 + 3 * 2.0**-24, 1 / 3], np.float64)  # ties, and an ordinary value
    np.testing.assert_array_equal(get(backend, backend.astype(put(backend, x), "float32")), x.astype(np.float32))


BROADCASTS = [((3, 1), (1, 4)), ((), (2, 3)), ((5,), (4, 5)), ((2, 3), (2, 3)), ((4, 1, 3), (2, 1)), ((0, 3), (3,))]
NUMPY_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "pow": np.power, "maximum": np.maximum, "gt": np.greater, "eq": np.equal,
}  # fmt: skip


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op", BINARY_OPS)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_binary(backend, dtype, op, shapes):
    a, b = data(shapes[0], dtype, 1), data(shapes[1], dtype, 2)
    if a.size and b.size:
        b.reshape(-1)[0] = a.reshape(-1)[0]  # one tie, for eq and maximum
    same(backend, backend.binary(op, put(backend, a), put(backend, b)), NUMPY_BINARY[op](a, b))


@pytest.mark.parametrize("op", BINARY_OPS)
def test_binary_with_python_numbers_on_either_side(backend, op):
    a = data((2, 3), "float32", 3)
    f = NUMPY_BINARY[op]
    same(backend, backend.binary(op, put(backend, a), 1.5), f(a, np.float32(1.5)))
    same(backend, backend.binary(op, 2.0, put(backend, a)), f(np.float32(2.0), a))


def test_binary_dtypes_follow_numpy(backend):
    f32, f64 = data((3,), "float32"), data((3,), "float64", 1)
    ints = np.array([3, -4, 5], np.int64)
    same(backend, backend.binary("add", put(backend, f32), put(backend, f64)), f32 + f64)
    same(backend, backend.binary("mul", put(backend, ints), put(backend, ints)), ints * ints)
    same(backend, backend.binary("div", put(backend, ints), 2), ints / 2)
    same(backend, backend.binary("add", put(backend, ints), 0.5), ints + 0.5)
    same(backend, backend.binary("gt", put(backend, ints), 0), ints > 0)


SPECIALS = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30, -3.5, 2.0, 0.25, 40.0, -40.0, 700.0])
NUMPY_UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt, "abs": np.abs,
    "relu": lambda x: np.maximum(x, 0), "sign": np.sign,
    "sigmoid": lambda x: (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype),
}  # fmt: skip


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op", UNARY_OPS)
def test_unary(backend, dtype, op):
    x = np.concatenate([SPECIALS, np.random.default_rng(4).normal(0, 3, 8)]).astype(dtype).reshape(4, 5)
    with np.errstate(all="ignore"):
        want = NUMPY_UNARY[op](x)
    same(backend, backend.unary(op, put(backend, x)), want)


def test_unary_on_int64_keeps_integers_where_numpy_does(backend):
    ints = np.array([-3, 0, 4], np.int64)
    same(backend, backend.unary("neg", put(backend, ints)), -ints)
    same(backend, backend.unary("abs", put(backend, ints)), np.abs(ints))
    same(backend, backend.unary("exp", put(backend, ints)), np.exp(ints))


def test_unknown_op_is_a_value_error(backend):
    with pytest.raises(ValueError, match="unknown op 'mod'"):
        backend.binary("mod", put(backend, [1.0]), 2.0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_where(backend, dtype):
    cond = np.array([[True], [False], [True]])
    a, b = data((1, 4), dtype), data((3, 4), dtype, 5)
    same(backend, backend.where(put(backend, cond), put(backend, a), put(backend, b)), np.where(cond, a, b))
    same(backend, backend.where(put(backend, cond), put(backend, a), 0.0), np.where(cond, a, dtype and a.dtype.type(0)))


AXES = [None, 0, 1, -1, (0, 2), (1, 2), (0, 1, 2), ()]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_and_max(backend, dtype, axis, keepdims):
    x = np.random.default_rng(6).normal(0, 1, (3, 4, 5)).astype(dtype)
    same(backend, backend.sum(put(backend, x), axis=axis, keepdims=keepdims), x.sum(axis=axis, keepdims=keepdims))
    same(backend, backend.max(put(backend, x), axis=axis, keepdims=keepdims), x.max(axis=axis, keepdims=keepdims))


def test_sum_and_max_of_integers_empties_and_scalars(backend):
    ints, flags = np.array([[1, 5], [7, -2]], np.int64), np.array([True, False, True])
    same(backend, backend.sum(put(backend, ints), axis=0), ints.sum(axis=0))
    same(backend, backend.max(put(backend, ints)), ints.max())
    same(backend, backend.sum(put(backend, flags)), flags.sum())
    empty = np.zeros((0, 3), np.float32)
    same(backend, backend.sum(put(backend, empty), axis=0), empty.sum(axis=0))
    same(backend, backend.max(put(backend, empty), axis=1), empty.max(axis=1))
    same(backend, backend.sum(put(backend, np.float64(2.5))), np.float64(2.5))
    with pytest.raises(ValueError, match="zero-size array"):
        backend.max(put(backend, empty), axis=0)
    with pytest.raises(ValueError, match="out of bounds"):
        backend.sum(put(backend, ints), axis=2)


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax(backend, axis, keepdims):
    x = np.random.default_rng(7).integers(0, 3, (3, 4, 5)).astype(np.float32)  # ties: the first one wins
    same(backend, backend.argmax(put(backend, x), axis, keepdims=keepdims), np.argmax(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("x_shape, shape", [((4, 3), (3,)), ((2, 4, 3), (4, 1)), ((4, 3), (1, 1)), ((4, 3), (4, 3))])
def test_sum_to_shape(backend, x_shape, shape):
    x = data(x_shape, "float64")
    lead = len(x_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and x_shape[i + lead] != 1)
    same(backend, backend.sum_to_shape(put(backend, x), shape), x.sum(axis=axes, keepdims=True).reshape(shape))


MATMULS = [
    ((3, 4), (4, 5)), ((17, 33), (33, 18)), ((3, 5), (5, 40)), ((40, 5), (5, 3)), ((1, 1), (1, 1)),
    ((4,), (4, 3)), ((3, 4), (4,)), ((5,), (5,)), ((2, 0), (0, 3)),
    ((3, 4, 5), (3, 5, 2)), ((2, 17, 3), (2, 3, 18)), ((1, 1, 1), (1, 1, 1)), ((2, 3, 0), (2, 0, 4)),
    ((0, 2, 3), (0, 3, 4)),
]  # fmt: skip


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shapes", MATMULS, ids=str)
def test_matmul(backend, dtype, shapes):
    a, b = data(shapes[0], dtype, 8, low=-1), data(shapes[1], dtype, 9, low=-1)
    same(backend, backend.matmul(put(backend, a), put(backend, b)), a @ b)


def test_matmul_promotes_and_checks_shapes(backend):
    a, b = data((3, 4), "float32"), data((4, 2), "float64")
    same(backend, backend.matmul(put(backend, a), put(backend, b)), a @ b)
    with pytest.raises(ValueError, match="not aligned"):
        backend.matmul(put(backend, a), put(backend, a))
    with pytest.raises(ValueError, match="1-D and 2-D operands, or two 3-D stacks"):
        backend.matmul(put(backend, data((2, 3, 4), "float32")), put(backend, b))
    with pytest.raises(ValueError, match="one batch size"):
        backend.matmul(put(backend, data((2, 3, 4), "float32")), put(backend, data((3, 4, 2), "float32")))
    with pytest.raises(ValueError, match="not aligned"):
        backend.matmul(put(backend, data((2, 3, 4), "float32")), put(backend, data((2, 3, 2), "float32")))


def test_reshape(backend):
    x = data((3, 4), "float32")
    same(backend, backend.reshape(put(backend, x), (2, -1)), x.reshape(2, -1))
    same(backend, backend.reshape(put(backend, x), [12]), x.reshape(12))
    same(backend, backend.reshape(put(backend, np.float32(2.0).reshape(1, 1)), ()), np.float32(2.0).reshape(()))
    with pytest.raises(ValueError, match="cannot reshape"):
        backend.reshape(put(backend, x), (5, -1))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (-1, 1, 0)], ids=str)
def test_transpose(backend, dtype, axes):
    x = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    same(backend, backend.transpose(put(backend, x), axes), np.transpose(x, axes))


@pytest.mark.parametrize("shapes", [((3, 1), (2, 3, 4)), ((), (2, 2)), ((4,), (3, 4)), ((2, 1), (2, 1))], ids=str)
def test_broadcast_to(backend, shapes):
    x = data(shapes[0], "float64")
    same(backend, backend.broadcast_to(put(backend, x), shapes[1]), np.broadcast_to(x, shapes[1]))
    with pytest.raises(ValueError):
        backend.broadcast_to(put(backend, data((3,), "float32")), (4,))


INDEXES = [
    (1,), (slice(None), 1), (slice(1, None, 2),), (Ellipsis, 0), (None, slice(None)), (-1, slice(None, None, -1)),
    (np.array([0, 2, 2]),), (np.array([0, 1]), np.array([2, 0])), (np.array([[0], [2]]), np.array([1, 3])),
    (slice(None), np.array([1, 1, 0])), (1, 2, 0), (),
]  # fmt: skip


@pytest.mark.parametrize("index", INDEXES, ids=str)
def test_getitem(backend, index):
    x = data((3, 4, 2), "float32", 10)
    same(backend, backend.getitem(put(backend, x), index), x[index])


def test_getitem_with_device_index_arrays_masks_and_integers(backend):
    x, rows = data((4, 3), "float64", 11), np.array([3, 0, 3])
    same(backend, backend.getitem(put(backend, x), put(backend, rows)), x[rows])
    same(backend, backend.getitem(put(backend, x), (put(backend, rows), 1)), x[rows, 1])
    same(backend, backend.getitem(put(backend, x), put(backend, x > 1.0)), x[x > 1.0])
    ints = np.arange(12, dtype=np.int64).reshape(4, 3)
    same(backend, backend.getitem(put(backend, ints), (slice(None), 2)), ints[:, 2])
    with pytest.raises(IndexError):
        backend.getitem(put(backend, x), (4,))


SCATTERS = [
    ((np.array([0, 0, 2]),), (3, 4)),
    ((np.array([0, 1, 1]), np.array([2, 2, 2])), (3,)),
    ((slice(None), 1), (3,)),
    ((np.array([1, 1]), slice(1, 3)), (2, 2)),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("index, values_shape", SCATTERS, ids=str)
def test_scatter_add_is_getitems_backward(backend, dtype, index, values_shape):
    values = data(values_shape, dtype, 12)
    want = np.zeros((3, 4), dtype)
    np.add.at(want, index, values)
    same(backend, backend.scatter_add((3, 4), index, put(backend, values), dtype), want)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize(
    "shape, axis", [((4, 10), -1), ((4, 10), 0), ((2, 3, 5), 1), ((2, 3, 4), 0), ((3, 1), 1), ((7,), 0), ((), 0)]
)
def test_log_softmax(backend, dtype, shape, axis):
    x = np.random.default_rng(13).normal(0, 50, shape).astype(dtype)
    x64 = x.astype(np.float64)
    on = axis if shape else None
    shifted = x64 - x64.max(axis=on, keepdims=True)
    want = (shifted - np.log(np.exp(shifted).sum(axis=on, keepdims=True))).astype(dtype)
    same(backend, backend.log_softmax(put(backend, x), axis), want)


def test_take_along_rows_and_arange(backend):
    x, targets = data((5, 4), "float32", 14), np.array([3, 0, 1, 1, 2])
    same(backend, backend.arange(5), np.arange(5))
    same(backend, backend.take_along_rows(put(backend, x), put(backend, targets)), x[np.arange(5), targets])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_iadd_imul_assign_in_place(backend, dtype):
    x0, y = data((3, 4), dtype, 15), data((4,), dtype, 16)
    x = put(backend, x0)
    backend.iadd(x, put(backend, y), alpha=-0.5)
    backend.iadd(x, 1.0, alpha=2.0)
    backend.imul(x, put(backend, y))
    backend.imul(x, 3.0)
    same(backend, x, ((x0 - 0.5 * y + 2.0) * y) * 3.0)
    backend.assign(x, put(backend, y))
    same(backend, x, np.broadcast_to(y, (3, 4)))
    backend.assign(x, 7.0)
    same(backend, x, np.full((3, 4), 7.0, dtype))
    with pytest.raises(ValueError, match="non-broadcastable"):
        backend.iadd(put(backend, y), x)


def test_in_place_on_a_reshaped_view_changes_the_original(backend):
    x = put(backend, np.zeros((2, 3), np.float32))
    backend.iadd(backend.reshape(x, (6,)), 1.0)
    same(backend, x, np.ones((2, 3), np.float32))


def test_shares_memory_tells_a_reshaped_view_from_a_copy(backend):
    x = put(backend, np.zeros((2, 3), np.float32))
    assert backend.shares_memory(backend.reshape(x, (6,)), x)
    assert not backend.shares_memory(backend.astype(x, "float32"), x)  # astype always copies
    assert not backend.shares_memory(put(backend, np.zeros(0, np.float32)), x)


def test_every_backend_method_is_tested_here():
    text = Path(__file__).read_text()
    methods = [n for n in dir(ArrayBackend) if not n.startswith("_") and callable(getattr(ArrayBackend, n))]
    untested = [n for n in methods if f"backend.{n}(" not in text]
    assert not untested


@pytest.fixture
def gpu_backend() -> cuda.CudaBackend:
    ready, message = cuda.cuda_status()
    if not ready:
        pytest.skip(f"no usable GPU: {message}")
    return cuda.get_cuda_backend()


@pytest.mark.parametrize("where", ["emulated", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_the_tensor_engine_trains_on_cuda(monkeypatch, request, where):
    """One MLP training step through the Tensor engine on device='cuda' gives the gradients that 'cpu'
    gives: the engine and this backend agree on every call (here on the emulator, or on the GPU)."""
    import micrograd2 as mg
    import micrograd2.backends as backends

    if where == "gpu":
        used = request.getfixturevalue("gpu_backend")
    else:
        reason = emulator.skip_reason()
        if reason:
            pytest.skip(reason)
        used = cuda.CudaBackend(emulator.EmulatedDevice(tiles=emulator.SMALL_TILES))
        monkeypatch.setitem(backends._backends, "cuda", used)
        monkeypatch.setitem(backends._by_array_type, emulator.EmulatedArray, used)
    rng = np.random.default_rng(0)
    x, w1, w2 = rng.normal(size=(6, 4)), rng.normal(size=(5, 4)), rng.normal(size=(3, 5))
    targets = [0, 2, 1, 1, 0, 2]

    def step(device: str) -> list[np.ndarray]:
        params = [mg.tensor(w, requires_grad=True, dtype="float64", device=device) for w in (w1, np.zeros(5), w2)]
        hidden = (mg.tensor(x, dtype="float64", device=device) @ params[0].T + params[1]).relu()
        logits = hidden @ params[2].T
        loss = mg.nn.functional.cross_entropy(logits, targets) + logits.max(1)[0].sum() * 0.01
        loss = loss + hidden[1:3, ::2].sum() + logits.log_softmax(0).mean() + (hidden > 0.5).sum() * 0.0
        loss.backward()
        return [loss.detach().numpy(), *(p.grad.numpy() for p in params)]

    for got, want in zip(step("cuda"), step("cpu")):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    if where == "emulated":
        assert {"matmul", "log_softmax_rows", "scatter_add", "reduce_rows"} <= set(used.device.launches)


# ---------------------------------------------------------------------------------------------------
# Real GPU only
# ---------------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_arrays_are_pycuda_gpuarrays_and_memory_is_given_back(gpu_backend):
    backend = gpu_backend
    import pycuda.driver as drv
    from pycuda.gpuarray import GPUArray

    backend.empty_cache()
    free_before, _ = drv.mem_get_info()
    x = backend.full((64, 1024, 1024), 1.0, "float32")  # 256 MiB
    assert isinstance(x, GPUArray)
    free_during, _ = drv.mem_get_info()
    assert free_before - free_during >= 250 * 2**20
    del x
    backend.empty_cache()
    free_after, _ = drv.mem_get_info()
    assert free_before - free_after < 16 * 2**20
