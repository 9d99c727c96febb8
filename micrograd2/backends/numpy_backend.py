"""The ``"cpu"`` backend: :class:`~micrograd2.backends.base.ArrayBackend` over NumPy arrays.

Every method returns an ``numpy.ndarray`` (never a NumPy scalar: a reduction to
one number is a 0-d array), so the Tensor layer always holds arrays.  Results
are computed by NumPy's own kernels (BLAS for ``matmul``); IEEE specials
(``1/0 = inf``, ``log(-1) = nan``) come out silently, as in PyTorch: the ops
that make them (``div``, ``pow``, ``log``, ``sqrt``, ``exp``) run under
``numpy.errstate(all="ignore")``; the cheap ones (``add``, ``mul``…) skip that
cost and rely on a warnings filter for this module.

float16 has no BLAS: its matrix products and sums are computed in float32 and rounded
once to float16 (the API's arithmetic model: accumulate exactly, round the result once).

``bfloat16`` has no NumPy type: a bfloat16 array is stored as ``float32`` whose
values are rounded to bfloat16 (8 significant bits, round to nearest even) by
``astype(x, "bfloat16")`` / ``from_host(data, "bfloat16")``.
"""
from __future__ import annotations

import math
import threading
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from .base import Array, ArrayBackend, is_basic_index

# NumPy warns on 1/0, log(0), overflow…; PyTorch computes IEEE results silently, and so do we.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=__name__)

#: storage dtype of each dtype name (bfloat16 lives in float32 storage)
STORAGE: dict[str, Any] = {
    "float64": np.dtype(np.float64), "float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(np.float32), "int64": np.dtype(np.int64), "bool": np.dtype(np.bool_),
}
_NAMES = {np.dtype(np.float64): "float64", np.dtype(np.float32): "float32", np.dtype(np.float16): "float16",
          np.dtype(np.int64): "int64", np.dtype(np.bool_): "bool", np.dtype(np.int32): "int32"}
_ndarray = np.ndarray
_F16 = np.dtype(np.float16)
_F64 = np.dtype(np.float64)
# NOTE [float16's scalar loop]
# PyTorch's CPU kernel adds ``x + alpha·y`` in float16 two ways: blocks of vector lanes in one
# fused rounding (``scaled_sum``), and, for a Tensor of fewer elements than a block (32 on
# AVX2/AVX512), its scalar loop: alpha rounded to float16, then alpha·y, then the sum, each
# rounded (a 0-d SGD step included).
_VECTOR_BLOCK = 32
_BLOCK_BYTES = 1 << 18  # x += alpha·y goes block by block: 256 KiB of x, y and the product stay in L2
_add: Any = np.add  # (typed loosely: NumPy's stubs want literal keepdims)
_maximum: Any = np.maximum


def _arr(x: Any) -> Array:
    """``x`` as an ndarray (NumPy turns 0-d results into scalars; we keep arrays)."""
    return x if type(x) is _ndarray else np.asarray(x)


def _relu(x: Array) -> Array:
    """max(0, x) with −0.0 and nan passing through, as PyTorch's relu (NumPy keeps the second operand
    on a tie)."""
    return np.maximum(0.0, x)


def _sigmoid(x: Array) -> Array:
    """σ(x) = 1/(1 + e⁻ˣ), PyTorch's formula: e⁻ˣ overflowing to inf gives 0 (no cancellation:
    ½(1 + tanh(x/2)) would round σ(−20) to 0 in float32)."""
    with np.errstate(over="ignore"):
        out = _arr(np.exp(-x))  # (a 0-d result is a NumPy scalar, which ``out=`` refuses)
    out += 1
    return np.reciprocal(out, out=out)


def scaled_sum(x: Array, y: Array | float, alpha: float) -> Array:
    """``x + alpha·y`` as PyTorch's CPU kernel computes it: alpha (and a number ``y``) in x's dtype first,
    then one fused multiply-add, one rounding.  For float32 and float16 the product of two such numbers is
    exact in float64, so the float64 sum, cast once, is that rounding (up to a double rounding: float64,
    then x's dtype, about once in 2**29 elements).  A float64 ``x`` or ``y`` is rounded twice (``alpha·y``,
    then ``+``): NumPy has no fused multiply-add.  The result is float64 for a narrower x: cast it back."""
    if x.dtype == _F64 or getattr(y, "dtype", x.dtype) == _F64:  # (None == float64 in NumPy: not None)
        return np.add(x, np.multiply(y, alpha))
    a = float(x.dtype.type(alpha))
    if type(y) is not _ndarray:  # a number: the product c·alpha of two numbers of x's dtype, exact in float64
        return np.add(x, float(x.dtype.type(y)) * a, dtype=_F64)
    return np.add(np.multiply(y, a, dtype=_F64), x, dtype=_F64)


#: the unsigned integer type of each float width: a float array's bits, viewed as integers
_BITS = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def _kept(g: Array, keep: Array) -> Array:
    """``g`` where the bool array ``keep`` holds, else +0.0: exactly ``np.where(keep, g, 0.0)`` (a dropped
    inf or NaN is dropped), computed as g's bits times 1 or 0 (all bits 0 is +0.0) — a product, ~8x
    faster than NumPy's masked select."""
    return _arr(np.multiply(g.view(_BITS[g.dtype.itemsize]), keep)).view(g.dtype)  # (0-d: still an array)


def _is_plus_zero(x: Any) -> bool:
    """Is ``x`` the number +0 (a Python int or float; not −0.0)?"""
    return type(x) in (int, float) and x == 0 and math.copysign(1.0, x) > 0


def _floats_like(g: Any, mask: Array) -> bool:
    """Is ``g`` a float array of the mask's shape (what :func:`_kept` takes)?"""
    return type(g) is _ndarray and g.dtype.kind == "f" and g.shape == mask.shape


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "pow": np.power,
    "maximum": np.maximum, "gt": np.greater, "eq": np.equal,
}
_QUIET = frozenset(("div", "pow", "log", "sqrt", "exp"))  # the ops whose IEEE specials are everyday
_UNARY: dict[str, Callable[[Any], Any]] = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt, "abs": np.abs,
    "relu": _relu, "sigmoid": _sigmoid, "sign": np.sign,
}


def round_bfloat16(x: Array) -> Array:
    """float32 (or float64) values rounded to bfloat16, round to nearest even, kept as float32.

    The rounding happens on float32's bits (so a float64 input is rounded twice, through float32):
    add 0x7FFF plus the lowest kept bit, then clear the 16 low bits.  NaN stays NaN.
    """
    with np.errstate(all="ignore"):
        f = np.array(x, dtype=np.float32, copy=True, order="C")
    bits = f.view(np.uint32)
    nan = np.isnan(f)
    bits += np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    bits &= np.uint32(0xFFFF0000)
    if nan.any():
        f[nan] = np.nan
    return f


class NumpyBackend(ArrayBackend):
    """Arrays are ``numpy.ndarray``; every op is one NumPy call (views where NumPy gives views)."""

    name = "cpu"

    def __init__(self) -> None:
        self._work = threading.local()  # each thread's scratch array per dtype (see ``_scratch``)

    # -- creation and transfer -------------------------------------------------
    def from_host(self, data: Any, dtype: str) -> Array:
        if dtype == "bfloat16":
            return round_bfloat16(np.asarray(data, dtype=np.float64))
        return np.array(data, dtype=STORAGE[dtype], copy=True, order="C")

    def to_host(self, x: Array) -> Any:
        return x

    def full(self, shape: tuple[int, ...], value: float, dtype: str) -> Array:
        return np.full(shape, value, dtype=STORAGE[dtype])

    # -- metadata ----------------------------------------------------------------
    def shape(self, x: Array) -> tuple[int, ...]:
        return x.shape

    def dtype(self, x: Array) -> str:
        return _NAMES.get(x.dtype) or x.dtype.name

    def astype(self, x: Array, dtype: str) -> Array:
        if dtype == "bfloat16":
            return round_bfloat16(x)
        target = STORAGE[dtype]
        if x.dtype != target and x.dtype.itemsize > target.itemsize:  # a narrowing cast may overflow to inf
            with np.errstate(all="ignore"):
                return np.array(x, dtype=target, copy=True, order="C")
        return np.array(x, dtype=target, copy=True, order="C")

    # -- elementwise -------------------------------------------------------------
    def binary(self, op: str, a: Array | float, b: Array | float) -> Array:
        if op in _QUIET:
            with np.errstate(all="ignore"):
                return _arr(_BINARY[op](a, b))
        out = _BINARY[op](a, b)
        return out if type(out) is _ndarray else np.asarray(out)

    def unary(self, op: str, x: Array) -> Array:
        if op in _QUIET:
            with np.errstate(all="ignore"):
                return _arr(_UNARY[op](x))
        return _arr(_UNARY[op](x))

    def where(self, cond: Array, a: Array | float, b: Array | float) -> Array:
        if type(cond) is _ndarray and cond.dtype == np.bool_:  # a mask: maybe g where it holds, else +0
            if _is_plus_zero(b) and _floats_like(a, cond):
                return _kept(a, cond)
            if _is_plus_zero(a) and _floats_like(b, cond):  # where(out == 0, 0, g): every ReLU backward
                return _kept(b, np.logical_not(cond))
        return _arr(np.where(cond, a, b))

    # -- reductions ----------------------------------------------------------------
    def sum(self, x: Array, axis: Any = None, keepdims: bool = False) -> Array:
        if x.dtype == _F16:  # accumulate in float32, round once (as PyTorch; float16 sums drift)
            return _arr(_add.reduce(x, axis=axis, keepdims=keepdims, dtype=np.float32).astype(_F16))
        return _arr(_add.reduce(x, axis=axis, keepdims=keepdims))

    def max(self, x: Array, axis: Any = None, keepdims: bool = False) -> Array:
        return _arr(_maximum.reduce(x, axis=axis, keepdims=keepdims))

    def argmax(self, x: Array, axis: int, keepdims: bool = False) -> Array:
        return _arr(np.argmax(x, axis=axis, keepdims=keepdims)).astype(np.int64, copy=False)

    def sum_to_shape(self, x: Array, shape: tuple[int, ...]) -> Array:
        if x.shape == shape:
            return x
        return super().sum_to_shape(x, shape)

    # -- linear algebra and shape ------------------------------------------------
    def matmul(self, a: Array, b: Array) -> Array:
        if a.dtype == _F16 or b.dtype == _F16:  # no float16 BLAS: multiply in float32, round once
            with np.errstate(all="ignore"):
                return _arr(np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(_F16))
        return _arr(np.matmul(a, b))

    def shares_memory(self, a: Array, b: Array) -> bool:
        return bool(np.may_share_memory(a, b))  # bounds only: enough to tell a view from a copy

    def reshape(self, x: Array, shape: Sequence[int]) -> Array:
        return x.reshape(shape)

    def transpose(self, x: Array, axes: Sequence[int] | None = None) -> Array:
        return x.transpose(axes)

    def broadcast_to(self, x: Array, shape: tuple[int, ...]) -> Array:
        return np.broadcast_to(x, shape)

    def is_column_major(self, x: Array) -> bool:
        return x.ndim == 2 and x.flags.f_contiguous and not x.flags.c_contiguous

    # -- indexing ------------------------------------------------------------------
    def getitem(self, x: Array, index: Any) -> Array:
        return _arr(x[index])

    def scatter_add(self, shape: tuple[int, ...], index: Any, values: Array, dtype: str) -> Array:
        out = np.zeros(shape, dtype=STORAGE[dtype])
        if is_basic_index(index):
            out[index] += values  # a view: no index repeats
        else:
            np.add.at(out, index, values)
        return out

    # -- fused ops for numerically stable losses ---------------------------------------
    def log_softmax(self, x: Array, axis: int) -> Array:
        """x − max − log Σ exp(x − max): no overflow for large x."""
        with np.errstate(all="ignore"):
            return self._log_softmax(x, axis)

    @staticmethod
    def _log_softmax(x: Array, axis: int) -> Array:
        shifted = x - _maximum.reduce(x, axis=axis, keepdims=True)
        e = np.exp(shifted)
        shifted -= np.log(_add.reduce(e, axis=axis, keepdims=True))
        return shifted

    def take_along_rows(self, x: Array, targets: Array) -> Array:
        return _arr(x[np.arange(x.shape[0]), targets])

    def arange(self, n: int) -> Array:
        return np.arange(n, dtype=np.int64)

    # -- in place (optimizers, ``t += x``) -----------------------------------------------
    def iadd(self, x: Array, y: Array | float, alpha: float = 1.0) -> None:
        if alpha == 1.0:
            np.add(x, y, out=x)
        elif alpha == -1.0:
            np.subtract(x, y, out=x)
        elif x.dtype.kind != "f":  # integers: exact, in x's dtype
            np.add(x, np.multiply(y, alpha, dtype=x.dtype), out=x)
        elif x.dtype == _F16 and x.size < _VECTOR_BLOCK:  # NOTE [float16's scalar loop]
            product = np.multiply(y, _F16.type(alpha), dtype=_F16)
            np.copyto(x, np.add(x, product, dtype=_F64), casting="unsafe")
        elif type(y) is _ndarray and y.shape == x.shape and y.dtype == x.dtype:  # an optimizer's step
            self._add_scaled(x, y, alpha)
        else:
            np.copyto(x, scaled_sum(x, y, alpha), casting="unsafe")

    def _add_scaled(self, x: Array, y: Array, alpha: float) -> None:
        """``x += alpha·y`` for two arrays of one shape and dtype, as :func:`scaled_sum` rounds it, with no
        temporary of x's size: block by block through one float64 scratch array that stays in the cache,
        x and y each read once."""
        wide = x.dtype != _F64  # float32, float16: the sum in float64, rounded once (PyTorch's fused one)
        n = _BLOCK_BYTES // _F64.itemsize
        if x.size > n and x.flags.c_contiguous and y.flags.c_contiguous and (y is x or not np.may_share_memory(x, y)):
            xs, ys, scratch = x.reshape(-1), y.reshape(-1), self._scratch(_F64)  # (views: contiguous)
            a = float(x.dtype.type(alpha))  # alpha in x's dtype, as PyTorch takes it
            for start in range(0, xs.size, n):
                block, s = xs[start:start + n], scratch[: min(n, xs.size - start)]
                if wide:
                    np.multiply(ys[start:start + n], a, out=s, dtype=_F64)  # exact: two numbers of x's dtype
                    np.add(s, block, out=s)
                    np.copyto(block, s, casting="same_kind")  # the one rounding
                else:
                    np.add(block, np.multiply(ys[start:start + n], a, out=s), out=block)
        else:  # small (a temporary costs less than the scratch), strided or overlapping
            np.copyto(x, scaled_sum(x, y, alpha), casting="unsafe")

    def _scratch(self, dtype: Any) -> Array:
        """This thread's work array of ``dtype`` (:data:`_BLOCK_BYTES` long), the same one each time."""
        blocks: dict[Any, Array] | None = getattr(self._work, "blocks", None)
        if blocks is None:
            blocks = self._work.blocks = {}
        buffer = blocks.get(dtype)
        if buffer is None:
            buffer = blocks[dtype] = np.empty(_BLOCK_BYTES // dtype.itemsize, dtype)
        return buffer

    def imul(self, x: Array, y: Array | float) -> None:
        np.multiply(x, y, out=x)

    def assign(self, x: Array, y: Array | float) -> None:
        np.copyto(x, y, casting="unsafe")
