"""Build the student's install: micrograd2's wheel and sdist, from a clean copy of the checkout.

Usage: ``python tools/dist.py [FOLDER]`` (``make dist``: ``dist/``).  The checkout is copied into a
temporary folder (without ``.git``, ``.venv``, ``build/``, ``dist/`` and caches), the sdist is built
there (MANIFEST.in prunes the teacher's folder and the project's tests from it), and the wheel is
built from the unpacked sdist, as ``python -m build`` does: what the wheel holds, the sdist holds.
Nothing is written into the checkout but FOLDER's two archives.  The builds run setuptools' PEP 517
hooks in this interpreter (no download): it needs ``setuptools>=61`` and ``wheel``, which the
``test`` extra installs.  ``tests/test_dist.py`` opens both archives and proves there is no answer
in them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "micrograd2"
# What a build never reads: version control, environments, earlier builds, caches.
SKIPPED = (".git", ".venv", "build", "dist", "out", ".whl", "node_modules", "__pycache__",
           "*.egg-info", "*.pyc", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
           ".import_linter_cache")
HOOK = ("import sys; from setuptools import build_meta as b; "
        "print(getattr(b, sys.argv[1])(sys.argv[2]))")


def copy_checkout(into: Path) -> None:
    """The checkout's sources, as a fresh clone with uncommitted work would hold them."""
    shutil.copytree(ROOT, into, ignore=shutil.ignore_patterns(*SKIPPED))


def sources() -> list[Path]:
    """Every file ``copy_checkout`` copies (what a build may read)."""
    ignore = shutil.ignore_patterns(*SKIPPED)
    found: list[Path] = []
    folders = [ROOT]
    while folders:
        folder = folders.pop()
        names = sorted(p.name for p in folder.iterdir())
        for name in sorted(set(names) - ignore(str(folder), names)):
            path = folder / name
            (folders if path.is_dir() else found).append(path)
    return found


def hook(name: str, source: Path, out: Path) -> Path:
    """Run setuptools' PEP 517 hook ``name`` (build_sdist, build_wheel) in ``source``."""
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-c", HOOK, name, str(out)], cwd=source,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{name} failed in {source}:\n{done.stderr[-3000:]}\nWhat to do: "
                           "pip install 'setuptools>=61' wheel (the test extra has them)")
    return out / done.stdout.strip().splitlines()[-1]


def build(folder: Path) -> list[Path]:
    """The sdist and the wheel, built from a copy of the checkout, moved into ``folder``
    (replacing earlier micrograd2 archives there); returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in [*folder.glob(f"{NAME}-*.tar.gz"), *folder.glob(f"{NAME}-*.whl")]:
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        copy_checkout(work / "src")
        sdist = hook("build_sdist", work / "src", work / "out")
        with tarfile.open(sdist) as archive:
            archive.extractall(work / "unpacked", filter="data")
        unpacked = work / "unpacked" / sdist.name.removesuffix(".tar.gz")
        wheel = hook("build_wheel", unpacked, work / "out")
        return [Path(shutil.move(str(p), folder / p.name)) for p in (sdist, wheel)]


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "dist").resolve()
    for path in build(folder):
        print(f"built {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")


if __name__ == "__main__":
    main()
