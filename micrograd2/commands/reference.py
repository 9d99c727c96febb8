"""``--reference``, the option of ``lesson run`` and ``trace`` that runs on the reference path.

The speed layer (``micrograd2/fast/``) is switched on or off once, at import, by the environment
variable ``MICROGRAD2_REFERENCE``.  So ``--reference`` starts the same command again, as a new
process, with ``MICROGRAD2_REFERENCE=1``: a debugger then steps through the files the README's
"Read the engine" lists.  The results are the same on both paths.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable

import click

VARIABLE = "MICROGRAD2_REFERENCE"


def _from_the_command_line() -> bool:
    """Whether this process is the ``micrograd2`` command (``micrograd2 …`` or ``python -m micrograd2 …``)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return (spec is not None and spec.name == "micrograd2.__main__") or \
        os.path.basename(sys.argv[0]) in ("micrograd2", "micrograd2.exe")


def _switch(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if not value or os.environ.get(VARIABLE) == "1":
        return value
    if not _from_the_command_line():
        raise click.UsageError(f"--reference restarts the command with {VARIABLE}=1, which works only from "
                               f"the command line; here, set {VARIABLE}=1 before micrograd2 is imported")
    args = [a for a in sys.argv[1:] if a != "--reference"]
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", "micrograd2", *args], {**os.environ, VARIABLE: "1"})
    return value  # not reached: execve replaces this process


def reference_option() -> Callable[[Any], Any]:
    """``--reference``: run on the reference path (``MICROGRAD2_REFERENCE=1``), not the speed layer."""
    return click.option("--reference", is_flag=True, expose_value=False, callback=_switch, is_eager=True,
                        help=f"Run on the reference path, not micrograd2/fast/ ({VARIABLE}=1): for a debugger.")
