"""Tests for micrograd2.viz.stepper: the step-through page, read as HTML and driven in a real browser.

The page must be one self-contained file (no network), hold one frame per
backward step (an SVG, or the DOT source without Graphviz) with that step's
narration, keep only the first and last frames past MAX_FRAMES, and step with
its buttons and the arrow keys in headless Chromium.
"""
from __future__ import annotations

import os
import re
import shutil
import warnings
from pathlib import Path

import pytest

import micrograd2 as mg
from micrograd2.tracing import Tracer
from micrograd2.viz import GraphvizMissingWarning, stepper
from micrograd2.viz.stepper import MAX_FRAMES

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)


def block2_trace() -> Tracer:
    with mg.trace() as t:
        x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
        w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
        z = mg.sum(a * b for a, b in zip(x, w))
        z.label = "z"
        z.backward()
    return t


def frames(page: str) -> list[tuple[str, str]]:
    """(data-step, inner HTML) of each frame."""
    return re.findall(r'<section class="frame" data-step="(\d+)"[^>]*>(.*?)</section>', page, re.S)


def test_page_is_self_contained_with_one_frame_per_step(tmp_path: Path) -> None:
    path = stepper(block2_trace(), tmp_path / "block2.html")
    page = Path(path).read_text()
    assert re.search(r"<(script|img|link|iframe)[^>]+(src|href)=", page) is None  # nothing fetched
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', "")
    found = frames(page)
    assert [step for step, _ in found] == ["1", "2", "3"]
    for step, body in found:
        assert ("<svg" in body) == bool(shutil.which("dot"))
        assert f"step {step}   " in body  # the narration of that step
        assert "backward pass 1 from z = 23.0" in body
    assert "x[1]: 1.0 × w[1] (5.0) = 5.0" in found[1][1] and "x[1]: 1.0" not in found[2][1]


def test_without_dot_frames_show_the_dot_source_and_say_how_to_install(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = Path(stepper(block2_trace(), tmp_path / "p.html")).read_text()
    assert [w.category for w in caught] == [GraphvizMissingWarning]
    assert "apt-get install graphviz" in page and "brew install graphviz" in page
    for _, body in frames(page):
        assert '<pre class="dot">digraph step' in body and "<svg" not in body


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


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="needs Chromium and chromedriver")
def test_buttons_and_arrow_keys_step_through_in_chromium(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    monkeypatch.setenv("SE_OFFLINE", "1")  # never let Selenium Manager download a driver
    path = Path(stepper(block2_trace(), tmp_path / "block2.html"))
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
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
    finally:
        driver.quit()
