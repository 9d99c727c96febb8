"""Tests for micrograd2.viz.stepper: the step-through page, read as HTML and driven in a real browser.

The page must be one self-contained file (no network), hold one frame per
backward step (an SVG, or the DOT source without Graphviz) with that step's
narration and a legend of only what it shows, keep only the first and last
frames past MAX_FRAMES, and step with its buttons, the arrow keys, Home and End
in headless Chromium.  There, at 1024 and 1400 px wide, the article's block 2
and an MLP(2, [3, 1]) step are measured: no text under 10 px, no line of
narration cut, the page never wider than the window, the visited node and its
gradients in view (and block 2's whole graph).  Every frame of a pass draws each
node at the same place and size (in the SVG, and on the screen), and the
narration starts at the same place in every frame, even across passes.
"""
from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import HOSTILE_LABELS, block2_trace, hostile_trace

import micrograd2 as mg
from micrograd2.tracing import Tracer
from micrograd2.tracing.values import format_value
from micrograd2.viz import GraphvizMissingWarning, stepper
from micrograd2.viz.dot import drawing
from micrograd2.viz.graph import from_pass, progress
from micrograd2.viz.render import svgs
from micrograd2.viz.stepper import MAX_FRAMES

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)


def mlp_trace() -> Tracer:
    with mg.trace() as t:
        model = mg.nn.MLP(2, [3, 1], seed=0)
        x = [mg.Value(1.0, label="x[0]"), mg.Value(-2.0, label="x[1]")]
        loss = mg.nn.functional.mse_loss(model(x), mg.Value(1.0, label="y"))
        loss.backward()
    return t


def frames(page: str) -> list[tuple[str, str]]:
    """(data-step, inner HTML) of each frame."""
    return re.findall(r'<section class="frame" data-step="(\d+)"[^>]*>(.*?)</section>', page, re.S)


def graph_pictures(page: str) -> int:
    """How many SVG pictures of a graph ``page`` holds (the legends' swatches are SVG too)."""
    return len(re.findall(r'<svg (?!class="swatch")', page))


def pictures(page: str) -> list[str | None]:
    """Each frame's SVG as the page's script shows it (NOTE [One picture per pass]): its own, or
    its pass's picture with the contents of the nodes and edges the frame changes swapped in;
    ``None`` where the frame shows DOT source."""
    data = json.loads(re.search(r'<script type="application/json" id="stills">(.*?)</script>',
                                page, re.S).group(1))
    passes = re.search(r'<div class="passes" hidden>(.*?)</div><script', page, re.S).group(1)
    stills = re.findall(r"<svg\b.*?</svg>", passes, re.S)
    shown: list[str | None] = []
    for i, ((_, body), d) in enumerate(zip(frames(page), data["frames"], strict=True)):
        if d is None:
            own = re.search(r'<div class="graph">(<svg\b.*?</svg>)', body, re.S)
            shown.append(own.group(1) if own else None)
            continue
        assert '<div class="graph"></div>' in body  # the script moves the pass's picture in
        chain, k = [], i
        while k >= 0:
            chain.append(data["frames"][k][2])
            k = data["frames"][k][3]
        want: dict[int, int] = {}
        for changed in reversed(chain):
            want.update(zip(changed[::2], changed[1::2]))
        forms = data["passes"][d[0]]["forms"]

        def swap(m: re.Match[str], want: dict[int, int] = want, forms: dict = forms) -> str:
            form = want.get(int(m.group(2)), 0)
            return m.group(0) if form == 0 else m.group(1) + forms[m.group(2)][form - 1] + "</g>"

        svg = re.sub(r'(<g id="still\d+_(\d+)" class="(?:node|edge)">)(.*?)</g>', swap,
                     stills[d[0]], flags=re.S)
        shown.append(re.sub(r"<title>.*?</title>", f"<title>{d[1]}</title>", svg, count=1))
    return shown


def tanh_trace() -> Tracer:
    """A pass whose leaf goes from "grad None" to a many-digit gradient; edges carry long ones."""
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        (x * x * 3.25 + x).tanh().backward()
    return t


SVG = "{http://www.w3.org/2000/svg}"


def geometry(svg: str, texts: bool) -> dict[str, object]:
    """Where an SVG frame draws things: its size, its graph's transform, and each node's shapes
    (polygon points, ellipse centre and radii) and, with ``texts``, its texts' places, by title."""
    root = ET.fromstring(svg)
    found: dict[str, object] = {"svg": (root.get("width"), root.get("height"), root.get("viewBox")),
                                "transform": root.find(f"{SVG}g").get("transform")}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "node":
            shapes = [(e.tag, e.get("points"), e.get("cx"), e.get("cy"), e.get("rx"), e.get("ry"))
                      for e in g if e.tag in (f"{SVG}polygon", f"{SVG}ellipse")]
            where = [(t.get("x"), t.get("y")) for t in g.iter(f"{SVG}text")] if texts else []
            found[g.find(f"{SVG}title").text] = (shapes, where)
    return found


def test_page_is_self_contained_with_one_frame_per_step(tmp_path: Path) -> None:
    path = stepper(block2_trace(), tmp_path / "block2.html")
    page = Path(path).read_text()
    assert re.search(r"<(script|img|link|iframe)[^>]+(src|href)=", page) is None  # nothing fetched
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', "")
    found = frames(page)
    assert [step for step, _ in found] == ["1", "2", "3"]
    for (step, body), picture in zip(found, pictures(page), strict=True):
        assert (picture is not None) == bool(shutil.which("dot"))
        assert f"step {step}   " in body  # the narration of that step
        assert "backward pass 1 from z = 23.0" in body
    assert "x[1]: 1.0 × w[1] (5.0) = 5.0" in found[1][1] and "x[1]: 1.0" not in found[2][1]


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
@pytest.mark.parametrize("view", ["autograd", "value"])
def test_every_frame_draws_each_node_at_the_same_place_and_size(tmp_path: Path, view: str) -> None:
    page = Path(stepper(tanh_trace(), tmp_path / "tanh.html", view=view)).read_text()
    found = frames(page)
    shown = pictures(page)
    assert len(shown) == 4 and graph_pictures(page) == 1  # one picture for the pass
    assert "grad None" in shown[0] and "grad None" not in shown[-1]  # the leaf's text grows
    assert all(re.search(r'<text [^>]*fill="red"[^>]*>grad ', p) for p in shown[:-1])  # on edges
    # a box's text is centred in it, so it stays too; the value view's record (label | data | grad)
    # shares its width among its fields by their text, so the lines between them may move inside it
    first = geometry(shown[0], texts=view == "autograd")
    assert len(first) > 6
    for step, picture in zip([s for s, _ in found][1:], shown[1:]):
        now = geometry(picture, texts=view == "autograd")
        moved = sorted(n for n in first.keys() | now.keys() if first.get(n) != now.get(n))
        assert moved == [], f"step {step} ({view} view) moves or resizes {moved}"


def drawn_alone(t: Tracer, view: str) -> list[str]:
    """Each frame of ``t``'s one pass drawn as its own picture at the pass's layout (the page
    before NOTE [One picture per pass]), all in the box that holds every frame's picture."""
    st = importlib.import_module("micrograd2.viz.stepper")
    events = [e for e in t.events if e.kind == "backward" and e.step is not None]
    sk = from_pass(t, events[0].pass_no, False)
    graphs = [drawing(sk, view, "LR", progress(t, e.step), name=f"step{e.step}", legend=False)[0]
              for e in events]
    [(group, parsed, layout)] = st._laid(graphs, [list(range(len(graphs)))])
    return svgs(st._bounded([[st._placed(graphs[i], parsed[i], layout) for i in group]])[0])


def without_ids(svg: str) -> str:
    return re.sub(r'<g id="[^"]*" class="(graph|node|edge)"', r'<g class="\1"',
                  re.sub(r' data-smallest="[^"]*"', "", svg))


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
@pytest.mark.parametrize("view", ["autograd", "value"])
def test_each_frame_is_the_picture_it_would_be_drawn_alone(tmp_path: Path, view: str) -> None:
    for t in (tanh_trace(), mlp_trace()):
        shown = pictures(Path(stepper(t, tmp_path / "p.html", view=view)).read_text())
        alone = drawn_alone(t, view)
        assert len(shown) == len(alone) > 3
        for k, (mine, theirs) in enumerate(zip(shown, alone)):
            assert without_ids(mine) == without_ids(theirs), f"frame {k + 1} ({view} view)"


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_a_pass_whose_pictures_differ_elsewhere_gets_a_picture_per_frame_at_its_layout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.import_module("micrograd2.viz.stepper"), "_pieces",
                        lambda p, sheets, forms: None)
    page = Path(stepper(tanh_trace(), tmp_path / "p.html")).read_text()
    assert graph_pictures(page) == 4 and '"frames":[null,null,null,null]' in page
    assert ([without_ids(svg) for svg in pictures(page)]
            == [without_ids(svg) for svg in drawn_alone(tanh_trace(), "autograd")])


def hundred_steps_trace() -> Tracer:
    """An MLP(2, [8, 8, 1]) on 3 samples: one pass of about 100 steps."""
    with mg.trace() as t:
        model = mg.nn.MLP(2, [8, 8, 1], seed=0)
        xs = [[mg.Value(0.1 * i), mg.Value(1.0 - 0.2 * i)] for i in range(3)]
        mg.sum((model(x) - 1.0) ** 2 for x in xs).backward()
    return t


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_a_hundred_step_page_is_small_and_its_frames_show_the_grads_of_their_step(
        tmp_path: Path) -> None:
    t = hundred_steps_trace()
    page = Path(stepper(t, tmp_path / "mlp.html")).read_text()
    assert len(page.encode()) < 3_000_000  # one picture per pass (each frame its own: 49 MB)
    found, shown = frames(page), pictures(page)
    assert len(found) >= 100 and graph_pictures(page) == 1
    leaves = {n.label: n for n in from_pass(t, 1, False).nodes.values() if n.is_leaf}
    for label in ("l2.n0.w[0]", "l0.n0.w[0]", "l0.n0.b"):  # last layer first, then the first
        box = re.compile(rf"<title>{re.escape(leaves[label].id)} leaf</title>.*?</g>", re.S)  # its box
        for k in (0, len(shown) // 3, len(shown) // 2, len(shown) - 1):  # the grad of that step
            pr = progress(t, int(found[k][0]))
            node = leaves[label].id
            grad = format_value(pr.grads[node]) if node in pr.grads else "None"
            grad += " (so far)" if node in pr.partial else ""
            text = " ".join(re.findall(r">([^<]*)</text>", box.search(shown[k]).group(0)))
            assert text.replace("&#45;", "-").endswith(f"grad {grad}"), f"frame {k + 1}: {text}"
    assert "grad None" in shown[0] and "grad None" not in shown[-1]


def test_each_frame_has_a_legend_of_what_it_shows_and_says_which_way_arrows_point(tmp_path: Path) -> None:
    page = Path(stepper(block2_trace(), tmp_path / "block2.html")).read_text()
    for step, body in frames(page):
        legend = re.search(r'<ul class="legend">(.*?)</ul>', body).group(1)
        entries = re.findall(r"</svg>([^<]+)</li>", legend)
        assert entries == ["leaf that requires grad", "grad_fn node", "output", f"visited at step {step}"]
        fills = re.findall(r'<svg class="swatch"[^>]*><rect [^>]*fill="([^"]+)" stroke="([^"]+)"', legend)
        assert fills == [("lightblue", "#555"), ("lightgrey", "#555"), ("#caff70", "#555"),
                         ("lightgrey", "red")]  # Graphviz's colours, darkolivegreen1 as CSS knows it
        assert "<li>arrows: gradients, output → leaves</li>" in legend
        assert "constant" not in legend and "saved for backward" not in legend
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        (x * 3.0).exp().backward()
    page = Path(stepper(t, tmp_path / "value.html", view="value", show_saved=True)).read_text()
    legend = re.search(r'<ul class="legend">(.*?)</ul>', frames(page)[0][1]).group(1)
    assert "constant (needs no grad)" in legend and "intermediate value" in legend


def test_narration_lines_wrap_with_a_hanging_indent(tmp_path: Path) -> None:
    page = Path(stepper(block2_trace(), tmp_path / "block2.html")).read_text()
    assert ('<div class="line"><span class="indent">' + " " * 8 + '</span><span class="text">'
            "→ x[1]: 1.0 × w[1] (5.0) = 5.0</span></div>") in page
    assert ".narration .text { white-space: pre-wrap; padding-left: 2ch; text-indent: -2ch;" in page


def test_the_style_and_script_are_package_files_inline_or_linked(tmp_path: Path) -> None:
    """stepper.css and stepper.js ship with the package; the page holds them, or with
    ``inline=False`` links them (the playground, whose policy allows no inline style or script).
    No element has a style attribute: the legend's swatches are SVG, the indents are CSS."""
    viz = Path(mg.viz.__file__).parent
    css, js = ((viz / name).read_text(encoding="utf-8") for name in ("stepper.css", "stepper.js"))
    page = Path(stepper(block2_trace(), tmp_path / "inline.html")).read_text()
    assert f"<style>{css}</style>" in page and f"<script>{js}</script>" in page
    linked = Path(stepper(block2_trace(), tmp_path / "linked.html", inline=False)).read_text()
    assert "<style>" not in linked and css not in linked and js not in linked
    assert '<link rel="stylesheet" href="stepper.css">' in linked
    assert '<script src="stepper.js"></script>' in linked
    for text in (page, linked):
        assert re.search(r"\sstyle=", text) is None
        assert '<svg class="swatch"' in text  # the legend's colours: fill attributes


def test_without_dot_frames_show_the_dot_source_and_say_how_to_install(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = Path(stepper(block2_trace(), tmp_path / "p.html")).read_text()
    assert [w.category for w in caught] == [GraphvizMissingWarning]
    assert "apt-get install graphviz" in page and "brew install graphviz" in page
    for _, body in frames(page):
        assert '<pre class="dot">digraph step' in body and graph_pictures(body) == 0


def test_past_max_frames_the_first_and_last_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # DOT frames: fast
    with mg.trace() as t:
        x = mg.Value(1.0, requires_grad=True, label="x")
        y = x
        for _ in range(MAX_FRAMES + 100):
            y = y * 1.0
        y.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphvizMissingWarning)
        page = Path(stepper(t, tmp_path / "long.html")).read_text()
    steps = [int(s) for s, _ in frames(page)]
    half = MAX_FRAMES // 2
    assert len(steps) == MAX_FRAMES
    assert steps == list(range(1, half + 1)) + list(range(MAX_FRAMES + 100 - half + 1, MAX_FRAMES + 101))
    assert f"steps {half + 1} to {MAX_FRAMES + 100 - half} are left out" in page


def test_a_trace_without_backward_says_so(tmp_path: Path) -> None:
    with mg.trace() as t:
        mg.Value(1.0) + 2.0
    page = Path(stepper(t, tmp_path / "none.html")).read_text()
    assert "This trace has no backward step" in page


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_hostile_labels_draw_as_text_in_every_frame(tmp_path: Path) -> None:
    """NOTE [Labels are text] in viz/dot.py: labels holding markup, quotes, backslashes, braces,
    newlines and Unicode draw in every frame, and the page's only scripts are its own two."""
    page = Path(stepper(hostile_trace()[0], tmp_path / "hostile.html")).read_text()
    assert "Graphviz dot failed" not in page
    assert len(frames(page)) == 1 + len(HOSTILE_LABELS)  # the sum, then each product
    assert re.findall(r"<script[^>]*>", page) == ['<script type="application/json" id="stills">', "<script>"]
    assert "<img" not in page and "<b>" not in page
    for picture in pictures(page):
        assert picture is not None
        texts = ["".join(t.itertext()) for t in ET.fromstring(picture).iter(f"{SVG}text")]
        for label in HOSTILE_LABELS:
            assert all(any(part in text for text in texts) for part in label.split("\n")), label


def chromium(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A headless Chromium driven by Selenium (never downloads a driver)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "1")  # never let Selenium Manager download a driver
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="needs Chromium and chromedriver")
def test_buttons_and_arrow_keys_step_through_in_chromium(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    path = Path(stepper(block2_trace(), tmp_path / "block2.html"))
    driver = chromium(tmp_path, monkeypatch)
    try:
        driver.get(path.as_uri())

        def shown() -> tuple[str, str, bool]:
            visible = [f for f in driver.find_elements(By.CSS_SELECTOR, ".frame") if f.is_displayed()]
            assert len(visible) == 1
            frame = visible[0]
            has_picture = bool(frame.find_elements(By.CSS_SELECTOR, "svg, pre.dot"))
            return frame.get_attribute("data-step"), frame.find_element(By.CSS_SELECTOR, ".narration").text, has_picture

        def at(step: int) -> None:
            number, text, has_picture = shown()
            assert number == str(step) and has_picture
            assert f"step {step}" in text
            assert driver.find_element(By.ID, "position").text.startswith(f"step {step} of 3")

        prev, nxt = driver.find_element(By.ID, "prev"), driver.find_element(By.ID, "next")
        at(1)
        assert not prev.is_enabled()
        nxt.click()
        at(2)
        assert "x[1]: 1.0 × w[1] (5.0) = 5.0" in shown()[1]
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.ARROW_RIGHT)
        at(3)
        assert not nxt.is_enabled()
        body.send_keys(Keys.ARROW_RIGHT)  # past the end: stays
        at(3)
        body.send_keys(Keys.ARROW_LEFT)
        at(2)
        prev.click()
        at(1)
        body.send_keys(Keys.END)
        at(3)
        body.send_keys(Keys.HOME)
        at(1)
    finally:
        driver.quit()


# What the frame shown draws, node by node and edge by edge: its title, texts and the strokes of
# its shapes (the visited node's red outline, the red gradients on its edges).
DRAWN = """
var frame = Array.prototype.find.call(document.querySelectorAll('.frame'),
                                      function (f) { return !f.hidden; });
return Array.prototype.map.call(frame.querySelectorAll('.graph svg g.node, .graph svg g.edge'),
  function (g) {
    return [g.querySelector('title').textContent,
            Array.prototype.map.call(g.querySelectorAll('text'),
                                     function (t) { return t.textContent; }),
            Array.prototype.map.call(g.querySelectorAll('path, polygon, ellipse'), function (e) {
              return ['stroke', 'stroke-width', 'fill'].map(function (a) {
                return e.getAttribute(a);
              });
            })];
  });
"""


def drawn(svg: str) -> list[list[object]]:
    """DRAWN, read from an SVG picture."""
    return [[g.find(f"{SVG}title").text, [t.text for t in g.iter(f"{SVG}text")],
             [[e.get("stroke"), e.get("stroke-width"), e.get("fill")] for e in g.iter()
              if e.tag in (f"{SVG}path", f"{SVG}polygon", f"{SVG}ellipse")]]
            for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("class") in ("node", "edge")]


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None or shutil.which("dot") is None,
                    reason="needs Chromium, chromedriver and Graphviz's dot")
def test_the_script_shows_each_frame_as_the_page_records_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    path = Path(stepper(mlp_trace(), tmp_path / "mlp.html"))
    expected = [drawn(svg) for svg in pictures(path.read_text())]
    driver = chromium(tmp_path, monkeypatch)
    try:
        driver.get(path.as_uri())
        body = driver.find_element(By.TAG_NAME, "body")
        last = len(expected) - 1
        assert len(set(map(str, expected))) == len(expected)  # every frame draws something new
        # forward, a jump to the end, backward, a jump to the start: each frame as recorded
        for keys, k in [([], 0), ([Keys.ARROW_RIGHT], 1), ([Keys.ARROW_RIGHT], 2),
                        ([Keys.END], last), ([Keys.ARROW_LEFT], last - 1),
                        ([Keys.ARROW_LEFT] * 3, last - 4),
                        ([Keys.HOME], 0), ([Keys.ARROW_RIGHT] * 5, 5)]:
            if keys:
                body.send_keys(*keys)
            assert driver.execute_script(DRAWN) == expected[k], f"frame {k + 1}"
    finally:
        driver.quit()


# What the page measures in the browser, for the frame shown: every text's size in CSS pixels (SVG text
# scaled by its transform), lines of narration wider than their box, the page's overflow, and which SVG
# texts lie outside the graph's visible area (the visited node's, its gradients' and all the others).
MEASURE = """
var frame = Array.prototype.find.call(document.querySelectorAll('.frame'), function (f) { return !f.hidden; });
var out = {small: [], cut: [], outside: [], outsideMine: [], page: document.documentElement.scrollWidth - innerWidth};
document.querySelectorAll('body *').forEach(function (el) {
  if (el.closest('svg') || el.getClientRects().length === 0) { return; }
  var text = Array.prototype.some.call(el.childNodes, function (n) {
    return n.nodeType === 3 && n.textContent.trim();
  });
  var px = parseFloat(getComputedStyle(el).fontSize);
  if (text && px < 10) { out.small.push(el.tagName + ' ' + px); }
  if (text && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display === 'block') {
    out.cut.push(el.textContent);
  }
});
var pane = frame.querySelector('.graph'), r = pane.getBoundingClientRect();
var left = r.left + pane.clientLeft, top = r.top + pane.clientTop;
var right = left + pane.clientWidth, bottom = top + pane.clientHeight;
out.pans = getComputedStyle(pane).overflowX === 'auto' && getComputedStyle(pane).overflowY === 'auto';
pane.querySelectorAll('svg text').forEach(function (t) {
  var px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
  if (px < 10) { out.small.push('svg ' + t.textContent + ' ' + px); }
  var b = t.getBoundingClientRect(), g = t.closest('g');
  var inside = b.left >= left - 0.5 && b.right <= right + 0.5 && b.top >= top - 0.5 && b.bottom <= bottom + 0.5;
  var title = g.querySelector('title');
  var mine = (g.classList.contains('node') && title.textContent === frame.dataset.current)
             || (g.classList.contains('edge') && g.querySelector('[stroke="red"]') !== null);
  if (!inside) { out.outside.push(t.textContent); if (mine) { out.outsideMine.push(t.textContent); } }
});
var n = frame.querySelector('.narration');
out.narrationCut = n.scrollWidth - n.clientWidth;
return out;
"""


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None or shutil.which("dot") is None,
                    reason="needs Chromium, chromedriver and Graphviz's dot")
@pytest.mark.parametrize("width, height", [(1024, 768), (1400, 900)])
def test_text_is_readable_and_nothing_is_cut_at_1024_and_1400_px(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  width: int, height: int) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    block2 = Path(stepper(block2_trace(), tmp_path / "block2.html"))
    mlp = Path(stepper(mlp_trace(), tmp_path / "mlp.html"))
    driver = chromium(tmp_path, monkeypatch)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        for path, steps, whole in ((block2, range(3), True), (mlp, (0, 4, 10), False)):
            driver.get(path.as_uri())
            assert driver.execute_script("return innerWidth") == width
            body = driver.find_element(By.TAG_NAME, "body")
            for k in steps:
                body.send_keys(Keys.HOME, *[Keys.ARROW_RIGHT] * k)
                m = driver.execute_script(MEASURE)
                where = f"{path.name} frame {k + 1} at {width} px"
                assert m["small"] == [], f"text under 10 px in {where}: {m['small'][:5]}"
                assert m["page"] <= 0 and m["narrationCut"] <= 0 and m["cut"] == [], where
                assert m["pans"] and m["outsideMine"] == [], f"the visited node is not in view in {where}"
                if whole:  # block 2 is small: all of it is in view
                    assert m["outside"] == [], f"{where}: {m['outside']}"
    finally:
        driver.quit()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None or shutil.which("dot") is None,
                    reason="needs Chromium, chromedriver and Graphviz's dot")
def test_a_large_graph_pans_by_dragging_and_zooms_out_to_the_whole(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    driver = chromium(tmp_path, monkeypatch)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 1024, "height": 768, "deviceScaleFactor": 1, "mobile": False})
        driver.get(Path(stepper(mlp_trace(), tmp_path / "mlp.html")).as_uri())
        pane = next(p for p in driver.find_elements(By.CSS_SELECTOR, ".graph") if p.is_displayed())
        before = driver.execute_script("return arguments[0].scrollLeft", pane)
        ActionChains(driver).move_to_element(pane).click_and_hold().move_by_offset(200, 0).release().perform()
        assert driver.execute_script("return arguments[0].scrollLeft", pane) == pytest.approx(before - 200, abs=2)
        driver.find_element(By.ID, "zoom-whole").click()
        m = driver.execute_script(MEASURE)
        assert m["outside"] == []  # the whole graph in view (its text is then small: the reader asked)
        driver.find_element(By.ID, "zoom-reset").click()
        assert driver.execute_script(MEASURE)["small"] == []
    finally:
        driver.quit()


# Where the frame shown puts its parts, in CSS pixels: the narration's box, the graph's pane, the
# legend, and each node's box relative to the picture (the pane scrolls to the visited node).
PLACES = """
var frame = Array.prototype.find.call(document.querySelectorAll('.frame'),
                                      function (f) { return !f.hidden; });
function box(el, from) {
  var r = el.getBoundingClientRect(), o = from ? from.getBoundingClientRect() : {left: 0, top: 0};
  return [r.left - o.left, r.top - o.top, r.width, r.height].map(function (v) {
    return Math.round(v * 100) / 100;
  });
}
var svg = frame.querySelector('.graph svg'), nodes = {};
svg.querySelectorAll('g.node').forEach(function (g) {  // its box (its text may be wider here)
  var shape = g.querySelector('polygon, ellipse');
  if (shape) { nodes[g.querySelector('title').textContent] = box(shape, svg); }
});
return {narration: box(frame.querySelector('.narration')), pane: box(frame.querySelector('.graph')),
        legend: box(frame.querySelector('.legend')), header: box(document.querySelector('header')),
        nodes: nodes, beside: !frame.classList.contains('stacked')};
"""


def near(a: list[float] | None, b: list[float] | None) -> bool:
    """The same box, up to the browser's rounding of scrolled positions (a twentieth of a pixel)."""
    return (a is not None and b is not None and len(a) == len(b)
            and all(abs(x - y) <= 0.05 for x, y in zip(a, b)))


def two_passes_trace(wide: bool) -> Tracer:
    """Two backward passes of different graphs: a small one, then a larger (``wide``: far wider)."""
    with mg.trace() as t:
        x = mg.Value(2.0, requires_grad=True, label="x")
        (x * 3.0).backward()
        ((x * x * 3.25 + x).tanh() if wide else (x * -7.5 + x)).backward()
    return t


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None or shutil.which("dot") is None,
                    reason="needs Chromium, chromedriver and Graphviz's dot")
@pytest.mark.parametrize("width, height", [(1024, 768), (1400, 900)])
def test_the_narration_and_the_boxes_stay_put_from_frame_to_frame(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int, height: int) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    pages = [(Path(stepper(tanh_trace(), tmp_path / "tanh.html")), True),
             (Path(stepper(mlp_trace(), tmp_path / "mlp.html")), True),
             (Path(stepper(block2_trace(), tmp_path / "block2.html")), True),
             (Path(stepper(two_passes_trace(wide=True), tmp_path / "two.html")), False),  # 2 graphs
             (Path(stepper(two_passes_trace(wide=False), tmp_path / "two_small.html")), False)]
    layouts = set()
    driver = chromium(tmp_path, monkeypatch)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1,
                                "mobile": False})
        for path, one_graph in pages:
            driver.get(path.as_uri())
            body = driver.find_element(By.TAG_NAME, "body")
            count = len(driver.find_elements(By.CSS_SELECTOR, ".frame"))
            body.send_keys(Keys.HOME)
            first = driver.execute_script(PLACES)
            layouts.add(first["beside"])
            for k in range(1, count):
                body.send_keys(Keys.ARROW_RIGHT)
                now = driver.execute_script(PLACES)
                where = f"{path.name} frame {k + 1} of {count} at {width} px"
                for part in ("narration", "pane", "legend", "header"):
                    n = 3 if part == "narration" else 4  # the narration's height is its own
                    was, is_ = first[part][:n], now[part][:n]
                    assert near(is_, was), f"the {part} moves in {where}: {was} -> {is_}"
                if one_graph:
                    moved = [(n, box, now["nodes"].get(n)) for n, box in first["nodes"].items()
                             if not near(box, now["nodes"].get(n))]
                    assert moved == [], f"boxes move in {where}: {moved}"
        assert layouts == ({False, True} if width == 1400 else {False})  # beside the text, above it
    finally:
        driver.quit()
