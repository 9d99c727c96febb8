"""Exercise U1.3 — Record: your engine decides what is recorded (lesson 1, on your engine).

This exercise's code is not in this file: it is the hole ``record`` in ``engine/u1_record.py``
(the engine folder ``micrograd2 exercise start`` wrote next to this file). Every op that
``Function.apply`` runs (``x * w``, ``x.tanh()``, ``mg.sum(...)``) asks your ``record`` whether,
and how, to record it.

Your task, in ``engine/u1_record.py``:

* return ``None`` when the op is not recorded: grad mode is off (``mg.is_grad_enabled()``), or no
  input requires grad — an output requires grad if and only if an input does;
* otherwise one edge per input, in order: ``gradient_edge(x)`` for an input that requires grad,
  ``(None, 0)`` for any other input (a Value that requires no grad, a plain number).

The tests call your ``record`` directly, then run lesson 1 on your engine
(``micrograd2 lesson run 1 --engine engine``): its checks against PyTorch must pass, and no hole
may differ from the reference.

Check: ``micrograd2 exercise check U1.3`` (or ``pytest -m u1_3``).
Hints: ``micrograd2 exercise hint U1.3``.
"""
from __future__ import annotations

from pathlib import Path


def engine_folder() -> Path:
    """The engine the tests grade: ``engine/`` next to this file (nothing to write here)."""
    folder = Path(__file__).resolve().parent / "engine"
    if folder.is_dir():
        return folder
    # BEGIN SOLUTION: no engine/ next to this file (`micrograd2 exercise start --force DIR`)
    import micrograd2  # the model solution, graded alone, runs on the reference holes

    return Path(micrograd2.__file__).resolve().parents[1] / "teacher" / "solution_engine"
    # END SOLUTION
