"""Packaging: every package is listed in setup.cfg, importing micrograd2 stays light, and the sdist
leaves the teacher's folder and the tests out (tests/test_dist.py opens the archives)."""
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


def test_the_sdist_prunes_the_teachers_folder_and_the_tests() -> None:
    rules = [line.split() for line in (ROOT / "MANIFEST.in").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert ["prune", "teacher"] in rules and ["prune", "tests"] in rules


def test_the_test_extra_brings_what_make_dist_needs() -> None:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    wanted = {line.split(">")[0].strip() for line in cfg["options.extras_require"]["test"].split()}
    assert {"setuptools", "wheel"} <= wanted
