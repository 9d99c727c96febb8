"""``Variable``: what a ``Value`` and a ``Tensor`` share — their autograd state and methods.

The two engines differ only in what ``data`` holds (a float, or an array) and
how results are wrapped and rounded; everything autograd does with them lives
here: ``requires_grad``, ``is_leaf``, ``grad_fn``, ``grad``, ``backward``,
``retain_grad``, ``register_hook``, version counters and in-place ops.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

from . import grad_mode
from .node import AccumulateGrad, VersionCounter, _HookHandle, _RetainGrad, accumulate_into, gradient_edge

LEAF_IN_PLACE = (
    "a leaf Variable that requires grad is being used in an in-place operation.\n"
    "What to do: wrap the update in `with mg.no_grad():` (as optimizers do), or use an out-of-place op."
)


class Variable:
    """Base class of ``Value`` and ``Tensor``.  An engine's subclass provides what the core needs of it
    (below): ``_wrap``, ``_promote``, ``_seed``, ``_as_grad``, the data-level in-place update
    ``_assign``, and where its gradients need it, ``_round_gradient`` and ``_add_gradients``."""

    __slots__ = (
        "data", "_grad", "grad_fn", "_requires_grad", "label", "dtype",
        "_accumulator", "_version_counter", "__weakref__",
    )

    data: Any
    grad_fn: Any
    dtype: str
    label: str | None
    _grad: Any
    _requires_grad: bool
    _accumulator: AccumulateGrad | None
    _version_counter: VersionCounter | None

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
    def retains_grad(self) -> bool:
        """True after ``retain_grad()`` on a non-leaf."""
        node = self.grad_fn
        return node is not None and any(isinstance(h, _RetainGrad) for h in node._hooks or ())

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

    # -- autograd ---------------------------------------------------------------------------------
    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Compute the gradient of this Variable with respect to the graph's leaves.

        Seeds ``gradient`` (1.0 by default), walks the graph once in reverse
        topological order, and accumulates into ``.grad`` of every leaf that
        requires grad.  Saved values are freed afterwards unless ``retain_graph``.
        With ``inputs`` (a Variable or a sequence of them), only their ``.grad``
        is accumulated, leaves or not, as PyTorch's ``backward(inputs=…)``.
        """
        from .engine import run_backward  # the walk, imported when first needed

        seed = self._seed(gradient)
        if inputs is None:
            run_backward((self,), (seed,), retain_graph, create_graph)
            return
        inputs = (inputs,) if isinstance(inputs, Variable) else tuple(inputs)
        if not inputs:
            raise RuntimeError(
                "'inputs' argument to backward() cannot be empty.\n"
                "What to do: pass the Values whose .grad you want, or leave inputs out for every leaf."
            )
        for x in inputs:  # a non-leaf input keeps .grad from now on, as in PyTorch
            x.retain_grad()
        grads = run_backward((self,), (seed,), retain_graph, create_graph, inputs, allow_unused=True)
        for x, g in zip(inputs, grads or ()):
            if g is not None and x.grad_fn is None:  # (a non-leaf's retain_grad hook has written it)
                accumulate_into(x, g, x._accumulator)

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
            self.grad_fn.register_hook(_RetainGrad(self))

    def register_hook(self, hook: Callable[[Any], Any]) -> _HookHandle:
        """Run ``hook(grad)`` when this Variable's gradient is computed; a non-None result replaces it."""
        if not self._requires_grad:
            raise RuntimeError(
                "cannot register a hook on a tensor that doesn't require gradient\n"
                "What to do: set requires_grad=True on the leaf first."
            )
        node = gradient_edge(self)
        if self.grad_fn is not None and node._hooks:  # keep retain_grad last, as PyTorch does
            hooks = node._hooks
            retain = [h for h in hooks if isinstance(h, _RetainGrad)]
            handle = node.register_hook(hook)
            for h in retain:
                hooks.remove(h)
                hooks.append(h)
            return handle
        return node.register_hook(hook)

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

    def _rebase(self, node: Any) -> None:
        """Self's history becomes ``node`` (after an in-place op).  ``retain_grad()`` moves along, so
        ``.grad`` is the gradient of the newest value, as in PyTorch; other hooks stay on the old node
        (they see the gradient of the value before the op)."""
        old = self.grad_fn
        self.grad_fn = node
        self._requires_grad = True
        for hook in (old._hooks or ()) if old is not None else ():
            if isinstance(hook, _RetainGrad) and hook.ref() is self:
                old._hooks.remove(hook)  # type: ignore[union-attr]
                node.register_hook(hook)
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
