"""``micrograd2 doctor``: what is installed and usable, and which engine path is on.

One line per check: Python, Graphviz ``dot`` (found, and drawing a one-node
graph as SVG), NumPy, pytest, matplotlib, scikit-learn, torch, pycuda with a
GPU, and the autograd engine path (fast, or the reference path that
``MICROGRAD2_REFERENCE=1`` selects).  A missing piece
says what it is needed for and how to install it.
"""
from __future__ import annotations

import importlib
import importlib.util
import platform
import shutil
import subprocess
import sys
from typing import Callable

import click

Check = tuple[str, Callable[[], tuple[bool, str]]]
REPO_HINT = "in the micrograd2 folder"  # the package is installed from this repository, not from an index


def _python() -> tuple[bool, str]:
    return True, f"Python {platform.python_version()} ({sys.executable})"  # setup.cfg requires >= 3.10


GRAPHVIZ_INSTALL = "apt-get install graphviz | brew install graphviz | conda install graphviz"
ONE_NODE = "digraph { a }"  # the smallest graph: a dot that draws it as SVG can draw every diagram's format
DOT_TIMEOUT_S = 30.0


def _dot() -> tuple[bool, str]:
    """Graphviz's ``dot``: found, and able to draw a one-node graph as SVG (a ``dot`` without its
    plugins is found but draws nothing; ``trace --graph`` would then fail)."""
    path = shutil.which("dot")
    if not path:
        return False, f"Graphviz's dot is missing (diagrams fall back to .dot files): {GRAPHVIZ_INSTALL}"
    try:
        done = subprocess.run([path, "-Tsvg"], input=ONE_NODE.encode(), capture_output=True,
                              timeout=DOT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        said = f"did not finish in {DOT_TIMEOUT_S:g} s" if isinstance(error, subprocess.TimeoutExpired) \
            else str(error)
    else:
        if done.returncode == 0 and b"<svg" in done.stdout:
            return True, f"{path} (draws SVG)"
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        said = lines[0] if lines else f"exit status {done.returncode}, no SVG"
    return False, (f"{path} cannot draw a one-node graph as SVG ({said}), so trace --graph and the "
                   f"notebooks' pictures fail: reinstall Graphviz: {GRAPHVIZ_INSTALL}")


def _module(name: str, hint: str, import_name: str | None = None) -> Callable[[], tuple[bool, str]]:
    """A check that ``import_name`` (default ``name``) imports; ``hint`` says what it is for and how to get it."""
    module_name = import_name or name

    def check() -> tuple[bool, str]:
        if importlib.util.find_spec(module_name) is None:
            return False, hint
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # an installed but broken package
            return False, f"installed but fails to import: {exc}"
        return True, f"{name} {getattr(module, '__version__', '')}".strip()

    return check


def _cuda() -> tuple[bool, str]:
    try:
        from ..backends.cuda import cuda_status
    except ImportError:
        return False, "the CUDA backend is not part of this build"
    return cuda_status()


def engine_path() -> str:
    """``"fast"`` or ``"reference"``: the record of pieces the scalar engine runs on in this
    process (``Value.pieces``: the speed layer's, unless ``MICROGRAD2_REFERENCE=1``)."""
    if importlib.util.find_spec("micrograd2.fast") is None:
        return "reference"
    from ..scalar import Value

    return "fast" if Value.pieces.unwatched_walk is not None else "reference"


def _engine() -> tuple[bool, str]:
    if engine_path() == "fast":
        return True, ("fast path on: the speed layer, for `train` and your own scripts; lessons, "
                      "trace and exercise check run on the reference core (NOTE [Teaching runs "
                      "read as they run]); MICROGRAD2_REFERENCE=1 makes it the reference everywhere")
    if importlib.util.find_spec("micrograd2.fast") is None:
        return True, "reference path (this build has no fast path)"
    return True, "reference path on (MICROGRAD2_REFERENCE is set; unset it for the fast path)"


CHECKS: list[Check] = [
    ("Python", _python),
    ("Graphviz dot", _dot),
    ("NumPy", _module("numpy", "pip install numpy (needed by mg.tensor)")),
    ("pytest", _module("pytest", f"pip install -e . {REPO_HINT} (the exercises are graded by pytest)")),
    ("matplotlib", _module("matplotlib", f"pip install -e '.[plot]' {REPO_HINT} (optional: train --plot)")),
    ("scikit-learn", _module("scikit-learn", "pip install scikit-learn (optional: train --dataset digits)",
                             import_name="sklearn")),
    ("torch (PyTorch)", _module("torch", "pip install torch==2.13.0 (optional: the lessons then compare with "
                                          "PyTorch live, not its recorded output; the parity tests need it)")),
    ("pycuda + GPU", _cuda),
    ("engine", _engine),
]


@click.command()
def command() -> None:
    """Check what is installed and usable, and which engine path is on."""
    for name, check in CHECKS:
        ok, detail = check()
        mark = click.style("ok     ", fg="green") if ok else click.style("missing", fg="yellow")
        click.echo(f"{mark} {name:22s} {detail}")
