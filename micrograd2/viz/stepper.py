"""``mg.viz.stepper(trace, path)``: one self-contained HTML page to step through a backward pass.

One frame per backward step: the graph of that step's pass with the visited
node outlined and the gradients it sends on its edges, arrows pointing the way
gradients flow (``draw(..., highlight=k)``), its legend (only the kinds it
shows) and the narration of that step, wrapped to the page.

Each pass is laid out once and every frame of it is drawn at that layout, so
boxes keep their places and sizes from step to step (NOTE [One layout per pass]);
the page holds one SVG per pass, and each frame only what it changes in it: a
grad written in, the visited node, the gradients on its edges (NOTE [One picture
per pass]), so a pass of hundreds of steps makes a page of a few megabytes;
the graph's pane and the legend keep the size of the largest frame's, so the
narration starts at the same place in every frame.
The graph sits beside the narration when it fits there with readable text,
else above it; it is never drawn with text smaller than ``MIN_TEXT_PX`` unless
the reader asks for the whole graph.  A graph larger than the page pans (drag
it, or scroll), and each frame scrolls its visited node into view.  Keys:
← → step, Home/End first/last frame, + − 0 zoom.  The page needs no network:
the SVGs and the script are inline.  Without Graphviz's ``dot`` the frames show
the DOT source and say how to install it.  Past ``MAX_FRAMES`` steps the page
keeps the first and the last frames and says which steps it left out.
"""
from __future__ import annotations

import html
import json
import os
import re
import warnings
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import graphviz

from ..tracing.narrate import narration_lines
from .dot import Legend, drawing
from .graph import from_pass, progress
from .render import INSTALL, GraphvizMissingWarning, GraphvizTimeout, can_draw, svgs, texts

if TYPE_CHECKING:
    from ..tracing import Tracer

MAX_FRAMES = 500

MIN_TEXT_PX = 10.5  # the graph is never shown smaller than this (its smallest text, in CSS pixels), except on request



def _shipped(name: str) -> str:
    """A file of the page shipped beside this module: its script (stepper.js) and its style
    (stepper.css), which the playground serves as files (its page allows no inline script or
    style)."""
    return resources.files("micrograd2.viz").joinpath(name).read_text(encoding="utf-8")


def _style(inline: bool) -> str:
    return f"<style>{_shipped('stepper.css')}</style>" if inline else \
        '<link rel="stylesheet" href="stepper.css">'


def _script(inline: bool) -> str:
    return f"<script>{_shipped('stepper.js')}</script>" if inline else \
        '<script src="stepper.js"></script>'


# Graphviz colour names that CSS does not know
_CSS_COLOURS = {"darkolivegreen1": "#caff70"}


def _kept(steps: list[int]) -> tuple[list[int], str | None]:
    """All steps, or the first and last MAX_FRAMES / 2 of them with a note about the rest."""
    if len(steps) <= MAX_FRAMES:
        return steps, None
    half = MAX_FRAMES // 2
    kept = steps[:half] + steps[-half:]
    note = (f"This trace has {len(steps)} backward steps: the page keeps the first {half} and the last {half}; "
            f"steps {steps[half]} to {steps[-half - 1]} are left out.")
    return kept, note


# NOTE [One layout per pass]
# A frame differs from the next only in its text (a .grad filled in), the visited node's outline
# and the gradients on that node's edges.  Laid out alone, each frame moves its boxes as
# "grad None" becomes "grad 26.5", and a long pass waits for one dot layout per step.  So each
# pass is laid out once, every node at the largest size it takes in any frame and every edge with
# the label it carries in any frame; then each frame is drawn at those places by Graphviz's nop2
# engine (it draws the positions it is given and lays out nothing), inside the same bounding box
# (two invisible corner points).  Boxes keep their places and sizes from frame to frame, and a
# page costs three dot runs (sizes, layouts, pictures), however many frames it has.  A plugged-in
# renderer (the playground's viz.js, NOTE [Plugging in a renderer] in render.py) lays the passes out
# the same way, one call per graph: it must answer ``json0`` as well as ``svg``; one that answers
# SVG only gets a picture per frame, laid out alone.

_ID = r'"(?:[^"\\]|\\.)*"|[^\s"\[\]]+'  # a node's name as the graphviz package writes it
_STATEMENT = re.compile(rf"\t({_ID})(?: -> ({_ID}))?( \[.*\])?\n?", re.S)
_CORNER = "still layout corner"

# A body line of a frame: ((name, None) for a node or (tail, head) for an edge, line, attributes)
Statement = tuple[tuple[str, str | None], str, str]


def _statements(g: graphviz.Digraph) -> list[Statement] | None:
    """Each line of ``g``'s body as a node or an edge statement; ``None`` if a line is neither."""
    found = []
    for line in g.body:
        m = _STATEMENT.fullmatch(line)
        if m is None:
            return None
        found.append(((m.group(1), m.group(2)), line.rstrip("\n"), m.group(3) or ""))
    return found


def _like(g: graphviz.Digraph, body: list[str], **graph_attr: str) -> graphviz.Digraph:
    """A graph with ``g``'s name and default attributes, ``body``, and more graph attributes."""
    return graphviz.Digraph(g.name, graph_attr={**g.graph_attr, **graph_attr},
                            node_attr=dict(g.node_attr), edge_attr=dict(g.edge_attr), body=body)


def _dot_json(graphs: list[graphviz.Digraph]) -> list[dict[str, Any]]:
    """The graphs laid out by one dot run (or the plugged-in renderer), each as Graphviz's JSON
    (``-Tjson0``); ``ValueError`` if the JSON does not parse."""
    text = texts("json0", graphs)
    decoder, found, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        laid, at = decoder.raw_decode(text, at)
        found.append(laid)
    return found


def _sizes(g: graphviz.Digraph, frames: list[list[Statement]]) -> graphviz.Digraph:
    """Each node of a pass in every form it takes in its frames, unlinked at (0, 0): to measure."""
    body = []
    for j, forms in enumerate(zip(*frames)):
        looks = dict.fromkeys(attrs for (_, head), _, attrs in forms if head is None)
        body += [f'\t"{j}.{n}"{attrs} [pos="0,0"]\n' for n, attrs in enumerate(looks)]
    return _like(g, body, layout="nop")


def _layout(g: graphviz.Digraph, frames: list[list[Statement]],
            sizes: dict[str, Any]) -> graphviz.Digraph:
    """A pass's graph to lay out: each node at its largest size, each edge in its longest form
    (with the gradient it carries in one frame)."""
    most: dict[int, tuple[float, float]] = {}
    for obj in sizes.get("objects", []):
        j = int(obj["name"].split(".")[0])
        w, h = most.get(j, (0.0, 0.0))
        most[j] = (max(w, float(obj["width"])), max(h, float(obj["height"])))
    body = []
    for j, forms in enumerate(zip(*frames)):
        longest = max((line for _, line, _ in forms), key=len)
        if forms[0][0][1] is None:
            w, h = most[j]
            body.append(f"{longest} [width={w} height={h} fixedsize=true still={j}]\n")
        else:
            body.append(f"{longest} [still={j}]\n")
    return _like(g, body)


def _placed(g: graphviz.Digraph, statements: list[Statement], layout: dict[str, Any],
            ids: int | None = None) -> graphviz.Digraph:
    """Frame ``g`` drawn at the places of its pass's ``layout`` (NOTE [One layout per pass]);
    with ``ids=p`` statement ``j`` has the id ``still<p>_<j>`` (NOTE [One picture per pass])."""
    places = {}
    for obj in layout.get("objects", []):
        if "still" in obj:
            places[int(obj["still"])] = (f'pos="{obj["pos"]}" width={obj["width"]} '
                                         f'height={obj["height"]} fixedsize=true')
    for edge in layout.get("edges", []):
        if "still" in edge:
            lp = f' lp="{edge["lp"]}"' if "lp" in edge else ""
            places[int(edge["still"])] = f'pos="{edge["pos"]}"{lp}'
    named = (lambda j: "") if ids is None else (lambda j: f' id="still{ids}_{j}"')
    body = [f"{line} [{places[j]}{named(j)}]\n" for j, (_, line, _) in enumerate(statements)]
    return _like(g, body + _corners(layout["bb"]), layout="nop2")


def _corners(box: str) -> list[str]:
    """Two invisible points at the corners of the bounding box ``box`` ("x0,y0,x1,y1")."""
    x0, y0, x1, y1 = box.split(",")
    return [f'\t"{_CORNER} {k}" [label="" shape=point style=invis width=0 height=0 '
            f'pos="{x},{y}"]\n' for k, (x, y) in enumerate(((x0, y0), (x1, y1)))]


def _laid(drawn: list[graphviz.Digraph],
          passes: list[list[int]]) -> list[tuple[list[int], list[list[Statement]], dict[str, Any]]]:
    """The passes that can be laid out once (NOTE [One layout per pass]): each as its frames (a
    list of indices into ``drawn``), their statements and its layout; ``[]`` if dot's JSON fails."""
    laid = []
    for group in passes:
        parsed = [p for p in (_statements(drawn[i]) for i in group) if p is not None]
        keys = [[key for key, _, _ in p] for p in parsed]
        if len(parsed) == len(group) and all(k == keys[0] for k in keys):  # dot.py's frames: always
            laid.append((group, parsed))
    if not laid:
        return []
    try:
        sizes = _dot_json([_sizes(drawn[group[0]], parsed) for group, parsed in laid])
        layouts = _dot_json([_layout(drawn[group[0]], parsed, size)
                             for (group, parsed), size in zip(laid, sizes)])
    except GraphvizTimeout:
        raise
    except (ValueError, RuntimeError):  # no JSON (a renderer that draws SVG only): each frame
        return []                       # is laid out alone
    return [(group, parsed, layout) for (group, parsed), layout in zip(laid, layouts)]


# NOTE [One picture per pass]
# The frames of a pass share one layout (NOTE [One layout per pass]), so they differ only inside
# a few nodes and edges: a grad written in, the visited node's red outline, the gradients red on
# its edges.  The page holds one SVG per pass, each node and edge in the form it takes in the
# pass's first frame, and each other form a node or an edge takes, drawn once by nop2 at the same
# place (a few pictures of the pass, the i-th holding each one's i-th form).  A frame lists only
# the nodes and edges whose form differs from the frame before, and the page's script swaps their
# contents in (found by the ids given to them in the DOT: "still<pass>_<statement>").  A 350-step
# pass is then one picture and its pieces (3 MB), not 350 pictures (460 MB), and the sheets are
# drawn in one bounding box (``_bounded``), so that the pieces fit the picture exactly.

_PIECE = re.compile(r'<g id="still(\d+)_(\d+)" class="(?:node|edge)">(.*?)</g>', re.S)
_GRAPH_ID = re.compile(r'<g id="[^"]*" class="graph"')  # dot numbers the graphs of one run
_FONT = re.compile(r'font-size="([0-9.]+)"')


def _forms(parsed: list[list[Statement]]) -> tuple[list[list[Statement]], list[list[int]]]:
    """Each statement's forms in a pass, in order of first appearance, and each frame's choice."""
    forms: list[list[Statement]] = [[] for _ in parsed[0]]
    seen: list[dict[str, int]] = [{} for _ in parsed[0]]
    chosen = []
    for statements in parsed:
        row = []
        for j, statement in enumerate(statements):
            row.append(seen[j].setdefault(statement[1], len(seen[j])))
            if row[-1] == len(forms[j]):
                forms[j].append(statement)
        chosen.append(row)
    return forms, chosen


def _sheets(g: graphviz.Digraph, p: int, forms: list[list[Statement]],
            layout: dict[str, Any]) -> list[graphviz.Digraph]:
    """Pass ``p`` drawn once per form: the i-th sheet holds each statement's i-th form (or its
    last), each node and edge with the id ``still<p>_<statement>`` (NOTE [One picture per pass])."""
    most = max(len(f) for f in forms)
    sheets = []
    for i in range(most):
        body = [f[min(i, len(f) - 1)] for f in forms]
        sheets.append(_placed(g, body, layout, ids=p))
    return sheets


def _bounded(sheets: list[list[graphviz.Digraph]]) -> list[list[graphviz.Digraph]]:
    """The sheets of each pass, all inside one bounding box: a gradient's label can reach past
    the layout's box by a fraction of a point, and a sheet's picture would grow by it."""
    if not sheets:
        return sheets
    try:
        boxes = iter(_dot_json([s for pass_sheets in sheets for s in pass_sheets]))
    except GraphvizTimeout:
        raise
    except (ValueError, RuntimeError):  # no JSON: each sheet in its own box
        return sheets
    bounded = []
    for pass_sheets in sheets:
        corners = [[float(v) for v in next(boxes)["bb"].split(",")] for _ in pass_sheets]
        box = ",".join(str(f(c[k] for c in corners)) for k, f in enumerate((min, min, max, max)))
        bounded.append([_like(s, [line for line in s.body if _CORNER not in line]
                              + _corners(box)) for s in pass_sheets])
    return bounded


def _pieces(p: int, sheets: list[str],
            forms: list[list[Statement]]) -> tuple[str, dict[int, list[str]]] | None:
    """The pass's picture (its first sheet, with its smallest font size) and, by statement, the
    contents of its other forms; ``None`` if the sheets differ elsewhere than in those contents."""
    found = [{int(j): inner for q, j, inner in _PIECE.findall(s) if int(q) == p} for s in sheets]
    rest = [_PIECE.sub(lambda m: f'<g id="still{m[1]}_{m[2]}">', _GRAPH_ID.sub("<g", s))
            for s in sheets]  # all but the contents of the nodes and edges: alike
    if any(len(f) != len(forms) for f in found) or any(r != rest[0] for r in rest) \
            or any("<g" in inner for f in found for inner in f.values()):
        return None
    extra = {j: [found[i][j] for i in range(1, len(f))] for j, f in enumerate(forms) if len(f) > 1}
    texts = [sheets[0], *(inner for inners in extra.values() for inner in inners)]
    smallest = min((float(x) for t in texts for x in _FONT.findall(t)), default=14.0)
    first = _GRAPH_ID.sub('<g id="graph0" class="graph"', sheets[0], count=1)
    return first.replace("<svg ", f'<svg data-smallest="{smallest}" ', 1), extra


def _shared(drawn: list[graphviz.Digraph], passes: list[list[int]]
            ) -> tuple[list[str], list[dict[str, Any]], list[Any], list[graphviz.Digraph]]:
    """One SVG per pass (NOTE [One picture per pass]): the pictures, each pass's other forms
    (``{"forms": {statement: [contents, ...]}}``), per frame ``[pass, its graph's name,
    [statement, form, ...] changed from the frame before, that frame]`` (``None``: not shared),
    and the graphs to draw alone for the frames not shared (at their pass's layout, if any)."""
    stills: list[str] = []
    extras: list[dict[str, Any]] = []
    data: list[Any] = [None] * len(drawn)
    alone = list(drawn)
    laid = _laid(drawn, passes)
    parts = [(group, *_forms(parsed)) for group, parsed, _ in laid]
    sheets = _bounded([_sheets(drawn[group[0]], p, forms, layout)
                       for p, ((group, forms, _), (_, _, layout)) in enumerate(zip(parts, laid))])
    pictures = svgs([s for pass_sheets in sheets for s in pass_sheets]) or []
    at = 0
    for p, (group, forms, chosen) in enumerate(parts):
        made = _pieces(p, pictures[at:at + len(sheets[p])], forms)
        at += len(sheets[p])
        if made is None:  # not seen (dot.py's sheets differ only there): a picture per frame
            for i, statements in zip(group, laid[p][1]):
                alone[i] = _placed(drawn[i], statements, laid[p][2])
            continue
        for k, i in enumerate(group):
            before = chosen[k - 1] if k else chosen[0]
            changed = [x for j, (f, b) in enumerate(zip(chosen[k], before)) if f != b
                       for x in (j, f)]
            data[i] = [len(stills), drawn[i].name, changed, group[k - 1] if k else -1]
        stills.append(made[0])
        extras.append({"forms": made[1]})
    return stills, extras, data, alone


def stepper(trace: Tracer, path: str | os.PathLike[str], view: str = "autograd", rankdir: str = "LR",
            show_saved: bool = False, title: str = "micrograd2: step through backward",
            inline: bool = True) -> str:
    """Write the step-through page of ``trace`` to ``path`` (one HTML file); return the path.

    ``view``, ``rankdir`` and ``show_saved`` are ``mg.draw``'s; ``title`` heads the page.
    ``inline=False`` links the page's style and script (``stepper.css`` and ``stepper.js``,
    shipped beside this module) instead of holding them: the playground serves them as files.
    """
    events = [e for e in trace.events if e.kind == "backward" and e.step is not None]
    steps, note = _kept([e.step for e in events if e.step is not None])
    by_step = {e.step: e for e in events}
    lines = narration_lines(trace.events, trace.passes, "steps", shorten=False)
    headers = {ln.pass_no: ln.plain for ln in lines if ln.step is None and ln.plain.startswith("backward pass")}
    skeletons = {}
    drawn = []
    for k in steps:
        pass_no = by_step[k].pass_no or 0
        if pass_no not in skeletons:
            skeletons[pass_no] = from_pass(trace, pass_no, show_saved)
        drawn.append(drawing(skeletons[pass_no], view, rankdir, progress(trace, k), name=f"step{k}", legend=False))
    passes: dict[int, list[int]] = {}
    for i, k in enumerate(steps):
        passes.setdefault(by_step[k].pass_no or 0, []).append(i)
    graphs = [g for g, _ in drawn]
    stills, extras, shared, graphs = (_shared(graphs, list(passes.values()))
                                      if can_draw()
                                      else ([], [], [None] * len(graphs), graphs))
    alone = [i for i, d in enumerate(shared) if d is None]  # each drawn as its own picture
    own = svgs([graphs[i] for i in alone])
    pictures = None if own is None else dict(zip(alone, own))
    notes = [note] if note else []
    if pictures is None:
        notes.append(f"Graphviz's dot was not found, so each frame shows its DOT source; to see pictures, {INSTALL}.")
        warnings.warn(notes[-1], GraphvizMissingWarning, stacklevel=2)
    frames = []
    for i, k in enumerate(steps):
        text = [headers.get(by_step[k].pass_no, "")] + [ln.plain for ln in lines if ln.step == k]
        graph, key = drawn[i]
        picture = ("" if shared[i] is not None else pictures[i] if pictures is not None
                   else f'<pre class="dot">{html.escape(graph.source)}</pre>')
        frames.append(_frame(k, steps[-1], by_step[k].node_id or "", picture, key, [t for t in text if t]))
    if not frames:
        notes.append("This trace has no backward step: call .backward() inside the `with mg.trace()` block.")
        frames.append(_frame(0, 0, "", "", None, ["(no backward step)"]))
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)}</title>{_style(inline)}</head><body>"
        f"<header><h1>{html.escape(title)}</h1>{_CONTROLS}</header>"
        + "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes)
        + "\n".join(frames)
        + _stills_html(stills, extras, shared)
        + _script(inline) + "</body></html>\n"
    )
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return str(target)


_CONTROLS = (
    '<button id="prev" type="button">← previous</button><button id="next" type="button">next →</button>'
    '<span id="position"></span>'
    '<span class="zoom"><button id="zoom-out" type="button" title="zoom out (-)">−</button>'
    '<button id="zoom-in" type="button" title="zoom in (+)">+</button>'
    '<button id="zoom-reset" type="button" title="readable size (0)">readable</button>'
    '<button id="zoom-whole" type="button" title="the whole graph, however small">whole graph</button></span>'
    '<span class="keys">keys: ← → step, Home/End first/last; drag the graph to pan</span>'
)


def _stills_html(stills: list[str], extras: list[dict[str, Any]], shared: list[Any]) -> str:
    """The pictures of the passes (hidden: the script moves one into the frame shown) and, as
    JSON, what each frame changes in its pass's picture (NOTE [One picture per pass])."""
    data = json.dumps({"passes": extras, "frames": shared, "minTextPx": MIN_TEXT_PX}, ensure_ascii=False,
                      separators=(",", ":")).replace("</", "<\\/")
    return (f'<div class="passes" hidden>{"".join(stills)}</div>'
            f'<script type="application/json" id="stills">{data}</script>')


def _frame(step: int, total: int, node_id: str, picture: str, key: Legend | None, text: list[str]) -> str:
    """One frame: the graph at this step, its legend, and the narration of the step."""
    return (
        f'<section class="frame" data-step="{step}" data-total="{total}" data-current="{html.escape(node_id)}" '
        f'hidden><div class="graph">{picture}</div><div class="side">{_legend_html(key)}'
        f'<div class="narration">{"".join(_line_html(t) for t in text)}</div></div></section>'
    )


def _line_html(text: str) -> str:
    """A narration line: its indent, then its text, which wraps with a hanging indent (its
    continuation starts two columns further in; stepper.css, with no style attribute)."""
    body = text.lstrip(" ")
    indent = text[:len(text) - len(body)]
    return (f'<div class="line"><span class="indent">{indent}</span>'
            f'<span class="text">{html.escape(body)}</span></div>')


def _legend_html(key: Legend | None) -> str:
    """The frame's legend: only the kinds its picture shows, the visited step, and which way arrows point."""
    if key is None:
        return ""
    items = [f"<li>{_swatch(_CSS_COLOURS.get(colour, colour))}{html.escape(text)}</li>"
             for _, text, colour in key.kinds]
    if key.step is not None:
        items.append(f'<li>{_swatch("lightgrey", "red")}visited at step {key.step}</li>')
    items.append(f"<li>{html.escape(key.arrows)}</li>")
    return f'<ul class="legend">{"".join(items)}</ul>'


def _swatch(fill: str, outline: str = "#555") -> str:
    """A legend's swatch: a little SVG rectangle (its colours are attributes: no inline style)."""
    wide = 3 if outline == "red" else 1
    return (f'<svg class="swatch" viewBox="0 0 28 18" aria-hidden="true"><rect x="{wide / 2}" '
            f'y="{wide / 2}" width="{28 - wide}" height="{18 - wide}" fill="{html.escape(fill)}" '
            f'stroke="{outline}" stroke-width="{wide}"/></svg>')
