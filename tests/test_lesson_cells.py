"""``micrograd2.commands.lesson_cells``: a percent script splits into cells at real line numbers, its
header names the lesson, and prose prints as prose."""
from __future__ import annotations

import io

from micrograd2.commands.lesson_cells import Printer, cells, echoed, header


def test_cells_split_at_percent_lines_and_keep_real_line_numbers() -> None:
    text = "# %% [markdown]\n# # Lesson 9: T\n#\n# The goal.\n\n# %%\nx = 1\n\n# %%\n\ny = 2\n"
    found = cells(text)
    assert [(c.kind, c.line) for c in found] == [("markdown", 2), ("code", 7), ("code", 11)]
    assert found[0].source == "# Lesson 9: T\n\nThe goal.\n" and found[2].source == "y = 2\n"
    about = header(text, "fallback")
    assert (about.number, about.title, about.goal) == (9, "T", "The goal.")
    assert header("x = 1\n", "f.py").title == "f.py"


def test_prose_prints_headings_plainly_and_fenced_code_with_a_gutter() -> None:
    stream = io.StringIO()
    Printer(stream, color=False, quiet=False).prose("# Title\n\nText.\n\n```python\n# a comment\nx = 1\n```\n")
    assert stream.getvalue() == "\nTitle\n\nText.\n\n  ┆ # a comment\n  ┆ x = 1\n"


def test_quiet_printing_writes_nothing() -> None:
    stream = io.StringIO()
    printer = Printer(stream, color=False, quiet=True)
    printer.code("x = 1\n")
    printer.prose("Text.\n")
    assert stream.getvalue() == ""


def test_the_echo_shows_a_run_of_checks_in_one_line_that_says_where_they_are() -> None:
    source = ("x = 1\n\ncheck('a', x, 1)\ncheck('b', x,\n      1)\nprint(x)\n"
              "raises('c', lambda: 1 / 0,\n       ZeroDivisionError)\n")
    assert echoed(source, 10, "01_graph.py") == [
        "x = 1",
        "check(...) × 2  # 01_graph.py:12-14; each result below",
        "print(x)",
        "raises(...)  # 01_graph.py:16-17; its result below",
    ]


def test_the_echo_keeps_a_one_line_check_and_code_it_cannot_parse() -> None:
    assert echoed("check('a', 1, 1)\n") == ["check('a', 1, 1)"]
    assert echoed("x = (\n\ncheck(\n") == ["x = (", "check("]
