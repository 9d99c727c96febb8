"""A trace belongs to the thread that opened it (micrograd2/tracing/tracer.py, autograd/events.py).

It proves that a trace records, numbers and narrates (on the ``micrograd2.trace`` logger) only its own
thread's forward ops and backward visits while another thread does autograd at the same time, untraced
or traced: in lockstep (the other thread's pass runs between this thread's ops, and inside this
thread's backward pass, from a hook) and running freely side by side; that two traces open at once
in two threads each get their own thread's work, numbered from 1; and that an untraced thread is
heard by nobody while another thread traces.
"""
from __future__ import annotations

import json
import logging
import queue
import re
import sys
import threading
from typing import Any, Callable, Iterator

import pytest

import micrograd2 as mg
from micrograd2.autograd import events
from micrograd2.tracing import Tracer

PASSES = 30
TIMEOUT = 60  # seconds a thread may take to answer before the test fails (instead of hanging)


class Other:
    """A second thread that runs what it is given, one call at a time, while the caller waits."""

    def __init__(self) -> None:
        self.jobs: queue.Queue[tuple[Callable[[], Any], queue.Queue[tuple[bool, Any]]] | None] = queue.Queue()
        self.thread = threading.Thread(target=self._serve, name="other", daemon=True)
        self.thread.start()

    def run(self, fn: Callable[[], Any]) -> Any:
        done: queue.Queue[tuple[bool, Any]] = queue.Queue()
        self.jobs.put((fn, done))
        ok, value = done.get(timeout=TIMEOUT)
        if not ok:
            raise value
        return value

    def _serve(self) -> None:
        while (job := self.jobs.get()) is not None:
            fn, done = job
            try:
                done.put((True, fn()))
            except BaseException as exc:  # handed back to the caller, who raises it
                done.put((False, exc))

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join(TIMEOUT)


@pytest.fixture
def other() -> Iterator[Other]:
    worker = Other()
    yield worker
    worker.close()


@pytest.fixture
def switch_often() -> Iterator[None]:
    """Threads take turns every few microseconds, so two loops really interleave."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def b_pass(b: mg.Value) -> None:
    """The other thread's work: ``(b * b).backward()`` (b = 7: output 49, gradient 14)."""
    (b * b).backward()


def assert_only_a(t: Tracer, passes: int, visits_per_pass: int, grad: float = 3.0) -> None:
    """Every event of ``t`` is the work of the thread of leaf ``a`` (``y = a * 3``, each pass adding
    ``grad`` to ``a.grad``): no name or value of ``b * b``; steps and passes numbered from 1 without
    gaps."""
    names = {name for e in t.events for name, _ in e.inputs + e.grad_inputs} | {e.label for e in t.events}
    assert "b" not in names and "b·b" not in names, names
    values = [v for e in t.events for v in (e.output, e.grad_output, e.new, e.old)]
    values += [v for e in t.events for _, v in e.inputs + e.grad_inputs]
    assert 49.0 not in values and 14.0 not in values and 7.0 not in values
    backward = t.backward_events()
    assert [e.step for e in backward] == list(range(1, passes * visits_per_pass + 1))
    assert [e.pass_no for e in backward] == [p for p in range(1, passes + 1) for _ in range(visits_per_pass)]
    assert [p.pass_no for p in t.passes] == list(range(1, passes + 1)) and all(p.finished for p in t.passes)
    assert [(e.label, e.new) for e in t.events if e.kind == "accumulate"] == [
        ("a", grad * k) for k in range(1, passes + 1)]


# -- one thread traced, one not ------------------------------------------------------------------------------
def test_a_trace_records_none_of_another_threads_passes_run_between_its_ops(other: Other) -> None:
    a, b = mg.Value(2.0, requires_grad=True, label="a"), mg.Value(7.0, requires_grad=True, label="b")
    before = other.run(events.passes_run)
    with mg.trace() as t:
        for _ in range(PASSES):
            y = a * 3
            other.run(lambda: b_pass(b))  # between the forward op and the backward pass
            y.backward()
            other.run(lambda: b_pass(b))
    assert other.run(events.passes_run) - before == 2 * PASSES  # the other thread did run, meanwhile
    assert b.grad == 14.0 * 2 * PASSES
    assert_only_a(t, PASSES, 1)
    assert [e.node for e in t.events if e.kind == "forward"] == ["MulBackward0"] * PASSES


def test_a_trace_records_none_of_another_threads_pass_run_inside_its_own(other: Other) -> None:
    """The other thread's pass runs while this thread's pass is open: from a hook, between two visits."""
    a, b = mg.Value(2.0, requires_grad=True, label="a"), mg.Value(7.0, requires_grad=True, label="b")

    def meanwhile(grad: Any) -> None:
        other.run(lambda: b_pass(b))
        other.run(lambda: b * 2.0)  # and an op with no node, while this thread is inside backward

    with mg.trace() as t:
        for _ in range(PASSES):
            y = a * 3
            y.register_hook(meanwhile)
            (y * 2).backward()
    assert b.grad == 14.0 * PASSES
    assert_only_a(t, PASSES, 2, grad=6.0)
    assert len([e for e in t.events if e.kind == "hook"]) == PASSES


def test_the_issue_a_trace_while_another_thread_runs_backward_in_a_loop(switch_often: None) -> None:
    """The issue's finding, free-running: 30 traced ``y = x * 3; y.backward()`` while a second thread
    runs ``(x * x).backward()`` in a loop; the trace narrates on the logger too."""
    a, b = mg.Value(2.0, requires_grad=True, label="a"), mg.Value(7.0, requires_grad=True, label="b")
    stop, started = threading.Event(), threading.Event()
    count = [0]

    def loop() -> None:
        while not stop.is_set():
            b_pass(b)
            count[0] += 1
            started.set()

    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.INFO)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("micrograd2.trace")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        assert started.wait(TIMEOUT)
        at_start = count[0]
        with mg.trace() as t:
            for _ in range(PASSES):
                y = a * 3
                y.backward()
        during = count[0] - at_start
    finally:
        stop.set()
        thread.join(TIMEOUT)
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert during > 0  # the loop ran while the trace was open
    assert_only_a(t, PASSES, 1)
    assert records and {r.threadName for r in records} == {threading.current_thread().name}
    text = "\n".join(r.getMessage() for r in records)
    assert re.findall(r"^backward pass (\d+) from a·3 = 6\.0", text, re.M) == [str(k) for k in range(1, 31)]
    assert not re.search(r"\bb\b|b·b|49\.0|14\.0", text), text


def test_an_untraced_thread_is_heard_by_nobody_while_another_traces(other: Other) -> None:
    assert not events.listening
    with mg.trace():
        assert events.listening and events.heard()  # someone listens: to this thread
        assert other.run(lambda: (events.listening, events.heard(), events.listeners())) == (True, False, ())
    assert not events.listening and not events.heard()


# -- two traced threads -----------------------------------------------------------------------------------------
def test_two_traces_in_two_threads_in_lockstep_each_record_their_own_thread(other: Other) -> None:
    a, b = mg.Value(2.0, requires_grad=True, label="a"), mg.Value(7.0, requires_grad=True, label="b")
    theirs = other.run(mg.trace)
    other.run(theirs.__enter__)

    def meanwhile(grad: Any) -> None:  # while my pass is open, their op without a node: theirs to record
        other.run(lambda: mg.Value(7.0) * 2.0)

    try:
        with mg.trace() as mine:
            for _ in range(PASSES):
                y = a * 3
                y.register_hook(meanwhile)
                other.run(lambda: b_pass(b))
                (y * 2).backward()
    finally:
        other.run(lambda: theirs.__exit__(None, None, None))
    assert_only_a(mine, PASSES, 2, grad=6.0)
    assert_own_b(theirs, PASSES, forward_extra=PASSES)
    assert [e.output for e in theirs.events if e.kind == "forward" and e.node_id is None] == [14.0] * PASSES


def assert_own_b(t: Tracer, passes: int, forward_extra: int = 0) -> None:
    """Every event of ``t`` is the work of the thread of leaf ``b`` (``b * b``, and ``forward_extra`` ops
    without a node): steps and passes numbered from 1; nothing of ``a``."""
    names = {name for e in t.events for name, _ in e.inputs + e.grad_inputs} | {e.label for e in t.events}
    assert "a" not in names, names
    backward = t.backward_events()
    assert [(e.step, e.pass_no, e.grad_inputs) for e in backward] == [
        (k, k, (("b", 7.0), ("b", 7.0))) for k in range(1, passes + 1)]
    assert len([e for e in t.events if e.kind == "forward"]) == passes + forward_extra
    assert [p.pass_no for p in t.passes] == list(range(1, passes + 1))


def test_two_traces_in_two_threads_running_freely_each_record_their_own_thread(switch_often: None) -> None:
    a, b = mg.Value(2.0, requires_grad=True, label="a"), mg.Value(7.0, requires_grad=True, label="b")
    ready = threading.Barrier(2, timeout=TIMEOUT)
    traces: dict[str, Tracer] = {}

    def theirs() -> None:
        with mg.trace() as t:
            ready.wait()
            for _ in range(PASSES):
                b_pass(b)
            ready.wait()  # both loops end inside both traces
        traces["b"] = t

    thread = threading.Thread(target=theirs, daemon=True)
    thread.start()
    with mg.trace() as mine:
        ready.wait()
        for _ in range(PASSES):
            y = a * 3
            y.backward()
        ready.wait()
    thread.join(TIMEOUT)
    assert_only_a(mine, PASSES, 1)
    assert_own_b(traces["b"], PASSES)
    assert all(json.loads(line)["label"] != "b" for line in mine.to_json().splitlines()
               if "label" in json.loads(line))
