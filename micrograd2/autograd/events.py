"""The hook point where the core announces what it does, for whoever listens.

The core calls ``events.emit(kind, **fields)`` only after checking the module
attribute ``events.listening`` (one global read: no cost when nobody listens).
The tracer (``micrograd2/tracing``) subscribes; nothing else does by default.

Kinds and their fields:

* ``"forward"``: ``node`` (the new grad_fn, or ``None``), ``fn`` (the Function class),
  ``inputs`` (the input objects), ``output`` (the result object).  An op that a backward
  formula runs without recording it is no part of the graph: it is not announced
  (``in_backward``).
* ``"visit"``: ``node``, ``grad_output``, ``grad_inputs`` (tuple, one per input), ``pass_no``
* ``"accumulate"``: ``node``, ``variable`` (the leaf or retain_grad Value), ``old``, ``new``
* ``"hook"``: ``node``, ``variable`` (or ``None``), ``hook``, ``before``, ``after``
* ``"free"``: ``node``, ``saved`` (what was freed)
* ``"backward_start"``: ``roots``, ``grads``, ``pass_no``
* ``"backward_end"``: ``pass_no``, ``failed``
"""
from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

if TYPE_CHECKING:
    from .engine import Start
    from .variable import Variable

Listener = Callable[[str, dict[str, object]], None]  # listener(kind, fields)

listening = False
in_backward = 0  # how many backward passes are running now (one inside another's hook: 2)
_listeners: list[Listener] = []
_passes = 0


def subscribe(listener: Listener) -> None:
    """Start sending every event to ``listener(kind, fields)``."""
    global listening
    _listeners.append(listener)
    listening = True


def unsubscribe(listener: Listener) -> None:
    """Stop sending events to ``listener``."""
    global listening
    _listeners.remove(listener)
    listening = bool(_listeners)


def emit(kind: str, **fields: object) -> None:
    """Send one event to every listener (call only when ``listening`` is true)."""
    for listener in tuple(_listeners):
        listener(kind, fields)


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """No events for a while, as if nobody listened: for a timing loop inside a traced run."""
    global listening
    before = listening
    listening = False
    try:
        yield
    finally:
        listening = before and bool(_listeners)


def forward(node: object, fn: type, inputs: tuple[object, ...], output: object) -> None:
    """Announce one op as a ``"forward"`` event (call only when ``listening`` is true), unless a
    backward formula ran it without recording it (``node`` None while ``in_backward``)."""
    if node is not None or not in_backward:
        emit("forward", node=node, fn=fn, inputs=inputs, output=output)


def passes_run() -> int:
    """How many backward passes this process has begun."""
    return _passes


def next_pass_number() -> int:
    """A number for a new backward pass, increasing over the process."""
    global _passes
    _passes += 1
    return _passes


@contextlib.contextmanager
def backward_pass(roots: Sequence[Variable], starts: list[Start]) -> Iterator[int]:
    """One backward pass: its number.

    When somebody listens, it is announced as ``backward_start`` and ``backward_end``
    (``failed`` if it raised)."""
    global in_backward
    pass_no = next_pass_number()
    if listening:
        emit("backward_start", roots=roots, grads=tuple(g for _, _, g in starts), pass_no=pass_no)
    failed = True
    in_backward += 1
    try:
        yield pass_no
        failed = False
    finally:
        in_backward -= 1
        if listening:
            emit("backward_end", pass_no=pass_no, failed=failed)
