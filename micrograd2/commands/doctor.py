"""``micrograd2 doctor``: what is installed and usable — Graphviz ``dot``, NumPy, pycuda, a GPU, torch."""
from __future__ import annotations

import importlib.util
import shutil
from typing import Callable

import click

Check = tuple[str, Callable[[], tuple[bool, str]]]


def _dot() -> tuple[bool, str]:
    path = shutil.which("dot")
    if path:
        return True, path
    return False, ("Graphviz's dot is missing (diagrams fall back to .dot files): apt-get install graphviz | "
                   "brew install graphviz | conda install graphviz")


def _module(name: str, hint: str) -> Callable[[], tuple[bool, str]]:
    def check() -> tuple[bool, str]:
        spec = importlib.util.find_spec(name)
        if spec is None:
            return False, hint
        try:
            module = importlib.import_module(name)
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


CHECKS: list[Check] = [
    ("Graphviz dot", _dot),
    ("NumPy", _module("numpy", "pip install numpy (needed by mg.tensor)")),
    ("torch (parity tests)", _module("torch", "pip install torch==2.13.0 (optional: parity tests only)")),
    ("pycuda + GPU", _cuda),
]


@click.command()
def command() -> None:
    """Check what is installed and usable: Graphviz dot, NumPy, torch, pycuda and a GPU."""
    for name, check in CHECKS:
        ok, detail = check()
        mark = click.style("found  ", fg="green") if ok else click.style("missing", fg="yellow")
        click.echo(f"{mark} {name:22s} {detail}")
