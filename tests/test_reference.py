"""micrograd2/commands/reference.py: ``--reference`` runs the command again on the reference path."""
from __future__ import annotations

import os
import subprocess
import sys

import click
from click.testing import CliRunner

from micrograd2.commands import reference


def test_in_process_the_option_refuses_with_a_usage_error_and_off_it_does_nothing() -> None:
    @click.command()
    @reference.reference_option()
    def run() -> None:
        click.echo("ran")

    env = {k: v for k, v in os.environ.items() if k != reference.VARIABLE}
    assert CliRunner().invoke(run, [], env=env).output == "ran\n"
    done = CliRunner().invoke(run, ["--reference"], env={reference.VARIABLE: ""})
    assert done.exit_code == 2 and reference.VARIABLE in done.output


def test_from_the_command_line_it_restarts_with_the_speed_layer_off() -> None:
    code = "import micrograd2.fast as f; print(f.ENABLED)"
    env = {**os.environ, reference.VARIABLE: "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"  # what the restarted command sees
