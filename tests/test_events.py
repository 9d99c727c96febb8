"""``micrograd2.autograd.events``: the hook point where the core announces what it does.

It proves that ``listening`` is true exactly while somebody is subscribed, that ``emit`` hands ``(kind, fields)``
to every listener in order (a listener may unsubscribe itself while being called), that pass numbers only grow,
that ``backward_pass`` announces its start and end (``failed`` when the pass raised), and that the Tensor ops
announce themselves with Tensors and backend arrays.  Per thread: a listener hears only the thread that
subscribed it (``heard``, ``listeners``), may be unsubscribed from any thread but only once, ``silenced``
quiets the calling thread only, and passes are counted (``passes_run``, ``in_backward``) per thread while
their numbers grow over the process.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.autograd import events
from micrograd2.tensors import Tensor


def test_listening_is_true_exactly_while_somebody_is_subscribed() -> None:
    first = lambda kind, fields: None  # noqa: E731
    second = lambda kind, fields: None  # noqa: E731
    assert not events.listening
    events.subscribe(first)
    events.subscribe(second)
    try:
        assert events.listening
        events.unsubscribe(first)
        assert events.listening
    finally:
        events.unsubscribe(second)
    assert not events.listening and events.listeners() == ()


def test_emit_sends_kind_and_fields_to_every_listener_in_order() -> None:
    seen: list[tuple[str, str, dict[str, Any]]] = []

    def first(kind: str, fields: dict[str, Any]) -> None:
        seen.append(("first", kind, fields))
        events.unsubscribe(first)  # leaving while being called: the others still hear this event

    def second(kind: str, fields: dict[str, Any]) -> None:
        seen.append(("second", kind, fields))

    events.subscribe(first)
    events.subscribe(second)
    try:
        events.emit("free", node="n", saved=(1.0,))
        events.emit("free", node="m", saved=())
    finally:
        events.unsubscribe(second)
    n, m = {"node": "n", "saved": (1.0,)}, {"node": "m", "saved": ()}
    assert seen == [("first", "free", n), ("second", "free", n), ("second", "free", m)]


def test_pass_numbers_increase() -> None:
    a = events.next_pass_number()
    b = events.next_pass_number()
    assert b == a + 1


def test_backward_pass_announces_its_start_and_end_and_whether_it_failed() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    listener = lambda kind, fields: seen.append((kind, fields))  # noqa: E731
    events.subscribe(listener)
    try:
        with events.backward_pass(("root",), [("root", 0, 1.0)]) as ok:
            pass
        with pytest.raises(ZeroDivisionError), events.backward_pass(("root",), [("root", 0, 2.0)]) as bad:
            1 / 0
    finally:
        events.unsubscribe(listener)
    assert bad == ok + 1
    assert seen == [("backward_start", {"roots": ("root",), "grads": (1.0,), "pass_no": ok}),
                    ("backward_end", {"pass_no": ok, "failed": False}),
                    ("backward_start", {"roots": ("root",), "grads": (2.0,), "pass_no": bad}),
                    ("backward_end", {"pass_no": bad, "failed": True})]


def test_a_backward_pass_nobody_listens_to_still_gets_a_number() -> None:
    with events.backward_pass((), []) as first:
        pass
    with events.backward_pass((), []) as second:
        pass
    assert second == first + 1


def test_the_core_announces_tensor_ops_with_arrays() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    listener = lambda kind, fields: seen.append((kind, fields))  # noqa: E731
    events.subscribe(listener)
    try:
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
    finally:
        events.unsubscribe(listener)
    kinds = [k for k, _ in seen]
    assert kinds.count("forward") == 2 and kinds.count("visit") == 2 and "accumulate" in kinds
    visit = next(f for k, f in seen if k == "visit")
    assert isinstance(visit["grad_output"], Tensor)  # a Tensor's gradients are Tensors, as PyTorch's
    forward = next(f for k, f in seen if k == "forward")
    assert isinstance(forward["output"], Tensor)


# -- a thread's own listeners (NOTE [A thread's own listeners]) ----------------------------------------------
def in_thread(fn: Callable[[], Any]) -> Any:
    """``fn()`` run in a new thread; its result (or its exception, raised here)."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append((True, fn()))
        except BaseException as exc:  # raised again in the caller
            out.append((False, exc))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    ok, value = out[0]
    if not ok:
        raise value
    return value


def test_a_listener_hears_only_the_thread_that_subscribed_it() -> None:
    seen: list[str] = []
    listener = lambda kind, fields: seen.append(kind)  # noqa: E731
    events.subscribe(listener)
    try:
        assert events.heard() and events.listeners() == (listener,)
        assert in_thread(lambda: (events.listening, events.heard(), events.listeners())) == (True, False, ())
        in_thread(lambda: events.emit("free", node="theirs", saved=()))
        in_thread(lambda: events.forward("node", mg.Value, (), None))
        events.emit("free", node="mine", saved=())
    finally:
        events.unsubscribe(listener)
    assert seen == ["free"]


def test_a_listener_may_be_unsubscribed_from_another_thread_and_only_once() -> None:
    listener = lambda kind, fields: None  # noqa: E731
    in_thread(lambda: events.subscribe(listener))
    assert events.listening and not events.heard()
    with pytest.raises(ValueError, match="already subscribed"):
        events.subscribe(listener)
    events.unsubscribe(listener)
    assert not events.listening
    with pytest.raises(ValueError, match="not subscribed"):
        events.unsubscribe(listener)


def test_silenced_quiets_the_calling_thread_only() -> None:
    seen: list[str] = []
    listener = lambda kind, fields: seen.append(fields["node"])  # noqa: E731

    def quiet_there() -> None:
        with events.silenced():
            events.emit("free", node="theirs", saved=())  # nobody listens there anyway

    events.subscribe(listener)
    try:
        with events.silenced():
            assert not events.listening and not events.heard()  # as if nobody listened anywhere
            events.emit("free", node="silenced", saved=())
            assert in_thread(lambda: events.listening) is False
        assert events.listening and events.heard()
        in_thread(quiet_there)
        events.emit("free", node="mine", saved=())  # another thread's silenced() did not quiet me
    finally:
        events.unsubscribe(listener)
    assert seen == ["mine"]


def test_backward_passes_are_counted_per_thread_and_numbered_over_the_process() -> None:
    mine_before = events.passes_run()
    with events.backward_pass((), []) as first:
        assert events.in_backward() == 1
        inside, theirs = in_thread(lambda: (events.in_backward(), events.passes_run()))
        assert (inside, theirs) == (0, 0)  # a new thread: none begun, none running
        other = in_thread(lambda: next(iter([events.next_pass_number()])))
    with events.backward_pass((), []) as second:
        pass
    assert events.passes_run() == mine_before + 2 and events.in_backward() == 0
    assert first < other < second
