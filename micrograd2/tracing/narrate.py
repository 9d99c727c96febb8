"""Narration: a trace's events written as a lesson a student can follow, step by step.

``narrate(events, passes)`` returns the text; ``narration_lines`` the same as
``Line`` records tagged with their step (the step-through page uses them).
For every backward step it shows the node, the Value it made with its forward
formula and number, the upstream gradient, and for each input ``upstream ×
local derivative = gradient`` (``formulas.EXPLAIN``, one entry per op).  A hook
that changed a gradient is told before the step that receives it.

While a tracer is active, ``LiveNarration`` writes the same lines as the
backward runs on the standard ``logging`` logger ``micrograd2.trace``: at INFO
one line per pass, per visit, per ``.grad`` write and per hook; at DEBUG also
each input's gradient, forward ops, saved values and frees.  So
``logging.basicConfig(level=logging.INFO)`` shows a training step's walk live.

Verbosity: ``summary`` (one line per backward pass), ``steps`` (every step,
accumulation and hook of a short pass; of a long one, its first and last few:
NOTE [Long passes]), ``full`` (every step, also forward ops, saved values and frees).
Colours are ANSI, used on a terminal unless ``NO_COLOR`` is set.
"""
from __future__ import annotations

import logging
import os
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from .formulas import ATOM, EXPLAIN, MAX_LISTED, exact_product, forward_formula, gradient_text, number, operand
from .records import Pass, TraceEvent
from .values import format_value

__all__ = ["EXPLAIN", "VERBOSITIES", "Line", "LiveNarration", "forward_formula", "gradient_text", "logger",
           "narrate", "narration_lines", "use_color"]

VERBOSITIES = ("summary", "steps", "full")
logger = logging.getLogger("micrograd2.trace")
INFO, DEBUG = logging.INFO, logging.DEBUG
INDENT = " " * 8
UNIFORM = {"SumBackward0", "AddBackward0"}  # every input gets upstream × 1

# NOTE [Long passes]
# A student reads a pass of 20 steps line by line; nobody reads 513.  At ``steps`` verbosity a pass
# of more than LONG_PASS steps is narrated by its first HEAD and last TAIL steps (where the walk
# starts and where the gradients land in the leaves), one line for what is left out, its summary
# (every .grad it wrote), and one line saying how to read all of it.  ``full`` narrates every step.
LONG_PASS, HEAD, TAIL = 30, 3, 2

_ANSI = {"head": "1", "step": "1", "node": "36", "grad": "33", "acc": "35", "hook": "34", "dim": "2",
         "value": "32", "warn": "31"}


@dataclass(frozen=True)
class Line:
    """One line of narration: ``parts`` are ``(text, role)`` pieces, ``step`` its backward step,
    ``level`` the logging level it is logged at (INFO: passes, visits, writes, hooks; DEBUG: details)."""

    parts: tuple[tuple[str, str], ...]
    step: int | None = None
    pass_no: int | None = None
    level: int = INFO

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


# -- the narrator ----------------------------------------------------------------------------------
class _Narrator:
    """Reads events one at a time (``add``), writing lines; a pass opens with a header and closes
    (``close``) with a summary."""

    def __init__(self, passes: Iterable[Pass], verbosity: str, shorten: bool = True) -> None:
        if verbosity not in VERBOSITIES:
            raise ValueError(
                f"verbosity must be one of {', '.join(VERBOSITIES)}, got {verbosity!r}\n"
                "What to do: use 'summary' (one line per pass), 'steps' (the default) or 'full'."
            )
        self.source = passes  # read again when a pass is not found: a live trace's list grows
        self.passes: dict[int, Pass] = {}
        self.full = verbosity == "full"
        self.steps = verbosity != "summary"
        self.lines: list[Line] = []
        self.open: Pass | None = None
        self.pass_steps = 0
        self.grads: dict[str, Any] = {}
        self.writes: dict[int | None, int] = {}  # .grad writes narrated per step of the open pass
        self.shorten = shorten and self.steps and not self.full  # NOTE [Long passes]
        self.lengths: Counter[int | None] = Counter()  # steps per pass, when all events are known
        self.first_step: int | None = None  # the open pass's first step
        self.delivered: dict[tuple[str, int], list[Any]] = {}  # NOTE [A sum over consumers]
        self.hooked: dict[str, list[TraceEvent]] = {}  # hooks run on a node's gradient, not yet shown

    def emit(self, *parts: tuple[str, str], step: int | None = None, level: int = INFO) -> None:
        self.lines.append(Line(tuple(parts), step, self.open.pass_no if self.open else None, level))

    def run(self, events: Iterable[TraceEvent]) -> list[Line]:
        events = list(events)
        if self.shorten:
            self.lengths = Counter(ev.pass_no for ev in events if ev.kind == "backward")
        for ev in events:
            self.add(ev)
        self.close()
        return self.lines

    def add(self, ev: TraceEvent) -> None:
        if ev.kind == "forward":
            if self.open is not None and self.open.finished:
                self.close()
            if self.full:
                self.forward(ev)
            return
        if self.open is None or ev.pass_no != self.open.pass_no:
            self.close()
            self.start(ev.pass_no)
        if ev.kind == "backward":
            self.backward(ev)
        else:
            self.other(ev)

    # -- passes --
    def find(self, pass_no: int) -> Pass:
        if pass_no not in self.passes:
            self.passes = {p.pass_no: p for p in self.source}
        return self.passes.get(pass_no) or Pass(pass_no, (), (), (), ())

    def start(self, pass_no: int | None) -> None:
        p = self.find(pass_no or 0)
        self.open, self.pass_steps, self.grads, self.writes = p, 0, {}, {}
        self.first_step, self.delivered, self.hooked = None, {}, {}
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
        grads = [f"{_grad_of(label)} = {format_value(v)}" for label, v in self.grads.items()]
        if len(grads) > 2 * MAX_LISTED:
            grads = [*grads[:MAX_LISTED], f"… {len(grads) - MAX_LISTED - 1} more …", grads[-1]]
        what = f"{self.pass_steps} step{'s' if self.pass_steps != 1 else ''}"
        status = "done" if p.finished else "did not finish"
        tail = [("; " + ", ".join(grads), "grad")] if grads else []
        if self.steps:
            self.emit((f"pass {p.pass_no} {status}: {what}", "head"), *tail)
            if self._long():
                self.emit((f"(a long pass: --verbosity full narrates all {self.pass_steps} steps)", "dim"))
        else:
            self.emit(*self.header(p), (f": {what}", "head"),
                      *([] if p.finished else [(" (did not finish)", "warn")]), *tail)
        self.lines.append(Line((("", ""),), None, p.pass_no))
        self.open = None

    # -- events --
    def forward(self, ev: TraceEvent) -> None:
        note = f"   ({ev.node})" if ev.node_id else f"   (not recorded: {ev.why or 'no input requires grad'})"
        self.emit(("forward  ", "dim"), (f"{_value(ev)} = ", ""), (format_value(ev.output), "value"),
                  (note, "dim"), level=DEBUG)

    def _long(self) -> bool:
        return self.open is not None and self.lengths[self.open.pass_no] > LONG_PASS

    def hidden(self, step: int | None) -> bool:
        """Whether the lines of ``step`` are left out: a middle step of a long pass (NOTE [Long passes])."""
        if not self.shorten or step is None or self.first_step is None or not self._long():
            return False
        k = step - self.first_step + 1  # its place in the pass, from 1
        return HEAD < k <= self.lengths[self.open.pass_no if self.open else None] - TAIL

    def shown_step(self, step: int) -> int:
        """``step`` as the text numbers it: from 1 in each pass (an event's ``step`` counts on across
        passes, as API.md says)."""
        return step - (self.first_step if self.first_step is not None else step) + 1

    def backward(self, ev: TraceEvent) -> None:
        step = ev.step or 0
        self.pass_steps += 1
        if self.first_step is None:
            self.first_step = step
        received = self.received(ev.node_id)
        hooks = self.hooked.pop(ev.node_id or "", [])
        self.deliver(ev)
        if not self.steps:
            return
        if self.hidden(step):
            if self.pass_steps == HEAD + 1:
                left = self.lengths[ev.pass_no] - HEAD - TAIL
                k = self.shown_step(step)
                self.emit((f"… {left} more steps (steps {k}–{k + left - 1}) …", "dim"), step=step)
            return
        what = ev.label if ev.output is None else f"{_value(ev)} = {format_value(ev.output)}"
        self.emit((f"step {self.shown_step(step):<3}", "step"), (f" {ev.node:<16}", "node"),
                  (f" {what}   upstream ", ""), (format_value(ev.grad_output), "grad"),
                  *_sum_of(received, ev.grad_output, hooks), step=step)
        self.gradients(ev)
        if self.full and ev.saved:
            self.emit((INDENT + "saved: " + _pairs(ev.saved), "dim"), step=step, level=DEBUG)

    # NOTE [A sum over consumers]
    # A node whose output feeds several ops receives one gradient along each edge, and the engine
    # adds them before the visit.  The narrator keeps what each visit sends along each edge, by the
    # node it goes to, so a visit (or a leaf's .grad write) fed by several edges shows its upstream
    # gradient as that sum, in delivery order: ``upstream -11.0 = 1.0 + 2.46e-05 + (-6.0) + (-6.0)``.
    # A gradient the walk rounded on its way (NOTE [Rounded on the way] in nodes.py) is delivered as
    # rounded: what the next step's sum shows is what the line before printed.
    def deliver(self, ev: TraceEvent) -> None:
        rounded = {i: grad for i, _, grad in ev.rounded}
        nrs = ev.input_nrs or (0,) * len(ev.input_ids)
        for i, ((_, grad), target, nr) in enumerate(zip(ev.grad_inputs, ev.input_ids, nrs)):
            if target is not None and grad is not None:
                self.delivered.setdefault((target, nr), []).append(rounded.get(i, grad))

    def received(self, node_id: str | None) -> list[Any]:
        """The gradients delivered to output 0 of ``node_id`` in this pass (none for a root, whose seed
        comes first, or a node of several outputs)."""
        if node_id is None or (self.open is not None and node_id in self.open.root_ids):
            return []
        if any(key[0] == node_id and key[1] != 0 for key in self.delivered):
            return []
        return self.delivered.pop((node_id, 0), [])

    def gradients(self, ev: TraceEvent) -> None:
        grads = ev.grad_inputs
        step = ev.step
        same = len(grads) > 3 and len({format_value(g) for _, g in grads}) == 1
        if same and ev.node in UNIFORM and ev.inputs:
            self.emit((INDENT + f"→ each of its {len(grads)} inputs: ", ""),
                      (gradient_text(ev, 0), "grad"), step=step, level=DEBUG)
            return
        shown: list[int] = list(range(len(grads)))
        if len(grads) > MAX_LISTED:
            shown = [*range(MAX_LISTED - 1), len(grads) - 1]
        for i in shown:
            if i == len(grads) - 1 and len(grads) > MAX_LISTED:
                left = len(grads) - MAX_LISTED
                self.emit((INDENT + f"→ … {left} more input{'s' if left != 1 else ''} …", "dim"), step=step,
                          level=DEBUG)
            dropped = grads[i][1] is not None and i < len(ev.input_ids) and ev.input_ids[i] is None
            self.emit((INDENT + f"→ {grads[i][0]}: ", ""), (gradient_text(ev, i), "grad"),
                      *_rounding(ev, i),
                      *([("   (needs no gradient: dropped)", "dim")] if dropped else []), step=step, level=DEBUG)

    def other(self, ev: TraceEvent) -> None:
        if ev.kind == "accumulate":
            self.grads[ev.label or "?"] = ev.new
        if self.hidden(ev.step):
            return
        if ev.kind == "accumulate":
            self.writes[ev.step] = shown = self.writes.get(ev.step, 0) + 1
            if shown == 2 * MAX_LISTED + 1 and self.steps:
                self.emit((INDENT + "… (more .grad writes at this step: see the pass's summary)", "dim"),
                          step=ev.step)
            if self.steps and shown <= 2 * MAX_LISTED:
                who = "AccumulateGrad" if ev.leaf else "retain_grad   "
                received = self.received(ev.node_id) if ev.leaf else []
                hooks = self.hooked.pop(ev.node_id or "", []) if ev.leaf else []
                total = ev.new if ev.old is None else None  # the sum itself, when .grad had none
                self.emit((INDENT + who, "acc"), (f"  {_grad_of(ev.label)}: {format_value(ev.old)} → ", ""),
                          (format_value(ev.new), "grad"), *_sum_of(received, total, hooks, "received "),
                          step=ev.step)
        elif ev.kind == "hook" and self.steps:
            self.hooked.setdefault(ev.node_id or "", []).append(ev)
            self.emit((INDENT + f"hook {ev.hook}", "hook"),
                      (f" on {ev.label}'s gradient: {format_value(ev.before)} → ", ""),
                      (format_value(ev.after), "grad"), step=ev.step)
        elif ev.kind == "free" and self.full:
            self.emit((INDENT + f"freed what {ev.node_id} saved: {_pairs(ev.saved) or 'nothing'}", "dim"),
                      step=ev.step, level=DEBUG)


# NOTE [A sum that is not exact]
# The sum a node received is true arithmetic only when it is: the engine adds in the node's dtype
# (a float16 sum is rounded), and a hook may change the sum before the node runs.  So a sum shown
# after ``=`` is exact; a rounded one is shown after ``≈``; and when hooks ran, the sum comes
# first and then what the hooks made of it: ``upstream 4.0   (1.0 + 1.0 = 2.0, then hooks: 4.0)``.
def _sum_of(received: list[Any], upstream: Any, hooks: list[TraceEvent] | None = None,
            what: str = "") -> list[tuple[str, str]]:
    """`` = 1.0 + (-6.0)``: the gradients a visit received along several edges (NOTE [A sum over
    consumers], NOTE [A sum that is not exact]); nothing for one edge and no hook."""
    if len(received) < 2:  # one edge: the hook's line already told what it did to that gradient
        return []
    terms = " + ".join(number(g) for g in received)
    if hooks:
        total = hooks[0].before
        summed = f"{terms} {'=' if _exact(received, total) else '≈'} {format_value(total)}"
        changed = "the hook" if len(hooks) == 1 else f"{len(hooks)} hooks"
        return [(f"   ({what}{summed}, then {changed}: {format_value(hooks[-1].after)})", "dim")]
    if what:  # a .grad write: its new value is the sum when it had none before
        rounded = upstream is not None and not _exact(received, upstream)
        return [(f"   ({what}{terms}{', summed in its dtype' if rounded else ''})", "dim")]
    sign = "=" if _exact(received, upstream) else "≈"
    return [(f" {sign} {terms}", "")]


def _exact(terms: list[Any], total: Any) -> bool:
    """Whether ``total`` is the exact sum of ``terms`` (floats, or small arrays); True when it can't
    be told (summaries of large arrays)."""
    try:
        exact = sum(terms[1:], terms[0] * 1.0)
        if isinstance(exact, float) and isinstance(total, float):
            return exact == total or (exact != exact and total != total)
        if hasattr(exact, "shape") and hasattr(total, "shape") and callable(getattr(total, "all", None)):
            return bool(exact.shape == total.shape and ((exact == total) | ((exact != exact) & (total != total))).all())
    except (TypeError, ValueError, AttributeError, IndexError):
        pass
    return True


def _computed_in(ev: TraceEvent, i: int, dtype: str) -> list[tuple[str, str]]:
    """What the node's own ``dtype`` arithmetic did to input ``i``'s gradient: rounded it (from the
    exact product), nothing (an exact product), or ``computed in`` where the product is not shown."""
    import numpy as np  # a low-precision gradient is an array's

    exact = exact_product(ev, i)
    if exact is None:
        return [(f"   (computed in {dtype})", "dim")]
    if np.array_equal(exact, np.asarray(ev.grad_inputs[i][1], np.float64), equal_nan=True):
        return []
    shown = format_value(exact.item() if exact.ndim == 0 else exact.tolist())
    return [(f"   (computed in {dtype}: rounded from {shown})", "dim")]


def _rounding(ev: TraceEvent, i: int) -> list[tuple[str, str]]:
    """``, rounded to float16: 0.0``: what the walk made of input ``i``'s gradient on its way
    (NOTE [Rounded on the way] in nodes.py), with all its digits when six would hide the change;
    ``(computed in float16: rounded from 19656.0)`` when the node's own arithmetic rounded it."""
    dtype = ev.computed_in[i] if i < len(ev.computed_in) else None
    if dtype:  # the node's own arithmetic: NOTE [Rounded in the node's own arithmetic]
        return _computed_in(ev, i, dtype)
    for j, dtype, grad in ev.rounded:
        if j == i:
            shown = format_value(grad)
            if shown == format_value(ev.grad_inputs[i][1]):
                shown = format_value(grad, 17)
            return [(f", rounded to {dtype}: ", ""), (shown, "grad")]
    return []


def _grad_of(label: str | None) -> str:
    """``x.grad``, ``(leaf#1·2.0).grad``: a Value's ``.grad`` as a student would write it."""
    return f"{operand(label or '?', ATOM)}.grad"


def _value(ev: TraceEvent) -> str:
    """``z = x·w + b`` (a label or a counter, and the formula), or ``x·w`` alone when that is its name."""
    if not ev.inputs:
        return ev.label or "?"
    formula = forward_formula(ev)
    return formula if ev.label == formula else f"{ev.label} = {formula}"


def _pairs(items: Iterable[tuple[str | None, Any]]) -> str:
    return ", ".join(format_value(v) if name is None else f"{name} = {format_value(v)}" for name, v in items)


def narration_lines(events: Iterable[TraceEvent], passes: Iterable[Pass], verbosity: str = "steps",
                    shorten: bool = True) -> list[Line]:
    """The narration as ``Line`` records (each tagged with its step and pass); ``shorten=False``
    narrates every step of a long pass too (NOTE [Long passes]), as the step-through page needs."""
    lines = _Narrator(list(passes), verbosity, shorten).run(events)
    while lines and not lines[-1].plain:
        lines.pop()
    return lines


def narrate(events: Iterable[TraceEvent], passes: Iterable[Pass], verbosity: str = "steps",
            color: bool | None = None, dropped: int = 0) -> str:
    """The events as lesson text (the lines are logged as they happen, by ``LiveNarration``, not here)."""
    lines = narration_lines(events, passes, verbosity)
    if dropped:
        lines.append(Line(((f"({dropped} more events were not recorded: the trace was full)", "warn"),)))
    paint = use_color(color)
    return "\n".join(line.render(paint) for line in lines)


class LiveNarration:
    """Narrates a tracer's events as they happen, logging each line on ``micrograd2.trace``.

    The tracer calls ``add(event)`` for each event while the logger is enabled for
    INFO (or DEBUG), and ``end_pass(pass_no)`` when a backward pass ends.
    """

    def __init__(self, passes: list[Pass]) -> None:
        self.narrator = _Narrator(passes, "full")

    def add(self, ev: TraceEvent) -> None:
        self.narrator.add(ev)
        self._flush()

    def end_pass(self, pass_no: int) -> None:
        if self.narrator.open is not None and self.narrator.open.pass_no == pass_no:
            self.narrator.close()
            self._flush()

    def _flush(self) -> None:
        lines = self.narrator.lines
        for line in lines:
            if line.plain:
                logger.log(line.level, line.plain)
        lines.clear()
