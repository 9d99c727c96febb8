"""U1, record: the hole ``record`` of your engine (docs/course.md).

``micrograd2 lesson run 1 --engine .`` (from this folder) runs lesson 1 with your ``record`` in
place of the core's: every op recorded by ``Function.apply`` asks it whether, and how, to record.
"""
from __future__ import annotations

from typing import Any

import micrograd2 as mg  # noqa: F401  (you will need them)
from micrograd2.autograd import gradient_edge  # noqa: F401


def record(fn: Any, inputs: tuple[Any, ...], output: Any, ctx: Any) -> tuple[Any, ...] | None:
    """Decide whether the op ``fn`` just run is recorded, and give its node its edges.

    ``inputs``: what ``fn.apply`` was given (Values, Tensors or plain numbers). ``output``: the
    result, no history yet. ``ctx``: the node ``fn.forward`` filled in.

    Return ``None`` when the op is not recorded: grad mode is off (``mg.is_grad_enabled()``),
    or no input requires grad (``x.requires_grad``; a plain number never does). Otherwise return
    one edge per input, in order: ``gradient_edge(x)`` for an input that requires grad (the
    ``(node, input_nr)`` its gradient goes to), ``(None, 0)`` for any other input. The core then
    makes ``ctx`` the output's ``grad_fn`` with those edges: ``requires_grad`` spreads.
    """
    raise NotImplementedError("not implemented yet: record (U1)")

