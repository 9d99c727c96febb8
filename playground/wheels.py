"""The wheels the playground installs in Pyodide: micrograd2's own, built from this checkout, and
the pure-Python ones of ``wheels.txt`` from PyPI.  Usage: ``python wheels.py FOLDER``.

The checkout is copied (package sources, lessons, metadata) into a temporary folder and built
there, so that setuptools' ``build/lib`` of an earlier build never adds stale files to the wheel.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOURCES = ("micrograd2", "lessons", "setup.cfg", "pyproject.toml", "README.md")


def build_own(folder: Path) -> None:
    """micrograd2's wheel, built from a clean copy of the checkout."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "src"
        copy.mkdir()
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
        for name in SOURCES:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, copy / name, ignore=ignore)
            else:
                shutil.copy2(source, copy / name)
        pip(["wheel", "--no-deps", str(copy), "-w", str(folder)])


def download_pinned(folder: Path) -> None:
    """The pure-Python wheels from PyPI, without dependencies (the lists name all the page needs):
    ``wheels.txt``'s, which the page installs as it starts, and ``wheels-exercises.txt``'s (pytest),
    in ``exercises/``, which it installs when an exercise is first checked."""
    for listing, into in (("wheels.txt", folder), ("wheels-exercises.txt", folder / "exercises")):
        listed = str(HERE / listing)
        pip(["download", "--no-deps", "--only-binary=:all:", "-r", listed, "-d", str(into)])


def pip(args: list[str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", *args], check=True
    )


def main() -> None:
    folder = Path(sys.argv[1]).resolve()
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    build_own(folder)
    download_pinned(folder)
    print(f"wheels: {', '.join(sorted(p.name for p in folder.glob('*.whl')))}")


if __name__ == "__main__":
    main()
