"""Mixed precision, emulated exactly: ``autocast`` (which ops run in which dtype) and ``GradScaler``.

``autocast(dtype="float16")`` sets this thread's autocast policy (``autograd.grad_mode``), which
every op consults while the block is active (and nothing at all otherwise):

* ops whose Function says ``autocast = "lowp"`` (``mg.dot``, so every Neuron; ``@``
  and ``Linear`` for Tensors) cast their floating inputs to the low-precision dtype;
* ops with ``autocast = "fp32"`` (``exp``, ``log``, ``**``, ``mg.sum``…), number / Value,
  and every loss of ``mg.nn.functional`` (``binary_cross_entropy_with_logits`` among them)
  cast them to float32;
* ``binary_cross_entropy`` is refused (``refuse_under_autocast``): PyTorch's autocast
  (CUDA's) raises "unsafe to autocast" for it and points to the with-logits form;
* all other ops run in their inputs' dtype (promotion), so an elementwise op after
  a float16 product runs in float16 too.

These are PyTorch's CUDA lists, in short; CPU autocast has other lists (in
torch 2.13 ``exp``, ``log``, ``sum`` and ``softmax`` keep their input's dtype on
the CPU, and ``binary_cross_entropy`` is allowed there).

A cast is a ``v.to(dtype)``, so the graph shows ``ToCopyBackward0`` nodes as
PyTorch's does (PYTORCH_TRUTH D8); an input already of the target dtype, and a
plain number, are left alone.  As in PyTorch, the low-precision cast of a leaf
that requires grad is made once per autocast block and reused (the cast cache).
One deliberate difference: float64 inputs are cast too (float64 is the scalar
engine's default; PyTorch leaves float64 alone).

``GradScaler`` multiplies the loss by a scale (2¹⁶ at first) so that small
gradients survive float16, then unscales the gradients, skips the step when one
is inf or nan, and adapts the scale — PyTorch's ``torch.amp.GradScaler``.

The policy and its cast cache are per thread, as PyTorch's: a block opened in one
thread changes nothing in another, and each thread's cache lives while its own
outermost block is open.
"""
from __future__ import annotations

import functools
import math
import threading
from typing import Any, Callable, TypeVar

from . import dtypes
from .autograd import Variable, grad_mode
from .optim import grad_dtype, grad_is_finite, scale_grad_

__all__ = ["GradScaler", "autocast", "autocast_float32", "get_autocast_dtype", "is_autocast_enabled",
           "refuse_under_autocast"]

F = TypeVar("F", bound=Callable[..., Any])
LOW_PRECISION = (dtypes.FLOAT16, dtypes.BFLOAT16)
_FLOATING = frozenset(dtypes.DTYPES)


class _Policy:
    """What ``Function.apply`` calls under autocast: ``policy(fn, inputs) -> inputs`` with the casts made."""

    __slots__ = ("dtype", "cache")

    def __init__(self, dtype: str, cache: dict[Any, Any] | None) -> None:
        self.dtype = dtype
        self.cache = cache  # leaf -> its low-precision cast, shared by nested blocks; None: no caching

    def __call__(self, fn: Any, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        kind = fn.autocast
        if kind == "lowp":
            return self.cast(inputs, self.dtype)
        if kind == "fp32" or (fn.node_name == "DivBackward0" and not isinstance(inputs[0], Variable)):
            return self.cast(inputs, dtypes.FLOAT32)
        return inputs

    def cast(self, inputs: Any, dtype: str) -> tuple[Any, ...]:
        """``inputs`` with every floating Variable not of ``dtype`` replaced by its cast (policy off meanwhile)."""
        if not any(_needs_cast(x, dtype) for x in inputs):
            return tuple(inputs)
        active = grad_mode.set_autocast_policy(None)  # a cast is an op too: don't re-enter the policy
        try:
            return tuple(self._cast_one(x, dtype) if _needs_cast(x, dtype) else x for x in inputs)
        finally:
            grad_mode.set_autocast_policy(active)

    def _cast_one(self, x: Any, dtype: str) -> Any:
        cache = self.cache
        if cache is None or dtype is dtypes.FLOAT32 or x.grad_fn is not None or not x.requires_grad:
            return x.to(dtype)
        key = (x, dtype)
        cast = cache.get(key)
        if cast is None:
            cast = cache[key] = x.to(dtype)
        return cast


def _needs_cast(x: Any, dtype: str) -> bool:
    return isinstance(x, Variable) and x.dtype != dtype and x.dtype in _FLOATING


class _CastCache(threading.local):
    """This thread's cast cache, beside its autocast policy (``grad_mode.state``): per thread, as PyTorch's."""

    depth = 0  # enabled autocast blocks open in this thread (the cache lives while > 0)

    def __init__(self) -> None:
        self.casts: dict[Any, Any] = {}  # (leaf, dtype) -> its cast


_thread_cache = _CastCache()


class autocast:
    """``with mg.autocast(dtype="float16"):`` run the block with autocast's dtype policy.

    ``dtype`` is ``"float16"`` or ``"bfloat16"``; ``enabled=False`` switches autocast
    off inside an enclosing block; ``cache_enabled`` reuses each leaf's cast within
    the outermost block, as PyTorch.  Nestable, restored on exceptions, usable as
    a decorator (``@mg.autocast()``).  Run only the forward pass and the loss
    under it; call ``backward`` and ``optimizer.step()`` outside, as PyTorch says.
    """

    def __init__(self, dtype: str = dtypes.FLOAT16, enabled: bool = True, cache_enabled: bool = True) -> None:
        dtype = dtypes.check_dtype(dtype)
        if enabled and dtype not in LOW_PRECISION:
            raise ValueError(
                f"autocast runs ops in float16 or bfloat16, got dtype={dtype!r}\n"
                "What to do: pass dtype='float16' or dtype='bfloat16' (or enabled=False to switch it off)."
            )
        self.dtype = dtype
        self.enabled = bool(enabled)
        self.cache_enabled = bool(cache_enabled)
        self._prev: Any = None

    def __enter__(self) -> autocast:
        cache = _thread_cache
        policy = _Policy(self.dtype, cache.casts if self.cache_enabled else None) if self.enabled else None
        self._prev = grad_mode.set_autocast_policy(policy)
        if self.enabled:
            cache.depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        grad_mode.set_autocast_policy(self._prev)
        if self.enabled:
            cache = _thread_cache
            cache.depth -= 1
            if cache.depth == 0:
                cache.casts.clear()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with autocast(self.dtype, self.enabled, self.cache_enabled):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def is_autocast_enabled() -> bool:
    """Is an autocast block active now?"""
    return grad_mode.autocast_policy() is not None


def get_autocast_dtype() -> str | None:
    """The low-precision dtype of the active autocast block, or ``None``."""
    policy = grad_mode.autocast_policy()
    return getattr(policy, "dtype", None)


def autocast_float32(*inputs: Any) -> tuple[Any, ...]:
    """Under autocast, ``inputs`` cast to float32 (the float32 list); otherwise ``inputs`` unchanged.

    For composite ops such as the losses of ``mg.nn.functional``: each argument may be
    a Variable, a number, or a sequence of them.
    """
    policy = grad_mode.autocast_policy()
    if policy is None:
        return inputs
    return tuple(_cast_nested(policy, x) for x in inputs)


def _cast_nested(policy: Any, x: Any) -> Any:
    if isinstance(x, Variable):
        return policy.cast((x,), dtypes.FLOAT32)[0]
    if isinstance(x, (list, tuple)):
        return type(x)(policy.cast(x, dtypes.FLOAT32)) if any(_needs_cast(v, dtypes.FLOAT32) for v in x) else x
    return x


def refuse_under_autocast(name: str, what_to_do: str) -> None:
    """Raise PyTorch's "unsafe to autocast" ``RuntimeError`` if an autocast block is active.

    For the ops PyTorch's autocast bans (``binary_cross_entropy``): whatever its
    inputs' dtypes, such an op refuses to run under autocast.
    """
    if grad_mode.autocast_policy() is None:
        return
    raise RuntimeError(
        f"mg.nn.functional.{name} is unsafe to autocast "
        f"(as torch.nn.functional.{name} is under PyTorch's CUDA autocast).\nWhat to do: {what_to_do}"
    )


# -- GradScaler ----------------------------------------------------------------------------------
_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """Dynamic loss scaling for float16 training, as ``torch.amp.GradScaler``::

        scaler = mg.GradScaler()
        with mg.autocast(dtype="float16"):
            loss = mse_loss(model(x), y)
        scaler.scale(loss).backward()      # gradients of loss · scale
        scaler.step(opt)                   # unscale, then opt.step() unless a gradient is inf/nan
        scaler.update()                    # scale · 0.5 after a skipped step, · 2 after 2000 clean ones

    The scale is a float32 number (PyTorch's is a 0-d float32 tensor), and ``scale(loss)``
    multiplies by it, so dtype promotion decides the result: a 0-d float16/bfloat16 loss
    (a Value) becomes float32, a loss with dimensions stays in its dtype (float16 stays
    float16), and a float64 loss stays float64.  Beware PyTorch's trap (D17):
    2¹⁶ = 65536 is itself beyond float16's 65504, so a loss *kept in float16*
    receives an inf gradient at step 1: that step is skipped and the scale halves.
    """

    def __init__(self, init_scale: float = 65536.0, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._enabled = bool(enabled)
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale: float | None = None  # set by the first scale(), as PyTorch does it lazily
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    # -- the four calls of a training step --------------------------------------------------------
    def scale(self, outputs: Any) -> Any:
        """``outputs · scale`` (a Variable, or a list/tuple of them); unchanged when disabled."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = dtypes.round_to(float(self._init_scale), dtypes.FLOAT32)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if not isinstance(outputs, Variable):
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        loss: Any = outputs
        return loss * type(loss)._wrap(self._scale, dtypes.FLOAT32, None)  # a float32 constant, as PyTorch's

    def unscale_(self, optimizer: Any) -> None:
        """Divide every gradient of ``optimizer``'s parameters by the scale, noting any inf/nan.

        Call it before ``clip_grad_norm_`` (PYTORCH_TRUTH D5); ``step`` then won't unscale again.
        A second call before ``update()`` raises ``RuntimeError``.
        """
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._state(optimizer)
        if state["stage"] is _UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update().\n"
                "What to do: call unscale_ at most once per step, between backward() and step()."
            )
        if state["stage"] is _STEPPED:
            raise RuntimeError("unscale_() is being called after step().\n"
                               "What to do: call unscale_ before scaler.step(optimizer), or after update().")
        assert self._scale is not None
        inv_scale = dtypes.round_to(1.0 / self._scale, dtypes.FLOAT32)
        found_inf = False
        for p in optimizer.params:
            if p.grad is None:
                continue
            if grad_dtype(p) == dtypes.FLOAT16:
                raise ValueError("Attempting to unscale FP16 gradients.\n"
                                 "What to do: keep parameters in float32/float64; autocast casts them for you.")
            if not grad_is_finite(p):
                found_inf = True
            scale_grad_(p, inv_scale)
            state["checked"] = True
        state["found_inf"] = found_inf
        state["stage"] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``unscale_(optimizer)`` unless already done, then ``optimizer.step()`` if every gradient is finite.

        Returns what ``optimizer.step()`` returned, or ``None`` when the step was skipped.
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:  # PyTorch's refusal: a closure would recompute the scaled gradients
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.\n"
                               "What to do: compute the loss and call scaler.scale(loss).backward() "
                               "yourself, then scaler.step(optimizer) without a closure.")
        self._check_scale("step")
        state = self._state(optimizer)
        if state["stage"] is _STEPPED:
            raise RuntimeError("step() has already been called since the last update().\n"
                               "What to do: call scaler.update() once per iteration, after scaler.step().")
        if state["stage"] is _READY:
            self.unscale_(optimizer)
        if not state["checked"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: float | None = None) -> None:
        """Adapt the scale: × ``backoff_factor`` if any step since the last update found inf/nan
        (and restart the count), else × ``growth_factor`` once ``growth_interval`` clean steps
        in a row have passed.  ``new_scale`` sets it directly instead."""
        if not self._enabled:
            return
        self._check_scale("update")
        assert self._scale is not None
        if new_scale is not None:
            self._scale = dtypes.round_to(float(new_scale), dtypes.FLOAT32)
        else:
            checked = [s for s in self._per_optimizer.values() if s["checked"]]
            if not checked:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(s["found_inf"] for s in checked):
                self._scale = dtypes.round_to(self._scale * self._backoff_factor, dtypes.FLOAT32)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    grown = dtypes.round_to(self._scale * self._growth_factor, dtypes.FLOAT32)
                    if grown != math.inf:  # as PyTorch: the scale never grows into inf (it stays put)
                        self._scale = grown
                    self._growth_tracker = 0
        self._per_optimizer = {}

    # -- inspection ---------------------------------------------------------------------------------
    def get_scale(self) -> float:
        """The current scale (1.0 when disabled; the initial scale before the first ``scale()``)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def is_enabled(self) -> bool:
        return self._enabled

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def state_dict(self) -> dict[str, Any]:
        """The scaler's state, to save with a checkpoint (empty when disabled), as PyTorch's."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]

    def __repr__(self) -> str:
        return f"GradScaler(scale={self.get_scale()}, enabled={self._enabled})"

    # -- helpers -------------------------------------------------------------------------------------
    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": False,
                                                               "checked": False})

    def _check_scale(self, name: str) -> None:
        if self._scale is None:
            raise AssertionError(
                f"Attempted {name} but _scale is None.  This may indicate your script did not use "
                "scaler.scale(loss or outputs) earlier in the iteration."
            )

