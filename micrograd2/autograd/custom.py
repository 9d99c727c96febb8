"""What only custom Functions need (and a built-in op with several outputs): PyTorch's rules for
their outputs.

* Every output of a custom Function's ``forward`` is differentiable, unless
  ``ctx.mark_non_differentiable`` names it. Output k's gradient edge is ``(node, k)``, and
  ``next_functions`` shows it so, as in PyTorch. So any output may be the root, and
  ``backward`` receives one gradient per output. A built-in op's extra outputs (``max(dim)``'s
  indices) are not differentiable, unless the op sets ``differentiable_outputs`` (``unbind``:
  one differentiable output per row).
* A gradient that reached no output is passed to ``backward`` as zeros of that output's shape,
  unless ``ctx.set_materialize_grads(False)`` (then ``None``).
* ``ctx.mark_dirty(x)``: forward changed the input ``x`` in place. The input Variable becomes the
  output: it takes its data, a new version, and this node as ``grad_fn`` (on a view, its base
  gets ``CopySlices``: NOTE [mark_dirty on a view]). This is refused on a leaf that requires
  grad. Under ``no_grad`` the input keeps its history and the output is a new Variable sharing
  its data, as in PyTorch.
* ``backward`` returns one gradient per forward input (extra trailing ``None``s are dropped).
  It returns ``None`` for an input that is not a Value or Tensor. Each gradient is checked
  against its input, as PyTorch's ``validate_outputs`` does (NOTE [Validating a custom
  gradient]).
* ``forward`` runs under ``no_grad``. It takes ``ctx``, or it does not and the Function defines
  ``setup_context(ctx, inputs, output)`` (``run_forward``). An output that is not data (an
  ``int``, a string) passes through unchanged; an integer output keeps its dtype.
"""
from __future__ import annotations

import inspect
import weakref
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence, cast

from . import grad_mode, messages

if TYPE_CHECKING:
    from .function import BackwardNode, Function
    from .node import Node
    from .protocol import Data, Engine, Gradient
    from .variable import Variable

DIRTY_LEAF = (
    "a leaf Variable that requires grad has been used in an in-place operation.\n"
    "What to do: mark_dirty only inputs that are not leaves requiring grad (x = leaf * 1 first), "
    "or run the Function under no_grad()."
)


class CustomContext:
    """The ctx settings that only a custom Function uses. Each is kept on the node, and read by
    the rules above.

    It is a mixin of every node, and has no slots, so nodes stay small."""

    __slots__ = ()
    # What a node has if forward sets none:
    _materialize: bool = True
    _dirty: tuple[Data, ...] = ()
    _non_differentiable: tuple[Data, ...] = ()
    # What ``outputs`` sets on a custom Function's node:
    _is_variable: tuple[bool, ...]  # for each input: is it a Value or Tensor?
    _input_shapes: tuple[tuple[int, ...] | None, ...]  # for each input: its shape (a Tensor's)
    _outputs: tuple[Data, ...]  # the data of each output
    _kind: type[Engine]  # the outputs' class
    _input_needs: tuple[bool, ...]  # a custom Function's needs_input_grad, numbers included

    def mark_non_differentiable(self, *outputs: Data) -> None:
        """These outputs of a custom Function do not require grad."""
        self._non_differentiable = outputs  # type: ignore[misc]

    def mark_dirty(self, *inputs: Data) -> None:
        """Forward changed these inputs in place: each Variable becomes the output."""
        self._dirty = inputs  # type: ignore[misc]

    def set_materialize_grads(self, value: bool) -> None:
        """Does ``backward`` receive zeros (True, the default) or ``None`` for an output that got
        no gradient?"""
        self._materialize = bool(value)  # type: ignore[misc]


def run_forward(fn: type[Function], ctx: BackwardNode, args: tuple[object, ...],
                attributes: dict[str, object]) -> Any:
    """Run a custom Function's ``forward`` under ``no_grad``, as PyTorch does.

    Two forms, as PyTorch's: ``forward(ctx, *args)``, or ``forward(*args)`` followed by
    ``setup_context(ctx, inputs, output)`` when the Function defines it (the form its current
    documentation teaches). ``inputs`` is the tuple of what forward received."""
    with grad_mode.no_grad():
        if fn.setup_context is not base_setup_context:  # inputs with forward's defaults, as PyTorch
            bound = inspect.signature(fn.forward).bind(*args, **attributes)
            bound.apply_defaults()
            raw = fn.forward(*bound.args, **bound.kwargs)
            fn.setup_context(ctx, bound.args, raw)
            return raw
        return fn.forward(ctx, *args, **attributes)


def without_variables(fn: type[Function], inputs: tuple[object, ...],
                      attributes: dict[str, object]) -> Any:
    """``apply`` given no Value or Tensor: a custom Function's forward runs and its result is
    returned as it is (nothing to record), as PyTorch's; a built-in op refuses."""
    if not fn._node_class._user_function:
        raise TypeError(f"{fn.__name__}.apply() needs at least one Value or Tensor input")
    return run_forward(fn, fn.unrecorded_ctx(len(inputs)), inputs, attributes)


def _needs_input_grad(node: BackwardNode) -> tuple[bool, ...]:
    """A custom Function's ``needs_input_grad``: one flag per forward input, numbers included
    (their edges are dropped: NOTE [No edge for a number])."""
    needs = getattr(node, "_input_needs", None)
    return needs if needs is not None else tuple(map(bool, node._next_nodes))


NEEDS_INPUT_GRAD = property(_needs_input_grad)


# NOTE [No edge for a number]
# PyTorch gives a custom Function's node one edge per Tensor input: a number argument has none
# (a built-in op keeps its ``(None, 0)``: ``x * 3`` has two ``next_functions``). ``backward``
# still returns one gradient per forward input; ``checked`` keeps those of the Variables.
def _drop_number_edges(ctx: Any, inputs: tuple[object, ...]) -> None:
    ctx._input_needs = tuple(map(bool, ctx._next_nodes))
    keep = [k for k, x in enumerate(inputs) if hasattr(x, "grad_fn")]
    ctx._next_nodes = tuple([ctx._next_nodes[k] for k in keep])
    ctx._next_nrs = tuple([ctx._next_nrs[k] for k in keep])


def base_setup_context(ctx: BackwardNode, inputs: tuple[object, ...], output: object) -> None:
    """The ``setup_context`` a Function has when it does not define one: forward takes ctx."""


# NOTE [Outputs that are not data]
# PyTorch passes an output of forward that is not a Tensor (an int, a string, None) through
# unchanged. Here forward returns data, so the engine says what data is: for a Tensor an array
# (or a float), for a Value a number. ``None``, strings and booleans pass through on both, and
# ints too on the Tensor engine. Such an output has no gradient slot worth the name: ``backward``
# receives ``None`` for it, as in PyTorch.
def _passes_through(data: object, template: Variable) -> bool:
    """Is ``data`` an output of forward that PyTorch would return unchanged (not a Tensor)?"""
    if data is None or isinstance(data, (str, bool)):
        return True
    return type(data) is int and template.backward_receives_variables


def _own_dtype(data: object, dtype: str, template: Variable) -> tuple[str, bool]:
    """The dtype of a custom Function's output, and whether it may be differentiable.

    A Tensor's output has the dtype of the array forward returned, as in PyTorch (a bfloat16
    op's float32 storage stays bfloat16); an integer or bool one (an index) has no gradient.
    A number (and a Value's output) takes the op's dtype."""
    own = getattr(data, "dtype", None)
    if own is None or not template.backward_receives_variables:
        return dtype, True
    if own.kind in "iub":  # type: ignore[attr-defined]
        return str(own), False
    return (dtype if str(own) == ("float32" if dtype == "bfloat16" else dtype) else str(own)), True


def outputs(ctx: Any, raw: Data | tuple[Data, ...], inputs: tuple[Any, ...],
            args: tuple[object, ...], template: Variable, dtype: str, recording: bool) -> Any:
    """The Variables ``apply`` returns for what ``forward`` returned, each of ``template``'s kind.

    ``raw`` is one result, or a tuple of them; so is what this returns. ``ctx`` is the op's
    ``BackwardNode``. A recorded node keeps what ``_record`` says of its first output."""
    custom = ctx._per_output
    raws = raw if isinstance(raw, tuple) else (raw,)  # several outputs, as PyTorch reads them
    several = raws is raw
    marked = ctx._non_differentiable
    outs: list[Any] = []
    for k, data in enumerate(raws):
        if custom and _passes_through(data, template):  # NOTE [Outputs that are not data]
            outs.append(data)
            continue
        own: str | None
        if custom:
            own, floating = _own_dtype(data, dtype, template)
            differentiable = recording and floating and not any(data is m for m in marked)
        else:
            own, differentiable = dtype if k == 0 else None, recording and k == 0
        out = template._wrap(data, own, ctx if differentiable else None)
        if differentiable:
            out.output_nr = k  # its gradient goes along the edge (ctx, k)
        outs.append(out)
    variables = [out for out in outs if hasattr(out, "grad_fn")]  # not those passed through
    if recording and variables:
        ctx._record(variables[0], inputs, args, raws[outs.index(variables[0])],
                    variables[0].dtype, (raws, outs) if several else None)
    if custom:
        ctx._is_variable = tuple(hasattr(x, "grad_fn") for x in inputs)  # a Value or Tensor?
        if ctx._user_function and not all(ctx._is_variable):
            _drop_number_edges(ctx, inputs)
        ctx._input_shapes = tuple(getattr(x, "shape", None) for x in inputs)  # validated()
        ctx._outputs = tuple(getattr(out, "data", None) for out in outs)  # None: passed through
        ctx._several = len(outs) > 1
        ctx._kind = type(template)
        if ctx._dirty:
            outs = _dirty(ctx, outs, raws, inputs, recording)
        elif template.backward_receives_variables and (recording or not grad_mode.state.user_grad):
            _mark_views(ctx, outs, inputs, args, recording)
    return tuple(outs) if several else outs[0]


# NOTE [An input returned as is]
# A Tensor's forward that returns an input's array (or a view of it) makes an output that
# shares the input's memory. PyTorch marks such an output a view made inside a custom Function
# and refuses an in-place op on it in grad mode: the view's in-place rules would replace the
# Function's backward. Here the output is listed in ``VIEWS`` (by id, while it lives), and the
# Tensor's in-place check (``refuse_in_place``) reads the list.
VIEWS: dict[int, tuple[weakref.ref[Variable], str]] = {}


def _mark_views(ctx: BackwardNode, outs: list[Any], inputs: tuple[Any, ...],
                args: tuple[object, ...], recording: bool) -> None:
    """List the outputs that share an input's memory (NOTE [An input returned as is]): recorded
    ones, and, under ``no_grad``, views of an input that requires grad (PyTorch's view made in
    no_grad mode)."""
    for k, out in enumerate(outs):
        if not hasattr(out, "grad_fn") or recording and out.grad_fn is None:
            continue
        for x, a in zip(inputs, args):
            if not hasattr(a, "shape") or not out._backend.shares_memory(out.data, a):
                continue
            if recording or out.data is not a and x._requires_grad:
                message = IN_CUSTOM_VIEW if recording else NO_GRAD_VIEW
                VIEWS[id(out)] = (weakref.ref(out, _forget(id(out))),
                                  message.format(k=k, name=ctx._fn.__name__))
            break


def _forget(key: int) -> Callable[[object], None]:
    """The callback that takes a dead output off ``VIEWS``."""
    return lambda _: VIEWS.pop(key, None) and None


NO_GRAD_VIEW = ("A view was created in no_grad mode and is being modified inplace with grad mode "
                "enabled. This view was created inside a custom Function (or because an input "
                "was returned as-is)\nWhat to do: clone the output of the custom Function before "
                "changing it in place.")
IN_CUSTOM_VIEW = (
    "Output {k} of {name} is a view and is being modified inplace. This view was created inside a "
    "custom Function (or because an input was returned as-is) and the autograd logic to handle "
    "view+inplace would override the custom backward associated with the custom Function, leading "
    "to incorrect gradients. This behavior is forbidden.\n"
    "What to do: clone the output of the custom Function (y = F.apply(x).clone()) before changing "
    "it in place, or return a copy from forward."
)


def refuse_in_place(variable: Variable) -> None:
    """In grad mode, PyTorch's error for an in-place op on an output listed in ``VIEWS``."""
    entry = VIEWS.get(id(variable))
    if entry is not None and entry[0]() is variable and grad_mode.is_grad_enabled():
        raise RuntimeError(entry[1])


NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. "
    "The inputs that are modified inplace must all be outputs of the Function.\n"
    "What to do: return each input you pass to ctx.mark_dirty (changed in place) from forward."
)


# NOTE [Which output a dirty input becomes]
# In PyTorch, forward returns the very Tensor it marked dirty. Here forward sees data: an array
# changed in place (``x *= 2``) is returned itself, and the input becomes that output. A float
# cannot be changed in place, so a forward that returns one output (``return x * 2``) makes
# that output the input's new value, on both engines. With several outputs and none holding
# the input's array, the input was not returned: PyTorch's error.
def _dirty(ctx: BackwardNode, outs: list[Any], raws: tuple[Data, ...], inputs: tuple[Any, ...],
           recording: bool) -> list[Any]:
    """Each input marked dirty takes the place of its output: the one holding its very data,
    else the only one (NOTE [Which output a dirty input becomes])."""
    for item in ctx._dirty:
        x = next((x for x in inputs if getattr(x, "data", None) is item), None)
        if x is None:
            continue
        k = next((k for k, data in enumerate(raws) if data is item), -1)
        if k < 0 and len(raws) > 1:  # NOTE [Which output a dirty input becomes]
            raise RuntimeError(NOT_RETURNED)
        k = max(k, 0)
        if not grad_mode.is_grad_enabled():  # PyTorch under no_grad: x changed, a new output
            x._assign(outs[k].data)
            x._bump_version()
            outs[k]._share_version_counter(x)
            continue
        if recording and x._requires_grad and x.grad_fn is None:
            raise RuntimeError(DIRTY_LEAF)
        if k == 0 and x is inputs[0] and outs[0].grad_fn is not None:
            x._in_place(_AlreadyRun(outs[0]), *inputs[1:])  # NOTE [mark_dirty on a view]
        else:
            x._assign(outs[k].data)
            x._bump_version()
            if outs[k].grad_fn is not None:
                x._rebase(ctx, k)
        outs[k] = x
    return outs


# NOTE [mark_dirty on a view]
# An input marked dirty changed in place, as ``x.mul_(w)`` changes it. So it goes through the
# engine's own in-place machinery (``_in_place``), which knows views: when ``x`` is a view, its
# base gets ``CopySlices`` around this Function's node, and every view of the base reads from
# it again, as in PyTorch. The op has already run in forward: ``_AlreadyRun`` hands over its
# result. ``CopySlices`` sends the node's first gradient to the view and the others to the
# inputs after it, so this path takes the first input, returned as the first output (the usual
# form); any other keeps the input's own history only.
class _AlreadyRun:
    """An op for ``_in_place`` whose result forward already made: ``apply`` returns it."""

    def __init__(self, result: Variable) -> None:
        self.result = result

    def apply(self, old: Variable, *others: object) -> Variable:
        """The result, whatever ``old`` (the input before the op) and ``others`` are."""
        return self.result


def grad_outputs(node: Node, grads: Sequence[Gradient | None]) -> tuple[Gradient | None, ...]:
    """The gradients a custom Function's ``backward`` receives: the walk's ``grads``, one per
    output, with zeros where none arrived (unless ``ctx.set_materialize_grads(False)``)."""
    ctx = cast("BackwardNode", node)  # a node of these rules is a Function's
    if not ctx._materialize:
        return tuple(grads)
    return tuple(ctx._kind._zeros_like(data, ctx._dtype) if g is None and data is not None
                 else g for g, data in zip(grads, ctx._outputs))


def checked(node: Node, grads: tuple[Gradient | None, ...]) -> tuple[Gradient | None, ...]:
    """A custom Function's gradients as PyTorch takes them.

    Extra trailing ``None``s are dropped, a gradient for an input that was not a Value or
    Tensor is refused, and each other one is validated (``_validated``)."""
    ctx = cast("BackwardNode", node)  # a node of these rules is a Function's
    n = len(ctx._is_variable)
    if len(grads) > n and all(g is None for g in grads[n:]):
        grads = grads[:n]
    if len(grads) != n:
        raise RuntimeError(messages.wrong_count(ctx, len(grads)).replace(
            f"expected {len(ctx._next_nodes)}", f"expected {n}"))
    result = []
    for k, (grad, is_variable) in enumerate(zip(grads, ctx._is_variable)):
        if grad is not None and not is_variable:
            raise RuntimeError(
                f"function {ctx.name()} returned a gradient different than None at position "
                f"{k + 1}, but the corresponding forward input was not a Variable\n"
                "What to do: return None for each input of forward that is a plain number "
                "(or other non-Value)."
            )
        if is_variable or len(ctx._next_nodes) == n:  # NOTE [No edge for a number]
            result.append(grad if grad is None else _validated(ctx, k, grad))
    return tuple(result)


class _TensorGradient(Protocol):
    """A Tensor's gradient, as ``_validated`` reads one."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    def sum_to_size(self, *size: int) -> Variable: ...

    def sum(self) -> Variable: ...


# NOTE [Validating a custom gradient]
# PyTorch's engine checks every gradient a node returns against its input (``validate_outputs``
# in engine.cpp). Built-in ops return the right shape by construction, so here only a custom
# Function's are checked, and the scalar engine's hot path pays nothing:
#   * a Tensor's gradient must be a Tensor (a NumPy array or scalar is refused, as PyTorch
#     refuses it);
#   * of the input's shape, or of a shape the input broadcasts to: then it is summed back to the
#     input's shape (a (3, 2) gradient for a (2,) input becomes its column sums); any other shape
#     is refused.
# The cast to the input's dtype is the walk's own (``InputBuffer.add`` rounds to the node's
# dtype).
def _validated(node: BackwardNode, k: int, grad: Gradient) -> Gradient:
    """Gradient ``grad`` for input ``k`` of ``node``, checked as NOTE [Validating a custom
    gradient] says."""
    if not node._kind.backward_receives_variables:
        return grad  # a Value's gradient: a float (or a Value), and a Value is 0-d
    if not hasattr(grad, "grad_fn"):
        raise RuntimeError(
            f"expected Variable or None (got {messages.type_name(grad)})\n"
            f"What to do: {node.name()}'s backward must return Tensors: wrap an array with "
            "mg.tensor(...), or compute with the Tensors it receives."
        )
    tensor = cast(_TensorGradient, grad)
    want, got = tuple(node._input_shapes[k] or ()), tuple(tensor.shape)
    if got == want:
        return grad
    if _broadcasts(want, got):
        return tensor.sum_to_size(*want) if want else tensor.sum()
    raise RuntimeError(
        f"Function {node.name()} returned an invalid gradient at index {k} - got {list(got)} "
        f"but expected shape compatible with {list(want)}\n"
        f"What to do: return a gradient of input {k}'s shape {list(want)} from backward."
    )


def _broadcasts(shape: tuple[int, ...], to: tuple[int, ...]) -> bool:
    """Does ``shape`` broadcast to ``to`` (PyTorch's ``is_expandable_to``)?"""
    if len(shape) > len(to):
        return False
    return all(s in (1, t) for s, t in zip(shape[::-1], to[::-1]))
