"""The engine folder of a student's workspace: one stub module per unit (``stubs/``).

``micrograd2 exercise start DIR`` writes them into ``DIR/engine/``; ``--engine DIR/engine`` then
runs micrograd2 on them (docs/course.md).
"""
from __future__ import annotations

from pathlib import Path

STUBS = Path(__file__).parent / "stubs"
FOLDER = "engine"  # the engine folder's name inside a workspace


def engine_files() -> dict[str, str]:
    """Relative path in the workspace -> text of each engine stub (``engine/u1_record.py``…)."""
    return {f"{FOLDER}/{path.name}": path.read_text(encoding="utf-8")
            for path in sorted(STUBS.glob("u*.py"))}
