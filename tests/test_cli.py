"""The command line: --help, version, python -m, exit codes."""
from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from micrograd2 import __version__
from micrograd2.cli import main


def test_help_lists_the_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in ("doctor", "version"):
        assert name in result.output


def test_version_command_and_option() -> None:
    assert CliRunner().invoke(main, ["version"]).output.strip() == f"micrograd2 {__version__}"
    assert __version__ in CliRunner().invoke(main, ["--version"]).output


def test_an_unknown_command_is_a_usage_error_with_exit_2() -> None:
    result = CliRunner().invoke(main, ["frobnicate"])
    assert result.exit_code == 2 and "No such command" in result.output


def test_python_dash_m_is_the_same_program() -> None:
    out = subprocess.run([sys.executable, "-m", "micrograd2", "version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"micrograd2 {__version__}"


def test_doctor_reports_each_dependency() -> None:
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0
    for name in ("Graphviz dot", "NumPy", "pycuda"):
        assert name in result.output
