"""``micrograd2.lessons.page``: a line too wide has its vectors summarized as PyTorch prints a long tensor,
then is cut after its last whole item; colours take no room."""
from __future__ import annotations

import re

import pytest

from micrograd2.lessons.page import fit


@pytest.mark.parametrize(("line", "fitted"), [
    ("x" * 10, "x" * 10),
    ("    a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]   b = 1", "    a = [1.0, 2.0, 3.0, ..., 6.0, 7.0, 8.0]   b = 1"),
    ("    a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]   b = 1", "    a = [1.0, ..., 8.0]   b = 1"),
    ("    g: 1.0, h: (2.0, 3.0), i: 4.0, j: 5.0", "    g: 1.0, h: (2.0, 3.0) …"),
    ("\x1b[1m    a = 1.0, b = 2.0, c = 3.0\x1b[0m", "\x1b[1m    a = 1.0\x1b[0m …"),
])
def test_fit_summarizes_vectors_then_cuts_after_a_whole_item(line: str, fitted: str) -> None:
    width = len(re.sub(r"\x1b\[[0-9;]*m", "", fitted))
    assert fit(line, width) == fitted
