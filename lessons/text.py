"""What a lesson prints besides its checks: section headings, and errors as Python prints them.

``section(title)`` sets a part of the lesson apart; ``show_error(exc)`` prints an error's
last line as Python does, wrapped to the page, with micrograd2's own advice (``What to do:
…``, a line PyTorch never prints) set apart and marked as micrograd2's.
"""
from __future__ import annotations

import textwrap

from .session import session

WIDTH = 100  # error messages are wrapped to this width
ADVICE = "What to do:"  # micrograd2's own line in its error messages (PyTorch prints no such line)


def section(title: str) -> None:
    """Print a section heading: a rule across the page, under the cell's source."""
    session().write(f"── {title} " + "─" * max(3, 76 - len(title)), "section")


def show_error(exc: BaseException) -> None:
    """Print ``exc`` as Python prints an error's last line, wrapped to the page.

    micrograd2's errors end with a line of advice, ``What to do: …``, that PyTorch
    does not print: it is set apart and marked as micrograd2's.
    """
    s = session()
    message = str(exc)
    ours = ""
    if f"\n{ADVICE}" in message:
        message, ours = message.split(f"\n{ADVICE}", 1)
    for line in f"{type(exc).__name__}: {message}".splitlines():
        for part in textwrap.wrap(line, WIDTH, subsequent_indent="    ") or [""]:
            s.write(f"  {part}", "error")
    if ours:
        advice = f"[micrograd2's advice, not printed by PyTorch] {ADVICE}{ours}"
        for part in textwrap.wrap(advice, WIDTH, subsequent_indent="    "):
            s.write(f"  {part}", "advice")
