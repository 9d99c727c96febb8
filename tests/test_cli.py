"""The command line: --help, version, python -m, exit codes.  (``micrograd2 doctor``'s tests are in test_doctor.py.)"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from micrograd2 import __version__
from micrograd2.cli import COMMANDS, main, one_line_help


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


# -- every command's --help imports nothing beyond click -------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent
HELP_IMPORTS = """
import json, sys
import micrograd2
light = set(sys.modules)
from micrograd2.cli import main
try:
    main(args=sys.argv[1:], prog_name="micrograd2")
except SystemExit:
    pass
print(json.dumps(sorted(set(sys.modules) - light)))
"""


def every_command_path() -> list[list[str]]:
    """``[]``, ``["exercise"]``, ``["exercise", "check"]``… — every command and subcommand."""
    ctx = click.Context(main)
    paths: list[list[str]] = [[]]
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        paths.append([name])
        if isinstance(command, click.Group):
            paths += [[name, sub] for sub in command.list_commands(ctx)]
    return paths


@pytest.mark.parametrize("path", every_command_path(), ids=lambda p: " ".join(p) or "micrograd2")
def test_help_imports_nothing_beyond_click(path: list[str]) -> None:
    """No command's --help loads pytest, NumPy, Graphviz… or the parts of micrograd2 that need them."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", HELP_IMPORTS, *path, "--help"], capture_output=True, text=True,
                          env=env, check=True)
    loaded = json.loads(done.stdout.splitlines()[-1])
    outside = {m for m in loaded if m.split(".")[0] not in sys.stdlib_module_names | {"micrograd2", "click"}}
    assert outside == set()
    ours = {m for m in loaded if m.startswith("micrograd2.")}
    allowed = ("micrograd2.cli", "micrograd2.commands", "micrograd2.tracing")  # tracing: pure Python, no deps
    assert {m for m in ours if not m.startswith(allowed)} == set()


def test_help_lists_every_command_with_its_line_without_loading_it() -> None:
    out = CliRunner().invoke(main, ["--help"]).output
    for name in COMMANDS:
        line = one_line_help(name)
        assert line and name in out and " ".join(line.split()[:4]) in " ".join(out.split())


def test_each_commands_one_line_help_is_its_docstrings_first_line() -> None:
    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert command is not None and (command.help or "").split("\n")[0] == one_line_help(name)


def test_a_closed_pipe_ends_quietly() -> None:
    """`micrograd2 exercise list | head -0`: no BrokenPipeError traceback."""
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "micrograd2", "exercise", "list"], stdout=write,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    os.close(write)
    assert done.returncode in (1, 141) and done.stderr == ""


# -- a plain install, without extras, in a fresh venv --------------------------------------------------------
NOT_COPIED = (".venv", ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
              "*.egg-info", "build", "dist", "out", ".whl")


@pytest.mark.slow
def test_a_plain_install_runs_every_help_and_exercise_start(tmp_path: Path) -> None:
    """What the README's quick start gives a user: `pip install .` (no extras), then the installed command."""
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_COPIED))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(source)],
                               capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    command = str(venv / "bin" / "micrograd2")

    def micrograd2(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([command, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)

    for path in every_command_path():
        done = micrograd2(*path, "--help")
        assert done.returncode == 0 and "Usage: micrograd2" in done.stdout, (path, done.stderr)
    started = micrograd2("exercise", "start", "class1")
    assert started.returncode == 0 and (tmp_path / "class1" / "ex01_mul_sum.py").is_file(), started.stderr
    graded = micrograd2("exercise", "check", "class1", "1")
    assert graded.returncode == 1 and graded.stdout.splitlines()[-1] == "0/1 exercises passed", graded.stderr
    doctor_out = micrograd2("doctor").stdout
    assert any(line.startswith("ok") and "pytest" in line for line in doctor_out.splitlines())
