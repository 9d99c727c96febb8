"""``mg.draw`` (micrograd2/viz/dot.py): a graph as a ``graphviz.Digraph``, parsed back and checked, not just built.

The DOT text of each view is parsed into nodes (with attributes) and edges, and checked against the graph:
in the autograd view, each node with the value it made, leaves, outputs and (with ``show_saved``) saved
values, inputs that need no grad left out; in the value view, every value, constant and gradient; the legend
cluster with the fixed colours of only the kinds drawn; a highlighted step of a trace (the visited node, its
gradients on red edges pointing the way gradients flow, checked in the rendered SVG too, and the grads so far);
graphs past 500 nodes summarized with their count (a million-node chain fast); and nodes of several outputs.
"""
from __future__ import annotations

import re
import shutil
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import HOSTILE_LABELS, hostile_trace, second_output_graph

import micrograd2 as mg
from micrograd2.viz.dot import CONSTANT, GRAD_FN, LEAF, OUTPUT, SAVED, VALUE

HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed")

_ID = r'"(?:[^"\\]|\\.)*"|[\w.]+'
_STMT = re.compile(rf"^\s*({_ID})(?:\s*->\s*({_ID}))?\s*(?:\[(.*)\])?\s*$")
_ATTR = re.compile(rf"(\w+)=({_ID})")


def _unquote(s: str) -> str:
    return s[1:-1].replace('\\"', '"') if s.startswith('"') else s


def parse(source: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, dict[str, str]]]]:
    """Nodes (name -> attributes) and edges (tail, head, attributes) of a graphviz-made DOT text."""
    nodes: dict[str, dict[str, str]] = {}
    edges = []
    for line in source.splitlines():
        line = line.strip()
        skip = line.startswith(("digraph", "subgraph", "}", "graph ", "node ", "edge "))
        if not line or skip or "=" in line.split("[")[0]:  # graph attributes such as label=legend
            continue
        m = _STMT.match(line)
        assert m, f"unparsed DOT line: {line}"
        attrs = {k: _unquote(v) for k, v in _ATTR.findall(m.group(3) or "")}
        if m.group(2):
            edges.append((_unquote(m.group(1)), _unquote(m.group(2)), attrs))
        else:
            nodes[_unquote(m.group(1))] = attrs
    return nodes, edges


def block1(label_z: bool = True) -> dict:
    x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
    w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
    z = mg.sum(a * b for a, b in zip(x, w))
    if label_z:
        z.label = "z"
    return {"x": x, "w": w, "z": z}


def graph_part(nodes: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    return {k: v for k, v in nodes.items() if not k.startswith("legend ")}


def by_label(nodes: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The boxes by the first line of their labels (their names are ids of the graph)."""
    return {v["label"].split("\\n")[0]: v for v in nodes.values() if "label" in v}


def graph_edges(edges: list[tuple[str, str, dict[str, str]]]) -> list[tuple[str, str, dict[str, str]]]:
    """The edges of the graph itself (the legend's invisible ones left out)."""
    return [e for e in edges if not e[0].startswith("legend ")]


# -- the autograd view ---------------------------------------------------------------------------------------
def test_autograd_view_of_block1() -> None:
    b = block1()
    nodes, edges = parse(mg.draw(b["z"]).source)
    edges = graph_edges(edges)
    assert graph_part(nodes) == {
        "SumBackward0#1": {"label": "SumBackward0\\nz", "fillcolor": GRAD_FN},
        "MulBackward0#1": {"label": "MulBackward0\\nx[0]·w[0]", "fillcolor": GRAD_FN},  # the node, the value it made
        "MulBackward0#2": {"label": "MulBackward0\\nx[1]·w[1]", "fillcolor": GRAD_FN},
        **{f"AccumulateGrad#{i}": {"label": "AccumulateGrad", "fillcolor": GRAD_FN} for i in range(1, 5)},
        "AccumulateGrad#1 leaf": {"label": "x[0]\\ndata 2.0\\ngrad None", "fillcolor": LEAF},
        "AccumulateGrad#2 leaf": {"label": "w[0]\\ndata 4.0\\ngrad None", "fillcolor": LEAF},
        "AccumulateGrad#3 leaf": {"label": "x[1]\\ndata 3.0\\ngrad None", "fillcolor": LEAF},
        "AccumulateGrad#4 leaf": {"label": "w[1]\\ndata 5.0\\ngrad None", "fillcolor": LEAF},
        "SumBackward0#1 output": {"label": "z\\ndata 23.0\\ngrad —", "fillcolor": OUTPUT},
    }  # every name an id of the graph, never a label (NOTE [Labels are text])
    assert sorted((a, b) for a, b, _ in edges) == sorted([
        ("MulBackward0#1", "SumBackward0#1"), ("MulBackward0#2", "SumBackward0#1"),
        ("AccumulateGrad#1", "MulBackward0#1"), ("AccumulateGrad#2", "MulBackward0#1"),
        ("AccumulateGrad#3", "MulBackward0#2"), ("AccumulateGrad#4", "MulBackward0#2"),
        ("AccumulateGrad#1 leaf", "AccumulateGrad#1"), ("AccumulateGrad#2 leaf", "AccumulateGrad#2"),
        ("AccumulateGrad#3 leaf", "AccumulateGrad#3"), ("AccumulateGrad#4 leaf", "AccumulateGrad#4"),
        ("SumBackward0#1", "SumBackward0#1 output"),
    ])


def test_legend_cluster_has_the_fixed_colours() -> None:
    g = mg.draw(block1()["z"], view="value")
    assert "subgraph cluster_legend {" in g.source
    nodes, edges = parse(g.source)
    legend = {k: v["fillcolor"] for k, v in nodes.items() if k.startswith("legend ") and k != "legend arrows"}
    assert [(a, b) for a, b, e in edges if e.get("style") == "invis"] == [  # only the kinds drawn, then the arrows
        ("legend leaf", "legend grad_fn"), ("legend grad_fn", "legend output"), ("legend output", "legend value"),
        ("legend value", "legend arrows")]
    assert legend == {"legend leaf": LEAF, "legend grad_fn": GRAD_FN, "legend output": OUTPUT, "legend value": VALUE}
    assert nodes["legend arrows"]["label"] == "arrows: forward, input → op"
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        y = (x * 3.0).exp()
        y.backward()
    saved, _ = parse(mg.draw(y, view="value", trace=t, show_saved=True).source)
    assert {k for k in saved if k.startswith("legend ")} == {
        "legend leaf", "legend constant", "legend grad_fn", "legend output", "legend value", "legend arrows"}
    saved, _ = parse(mg.draw(y, show_saved=True).source)
    assert {k for k in saved if k.startswith("legend ")} == {
        "legend leaf", "legend grad_fn", "legend saved", "legend output", "legend arrows"}
    assert (LEAF, CONSTANT, GRAD_FN, SAVED, OUTPUT) == ("lightblue", "lightyellow", "lightgrey", "orange",
                                                        "darkolivegreen1")
    documented = sys.modules["micrograd2.viz.dot"].__doc__ or ""
    for colour in (LEAF, CONSTANT, GRAD_FN, SAVED, OUTPUT):
        assert f"``{colour}``" in documented


def test_inputs_that_need_no_grad_are_omitted() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    c = mg.Value(5.0, label="c")
    y = x * c * 3.0
    nodes, edges = parse(mg.draw(y).source)
    edges = graph_edges(edges)
    assert sorted(graph_part(nodes)) == ["AccumulateGrad#1", "AccumulateGrad#1 leaf", "MulBackward0#1",
                                         "MulBackward0#2", "MulBackward0#2 output"]
    assert [by_label(nodes)[k]["fillcolor"] for k in ("x", "x·c·3.0")] == [LEAF, OUTPUT]
    assert sorted((a, b) for a, b, _ in edges) == [("AccumulateGrad#1", "MulBackward0#1"),
                                                   ("AccumulateGrad#1 leaf", "AccumulateGrad#1"),
                                                   ("MulBackward0#1", "MulBackward0#2"),
                                                   ("MulBackward0#2", "MulBackward0#2 output")]


def test_show_saved_draws_saved_values_then_says_they_were_freed() -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    y = x.exp()
    y.label = "y"
    before, _ = parse(mg.draw(y, show_saved=True).source)
    assert before["ExpBackward0#1 saved 0"] == {"label": "y\\n7.38906", "fillcolor": SAVED}
    y.backward()
    after, edges = parse(mg.draw(y, show_saved=True).source)
    assert after["ExpBackward0#1 saved"]["label"] == "saved values freed"
    assert ("ExpBackward0#1 saved", "ExpBackward0#1", {"arrowhead": "none", "style": "dashed"}) in edges
    assert not any(v.get("fillcolor") == SAVED for k, v in graph_part(parse(mg.draw(y).source)[0]).items())


def test_options_rankdir_and_errors() -> None:
    z = block1()["z"]
    assert "rankdir=TB" in mg.draw(z, rankdir="TB").source
    with pytest.raises(ValueError, match="view must be"):
        mg.draw(z, view="torch")
    with pytest.raises(ValueError, match="rankdir must be"):
        mg.draw(z, rankdir="up")
    with pytest.raises(ValueError, match="needs the trace"):
        mg.draw(z, highlight=1)
    with pytest.raises(TypeError, match="needs a Value or a Tensor"):
        mg.draw(3.0)


def test_a_value_outside_any_graph_is_one_box() -> None:
    nodes, edges = parse(mg.draw(mg.Value(1.5, label="c")).source)
    assert graph_part(nodes) == {"value": {"label": "c\\ndata 1.5", "fillcolor": OUTPUT}} and graph_edges(edges) == []


# -- the value view ------------------------------------------------------------------------------------------
def test_value_view_without_a_trace_reads_every_value_from_the_nodes() -> None:
    a = mg.Value(2.0, requires_grad=True, label="a")
    e = (a * 3.0).exp()
    e.label = "e"
    nodes, edges = parse(mg.draw(e, view="value").source)
    part = graph_part(nodes)
    assert part["AccumulateGrad#1"] == {"label": "{ a | data 2.0 | grad None }", "shape": "record", "fillcolor": LEAF}
    assert part["MulBackward0#1"]["label"] == "{ a·3.0 | data 6.0 | grad — }"  # a name of its own, not its node's
    assert part["MulBackward0#1 input 1"]["label"] == "{ const | data 3.0 }"
    assert part["ExpBackward0#1"]["label"] == "{ e | data 403.429 | grad — }"
    assert part["ExpBackward0#1"]["fillcolor"] == OUTPUT
    assert part["MulBackward0#1 op"] == {"label": "*", "shape": "ellipse", "fillcolor": GRAD_FN}
    assert ("AccumulateGrad#1", "MulBackward0#1 op") in [(a_, b_) for a_, b_, _ in edges]
    assert ("MulBackward0#1 op", "MulBackward0#1") in [(a_, b_) for a_, b_, _ in edges]


def test_value_view_with_a_trace_shows_every_value_constants_and_grads() -> None:
    with mg.trace() as t:
        a = mg.Value(2.0, requires_grad=True, label="a")
        e = (a * 3.0).exp()
        e.backward()
    nodes, edges = parse(mg.draw(e, view="value", trace=t).source)
    part = graph_part(nodes)
    assert part["MulBackward0#1"]["label"] == "{ a·3.0 | data 6.0 | grad 403.429 }"
    assert part["MulBackward0#1 input 1"] == {"label": "{ const | data 3.0 }", "shape": "record",
                                              "fillcolor": CONSTANT}
    assert part["AccumulateGrad#1"]["label"] == "{ a | data 2.0 | grad 1210.29 }"
    assert ("MulBackward0#1 input 1", "MulBackward0#1 op") in [(x, y) for x, y, _ in edges]


# -- highlighting a step of a trace --------------------------------------------------------------------------
def test_highlight_marks_the_visited_node_its_gradients_and_grads_so_far() -> None:
    with mg.trace() as t:
        b = block1()
        b["z"].backward()
    nodes, edges = parse(mg.draw(b["z"], trace=t, highlight=2).source)
    assert nodes["MulBackward0#2"]["color"] == "red" and nodes["MulBackward0#2"]["penwidth"] == "3"
    assert "color" not in nodes["MulBackward0#1"]
    red = {(a, b_): e["label"] for a, b_, e in edges if e.get("color") == "red"}
    assert red == {("AccumulateGrad#3", "MulBackward0#2"): "grad 5.0",
                   ("AccumulateGrad#4", "MulBackward0#2"): "grad 3.0"}
    # a backward step: every arrow points the way gradients flow (the edges keep their ends, so the layout stays)
    assert all(e.get("dir") == "back" for a, _, e in graph_edges(edges) if e.get("style") != "dashed")
    assert nodes["legend arrows"]["label"] == "arrows: gradients, output → leaves"
    # step 2 filled x[1] and w[1]; x[0] and w[0] are filled at step 3
    leaves = by_label(nodes)
    assert leaves["x[1]"]["label"].endswith("grad 5.0") and leaves["w[1]"]["label"].endswith("grad 3.0")
    assert leaves["x[0]"]["label"].endswith("grad None") and leaves["w[0]"]["label"].endswith("grad None")
    assert nodes["legend step"]["label"] == "visited at step 2"
    assert 'label="step 2 (pass 1): MulBackward0 MulBackward0#2"' in mg.draw(b["z"], trace=t, highlight=2).source
    value_nodes, _ = parse(mg.draw(b["z"], view="value", trace=t, highlight=1).source)
    assert value_nodes["MulBackward0#1"]["label"] == "{ x[0]·w[0] | data 8.0 | grad 1.0 (so far) }"
    assert value_nodes["SumBackward0#1 op"]["color"] == "red"
    with pytest.raises(ValueError, match="step 9 is not in this trace"):
        mg.draw(b["z"], trace=t, highlight=9)


@needs_dot
def test_in_a_backward_step_the_red_arrow_points_from_the_node_to_the_input() -> None:
    """Rendered: the arrowhead of 'grad 5.0' is at x[1]'s AccumulateGrad, not at MulBackward0#2."""
    from micrograd2.viz import svg

    with mg.trace() as t:
        b = block1()
        b["z"].backward()
    picture = svg(mg.draw(b["z"], trace=t, highlight=2))
    assert picture is not None

    def centre(title: str) -> tuple[float, float]:
        group = re.search(rf"<title>{re.escape(title)}</title>(.*?)</g>", picture, re.S)
        assert group, title
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", re.search(r'points="([^"]+)"', group.group(1))
                                                  .group(1))] if "points=" in group.group(1) else [
            float(v) for v in re.search(r'cx="([-\d.]+)" cy="([-\d.]+)"', group.group(1)).groups()]
        xs, ys = numbers[0::2], numbers[1::2]
        return sum(xs) / len(xs), sum(ys) / len(ys)

    head = centre("AccumulateGrad#3&#45;&gt;MulBackward0#2")  # the edge's arrowhead polygon
    to_input, to_node = centre("AccumulateGrad#3"), centre("MulBackward0#2")

    def distance(p: tuple[float, float], q: tuple[float, float]) -> float:
        return ((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5

    assert distance(head, to_input) < distance(head, to_node)


def test_highlight_shows_grads_accumulated_in_earlier_passes() -> None:
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        w = mg.Value(3.0, requires_grad=True, label="w")
        for _ in range(3):
            z = x * w
            z.backward()
    nodes, _ = parse(mg.draw(z, trace=t, highlight=3).source)
    assert by_label(nodes)["x"]["label"] == "x\\ndata 2.0\\ngrad 9.0"
    first, _ = parse(mg.draw(z, trace=t, highlight=1).source)
    assert by_label(first)["x"]["label"] == "x\\ndata 2.0\\ngrad 3.0"


# -- large graphs --------------------------------------------------------------------------------------------
def test_a_graph_past_500_nodes_is_summarized_with_its_count() -> None:
    x = mg.Value(1.0, requires_grad=True, label="x")
    y = x
    for _ in range(600):
        y = y + 1.0
    nodes, edges = parse(mg.draw(y).source)
    assert sorted(graph_part(nodes)) == ["output", "summary"]
    assert "This graph has 601 nodes: too many to draw (the limit is 500)." in nodes["summary"]["label"]
    assert "AddBackward0 × 600, AccumulateGrad × 1" in nodes["summary"]["label"]


@pytest.mark.slow
def test_a_million_node_chain_is_summarized_fast() -> None:
    x = mg.Value(1.0, requires_grad=True)
    y = x
    for _ in range(10**6):
        y = y + 1.0
    for view in ("autograd", "value"):  # summarized: the drawing stops where the summary says
        nodes, _ = parse(mg.draw(y, view=view).source)
        assert "more than 100,000 nodes" in nodes["summary"]["label"]
        assert len(nodes) <= 100_001  # no test's verdict depends on the clock


# -- nodes of several outputs: a custom Function's second output, unbind's rows ------------------------------
def test_a_graph_through_a_second_output_is_drawn_with_that_outputs_value() -> None:
    a, b, z = second_output_graph()
    nodes, edges = parse(mg.draw(z).source)
    assert ("SumAndProductBackward#1", "MulBackward0#1") in [(x, y) for x, y, _ in edges]
    assert ("SumAndProductBackward#1", "AddBackward0#1") in [(x, y) for x, y, _ in edges]
    assert nodes["MulBackward0#1"]["label"] == "MulBackward0\\nSumAndProduct(a, b)[1]·3"
    value_nodes, value_edges = parse(mg.draw(z, view="value").source)
    later = value_nodes["SumAndProductBackward#1 output 1"]
    assert later["label"] == "{ SumAndProduct(a, b)[1] | data 10.0 | grad — }"  # a·b, its own box
    assert value_nodes["SumAndProductBackward#1"]["label"].startswith("{ SumAndProduct(a, b)[0] | data 7.0 ")
    pairs = [(x, y) for x, y, _ in value_edges]
    assert ("SumAndProductBackward#1 op", "SumAndProductBackward#1 output 1") in pairs
    assert ("SumAndProductBackward#1 output 1", "MulBackward0#1 op") in pairs
    assert ("SumAndProductBackward#1", "AddBackward0#1 op") in pairs


def test_a_traced_step_through_a_second_output_shows_its_gradient() -> None:
    with mg.trace() as t:
        a, b, z = second_output_graph()
        z.backward()
    assert not t.errors
    step = next(e.step for e in t.backward_events() if e.node_id == "MulBackward0#1")
    nodes, edges = parse(mg.draw(z, view="value", trace=t, highlight=step).source)
    assert nodes["SumAndProductBackward#1 output 1"]["label"] == "{ SumAndProduct(a, b)[1] | data 10.0 | grad 3.0 }"
    red = {(x, y): e["label"] for x, y, e in edges if e.get("color") == "red"}
    assert red == {("SumAndProductBackward#1 output 1", "MulBackward0#1 op"): "grad 3.0"}
    _, autograd_edges = parse(mg.draw(z, trace=t, highlight=step).source)
    assert {(x, y) for x, y, e in autograd_edges if e.get("color") == "red"} == {
        ("SumAndProductBackward#1", "MulBackward0#1")}
    last = t.backward_events()[-1]  # SumAndProductBackward#1, with both outputs' gradients
    done, _ = parse(mg.draw(z, view="value", trace=t, highlight=last.step).source)
    assert done["SumAndProductBackward#1"]["label"] == "{ SumAndProduct(a, b)[0] | data 7.0 | grad 1.0 }"
    assert done["SumAndProductBackward#1 output 1"]["label"].endswith("| grad 3.0 }")
    assert done["AccumulateGrad#1"]["label"] == "{ a | data 2.0 | grad 16.0 }"  # 1 + 3·b


def test_iterating_a_tensor_draws_one_unbind_node() -> None:
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x.label = "x"
    first, second = x
    y = (first + second * 2).sum()
    nodes, edges = parse(mg.draw(y).source)
    assert [k for k in graph_part(nodes) if k.startswith("UnbindBackward0")] == ["UnbindBackward0#1"]
    assert nodes["MulBackward0#1"]["label"] == "MulBackward0\\nUnbind(x)[1]·2.0"
    value_nodes, _ = parse(mg.draw(y, view="value").source)
    assert value_nodes["UnbindBackward0#1 output 1"]["label"] == "{ Unbind(x)[1] | data [3.0, 4.0] | grad — }"
    assert value_nodes["UnbindBackward0#1"]["label"].startswith("{ Unbind(x)[0] | data [1.0, 2.0] ")


# -- labels are text (NOTE [Labels are text]) ----------------------------------------------------------------
def drawn_text(picture: str) -> tuple[list[str], list[str], set[str]]:
    """The lines of text an SVG shows, its titles (node names), and every element's tag."""
    root = ET.fromstring(picture)
    tags = {el.tag.rsplit("}", 1)[-1] for el in root.iter()}
    texts = ["".join(el.itertext()) for el in root.iter() if el.tag.endswith("}text")]
    titles = [el.text or "" for el in root.iter() if el.tag.endswith("}title")]
    return texts, titles, tags


def shows(lines: list[str], label: str) -> bool:
    """Whether the drawn lines of text show ``label`` (a newline in it: a line break)."""
    return all(any(part.strip() in line for line in lines) for part in label.split("\n"))


@needs_dot
@pytest.mark.parametrize("view", ["autograd", "value"])
def test_hostile_labels_are_drawn_as_written_and_never_name_a_node(view: str) -> None:
    from micrograd2.viz import svg

    t, xs, z = hostile_trace()
    drawings = {"graph": mg.draw(z, view=view), "step": mg.draw(z, view=view, trace=t, highlight=2)}
    for g, labels in ((mg.draw(z, view=view), HOSTILE_LABELS),
                      (mg.draw(z, view=view, trace=t, highlight=2), HOSTILE_LABELS),
                      (mg.draw(xs[1], view=view), HOSTILE_LABELS[1:2])):
        picture = svg(g)  # dot reads the source: no "syntax error"
        assert picture is not None
        texts, titles, tags = drawn_text(picture)
        assert [label for label in labels if not shows(texts, label)] == []
        assert not tags & {"script", "img", "b", "foreignObject", "a"}  # markup stays text
        assert not set(HOSTILE_LABELS) & set(titles)  # node names come from the graph
    assert drawings["graph"].source.count("C:\\\\temp\\\\new\\\\") == 1  # no \n or \t escape
