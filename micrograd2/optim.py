"""Optimizers: ``SGD`` (momentum, dampening, Nesterov, weight decay), ``Adam`` (amsgrad) and ``AdamW``,
with PyTorch's update rules (and ``maximize``).

Parameters are updated **in place under** ``no_grad`` with the in-place ops
(``add_``, ``mul_``…), so each ``step()`` bumps a parameter's ``_version`` by
one, exactly as in PyTorch (PYTORCH_TRUTH D15).  The math is written on
Variables (``p``, its gradient, the state buffers), so the same optimizer works
on ``Value`` and on ``Tensor`` parameters; the one place that knows a Value's
``.grad`` is a float and a Tensor's a Tensor is the "gradients" section below.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Iterable

from . import dtypes
from .autograd import Variable, enable_grad, no_grad

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "zero_grad"]


# -- gradients: the only code that branches on float versus Variable ---------------------------
def is_variable(x: Any) -> bool:
    """A Value or a Tensor (not a plain float)?"""
    return isinstance(x, Variable)


def grad_variable(p: Any) -> Any:
    """``p.grad`` as a Variable (a Value's ``.grad`` is a float, a Tensor's a Tensor).

    Read it, never change it in place: it may be ``p.grad`` itself (no copy on every step).
    """
    g = p.grad
    return g if is_variable(g) else p._wrap(g, p.dtype, None)


def copy_of(g: Any) -> Any:
    """A copy of the Variable ``g`` that the optimizer may change in place (its state buffers)."""
    with no_grad():
        return g * 1.0  # exact, keeps the dtype


def plus_scaled(g: Any, x: Any, c: float) -> Any:
    """``g + c·x`` as a new Variable, PyTorch's ``g.add(x, alpha=c)``: a copy of ``g`` into which ``c·x`` is
    added in place (on a Tensor one rounding, as PyTorch's fused multiply-add)."""
    return copy_of(g).add_(x, alpha=c)


def scale_grad_(p: Any, factor: float) -> None:
    """``p.grad *= factor`` in place, rounded to the gradient's dtype."""
    g = p.grad
    if is_variable(g):
        with no_grad():
            g.mul_(factor)
    else:
        p.grad = dtypes.round_to(g * factor, p.dtype)


def grad_sq_norm(p: Any) -> float:
    """Σ g² over ``p.grad``'s entries, in float64 (a Tensor's on its own device: no NumPy on GPU arrays)."""
    return grad_norm_term(p, 2.0)


def grad_norm_term(p: Any, norm_type: float) -> float:
    """Σ |g|^norm_type over ``p.grad``'s entries in float64, or max |g| for ``norm_type = inf``
    (nan if a gradient is nan; computed on the Tensor's own device)."""
    g = p.grad
    data = g.data if is_variable(g) else g
    if isinstance(data, float):
        a = abs(data)
        return a if norm_type in (1.0, math.inf) else a * a if norm_type == 2.0 else a**norm_type
    if math.prod(g.shape) == 0:
        return 0.0
    with no_grad():
        wide = g.to("float64")  # a new Tensor, unless the gradient is float64 already
        if norm_type == 2.0:  # g·g is |g|·|g|: no abs, and the squares go into the new Tensor
            return float((wide * wide if wide is g else wide.mul_(wide)).sum().item())
        a = wide.abs()
        if norm_type == math.inf:
            return float(a.amax().item())
        return float((a if norm_type == 1.0 else a**norm_type).sum().item())


def grad_is_finite(p: Any) -> bool:
    """No inf or nan in ``p.grad`` (for a Tensor: computed on the Tensor's own device).

    One pass in the usual case: an inf or a nan makes the sum inf or nan, so a finite sum means finite
    entries; only a sum that is not finite (which finite entries can give, by overflow) needs max |g|.
    """
    g = p.grad
    data = g.data if is_variable(g) else g
    if isinstance(data, float):
        return math.isfinite(data)
    if math.prod(g.shape) == 0:
        return True  # nothing to check (and max of nothing is undefined)
    with no_grad():
        return math.isfinite(g.sum().item()) or math.isfinite(g.abs().amax().item())


def maximum_(a: Any, b: Any) -> None:
    """``a = max(a, b)`` elementwise, in place, for two optimizer buffers (amsgrad's running maximum).

    NaN wins, as in ``torch.maximum``.  The buffers are in no graph, so the data is set directly.
    """
    if isinstance(a.data, float):
        x, y = a.data, b.data
        a.data = x + y if x != x or y != y else max(x, y)
    else:
        a._assign(a._backend.binary("maximum", a.data, b.data))


def grad_dtype(p: Any) -> str:
    """The dtype of ``p.grad`` (a Value's float gradient has the Value's dtype)."""
    return str(getattr(p.grad, "dtype", p.dtype))


def zero_grad(params: Iterable[Any], set_to_none: bool = True) -> None:
    """``p.grad = None`` for each parameter (PyTorch's default), or zeros with ``set_to_none=False``."""
    for p in params:
        g = p.grad
        if set_to_none or g is None:
            p.grad = None
        elif is_variable(g):  # in place, as PyTorch: a kept reference to p.grad sees the zeros
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            with no_grad():
                g.zero_()
        else:
            p.grad = 0.0


# -- the optimizers ----------------------------------------------------------------------------
class Optimizer:
    """Holds parameter groups; ``step()`` updates the parameters, ``zero_grad()`` clears their ``.grad``.

    As in PyTorch, ``params`` is an iterable of parameters or of dicts (parameter
    groups, each with its own options); ``param_groups`` lists the groups and
    ``state[p]`` holds the per-parameter buffers.
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        if isinstance(params, Variable):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                f"{type(params).__name__}\nWhat to do: pass model.parameters() or a list of Values."
            )
        self.defaults = defaults
        self.state: dict[Any, dict[str, Any]] = {}
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.param_groups: list[dict[str, Any]] = []
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a group of parameters (a dict with ``"params"`` and optional options)."""
        params = group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        params = [params] if isinstance(params, Variable) else list(params)  # one Tensor: a list of it
        group = {**self.defaults, **group, "params": params}
        ids = {id(p) for p in group["params"]}
        if len(ids) < len(group["params"]):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error", UserWarning, stacklevel=3)
        if ids & {id(p) for other in self.param_groups for p in other["params"]}:
            raise ValueError("some parameters appear in more than one parameter group\n"
                             "What to do: list each parameter once, in one group.")
        for p in group["params"]:
            if not isinstance(p, Variable):
                raise TypeError(f"optimizer can only optimize Values or Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor\n"
                                 "What to do: optimize the leaves (model.parameters()), not results of ops.")
        self.param_groups.append(group)

    @property
    def params(self) -> list[Any]:
        """All parameters, group by group."""
        return [p for group in self.param_groups for p in group["params"]]

    @property
    def lr(self) -> float:
        """The learning rate of the first group (setting it sets every group's)."""
        return float(self.param_groups[0]["lr"])

    @lr.setter
    def lr(self, value: float) -> None:
        for group in self.param_groups:
            group["lr"] = value

    def zero_grad(self, set_to_none: bool = True) -> None:
        """``.grad = None`` on every parameter (PyTorch's default), or zeros with ``set_to_none=False``."""
        zero_grad(self.params, set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a ``.grad``; with ``closure``, re-evaluate the loss first."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, grad_variable(p), group, self.state.setdefault(p, {}))
        return loss

    def _update(self, p: Any, g: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in self.defaults.items())
        return f"{type(self).__name__}({len(self.params)} parameters, {options})"


def _check_non_negative(name: str, value: float) -> None:
    if not value >= 0.0:
        raise ValueError(f"Invalid {name}: {value}\nWhat to do: pass a number ≥ 0.")


class SGD(Optimizer):
    """Stochastic gradient descent, ``torch.optim.SGD``'s rule::

        d = ±g + weight_decay·p                      (−g with maximize=True)
        b = d (first step), then b = momentum·b + (1 − dampening)·d
        d = d + momentum·b (nesterov=True), else d = b        (if momentum)
        p = p − lr·d
    """

    def __init__(self, params: Iterable[Any], lr: float, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False) -> None:
        _check_non_negative("learning rate", lr)
        _check_non_negative("momentum value", momentum)
        _check_non_negative("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening\n"
                             "What to do: pass momentum > 0 and dampening=0 with nesterov=True.")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize})

    def _update(self, p: Any, g: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        if group["maximize"]:
            g = -g
        if group["weight_decay"]:
            g = plus_scaled(g, p, group["weight_decay"])
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = copy_of(g)
            else:
                buf.mul_(momentum).add_(g, alpha=1 - group["dampening"])
            g = plus_scaled(g, buf, momentum) if group["nesterov"] else buf
        p.add_(g, alpha=-group["lr"])


class Adam(Optimizer):
    """Adam, ``torch.optim.Adam``'s rule (L2 weight decay, bias correction, optional amsgrad)::

        t = t + 1;  d = ±g + weight_decay·p          (−g with maximize=True)
        m = m + (1 − β₁)(d − m)                   (m.lerp_(d, 1 − β₁))
        v = β₂·v + (1 − β₂)·d·d;   v̂ = max(v̂, v) with amsgrad, else v̂ = v
        p = p − (lr / (1 − β₁ᵗ))·m / (√v̂ / √(1 − β₂ᵗ) + eps)
    """

    decoupled_weight_decay = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False, *,
                 maximize: bool = False) -> None:
        _check_non_negative("learning rate", lr)
        _check_non_negative("epsilon value", eps)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}\n"
                                 "What to do: each beta is in [0, 1), e.g. betas=(0.9, 0.999).")
        _check_non_negative("weight_decay value", weight_decay)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize})

    def _update(self, p: Any, g: Any, group: dict[str, Any], state: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        if not state:
            state["step"] = 0.0
            state["exp_avg"] = copy_of(g).zero_()
            state["exp_avg_sq"] = copy_of(g).zero_()
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = copy_of(g).zero_()
        state["step"] += 1
        t = state["step"]
        if group["maximize"]:
            g = -g
        if group["weight_decay"]:
            if self.decoupled_weight_decay:
                p.mul_(1 - group["lr"] * group["weight_decay"])
            else:
                g = plus_scaled(g, p, group["weight_decay"])
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.add_((g - m).mul_(1 - beta1))  # (each new buffer is changed in place: one per line)
        v.mul_(beta2).add_((g * (1 - beta2)).mul_(g))
        if group["amsgrad"]:
            v = state["max_exp_avg_sq"]
            maximum_(v, state["exp_avg_sq"])
        step_size = group["lr"] / (1 - beta1**t)
        bias_correction2_sqrt = (1 - beta2**t) ** 0.5
        denom = (_sqrt(v) / bias_correction2_sqrt).add_(group["eps"])
        p.add_(m / denom, alpha=-step_size)


class AdamW(Adam):
    """AdamW, ``torch.optim.AdamW``'s rule: Adam with decoupled weight decay (p = p·(1 − lr·weight_decay)
    before the step, instead of adding weight_decay·p to the gradient); weight_decay defaults to 0.01."""

    decoupled_weight_decay = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


def _sqrt(v: Any) -> Any:
    return v.sqrt() if hasattr(v, "sqrt") else v**0.5
