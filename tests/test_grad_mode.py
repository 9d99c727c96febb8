"""Grad mode: no_grad, enable_grad, set_grad_enabled — nesting, decorators, exceptions, threads (E5)."""
from __future__ import annotations

import threading

import pytest

import micrograd2 as mg


def test_results_under_no_grad_are_leaves_without_grad() -> None:
    x = mg.Value(2.0, requires_grad=True)
    with mg.no_grad():
        y = x * 2
        assert not mg.is_grad_enabled()
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None
    assert x.requires_grad and mg.is_grad_enabled()


def test_enable_grad_inside_no_grad_records_again() -> None:
    x = mg.Value(2.0, requires_grad=True)
    with mg.no_grad():
        with mg.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_grad_mode_is_restored_after_an_exception() -> None:
    with pytest.raises(ZeroDivisionError), mg.no_grad():
        1 / 0
    assert mg.is_grad_enabled()


def test_no_grad_and_enable_grad_work_as_decorators() -> None:
    @mg.no_grad()
    def f(v):
        return v * 2

    @mg.enable_grad()
    def g(v):
        return v * 2

    x = mg.Value(1.0, requires_grad=True)
    assert not f(x).requires_grad
    with mg.no_grad():
        assert g(x).requires_grad


def test_set_grad_enabled_as_function_and_context_manager() -> None:
    x = mg.Value(1.0, requires_grad=True)
    with mg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert mg.is_grad_enabled()
    mg.set_grad_enabled(False)
    try:
        assert not mg.is_grad_enabled()
    finally:
        mg.set_grad_enabled(True)


def test_set_grad_enabled_as_decorator_switches_only_inside() -> None:
    @mg.set_grad_enabled(False)
    def f(v):
        return v * 2

    assert mg.is_grad_enabled()
    assert not f(mg.Value(1.0, requires_grad=True)).requires_grad
    assert mg.is_grad_enabled()


def test_grad_mode_is_thread_local() -> None:
    seen = []
    with mg.no_grad():
        t = threading.Thread(target=lambda: seen.append(mg.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_ops_record_in_one_thread_while_another_is_in_no_grad() -> None:
    x = mg.Value(2.0, requires_grad=True)
    inside, other = threading.Event(), []

    def record_elsewhere() -> None:
        inside.wait()
        other.append((x * x).requires_grad)

    t = threading.Thread(target=record_elsewhere)
    t.start()
    with mg.no_grad():
        inside.set()
        t.join()
        here = (x * x).requires_grad
    assert other == [True] and here is False
    assert (x * x).requires_grad  # back on after the block


def test_no_grad_in_another_thread_does_not_stop_recording_here() -> None:
    x = mg.Value(2.0, requires_grad=True)
    entered, release, seen = threading.Event(), threading.Event(), []

    def sit_in_no_grad() -> None:
        with mg.no_grad():
            entered.set()
            release.wait()
            seen.append((x + 1).requires_grad)

    t = threading.Thread(target=sit_in_no_grad)
    t.start()
    entered.wait()
    try:
        assert (x + 1).requires_grad and x.relu().requires_grad
    finally:
        release.set()
        t.join()
    assert seen == [False]


def test_no_grad_and_enable_grad_decorate_without_parentheses() -> None:
    @mg.no_grad
    def f():
        return mg.is_grad_enabled()

    @mg.enable_grad
    def g():
        return mg.is_grad_enabled()

    assert f() is False and mg.is_grad_enabled()
    with mg.no_grad():
        assert g() is True
    assert f.__name__ == "f"


def test_no_grad_on_a_generator_holds_while_its_body_runs() -> None:
    @mg.no_grad()
    def gen():
        received = yield mg.is_grad_enabled()
        yield (received, mg.is_grad_enabled())
        return "done"

    g = gen()
    assert next(g) is False
    assert mg.is_grad_enabled()  # the caller's mode between yields
    assert g.send("hi") == ("hi", False)
    with pytest.raises(StopIteration, match="done"):
        next(g)
    assert mg.is_grad_enabled()


def test_inference_mode_records_nothing_and_nests() -> None:
    x = mg.Value(2.0, requires_grad=True)
    with mg.inference_mode():
        y = x * 2
        assert mg.is_inference_mode_enabled() and not mg.is_grad_enabled()
        with mg.inference_mode(False):  # InferenceMode(false): grad mode on, inference off
            assert mg.is_grad_enabled() and not mg.is_inference_mode_enabled()
    assert not y.requires_grad and y.is_leaf
    assert mg.is_grad_enabled() and not mg.is_inference_mode_enabled()

    @mg.inference_mode
    def f(v):
        return v * 2

    assert not f(x).requires_grad


def test_autocast_state_is_thread_local_beside_grad_mode() -> None:
    seen = []
    with mg.autocast(dtype="bfloat16"):
        t = threading.Thread(target=lambda: seen.append((mg.amp.is_autocast_enabled(), mg.Value(1.0).exp().dtype)))
        t.start()
        t.join()
        here = mg.Value(1.0).exp().dtype
    assert seen == [(False, "float64")] and here == "float32"
