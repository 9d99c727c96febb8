"""The ``micrograd2`` command line (click): one group, one module per command in ``commands/``.

Exit codes follow click: 0 on success, 2 on a usage error (with a one-line
reason), 1 on a failure (with a message) — never a bare traceback.
"""
from __future__ import annotations

import importlib
from typing import Any

import click

from . import __version__

# command name -> module in micrograd2.commands that defines ``command`` (loaded when used)
COMMANDS = {
    "lesson": "lesson",
    "exercise": "exercise",
    "train": "train",
    "trace": "trace",
    "doctor": "doctor",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when run (keeps ``--help`` and start-up fast)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self._available()])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS and name in self._available():
            module = importlib.import_module(f"micrograd2.commands.{COMMANDS[name]}")
            return module.command  # type: ignore[no-any-return]
        return super().get_command(ctx, name)

    @staticmethod
    def _available() -> list[str]:
        import importlib.util

        return [n for n, m in COMMANDS.items() if importlib.util.find_spec(f"micrograd2.commands.{m}")]


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="micrograd2")
def main() -> None:
    """micrograd2: watch autograd work — lessons, diagrams, exercises and training runs."""


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
