"""Packaging: every package is listed in setup.cfg, and importing micrograd2 stays light."""
from __future__ import annotations

import configparser
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_package_directory_is_listed_in_setup_cfg() -> None:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    listed = set(cfg["options"]["packages"].split())
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "micrograd2").rglob("__init__.py")
        if "exercises/sources" not in p.as_posix() and "__pycache__" not in p.as_posix()
    }
    found.add("micrograd2.lessons")
    assert found <= listed, f"add to setup.cfg [options] packages: {sorted(found - listed)}"


def test_importing_micrograd2_imports_no_third_party_module() -> None:
    code = (
        "import sys, micrograd2 as mg; v = mg.Value(1.0, requires_grad=True); (v * 2).backward();"
        "print(sorted(m for m in ('numpy', 'graphviz', 'click', 'pycuda', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
