"""The wheels the playground installs in Pyodide: micrograd2's own, the one `make dist` built (one
build for students, on a machine or in the page: tests/test_dist.py proves it holds no answer), and
the pure-Python ones of ``wheels.txt`` from PyPI.  Usage: ``python wheels.py FOLDER DIST``, where
DIST is the folder `make dist` wrote (``dist``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def copy_own(folder: Path, dist: Path) -> Path:
    """micrograd2's wheel from ``dist``: the one there (``make dist`` replaces it at each build)."""
    wheels = sorted(dist.glob("micrograd2-*.whl"))
    if len(wheels) != 1:
        found = ", ".join(p.name for p in wheels) or "none"
        sys.exit(f"wheels.py: expected one micrograd2 wheel in {dist}, found {found}.\n"
                 "What to do: run `make dist` (make playground does it first)")
    return Path(shutil.copy2(wheels[0], folder / wheels[0].name))


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
    if len(sys.argv) != 3:
        sys.exit("usage: python wheels.py FOLDER DIST (make playground runs it)")
    folder, dist = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    copy_own(folder, dist)
    download_pinned(folder)
    print(f"wheels: {', '.join(sorted(p.name for p in folder.glob('*.whl')))}")


if __name__ == "__main__":
    main()
