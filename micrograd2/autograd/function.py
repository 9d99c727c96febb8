"""``Function``: an op with a ``forward`` and a ``backward``, and the one way ops are recorded.

Every op of micrograd2, built-in or yours, is a ``Function`` subclass::

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):           # plain numbers (arrays for Tensors)
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):          # one gradient per forward input
            a, b = ctx.saved_tensors
            return grad * b, grad * a

``Mul.apply(x, y)`` unwraps the inputs, runs ``forward``, wraps the result in
the inputs' kind (``Value`` or ``Tensor``) and, when grad mode is on and an input
requires grad, gives it a ``grad_fn``: a node of class ``MulBackward…``, which is
the very ``ctx`` that ``forward`` filled in.
"""
from __future__ import annotations

from typing import Any, Callable

from . import anomaly, events, grad_mode
from .node import BackwardNode, _creation_order, resolve_saved
from .variable import Variable

# Set by ``micrograd2.amp`` while an ``autocast`` block is active: a function
# ``policy(fn, inputs) -> inputs`` that inserts the casts autocast wants.
autocast_policy: Any = None


class Function:
    """Base class of every op.  Subclasses define ``forward(ctx, *args)`` and ``backward(ctx, *grads)``.

    ``node_name`` sets the node's name (built-ins use PyTorch's, like ``"MulBackward0"``);
    a custom Function's node is named ``<ClassName>Backward``, as in PyTorch.
    ``autocast`` names the op's autocast list: ``"lowp"``, ``"fp32"`` or ``None`` (promotion).
    """

    node_name: str | None = None
    autocast: str | None = None
    ctx_slots: tuple[str, ...] = ()  # a built-in op's plain ctx attributes (sizes, dims), kept after backward
    _node_class: type[BackwardNode]
    _apply1: Callable[[Any], Any]  # apply(x), fast: see _one_input_path
    _apply2: Callable[[Any, Any], Any]  # apply(a, b), fast: see _two_input_path

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        builtin = "node_name" in cls.__dict__
        name = cls.node_name if builtin and cls.node_name else f"{cls.__name__}Backward"
        body: dict[str, Any] = {"_fn": cls, "_backward": staticmethod(cls.backward), "__module__": cls.__module__}
        if builtin:  # built-in nodes stay small (only their ctx_slots); a custom ctx may carry any attribute
            body["__slots__"] = tuple(cls.ctx_slots)
        cls._node_class = type(name, (BackwardNode,), body)
        cls._apply1 = staticmethod(_one_input_path(cls))  # type: ignore[assignment]
        cls._apply2 = staticmethod(_two_input_path(cls))  # type: ignore[assignment]

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        raise NotImplementedError("a Function must define forward(ctx, *inputs)")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function must define backward(ctx, grad_output)")

    @classmethod
    def apply(cls, *inputs: Any, **attributes: Any) -> Any:
        """Run the op on ``inputs`` (Values, Tensors or numbers) and record it if needed.

        Keyword ``attributes`` (an exponent, a ``dim``…) go to ``forward`` but are not
        inputs: they get no edge and no gradient.  ``dtype=`` sets the result's dtype.
        """
        if autocast_policy is not None:
            inputs = autocast_policy(cls, inputs)
        record = grad_mode.on_everywhere or grad_mode.state.enabled
        args = []
        edges = []
        template = None
        for x in inputs:
            if isinstance(x, Variable):
                args.append(x.data)
                if template is None:
                    template = x
                    dtype = x.dtype
                elif x.dtype is not dtype:
                    dtype = template._promote(dtype, x.dtype)
                if record and x._requires_grad:
                    edges.append(x.grad_fn or x._accumulator or x._make_accumulator())
                    continue
            else:
                args.append(x)
            edges.append(None)
        if template is None:
            raise TypeError(f"{cls.__name__}.apply() needs at least one Value or Tensor input")
        needs_grad = edges.count(None) != len(edges)

        if attributes and "dtype" in attributes:
            dtype = attributes["dtype"]
        ctx = cls._node_class.__new__(cls._node_class)
        ctx._next = tuple(edges)
        ctx._saved = ()
        raw = cls.forward(ctx, *args, **attributes)
        if type(raw) is tuple:  # extra outputs (e.g. max's indices) are never differentiable
            out = _output(cls, ctx, raw[0], template, dtype, inputs, args, needs_grad)
            return (out, *(template._wrap(e, None, None) for e in raw[1:]))
        return _output(cls, ctx, raw, template, dtype, inputs, args, needs_grad)


# -- fast paths: ``apply`` for the two commonest calls, with the same result -------------------------------
# Each Function class gets its own pair (``_apply1``, ``_apply2``), made once by ``__init_subclass__``.  They
# are plain functions, so an engine can use them *as* its methods (``Value.__mul__ = Mul._apply2``): an
# operator then costs one Python call instead of two.
def _one_input_path(fn: type[Function]) -> Callable[[Any], Any]:
    """``fn.apply(x)`` for one Value or Tensor ``x``, without apply's general loop (one-output ops only)."""

    def apply1(x: Any) -> Any:
        if autocast_policy is not None:
            return fn.apply(x)
        ctx = fn._node_class.__new__(fn._node_class)
        ctx._saved = ()
        recorded = x._requires_grad and (grad_mode.on_everywhere or grad_mode.state.enabled)
        ctx._next = (x.grad_fn or x._accumulator or x._make_accumulator(),) if recorded else (None,)
        data = x.data
        raw = fn.forward(ctx, data)
        return _output(fn, ctx, raw, x, x.dtype, (x,), (data,), recorded)

    apply1.__qualname__ = f"{fn.__qualname__}._apply1"
    return apply1


def _two_input_path(fn: type[Function]) -> Callable[[Any, Any], Any]:
    """``fn.apply(a, b)`` for a Value or Tensor ``a`` and a ``b`` of its kind and dtype, or a Python number,
    without apply's general loop (one-output ops only): ``Value op Value`` and ``Value op float``.
    Any other ``b`` goes to ``apply`` if ``a``'s kind accepts it as an operand, else gives NotImplemented
    (so Python tries ``b``'s reflected operator)."""

    def apply2(a: Any, b: Any) -> Any:
        kind = type(b)
        if kind is float or kind is int:
            b_data, b_needs = b, False
        elif kind is type(a) and b.dtype == a.dtype:
            b_data, b_needs = b.data, b._requires_grad
        else:
            return fn.apply(a, b) if a._accepts(b) else NotImplemented
        if autocast_policy is not None:
            return fn.apply(a, b)
        ctx = fn._node_class.__new__(fn._node_class)
        ctx._saved = ()
        a_needs = a._requires_grad
        recorded = (a_needs or b_needs) and (grad_mode.on_everywhere or grad_mode.state.enabled)
        if recorded:
            ctx._next = (a.grad_fn or a._accumulator or a._make_accumulator() if a_needs else None,
                         b.grad_fn or b._accumulator or b._make_accumulator() if b_needs else None)
        else:
            ctx._next = (None, None)
        a_data = a.data
        raw = fn.forward(ctx, a_data, b_data)
        return _output(fn, ctx, raw, a, a.dtype, (a, b), (a_data, b_data), recorded)

    apply2.__qualname__ = f"{fn.__qualname__}._apply2"
    return apply2


def _output(fn: type[Function], ctx: BackwardNode, raw: Any, template: Variable, dtype: Any,
            inputs: tuple[Any, ...], args: Any, recorded: bool) -> Any:
    """Wrap forward's result ``raw`` like ``template``; when ``recorded``, ``ctx`` becomes its grad_fn."""
    if not recorded:
        out = template._wrap(raw, dtype, None)
    else:
        ctx._seq = next(_creation_order)
        ctx._dtype = dtype
        out = template._wrap(raw, dtype, ctx)
        if ctx._saved:
            ctx._saved = resolve_saved(ctx._saved, inputs, args, raw, out)
        if anomaly.enabled:
            anomaly.remember_forward(ctx)
    if events.listening:
        events.emit("forward", node=out.grad_fn, fn=fn, inputs=inputs, output=out)
    return out
