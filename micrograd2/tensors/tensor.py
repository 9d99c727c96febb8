"""``Tensor``: an array that remembers how it was computed (the vectorized engine).

A ``Tensor`` is a ``Variable`` (``micrograd2/autograd``), exactly like ``Value``:
the same ``grad_fn`` nodes, backward walk, grad mode, hooks, version counters
and tracer events.  Only the data differs — a backend array (NumPy on
``"cpu"``, pycuda on ``"cuda"``) instead of a float — and the spelling, which is
PyTorch's: ``x @ w``, ``x.sum(dim=1)``, ``x.max(dim)``, ``x[0, 1:3]``…

This file holds what a Tensor *is* (its array, dtype, device, and what the core
asks of it); its ops live in one module per theme (``arithmetic``, ``unary``,
``reductions``, ``shapes``, ``indexing``, ``linalg``, ``casts``), and the class
lists them, as ``Value`` lists its ops.  ``.data`` is the backend array itself
(``.numpy()`` gives a host array); ``.grad`` is a Tensor.  dtypes and devices:
see ``storage.py``.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, ClassVar, Iterator

from ..autograd import Variable, custom, grad_mode
from ..backends import array_types, get_backend
from ..backends.base import ArrayBackend
from . import (
    arithmetic,
    casts,
    clamping,
    indexing,
    linalg,
    nested,
    pieces,
    printing,
    reductions,
    selection,
    shapes,
    strides,
    unary,
    views,
)
from .arithmetic import Add, Div, Mul, Neg, Sub
from .compute import broadcast_shape, method, normalize_dims
from .losses import LogSoftmax
from .pieces import TensorPieces
from .storage import (
    FLOATS,
    INTEGERS,
    check_tensor_dtype,
    cross_device,
    promote,
    storage_dtype,
)
from .tensor_hooks import TensorHook

_array_types = array_types()


class Tensor(Variable):
    """An n-dimensional array with autograd: ``Tensor(data, requires_grad=False, dtype="float32", device="cpu")``.

    Usually made with :func:`tensor`.  See the module docstring.
    """

    __slots__ = ("_backend", "_base", "_view_steps", "_views")  # the last three: see tensors/views.py
    __array_ufunc__ = None  # NumPy defers to our reflected operators: ``array + tensor`` is a Tensor

    _backend: ArrayBackend
    _base: Any
    _view_steps: Any
    _views: Any
    pieces: ClassVar[TensorPieces] = pieces.REFERENCE  # what the core and the ops call (pieces.py)
    @staticmethod
    def _stack(rows: list[Tensor], dim: int) -> Tensor:
        """Rows of one shape and dtype stacked along a new axis ``dim`` (``StackBackward0``): how
        the core's ``jacobian`` puts a Tensor output's rows together."""
        return indexing.Stack.apply(*rows, dim=dim)  # type: ignore[no-any-return]


    def __init__(self, data: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu",
                 label: str | None = None) -> None:
        dtype = check_tensor_dtype(dtype)
        be = get_backend(device)
        if isinstance(data, Variable):
            data = data._backend.to_host(data.data) if isinstance(data, Tensor) else data.data
        if isinstance(data, (str, bytes)):  # (NumPy would read "1.0" as a number)
            raise nested.refusal(data)  # type: ignore[misc]
        try:
            array = be.from_host(_host_data(data), dtype)
        except (TypeError, ValueError) as error:
            raise nested.refusal(data) or TypeError(
                f"tensor(data) needs numbers, nested sequences of numbers or an array, got "
                f"{type(data).__name__}: {error}\nWhat to do: pass e.g. [[1.0, 2.0], [3.0, 4.0]]."
            ) from None
        if nested.none_read_as_nan(data, dtype, lambda: be.to_host(array)):
            raise nested.none_refused()
        self._fill(array, be, dtype, None)
        self.label = label
        if requires_grad:
            self.requires_grad = True

    def _fill(self, data: Any, be: Any, dtype: str, grad_fn: Any) -> None:
        """Every slot set: a fresh Tensor holding ``data`` (a new leaf when ``grad_fn`` is None)."""
        self._set_slots(data, dtype, grad_fn)
        self._backend = be
        self._base = self._view_steps = self._views = None

    def _set_requires_grad(self, flag: bool) -> None:
        """Variable's setter, after refusing integer and bool Tensors (only floats have gradients)."""
        if flag and self.dtype in INTEGERS:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients\n"
                "What to do: make it a float Tensor first (.float())."
            )
        Variable.requires_grad.fset(self, flag)  # type: ignore[attr-defined]

    requires_grad = property(Variable.requires_grad.fget, _set_requires_grad,  # type: ignore[attr-defined]
                             doc=Variable.requires_grad.__doc__)

    # -- what the autograd core asks of an engine ---------------------------------------------
    @classmethod
    def _wrap(cls, data: Any, dtype: Any, grad_fn: Any) -> Tensor:
        be = _array_types.get(type(data))
        if be is None:  # a Python number (GradScaler's factor) or a NumPy scalar
            be = get_backend("cpu")
            data = be.from_host(data, storage_dtype(dtype or "float32"))
        if dtype is None:
            dtype = be.dtype(data)
        elif dtype == "bfloat16" or be.dtype(data) != dtype:
            data = be.astype(data, dtype)
        t = object.__new__(cls)
        t._fill(data, be, dtype, grad_fn)
        return t

    _promote = staticmethod(promote)

    # NOTE [What backward receives] (autograd/function.py): a Tensor's backward receives Tensors, and
    # the gradients the walk carries for a Tensor graph are Tensors (NOTE [Backward on Tensors]).
    backward_receives_variables = True

    # (``type: ignore[override]`` here and below: a Tensor graph's gradients are Tensors, a
    # narrower type than the core's ``Gradient``, which a Value's floats share.)
    @classmethod
    def _round_gradient(cls, grad: Tensor, dtype: str) -> Tensor:  # type: ignore[override]
        """The gradient in ``dtype`` (itself when it is already), as PyTorch's engine casts one to
        its input's dtype."""
        return grad if grad.dtype == dtype else grad.to(dtype)

    @classmethod
    def _add_gradients(cls, a: Tensor, b: Tensor) -> Tensor:  # type: ignore[override]
        return a + b

    @classmethod
    def _zeros_like(cls, data: Any, dtype: str) -> Tensor:
        be = _array_types[type(data)]
        return cls._wrap(be.full(be.shape(data), 0.0, be.dtype(data)), dtype, None)

    def _seed(self, gradient: Any) -> Tensor:
        """The gradient a backward from this Tensor starts with: ones for a one-element Tensor,
        else ``gradient`` (a Tensor of its shape, or what ``tensor()`` takes), in its dtype."""
        if gradient is None:
            if self.numel() != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs\n"
                    f"What to do: this Tensor has shape {self.shape}; reduce it first (y.sum().backward()) "
                    "or pass a gradient of its shape: y.backward(gradient=mg.tensor(...))."
                )
            return self._wrap(self._backend.full(self.shape, 1.0, storage_dtype(self.dtype)), self.dtype, None)
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
        if gradient.requires_grad or gradient.dtype == self.dtype:
            return gradient
        return self._wrap(self._backend.astype(gradient.data, self.dtype), self.dtype, None)

    def _as_grad(self, grad: Tensor) -> Tensor:  # type: ignore[override]
        """``.grad``'s first value: a fresh copy of the gradient (so no two ``.grad`` share memory); of a
        recorded gradient (create_graph), a copy in the graph, as PyTorch's ``CopyBackwards``."""
        if grad.requires_grad:
            return shapes.Copy.apply(None, grad)
        return Tensor._wrap(grad._backend.astype(grad.data, self.dtype), self.dtype, None)

    def _assign(self, data: Any) -> None:
        be = self._backend
        target = be.shape(self.data)
        source = be.shape(data) if type(data) in _array_types else ()
        if broadcast_shape(target, source) != target:
            raise RuntimeError(
                f"output with shape {list(target)} doesn't match the broadcast shape "
                f"{list(broadcast_shape(target, source) or source)}\n"
                "What to do: an in-place op keeps the Tensor's shape; use the out-of-place op (y = x + z)."
            )
        be.assign(self.data, data)

    def _snapshot(self) -> Variable:
        """The Tensor before an in-place op, with its own copy of the data (the op may save it)."""
        twin = super()._snapshot()
        twin.data = self._backend.astype(self.data, storage_dtype(self.dtype))
        return twin

    def detach(self) -> Tensor:
        """A new leaf with ``requires_grad=False`` that shares this Tensor's array and version counter."""
        out = Tensor._wrap(self.data, self.dtype, None)
        out._share_version_counter(self)
        out.label = f"{self.label}.detach()" if self.label else self.label  # a trace must not call it x
        return out

    def register_hook(self, hook: Any) -> Any:
        """Run ``hook(grad)`` — ``grad`` a Tensor, as in PyTorch — when this Tensor's gradient is
        computed; a Tensor it returns replaces the gradient (tensor_hooks.py).  Returns a handle with ``.remove()``."""
        return super().register_hook(TensorHook(hook, Tensor))

    def detach_(self) -> Tensor:
        """Make this Tensor a leaf outside the graph, in place (refused on a view, as PyTorch)."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead.\n"
                "What to do: y = t.detach() gives a leaf outside the graph (sharing t's memory)."
            )
        return super().detach_()

    # -- reading ----------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The size along each axis (a tuple, as ``torch.Size``)."""
        return self._backend.shape(self.data)

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
            raise TypeError("len() of a 0-d tensor\nWhat to do: a 0-d Tensor holds one number: use t.item().")
        return self.shape[0]

    @property
    def device(self) -> str:
        """``"cpu"`` or ``"cuda"``."""
        return self._backend.name

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
        return self._backend.to_host(self.data).reshape(()).item()

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
        return iter(indexing.unbind(self, 0, views.record, iterating=True))  # one UnbindBackward0, as PyTorch

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """The slices along ``dim``, each a view of self: one ``UnbindBackward0`` node (indexing.py)."""
        return indexing.unbind(self, dim, views.record)

    def __repr__(self) -> str:
        """As PyTorch prints it (``printing.py``): ``tensor([0.1000, 2.5000], requires_grad=True)``."""
        values = self._backend.to_host(self.data).tolist()
        return printing.tensor_repr(values, self.shape, self.dtype, self.device, self.grad_fn, self._requires_grad)

    def __format__(self, spec: str) -> str:
        return format(self.item(), spec) if spec else repr(self)

    # -- operands: what the other side of an op may be ---------------------------------------------
    def _operand(self, other: Any) -> Any:
        """``other`` as an op input: a Tensor, a number, a backend array, or ``NotImplemented``."""
        if isinstance(other, Tensor):
            return cross_device(self, other) if other._backend is not self._backend else other
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

    def _as_float(self) -> Tensor:
        """Self, as float32 if it is an integer Tensor (for ops whose result is a float)."""
        return self.to("float32") if self.dtype in INTEGERS else self

    # -- arithmetic (arithmetic.py) and matrix products (linalg.py) --------------------------------
    __add__ = __radd__ = arithmetic.operator(Add)  # 2 + x is x.add(2), as PyTorch records it
    __sub__, __rsub__ = arithmetic.operator(Sub), arithmetic.rsub_operator
    __mul__ = __rmul__ = arithmetic.operator(Mul)
    __truediv__ = arithmetic.operator(Div, arithmetic.to_float)
    __rtruediv__ = arithmetic.rdiv_operator
    __pow__, __rpow__ = arithmetic.pow_operator, arithmetic.rpow_operator
    __neg__ = method(Neg)
    __matmul__, __rmatmul__ = linalg.matmul_operator, linalg.rmatmul_operator

    def __pos__(self) -> Tensor:
        return self

    # the same ops by name (``x.mul(2)`` is ``x * 2``: one node), as PyTorch's methods
    add, sub = arithmetic.add, arithmetic.sub
    mul, div = arithmetic.named(__mul__, "mul"), arithmetic.named(__truediv__, "div")
    pow = arithmetic.named(__pow__, "pow")
    neg = __neg__
    matmul, mm = arithmetic.named(__matmul__, "matmul"), linalg.mm
    square, reciprocal = arithmetic.square, arithmetic.reciprocal

    # comparisons: elementwise, bool Tensors, no graph (as PyTorch); the hash stays identity
    __eq__ = arithmetic.comparison("eq")
    __ne__ = arithmetic.comparison("ne")
    __gt__, __lt__ = arithmetic.comparison("gt"), arithmetic.comparison("gt", swap=True)
    __ge__, __le__ = arithmetic.comparison("ge"), arithmetic.comparison("ge", swap=True)
    __hash__ = Variable.__hash__
    eq, ne = arithmetic.named(__eq__, "eq"), arithmetic.named(__ne__, "ne")
    lt, gt = arithmetic.named(__lt__, "lt"), arithmetic.named(__gt__, "gt")
    le, ge = arithmetic.named(__le__, "le"), arithmetic.named(__ge__, "ge")

    # -- functions of one variable (unary.py) ------------------------------------------------------
    exp = unary.on_floats(unary.Exp)
    log = unary.on_floats(unary.Log)
    tanh = unary.on_floats(unary.Tanh)
    sigmoid = unary.on_floats(unary.Sigmoid)
    sqrt = unary.on_floats(unary.Sqrt)
    rsqrt = unary.on_floats(unary.Rsqrt)
    sin = unary.on_floats(unary.Sin)
    cos = unary.on_floats(unary.Cos)
    relu = method(unary.Relu)
    abs = __abs__ = method(unary.Abs)
    sign, floor, ceil, round = unary.sign, unary.floor, unary.ceil, unary.round_of

    softmax = reductions.softmax_of
    clamp = clip = clamping.clamp
    clamp_min, clamp_max = clamping.clamp_min, clamping.clamp_max
    maximum, minimum = selection.maximum, selection.minimum
    masked_fill, masked_fill_ = selection.masked_fill, selection.masked_fill_

    def where(self, condition: Tensor, y: Any) -> Tensor:
        """``self`` where ``condition`` holds, else ``y`` (``WhereBackward0``), as ``mg.where(condition, self, y)``."""
        return selection.where_of(condition, self, y)  # type: ignore[no-any-return]

    def log_softmax(self, dim: int) -> Tensor:
        """zᵢ − log Σⱼ exp zⱼ along ``dim``, computed stably (one ``LogSoftmaxBackward0`` node)."""
        (d,) = normalize_dims(dim, self.ndim)
        return LogSoftmax.apply(self._as_float(), dim=d)

    # -- reductions (reductions.py) ----------------------------------------------------------------
    sum = reductions.sum_of
    mean = reductions.mean_of
    max = reductions.max_of
    amax = reductions.amax_of
    argmax = reductions.argmax_of
    min, amin, argmin = reductions.min_of, reductions.amin_of, reductions.argmin_of
    any = reductions.any_of
    all = reductions.all_of
    std, var = reductions.std_of, reductions.var_of
    norm = reductions.norm_of
    prod, cumsum, logsumexp = reductions.prod_of, reductions.cumsum_of, reductions.logsumexp_of

    # -- shapes (shapes.py) and indexing (indexing.py) --------------------------------------------
    reshape = shapes.reshape
    view = shapes.view
    flatten = shapes.flatten
    unsqueeze = shapes.unsqueeze
    squeeze = shapes.squeeze
    expand, expand_as = shapes.expand, shapes.expand_as
    repeat, flip = shapes.repeat, shapes.flip
    sum_to_size = shapes.sum_to_size
    permute = shapes.permute
    t = shapes.t
    transpose = shapes.transpose
    T = property(shapes.reversed_axes)

    @property
    def mT(self) -> Tensor:  # noqa: N802 - PyTorch's name
        return self.transpose(-2, -1)

    contiguous, is_contiguous = shapes.contiguous, strides.is_contiguous

    def clone(self) -> Tensor:
        """A copy with its own memory, in the graph (``CloneBackward0``)."""
        return shapes.Clone.apply(self)

    def _view(self, fn: Any, **attributes: Any) -> Tensor:
        """Apply a view op: the result shares self's memory, so it shares its version counter too."""
        out: Tensor = fn.apply(self, **attributes)
        views.record(out, self, fn, attributes)
        return out

    __getitem__ = indexing.getitem
    gather = indexing.gather
    __setitem__ = indexing.setitem

    # -- in place (arithmetic.py; copy_: shapes.py; views.py when memory is shared) -------------------
    add_ = arithmetic.add_
    sub_ = arithmetic.sub_
    mul_ = arithmetic.mul_
    div_ = arithmetic.div_
    zero_ = arithmetic.zero_
    fill_ = arithmetic.fill_
    exp_ = unary.exp_
    copy_ = shapes.copy_  # one CopyBackwards node, as PyTorch
    __iadd__, __isub__ = arithmetic.add_, arithmetic.sub_
    __imul__, __itruediv__ = arithmetic.mul_, arithmetic.div_

    def _in_place(self, fn: Any, *others: Any) -> Tensor:
        """The core's in-place machinery; for a view or a base of views, ``views.in_place`` (both
        histories change).  An input that shares only some of self's memory is refused, as in PyTorch."""
        strides.refuse_partial_overlap(self, others)
        if not views.aliased(self):
            return super()._in_place(fn, *others)
        return views.in_place(self, fn, others)

    def _check_view_in_place(self) -> None:
        if custom.VIEWS:  # an input a custom Function returned as is (custom.py)
            custom.refuse_in_place(self)
        base = self._base
        if base is not None and grad_mode.is_grad_enabled():  # an output of unbind: refused (PyTorch's error)
            indexing.refuse_several_views_in_place(self)
        if base is not None and grad_mode.is_grad_enabled() and base._requires_grad and base.grad_fn is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation.\n"
                "What to do: wrap the update in `with mg.no_grad():`, or use an out-of-place op."
            )

    # -- dtypes and devices (casts.py; half, float… are Variable's: ``self.to(dtype)``) --------------
    to, type_as = casts.to, casts.type_as

    def cpu(self) -> Tensor:
        """``self.to("cpu")``."""
        return self.to("cpu")

    def cuda(self) -> Tensor:
        """``self.to("cuda")``."""
        return self.to("cuda")

    def long(self) -> Tensor:
        """``self.to("int64")``: not differentiable (an integer Tensor)."""
        return self.to("int64")

    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
        """A Tensor of zeros of ``size``, with this Tensor's dtype and device unless told otherwise."""
        return self._new_full(shapes.shape_arg(size), 0.0, dtype, device, requires_grad)

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
        """A Tensor of ones of ``size``, with this Tensor's dtype and device unless told otherwise."""
        return self._new_full(shapes.shape_arg(size), 1.0, dtype, device, requires_grad)

    def _new_full(self, shape: tuple[int, ...], value: float, dtype: Any, device: Any,
                  requires_grad: bool) -> Tensor:
        dtype = self.dtype if dtype is None else check_tensor_dtype(dtype)
        be = self._backend if device is None else get_backend(device)
        t = Tensor._wrap(be.full(shape, value, storage_dtype(dtype)), dtype, None)
        if requires_grad:
            t.requires_grad = True
        return t


def _host_data(data: Any) -> Any:
    """Nested sequences may hold one-element Tensors or Values: take their numbers."""
    if isinstance(data, (list, tuple)) and data and any(isinstance(v, (Variable, list, tuple)) for v in data):
        return [_host_data(v) for v in data]
    if isinstance(data, Variable):
        return data.item()  # type: ignore[attr-defined]
    return data
