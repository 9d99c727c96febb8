"""Grad mode and autocast state: per-thread switches that ``Function.apply`` reads for every op.

Grad mode says whether the ops being run now are recorded for backward.

``no_grad``, ``enable_grad``, ``inference_mode`` and ``set_grad_enabled`` work as in PyTorch.
They are context managers and decorators (of functions and generators; the first three also
bare, ``@no_grad``). They nest, restore the previous mode on exceptions, and are thread-local.

The autocast state (which casts ``mg.autocast`` wants inserted) lives beside it,
thread-local too: ``micrograd2.amp`` sets it with ``set_autocast_policy``.
"""
from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, Generator, TypeVar

F = TypeVar("F", bound=Callable[..., object])
Y = TypeVar("Y")  # what a generator yields
S = TypeVar("S")  # what a generator is sent
R = TypeVar("R")  # what a generator returns
Policy = Callable[[type, tuple[Any, ...]], tuple[Any, ...]]  # autocast: (op, inputs) -> inputs


# NOTE [Grad mode inside inference mode]
# PyTorch's inference mode turns recording off below grad mode: inside it, ``enable_grad()`` makes
# ``is_grad_enabled()`` True, yet no op records. So the switch the user sets (``user_grad``) and
# the one every op reads (``grad_enabled``: the user's, outside inference mode) are two.
class _ThreadState(threading.local):
    grad_enabled = True  # are ops recorded?
    user_grad = True  # grad mode as set (is_grad_enabled())
    inference = False  # inside inference_mode()?
    autocast: Policy | None = None  # the active autocast policy, or None


state = _ThreadState()  # this thread's switches


def is_grad_enabled() -> bool:
    """Grad mode: True when new ops are recorded, except inside ``inference_mode()``."""
    return state.user_grad


def _set_enabled(mode: bool) -> None:
    state.user_grad = mode
    state.grad_enabled = mode and not state.inference


def autocast_policy() -> Any:
    """The autocast policy active in this thread (amp's, with its ``cast``), or ``None``."""
    return state.autocast


def set_autocast_policy(policy: Policy | None) -> Policy | None:
    """Make ``policy`` (or ``None``) this thread's autocast policy; return the previous one."""
    previous, state.autocast = state.autocast, policy
    return previous


class _GradModeContext:
    """Base for the grad-mode switches: a context manager that is also a decorator.

    It decorates functions and generators. For a generator, the mode holds while the
    generator's body runs, between its ``yield``s."""

    _mode: bool

    def __enter__(self) -> None:
        self._prev = state.user_grad
        _set_enabled(self._mode)

    def __exit__(self, *exc: object) -> None:
        _set_enabled(self._prev)

    def __call__(self, fn: F) -> F:
        if inspect.isgeneratorfunction(fn):
            return _decorate_generator(self._clone, fn)  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*args: object, **kwargs: object) -> object:
            with self._clone():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def _clone(self) -> _GradModeContext:
        return self.__class__()


def _decorate_generator(make_context: Callable[[], _GradModeContext],
                        gen_fn: Callable[..., Generator[Y, S, R]]
                        ) -> Callable[..., Generator[Y, S, R]]:
    """``gen_fn``, with each step of its generator run inside a fresh ``make_context()``.

    The steps are the first ``next``, ``send``, ``throw`` and ``close``. So the caller's mode is
    back in force at every ``yield``."""

    @functools.wraps(gen_fn)
    def wrapper(*args: object, **kwargs: object) -> Generator[Y, S, R]:
        gen = gen_fn(*args, **kwargs)
        try:
            with make_context():
                response = next(gen)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException as error:  # thrown in by the caller: pass it on, in the mode
                    with make_context():
                        response = gen.throw(error)
                else:
                    with make_context():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return wrapper


class _BareDecorator(_GradModeContext):
    """A switch that also decorates without parentheses: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func: Callable[..., object] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_BareDecorator):
    """Don't record ops: results are leaves with ``requires_grad=False``."""

    _mode = False


class enable_grad(_BareDecorator):
    """Record ops again (inside a ``no_grad`` block)."""

    _mode = True


class inference_mode(_GradModeContext):
    """``inference_mode(mode=True)``: as ``no_grad`` (results are leaves, no grad required).

    ``mode=False`` turns grad mode on and inference mode off, even inside ``no_grad``, as
    PyTorch's ``InferenceMode(false)`` does. A context manager and a decorator, with or without
    parentheses.

    Inside it, ``enable_grad()`` sets grad mode but nothing records, as in PyTorch. One
    difference: results are not marked as "inference tensors". So using them later in a
    recorded op works here, where PyTorch raises.
    """

    def __new__(cls, mode: bool | Callable[..., object] = True) -> Any:
        if callable(mode):  # @inference_mode, bare
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self._on = bool(mode)

    def __enter__(self) -> None:
        self._prev = state.user_grad
        self._prev_inference = state.inference
        state.inference = self._on
        _set_enabled(not self._on)  # False turns grad mode on, even inside no_grad (PyTorch's)

    def __exit__(self, *exc: object) -> None:
        state.inference = self._prev_inference
        _set_enabled(self._prev)

    def _clone(self) -> _GradModeContext:
        return inference_mode(self._on)


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return state.inference


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(flag)``: switches grad mode at once, and back when used with ``with``."""

    def __init__(self, mode: bool) -> None:
        if type(mode) is not bool:  # PyTorch's check
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}\nWhat to do: pass True or False.")
        self._mode = mode
        self._prev = state.user_grad
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
