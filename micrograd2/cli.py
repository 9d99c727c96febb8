"""The ``micrograd2`` command line (click): one group, one module per command in ``commands/``.

Each command's module is imported only when that command runs or shows its
own help: ``micrograd2 --help`` lists the commands from the table below, so
no command's ``--help`` imports more than click (and a command module imports
its heavy parts — pytest, NumPy, the tracer — inside its functions).

Exit codes follow click: 0 on success, 2 on a usage error (with a one-line
reason), 1 on a failure (with a message) — never a bare traceback.  Output
piped into a program that stops reading (``micrograd2 … | head``) ends quietly.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__

# command name -> the module in micrograd2.commands that defines it as ``command``
COMMANDS = {"doctor": "doctor", "exercise": "exercise", "lesson": "lesson", "trace": "trace", "train": "train"}


def one_line_help(name: str) -> str:
    """The first line of command ``name``'s docstring, read from its module's source without importing it.

    NOTE [help written once]: each command's help is its docstring; ``micrograd2 --help`` lists the
    commands from their sources, so that listing them imports no command module (nor NumPy, nor pytest).
    """
    spec = importlib.util.find_spec(f"micrograd2.commands.{COMMANDS[name]}")
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "command":
            return (ast.get_docstring(node) or "").split("\n")[0]
    return ""


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when run (``--help`` lists them from ``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *COMMANDS])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS:
            module = importlib.import_module(f"micrograd2.commands.{COMMANDS[name]}")
            return module.command  # type: ignore[no-any-return]
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, one_line_help(name) if name in COMMANDS else self._short_help(ctx, name))
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _short_help(self, ctx: click.Context, name: str) -> str:
        command = super().get_command(ctx, name)
        return command.get_short_help_str(limit=80) if command is not None else ""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Click's ``main``, ending quietly when stdout is closed early (``micrograd2 … | head``)."""
        try:
            try:
                return super().main(*args, **kwargs)
            finally:
                sys.stdout.flush()  # here, not at exit, where a closed pipe would print a traceback
        except BrokenPipeError:
            _quiet_exit()


def _quiet_exit() -> None:
    """The reader went away: send what is still buffered nowhere and exit as ``head``'s writers do."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(141)  # 128 + SIGPIPE, as a shell reports a writer stopped by a closed pipe


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="micrograd2")
def main() -> None:
    """micrograd2: watch autograd work — lessons, diagrams, exercises and training runs."""
    from .commands.engine import choose_from_environment

    choose_from_environment()  # MICROGRAD2_ENGINE: the student's pieces, chosen once, here


@main.command()
def version() -> None:
    """Print the version."""
    click.echo(f"micrograd2 {__version__}")


def run(args: Any = None) -> int:
    """Run the CLI as a function (for tests): returns the exit code."""
    try:
        main.main(args=args, prog_name="micrograd2", standalone_mode=True)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0
