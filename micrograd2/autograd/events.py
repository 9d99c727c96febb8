"""The hook point where the core announces what it does, for whoever listens in that thread.

The core calls ``events.emit(kind, **fields)`` only after checking the module
attribute ``events.listening`` (one global read: no cost when nobody listens).
The tracer (``micrograd2/tracing``) subscribes; nothing else does by default.

Listeners are per thread, as grad mode is: a listener hears only the thread that
subscribed it, its forward ops and its backward passes, and never another thread's
(NOTE [A thread's own listeners]).  ``listening`` means "someone, in some thread,
may listen"; ``emit`` and ``forward`` then send to the calling thread's listeners
only (none: nothing is sent).  ``heard()`` says whether anybody hears this thread.

Kinds and their fields:

* ``"forward"``: ``node`` (the new grad_fn, or ``None``), ``fn`` (the Function class),
  ``inputs`` (the input objects), ``output`` (the result object).  An op that a backward
  formula runs without recording it is no part of the graph: it is not announced
  (``in_backward()``).
* ``"visit"``: ``node``, ``grad_output``, ``grad_inputs`` (tuple, one per input), ``pass_no``
* ``"accumulate"``: ``node``, ``variable`` (the leaf or retain_grad Value), ``old``, ``new``
* ``"hook"``: ``node``, ``variable`` (or ``None``), ``hook``, ``before``, ``after``
* ``"free"``: ``node``, ``saved`` (what was freed)
* ``"backward_start"``: ``roots``, ``grads``, ``pass_no``
* ``"backward_end"``: ``pass_no``, ``failed``
"""
from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

if TYPE_CHECKING:
    from .engine import Start
    from .variable import Variable

Listener = Callable[[str, dict[str, object]], None]  # listener(kind, fields)

listening = False  # someone, in some thread, may listen: the core's one global read


class _Seat:
    """One thread's listeners: ``audible`` are those that hear it now (none while silenced)."""

    __slots__ = ("listeners", "quiet", "audible")

    def __init__(self) -> None:
        self.listeners: tuple[Listener, ...] = ()  # subscribed in this thread, in order
        self.quiet = 0  # how many silenced() blocks this thread is in
        self.audible: tuple[Listener, ...] = ()


_NOBODY = _Seat()  # the seat of every thread that never subscribed nor was silenced: always empty


class _Here(threading.local):
    """What belongs to the calling thread (the class attributes are each thread's start)."""

    seat: _Seat = _NOBODY  # its own, made when the thread first subscribes or is silenced
    in_backward = 0  # backward passes running in this thread now (one inside another's hook: 2)
    passes = 0  # backward passes this thread has begun


_here = here = _Here()  # ``here.seat.audible``: what ``heard()`` reads, without a call
_lock = threading.Lock()  # guards the fields below and every seat's fields
_heard: set[_Seat] = set()  # the seats with an audible listener: listening == bool(_heard)
_seat_of: dict[Listener, _Seat] = {}  # each subscribed listener's seat (its thread's)
_passes = 0


# NOTE [A thread's own listeners]
# A student's trace narrates the student's code: a notebook's background thread, a data
# loader or a test runner doing autograd at the same time must not show up in it.  So each
# thread has its own seat of listeners, and the events a thread's ops and passes announce
# go to that seat only.  The core keeps its one global check (``listening``: is any seat
# audible?), so with nothing traced anywhere it pays what it always did.  A thread nobody
# hears, while another thread is traced, finds its seat empty in ``emit`` and ``forward``
# and sends nothing; where a decision is taken once for a pass or a write (which walk to
# take, whether to copy a ``.grad`` for its event), ``listening and heard()`` answers for
# the calling thread alone.  A listener is unsubscribed from its own seat, whichever thread
# unsubscribes it.
def _settle(seat: _Seat) -> None:
    """After a change to ``seat`` (hold ``_lock``): its audible listeners, and ``listening``."""
    global listening
    seat.audible = () if seat.quiet else seat.listeners
    if seat.audible:
        _heard.add(seat)
    else:
        _heard.discard(seat)
    listening = bool(_heard)


def _my_seat() -> _Seat:
    seat = _here.seat
    if seat is _NOBODY:
        seat = _here.seat = _Seat()
    return seat


def subscribe(listener: Listener) -> None:
    """Start sending every event of the calling thread to ``listener(kind, fields)``."""
    seat = _my_seat()
    with _lock:
        if listener in _seat_of:
            raise ValueError(f"{listener!r} is already subscribed")
        _seat_of[listener] = seat
        seat.listeners += (listener,)
        _settle(seat)


def unsubscribe(listener: Listener) -> None:
    """Stop sending events to ``listener`` (from the thread that subscribed it)."""
    with _lock:
        seat = _seat_of.pop(listener, None)
        if seat is None:
            raise ValueError(f"{listener!r} is not subscribed")
        seat.listeners = tuple(x for x in seat.listeners if x != listener)
        _settle(seat)


def listeners() -> tuple[Listener, ...]:
    """The listeners subscribed in the calling thread, in order."""
    return _here.seat.listeners


def heard() -> bool:
    """Whether a listener hears the calling thread now (``listening``: maybe, in some thread)."""
    return bool(_here.seat.audible)


def emit(kind: str, **fields: object) -> None:
    """Send one event to the calling thread's listeners (call only when ``listening`` is true)."""
    for listener in _here.seat.audible:  # a tuple: a listener may unsubscribe while being called
        listener(kind, fields)


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """No events from the calling thread for a while, as if nobody listened to it: for a timing
    loop inside a traced run.  Other threads' listeners go on hearing their own threads."""
    seat = _my_seat()
    with _lock:
        seat.quiet += 1
        _settle(seat)
    try:
        yield
    finally:
        with _lock:
            seat.quiet -= 1
            _settle(seat)


def forward(node: object, fn: type, inputs: tuple[object, ...], output: object) -> None:
    """Announce one op as a ``"forward"`` event to the calling thread's listeners (call only when
    ``listening`` is true), unless a backward formula ran it without recording it (``node`` None
    while ``in_backward()``)."""
    audible = _here.seat.audible
    if audible and (node is not None or not _here.in_backward):
        fields: dict[str, object] = {"node": node, "fn": fn, "inputs": inputs, "output": output}
        for listener in audible:
            listener("forward", fields)


def in_backward() -> int:
    """How many backward passes are running in the calling thread now."""
    return _here.in_backward


def passes_run() -> int:
    """How many backward passes the calling thread has begun."""
    return _here.passes


def next_pass_number() -> int:
    """A number for a new backward pass, increasing over the process (no two threads' passes
    share one)."""
    global _passes
    with _lock:
        _passes += 1
        return _passes


@contextlib.contextmanager
def backward_pass(roots: Sequence[Variable], starts: list[Start]) -> Iterator[int]:
    """One backward pass in the calling thread: its number.

    When somebody listens to this thread, it is announced as ``backward_start`` and
    ``backward_end`` (``failed`` if it raised)."""
    here = _here
    pass_no = next_pass_number()
    here.passes += 1
    if listening:
        emit("backward_start", roots=roots, grads=tuple(g for _, _, g in starts), pass_no=pass_no)
    failed = True
    here.in_backward += 1
    try:
        yield pass_no
        failed = False
    finally:
        here.in_backward -= 1
        if listening:
            emit("backward_end", pass_no=pass_no, failed=failed)
