"""The viz package as a whole (micrograd2.viz; graph.py reads a graph into plain data): the core never imports it,
and a traced pass keeps which output of a node of several outputs an input is, for the step-through page.

The diagrams themselves are tested in test_dot.py, rendering in test_render.py, the page in test_stepper.py.
"""
from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

from conftest import second_output_graph

import micrograd2 as mg
from micrograd2.viz import GraphvizMissingWarning


def test_the_core_does_not_import_the_viz_package() -> None:
    code = ("import sys, micrograd2 as mg; (mg.Value(1.0, requires_grad=True) * 2).backward(); "
            "print(sorted(m for m in sys.modules "
            "if m.startswith(('micrograd2.viz', 'micrograd2.tracing', 'graphviz'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]"


# -- nodes of several outputs: a custom Function's second output --------------------------------------
def test_a_traced_pass_keeps_which_output_an_input_is_for_the_step_through_page(tmp_path: Path) -> None:
    from micrograd2.viz import stepper
    from micrograd2.viz.graph import from_pass

    with mg.trace() as t:
        a, b, z = second_output_graph()
        z.backward()
    sk = from_pass(t, 1)
    assert [(i.id, i.nr) for i in sk.nodes["MulBackward0#1"].inputs] == [("SumAndProductBackward#1", 1), (None, 0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphvizMissingWarning)
        page = Path(stepper(t, tmp_path / "page.html", view="value")).read_text()
    assert "SumAndProduct(a, b)[1]" in page and "SumAndProductBackward#1 output 1" in page


def test_a_leaf_gone_before_the_diagram_keeps_its_label_and_data() -> None:
    from micrograd2.viz.graph import from_root

    x = mg.Value(2.0, requires_grad=True, label="x")
    r = x.detach() * 3 + x * 5
    del x
    labels = {n.label: n for n in from_root(r).nodes.values()}
    assert "x·5" in labels and labels["x"].is_leaf and labels["x"].data == 2.0


def test_a_saved_exponent_freed_by_backward_is_drawn_as_a_live_tracer_saw_it() -> None:
    from micrograd2.viz.graph import from_root

    with mg.trace():
        x = mg.Value(2.0, requires_grad=True, label="x")
        y = (x ** 3).sqrt()
        y.backward()  # frees the exponent the node saved
        labels = {n.label for n in from_root(y).nodes.values()}
    assert {"√(x^3)", "x^3"} <= labels


def test_a_pass_drawn_from_its_trace_shows_the_leaves_grads_after_the_pass() -> None:
    from micrograd2.viz.graph import from_pass

    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        (x * 5).backward()
    leaves = [n for n in from_pass(t, 1).nodes.values() if n.is_leaf]
    assert [(n.label, n.data, n.grad) for n in leaves] == [("x", 2.0, 5.0)]
