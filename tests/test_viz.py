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
