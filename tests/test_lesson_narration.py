"""``micrograd2.lessons.narration``: each cell's backward passes narrated after it; many passes condensed."""
from __future__ import annotations

import json
import re

import pytest

import micrograd2 as mg
from micrograd2.lessons.narration import LONG, MAX_DETAILED, TRACED, CellNarrator
from micrograd2.lessons.page import PAGE


def test_a_cell_without_backward_is_not_narrated() -> None:
    narrator = CellNarrator(color=False)
    narrator.start()
    _ = mg.Value(1.0, requires_grad=True) * 2
    assert narrator.stop() == ""
    assert narrator.stop() == ""  # stopping twice is harmless


def test_a_graph_is_told_step_by_step_once_its_repeats_in_one_line_and_the_rest_counted() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    narrator = CellNarrator(color=False)
    narrator.start()
    for _ in range(TRACED + 2):
        (x * 3).backward()
    text = narrator.stop()
    lines = text.splitlines()
    assert lines[0] == "  What autograd did (the tracer's narration):"
    assert text.count("step 1 ") == 1 and "pass 1 done: 1 step" in text  # the first pass, step by step
    assert [ln.strip().split(":")[0] for ln in lines if "gradient 1.0: 1 step;" in ln] == [
        f"backward pass {n} from x·3 = 6.0 (MulBackward0), seed gradient 1.0" for n in range(2, TRACED + 1)]
    assert lines[-1].strip() == "(and 2 more backward passes like these, not traced: --verbosity full " \
                                "narrates every one)"
    assert f"x.grad = {3.0 * TRACED}" in text and x.grad == 3.0 * (TRACED + 2)  # untraced passes still ran

    narrator.start()  # the next cell: the same graph is told in one line, a new one step by step
    (x * 3).backward()
    (x + 1).backward()
    text = narrator.stop()
    assert "MulBackward0     x·3" not in text and "AddBackward0     x + 1 = 3.0" in text
    assert "not traced" not in text


def test_full_verbosity_traces_and_tells_every_pass() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    narrator = CellNarrator("full", color=False)
    narrator.start()
    for _ in range(TRACED + 2):
        (x * 3).backward()
    text = narrator.stop()
    assert text.count("MulBackward0     x·3") == TRACED + 2 and "not traced" not in text
    assert MAX_DETAILED < TRACED + 2


def test_json_narration_is_the_events_tagged_with_the_lesson() -> None:
    narrator = CellNarrator(json=True, lesson=7)
    x = mg.Value(2.0, requires_grad=True)
    narrator.start()
    (x * 3).backward()
    records = [json.loads(line) for line in narrator.stop().splitlines()]
    assert records and all(r["lesson"] == 7 for r in records)
    assert {"backward", "accumulate"} <= {r["kind"] for r in records}


def test_no_narration_still_records_for_extra_tracers() -> None:
    page = mg.trace()
    narrator = CellNarrator(narrate=False, extra=(page,))
    narrator.start()
    (mg.Value(2.0, requires_grad=True) * 3).backward()
    assert narrator.stop() == "" and page.backward_events()


def test_a_verbosity_that_does_not_exist_is_refused() -> None:
    with pytest.raises(ValueError, match="verbosity must be one of"):
        CellNarrator("loud")


def test_narrate_cells_needs_ipython() -> None:
    pytest.importorskip("IPython")
    from micrograd2.lessons.narration import narrate_cells

    with pytest.raises(RuntimeError, match="Jupyter"):
        narrate_cells()


def test_passes_are_told_in_the_order_they_ran_numbered_within_their_cell() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    narrator = CellNarrator(color=False)
    narrator.start()
    (x * 3).backward()
    narrator.stop()
    narrator.start()  # a cell whose first pass repeats an earlier graph and whose second is new
    (x * 3).backward()
    (x + 1).backward()
    heads = [ln.strip()[:33] for ln in narrator.stop().splitlines() if "backward pass" in ln]
    assert TRACED == 2 and heads == ["backward pass 1 from x·3 = 6.0 (M", "backward pass 2 from x + 1 = 3.0 "]


def test_a_long_pass_is_told_in_one_line() -> None:
    x = mg.Value(0.5, requires_grad=True, label="x")
    y = x
    for _ in range(LONG + 1):
        y = y * 1.0
    narrator = CellNarrator(color=False)
    narrator.start()
    y.backward(retain_graph=True)
    y.backward()  # a training loop's next step: not traced (its forward ops would cost the most)
    text = narrator.stop()
    assert f"seed gradient 1.0: {LONG + 1} steps" in text and "step 1 " not in text
    assert "(and 1 more backward pass like these, not traced" in text and x.grad == 2.0


def test_every_narration_line_fits_the_page_its_vectors_summarized_as_pytorch_does() -> None:
    v = mg.tensor([0.1 * i + 0.123456 for i in range(12)], requires_grad=True)
    narrator = CellNarrator(color=False)
    narrator.start()
    ((v * v) * v).sum().backward()
    lines = narrator.stop().splitlines()
    assert lines and all(len(line) <= PAGE for line in lines)
    assert any(re.search(r"\[0\.123456, \.\.\., 1\.22346\]", line) for line in lines), lines
