"""``micrograd2.lessons.page``: a line too wide has its vectors summarized as PyTorch prints a long tensor,
then is broken after a whole item, the rest on the lines below; colours take no room."""
from __future__ import annotations

import pytest

from micrograd2.lessons.page import fit


@pytest.mark.parametrize(("line", "fitted"), [
    ("x" * 10, "x" * 10),
    ("    a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]   b = 1", "    a = [1.0, 2.0, 3.0, ..., 6.0, 7.0, 8.0]   b = 1"),
    ("    a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]   b = 1", "    a = [1.0, ..., 8.0]   b = 1"),
])
def test_fit_summarizes_vectors_first(line: str, fitted: str) -> None:
    assert fit(line, len(fitted)) == fitted


@pytest.mark.parametrize(("line", "width", "fitted"), [
    ("    g: 1.0, h: (2.0, 3.0), i: 4.0, j: 5.0", 27,
     "    g: 1.0, h: (2.0, 3.0)\n          i: 4.0, j: 5.0"),
    ("\x1b[1m    a = 1.0, b = 2.0, c = 3.0\x1b[0m", 20,
     "\x1b[1m    a = 1.0, b = 2.0\x1b[0m\n          c = 3.0\x1b[0m"),
    ("    → x: [1.0] × 3.0 = [2.0]   (computed in float16: rounded from [3.0])", 52,
     "    → x: [1.0] × 3.0 = [2.0]\n          (computed in float16: rounded from [3.0])"),
])
def test_what_does_not_fit_goes_on_the_next_lines_and_nothing_is_dropped(line: str, width: int,
                                                                         fitted: str) -> None:
    assert fit(line, width) == fitted
