"""Tests for micrograd2.tracing.narrate: the lesson text of a trace, line by line, at each verbosity.

Block 2's narration is checked line for line; then the summary and full
verbosities, hooks, retain_grad and dropped gradients, elided inputs and
.grad writes, colours (terminal, pipe, NO_COLOR), live logging, and array
values.  How each op's formula and local derivative read is in test_formulas.py.
"""
from __future__ import annotations

import io
import logging

import numpy as np
import pytest
from conftest import block2_trace

import micrograd2 as mg
from micrograd2.tracing import Pass, TraceEvent
from micrograd2.tracing.narrate import narrate, narration_lines, use_color
from micrograd2.tracing.tracer import Tracer

BLOCK2_STEPS = """\
backward pass 1 from z = 23.0 (SumBackward0), seed gradient 1.0
step 1   SumBackward0     z = x[0]·w[0] + x[1]·w[1] = 23.0   upstream 1.0
        → x[0]·w[0]: 1.0 × 1 = 1.0
        → x[1]·w[1]: 1.0 × 1 = 1.0
step 2   MulBackward0     x[1]·w[1] = 15.0   upstream 1.0
        → x[1]: 1.0 × w[1] (5.0) = 5.0
        → w[1]: 1.0 × x[1] (3.0) = 3.0
        AccumulateGrad  x[1].grad: None → 5.0
        AccumulateGrad  w[1].grad: None → 3.0
step 3   MulBackward0     x[0]·w[0] = 8.0   upstream 1.0
        → x[0]: 1.0 × w[0] (4.0) = 4.0
        → w[0]: 1.0 × x[0] (2.0) = 2.0
        AccumulateGrad  x[0].grad: None → 4.0
        AccumulateGrad  w[0].grad: None → 2.0
pass 1 done: 3 steps; x[1].grad = 5.0, w[1].grad = 3.0, x[0].grad = 4.0, w[0].grad = 2.0"""


def test_block2_narration_line_by_line() -> None:
    assert block2_trace().narrate(color=False) == BLOCK2_STEPS


def test_summary_is_one_line_per_pass() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        w = mg.Value(3.0, requires_grad=True, label="w")
        for _ in range(3):
            mg.sum([x * w]).backward()
    lines = t.narrate("summary", color=False).splitlines()
    head = "backward pass {k} from sum(x·w) = 6.0 (SumBackward0), seed gradient 1.0: 2 steps; "
    assert [ln for ln in lines if ln] == [
        head.format(k=1) + "x.grad = 3.0, w.grad = 2.0",
        head.format(k=2) + "x.grad = 6.0, w.grad = 4.0",
        head.format(k=3) + "x.grad = 9.0, w.grad = 6.0",
    ]


def test_full_adds_forward_ops_saved_values_and_frees() -> None:
    text = block2_trace().narrate("full", color=False)
    lines = text.splitlines()
    assert lines[:3] == [
        "forward  x[0]·w[0] = 8.0   (MulBackward0)",
        "forward  x[1]·w[1] = 15.0   (MulBackward0)",
        "forward  x[0]·w[0] + x[1]·w[1] = 23.0   (SumBackward0)",  # z is labelled after the op
    ]
    assert "        freed what MulBackward0#2 saved: " in text
    assert any(ln.startswith("        saved: ") and "w[1] = 5.0" in ln and "x[1] = 3.0" in ln for ln in lines)
    assert set(BLOCK2_STEPS.splitlines()) <= set(lines)


def test_unknown_verbosity_is_refused() -> None:
    with pytest.raises(ValueError, match="verbosity must be one of summary, steps, full"):
        block2_trace().narrate("loud")


# -- hooks, dropped gradients, elisions ------------------------------------------------------------
def test_hooks_retain_grad_and_dropped_gradients_are_narrated() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        y = x - 1.0
        y.label = "y"
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        y.backward()
    lines = t.narrate(color=False).splitlines()
    assert lines[1:5] == [  # what the hook did comes before the step that receives its gradient
        "        hook <lambda> on y's gradient: 1.0 → 10.0",
        "        retain_grad     y.grad: None → 10.0",
        "step 1   SubBackward0     y = x − 1.0 = 1.0   upstream 10.0",
        "        → x: 10.0 × 1 = 10.0",
    ]
    assert lines[5] == "        → const: 10.0 × (−1) = -10.0   (needs no gradient: dropped)"


def test_many_inputs_are_elided() -> None:
    with mg.trace() as t:
        xs = [mg.Value(float(i), requires_grad=True, label=f"x{i}") for i in range(10)]
        mg.sum(xs).backward()
        mg.dot(xs, list(range(10))).backward()
        ys = [mg.Value(1.0, requires_grad=True, label=f"y{i}") for i in range(15)]
        mg.dot(ys, list(range(15))).backward()
    text = t.narrate(color=False)
    assert "= x0 + x1 + … + x9 (10 terms) = 45.0" in text
    assert "→ each of its 10 inputs: 1.0 × 1 = 1.0" in text
    assert "→ … 14 more inputs …" in text  # dot has 20 inputs: 10 weights, 10 numbers
    with mg.trace() as t:
        mg.dot(xs[:3], [1.0, 2.0, 3.0], 0.5).backward()  # 7 inputs: 5 shown, one left out, the last
    assert "→ … 1 more input …" in t.narrate(color=False)
    assert text.count("AccumulateGrad  x") == 20 and text.count("AccumulateGrad  y") == 12  # 15 writes: 12 shown
    assert "… (more .grad writes at this step: see the pass's summary)" in text


# -- colour and logging ------------------------------------------------------------------------------
class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_on_a_terminal_none_when_piped_or_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(None, _Tty()) and not use_color(None, io.StringIO())
    assert use_color(True, io.StringIO()) and not use_color(False, _Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(None, _Tty())
    t = block2_trace()
    assert "\x1b[" in t.narrate(color=True)
    assert "\x1b[" not in t.narrate(color=False)
    monkeypatch.setattr("sys.stdout", _Tty())
    assert "\x1b[" not in t.narrate()  # NO_COLOR wins on a terminal
    monkeypatch.delenv("NO_COLOR")
    assert "\x1b[" in t.narrate()


def test_narration_is_logged_live_as_the_backward_runs(caplog: pytest.LogCaptureFixture) -> None:
    """INFO: one line per pass, per visit and per .grad write, while the backward runs; DEBUG: the details."""
    seen_during_backward: list[int] = []
    with caplog.at_level(logging.INFO, logger="micrograd2.trace"):
        with mg.trace() as t:
            x = mg.Value(2.0, requires_grad=True, label="x[0]")
            w = mg.Value(4.0, requires_grad=True, label="w[0]")
            y = x * w
            y.register_hook(lambda g: seen_during_backward.append(len(caplog.records)))
            b = mg.Value(3.0, requires_grad=True, label="b")
            mg.sum([y, b * 5.0]).backward()
        assert seen_during_backward == [4]  # the pass, steps 1 and 2 and b.grad were logged already
    logged = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "micrograd2.trace"]
    assert logged == [
        (logging.INFO, "backward pass 1 from x[0]·w[0] + b·5.0 = 23.0 (SumBackward0), seed gradient 1.0"),
        (logging.INFO, "step 1   SumBackward0     x[0]·w[0] + b·5.0 = 23.0   upstream 1.0"),
        (logging.INFO, "step 2   MulBackward0     b·5.0 = 15.0   upstream 1.0"),
        (logging.INFO, "        AccumulateGrad  b.grad: None → 5.0"),
        (logging.INFO, "        hook <lambda> on x[0]·w[0]'s gradient: 1.0 → 1.0"),
        (logging.INFO, "step 3   MulBackward0     x[0]·w[0] = 8.0   upstream 1.0"),
        (logging.INFO, "        AccumulateGrad  x[0].grad: None → 4.0"),
        (logging.INFO, "        AccumulateGrad  w[0].grad: None → 2.0"),
        (logging.INFO, "pass 1 done: 3 steps; b.grad = 5.0, x[0].grad = 4.0, w[0].grad = 2.0"),
    ]
    caplog.clear()
    t.narrate()
    assert caplog.records == []  # narrate() returns the text; the lines were logged as they happened


def test_debug_logging_adds_gradients_and_nested_tracers_log_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="micrograd2.trace"):
        with mg.trace(), mg.trace():
            x = mg.Value(3.0, requires_grad=True, label="x")
            (x * 2.0).backward()
    logged = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert logged[0] == (logging.DEBUG, "forward  x·2.0 = 6.0   (MulBackward0)")
    assert (logging.DEBUG, "        → x: 1.0 × 2.0 = 2.0") in logged
    assert len([m for _, m in logged if m.startswith("step 1")]) == 1


def test_no_logging_without_a_tracer_or_below_info(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="micrograd2.trace"):
        x = mg.Value(3.0, requires_grad=True)
        (x * 2.0).backward()
    with caplog.at_level(logging.WARNING, logger="micrograd2.trace"):
        with mg.trace():
            (x * 2.0).backward()
    assert caplog.records == []


def test_lines_are_tagged_with_their_step() -> None:
    t = block2_trace()
    lines = narration_lines(t.events, t.passes)
    assert [ln.step for ln in lines] == [None, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, None]
    assert {ln.pass_no for ln in lines} == {1}


# -- arrays (the vectorized engine's events) ----------------------------------------------------------
def test_array_values_are_narrated_small_as_lists_large_as_summaries() -> None:
    x, w = np.array([2.0, 3.0]), np.array([4.0, 5.0])
    big = np.ones((100, 10), dtype=np.float32)
    events = [
        TraceEvent("backward", step=1, pass_no=1, node="MulBackward0", node_id="MulBackward0#1", label="y",
                   op="Mul", output=x * w, inputs=(("x", x), ("w", w)), input_ids=("AccumulateGrad#1", None),
                   grad_output=np.ones(2), grad_inputs=(("x", w), ("w", None))),
        TraceEvent("accumulate", step=1, pass_no=1, node="AccumulateGrad", node_id="AccumulateGrad#1", label="x",
                   old=None, new=w, leaf=True),
        TraceEvent("backward", step=2, pass_no=1, node="TanhBackward0", node_id="TanhBackward0#1", label="h",
                   op="Tanh", output=big, inputs=(("a", big),), input_ids=(None,), grad_output=big,
                   grad_inputs=(("a", big),)),
    ]
    passes = [Pass(1, (("y", 23.0),), ("SumBackward0",), ("SumBackward0#1",), (1.0,), True)]
    text = narrate(events, passes, color=False)
    assert "→ x: [1.0, 1.0] × w ([4.0, 5.0]) = [4.0, 5.0]" in text
    assert "AccumulateGrad  x.grad: None → [4.0, 5.0]" in text
    assert "<100×10 float32 in [1.0, 1.0]>" in text


def _long_pass(n: int) -> Tracer:
    """A trace of one backward pass of ``n`` steps: a chain of ``n`` multiplications on one leaf."""
    with mg.trace() as t:
        x = mg.Value(1.0, requires_grad=True, label="x")
        y = x
        for _ in range(n):
            y = y * 1.0
        y.backward()
    return t


def test_a_long_pass_shows_its_first_and_last_steps_its_summary_and_how_to_see_all() -> None:
    from micrograd2.tracing.narrate import HEAD, TAIL

    t = _long_pass(40)
    text = t.narrate("steps")
    steps = [line.split()[1] for line in text.splitlines() if line.startswith("step ")]
    assert steps == [str(k) for k in [*range(1, HEAD + 1), *range(41 - TAIL, 41)]]
    assert f"… {40 - HEAD - TAIL} more steps (steps {HEAD + 1}–{40 - TAIL}) …" in text
    assert "AccumulateGrad  x.grad: None → 1.0" in text  # the last step, where the leaf gets its .grad
    assert text.splitlines()[-2:] == ["pass 1 done: 40 steps; x.grad = 1.0",
                                      "(a long pass: --verbosity full narrates all 40 steps)"]


def test_a_short_pass_and_full_verbosity_and_the_step_through_page_narrate_every_step() -> None:
    from micrograd2.tracing.narrate import LONG_PASS

    short = _long_pass(LONG_PASS)
    assert sum(line.startswith("step ") for line in short.narrate("steps").splitlines()) == LONG_PASS
    t = _long_pass(40)
    assert sum(line.startswith("step ") for line in t.narrate("full").splitlines()) == 40
    lines = narration_lines(t.events, t.passes, "steps", shorten=False)
    assert len({ln.step for ln in lines if ln.plain.startswith("step ")}) == 40


def test_an_upstream_fed_by_several_edges_is_shown_as_their_sum_in_delivery_order() -> None:
    a = mg.Value(2.0, requires_grad=True, label="a")
    b = a * -3.0
    c = b * b + b.tanh() + b
    with mg.trace() as t:
        c.backward()
        (a * a).backward()
    text = t.narrate(color=False)
    step5 = next(line for line in text.splitlines() if line.startswith("step 5"))
    assert step5.endswith("upstream -11.0 = 1.0 + 2.45765e-05 + (-6.0) + (-6.0)")
    assert "AccumulateGrad  a.grad: 32.9999 → 36.9999   (received 2.0 + 2.0)" in text
    assert "upstream 1.0 =" not in text  # a root's seed, and an upstream from one edge, are not sums


def test_a_node_of_several_outputs_shows_no_sum() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    first, second = x.unbind(0)
    with mg.trace() as t:
        (first * second + first).backward()
    line = next(line for line in t.narrate(color=False).splitlines() if "UnbindBackward0" in line)
    assert " = " not in line.split("upstream")[1]


# -- the narration tells the truth (issue 34, item 6) ------------------------------------------------
def test_a_hook_that_changes_a_sum_is_shown_after_the_sum() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        y = x * 3
        y.label = "y"
        y.register_hook(lambda g: g * 2)
        (y + y).backward()
    text = t.narrate(color=False)
    assert "upstream 4.0   (1.0 + 1.0 = 2.0, then the hook: 4.0)" in text
    assert "= 1.0 + 1.0" not in text  # 4.0 = 1.0 + 1.0 is false arithmetic
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        x.register_hook(lambda g: g * 2)
        (x * 3 + x * 3).backward()
    assert "x.grad: None → 12.0   (received 3.0 + 3.0 = 6.0, then the hook: 12.0)" in t.narrate(color=False)


def test_a_gradient_rounded_on_its_way_is_printed_rounded() -> None:
    """The next step never shows an upstream that the line before did not print."""
    with mg.trace() as t:
        w = mg.Value(0.5, requires_grad=True, dtype="float32", label="w")
        h = w.to("float16")
        h.label = "h"
        (h * 1e-8).backward()
    lines = t.narrate(color=False).splitlines()
    assert "        → h: 1.0 × 1e-08 = 1e-08, rounded to float16: 0.0" in lines
    assert lines[lines.index("        → h: 1.0 × 1e-08 = 1e-08, rounded to float16: 0.0") + 2].endswith(
        "upstream 0.0")
    with mg.trace() as t:  # a change six digits would hide is shown with all of its digits
        w = mg.Value(0.5, requires_grad=True, dtype="float32", label="w")
        (w * 1e-8).backward()
    assert "w: 1.0 × 1e-08 = 1e-08, rounded to float32: 9.99999993922529e-09" in t.narrate(color=False)


def test_a_float16_sum_is_not_written_as_exact() -> None:
    with mg.trace() as t:
        x = mg.Value(1.0, requires_grad=True, dtype="float16", label="x")
        y = x * 1.0
        y.label = "y"
        (y * 1.0 + y * 0.0001).backward()
    text = t.narrate(color=False)
    assert "upstream 1.0 ≈ 0.000100017 + 1.0" in text and "upstream 1.0 = " not in text
    with mg.trace() as t:
        x = mg.Value(1.0, requires_grad=True, dtype="float16", label="x")
        (x * 1.0 + x * 0.0001).backward()
    assert "(received 0.000100017 + 1.0, summed in its dtype)" in t.narrate(color=False)


def test_an_op_not_recorded_gives_the_real_reason() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        with mg.no_grad():
            _ = x * 3
        _ = mg.Value(2.0, label="c") * 3
        with mg.inference_mode():
            _ = x * 4
    assert t.narrate("full", color=False).splitlines() == [
        "forward  x·3 = 6.0   (not recorded: grad mode is off)",
        "forward  c·3 = 6.0   (not recorded: no input requires grad)",
        "forward  x·4 = 8.0   (not recorded: inference mode)",
    ]


def test_labels_name_each_value_once_and_read_as_written() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        (x.detach() * 3 + x * 5).backward()
    assert "x.detach()·3 + x·5 = 16.0" in t.narrate(color=False)
    with mg.trace() as t:  # two Values with one label (a neuron called twice) meet in one op
        a, b = mg.Value(1.0, requires_grad=True), mg.Value(3.0, requires_grad=True)
        u, v = a * 2, b * 2
        u.label = v.label = "l2.n0"
        ((u - v) ** 2).backward()
    text = t.narrate(color=False)
    assert "(l2.n0 − l2.n0′)^2 = 16.0" in text and "→ l2.n0′: -8.0 × (−1) = 8.0" in text
    with mg.trace() as t:  # a retained gradient of an expression, and tanh's local derivative
        a = mg.Value(2.0, requires_grad=True)
        b = a * 2.0
        b.retain_grad()
        b.tanh().backward()
    text = t.narrate(color=False)
    assert "retain_grad     (leaf#1·2.0).grad: None → " in text and "(leaf#1·2.0).grad = 0.00134095" in text
    assert "1.0 × (1 − tanh²(leaf#1·2.0)) (1 − 0.999329²)" in text


def test_steps_are_numbered_from_1_in_each_pass_and_events_keep_theirs() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        (x * 3).backward()
        (x * 4 + 1.0).backward()
    text = t.narrate(color=False)
    assert [ln[:6] for ln in text.splitlines() if ln.startswith("step")] == ["step 1", "step 1", "step 2"]
    assert [e.step for e in t.backward_events()] == [1, 2, 3]  # API.md: steps count on across passes


def test_a_gradient_a_float16_node_rounded_itself_says_so() -> None:
    with mg.trace() as t:
        x = mg.tensor([1.0], requires_grad=True, dtype="float16")
        x.label = "x"
        y = x * 3.0
        y.label = "y"
        (y * 0.1).sum().backward()
    text = t.narrate(color=False)  # 0.0999756 × 3 is 0.299927: float16 holds 0.299805
    assert "→ x: [0.0999756] × 3.0 = [0.299805]   (computed in float16: rounded from [0.299927])" in text
    assert [e.computed_in for e in t.backward_events()][-1] == ("float16", None)


def test_a_float16_product_that_came_out_exact_is_not_said_to_be_rounded() -> None:
    with mg.trace() as t:
        x = mg.tensor([1.0], requires_grad=True, dtype="float16")
        x.label = "x"
        (x * 3.0).sum().backward()  # 1 × 3 = 3 exactly, in float16 too
    text = t.narrate(color=False)
    assert "→ x: [1.0] × 3.0 = [3.0]" in text and "rounded" not in text
