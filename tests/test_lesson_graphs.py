"""``micrograd2.lessons.graphs``: a graph as indented text, walked without recursion, and its picture."""
from __future__ import annotations

import io
import shutil
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.lessons import graphs
from micrograd2.lessons.session import start_session


@pytest.fixture
def fresh() -> Any:
    stream = io.StringIO()
    yield start_session(stream=stream, strict=False), stream
    start_session()


def test_the_text_graph_walks_next_functions_without_recursion(fresh: Any) -> None:
    x = mg.Value(1.0, requires_grad=True, label="x")
    y = x
    for _ in range(5000):  # deeper than Python's recursion limit would allow a recursive walk
        y = y * 1.0
    lines = graphs.graph_lines(y)
    assert lines[0] == "MulBackward0" and lines[-1].startswith("…")
    assert graphs.graph_lines(x * x) == ["MulBackward0", "├── AccumulateGrad → x.grad", "└── AccumulateGrad → x.grad"]
    assert graphs.graph_lines(x) == ["x is a leaf: no grad_fn, nothing to walk"]
    diagram = graphs.show_graph(x * 2)
    assert fresh[0].graph is not None and "the autograd graph" in repr(diagram)
    if shutil.which("dot"):
        assert "<svg" in (diagram._repr_svg_() or "")


def test_a_diagram_that_cannot_be_drawn_leaves_jupyter_its_text(fresh: Any) -> None:
    def broken(source: str, fmt: str, timeout_s: float) -> str:
        raise ValueError("this renderer cannot draw SVG")

    before = mg.viz.set_renderer(broken)
    try:
        x = mg.Value(1.0, requires_grad=True, label="x")
        with pytest.warns(UserWarning, match="shown as text"):
            assert graphs.Diagram(x * x, "autograd")._repr_svg_() is None
    finally:
        mg.viz.set_renderer(before)
