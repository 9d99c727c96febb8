"""``Variable``: what a ``Value`` and a ``Tensor`` share — their state and autograd methods.

The two engines differ only in what ``data`` holds (a float, or an array), and in how results
are wrapped, rounded and added (``node.Engine`` lists what the core asks of them). Everything
autograd does with them lives here: ``requires_grad``, ``is_leaf``, ``grad``, ``backward()``,
``retain_grad``, hooks, version counters and in-place ops.
"""
from __future__ import annotations

import warnings
from typing import Any, ClassVar, Sequence, TypeVar

from ..dtypes import BFLOAT16, FLOAT16, FLOAT32, FLOAT64
from . import capture, engine, grad_mode, hooks, messages
from .engine import accumulate_into
from .node import AccumulateGrad, Node, gradient_node
from .pieces import REFERENCE, Pieces
from .protocol import Data, Gradient, InPlaceOp
from .saved import VersionCounter, version_counter

V = TypeVar("V", bound="Variable")  # the Variable's own class: a Value's in-place op gives a Value

HOOK_NEEDS_GRAD = (
    "cannot register a hook on a tensor that doesn't require gradient\n"
    "What to do: set requires_grad=True on the leaf first."
)
LEAF_IN_PLACE = (
    "a leaf Variable that requires grad is being used in an in-place operation.\n"
    "What to do: wrap the update in `with mg.no_grad():` (as optimizers do), "
    "or use an out-of-place op."
)

__all__ = ["Variable", "VersionCounter", "accumulate_into", "seeds"]


def seeds(roots: Sequence[Variable], grads: Sequence[object], create_graph: bool) -> list[Gradient]:
    """The gradient each root's backward starts with (``_seed``'s).

    Under ``create_graph`` it is made a Variable in the graph: a recorded backward computes on
    Variables from its first gradient."""
    result = []
    for root, gradient in zip(roots, grads):
        seed = root._seed(gradient)
        if create_graph and not isinstance(seed, Variable):
            seed = root._wrap(seed, root.dtype, None)
        result.append(seed)
    return result


class Variable:
    """Base class of ``Value`` and ``Tensor``.

    An engine's subclass provides what the core needs of it (``node.Engine``): ``_wrap``,
    ``_promote``, ``_seed``, ``_as_grad`` and ``_assign`` (the in-place update of the data).
    Where its gradients need it, it also overrides ``_round_gradient``, ``_add_gradients``,
    ``_zeros_like`` and ``_accumulate``."""

    __slots__ = ("data", "_grad", "grad_fn", "_requires_grad", "label", "dtype", "output_nr",
                 "_accumulator", "_version_counter", "__weakref__")
    data: Data  # a float (Value) or an array (Tensor)
    grad_fn: Node | None  # the node that made it, or None for a leaf
    output_nr: int  # which output of grad_fn it is (0 unless the op has several), as PyTorch's
    _accumulator: AccumulateGrad | None  # a leaf's AccumulateGrad, made on first use
    _version_counter: VersionCounter | None  # its in-place changes, made when first needed

    # NOTE [What backward receives] (function.py): the engine's choice.
    backward_receives_variables: ClassVar[bool] = False
    # The pieces the core calls for this engine's graphs (pieces.py): the core's own, unless an
    # entry point chose others (a student's), or the engine took the speed layer's walk.
    pieces: ClassVar[Pieces] = REFERENCE

    def _set_slots(self, data: Data, dtype: str, grad_fn: Node | None, label: str | None = None,
                   version_counter: VersionCounter | None = None) -> None:
        """Every slot of a new Variable, set here and nowhere else."""
        self.data = data
        self._grad: Gradient | None = None
        self.grad_fn = grad_fn
        self._requires_grad = grad_fn is not None
        self.label: str | None = label
        self.dtype = dtype
        self.output_nr = 0
        self._accumulator = None
        self._version_counter = version_counter

    # -- what an engine provides (Value and Tensor override these) ----------------------------
    @classmethod
    def _wrap(cls, data: Data, dtype: str | None, grad_fn: Node | None) -> Variable:
        """A new result holding ``data`` rounded to ``dtype``, made by ``grad_fn`` (or a leaf)."""
        raise NotImplementedError

    @staticmethod
    def _promote(a: str, b: str) -> str:
        raise NotImplementedError

    def _seed(self, gradient: object) -> Gradient:
        """The gradient a backward from this Variable starts with."""
        raise NotImplementedError

    def _as_grad(self, grad: Gradient) -> Gradient:
        """What ``.grad`` holds for the gradient ``grad`` of the walk (a fresh copy)."""
        raise NotImplementedError

    @classmethod
    def _round_gradient(cls, grad: Gradient, dtype: str) -> Gradient:
        """The gradient ``grad`` rounded to ``dtype`` (itself for float64)."""
        return grad

    @classmethod
    def _add_gradients(cls, a: Gradient, b: Gradient) -> Gradient:
        """``a + b`` for two gradients of one Variable, of ``a``'s type."""
        return a + b  # type: ignore[operator]  # (each engine's Variable class defines its +)

    @classmethod
    def _zeros_like(cls, data: Data, dtype: str) -> Gradient:
        """Zeros of ``data``'s shape, in ``dtype``.

        A custom Function's backward receives them for an output that got no gradient."""
        raise NotImplementedError

    # NOTE [A .grad added to in place]
    # Outside ``create_graph``, PyTorch's ``AccumulateGrad`` adds into a Tensor ``.grad`` in
    # place: the ``.grad`` object keeps its identity (and its ``grad_fn``, if ``create_graph``
    # made it), and its version goes up. While recording, the sum is a new Variable in the graph.
    # A Value's ``.grad`` is a float, with no identity to keep.
    def _accumulate(self, grad: Gradient) -> Gradient:
        """``.grad`` after adding ``grad`` into it.

        The first time it is a fresh copy, then the sum rounded to this Variable's dtype, held
        by the old ``.grad`` when that is a Variable (NOTE [A .grad added to in place])."""
        old = self._grad
        if old is None:
            return self._as_grad(grad)
        new = self._round_gradient(self._add_gradients(old, grad), self.dtype)
        return _held_by(old, new)

    # -- backward ------------------------------------------------------------------------------
    def backward(self, gradient: object = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: capture.Inputs | None = None) -> None:
        """Accumulate the gradient of this Variable into ``.grad`` of each leaf requiring grad.

        It seeds ``gradient`` (1.0 by default) and walks the graph once. Saved values are freed
        afterwards, unless ``retain_graph``. With ``inputs``, only their ``.grad`` is
        accumulated (leaves or not)."""
        seed = seeds((self,), (gradient,), create_graph)
        if inputs is not None:
            return backward_to((self,), seed, retain_graph, create_graph, inputs)
        engine.run_backward((self,), seed, retain_graph, create_graph)

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

    def requires_grad_(self: V, flag: bool = True) -> V:
        """Set ``requires_grad`` in place and return self (a non-leaf refuses only ``False``)."""
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
        return node is not None and any(isinstance(h, hooks.RetainGrad) and h.ref() is self
                                        for _, h in hooks.tensor_hooks(node))

    @property
    def grad(self) -> Any:
        """The accumulated gradient, or ``None``.

        Only leaves that require grad fill it (and non-leaves after ``retain_grad()``). (Typed
        ``Any``: a ``Gradient`` of the engine's kind, which the core cannot name; a student's code
        computes with it as a float, a Value or a Tensor.)"""
        if self.grad_fn is not None and self._grad is None and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). "
                "If you indeed want the .grad field to be populated for a non-leaf Tensor, "
                "use .retain_grad() on the non-leaf Tensor.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Gradient | None) -> None:
        if (self.backward_receives_variables and value is not None
                and not isinstance(value, Variable)):  # a Value's .grad is a float: not refused
            raise TypeError(
                "assigned grad expected to be a Tensor or None but got grad of type "
                f"{messages.type_name(value)}\n"
                "What to do: assign a Tensor of this Tensor's shape and dtype, or None."
            )
        shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
        if shape is not None and hasattr(self, "shape") and tuple(shape) != tuple(self.shape):
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(shape)}' to a tensor of size "
                f"'{list(self.shape)}'. "
                "Please ensure that the gradient and the tensor are the same size\n"
                "What to do: assign a gradient of the Tensor's own shape (or None)."
            )
        if isinstance(value, Variable) and dtype != self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{dtype}' "
                f"to a tensor with dtype '{self.dtype}'. "
                "Please ensure that the gradient and the tensor have the same dtype\n"
                f"What to do: cast it first: g.to({self.dtype!r})."
            )
        self._grad = value

    @property
    def _version(self) -> int:
        """How many in-place ops have changed this data (PyTorch's ``_version``)."""
        counter = self._version_counter
        return counter.value if counter is not None else 0

    # -- autograd ------------------------------------------------------------------------------
    def retain_grad(self) -> None:
        """Keep ``.grad`` on this non-leaf after backward (a no-op on leaves)."""
        if self.grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError(
                    "can't retain_grad on Tensor that has requires_grad=False\n"
                    "What to do: only Values in the graph have gradients; "
                    "set requires_grad=True on a leaf."
                )
            return
        if not self.retains_grad:
            self._add_hook("tensor", hooks.RetainGrad(self, accumulate_into))

    def register_hook(self, hook: hooks.Hook) -> hooks.RemovableHandle:
        """Run ``hook(grad)`` when this Variable's gradient is computed.

        A result that is not None replaces the gradient."""
        if not self._requires_grad:
            raise RuntimeError(HOOK_NEEDS_GRAD)
        return self._add_hook("tensor", hook)

    def register_post_accumulate_grad_hook(self, hook: hooks.Hook) -> hooks.RemovableHandle:
        """Run ``hook(self)`` on a leaf once backward has accumulated into its ``.grad``."""
        if not self._requires_grad:
            raise RuntimeError(HOOK_NEEDS_GRAD)
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors\n"
                "What to do: register it on the leaf (a parameter); "
                "on a non-leaf use register_hook."
            )
        return hooks.add(gradient_node(self), "accumulated", hook)

    def _add_hook(self, kind: str, hook: hooks.Hook) -> hooks.RemovableHandle:
        return hooks.add(gradient_node(self), kind, (self.output_nr, hook))

    # -- in place ------------------------------------------------------------------------------
    def _bump_version(self) -> None:
        version_counter(self).value += 1

    def _in_place(self: V, fn: InPlaceOp, *others: object) -> V:
        """Apply ``fn``, a Function (or anything with its ``apply``), to ``(self, *others)``, and
        make self hold the result.

        In grad mode the result's history becomes self's: ``x.add_(y)`` gets an
        ``AddBackward0``. That is refused on a leaf that requires grad. Under ``no_grad`` only
        the data changes (how optimizers update parameters).
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

    def _rebase(self, node: Node, output_nr: int = 0) -> None:
        """Self's history becomes ``node``, after an in-place op.

        ``output_nr`` says which of its outputs self is. ``retain_grad()`` moves along, so
        ``.grad`` is the gradient of the newest value, as in PyTorch. Other hooks stay on the old
        node: they see the gradient of the value before the op."""
        old = self.grad_fn
        self.grad_fn = node
        self._requires_grad = True
        self.output_nr = output_nr
        self._accumulator = None
        entries = hooks.tensor_hooks(old) if old is not None else []
        for entry in entries:
            hook = entry[1]
            if isinstance(hook, hooks.RetainGrad) and hook.ref() is self:
                entries.remove(entry)
                self._add_hook("tensor", hook)
                break

    def _snapshot(self) -> Variable:
        """A twin holding self's data and history now, so the in-place op saves the old self."""
        twin = self._wrap(self.data, self.dtype, self.grad_fn)
        twin._requires_grad = self._requires_grad
        twin.output_nr = self.output_nr
        twin._accumulator = self._accumulator
        return twin

    def _assign(self, data: Data) -> None:
        """Replace the data in place (arrays are written into; a float is replaced)."""
        raise NotImplementedError

    def to(self: V, dtype: str) -> V:
        """This Variable cast to ``dtype`` (each engine defines it)."""
        raise NotImplementedError

    def detach(self: V) -> V:
        """A new leaf outside the graph that shares this Variable's data (each engine's)."""
        raise NotImplementedError

    def _share_version_counter(self, source: Variable) -> None:
        """Count in-place changes together with ``source``: a detach or a view shares its data."""
        self._version_counter = version_counter(source)

    def detach_(self: V) -> V:
        """Make this Variable a leaf outside the graph, in place (``requires_grad=False``)."""
        self.grad_fn = None
        self._requires_grad = False
        self.output_nr = 0
        self._accumulator = None
        return self

    __hash__ = object.__hash__  # identity, as tensors

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a Value or Tensor as the diagram of its graph (``mg.draw``).

        It does so if Graphviz is there."""
        from ..viz import repr_svg  # diagrams are a layer above: imported only when a notebook asks

        return repr_svg(self)  # type: ignore[no-any-return]

    # -- dtype casts: the short spellings of an engine's ``to`` ------------------------------
    # (Last in the class: ``float`` shadows the builtin after it.)
    def half(self: V) -> V:
        """``self.to("float16")``."""
        return self.to(FLOAT16)

    def bfloat16(self: V) -> V:
        """``self.to("bfloat16")``."""
        return self.to(BFLOAT16)

    def float(self: V) -> V:
        """``self.to("float32")``."""
        return self.to(FLOAT32)

    def double(self: V) -> V:
        """``self.to("float64")``."""
        return self.to(FLOAT64)


def backward_to(roots: tuple[Variable, ...], seed: list[Gradient], retain_graph: bool | None,
                create_graph: bool, inputs: capture.Inputs) -> None:
    """``backward(inputs=…)``: accumulate only into these inputs' ``.grad`` (leaves or not)."""
    chosen = capture.backward_inputs(inputs, Variable)
    grads = engine.run_backward(roots, seed, retain_graph, create_graph, chosen,
                                allow_unused=True)
    for x, g in zip(chosen, grads or ()):
        if g is not None and x.grad_fn is None:  # (a non-leaf's retain_grad hook wrote it)
            accumulate_into(x, g, gradient_node(x))


def _held_by(old: Gradient, new: Gradient) -> Gradient:
    """``new``, the sum; or, for a Variable ``.grad`` outside ``create_graph``, ``old`` holding
    it (NOTE [A .grad added to in place])."""
    if isinstance(old, Variable) and isinstance(new, Variable) and not grad_mode.state.grad_enabled:
        old._assign(new.data)
        old._bump_version()
        return old
    return new
