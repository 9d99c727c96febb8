"""``Variable``: what a ``Value`` and a ``Tensor`` share — their autograd methods.

The two engines differ only in what ``data`` holds (a float, or an array) and
how results are wrapped and rounded; everything autograd does with them lives
here and in ``engine.VariableBase`` (the state and ``backward()``): ``requires_grad``,
``is_leaf``, ``grad``, ``retain_grad``, hooks, version counters and in-place ops.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

from ..dtypes import BFLOAT16, FLOAT16, FLOAT32, FLOAT64
from . import grad_mode, hooks
from .engine import VariableBase, accumulate_into, gradient_edge

HOOK_NEEDS_GRAD = (
    "cannot register a hook on a tensor that doesn't require gradient\n"
    "What to do: set requires_grad=True on the leaf first."
)
LEAF_IN_PLACE = (
    "a leaf Variable that requires grad is being used in an in-place operation.\n"
    "What to do: wrap the update in `with mg.no_grad():` (as optimizers do), or use an out-of-place op."
)


class VersionCounter:
    """How many in-place ops have changed a Value's data (shared with its ``detach()``es)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class Variable(VariableBase):
    """Base class of ``Value`` and ``Tensor``.  An engine's subclass provides what the core needs of it
    (below): ``_wrap``, ``_promote``, ``_seed``, ``_as_grad``, the data-level in-place update
    ``_assign``, and where its gradients need it, ``_round_gradient``, ``_add_gradients`` and
    ``_zeros_like``."""

    __slots__ = ()  # (VariableBase's, in engine.py)

    # The walk used for this engine's graphs when nothing watches it (no hooks, tracer, anomaly mode or
    # autograd.grad): None for the reference walk; an engine may choose one of the speed layer's at import.
    _unwatched_walk: Any = None

    # -- what an engine provides (Value and Tensor override these) -------------------------------
    @classmethod
    def _wrap(cls, data: Any, dtype: Any, grad_fn: Any) -> Variable:
        """A new result holding ``data`` rounded to ``dtype``, made by ``grad_fn`` (or a leaf)."""
        raise NotImplementedError

    @staticmethod
    def _promote(a: str, b: str) -> str:
        raise NotImplementedError

    @staticmethod
    def _accepts(other: Any) -> bool:
        """Can ``other`` be the second operand of an op on this kind?  (If not, an operator returns
        NotImplemented, so that Python tries ``other``'s own.)"""
        return True

    def _seed(self, gradient: Any) -> Any:
        """The gradient a backward from this Variable starts with."""
        raise NotImplementedError

    def _as_grad(self, grad: Any) -> Any:
        """What ``.grad`` holds for the gradient ``grad`` of the walk (a fresh copy)."""
        raise NotImplementedError

    @classmethod
    def _round_gradient(cls, grad: Any, dtype: str) -> Any:
        """The gradient ``grad`` rounded to ``dtype`` (never called for float64)."""
        return grad

    @classmethod
    def _add_gradients(cls, a: Any, b: Any) -> Any:
        """``a + b`` for two gradients of one Variable, of ``a``'s type."""
        return a + b

    @classmethod
    def _zeros_like(cls, data: Any) -> Any:
        """Zeros of ``data``'s shape and dtype: the gradient a custom Function's backward receives for an
        output that got none (an array here; the scalar engine's is 0.0)."""
        from ..backends import backend_of  # (the array backends: only a Tensor's custom Functions get here)

        be = backend_of(data)
        return be.full(be.shape(data), 0.0, be.dtype(data))

    # -- flags ------------------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Does this Variable take part in gradient computation?"""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self.grad_fn is not None:
            if flag:
                return  # a non-leaf already requires grad: True is a no-op, as in PyTorch
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables.\n"
                "What to do: use y = x.detach() to get a leaf, then set y.requires_grad = True."
            )
        self._requires_grad = bool(flag)

    def requires_grad_(self, flag: bool = True) -> Variable:
        """Set ``requires_grad`` in place and return self (on a non-leaf only ``False`` is refused)."""
        self.requires_grad = flag
        return self

    @property
    def is_leaf(self) -> bool:
        """True unless this Variable was made by a recorded op (then it has a ``grad_fn``)."""
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this Variable is: k for output k of an op with several differentiable
        outputs (``unbind``, a custom Function), else 0 (a leaf too), as PyTorch's ``output_nr``."""
        edge = self._accumulator
        return edge[1] if self.grad_fn is not None and type(edge) is tuple else 0

    @property
    def retains_grad(self) -> bool:
        """True after ``retain_grad()`` on a non-leaf."""
        node = self.grad_fn
        return node is not None and any(getattr(h, "retains_grad", False) and h.ref() is self
                                        for _, h in hooks.tensor_hooks(node))

    @property
    def grad(self) -> Any:
        """The accumulated gradient, or ``None``.  Filled only on leaves that require grad
        (and on non-leaves after ``retain_grad()``)."""
        if self.grad_fn is not None and self._grad is None and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Any) -> None:
        shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
        if shape is not None and hasattr(self, "shape") and tuple(shape) != tuple(self.shape):
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(shape)}' to a tensor of size "
                f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size\n"
                "What to do: assign a gradient of the Tensor's own shape (or None)."
            )
        if isinstance(value, Variable) and dtype != self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{dtype}' to a tensor with dtype '{self.dtype}'. "
                "Please ensure that the gradient and the tensor have the same dtype\n"
                f"What to do: cast it first: g.to({self.dtype!r})."
            )
        self._grad = value

    @property
    def _version(self) -> int:
        """How many in-place ops have changed this data (PyTorch's ``_version``)."""
        counter = self._version_counter
        return counter.value if counter is not None else 0

    # -- autograd (backward() is VariableBase's, in engine.py) ------------------------------------
    def retain_grad(self) -> None:
        """Keep ``.grad`` on this non-leaf after backward (a no-op on leaves)."""
        if self.grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError(
                    "can't retain_grad on Tensor that has requires_grad=False\n"
                    "What to do: only Values in the graph have gradients; set requires_grad=True on a leaf."
                )
            return
        if not self.retains_grad:
            self._add_hook("tensor", hooks.RetainGrad(self, accumulate_into))

    def register_hook(self, hook: Callable[[Any], Any]) -> hooks.RemovableHandle:
        """Run ``hook(grad)`` when this Variable's gradient is computed; a non-None result replaces it."""
        if not self._requires_grad:
            raise RuntimeError(HOOK_NEEDS_GRAD)
        return self._add_hook("tensor", hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Any], Any]) -> hooks.RemovableHandle:
        """Run ``hook(self)`` on a leaf once backward has accumulated into its ``.grad``."""
        if not self._requires_grad:
            raise RuntimeError(HOOK_NEEDS_GRAD)
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors\n"
                "What to do: register it on the leaf (a parameter); on a non-leaf use register_hook."
            )
        return hooks.add(gradient_edge(self), "accumulated", hook)

    def _add_hook(self, kind: str, hook: Any) -> hooks.RemovableHandle:
        edge = gradient_edge(self)
        node, nr = edge if type(edge) is tuple else (edge, 0)
        return hooks.add(node, kind, (nr, hook))

    # -- in place ---------------------------------------------------------------------------------
    def _bump_version(self) -> None:
        counter = self._version_counter
        if counter is None:
            counter = self._version_counter = VersionCounter()
        counter.value += 1

    def _in_place(self, fn: Any, *others: Any) -> Variable:
        """Apply the Function ``fn`` to ``(self, *others)`` and make self hold the result.

        In grad mode the result's history becomes self's (``x.add_(y)`` gets an
        ``AddBackward0``), which is refused on a leaf that requires grad; under
        ``no_grad`` only the data changes (how optimizers update parameters).
        """
        recording = grad_mode.is_grad_enabled()
        if recording and self._requires_grad and self.grad_fn is None:
            raise RuntimeError(LEAF_IN_PLACE)
        old = self._snapshot() if recording else self
        result = fn.apply(old, *others)
        self._assign(result.data)
        if recording and result.grad_fn is not None:
            self._rebase(result.grad_fn)
        self._bump_version()
        return self

    def _rebase(self, node: Any, output_nr: int = 0) -> None:
        """Self's history becomes ``node`` (after an in-place op; ``output_nr``: which of its outputs self is).
        ``retain_grad()`` moves along, so ``.grad`` is the gradient of the newest value, as in PyTorch; other
        hooks stay on the old node (they see the gradient of the value before the op)."""
        old = self.grad_fn
        self.grad_fn = node
        self._requires_grad = True
        self._accumulator = (node, output_nr) if output_nr else None
        for entry in hooks.tensor_hooks(old) if old is not None else ():
            hook = entry[1]
            if getattr(hook, "retains_grad", False) and hook.ref() is self:
                hooks.tensor_hooks(old).remove(entry)
                self._add_hook("tensor", hook)
                break

    def _snapshot(self) -> Variable:
        """A twin holding self's current data and history, so the in-place op saves the old self."""
        twin = self._wrap(self.data, self.dtype, self.grad_fn)
        twin._requires_grad = self._requires_grad
        twin._accumulator = self._accumulator
        return twin

    def _assign(self, data: Any) -> None:
        """Replace the data in place (arrays are written into; a float is replaced)."""
        raise NotImplementedError

    __hash__ = object.__hash__  # identity, as tensors

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a Value or Tensor as the diagram of its graph (``mg.draw``), if Graphviz is there."""
        from ..viz import repr_svg  # diagrams are a layer above: imported only when a notebook asks

        return repr_svg(self)  # type: ignore[no-any-return]

    # -- dtype casts: the short spellings of an engine's ``to`` (last: ``float`` shadows the builtin after it) --
    def half(self) -> Any:
        """``self.to("float16")``."""
        return self.to(FLOAT16)  # type: ignore[attr-defined]

    def bfloat16(self) -> Any:
        """``self.to("bfloat16")``."""
        return self.to(BFLOAT16)  # type: ignore[attr-defined]

    def float(self) -> Any:
        """``self.to("float32")``."""
        return self.to(FLOAT32)  # type: ignore[attr-defined]

    def double(self) -> Any:
        """``self.to("float64")``."""
        return self.to(FLOAT64)  # type: ignore[attr-defined]
