"""The engine folder of a student's workspace: one stub module per unit (``stubs/``).

``micrograd2 exercise start DIR`` writes them into ``DIR/engine/``; ``--engine DIR/engine`` then
runs micrograd2 on them (docs/course.md).  In a workspace, U3's holes are written once, in U3's
exercises (NOTE [U3's holes in a workspace]).
"""
from __future__ import annotations

from pathlib import Path

STUBS = Path(__file__).parent / "stubs"
FOLDER = "engine"  # the engine folder's name inside a workspace

# NOTE [U3's holes in a workspace]
# U3's exercises grade ``sum_to`` in the workspace's ``u3_sum_to.py``, the reductions' backward in
# ``u3_reductions.py`` and matmul's in ``u3_matmul.py``.  So that a student writes each once, the
# workspace's ``engine/u3_tensors.py`` takes those functions from those files; ``--engine`` then
# runs the code the grader graded.  While they are still the exercises' stubs, the holes are
# unfilled ("not implemented yet").  ``stubs/u3_tensors.py``, with the holes' own stubs, is the
# module for an engine folder of its own, outside a workspace.
U3_FROM_THE_EXERCISES = '''\
"""U3, tensors: the holes ``sum_to``, ``sum_backward``, ``mean_backward`` and ``matmul_backward``.

You write them in U3's exercises, next to this folder: ``sum_to`` in ``u3_sum_to.py`` (U3.1),
``sum_backward`` and ``mean_backward`` in ``u3_reductions.py`` (U3.2), ``matmul_backward`` in
``u3_matmul.py`` (U3.4); ``micrograd2 exercise check U3`` grades them there.  This module takes
them from those files, so ``--engine`` runs the code that was graded.  Their contracts are in
docs/course.md.  Until you fill one of them, Tensor graphs run on the reference engine.
"""
from pathlib import Path

from micrograd2.exercises.harness import load_module

WORKSPACE = Path(__file__).resolve().parent.parent


def taken(file, name):
    """The function ``name`` of the workspace's exercise ``file``."""
    path = WORKSPACE / file
    if not path.exists():
        raise ImportError(f"{path} is missing: engine/u3_tensors.py takes {name} from it\\n"
                          "What to do: keep engine/ in the workspace `micrograd2 exercise start` "
                          "made, or define the U3 holes in engine/u3_tensors.py itself.")
    return getattr(load_module(path, path.stem), name)


sum_to = taken("u3_sum_to.py", "sum_to")
sum_backward = taken("u3_reductions.py", "sum_backward")
mean_backward = taken("u3_reductions.py", "mean_backward")
matmul_backward = taken("u3_matmul.py", "matmul_backward")
'''


def engine_files() -> dict[str, str]:
    """Relative path in the workspace -> text of each engine module (``engine/u1_record.py``…):
    the stubs, and U3's taken from its exercises (NOTE [U3's holes in a workspace])."""
    files = {f"{FOLDER}/{path.name}": path.read_text(encoding="utf-8")
             for path in sorted(STUBS.glob("u*.py"))}
    files[f"{FOLDER}/u3_tensors.py"] = U3_FROM_THE_EXERCISES
    return files
