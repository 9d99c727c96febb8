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
  output: it takes its data, a new version, and this node as ``grad_fn``. This is refused on a
  leaf that requires grad.
* ``backward`` returns one gradient per forward input (extra trailing ``None``s are dropped).
  It returns ``None`` for an input that is not a Value or Tensor.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .function import BackwardNode
    from .node import Data, Engine, Gradient, Node
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
    _outputs: tuple[Data, ...]  # the data of each output
    _kind: type[Engine]  # the outputs' class

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


def outputs(ctx: Any, raw: Data, inputs: tuple[Any, ...], args: tuple[object, ...],
            template: Variable, dtype: str, recording: bool) -> Any:
    """The Variables ``apply`` returns for what ``forward`` returned, each of ``template``'s kind.

    ``raw`` is one result, or a tuple of them; so is what this returns. ``ctx`` is the op's
    ``BackwardNode``. A recorded node keeps what ``_record`` says of its first output."""
    custom = ctx._custom
    several = type(raw) is tuple
    raws = raw if several else (raw,)
    marked = ctx._non_differentiable
    outs = []
    for k, data in enumerate(raws):
        differentiable = recording and (not any(data is m for m in marked) if custom else k == 0)
        out = template._wrap(data, dtype if custom or k == 0 else None,
                             ctx if differentiable else None)
        if differentiable:
            out.output_nr = k  # its gradient goes along the edge (ctx, k)
        outs.append(out)
    if recording:
        ctx._record(outs[0], inputs, args, raws[0], dtype)
    if custom:
        ctx._is_variable = tuple(hasattr(x, "grad_fn") for x in inputs)  # a Value or Tensor?
        ctx._outputs = tuple(out.data for out in outs)  # for zeros, should a gradient not arrive
        ctx._several = len(outs) > 1
        ctx._kind = type(template)
        if ctx._dirty:
            outs = _dirty(ctx, outs, inputs, recording)
    return tuple(outs) if several else outs[0]


def _dirty(ctx: BackwardNode, outs: list[Variable], inputs: tuple[Any, ...],
           recording: bool) -> list[Variable]:
    """Each input marked dirty takes the place of its output.

    That is the output holding its very data, else the first."""
    for item in ctx._dirty:
        x = next((x for x in inputs if getattr(x, "data", None) is item), None)
        if x is None:
            continue
        k = next((k for k, out in enumerate(outs) if out.data is item), 0)
        if recording and x._requires_grad and x.grad_fn is None:
            raise RuntimeError(DIRTY_LEAF)
        x._assign(outs[k].data)
        x._bump_version()
        if outs[k].grad_fn is not None:
            x._rebase(ctx, k)
        outs[k] = x
    return outs


def grad_outputs(node: BackwardNode, grad: Gradient) -> tuple[Gradient, ...]:
    """The gradients a custom Function's ``backward`` receives, one per output.

    ``grad`` is the walk's: a list for several outputs. Where none arrived, zeros are passed
    (unless ``ctx.set_materialize_grads(False)``)."""
    got = grad if type(grad) is list else [None] * len(node._outputs) if grad is None else [grad]
    if not node._materialize:
        return tuple(got)
    return tuple(node._kind._zeros_like(data, node._dtype) if g is None else g
                 for g, data in zip(got, node._outputs))


def into_slot(earlier: list[Gradient] | None, node: Any, nr: int, grad: Gradient,
              add: Callable[[Node, Gradient, Gradient], Gradient]) -> list[Gradient]:
    """A custom Function's buffered gradients (one per output), ``grad`` added into output ``nr``'s.

    ``add(node, earlier, grad)`` is the walk's sum."""
    slots = earlier if earlier is not None else [None] * len(node._outputs)
    slots[nr] = add(node, slots[nr], grad)
    return slots


def checked(node: BackwardNode, grads: tuple[Gradient, ...]) -> tuple[Gradient, ...]:
    """A custom Function's gradients as PyTorch takes them.

    Extra trailing ``None``s are dropped, and a gradient for an input that was not a Value or
    Tensor is refused."""
    n = len(node._next_nodes)
    if len(grads) > n and all(g is None for g in grads[n:]):
        grads = grads[:n]
    for k, (grad, is_variable) in enumerate(zip(grads, node._is_variable)):
        if grad is not None and not is_variable:
            raise RuntimeError(
                f"function {node.name()} returned a gradient different than None at position "
                f"{k + 1}, but the corresponding forward input was not a Variable\n"
                "What to do: return None for each input of forward that is a plain number "
                "(or other non-Value)."
            )
    return grads
