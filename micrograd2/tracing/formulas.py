"""How each op reads in a lesson: its forward formula and its local derivative, with names and numbers.

``forward_formula(ev)`` writes what an op computed from its inputs' names
(``x[1]·w[1]``); ``gradient_text(ev, i)`` how input ``i``'s gradient was made
(``1.0 × w[1] (5.0) = 5.0``).  Both come from ``EXPLAIN``, one entry per node
kind; a custom Function reads ``MyFn(x)`` and ``MyFn.backward(ctx, upstream)``.

Formulas are written as a student would write them on paper:

* an input that is a plain number shows the number (``x − 1.0``), not ``const``;
* an operand that is itself an expression is put in parentheses where the
  order of operations needs them (``(a + b)·c``, ``(x·w)^2``), and so is a
  negative number inside a formula (``2·(-1.07657)^1``).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from .names import CONST
from .records import TraceEvent
from .values import format_value

MAX_LISTED = 6  # inputs listed one by one; more are elided

# How tightly an expression binds: an operand is put in parentheses when it binds less than its place needs.
ADD, MUL, NEG, POW, ATOM = 1, 2, 3, 4, 5
_OPEN, _CLOSE = "([{|", ")]}|"


@functools.lru_cache(maxsize=4096)  # a trace asks of the same names again and again
def binding(text: str) -> int:
    """How tightly ``text`` binds: ``ATOM`` for a name or a call, else its loosest top-level operator."""
    depth, loosest, spaced = 0, ATOM, False
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            if c in "+−" and text[i - 1:i] == " " and text[i + 1:i + 2] == " ":
                return ADD
            if c == "·" or (c == "/" and text[i - 1:i] == " "):
                loosest = min(loosest, MUL)
            elif c == "^":
                loosest = min(loosest, POW)
            spaced = spaced or c == " "
    if loosest == ATOM and text[:1] in "-−" and len(text) > 1:
        return NEG
    if loosest == ATOM and spaced:
        return ADD  # words with spaces (a label like "my loss", "ln x") read as one group only in parentheses
    return loosest


def operand(text: str, needs: int) -> str:
    """``text`` as an operand of an operator that needs at least ``needs``: in parentheses if it binds less."""
    return text if binding(text) >= needs else f"({text})"


def number(x: Any) -> str:
    """A number inside a formula: ``2.0``, ``(-1.5)``."""
    return operand(format_value(x), ATOM)


# -- reading an event ----------------------------------------------------------------------------
def name(ev: TraceEvent, i: int, needs: int = ADD) -> str:
    """Input ``i`` as an operand: its name, or its number if it is a plain number."""
    if i >= len(ev.inputs):
        return f"input {i}"
    label, value = ev.inputs[i]
    if label == CONST and isinstance(value, (int, float)):
        return number(value)  # a negative number in parentheses: x − (-1.0)
    return operand(label, needs)


def num(ev: TraceEvent, i: int) -> str:
    return number(ev.inputs[i][1]) if i < len(ev.inputs) else "?"


def saved(ev: TraceEvent, name: str) -> Any:
    """What the op saved under PyTorch's ``name`` (``exponent``, ``self``, ``result``), else None
    (NOTE [Saved values by name] in nodes.py)."""
    for saved_name, (_, value) in zip(ev.saved_names, ev.saved):
        if saved_name == name:
            return value
    return None


def out(ev: TraceEvent) -> str:
    return number(ev.output)


def terms(names: Sequence[str], sep: str) -> str:
    if len(names) > MAX_LISTED:
        return sep.join([*names[:2], "…", names[-1]]) + f" ({len(names)} terms)"
    return sep.join(names)


def _minus_one(p: Any) -> str:
    return number(p - 1) if isinstance(p, (int, float)) else f"({format_value(p)} − 1)"


def _exponent(ev: TraceEvent) -> str:
    p = saved(ev, "exponent")
    return "p" if p is None else number(p)


# -- the ops ------------------------------------------------------------------------------------
def _pow_local(ev: TraceEvent, i: int) -> str:
    p = saved(ev, "exponent")
    if p is None:
        return f"p·{name(ev, 0, ATOM)}^(p−1)"
    return f"{number(p)}·{name(ev, 0, ATOM)}^{_minus_one(p)} ({number(p)}·{num(ev, 0)}^{_minus_one(p)})"


def _pow1_local(ev: TraceEvent, i: int) -> str:
    a, b = name(ev, 0, ATOM), name(ev, 1, ATOM)
    if i == 0:
        return f"{b}·{a}^({b}−1) ({num(ev, 1)}·{num(ev, 0)}^({num(ev, 1)}−1))"
    return f"{a}^{b}·ln {a} ({out(ev)}·ln {num(ev, 0)})"


def _relu_local(ev: TraceEvent, i: int) -> str:
    value = ev.output
    if isinstance(value, (int, float)):
        return f"1 (since {name(ev, 0)} > 0)" if value > 0 else f"0 (since {name(ev, 0)} ≤ 0)"
    return f"(1 where {name(ev, 0)} > 0, else 0)"


def _abs_local(ev: TraceEvent, i: int) -> str:
    x = ev.inputs[0][1] if ev.inputs else None
    sign = "" if not isinstance(x, (int, float)) else f" ({format_value((x > 0) - (x < 0))})"
    return f"sign({name(ev, 0)}){sign}"


def _sum_forward(ev: TraceEvent) -> str:
    if len(ev.inputs) == 1:  # a Tensor's .sum(): all its elements
        return f"sum({name(ev, 0)})"
    return terms([name(ev, i) for i in range(len(ev.inputs))], " + ")


def _dot_forward(ev: TraceEvent) -> str:
    n = len(ev.inputs) // 2
    parts = [f"{name(ev, i, MUL)}·{name(ev, n + i, POW)}" for i in range(n)]
    if len(ev.inputs) % 2:
        parts.append(name(ev, 2 * n))
    return terms(parts, " + ")


def _is_number(ev: TraceEvent, j: int) -> bool:
    return j < len(ev.inputs) and ev.inputs[j][0] == CONST


def _factor(ev: TraceEvent, j: int) -> str:
    """Input ``j`` as a factor with its number: ``w[1] (5.0)``; a plain number just once: ``3.0``."""
    if j >= len(ev.inputs):
        return "?"
    if _is_number(ev, j):
        return name(ev, j, ATOM)
    return f"{name(ev, j, POW)} ({format_value(ev.inputs[j][1])})"


def _dot_local(ev: TraceEvent, i: int) -> str:
    n = len(ev.inputs) // 2
    if i >= 2 * n:
        return "1"
    return _factor(ev, i + n if i < n else i - n)  # ∂/∂wᵢ = xᵢ, ∂/∂xᵢ = wᵢ


def _mul_local(ev: TraceEvent, i: int) -> str:
    return _factor(ev, 1 - i)


def _div_local(ev: TraceEvent, i: int) -> str:
    a, b = name(ev, 0, POW), name(ev, 1, POW)
    if i == 0:
        return f"1/{b}" if _is_number(ev, 1) else f"1/{b} (1/{num(ev, 1)})"
    numbers = f" (−{num(ev, 0)}/{num(ev, 1)}²)" if not (_is_number(ev, 0) and _is_number(ev, 1)) else ""
    return f"(−{a}/{name(ev, 1, ATOM)}²){numbers}"  # after "upstream ×": a negation in parentheses


def _alpha(ev: TraceEvent, one: str) -> str:
    """``add(other, alpha=…)``'s alpha (PyTorch's ``_saved_alpha``), else ``one``."""
    alpha = saved(ev, "alpha")
    return one if alpha is None else number(alpha)


def _alpha_times(ev: TraceEvent) -> str:
    """``2.5·`` before the second operand of ``a + 2.5·b``; nothing without an alpha."""
    return "" if saved(ev, "alpha") is None else f"{_alpha(ev, '1')}·"


def _rsub_forward(ev: TraceEvent) -> str:
    c = name(ev, 1) if len(ev.inputs) > 1 else "c"
    return f"{c} − {name(ev, 0, MUL)}"


def _rpow_base(ev: TraceEvent) -> str:
    """The base ``c`` of ``c ** x`` (PyTorch's PowBackward2 saves it as ``self``), else ``c``."""
    c = saved(ev, "self")
    return "c" if c is None else number(c)


Explain = tuple[Callable[[TraceEvent], str], Callable[[TraceEvent, int], str]]

EXPLAIN: dict[str, Explain] = {
    # node name: (forward formula, local derivative ∂output/∂input i — with the numbers used)
    "AddBackward0": (lambda e: f"{name(e, 0)} + {_alpha_times(e)}{name(e, 1, MUL if _alpha_times(e) else ADD)}",
                     lambda e, i: "1" if i == 0 else _alpha(e, "1")),
    "SubBackward0": (lambda e: f"{name(e, 0)} − {_alpha_times(e)}{name(e, 1, MUL)}",
                     lambda e, i: "1" if i == 0 else f"(−{_alpha(e, '1')})"),
    "RsubBackward1": (_rsub_forward, lambda e, i: "(−1)"),
    "NegBackward0": (lambda e: f"−{name(e, 0, MUL)}", lambda e, i: "(−1)"),
    "MulBackward0": (lambda e: f"{name(e, 0, MUL)}·{name(e, 1, POW)}", _mul_local),
    "DivBackward0": (lambda e: f"{name(e, 0, MUL)} / {name(e, 1, POW)}", _div_local),
    "PowBackward0": (lambda e: f"{name(e, 0, ATOM)}^{_exponent(e)}", _pow_local),
    "PowBackward1": (lambda e: f"{name(e, 0, ATOM)}^{name(e, 1, ATOM)}", _pow1_local),
    "PowBackward2": (lambda e: f"{_rpow_base(e)}^{name(e, 0, ATOM)}",
                     lambda e, i: f"c^{name(e, 0, ATOM)}·ln c ({out(e)}·ln {_rpow_base(e)})"),
    "ExpBackward0": (lambda e: f"exp({name(e, 0)})", lambda e, i: f"exp({name(e, 0)}) ({format_value(e.output)})"),
    "LogBackward0": (lambda e: f"ln {name(e, 0, ATOM)}", lambda e, i: f"1/{name(e, 0, ATOM)} (1/{num(e, 0)})"),
    "TanhBackward0": (lambda e: f"tanh({name(e, 0)})",
                      lambda e, i: f"(1 − tanh²({name(e, 0)})) (1 − {out(e)}²)"),
    "ReluBackward0": (lambda e: f"relu({name(e, 0)})", _relu_local),
    "SigmoidBackward0": (lambda e: f"σ({name(e, 0)})",
                         lambda e, i: f"σ·(1 − σ) ({out(e)}·(1 − {out(e)}))"),
    "SqrtBackward0": (lambda e: f"√{name(e, 0, ATOM)}",
                      lambda e, i: f"1/(2√{name(e, 0, ATOM)}) (1/(2·{out(e)}))"),
    "AbsBackward0": (lambda e: f"|{name(e, 0)}|", _abs_local),
    "SumBackward0": (_sum_forward, lambda e, i: "1" if len(e.inputs) > 1 else "1 (for every element)"),
    "DotBackward0": (_dot_forward, _dot_local),
    "ToCopyBackward0": (lambda e: f"{name(e, 0, ATOM)} cast",
                        lambda e, i: "1"),  # the walk's rounding is told after it (narrate.py)
    "ZeroBackward0": (lambda e: "0 (zero_)", lambda e, i: "0"),
}


def forward_formula(ev: TraceEvent) -> str:
    """``x[0]·w[0]``: how the op computed its output from its inputs' names."""
    entry = EXPLAIN.get(ev.node or "")
    if entry is not None and ev.inputs:
        return entry[0](ev)
    return f"{ev.op or ev.node}({', '.join(name(ev, i) for i in range(len(ev.inputs)))})"


def gradient_text(ev: TraceEvent, i: int) -> str:
    """``1.0 × w[0] (4.0) = 4.0``: how input ``i``'s gradient was computed at this step."""
    up, grad = format_value(ev.grad_output), ev.grad_inputs[i][1]
    if grad is None:
        return "no gradient (this input needs none)"
    entry = EXPLAIN.get(ev.node or "")
    if entry is not None and ev.inputs:
        return f"{up} × {entry[1](ev, i)} = {format_value(grad)}"
    which = "" if len(ev.grad_inputs) == 1 else f"[{i}]"
    return f"grad_input{which} = {ev.op or ev.node}.backward(ctx, {up}){which} = {format_value(grad)}"


# NOTE [Rounded in the node's own arithmetic]
# A node of a float16 or bfloat16 Tensor computes its gradients in that dtype, so a product may come
# out rounded. The narration says so only where it happened: when the local derivative is a number
# or an input's value, the float64 product of the numbers shown is compared with the result, and a
# difference is told with the exact value; a product that came out exact gets no remark.
ONE = {"ToCopyBackward0": 1.0, "SumBackward0": 1.0, "NegBackward0": -1.0, "RsubBackward1": -1.0}


def exact_product(ev: TraceEvent, i: int) -> Any | None:
    """``upstream × ∂output/∂input i`` in float64, from the numbers the event holds; None where the
    local derivative is neither a constant nor one input's value (NOTE [Rounded in the node's own
    arithmetic])."""
    import numpy as np  # only a low-precision Tensor's node comes here

    factor: Any = ONE.get(ev.node or "")
    if factor is None and ev.node == "MulBackward0" and len(ev.inputs) == 2:
        factor = ev.inputs[1 - i][1]
    elif factor is None and ev.node == "DotBackward0" and i < 2 * (len(ev.inputs) // 2):
        n = len(ev.inputs) // 2
        factor = ev.inputs[i + n if i < n else i - n][1]
    if factor is None or ev.grad_output is None:
        return None
    try:
        exact = np.asarray(ev.grad_output, np.float64) * np.asarray(factor, np.float64)
    except (TypeError, ValueError):
        return None
    return exact if exact.shape == np.shape(ev.grad_inputs[i][1]) else None
