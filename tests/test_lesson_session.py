"""``micrograd2.lessons.session``: one lesson's checks are its own; a check line reads on any terminal."""
from __future__ import annotations

import io

from micrograd2.lessons import checks
from micrograd2.lessons.session import mark, session, start_session


def test_an_ascii_terminal_gets_ok_and_fail_instead_of_ticks() -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    assert mark(True, stream) == "OK" and mark(False, stream) == "FAIL"


def test_a_summary_ends_the_session_so_the_next_lesson_counts_its_own_checks() -> None:
    stream = io.StringIO()
    first = start_session(stream=stream, strict=False)
    checks.check("one", 1, 1)
    checks.check("two", 2, 2)
    checks.summary("Lesson A")
    checks.check("three", 3, 3)  # the next lesson, in the same process, with no start_session between
    second = session()
    checks.summary("Lesson B")
    assert second is not first and len(first.checks) == 2 and len(second.checks) == 1
    assert second.stream is stream and not second.strict  # the options carry over
    assert "Lesson A: 2 checks:" in stream.getvalue() and "Lesson B: 1 checks:" in stream.getvalue()
    start_session()
