"""Grad mode: whether the ops being run now are recorded for backward.

``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context managers
and as decorators, nest, restore the previous mode on exceptions, and are
thread-local, exactly as in PyTorch.
"""
from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _GradState(threading.local):
    enabled = True


state = _GradState()  # this thread's mode: read it as ``on_everywhere or state.enabled``

# True while no thread has grad mode off (the usual case): then the hot paths need no
# thread-local lookup, only this one global read.
on_everywhere = True
_threads_off = 0
_lock = threading.Lock()


def is_grad_enabled() -> bool:
    """True when new ops are recorded in the graph."""
    return on_everywhere or state.enabled


def _set_enabled(mode: bool) -> None:
    """Set this thread's grad mode (and keep ``on_everywhere`` true to the state of all threads)."""
    global on_everywhere, _threads_off
    with _lock:
        was = state.enabled
        if was and not mode:
            _threads_off += 1
        elif mode and not was:
            _threads_off -= 1
        state.enabled = mode
        on_everywhere = _threads_off == 0


class _GradModeContext:
    """Base for the grad-mode switches: a context manager that is also a decorator."""

    _mode: bool

    def __enter__(self) -> None:
        self._prev = state.enabled
        _set_enabled(self._mode)

    def __exit__(self, *exc: object) -> None:
        _set_enabled(self._prev)

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__._clone(self):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def _clone(self) -> _GradModeContext:
        return self.__class__()


class no_grad(_GradModeContext):
    """Don't record ops: results are leaves with ``requires_grad=False``."""

    _mode = False


class enable_grad(_GradModeContext):
    """Record ops again (inside a ``no_grad`` block)."""

    _mode = True


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(flag)``: switches grad mode at once, and back when used with ``with``."""

    def __init__(self, mode: bool) -> None:
        self._mode = bool(mode)
        self._prev = state.enabled
        _set_enabled(self._mode)

    def __enter__(self) -> None:
        pass

    def __call__(self, fn: F) -> F:
        _set_enabled(self._prev)  # used as a decorator: switch only while fn runs
        return super().__call__(fn)

    def _clone(self) -> _GradModeContext:
        return _Scoped(self._mode)


class _Scoped(_GradModeContext):
    def __init__(self, mode: bool) -> None:
        self._mode = mode
