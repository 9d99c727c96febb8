"""``mg.render`` (micrograd2/viz/render.py): a diagram to a file with Graphviz's ``dot``, or its DOT source without it.

It proves that with ``dot`` each format (SVG, PNG, PDF) is written and an SVG shows the node names; that
without ``dot`` the DOT source is written instead with one one-line warning saying how to install Graphviz;
that a ``.gv``/``.dot`` path gets the source and an unknown suffix is refused; and that a Value shows its graph
as SVG in Jupyter (``None`` without ``dot``).
"""
from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import hostile_trace

import micrograd2 as mg
from micrograd2.viz import GraphvizMissingWarning

HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed")


@needs_dot
@pytest.mark.parametrize("suffix, magic", [(".svg", b"<svg"), (".png", b"\x89PNG"), (".pdf", b"%PDF")])
def test_render_writes_each_format_with_dot(block1: dict[str, Any], tmp_path: Path, suffix: str,
                                           magic: bytes) -> None:
    path = mg.render(mg.draw(block1["z"]), tmp_path / f"graph{suffix}")
    assert path == str(tmp_path / f"graph{suffix}")
    data = Path(path).read_bytes()
    assert magic in data[:400]


@needs_dot
def test_svg_shows_the_node_names(block1: dict[str, Any], tmp_path: Path) -> None:
    svg = Path(mg.render(mg.draw(block1["z"]), tmp_path / "g.svg")).read_text()
    for text in ("SumBackward0", "MulBackward0", "AccumulateGrad", "x[0]", "data 23.0", "legend"):
        assert text in svg


def test_render_without_dot_writes_the_source_and_warns_once(block1: dict[str, Any], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    g = mg.draw(block1["z"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = mg.render(g, tmp_path / "out" / "graph.svg")
    assert path == str(tmp_path / "out" / "graph.dot")
    assert Path(path).read_text() == g.source
    assert not (tmp_path / "out" / "graph.svg").exists()
    assert len(caught) == 1 and caught[0].category is GraphvizMissingWarning
    message = str(caught[0].message)
    assert "\n" not in message
    for hint in ("apt-get install graphviz", "brew install graphviz", "conda install graphviz"):
        assert hint in message


def test_render_writes_dot_source_by_suffix_and_refuses_unknown_suffixes(block1: dict[str, Any],
                                                                          tmp_path: Path) -> None:
    g = mg.draw(block1["z"])
    assert Path(mg.render(g, tmp_path / "g.gv")).read_text() == g.source
    with pytest.raises(ValueError, match="writes .svg, .png, .pdf or .dot"):
        mg.render(g, tmp_path / "g.jpeg")


@needs_dot
def test_values_show_their_graph_in_jupyter(block1: dict[str, Any]) -> None:
    svg = block1["z"]._repr_svg_()
    assert svg.startswith("<svg") and "SumBackward0" in svg


def test_jupyter_picture_is_none_without_dot(block1: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert block1["z"]._repr_svg_() is None


def test_a_jupyter_picture_that_dot_cannot_draw_falls_back_to_text(block1: dict[str, Any],
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    dot = tmp_path / "dot"  # found, but without the SVG plugin: dot fails on every graph
    dot.write_text('#!/bin/sh\necho \'Format: "svg" not recognized. Use one of:\' >&2\nexit 1\n')
    dot.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.warns(mg.viz.DiagramFailedWarning, match=r'could not be drawn \(Graphviz dot failed: '
                      r'Format: "svg" not recognized.*shown as text; `micrograd2 doctor` checks Graphviz'):
        assert block1["z"]._repr_svg_() is None  # Jupyter then shows the Value's text
    with pytest.warns(mg.viz.DiagramFailedWarning):
        assert mg.viz.notebook_svg(mg.draw(block1["z"])) is None



def test_a_dot_run_that_takes_too_long_ends_in_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib
    import subprocess

    render_module = importlib.import_module("micrograd2.viz.render")  # the module, not mg.viz.render

    def too_slow(args: list[str], **kwargs: object) -> None:
        assert kwargs["timeout"] == render_module.TIMEOUT_S  # every dot run has its time limit
        raise subprocess.TimeoutExpired(args, render_module.TIMEOUT_S)

    monkeypatch.setattr(render_module, "dot_program", lambda: "/usr/bin/dot")
    monkeypatch.setattr(render_module.subprocess, "run", too_slow)
    with pytest.raises(render_module.GraphvizTimeout, match=r"took more than 120 s .*\nWhat to do: draw a smaller"):
        render_module.svgs([mg.draw(mg.Value(1.0, requires_grad=True) * 2)])


def test_the_commands_graph_options_take_the_suffixes_render_writes() -> None:
    from click.testing import CliRunner

    from micrograd2.cli import main
    from micrograd2.viz.render import GRAPH_SUFFIXES

    for command in (["lesson", "run", "2"], ["trace", __file__]):
        result = CliRunner().invoke(main, [*command, "--graph", "g.txt"])
        assert result.exit_code == 2 and f"must end in {', '.join(GRAPH_SUFFIXES)}" in result.output


@needs_dot
def test_hostile_labels_render_and_show_in_jupyter(tmp_path: Path) -> None:
    """NOTE [Labels are text] in viz/dot.py: no label makes dot fail, or becomes markup."""
    _, xs, z = hostile_trace()
    for view in ("autograd", "value"):
        svg = Path(mg.render(mg.draw(z, view=view), tmp_path / f"{view}.svg")).read_text()
        assert "&lt;/script&gt;&lt;script&gt;alert(1)" in svg and "<script" not in svg
        assert "C:\\temp\\new\\" in svg and "&lt;b&gt;bold&lt;/b&gt;" in svg
    jupyter = z._repr_svg_()
    assert jupyter is not None and "x²·∑ → é ✓" in jupyter and "<img" not in jupyter
    assert xs[4]._repr_svg_() is not None  # "{a | b} <port>" alone
