"""The array-backend interface: the few array primitives the Tensor ops need.

A backend is one file implementing :class:`ArrayBackend` over its own array type
(NumPy arrays for ``"cpu"``, pycuda ``GPUArray`` for ``"cuda"``).  Backends know
nothing of autograd: the Tensor ops (``micrograd2/tensors/``) call these
primitives inside their ``Function.forward``/``backward``.

Conventions, shared by every backend:

* ``dtype`` is a string: ``"float32"``, ``"float64"``, ``"float16"``, ``"int64"``, ``"bool"``.
* ``axis`` is ``None`` (all axes), an ``int`` or a tuple of ints, negative allowed.
* Binary elementwise ops broadcast as NumPy does; a Python number may stand for either operand.
* Every method returns a new array of the backend (never a host array) unless it says otherwise.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Sequence

Array = Any
Shape = tuple[int, ...]

BINARY_OPS = ("add", "sub", "mul", "div", "pow", "maximum", "gt", "eq")
UNARY_OPS = ("neg", "exp", "log", "tanh", "sqrt", "abs", "relu", "sigmoid", "sign")


def is_basic_index(index: Any) -> bool:
    """Is ``index`` made only of ints, slices, ``None`` and ``...`` (basic indexing: no position twice)?"""
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or isinstance(p, (int, slice)) or _is_integer(p) for p in parts)


def _is_integer(p: Any) -> bool:
    return getattr(p, "ndim", None) == 0 and getattr(getattr(p, "dtype", None), "kind", None) in ("i", "u")


class ArrayBackend(ABC):
    """What a device must provide.  ``name`` is the device string (``"cpu"``, ``"cuda"``)."""

    name: str = "?"

    # -- creation and transfer -------------------------------------------------
    @abstractmethod
    def from_host(self, data: Any, dtype: str) -> Array:
        """A backend array holding ``numpy.asarray(data, dtype)`` (copied to the device)."""

    @abstractmethod
    def to_host(self, x: Array) -> Any:
        """The array as a ``numpy.ndarray`` on the host (a copy for a device backend)."""

    @abstractmethod
    def full(self, shape: tuple[int, ...], value: float, dtype: str) -> Array:
        """A new array of ``shape`` filled with ``value``."""

    # -- metadata ----------------------------------------------------------------
    @abstractmethod
    def shape(self, x: Array) -> tuple[int, ...]: ...

    @abstractmethod
    def dtype(self, x: Array) -> str: ...

    @abstractmethod
    def astype(self, x: Array, dtype: str) -> Array:
        """A copy converted to ``dtype`` (round to nearest even for floats)."""

    # -- elementwise -------------------------------------------------------------
    @abstractmethod
    def binary(self, op: str, a: Array | float, b: Array | float) -> Array:
        """``op`` in :data:`BINARY_OPS` with NumPy broadcasting; ``gt``/``eq`` give ``"bool"`` arrays."""

    @abstractmethod
    def unary(self, op: str, x: Array) -> Array:
        """``op`` in :data:`UNARY_OPS` (``relu`` is max(x, 0), ``sign`` is -1/0/1)."""

    @abstractmethod
    def where(self, cond: Array, a: Array | float, b: Array | float) -> Array:
        """``a`` where ``cond`` else ``b``, broadcasting."""

    # -- reductions ----------------------------------------------------------------
    @abstractmethod
    def sum(self, x: Array, axis: Any = None, keepdims: bool = False) -> Array: ...

    @abstractmethod
    def max(self, x: Array, axis: Any = None, keepdims: bool = False) -> Array: ...

    @abstractmethod
    def argmax(self, x: Array, axis: int, keepdims: bool = False) -> Array:
        """Indices (``"int64"``) of the first maximum along ``axis``."""

    def sum_to_shape(self, x: Array, shape: tuple[int, ...]) -> Array:
        """Sum ``x`` down to ``shape`` (the reverse of broadcasting: what backward needs)."""
        xs = self.shape(x)
        if xs == tuple(shape):
            return x
        lead = len(xs) - len(shape)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, n in enumerate(shape) if n == 1 and xs[i + lead] != 1
        )
        out = self.sum(x, axis=axes, keepdims=True) if axes else x
        return self.reshape(out, tuple(shape))

    # -- linear algebra and shape ------------------------------------------------
    @abstractmethod
    def shares_memory(self, a: Array, b: Array) -> bool:
        """Do ``a`` and ``b`` overlap in memory (is one a view of the other)?"""

    @abstractmethod
    def matmul(self, a: Array, b: Array) -> Array:
        """``a @ b`` for 1-D and 2-D operands, and for two 3-D stacks of matrices of one batch size
        (PyTorch's ``bmm``), by NumPy's rules."""

    @abstractmethod
    def reshape(self, x: Array, shape: Sequence[int]) -> Array: ...

    @abstractmethod
    def transpose(self, x: Array, axes: Sequence[int] | None = None) -> Array: ...

    @abstractmethod
    def broadcast_to(self, x: Array, shape: tuple[int, ...]) -> Array: ...

    # -- indexing ------------------------------------------------------------------
    @abstractmethod
    def getitem(self, x: Array, index: Any) -> Array:
        """``x[index]`` for ints, slices, ``None``, ``...`` and integer index arrays."""

    @abstractmethod
    def scatter_add(self, shape: tuple[int, ...], index: Any, values: Array, dtype: str) -> Array:
        """Zeros of ``shape`` with ``values`` added at ``index`` (repeated indices add up):
        the backward of :meth:`getitem`."""

    # -- fused ops for numerically stable losses ---------------------------------------
    @abstractmethod
    def log_softmax(self, x: Array, axis: int) -> Array: ...

    def take_along_rows(self, x: Array, targets: Array) -> Array:
        """``x[i, targets[i]]`` for each row ``i`` of a 2-D ``x`` (what cross-entropy picks)."""
        n = self.shape(x)[0]
        return self.getitem(x, (self.arange(n), targets))

    @abstractmethod
    def arange(self, n: int) -> Array:
        """``[0, 1, ..., n-1]`` as ``"int64"``."""

    # -- in place (optimizers, ``t += x``) -----------------------------------------------
    @abstractmethod
    def iadd(self, x: Array, y: Array | float, alpha: float = 1.0) -> None:
        """``x += alpha * y`` in place."""

    @abstractmethod
    def imul(self, x: Array, y: Array | float) -> None:
        """``x *= y`` in place."""

    @abstractmethod
    def assign(self, x: Array, y: Array | float) -> None:
        """``x[...] = y`` in place."""
