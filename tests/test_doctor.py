"""``micrograd2 doctor`` (micrograd2/commands/doctor.py): what is installed and usable, and which engine path is on.

It proves that the report has one line per check (Python with its version, Graphviz dot, NumPy, pytest,
matplotlib, scikit-learn, pycuda, the engine), that a missing program or package is marked missing with what it
is needed for and how to install it, and that the engine row says which path this process runs: the reference
path under ``MICROGRAD2_REFERENCE=1``, else the fast path where the build has one.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from micrograd2.cli import main
from micrograd2.commands import doctor

ROOT = Path(__file__).resolve().parent.parent


def row(output: str, name: str) -> str:
    """The line of ``doctor``'s output for the check ``name`` (after its 8-character ok/missing mark)."""
    [line] = [line for line in output.splitlines() if line[8:].startswith(name)]
    return line


def test_doctor_reports_each_dependency() -> None:
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0
    for name in ("Graphviz dot", "NumPy", "pycuda"):
        assert name in result.output


def test_doctor_reports_python_pytest_matplotlib_scikit_learn_and_the_engine_path() -> None:
    out = CliRunner().invoke(main, ["doctor"]).output
    for name in ("Python", "pytest", "matplotlib", "scikit-learn", "engine"):
        assert any(line[8:].startswith(name) for line in out.splitlines()), name
    assert platform.python_version() in out
    has_fast = importlib.util.find_spec("micrograd2.fast") is not None
    for reference, expected in (("1", "reference path"), ("", "fast path on" if has_fast else "reference path")):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "MICROGRAD2_REFERENCE": reference}
        done = subprocess.run([sys.executable, "-c", "from micrograd2.commands import doctor; print(doctor._engine())"],
                              capture_output=True, text=True, env=env, timeout=120)  # the row `doctor` prints
        assert expected in done.stdout


def test_a_missing_program_or_package_says_what_it_is_for_and_how_to_install_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None if name == "numpy" else
                        find_spec(name, *args))
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0  # a report, not a failure
    dot = row(result.output, "Graphviz dot")
    assert dot.startswith("missing ") and "apt-get install graphviz | brew install graphviz" in dot
    assert row(result.output, "NumPy").split(None, 2)[::2] == ["missing", "pip install numpy (needed by mg.tensor)"]
    assert row(result.output, "pytest").startswith("ok      pytest")


def test_a_package_that_fails_to_import_is_reported_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    import_module = importlib.import_module

    def broken(name: str, *args: object) -> object:
        if name == "pytest":
            raise ImportError("a broken install")
        return import_module(name, *args)

    monkeypatch.setattr(importlib, "import_module", broken)
    pytest_row = row(CliRunner().invoke(main, ["doctor"]).output, "pytest")
    assert pytest_row.startswith("missing ") and pytest_row.endswith("installed but fails to import: a broken install")


def test_engine_path_is_the_path_this_process_runs() -> None:
    fast = sys.modules.get("micrograd2.fast")
    expected = "fast" if fast is not None and getattr(fast, "ENABLED", False) else "reference"
    assert doctor.engine_path() == expected
    assert row(CliRunner().invoke(main, ["doctor"]).output, "engine").split()[2:4] == [expected, "path"]


def test_torch_is_said_to_be_what_the_lessons_compare_with_live() -> None:
    names = dict(doctor.CHECKS)
    assert "torch (PyTorch)" in names and not any("parity tests)" in name for name in names)
    out = CliRunner().invoke(main, ["doctor"]).output
    line = next(t for t in out.splitlines() if "torch (PyTorch)" in t)
    assert "parity tests only" not in line
    if importlib.util.find_spec("torch") is None:
        assert "the lessons then compare with PyTorch live" in line


def broken_dot(folder: Path) -> Path:
    """A ``dot`` on PATH that is found but cannot draw SVG (Graphviz without its plugins)."""
    folder.mkdir()
    dot = folder / "dot"
    dot.write_text('#!/bin/sh\necho \'Format: "svg" not recognized. Use one of:\' >&2\nexit 1\n')
    dot.chmod(0o755)
    return dot


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for dot")
def test_a_dot_that_cannot_draw_svg_is_not_ok(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dot = broken_dot(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(dot.parent))
    line = row(CliRunner().invoke(main, ["doctor"]).output, "Graphviz dot")
    assert line.startswith("missing ") and f"{dot} cannot draw a one-node graph as SVG" in line
    assert 'Format: "svg" not recognized' in line and "apt-get install graphviz" in line
