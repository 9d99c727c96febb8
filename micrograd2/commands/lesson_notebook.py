"""A lesson script as a Jupyter notebook (``micrograd2 lesson notebook N``), through jupytext.

jupytext reads the percent-format script (``# %%`` cells) into a notebook.  One
cell is added in front: it calls ``narrate_cells()``, so in Jupyter each cell's
backward passes are narrated under its output, as ``micrograd2 lesson run`` does.
Diagrams show inline: ``show_graph`` returns an object with ``_repr_svg_``.
A notebook already there is not overwritten without ``--force`` (``overwrite.py``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .overwrite import write_new

NARRATION_CELL = (
    "# Added by `micrograd2 lesson notebook`: each cell's backward passes are narrated under its output.\n"
    "from micrograd2.lessons.narration import narrate_cells\n"
    "\n"
    "narrate_cells()"
)
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def to_notebook(text: str) -> Any:
    """The script ``text`` as an ``nbformat`` notebook, with the narration cell in front."""
    jupytext = _needs("jupytext")
    nbformat = _needs("nbformat")
    notebook = jupytext.reads(text, fmt="py:percent")
    notebook.cells.insert(0, nbformat.v4.new_code_cell(NARRATION_CELL, metadata={"tags": ["micrograd2"]}))
    notebook.metadata["kernelspec"] = dict(KERNEL)
    notebook.metadata.pop("jupytext", None)
    return notebook


def write_notebook(text: str, target: Path, force: bool = False) -> Path:
    """Write the script ``text`` as the notebook ``target``; return its path.

    A notebook already at ``target`` may hold the student's edits: without ``force`` it is
    left as it is and ``overwrite.Refused`` ends the command (exit 2)."""
    nbformat = _needs("nbformat")
    written = nbformat.writes(to_notebook(text))
    return write_new(target, written if written.endswith("\n") else written + "\n", force)


def _needs(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        raise click.ClickException(
            f"writing notebooks needs {name}: pip install 'micrograd2[notebook]'") from None
