"""What only custom Functions (and a built-in op with several outputs) need: PyTorch's rules for their outputs.

* Every output of a custom Function's ``forward`` is differentiable, unless ``ctx.mark_non_differentiable``
  names it.  Output k's gradient edge is ``(node, k)`` (``next_functions`` shows it so, as PyTorch), so any
  output may be the root, and ``backward`` receives one gradient per output.  A built-in op's extra outputs
  (``max(dim)``'s indices) are not differentiable, unless the op sets ``differentiable_outputs``
  (``unbind``: one differentiable output per row).
* A gradient that reached no output is passed to ``backward`` as zeros of that output's shape, unless
  ``ctx.set_materialize_grads(False)`` (then ``None``).
* ``ctx.mark_dirty(x)``: forward changed the input ``x`` in place.  The input Variable becomes the output (it
  takes its data, a new version, and this node as ``grad_fn``); refused on a leaf that requires grad.
* ``backward`` returns one gradient per forward input (extra trailing ``None``s are dropped), ``None`` for
  an input that is not a Value or Tensor.

While a custom Function's node is alive (``LIVE``), backward passes take the reference walk.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable

LIVE: weakref.WeakSet[Any] = weakref.WeakSet()  # the custom Functions' nodes alive now

DIRTY_LEAF = (
    "a leaf Variable that requires grad has been used in an in-place operation.\n"
    "What to do: mark_dirty only inputs that are not leaves requiring grad (x = leaf * 1 first), or run the "
    "Function under no_grad()."
)


class CustomContext:
    """The ctx settings only a custom Function uses (a mixin of every node: slot-free, so nodes stay small).
    Each one is kept on the node, and read by the rules above."""

    __slots__ = ()
    _materialize, _dirty, _non_differentiable = True, (), ()  # what a node has if forward sets none

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """These outputs of a custom Function do not require grad."""
        self._non_differentiable = outputs  # type: ignore[misc]

    def mark_dirty(self, *inputs: Any) -> None:
        """Forward changed these inputs in place: each Variable becomes the output."""
        self._dirty = inputs  # type: ignore[misc]

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` receives zeros (True, the default) or ``None`` for an output with no gradient."""
        self._materialize = bool(value)  # type: ignore[misc]


def outputs(ctx: Any, raw: Any, inputs: tuple[Any, ...], args: tuple[Any, ...], template: Any, dtype: Any,
            recording: bool, remember: Callable[..., None]) -> Any:
    """The Variables ``apply`` returns for what ``forward`` returned (``raw``: one result, or a tuple of them),
    each of ``template``'s kind.  ``remember`` is the engine's bookkeeping of a recorded node (its first output)."""
    custom = ctx._custom
    several = type(raw) is tuple
    raws = raw if several else (raw,)
    marked = ctx._non_differentiable
    outs = []
    for k, data in enumerate(raws):
        differentiable = recording and (not any(data is m for m in marked) if custom else k == 0)
        out = template._wrap(data, dtype if custom or k == 0 else None, ctx if differentiable else None)
        if differentiable and k:
            out._accumulator = (ctx, k)  # output k's gradient edge (gradient_edge reads it)
        outs.append(out)
    if recording:
        remember(ctx, outs[0], inputs, args, raws[0], dtype)
    if custom:
        ctx._is_variable = tuple(hasattr(x, "grad_fn") for x in inputs)  # a Value or Tensor?
        ctx._outputs = tuple(out.data for out in outs)  # for zeros, should a gradient not arrive
        ctx._several = len(outs) > 1
        ctx._kind = type(template)
        if recording:
            LIVE.add(ctx)
        if ctx._dirty:
            outs = _dirty(ctx, outs, inputs, recording)
    return tuple(outs) if several else outs[0]


def _dirty(ctx: Any, outs: list[Any], inputs: tuple[Any, ...], recording: bool) -> list[Any]:
    """Each input marked dirty takes the place of its output (the output holding its very data, else the first)."""
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


def grad_outputs(node: Any, grad: Any) -> tuple[Any, ...]:
    """The gradients a custom Function's ``backward`` receives, one per output (``grad``: the walk's, a list
    for several outputs): zeros where none arrived (unless ``ctx.set_materialize_grads(False)``)."""
    got = grad if type(grad) is list else [None] * len(node._outputs) if grad is None else [grad]
    if not node._materialize:
        return tuple(got)
    return tuple(node._kind._zeros_like(data) if g is None else g for g, data in zip(got, node._outputs))


def into_slot(earlier: list[Any] | None, node: Any, nr: int, grad: Any, add: Callable[..., Any]) -> list[Any]:
    """A custom Function's buffered gradients (one per output) with ``grad`` added into output ``nr``'s
    (``add(node, earlier, grad)``: the walk's sum)."""
    slots = earlier if earlier is not None else [None] * len(node._outputs)
    slots[nr] = add(node, slots[nr], grad)
    return slots


def checked(node: Any, grads: tuple[Any, ...]) -> tuple[Any, ...]:
    """A custom Function's gradients as PyTorch takes them: extra trailing ``None``s dropped, and a gradient
    for an input that was not a Value or Tensor refused."""
    n = len(node._next)
    if len(grads) > n and all(g is None for g in grads[n:]):
        grads = grads[:n]
    for k, (grad, is_variable) in enumerate(zip(grads, node._is_variable)):
        if grad is not None and not is_variable:
            raise RuntimeError(
                f"function {node.name()} returned a gradient different than None at position {k + 1}, but the "
                "corresponding forward input was not a Variable\n"
                "What to do: return None for each input of forward that is a plain number (or other non-Value)."
            )
    return grads
