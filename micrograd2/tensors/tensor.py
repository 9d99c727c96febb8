"""``Tensor``: an array that remembers how it was computed (the vectorized engine).

A ``Tensor`` is a ``Variable`` (``micrograd2/autograd``), exactly like ``Value``:
the same ``grad_fn`` nodes, backward walk, grad mode, hooks, version counters
and tracer events.  Only the data differs — a backend array (NumPy on
``"cpu"``, pycuda on ``"cuda"``) instead of a float — and the spelling, which is
PyTorch's: ``x @ w``, ``x.sum(dim=1)``, ``x.max(dim)``, ``x[0, 1:3]``…

``.data`` is the backend array itself (``.numpy()`` gives a host array); ``.grad``
is a Tensor.  dtypes: ``float32`` (the default), ``float64``, ``float16`` and
``bfloat16`` (stored in float32 arrays whose values are rounded to bfloat16),
plus ``int64``/``bool`` for indices and masks (they never require grad).
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Iterator, Sequence

from .. import dtypes
from ..autograd import Variable, engine, grad_mode
from ..autograd.node import VersionCounter
from ..backends import array_types, check_device, get_backend
from . import ops, views

FLOATS = dtypes.DTYPES  # float64, float32, float16, bfloat16
INTEGERS = ("int64", "bool")
_INT_ALIASES = {"int64": "int64", "long": "int64", "bool": "bool"}
_array_types = array_types()


def check_tensor_dtype(dtype: Any) -> str:
    """The canonical name of a Tensor dtype: the four floats (and their aliases), ``int64``/``long``, ``bool``.

    Also accepts NumPy dtypes and ``torch.float32``-like objects.
    """
    name = dtype if isinstance(dtype, str) else str(dtype).removeprefix("torch.")
    if name in _INT_ALIASES:
        return _INT_ALIASES[name]
    if not isinstance(dtype, str) and hasattr(dtype, "__name__") or hasattr(dtype, "char"):
        name = str(getattr(dtype, "name", None) or getattr(dtype, "__name__", name))  # numpy.float32 / dtype
        if name in _INT_ALIASES:
            return _INT_ALIASES[name]
    try:
        return dtypes.check_dtype(name)
    except (ValueError, TypeError):
        raise (ValueError if isinstance(dtype, str) else TypeError)(
            f"unknown dtype {dtype!r}; expected one of 'float32', 'float64', 'float16', 'bfloat16', "
            "'int64', 'bool'\nWhat to do: pass one of these names, e.g. dtype='float64'."
        ) from None


def _backend(device: Any) -> Any:
    """The backend of ``device``, with what the engine needs for its array type registered: how to round
    a gradient, and how to keep a sum of two gradients an array (NumPy adds 0-d arrays up to a scalar)."""
    be = get_backend(device)
    array_type = next(t for t, b in _array_types.items() if b is be)
    if array_type not in engine.gradient_rounders:
        engine.gradient_rounders[array_type] = _round_gradient
        engine.gradient_types[array_type] = lambda total: be.from_host(total, be.dtype(total))
    return be


def _round_gradient(g: Any, dtype: str) -> Any:
    """A gradient array rounded to ``dtype`` (the autograd engine calls this for non-float64 nodes)."""
    be = _array_types[type(g)]
    if dtype == "bfloat16" or be.dtype(g) != dtype:
        return be.astype(g, dtype)
    return g


def _storage(dtype: str) -> str:
    return "float32" if dtype == "bfloat16" else dtype


class Tensor(Variable):
    """An n-dimensional array with autograd: ``Tensor(data, requires_grad=False, dtype="float32", device="cpu")``.

    Usually made with :func:`tensor`.  See the module docstring.
    """

    __slots__ = ("_backend", "_base", "_view_steps", "_views")  # the last three: see tensors/views.py
    __array_ufunc__ = None  # NumPy defers to our reflected operators: ``array + tensor`` is a Tensor

    _backend: Any
    _base: Any
    _view_steps: Any
    _views: Any

    def __init__(self, data: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu",
                 label: str | None = None) -> None:
        dtype = check_tensor_dtype(dtype)
        be = _backend(device)
        if isinstance(data, Variable):
            data = data._backend.to_host(data.data) if isinstance(data, Tensor) else data.data
        try:
            array = be.from_host(_host_data(data), dtype)
        except (TypeError, ValueError) as error:
            raise TypeError(
                f"tensor(data) needs numbers, nested sequences of numbers or an array, got "
                f"{type(data).__name__}: {error}\nWhat to do: pass e.g. [[1.0, 2.0], [3.0, 4.0]]."
            ) from None
        self.data = array
        self._backend = be
        self._grad = None
        self.grad_fn = None
        self._requires_grad = False
        self.label = label
        self.dtype = dtype
        self._accumulator = None
        self._version_counter = None
        self._base = self._view_steps = self._views = None
        if requires_grad:
            self.requires_grad = True

    # -- what the autograd core asks of an engine ---------------------------------------------
    @classmethod
    def _wrap(cls, data: Any, dtype: Any, grad_fn: Any) -> Tensor:
        be = _array_types.get(type(data))
        if be is None:  # a Python number (GradScaler's factor) or a NumPy scalar
            be = _backend("cpu")
            data = be.from_host(data, _storage(dtype or "float32"))
        if dtype is None:
            dtype = be.dtype(data)
        elif dtype == "bfloat16" or be.dtype(data) != dtype:
            data = be.astype(data, dtype)
        t = object.__new__(cls)
        t.data = data
        t._backend = be
        t._grad = None
        t.grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t.label = None
        t.dtype = dtype
        t._accumulator = None
        t._version_counter = None
        t._base = t._view_steps = t._views = None
        return t

    @staticmethod
    def _promote(a: str, b: str) -> str:
        """PyTorch's promotion: floats by width; an integer or bool operand does not widen a float."""
        if a in INTEGERS or b in INTEGERS:
            if a in FLOATS:
                return a
            if b in FLOATS:
                return b
            return "int64" if "int64" in (a, b) else "bool"
        return dtypes.promote(a, b)

    def _seed(self, gradient: Any) -> Any:
        be = self._backend
        if gradient is None:
            if self.numel() != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs\n"
                    f"What to do: this Tensor has shape {self.shape}; reduce it first (y.sum().backward()) "
                    "or pass a gradient of its shape: y.backward(gradient=mg.tensor(...))."
                )
            return be.full(self.shape, 1.0, _storage(self.dtype))
        if not isinstance(gradient, Tensor):
            if isinstance(gradient, (str, bytes, Variable)) or gradient is None:
                raise TypeError(f"backward(gradient=...) needs a Tensor, got {type(gradient).__name__}")
            gradient = Tensor(gradient, dtype=self.dtype, device=self.device)
        if gradient.shape != self.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {list(gradient.shape)} and output[0] has a "
                f"shape of {list(self.shape)}.\n"
                "What to do: pass backward(gradient=...) a Tensor of the output's own shape."
            )
        if gradient.device != self.device:
            raise RuntimeError(
                f"invalid gradient at index 0 - expected device {self.device} but got {gradient.device}\n"
                f"What to do: move the gradient with .to({self.device!r})."
            )
        if gradient.requires_grad:
            return gradient
        g = gradient.data
        return g if gradient.dtype == self.dtype else be.astype(g, self.dtype)

    def _as_grad(self, grad: Any) -> Any:
        """``.grad``'s first value: a Tensor holding a fresh copy (so no two ``.grad`` share memory)."""
        if isinstance(grad, Variable):
            return grad
        be = _array_types[type(grad)]
        return Tensor._wrap(be.astype(grad, self.dtype), self.dtype, None)

    def _assign(self, data: Any) -> None:
        be = self._backend
        target = be.shape(self.data)
        source = be.shape(data) if type(data) in _array_types else ()
        if _broadcast_shape(target, source) != target:
            raise RuntimeError(
                f"output with shape {list(target)} doesn't match the broadcast shape "
                f"{list(_broadcast_shape(target, source) or source)}\n"
                "What to do: an in-place op keeps the Tensor's shape; use the out-of-place op (y = x + z)."
            )
        be.assign(self.data, data)

    def _snapshot(self) -> Variable:
        """The Tensor before an in-place op, with its own copy of the data (the op may save it)."""
        twin = self._wrap(self._backend.astype(self.data, _storage(self.dtype)), self.dtype, self.grad_fn)
        twin._requires_grad = self._requires_grad
        twin._accumulator = self._accumulator
        return twin

    def detach(self) -> Tensor:
        """A new leaf with ``requires_grad=False`` that shares this Tensor's array and version counter."""
        if self._version_counter is None:
            self._version_counter = VersionCounter()
        out = Tensor._wrap(self.data, self.dtype, None)
        out._version_counter = self._version_counter
        out.label = self.label
        return out

    def register_hook(self, hook: Any) -> Any:
        """Run ``hook(grad)`` — ``grad`` a Tensor, as in PyTorch — when this Tensor's gradient is
        computed; a Tensor it returns replaces the gradient.  Returns a handle with ``.remove()``."""
        return super().register_hook(_TensorHook(hook, self.dtype))

    def detach_(self) -> Tensor:
        """Make this Tensor a leaf outside the graph, in place."""
        self.grad_fn = None
        self._requires_grad = False
        return self

    # -- reading ----------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The size along each axis (a tuple, as ``torch.Size``)."""
        return self._backend.shape(self.data)  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def dim(self) -> int:
        return len(self.shape)

    def size(self, dim: int | None = None) -> Any:
        """The shape, or its length along ``dim``."""
        return self.shape if dim is None else self.shape[dim]

    def numel(self) -> int:
        """The number of elements."""
        return math.prod(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    @property
    def device(self) -> str:
        """``"cpu"`` or ``"cuda"``."""
        return self._backend.name  # type: ignore[no-any-return]

    @property
    def is_cuda(self) -> bool:
        return self.device == "cuda"

    def numpy(self) -> Any:
        """The data as a NumPy array (the same memory on ``"cpu"``; bfloat16 comes as float32)."""
        if self._requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.\n"
                "What to do: call .detach().numpy() (the array does not follow the graph)."
            )
        return self._backend.to_host(self.data)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        host = self.numpy()
        return host if dtype is None else host.astype(dtype)

    def item(self) -> Any:
        """The one number of a one-element Tensor, as a Python float (int for int64, bool for bool)."""
        n = self.numel()
        if n != 1:
            raise RuntimeError(
                f"a Tensor with {n} elements cannot be converted to Scalar\n"
                "What to do: reduce it first (.sum(), .mean()) or index one element (t[0, 1].item())."
            )
        value = self._backend.to_host(self.data).reshape(()).item()
        return value

    def tolist(self) -> Any:
        """The data as (nested) Python lists."""
        return self._backend.to_host(self.data).tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype not in INTEGERS:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous\n"
                "What to do: use (t == u).all() or .any() to get one truth value."
            )
        return bool(self.item())

    def __iter__(self) -> Iterator[Tensor]:
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        import numpy as np

        host = self._backend.to_host(self.data)
        body = np.array2string(host, separator=", ", precision=4, prefix="tensor(", threshold=200)
        parts = [body]
        if self.device != "cpu":
            parts.append(f"device='{self.device}'")
        if self.dtype not in ("float32", "int64", "bool"):
            parts.append(f"dtype={self.dtype}")
        if self.grad_fn is not None:
            parts.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._requires_grad:
            parts.append("requires_grad=True")
        return f"tensor({', '.join(parts)})"

    def __format__(self, spec: str) -> str:
        return format(self.item(), spec) if spec else repr(self)

    # -- arithmetic -------------------------------------------------------------------------------
    def _operand(self, other: Any) -> Any:
        """``other`` as an op input: a Tensor, a number, or ``NotImplemented``."""
        if isinstance(other, Tensor):
            if other._backend is not self._backend:
                return _cross_device(self, other)
            return other
        if isinstance(other, numbers.Real):
            return float(other) if self.dtype in FLOATS or not isinstance(other, numbers.Integral) else int(other)
        if type(other) in _array_types:  # a raw backend array: a constant
            return other
        if isinstance(other, (list, tuple)):
            return Tensor(other, dtype=self.dtype if self.dtype in FLOATS else "float32", device=self.device)
        return NotImplemented

    def _float_for(self, other: Any) -> Tensor:
        """Self, as float32 when an integer Tensor meets a float (PyTorch's int-to-float promotion)."""
        if self.dtype in INTEGERS and (isinstance(other, float) or getattr(other, "dtype", None) in FLOATS):
            return self.to("float32")
        return self

    def __add__(self, other: Any) -> Any:
        if type(other) is Tensor and other._backend is self._backend and self.dtype in FLOATS:  # the common case
            return ops.Add._apply2(self, other)
        other = self._operand(other)
        return NotImplemented if other is NotImplemented else ops.Add.apply(self._float_for(other), other)

    def __radd__(self, other: Any) -> Any:
        other = self._operand(other)
        return NotImplemented if other is NotImplemented else ops.Add.apply(other, self._float_for(other))

    def __sub__(self, other: Any) -> Any:
        if type(other) is Tensor and other._backend is self._backend and self.dtype in FLOATS:
            return ops.Sub._apply2(self, other)
        other = self._operand(other)
        return NotImplemented if other is NotImplemented else ops.Sub.apply(self._float_for(other), other)

    def __rsub__(self, other: Any) -> Any:
        other = self._operand(other)
        if other is NotImplemented:
            return NotImplemented
        if isinstance(other, Tensor) or type(other) in _array_types:
            return ops.Sub.apply(other, self)
        return ops.Rsub.apply(self._float_for(other), c=other)

    def __mul__(self, other: Any) -> Any:
        if type(other) is Tensor and other._backend is self._backend and self.dtype in FLOATS:
            return ops.Mul._apply2(self, other)
        other = self._operand(other)
        return NotImplemented if other is NotImplemented else ops.Mul.apply(self._float_for(other), other)

    def __rmul__(self, other: Any) -> Any:
        other = self._operand(other)
        return NotImplemented if other is NotImplemented else ops.Mul.apply(other, self._float_for(other))

    def __truediv__(self, other: Any) -> Any:
        other = self._operand(other)
        return NotImplemented if other is NotImplemented else ops.Div.apply(self._as_float(), other)

    def __rtruediv__(self, other: Any) -> Any:
        other = self._operand(other)
        return NotImplemented if other is NotImplemented else ops.Div.apply(other, self._as_float())

    def __pow__(self, other: Any) -> Any:
        if isinstance(other, Tensor):
            return ops.PowTensor.apply(self._as_float(), self._operand(other))
        other = self._operand(other)
        if other is NotImplemented:
            return NotImplemented
        if type(other) in _array_types:
            return ops.PowTensor.apply(self._as_float(), other)
        return ops.Pow.apply(self._float_for(other), exponent=other)

    def __rpow__(self, other: Any) -> Any:
        other = self._operand(other)
        if other is NotImplemented:
            return NotImplemented
        if isinstance(other, Tensor) or type(other) in _array_types:
            return ops.PowTensor.apply(other, self._as_float())
        return ops.RPow.apply(self._as_float(), base=float(other))

    def __neg__(self) -> Tensor:
        return ops.Neg._apply1(self)  # type: ignore[no-any-return]

    def __pos__(self) -> Tensor:
        return self

    def __matmul__(self, other: Any) -> Any:
        if not isinstance(other, Tensor):
            other = self._operand(other)
            if other is NotImplemented or not isinstance(other, Tensor):
                other = Tensor(other, dtype=self.dtype, device=self.device) if other is not NotImplemented else other
            if other is NotImplemented:
                return NotImplemented
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        other = self._operand(other)
        if other is NotImplemented:
            return NotImplemented
        if not isinstance(other, Tensor):
            other = Tensor(other, dtype=self.dtype, device=self.device)
        return matmul(other, self)

    def _as_float(self) -> Tensor:
        return self.to("float32") if self.dtype in INTEGERS else self

    # comparisons: elementwise, bool Tensors, no graph (as PyTorch); hash stays identity
    def _compare(self, op: str, other: Any, swap: bool = False) -> Tensor:
        """``self (op) other`` elementwise (``op``: ``gt``, ``eq``, ``ne``, ``ge``); ``swap`` flips the sides."""
        o = self._operand(other)
        if o is NotImplemented:
            return NotImplemented  # type: ignore[return-value]
        od = o.data if isinstance(o, Tensor) else o
        a, b = (od, self.data) if swap else (self.data, od)
        be = self._backend
        if op == "ne":
            out = be.binary("eq", be.binary("eq", a, b), False)
        elif op == "ge":  # a > b or a == b (so that NaN compares False, as IEEE says)
            out = be.binary("maximum", be.binary("gt", a, b), be.binary("eq", a, b))
        else:
            out = be.binary(op, a, b)
        return Tensor._wrap(out, "bool", None)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return self._compare("eq", other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return self._compare("ne", other)

    def __gt__(self, other: Any) -> Tensor:
        return self._compare("gt", other)

    def __lt__(self, other: Any) -> Tensor:
        return self._compare("gt", other, swap=True)

    def __ge__(self, other: Any) -> Tensor:
        return self._compare("ge", other)

    def __le__(self, other: Any) -> Tensor:
        return self._compare("ge", other, swap=True)

    def any(self) -> Tensor:
        """Is any element non-zero?  A bool Tensor (no graph)."""
        be = self._backend
        nonzero = be.binary("eq", be.binary("eq", self.data, 0), False)
        return Tensor._wrap(be.binary("gt", be.sum(be.astype(nonzero, "int64")), 0), "bool", None)

    def all(self) -> Tensor:
        """Is every element non-zero?  A bool Tensor (no graph)."""
        be = self._backend
        zeros = be.sum(be.astype(be.binary("eq", self.data, 0), "int64"))
        return Tensor._wrap(be.binary("eq", zeros, 0), "bool", None)

    __hash__ = Variable.__hash__

    # -- functions --------------------------------------------------------------------------------
    def exp(self) -> Tensor:
        return ops.Exp._apply1(self._as_float())  # type: ignore[no-any-return]

    def log(self) -> Tensor:
        return ops.Log._apply1(self._as_float())  # type: ignore[no-any-return]

    def tanh(self) -> Tensor:
        return ops.Tanh._apply1(self._as_float())  # type: ignore[no-any-return]

    def relu(self) -> Tensor:
        return ops.Relu._apply1(self)  # type: ignore[no-any-return]

    def sigmoid(self) -> Tensor:
        return ops.Sigmoid._apply1(self._as_float())  # type: ignore[no-any-return]

    def sqrt(self) -> Tensor:
        return ops.Sqrt._apply1(self._as_float())  # type: ignore[no-any-return]

    def abs(self) -> Tensor:
        return ops.Abs._apply1(self)  # type: ignore[no-any-return]

    __abs__ = abs

    def softmax(self, dim: int) -> Tensor:
        """exp(log_softmax(x)) along ``dim``."""
        return self.log_softmax(dim).exp()

    def log_softmax(self, dim: int) -> Tensor:
        """zᵢ − log Σⱼ exp zⱼ along ``dim``, computed stably (one ``LogSoftmaxBackward0`` node)."""
        (d,) = ops.normalize_dims(dim, self.ndim)
        return ops.LogSoftmax.apply(self._as_float(), dim=d)  # type: ignore[no-any-return]

    # -- reductions -------------------------------------------------------------------------------
    def sum(self, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
        """Σ over all elements (``SumBackward0``) or over ``dim`` (``SumBackward1``); ``axis``/``keepdims``
        are accepted as aliases."""
        dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
        x = self.to("int64") if self.dtype == "bool" else self
        if dim is None:
            return ops.Sum.apply(x)  # type: ignore[no-any-return]
        return ops.SumDim.apply(x, dim=ops.normalize_dims(dim, self.ndim), keepdim=keepdim)  # type: ignore

    def mean(self, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
        """The mean of all elements (``MeanBackward0``) or over ``dim`` (``MeanBackward1``)."""
        dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
        x = self._as_float()
        if dim is None:
            return ops.Mean.apply(x)  # type: ignore[no-any-return]
        return ops.MeanDim.apply(x, dim=ops.normalize_dims(dim, self.ndim), keepdim=keepdim)  # type: ignore

    def max(self, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Any:
        """``max()``: the largest element (a Tensor, ``MaxBackward1``); ``max(dim)``: a ``(values, indices)``
        pair along ``dim`` (``MaxBackward0``; indices an int64 Tensor), as PyTorch."""
        dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
        self._check_not_empty("max")
        if dim is None:
            return ops.MaxAll.apply(self)
        if not isinstance(dim, int):
            raise TypeError("max(dim) takes one dim (an int)\nWhat to do: use amax(dims) for several dims.")
        (d,) = ops.normalize_dims(dim, self.ndim)
        return MaxResult(*ops.MaxDim.apply(self, dim=d, keepdim=keepdim))

    def amax(self, dim: Any = (), keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
        """The largest element over ``dim`` (all dims by default); ties share the gradient."""
        dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
        self._check_not_empty("amax")
        dims = ops.normalize_dims(None if dim in ((), None) else dim, self.ndim)
        return ops.Amax.apply(self, dim=dims, keepdim=keepdim)  # type: ignore[no-any-return]

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """The index of the largest element (over the flattened Tensor, or along ``dim``): int64, no graph."""
        be = self._backend
        if dim is None:
            out = be.argmax(be.reshape(self.data, (-1,)), axis=0)
        else:
            (d,) = ops.normalize_dims(dim, self.ndim)
            out = be.argmax(self.data, axis=d, keepdims=keepdim)
        return Tensor._wrap(out, "int64", None)

    def _check_not_empty(self, name: str) -> None:
        if self.numel() == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0.\n"
                "What to do: reduce a non-empty Tensor."
            )

    # -- shape ------------------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> Tensor:
        """The same elements in a new shape (one ``-1`` is inferred): ``ViewBackward0``."""
        new = _shape_arg(shape)
        return self._view(ops.View, shape=_infer_shape(new, self.numel()))

    view = reshape

    def flatten(self) -> Tensor:
        return self.reshape(-1)

    def unsqueeze(self, dim: int) -> Tensor:
        d = dim % (self.ndim + 1) if -(self.ndim + 1) <= dim <= self.ndim else None
        if d is None:
            ops.normalize_dims(dim, self.ndim + 1)  # raises PyTorch's IndexError
        s = self.shape
        return self._view(ops.Unsqueeze, shape=s[:d] + (1,) + s[d:])

    def squeeze(self, dim: Any = None) -> Tensor:
        s = self.shape
        if dim is None:
            return self._view(ops.SqueezeAll, shape=tuple(n for n in s if n != 1))
        dims = ops.normalize_dims(dim, self.ndim)
        fn = ops.Squeeze if isinstance(dim, int) else ops.SqueezeDims
        return self._view(fn, shape=tuple(n for i, n in enumerate(s) if not (i in dims and n == 1)))

    def expand(self, *shape: Any) -> Tensor:
        """Broadcast to a bigger shape (``-1`` keeps a size): ``ExpandBackward0``."""
        new = _shape_arg(shape)
        lead = len(new) - self.ndim
        full = tuple(self.shape[i - lead] if n == -1 else n for i, n in enumerate(new))
        return self._view(ops.Expand, shape=full)

    def sum_to_size(self, *size: Any) -> Tensor:
        """Sum down to ``size`` (the reverse of broadcasting, as PyTorch's ``sum_to_size``)."""
        target = tuple(_shape_arg(size))
        if self.shape == target:
            return self
        lead = self.ndim - len(target)
        dims = tuple(range(lead)) + tuple(
            i + lead for i, n in enumerate(target) if n == 1 and self.shape[i + lead] != 1
        )
        out = self.sum(dims, keepdim=True) if dims else self
        return out.reshape(target) if out.shape != target else out

    def permute(self, *axes: Any) -> Tensor:
        order = tuple(_shape_arg(axes))
        if sorted(a % max(self.ndim, 1) for a in order) != list(range(self.ndim)):
            raise RuntimeError(
                f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                f"the desired ordering of dimensions i.e. input.dim() = {self.ndim} is not equal to "
                f"len(dims) = {len(order)}\nWhat to do: name every axis once."
            )
        return self._view(ops.Permute, axes=tuple(a % self.ndim for a in order))

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """The axes reversed (``PermuteBackward0``, as PyTorch's ``.T``)."""
        return self._view(ops.Permute, axes=tuple(reversed(range(self.ndim))))

    @property
    def mT(self) -> Tensor:  # noqa: N802
        return self.transpose(-2, -1)

    def t(self) -> Tensor:
        """The transpose of a matrix (``TBackward0``); a 0-d or 1-D Tensor is returned as it is."""
        if self.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D\n"
                "What to do: use transpose(d0, d1) or permute(...)."
            )
        return self._view(ops.T)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two axes (``TransposeBackward0``)."""
        (a,), (b,) = ops.normalize_dims(dim0, self.ndim), ops.normalize_dims(dim1, self.ndim)
        order = list(range(self.ndim))
        order[a], order[b] = order[b], order[a]
        return self._view(ops.Transpose, axes=tuple(order))

    def contiguous(self) -> Tensor:
        return self

    def clone(self) -> Tensor:
        """A copy with its own memory, in the graph (``CloneBackward0``)."""
        return ops.Clone.apply(self)  # type: ignore[no-any-return]

    def _view(self, fn: Any, **attributes: Any) -> Tensor:
        """Apply a view op: the result shares self's memory, so it shares its version counter too."""
        out: Tensor = fn.apply(self, **attributes)
        views.record(out, self, fn, attributes)
        return out

    # -- indexing ---------------------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Tensor:
        """``x[i]`` (``SelectBackward0``), ``x[a:b]`` (``SliceBackward0``), ``x[None]``
        (``UnsqueezeBackward0``), index arrays or masks (``IndexBackward0``)."""
        index = self._index(index)
        fn = _index_function(index)
        out: Tensor = fn.apply(self, index=index)
        if fn is not ops.Index:  # basic indexing: a view of self
            views.record(out, self, fn, {"index": index})
        return out

    def __setitem__(self, index: Any, value: Any) -> None:
        """``x[index] = value`` in place (``CopySlices``), as PyTorch."""
        index = self._index(index)
        if isinstance(value, Tensor):
            if value._backend is not self._backend:
                value = _cross_device(self, value)
        elif type(value) not in _array_types:
            value = Tensor(value, dtype=_storage(self.dtype) if self.dtype in FLOATS else self.dtype,
                           device=self.device).data
        self._check_view_in_place()
        self._in_place(ops.SetItem, value, index)

    def _index(self, index: Any) -> Any:
        """``index`` with Tensors and lists turned into backend arrays."""
        parts = index if isinstance(index, tuple) else (index,)
        out = []
        for p in parts:
            if isinstance(p, Tensor):
                if p.dtype not in INTEGERS:
                    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
                p = p.data
            elif isinstance(p, list):
                kind = "bool" if p and all(isinstance(v, bool) for v in p) else "int64"
                p = self._backend.from_host(p, kind)
            out.append(p)
        return tuple(out) if isinstance(index, tuple) else out[0]

    # -- dtypes and devices -------------------------------------------------------------------------
    def to(self, *args: Any, dtype: Any = None, device: Any = None) -> Tensor:
        """``to(dtype)``, ``to(device)``, or both: a differentiable copy (``ToCopyBackward0``);
        self when nothing changes, as PyTorch."""
        for a in args:
            if isinstance(a, Tensor):
                dtype, device = dtype or a.dtype, device or a.device
            elif _is_device(a):
                device = a
            else:
                dtype = a
        out = self
        if dtype is not None:
            dtype = check_tensor_dtype(dtype)
            if dtype != self.dtype:
                out = ops.ToCopy.apply(out, dtype=dtype)
        if device is not None:
            name = check_device(device)
            if name != out.device:
                _backend(name)
                out = ops.ToDevice.apply(out, device=name, dtype=out.dtype)
        return out

    # -- in place -----------------------------------------------------------------------------------
    def _in_place(self, fn: Any, *others: Any) -> Variable:
        """The core's in-place machinery; for a view or a base of views, ``views.in_place`` (both
        histories change)."""
        if not views.aliased(self):
            return super()._in_place(fn, *others)
        return views.in_place(self, fn, others)  # type: ignore[no-any-return]

    def _check_view_in_place(self) -> None:
        base = self._base
        if base is not None and grad_mode.is_grad_enabled() and base._requires_grad and base.grad_fn is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation.\n"
                "What to do: wrap the update in `with mg.no_grad():`, or use an out-of-place op."
            )

    def _in_place_op(self, fn: Any, other: Any, fast: str | None, alpha: float = 1.0) -> Tensor:
        """``self (op)= alpha · other``: under ``no_grad`` straight into the array by the backend, with
        no temporary Tensor (how optimizers update), otherwise through the core's in-place machinery
        (history rebased, version bumped)."""
        o = self._operand(other)
        if o is NotImplemented:
            raise TypeError(f"unsupported operand type for an in-place op: {type(other).__name__}")
        if fast is not None and not grad_mode.is_grad_enabled() and self.dtype in ("float32", "float64"):
            od = o.data if isinstance(o, Tensor) else o
            be = self._backend
            target = be.shape(self.data)
            if _broadcast_shape(target, be.shape(od) if type(od) in _array_types else ()) == target:
                if fast == "add":
                    be.iadd(self.data, od, alpha)
                elif fast == "sub":
                    be.iadd(self.data, od, -alpha)
                else:
                    be.imul(self.data, od)
                self._bump_version()
                return self
        self._check_view_in_place()
        return self._in_place(fn, o if alpha == 1.0 else o * alpha)  # type: ignore[return-value]

    def add_(self, other: Any, alpha: float = 1.0) -> Tensor:
        """``self += alpha · other`` in place (PyTorch's ``add_(other, alpha=…)``)."""
        return self._in_place_op(ops.Add, other, "add", alpha)

    def sub_(self, other: Any, alpha: float = 1.0) -> Tensor:
        """``self −= alpha · other`` in place."""
        return self._in_place_op(ops.Sub, other, "sub", alpha)

    def mul_(self, other: Any) -> Tensor:
        return self._in_place_op(ops.Mul, other, "mul")

    def div_(self, other: Any) -> Tensor:
        return self._in_place_op(ops.Div, other, None)

    def zero_(self) -> Tensor:
        self._check_view_in_place()
        return self._in_place(ops.Zero)  # type: ignore[return-value]

    def fill_(self, value: float) -> Tensor:
        """Every element set to ``value``, in place (under no_grad, or on a Tensor outside the graph)."""
        self._check_view_in_place()
        self.zero_()
        return self.add_(value) if value else self

    def copy_(self, src: Any) -> Tensor:
        """Copy ``src``'s values in (broadcast to self's shape), in place: ``self[...] = src``, so the
        gradient flows to ``src`` as through PyTorch's ``copy_``."""
        self[...] = src
        return self

    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    # -- dtype and device shortcuts (last: ``float`` etc. would shadow the builtins in annotations) ----
    def cpu(self) -> Tensor:
        return self.to("cpu")

    def cuda(self) -> Tensor:
        return self.to("cuda")

    def half(self) -> Tensor:
        return self.to(dtypes.FLOAT16)

    def bfloat16(self) -> Tensor:
        return self.to(dtypes.BFLOAT16)

    def float(self) -> Tensor:
        return self.to(dtypes.FLOAT32)

    def double(self) -> Tensor:
        return self.to(dtypes.FLOAT64)

    def long(self) -> Tensor:
        return self.to("int64")

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)


class _TensorHook:
    """A user's hook, called with the gradient as a Tensor (the engine passes arrays along)."""

    __slots__ = ("hook", "dtype")

    def __init__(self, hook: Any, dtype: str) -> None:
        self.hook, self.dtype = hook, dtype

    def __call__(self, grad: Any) -> Any:
        if isinstance(grad, Variable):  # create_graph: already a Tensor
            return self.hook(grad)
        out = self.hook(Tensor._wrap(grad, self.dtype, None))
        return out.data if isinstance(out, Tensor) else out


class MaxResult(tuple):  # type: ignore[type-arg]
    """What ``max(dim)`` returns: a ``(values, indices)`` pair with named fields, as PyTorch's."""

    def __new__(cls, values: Tensor, indices: Tensor) -> MaxResult:
        return super().__new__(cls, (values, indices))

    @property
    def values(self) -> Tensor:
        return self[0]  # type: ignore[no-any-return]

    @property
    def indices(self) -> Tensor:
        return self[1]  # type: ignore[no-any-return]


# -- helpers ----------------------------------------------------------------------------------------
def _host_data(data: Any) -> Any:
    """Nested sequences may hold one-element Tensors or Values: take their numbers."""
    if isinstance(data, (list, tuple)) and data and any(isinstance(v, (Variable, list, tuple)) for v in data):
        return [_host_data(v) for v in data]
    if isinstance(data, Variable):
        return data.item()  # type: ignore[attr-defined]
    return data


def _is_device(x: Any) -> bool:
    name = str(x)
    return name in ("cpu", "cuda") or name.startswith("cuda:")


def _dim_alias(dim: Any, keepdim: bool, axis: Any, keepdims: Any) -> tuple[Any, bool]:
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return dim, bool(keepdim)


def _shape_arg(shape: tuple[Any, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(int(n) for n in shape[0])
    return tuple(int(n) for n in shape)


def _infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    known = math.prod(n for n in shape if n != -1)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred\nWhat to do: use -1 at most once.")
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}\n"
                               "What to do: the sizes must multiply to the number of elements.")
        shape = tuple(numel // known if n == -1 else n for n in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}\n"
                           "What to do: the sizes must multiply to the number of elements.")
    return shape


def _broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """NumPy's broadcast of two shapes, or ``None`` when they don't broadcast."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(x if y == 1 else y)
    return tuple(reversed(out))


def _index_function(index: Any) -> Any:
    """PyTorch's node for ``x[index]``: the last basic step (select, slice, new axis) names it;
    any index array makes it an ``IndexBackward0``."""
    parts = index if isinstance(index, tuple) else (index,)
    if any(type(p) in _array_types or isinstance(p, (list, tuple)) for p in parts):
        return ops.Index
    steps = [p for p in parts if p is not Ellipsis and not (isinstance(p, slice) and p == slice(None))]
    if not steps:
        return ops.Slice
    last = steps[-1]
    if last is None:
        return ops.UnsqueezeIndex
    if isinstance(last, slice):
        return ops.Slice
    return ops.Select


def _cross_device(a: Tensor, b: Tensor) -> Any:
    """``b`` usable with ``a`` although on another device: only a 0-d CPU Tensor is (as its number)."""
    if b.device == "cpu" and b.ndim == 0:
        return float(b.item()) if b.dtype in FLOATS else int(b.item())
    raise RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, {a.device} and "
        f"{b.device}!\nWhat to do: move one with .to({a.device!r})."
    )


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` with PyTorch's nodes: ``MmBackward0`` (2-D @ 2-D), ``MvBackward0`` (2-D @ 1-D),
    ``DotBackward0`` (1-D @ 1-D), and 1-D @ 2-D as unsqueeze → mm → squeeze."""
    if a._backend is not b._backend:
        _cross_device(a, b) if b.ndim else _cross_device(b, a)
    na, nb = a.ndim, b.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D\n"
            "What to do: use * to multiply by a scalar."
        )
    if na > 2 or nb > 2:
        raise RuntimeError(
            f"matmul here takes 1-D and 2-D operands, got {na}D and {nb}D\n"
            "What to do: reshape to 2-D (x.reshape(-1, x.shape[-1])) and back."
        )
    inner_a, inner_b = a.shape[-1], b.shape[0]
    if inner_a != inner_b:
        what = "size mismatch" if na == nb == 1 else "mat1 and mat2 shapes cannot be multiplied"
        raise RuntimeError(
            f"{what} ({'x'.join(map(str, a.shape))} and {'x'.join(map(str, b.shape))})\n"
            "What to do: the last size of the left operand must equal the first size of the right one."
        )
    if na == 2 and nb == 2:
        return ops.Mm.apply(a, b)  # type: ignore[no-any-return]
    if na == 2:
        return ops.Mv.apply(a, b)  # type: ignore[no-any-return]
    if nb == 1:
        return ops.Dot.apply(a, b)  # type: ignore[no-any-return]
    row = a._view(ops.Unsqueeze, shape=(1, inner_a))
    product: Tensor = ops.Mm.apply(row, b)
    return product._view(ops.SqueezeDims, shape=(b.shape[1],))


def tensor(data: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu") -> Tensor:
    """A new leaf Tensor holding a copy of ``data`` (numbers, nested sequences, a NumPy array, a Tensor).

    ``dtype`` is ``"float32"`` unless asked otherwise (``"float64"``, ``"float16"``, ``"bfloat16"``,
    ``"int64"`` for class indices, ``"bool"``); ``device`` is ``"cpu"`` or ``"cuda"``.
    """
    return Tensor(data, requires_grad=requires_grad, dtype=dtype, device=device)


def zeros(*shape: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu") -> Tensor:
    """A Tensor of zeros."""
    return full(_shape_arg(shape), 0.0, requires_grad=requires_grad, dtype=dtype, device=device)


def ones(*shape: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu") -> Tensor:
    """A Tensor of ones."""
    return full(_shape_arg(shape), 1.0, requires_grad=requires_grad, dtype=dtype, device=device)


def full(shape: Sequence[int], value: float, requires_grad: bool = False, dtype: Any = "float32",
         device: Any = "cpu") -> Tensor:
    """A Tensor of ``shape`` filled with ``value``."""
    dtype = check_tensor_dtype(dtype)
    be = _backend(device)
    t = Tensor._wrap(be.full(tuple(shape), value, _storage(dtype)), dtype, None)
    if requires_grad:
        t.requires_grad = True
    return t


def _requires_grad_setter(self: Tensor, flag: bool) -> None:
    if flag and self.dtype in INTEGERS:
        raise RuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients\n"
            "What to do: make it a float Tensor first (.float())."
        )
    Variable.requires_grad.fset(self, flag)  # type: ignore[attr-defined]


_flag = Variable.__dict__["requires_grad"]
Tensor.requires_grad = property(_flag.fget, _requires_grad_setter, doc=_flag.__doc__)  # type: ignore[assignment]
