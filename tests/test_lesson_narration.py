"""``micrograd2.lessons.narration``: each cell's backward passes narrated after it; many passes condensed."""
from __future__ import annotations

import json

import pytest

import micrograd2 as mg
from micrograd2.lessons.narration import MAX_DETAILED, CellNarrator


def test_a_cell_without_backward_is_not_narrated() -> None:
    narrator = CellNarrator(color=False)
    narrator.start()
    _ = mg.Value(1.0, requires_grad=True) * 2
    assert narrator.stop() == ""
    assert narrator.stop() == ""  # stopping twice is harmless


def test_the_first_passes_are_told_step_by_step_and_the_rest_in_one_line_each() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    narrator = CellNarrator(color=False)
    narrator.start()
    for _ in range(MAX_DETAILED + 2):
        (x * 3).backward()
    text = narrator.stop()
    assert text.startswith("\n  What autograd did (the tracer's narration):")
    assert text.count("step ") >= MAX_DETAILED and "the cell's other 2 backward passes, one line each" in text
    narrator = CellNarrator("full", color=False)
    narrator.start()
    for _ in range(MAX_DETAILED + 2):
        (x * 3).backward()
    assert "one line each" not in narrator.stop()


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
