"""Narration: a trace's events written as a lesson a student can follow, step by step.

``narrate(events, passes)`` returns the text; ``narration_lines`` the same as
``Line`` records tagged with their step (the step-through page uses them).
For every backward step it shows the node, its forward formula with numbers,
the upstream gradient, and for each input ``upstream × local derivative =
gradient`` — the local derivative taken from ``EXPLAIN``, one entry per op;
a custom Function is explained as ``grad_input = MyFn.backward(ctx, upstream)``.

Verbosity: ``summary`` (one line per backward pass), ``steps`` (every step,
accumulation and hook), ``full`` (also forward ops, saved values and frees).
Colours are ANSI, used on a terminal unless ``NO_COLOR`` is set.
"""
from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from .records import Pass, TraceEvent
from .values import format_value

VERBOSITIES = ("summary", "steps", "full")
logger = logging.getLogger("micrograd2.trace")
INDENT = " " * 8
MAX_LISTED = 6  # inputs listed one by one; more are elided
UNIFORM = {"SumBackward0", "AddBackward0"}  # every input gets upstream × 1

_ANSI = {"head": "1", "step": "1", "node": "36", "grad": "33", "acc": "35", "hook": "34", "dim": "2",
         "value": "32", "warn": "31"}


@dataclass(frozen=True)
class Line:
    """One line of narration: ``parts`` are ``(text, role)`` pieces, ``step`` its backward step."""

    parts: tuple[tuple[str, str], ...]
    step: int | None = None
    pass_no: int | None = None

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.parts)

    def render(self, color: bool) -> str:
        if not color:
            return self.plain
        return "".join(f"\x1b[{_ANSI[role]}m{text}\x1b[0m" if role in _ANSI else text for text, role in self.parts)


def use_color(color: bool | None, stream: Any = None) -> bool:
    """``color`` if given; otherwise colour only on a terminal and when ``NO_COLOR`` is unset."""
    if color is not None:
        return color
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream if stream is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# -- the table: how each op's forward and local derivative read, with numbers -----------------------
def _name(ev: TraceEvent, i: int) -> str:
    return ev.inputs[i][0] if i < len(ev.inputs) else f"input {i}"


def _num(ev: TraceEvent, i: int) -> str:
    return format_value(ev.inputs[i][1]) if i < len(ev.inputs) else "?"


def _saved(ev: TraceEvent, j: int) -> Any:
    return ev.saved[j][1] if j < len(ev.saved) else None


def _out(ev: TraceEvent) -> str:
    return format_value(ev.output)


def _terms(names: Sequence[str], sep: str) -> str:
    if len(names) > MAX_LISTED:
        return sep.join([*names[:2], "…", names[-1]]) + f" ({len(names)} terms)"
    return sep.join(names)


def _minus_one(p: Any) -> str:
    return format_value(p - 1) if isinstance(p, (int, float)) else f"{format_value(p)} − 1"


def _exponent(ev: TraceEvent) -> str:
    p = _saved(ev, 1)
    return "p" if p is None else format_value(p)


def _pow_local(ev: TraceEvent, i: int) -> str:
    p = _saved(ev, 1)
    if p is None:
        return f"p·{_name(ev, 0)}^(p−1)"
    return f"{format_value(p)}·{_name(ev, 0)}^{_minus_one(p)} ({format_value(p)}·{_num(ev, 0)}^{_minus_one(p)})"


def _pow1_local(ev: TraceEvent, i: int) -> str:
    a, b = _name(ev, 0), _name(ev, 1)
    if i == 0:
        return f"{b}·{a}^({b}−1) ({_num(ev, 1)}·{_num(ev, 0)}^({_num(ev, 1)}−1))"
    return f"{a}^{b}·ln {a} ({_out(ev)}·ln {_num(ev, 0)})"


def _relu_local(ev: TraceEvent, i: int) -> str:
    out = ev.output
    if isinstance(out, (int, float)):
        return f"1 (since {_name(ev, 0)} > 0)" if out > 0 else f"0 (since {_name(ev, 0)} ≤ 0)"
    return f"(1 where {_name(ev, 0)} > 0, else 0)"


def _abs_local(ev: TraceEvent, i: int) -> str:
    x = ev.inputs[0][1] if ev.inputs else None
    sign = "" if not isinstance(x, (int, float)) else f" ({format_value((x > 0) - (x < 0))})"
    return f"sign({_name(ev, 0)}){sign}"


def _sum_forward(ev: TraceEvent) -> str:
    if len(ev.inputs) == 1:  # a Tensor's .sum(): all its elements
        return f"sum({_name(ev, 0)})"
    return _terms([n for n, _ in ev.inputs], " + ")


def _dot_forward(ev: TraceEvent) -> str:
    n = len(ev.inputs) // 2
    terms = [f"{_name(ev, i)}·{_name(ev, n + i)}" for i in range(n)]
    if len(ev.inputs) % 2:
        terms.append(_name(ev, 2 * n))
    return _terms(terms, " + ")


def _dot_local(ev: TraceEvent, i: int) -> str:
    n = len(ev.inputs) // 2
    if i >= 2 * n:
        return "1"
    j = i + n if i < n else i - n  # ∂/∂wᵢ = xᵢ, ∂/∂xᵢ = wᵢ
    return f"{_name(ev, j)} ({_num(ev, j)})"


def _mul_local(ev: TraceEvent, i: int) -> str:
    return f"{_name(ev, 1 - i)} ({_num(ev, 1 - i)})"


def _div_local(ev: TraceEvent, i: int) -> str:
    a, b = _name(ev, 0), _name(ev, 1)
    if i == 0:
        return f"1/{b} (1/{_num(ev, 1)})"
    return f"−{a}/{b}² (−{_num(ev, 0)}/{_num(ev, 1)}²)"


Explain = tuple[Callable[[TraceEvent], str], Callable[[TraceEvent, int], str]]

EXPLAIN: dict[str, Explain] = {
    # node name: (forward formula, local derivative ∂output/∂input i — with the numbers used)
    "AddBackward0": (lambda e: f"{_name(e, 0)} + {_name(e, 1)}", lambda e, i: "1"),
    "SubBackward0": (lambda e: f"{_name(e, 0)} − {_name(e, 1)}", lambda e, i: "1" if i == 0 else "(−1)"),
    "RsubBackward1": (lambda e: f"c − {_name(e, 0)}", lambda e, i: "(−1)"),
    "NegBackward0": (lambda e: f"−{_name(e, 0)}", lambda e, i: "(−1)"),
    "MulBackward0": (lambda e: f"{_name(e, 0)}·{_name(e, 1)}", _mul_local),
    "DivBackward0": (lambda e: f"{_name(e, 0)} / {_name(e, 1)}", _div_local),
    "PowBackward0": (lambda e: f"{_name(e, 0)}^{_exponent(e)}", _pow_local),
    "PowBackward1": (lambda e: f"{_name(e, 0)}^{_name(e, 1)}", _pow1_local),
    "PowBackward2": (lambda e: f"{format_value(_saved(e, 1))}^{_name(e, 0)}",
                     lambda e, i: f"c^{_name(e, 0)}·ln c ({_out(e)}·ln {format_value(_saved(e, 1))})"),
    "ExpBackward0": (lambda e: f"exp({_name(e, 0)})", lambda e, i: f"exp({_name(e, 0)}) ({_out(e)})"),
    "LogBackward0": (lambda e: f"ln {_name(e, 0)}", lambda e, i: f"1/{_name(e, 0)} (1/{_num(e, 0)})"),
    "TanhBackward0": (lambda e: f"tanh({_name(e, 0)})",
                      lambda e, i: f"1 − tanh²({_name(e, 0)}) (1 − {_out(e)}²)"),
    "ReluBackward0": (lambda e: f"relu({_name(e, 0)})", _relu_local),
    "SigmoidBackward0": (lambda e: f"σ({_name(e, 0)})",
                         lambda e, i: f"σ·(1 − σ) ({_out(e)}·(1 − {_out(e)}))"),
    "SqrtBackward0": (lambda e: f"√{_name(e, 0)}", lambda e, i: f"1/(2√{_name(e, 0)}) (1/(2·{_out(e)}))"),
    "AbsBackward0": (lambda e: f"|{_name(e, 0)}|", _abs_local),
    "SumBackward0": (_sum_forward, lambda e, i: "1" if len(e.inputs) > 1 else "1 (for every element)"),
    "DotBackward0": (_dot_forward, _dot_local),
    "ToCopyBackward0": (lambda e: f"{_name(e, 0)} cast", lambda e, i: f"1 (rounded to {_name(e, 0)}'s dtype)"),
    "ZeroBackward0": (lambda e: "0 (zero_)", lambda e, i: "0"),
}


def forward_formula(ev: TraceEvent) -> str:
    """``x[0]·w[0]``: how the op computed its output from its inputs' names."""
    entry = EXPLAIN.get(ev.node or "")
    if entry is not None and ev.inputs:
        return entry[0](ev)
    return f"{ev.op or ev.node}({', '.join(n for n, _ in ev.inputs)})"


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


# -- the narrator ----------------------------------------------------------------------------------
class _Narrator:
    """Walks the events once, writing lines; a pass opens with a header and closes with a summary."""

    def __init__(self, passes: Iterable[Pass], verbosity: str) -> None:
        if verbosity not in VERBOSITIES:
            raise ValueError(
                f"verbosity must be one of {', '.join(VERBOSITIES)}, got {verbosity!r}\n"
                "What to do: use 'summary' (one line per pass), 'steps' (the default) or 'full'."
            )
        self.passes = {p.pass_no: p for p in passes}
        self.full = verbosity == "full"
        self.steps = verbosity != "summary"
        self.lines: list[Line] = []
        self.open: Pass | None = None
        self.pass_steps = 0
        self.grads: dict[str, Any] = {}
        self.last_step = 0
        self.deferred: dict[int, list[TraceEvent]] = {}
        self.writes: dict[int | None, int] = {}  # .grad writes narrated per step

    def emit(self, *parts: tuple[str, str], step: int | None = None) -> None:
        self.lines.append(Line(tuple(parts), step, self.open.pass_no if self.open else None))

    def run(self, events: Iterable[TraceEvent]) -> list[Line]:
        for ev in events:
            if ev.kind == "forward":
                if self.open is not None and self.open.finished:
                    self.close()
                if self.full:
                    self.forward(ev)
                continue
            if self.open is None or ev.pass_no != self.open.pass_no:
                self.close()
                self.start(ev.pass_no)
            if ev.kind == "backward":
                self.backward(ev)
            elif ev.step is not None and ev.step > self.last_step:
                self.deferred.setdefault(ev.step, []).append(ev)  # a hook that ran just before its visit
            else:
                self.other(ev)
        self.close()
        return self.lines

    # -- passes --
    def start(self, pass_no: int | None) -> None:
        p = self.passes.get(pass_no or 0) or Pass(pass_no or 0, (), (), (), ())
        self.open, self.pass_steps, self.grads = p, 0, {}
        if not self.steps:
            return
        self.emit(*self.header(p))

    def header(self, p: Pass) -> list[tuple[str, str]]:
        if not p.roots:
            return [(f"backward pass {p.pass_no}", "head"), (" (begun before the trace started)", "dim")]
        roots = ", ".join(f"{name} = {format_value(v)}" for name, v in p.roots)
        nodes = ", ".join(n or "a leaf" for n in p.root_nodes)
        seeds = ", ".join(format_value(s) for s in p.seeds)
        plural = "s" if len(p.seeds) > 1 else ""
        return [(f"backward pass {p.pass_no} from ", "head"), (roots, "value"), (f" ({nodes})", "node"),
                (f", seed gradient{plural} ", ""), (seeds, "grad")]

    def close(self) -> None:
        p = self.open
        if p is None:
            return
        for step in sorted(self.deferred):
            for ev in self.deferred[step]:
                self.other(ev)
        self.deferred.clear()
        grads = [f"{label}.grad = {format_value(v)}" for label, v in self.grads.items()]
        if len(grads) > 2 * MAX_LISTED:
            grads = [*grads[:MAX_LISTED], f"… {len(grads) - MAX_LISTED - 1} more …", grads[-1]]
        what = f"{self.pass_steps} step{'s' if self.pass_steps != 1 else ''}"
        status = "done" if p.finished else "did not finish"
        tail = [("; " + ", ".join(grads), "grad")] if grads else []
        if self.steps:
            self.emit((f"pass {p.pass_no} {status}: {what}", "head"), *tail)
        else:
            self.emit(*self.header(p), (f": {what}", "head"),
                      *([] if p.finished else [(" (did not finish)", "warn")]), *tail)
        self.lines.append(Line((("", ""),), None, p.pass_no))
        self.open = None

    # -- events --
    def forward(self, ev: TraceEvent) -> None:
        formula = forward_formula(ev)
        note = f"   ({ev.node})" if ev.node_id else "   (not recorded: no input requires grad)"
        self.emit(("forward  ", "dim"), (f"{ev.label} = {formula} = ", ""), (format_value(ev.output), "value"),
                  (note, "dim"))

    def backward(self, ev: TraceEvent) -> None:
        step = ev.step or 0
        self.last_step = step
        self.pass_steps += 1
        if self.steps:
            what = ev.label if ev.output is None else f"{ev.label} = {forward_formula(ev)} = {format_value(ev.output)}"
            self.emit((f"step {step:<3}", "step"), (f" {ev.node:<16}", "node"), (f" {what}   upstream ", ""),
                      (format_value(ev.grad_output), "grad"), step=step)
        for deferred in self.deferred.pop(step, ()):  # its hooks ran first, on the upstream gradient
            self.other(deferred)
        if self.steps:
            self.gradients(ev)
            if self.full and ev.saved:
                self.emit((INDENT + "saved: " + _pairs(ev.saved), "dim"), step=step)

    def gradients(self, ev: TraceEvent) -> None:
        grads = ev.grad_inputs
        step = ev.step
        same = len(grads) > 3 and len({format_value(g) for _, g in grads}) == 1
        if same and ev.node in UNIFORM and ev.inputs:
            self.emit((INDENT + f"→ each of its {len(grads)} inputs: ", ""),
                      (gradient_text(ev, 0), "grad"), step=step)
            return
        shown: list[int] = list(range(len(grads)))
        if len(grads) > MAX_LISTED:
            shown = [*range(MAX_LISTED - 1), len(grads) - 1]
        for i in shown:
            if i == len(grads) - 1 and len(grads) > MAX_LISTED:
                self.emit((INDENT + f"→ … {len(grads) - MAX_LISTED} more inputs …", "dim"), step=step)
            dropped = grads[i][1] is not None and i < len(ev.input_ids) and ev.input_ids[i] is None
            self.emit((INDENT + f"→ {grads[i][0]}: ", ""), (gradient_text(ev, i), "grad"),
                      *([("   (needs no gradient: dropped)", "dim")] if dropped else []), step=step)

    def other(self, ev: TraceEvent) -> None:
        if ev.kind == "accumulate":
            self.grads[ev.label or "?"] = ev.new
            self.writes[ev.step] = shown = self.writes.get(ev.step, 0) + 1
            if shown == 2 * MAX_LISTED + 1 and self.steps:
                self.emit((INDENT + "… (more .grad writes at this step: see the pass's summary)", "dim"),
                          step=ev.step)
            if self.steps and shown <= 2 * MAX_LISTED:
                who = "AccumulateGrad" if ev.leaf else "retain_grad   "
                self.emit((INDENT + who, "acc"), (f"  {ev.label}.grad: {format_value(ev.old)} → ", ""),
                          (format_value(ev.new), "grad"), step=ev.step)
        elif ev.kind == "hook" and self.steps:
            self.emit((INDENT + f"hook {ev.hook}", "hook"),
                      (f" on {ev.label}'s gradient: {format_value(ev.before)} → ", ""),
                      (format_value(ev.after), "grad"), step=ev.step)
        elif ev.kind == "free" and self.full:
            self.emit((INDENT + f"freed what {ev.node_id} saved: {_pairs(ev.saved) or 'nothing'}", "dim"),
                      step=ev.step)


def _pairs(items: Iterable[tuple[str | None, Any]]) -> str:
    return ", ".join(format_value(v) if name is None else f"{name} = {format_value(v)}" for name, v in items)


def narration_lines(events: Iterable[TraceEvent], passes: Iterable[Pass], verbosity: str = "steps") -> list[Line]:
    """The narration as ``Line`` records (each tagged with its step and pass)."""
    lines = _Narrator(passes, verbosity).run(events)
    while lines and not lines[-1].plain:
        lines.pop()
    return lines


def narrate(events: Iterable[TraceEvent], passes: Iterable[Pass], verbosity: str = "steps",
            color: bool | None = None, dropped: int = 0) -> str:
    """The events as lesson text; every line is also logged on ``micrograd2.trace`` at INFO."""
    lines = narration_lines(events, passes, verbosity)
    if dropped:
        lines.append(Line(((f"({dropped} more events were not recorded: the trace was full)", "warn"),)))
    paint = use_color(color)
    for line in lines:
        if line.plain:
            logger.info(line.plain)
    return "\n".join(line.render(paint) for line in lines)
