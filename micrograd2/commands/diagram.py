"""The ``--graph FILE`` and ``--html FILE`` options of ``lesson run`` and ``trace``, defined once.

``--graph`` takes a file whose suffix ``mg.render`` writes (``viz.render.GRAPH_SUFFIXES``) in a folder
that exists, as ``train --plot`` does; ``--html`` the same without the suffix rule.  A step-through
page draws the graph once per backward step, so a pass longer than ``MAX_PAGE_STEPS`` gets no page:
``too_long`` says which pass, and the command says so in one line and goes on.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

MAX_PAGE_STEPS = 100  # a step-through page draws the graph once per step: longer passes are refused


def _existing_folder(text: str) -> Path:
    path = Path(text)
    if not path.parent.is_dir():
        raise click.BadParameter(f"{text}: the folder {path.parent} does not exist (create it first)")
    if path.is_dir():
        raise click.BadParameter(f"{text}: that is a folder; name a file in it")
    return path


def _graph_path(ctx: click.Context, param: click.Parameter, text: str | None) -> Path | None:
    if text is None:
        return None
    from ..viz.render import GRAPH_SUFFIXES  # at parse time, so that --help imports only click

    if Path(text).suffix.lower() not in GRAPH_SUFFIXES:
        raise click.BadParameter(f"{text}: the file must end in {', '.join(GRAPH_SUFFIXES)}")
    return _existing_folder(text)


def _html_path(ctx: click.Context, param: click.Parameter, text: str | None) -> Path | None:
    return None if text is None else _existing_folder(text)


def graph_option(what: str) -> Callable[[Any], Any]:
    """``--graph FILE``: write the graph of ``what`` (a picture with Graphviz, else its DOT source)."""
    return click.option("--graph", metavar="FILE", callback=_graph_path,
                        help=f"Write the graph of {what} (.svg, .png, .pdf; .dot without Graphviz).")


def html_option(what: str) -> Callable[[Any], Any]:
    """``--html FILE``: write a step-through page of ``what``'s backward passes."""
    return click.option("--html", metavar="FILE", callback=_html_path,
                        help=f"Write a step-through page of {what} (passes of at most {MAX_PAGE_STEPS} steps).")


def too_long(events: Any, pass_no: int | None = None) -> tuple[int, int] | None:
    """The first backward pass (of all, or pass ``pass_no``) with more than ``MAX_PAGE_STEPS`` steps,
    as ``(pass number, steps)``; ``None`` when every one fits on a page."""
    counts: dict[int, int] = {}
    for e in events:
        if e.kind == "backward" and e.step is not None and (pass_no is None or e.pass_no == pass_no):
            counts[e.pass_no or 0] = counts.get(e.pass_no or 0, 0) + 1
    return next(((p, n) for p, n in sorted(counts.items()) if n > MAX_PAGE_STEPS), None)


def refused_page(path: Path, where: str, found: tuple[int, int]) -> str:
    """The one-line warning for a page not written because a pass is too long."""
    pass_no, steps = found
    return (f"warning: no {path}: {where} backward pass {pass_no} has {steps} steps, and a step-through page "
            f"is for passes of at most {MAX_PAGE_STEPS}; step through a smaller example (lessons 2-4 have "
            f"small ones), or use --graph for a picture of the graph")
