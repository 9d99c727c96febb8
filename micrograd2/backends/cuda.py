"""The ``"cuda"`` backend: micrograd2's own kernels (``kernels.cu``) over pycuda ``GPUArray``\\ s.

Two layers, so that the logic can be tested on a machine without a GPU (the device layer is
``cuda_device.py``; the index arithmetic both use, ``cuda_layout.py``):

* :class:`CudaBackend` implements :class:`~micrograd2.backends.base.ArrayBackend`: dtypes, broadcasting,
  reductions, indexing, and which kernel to launch with which arguments.  It never touches pycuda.
* A *device* (:class:`Device`) allocates, copies and launches.  :class:`PycudaDevice` is the real
  one; the tests plug in a CPU emulator that runs the same ``kernels.cu``.

The kernels exist for float32 and float64.  ``int64`` and ``bool`` arrays are stored, and computed on
by way of float64 (exact up to 2**53); float16 is refused with a ``TypeError``.

Importing this module never imports pycuda: :func:`cuda_status` and :func:`get_cuda_backend` do, when
called, and the CUDA context is created then (never ``import pycuda.autoinit``).
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from typing import Any

try:  # a dependency of micrograd2; but cuda_status() must still run, and say so, without it
    import numpy as np
except ModuleNotFoundError:  # pragma: no cover
    np = None  # type: ignore[assignment]

from micrograd2.backends import kernel_source
from micrograd2.backends.base import Array, ArrayBackend, Shape
from micrograd2.backends.cuda_device import (
    Device,
    PycudaDevice,
    _cuda_errors,
    _pycuda_errors_as_runtime_errors,
)
from micrograd2.backends.cuda_layout import (
    FLOATS,
    _broadcast_strides,
    _coalesce,
    _compute_dtype,
    _contiguous_strides,
    _flat_positions,
    _is_number,
    _normalize_axes,
    _normalize_axis,
    _op_code,
    _resolve_shape,
    _runs,
)

INSTALL_HINT = "pip install -e '.[cuda]' in the micrograd2 folder, on a machine with the CUDA toolkit"
STORED = (*FLOATS, "int64", "bool")
_CAST_TAGS = {"float32": "f32", "float64": "f64", "int64": "i64", "bool": "bool"}
_LAYOUT_CACHE_SIZE = 4096
_MAX_GRID_Z = 65535  # CUDA's limit on gridDim.z: a bigger batch is taken in turns (kernels.cu's matmul)



# ---------------------------------------------------------------------------------------------------
# Is CUDA usable here?
# ---------------------------------------------------------------------------------------------------


def cuda_status() -> tuple[bool, str]:
    """``(True, description)`` if the CUDA backend can run here, else ``(False, what is missing and what
    to do)``.  Tells apart: no pycuda, no NumPy, no driver library, a driver too old, and no GPU."""
    if importlib.util.find_spec("pycuda") is None:
        return False, f"pycuda is not installed: {INSTALL_HINT}"
    try:
        import pycuda.driver as drv
    except ImportError as error:
        return False, _import_failure(error)
    try:
        drv.init()
        count = drv.Device.count()
        name = drv.Device(0).name() if count else ""
    except drv.Error as error:  # pycuda's errors are not Python RuntimeErrors
        return False, f"no usable GPU ({error}): run on a machine with an NVIDIA GPU, or use device='cpu'"
    if count == 0:
        return (
            False,
            "the NVIDIA driver sees no GPU: run on a machine with an NVIDIA GPU, or use device='cpu'",
        )
    return True, f"CUDA is ready: {count} GPU(s), the first is {name}"


def _import_failure(error: ImportError) -> str:
    """The message for ``import pycuda.driver`` failing with ``error``."""
    text = str(error)
    if isinstance(error, ModuleNotFoundError) and (error.name or "").split(".")[0] == "numpy":
        return "pycuda is installed but NumPy is missing: pip install numpy"
    if "libcuda.so" in text:
        return (
            "pycuda is installed but the NVIDIA driver library libcuda.so is not: this machine has no "
            f"NVIDIA driver; install it, or use device='cpu' ({text})"
        )
    if "undefined symbol" in text:
        return (
            "the NVIDIA driver is older than the CUDA toolkit pycuda was built with: update the driver, "
            f"or rebuild pycuda with an older toolkit ({text})"
        )
    return f"pycuda failed to import ({text}): reinstall it with {INSTALL_HINT}"


_backend: CudaBackend | None = None


def get_cuda_backend() -> CudaBackend:
    """The one CUDA backend of this process (created on first use), or a ``RuntimeError`` saying what
    is missing."""
    global _backend
    if _backend is None:
        ready, message = cuda_status()
        if not ready:
            raise RuntimeError(message)
        with _pycuda_errors_as_runtime_errors():
            _backend = CudaBackend()
    return _backend


# ---------------------------------------------------------------------------------------------------
# The backend
# ---------------------------------------------------------------------------------------------------


class CudaBackend(ArrayBackend):
    """:class:`ArrayBackend` on a CUDA device.  Arrays are C-contiguous device arrays; every method
    that computes launches kernels from ``kernels.cu``."""

    name = "cuda"

    def __init__(self, device: Device | None = None) -> None:
        self.device: Device = device if device is not None else PycudaDevice()
        threads = self.device.block_threads
        if threads & (threads - 1) or threads > self.device.defines["BLOCK_THREADS"]:
            raise ValueError(f"block_threads must be a power of two <= BLOCK_THREADS, got {threads}")
        self._layouts: dict[tuple[int, ...], Array] = {}

    # -- launching -------------------------------------------------------------------------------
    def _launch(self, dtype: str, kernel: str, items: int, *args: Any) -> None:
        """Run a grid-stride kernel over ``items`` elements (nothing to do for none)."""
        if items:
            threads = self.device.block_threads
            blocks = min(-(-items // threads), self.device.max_blocks)
            self.device.launch(dtype, kernel, (blocks, 1), threads, args)

    def _launch_rows(self, dtype: str, kernel: str, rows: int, *args: Any) -> None:
        """Run a kernel that gives each row a block (and loops when there are more rows than blocks)."""
        if rows:
            self.device.launch(
                dtype, kernel, (min(rows, self.device.max_blocks), 1), self.device.block_threads, args
            )

    def _layout(self, shape: Shape, strides: Sequence[Shape]) -> tuple[Array, int]:
        """The device copy of ``[dims..., strides of each input...]`` (coalesced, cached) and its ndim."""
        dims, merged = _coalesce(shape, strides)
        key = tuple(dims) + tuple(s for m in merged for s in m)
        if key not in self._layouts:
            if len(self._layouts) >= _LAYOUT_CACHE_SIZE:
                self._layouts.clear()
            self._layouts[key] = self.device.upload(np.array(key, dtype=np.int64))
        return self._layouts[key], len(dims)

    def _elementwise(
        self, dtype: str, kernel: str, out: Array, inputs: Sequence[tuple[Array, Shape]], *op: int
    ) -> None:
        """``out[i] = kernel(inputs read through their strides)``; ``inputs`` are (array, strides) pairs."""
        shape = self.shape(out)
        layout, ndim = self._layout(shape, [s for _, s in inputs])
        items = math.prod(shape)
        self._launch(dtype, kernel, items, *(x for x, _ in inputs), out, layout, items, ndim, *op)

    def _broadcast_input(self, x: Array, out_shape: Shape) -> tuple[Array, Shape]:
        """``x`` with the strides that read it as ``out_shape``: an input of :meth:`_elementwise`."""
        return x, _broadcast_strides(self.shape(x), out_shape)

    # -- dtypes ----------------------------------------------------------------------------------
    @staticmethod
    def _check_dtype(dtype: str) -> str:
        """``dtype`` if arrays of it can live on the device, else a ``TypeError`` saying what to do."""
        if dtype not in STORED:
            raise TypeError(
                f"dtype {dtype} is not supported on device='cuda' (it has float32, float64, int64 and bool): "
                "convert with .float(), or use device='cpu' for float16/bfloat16"
            )
        return dtype

    def _result_dtype(self, *operands: Any) -> str:
        """NumPy's result dtype for an op on these arrays and Python numbers (numbers do not widen)."""
        return np.result_type(*(o if _is_number(o) else np.dtype(o.dtype) for o in operands)).name

    def _operand(self, value: Any, dtype: str) -> Array:
        """``value`` (an array or a Python number) as a device array of ``dtype``."""
        if _is_number(value):
            return self.full((), value, dtype)
        return value if self.dtype(value) == dtype else self.astype(value, dtype)

    def _copy(self, x: Array) -> Array:
        """A new array with ``x``'s contents."""
        out = self.device.empty(self.shape(x), self.dtype(x))
        self.device.copy(out, x)
        return out

    # -- creation and transfer ---------------------------------------------------------------------
    @_cuda_errors
    def from_host(self, data: Any, dtype: str) -> Array:
        return self.device.upload(np.asarray(data, dtype=self._check_dtype(dtype), order="C"))

    @_cuda_errors
    def to_host(self, x: Array) -> Any:
        return self.device.download(x)

    @_cuda_errors
    def full(self, shape: tuple[int, ...], value: float, dtype: str) -> Array:
        shape = tuple(shape)
        if self._check_dtype(dtype) not in FLOATS:
            return self.device.upload(np.full(shape, value, dtype=dtype))
        out = self.device.empty(shape, dtype)
        items = math.prod(shape)
        self._launch(dtype, "fill", items, out, items, float(value))
        return out

    @_cuda_errors
    def arange(self, n: int) -> Array:
        return self.device.upload(np.arange(n, dtype=np.int64))

    def empty_cache(self) -> None:
        """Give the memory that freed arrays left in the pool back to the driver (as
        ``torch.cuda.empty_cache``)."""
        self.device.empty_cache()

    # -- metadata ----------------------------------------------------------------------------------
    def shape(self, x: Array) -> tuple[int, ...]:
        return tuple(x.shape)

    def dtype(self, x: Array) -> str:
        return str(np.dtype(x.dtype).name)

    @_cuda_errors
    def astype(self, x: Array, dtype: str) -> Array:
        source, target = self.dtype(x), self._check_dtype(dtype)
        if source == target:
            return self._copy(x)
        if target not in FLOATS and source not in FLOATS:  # int64 <-> bool: by way of float64
            return self.astype(self.astype(x, "float64"), target)
        out = self.device.empty(self.shape(x), target)
        if target in FLOATS:
            self._launch(target, f"cast_from_{_CAST_TAGS[source]}", x.size, x, out, x.size)
        else:
            self._launch(source, f"cast_to_{_CAST_TAGS[target]}", x.size, x, out, x.size)
        return out

    # -- elementwise -------------------------------------------------------------------------------
    @_cuda_errors
    def binary(self, op: str, a: Array | float, b: Array | float) -> Array:
        code = _op_code(kernel_source.BINARY_CODES, op)
        result = self._result_dtype(a, b)
        if op == "div" and result not in FLOATS:
            result = "float64"  # true division, as NumPy
        compute = _compute_dtype(result)
        shape = np.broadcast_shapes(self._shape_of(a), self._shape_of(b))
        x, y = self._operand(a, compute), self._operand(b, compute)
        comparison = op in ("gt", "eq")
        out = self.device.empty(shape, "bool" if comparison else compute)
        kernel = "compare_op" if comparison else "binary_op"
        self._elementwise(
            compute, kernel, out, [self._broadcast_input(x, shape), self._broadcast_input(y, shape)], code
        )
        return out if comparison or result == compute else self.astype(out, result)

    def _shape_of(self, value: Any) -> Shape:
        """The shape of an array, ``()`` for a number."""
        return () if _is_number(value) else self.shape(value)

    @_cuda_errors
    def unary(self, op: str, x: Array) -> Array:
        code = _op_code(kernel_source.UNARY_CODES, op)
        source = self.dtype(x)
        compute = _compute_dtype(source)
        out = self._unary(compute, code, self._operand(x, compute), self.shape(x))
        if source == "int64" and op in ("neg", "abs", "relu", "sign"):
            return self.astype(out, "int64")  # integer in, integer out, as NumPy
        return out

    def _unary(self, dtype: str, code: int, x: Array, shape: Shape, strides: Shape | None = None) -> Array:
        """A new array of ``shape``: ``f(x)`` with ``x`` read through ``strides`` (default: broadcast)."""
        out = self.device.empty(shape, dtype)
        read = strides if strides is not None else _broadcast_strides(self.shape(x), shape)
        self._elementwise(dtype, "unary_op", out, [(x, read)], code)
        return out

    @_cuda_errors
    def where(self, cond: Array, a: Array | float, b: Array | float) -> Array:
        result = self._result_dtype(a, b)
        compute = _compute_dtype(result)
        shape = np.broadcast_shapes(self._shape_of(cond), self._shape_of(a), self._shape_of(b))
        c = self._operand(bool(cond) if _is_number(cond) else cond, "bool")
        x, y = self._operand(a, compute), self._operand(b, compute)
        out = self.device.empty(shape, compute)
        inputs = [self._broadcast_input(v, shape) for v in (c, x, y)]
        self._elementwise(compute, "where_op", out, inputs)
        return out if result == compute else self.astype(out, result)

    # -- reductions --------------------------------------------------------------------------------
    @_cuda_errors
    def sum(self, x: Array, axis: Any = None, keepdims: bool = False) -> Array:
        source = self.dtype(x)
        result = source if source in FLOATS else "int64"
        out = self._reduce(x, _normalize_axes(axis, len(self.shape(x))), "sum", keepdims)
        return out if result == self.dtype(out) else self.astype(out, result)

    @_cuda_errors
    def max(self, x: Array, axis: Any = None, keepdims: bool = False) -> Array:
        axes = _normalize_axes(axis, len(self.shape(x)))
        if any(self.shape(x)[a] == 0 for a in axes):
            raise ValueError("zero-size array to reduction operation maximum which has no identity")
        out = self._reduce(x, axes, "max", keepdims)
        return out if self.dtype(x) == self.dtype(out) else self.astype(out, self.dtype(x))

    def _reduce(self, x: Array, axes: tuple[int, ...], op: str, keepdims: bool) -> Array:
        """Sum or max over ``axes`` in the compute dtype: one kernel per run of adjacent axes, each seen
        as (outer, n, inner)."""
        shape = list(self.shape(x))
        out = self._operand(x, _compute_dtype(self.dtype(x)))
        if not axes:
            out = self._copy(out)
        for start, stop in _runs(axes):
            outer, n, inner = (
                math.prod(shape[:start]),
                math.prod(shape[start:stop]),
                math.prod(shape[stop:]),
            )
            out = self._reduce_axis(out, outer, n, inner, kernel_source.REDUCE_CODES[op])
            shape[start:stop] = [1] * (stop - start)
        final = tuple(shape) if keepdims else tuple(n for d, n in enumerate(shape) if d not in axes)
        return self.device.view(out, final)

    def _reduce_axis(self, x: Array, outer: int, n: int, inner: int, code: int) -> Array:
        """``out[o, i] = reduce_k x[o, k, i]``, flat: a block per row if inner == 1, else one thread each."""
        dtype = self.dtype(x)
        out = self.device.empty((outer * inner,), dtype)
        if inner == 1:
            self._launch_rows(dtype, "reduce_rows", outer, x, out, outer, n, code)
        else:
            self._launch(dtype, "reduce_cols", outer * inner, x, out, outer, n, inner, code)
        return out

    @_cuda_errors
    def argmax(self, x: Array, axis: int, keepdims: bool = False) -> Array:
        shape = self.shape(x)
        axis = _normalize_axis(axis, len(shape))
        if not shape or shape[axis] == 0:
            raise ValueError(
                "attempt to get argmax of an empty sequence" if shape else "argmax of a 0-d array"
            )
        compute = _compute_dtype(self.dtype(x))
        xc = self._operand(x, compute)
        outer, n, inner = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1 :])
        kept = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1 :]
        out = self.device.empty(kept, "int64")
        if inner == 1:
            self._launch_rows(compute, "argmax_rows", outer, xc, out, outer, n)
        else:
            self._launch(compute, "argmax_cols", outer * inner, xc, out, outer, n, inner)
        return out

    # -- linear algebra and shape ------------------------------------------------------------------
    @_cuda_errors
    def matmul(self, a: Array, b: Array) -> Array:
        sa, sb = self.shape(a), self.shape(b)
        stacked = len(sa) == len(sb) == 3 and sa[0] == sb[0]  # a batch of products (PyTorch's bmm)
        if not (stacked or (1 <= len(sa) <= 2 and 1 <= len(sb) <= 2)):
            raise ValueError(
                f"matmul on device='cuda' takes 1-D and 2-D operands, or two 3-D stacks of matrices of one "
                f"batch size, got shapes {sa} and {sb}"
            )
        batch, (ma, mb) = (sa[0], (sa[1:], sb[1:])) if stacked else (1, (sa, sb))
        (m, k), (k2, n) = (ma if len(ma) == 2 else (1, ma[0])), (mb if len(mb) == 2 else (mb[0], 1))
        if k != k2:
            raise ValueError(
                f"matmul: shapes {sa} and {sb} are not aligned: {k} (dim {len(sa) - 1}) != {k2} "
                f"(dim {len(sb) - 2 if stacked else 0})"
            )
        result = self._result_dtype(a, b)
        compute = _compute_dtype(result)
        out = self._matmul(compute, self._operand(a, compute), self._operand(b, compute), m, n, k, batch)
        final = ((batch,) if stacked else ()) + ma[:-1] + mb[1:]  # a 1-D operand's added axis is dropped again
        out = self.device.view(out, final)
        return out if result == compute else self.astype(out, result)

    def _matmul(self, dtype: str, a: Array, b: Array, m: int, n: int, k: int, batch: int = 1) -> Array:
        """C[z, m, n] = A[z, m, k] @ B[z, k, n] for each z < batch, with the tiled kernel (zeros when k == 0);
        a flat (batch·m, n) array."""
        if k == 0:
            return self.full((batch * m, n), 0.0, dtype)
        if max(m, n, k, batch) >= 2**31:
            raise ValueError(f"matmul on device='cuda' takes dimensions below 2**31, got {(batch, m, k, n)}")
        out = self.device.empty((batch * m, n), dtype)
        if m and n and batch:
            tiles = self.device.defines
            threads = (tiles["MM_BM"] // tiles["MM_TM"]) * (tiles["MM_BN"] // tiles["MM_TN"])
            grid = (-(-n // tiles["MM_BN"]), -(-m // tiles["MM_BM"]), min(batch, _MAX_GRID_Z))
            self.device.launch(dtype, "matmul", grid, threads, (a, b, out, m, n, k, batch))
        return out

    def shares_memory(self, a: Array, b: Array) -> bool:
        """Only ``reshape`` makes views here (indexing and transposing copy): compare the byte ranges."""
        if not a.nbytes or not b.nbytes:
            return False
        start_a, start_b = self.device.address(a), self.device.address(b)
        return start_a < start_b + b.nbytes and start_b < start_a + a.nbytes

    @_cuda_errors
    def reshape(self, x: Array, shape: Sequence[int]) -> Array:
        return self.device.view(x, _resolve_shape(x.size, shape))

    @_cuda_errors
    def transpose(self, x: Array, axes: Sequence[int] | None = None) -> Array:
        shape = self.shape(x)
        order = (
            tuple(reversed(range(len(shape))))
            if axes is None
            else tuple(_normalize_axis(a, len(shape)) for a in axes)
        )
        if sorted(order) != list(range(len(shape))):
            raise ValueError(f"axes {tuple(axes or ())} don't match array of dimension {len(shape)}")
        strides = _contiguous_strides(shape)
        return self._copy_as(x, tuple(shape[a] for a in order), tuple(strides[a] for a in order))

    @_cuda_errors
    def broadcast_to(self, x: Array, shape: tuple[int, ...]) -> Array:
        shape = tuple(shape)
        if np.broadcast_shapes(self.shape(x), shape) != shape:
            raise ValueError(f"operands could not be broadcast together: {self.shape(x)} to {shape}")
        return self._copy_as(x, shape, _broadcast_strides(self.shape(x), shape))

    def _copy_as(self, x: Array, shape: Shape, strides: Shape) -> Array:
        """A new contiguous array of ``shape`` whose element i is x at ``strides``-offset (any dtype)."""
        source = self.dtype(x)
        compute = _compute_dtype(source)
        out = self._unary(
            compute, kernel_source.UNARY_CODES["copy"], self._operand(x, compute), shape, strides
        )
        return out if source == compute else self.astype(out, source)

    # -- indexing ----------------------------------------------------------------------------------
    def _host_index(self, index: Any) -> Any:
        """``index`` with every device array in it copied to the host (NumPy will interpret it)."""
        if isinstance(index, tuple):
            return tuple(self._host_index(i) for i in index)
        return self.device.download(index) if isinstance(index, self.device.array_type) else index

    @_cuda_errors
    def getitem(self, x: Array, index: Any) -> Array:
        positions = _flat_positions(self.shape(x), self._host_index(index))
        source = self.dtype(x)
        compute = _compute_dtype(source)
        out = self.device.empty(positions.shape, compute)
        self._launch(
            compute,
            "gather",
            positions.size,
            self._operand(x, compute),
            self.device.upload(positions),
            out,
            positions.size,
        )
        return out if source == compute else self.astype(out, source)

    @_cuda_errors
    def scatter_add(self, shape: tuple[int, ...], index: Any, values: Array, dtype: str) -> Array:
        compute = _compute_dtype(self._check_dtype(dtype))
        out = self.full(tuple(shape), 0.0, compute)
        positions = _flat_positions(tuple(shape), self._host_index(index))
        v = self._operand(values, compute)
        if self.shape(v) != positions.shape:
            v = self.broadcast_to(v, positions.shape)
        self._launch(
            compute, "scatter_add", positions.size, v, self.device.upload(positions), out, positions.size
        )
        return out if dtype == compute else self.astype(out, dtype)

    # -- fused ops ---------------------------------------------------------------------------------
    @_cuda_errors
    def log_softmax(self, x: Array, axis: int) -> Array:
        shape = self.shape(x)
        if not shape:  # a 0-d array is one row of one element
            return self.reshape(self.log_softmax(self.reshape(x, (1,)), 0), ())
        axis = _normalize_axis(axis, len(shape))
        last = len(shape) - 1
        order = [d for d in range(len(shape)) if d != axis] + [axis]  # the softmax axis last
        xc = self._operand(x, _compute_dtype(self.dtype(x)))
        rows_first = xc if axis == last else self.transpose(xc, order)
        out = self.device.empty(self.shape(rows_first), self.dtype(xc))
        n = shape[axis]
        rows = out.size // n if n else 0
        self._launch_rows(self.dtype(xc), "log_softmax_rows", rows, rows_first, out, rows, n)
        return out if axis == last else self.transpose(out, list(np.argsort(order)))

    # -- in place ----------------------------------------------------------------------------------
    @_cuda_errors
    def iadd(self, x: Array, y: Array | float, alpha: float = 1.0) -> None:
        if _is_number(y):
            self._binary_into("add", x, alpha * y)
        else:
            self._binary_into("add", x, y if alpha == 1.0 else self.binary("mul", y, alpha))

    @_cuda_errors
    def imul(self, x: Array, y: Array | float) -> None:
        self._binary_into("mul", x, y)

    @_cuda_errors
    def assign(self, x: Array, y: Array | float) -> None:
        dtype, shape = self.dtype(x), self.shape(x)
        if dtype not in FLOATS:
            self.device.copy(x, self.broadcast_to(self._operand(y, dtype), shape))
        elif _is_number(y):
            self._launch(dtype, "fill", x.size, x, x.size, float(y))
        else:
            self._check_broadcast_into(shape, y)
            code = kernel_source.UNARY_CODES["copy"]
            self._elementwise(
                dtype, "unary_op", x, [self._broadcast_input(self._operand(y, dtype), shape)], code
            )

    def _binary_into(self, op: str, x: Array, y: Array | float) -> None:
        """``x = x (op) y`` in place (``y`` broadcast to ``x``'s shape)."""
        dtype, shape = self.dtype(x), self.shape(x)
        self._check_broadcast_into(shape, y)
        if dtype not in FLOATS:
            self.device.copy(x, self.astype(self.binary(op, x, y), dtype))
            return
        inputs = [(x, _contiguous_strides(shape)), self._broadcast_input(self._operand(y, dtype), shape)]
        self._elementwise(dtype, "binary_op", x, inputs, kernel_source.BINARY_CODES[op])

    def _check_broadcast_into(self, shape: Shape, y: Any) -> None:
        """NumPy's error unless ``y`` broadcasts to exactly ``shape`` (the in-place ops' rule)."""
        if np.broadcast_shapes(shape, self._shape_of(y)) != shape:
            raise ValueError(
                f"non-broadcastable output operand with shape {shape} doesn't match the broadcast shape "
                f"{np.broadcast_shapes(shape, self._shape_of(y))}"
            )
