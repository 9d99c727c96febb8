"""What the engine exercises' tests use (U1.3, U2.3, U5.6): find the student's engine folder, take
its holes, and run micrograd2 on it in a new process.

NOTE [Where the tests find the engine]
An engine exercise's module in the workspace (``u1_engine_record.py``, ``u2_engine_walk.py``,
``u5_engine_capstone.py``) is the exercise's sheet: its docstring states the task, and its
``engine_folder()`` names the folder the tests grade: ``engine/`` next to the sheet, which is the
workspace's own (``micrograd2 exercise start`` writes it). Only where there is no ``engine/`` next
to it does the function name another folder: the stub's raises (``engine/ is missing``), the
model solution's (teacher/solutions/, graded alone by tests/test_exercises.py) names the
repository's reference holes, teacher/solution_engine. So ``exercise check U1.3`` grades
WORKSPACE/engine and nothing else, and the student writes nothing in the sheet but the capstone's
loop (U5.6).

NOTE [The lessons run against PyTorch's recorded output]
A lesson run by the tests starts without PyTorch (``MICROGRAD2_NO_TORCH=1``): its checks compare
with PyTorch's output as the lesson wrote it down (``Recorded``), the same numbers, so a lesson
takes under a second instead of PyTorch's import time, within the grader's time limit, and the
grade is the same where PyTorch is not installed. ``micrograd2 lesson run N --engine engine``
runs the same lesson against PyTorch live.

The holes are read as ``course/engine.py`` reads them (each the function of that name in the
first of the folder's modules, in name order, that defines it; one whose body is still the stub's
``raise NotImplementedError`` is unfilled), and micrograd2 runs on them as ``--engine`` does: a
new process with ``MICROGRAD2_REFERENCE=1`` and ``MICROGRAD2_ENGINE`` set (``run_on_engine``).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from ..course import engine as holes
from . import harness
from .harness import Mistake, expect

PACKAGE_ROOT = Path(harness.__file__).resolve().parents[2]  # the folder micrograd2 is imported from
RUN_SECONDS = 300  # a new process on the student's engine is stopped after this (an infinite loop)
RUN_CPU_SECONDS = 6  # ... or after this much CPU time: about 4× the model solution's capstone run


def _cpu_limited() -> None:
    """In a new process on the student's engine: at most ``RUN_CPU_SECONDS`` of CPU time, then
    SIGXCPU (an infinite loop there stops in seconds, not at the grader's wall-clock limit)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: RUN_SECONDS alone
        return
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = RUN_CPU_SECONDS if hard == resource.RLIM_INFINITY else min(RUN_CPU_SECONDS, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def engine_folder(student: ModuleType) -> Path:
    """The engine folder the tests grade: the sheet's ``engine_folder()`` (see the NOTE)."""
    folder = Path(student.engine_folder())
    expect(folder.is_dir(), f"there is no engine folder {folder}: `micrograd2 exercise start "
                            "--force DIR` writes the stubs into DIR/engine")
    return folder


def student_holes(folder: Path) -> dict[str, tuple[Callable[..., Any], Path]]:
    """Each hole the modules of ``folder`` define: ``name -> (function, its file)``."""
    found: dict[str, tuple[Callable[..., Any], Path]] = {}
    for path in sorted(folder.glob("*.py")):
        module = harness.load_module(path, path.stem)  # by its own name: they may import each other
        for name in holes.UNITS:
            function = getattr(module, name, None)
            if callable(function) and name not in found:
                found[name] = (function, path)
    return found


def hole(student: ModuleType, name: str) -> Callable[..., Any]:
    """The student's hole ``name``; ``Mistake`` "not implemented yet: <hole>" while unfilled."""
    folder = engine_folder(student)
    function, path = student_holes(folder).get(name, (None, None))
    if function is None or holes.is_stub(function):
        where = f"{folder.name}/{path.name}" if path is not None else f"a module of {folder}"
        raise Mistake(f"not implemented yet: {name} ({holes.UNITS[name]}): write it in {where} "
                      "(its contract: the stub's docstring; docs/course.md)")
    return function


# NOTE [An edge is read as a pair]
# An edge is PyTorch's pair ``(node, input_nr)``: micrograd2's ``Edge`` is one, and so is a student's
# ``(node, 0)`` tuple or ``[node, 0]`` list.  The tests read what ``record`` returned by unpacking
# it into its two fields, never by its type: whatever unpacks into two is an edge, and what does
# not is shown as it is in the message.
def edge_pair(edge: Any) -> tuple[Any, Any] | None:
    """``edge`` read as ``(node, input_nr)`` (NOTE [An edge is read as a pair]); None if it is not
    a pair."""
    try:
        node, input_nr = edge
    except (TypeError, ValueError):
        return None
    return node, input_nr


def edge_name(edge: Any) -> str:
    """``(AccumulateGrad, 0)``, ``(MulBackward0, 0)``, ``(None, 0)``: an edge, for messages."""
    pair = edge_pair(edge)
    if pair is None:
        return repr(edge)[:80]
    node, input_nr = pair
    name = getattr(node, "name", None)
    return f"({'None' if node is None else name() if callable(name) else repr(node)[:40]}, {input_nr!r})"


def unfilled(student: ModuleType, names: tuple[str, ...]) -> list[str]:
    """Which of the holes ``names`` the student's engine leaves unfilled."""
    found = student_holes(engine_folder(student))
    return [n for n in names if n not in found or holes.is_stub(found[n][0])]


def environment(folder: Path) -> dict[str, str]:
    """A new process's environment: micrograd2 on ``folder``'s holes, the speed layer off."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH")) if p)
    env.update({"MICROGRAD2_REFERENCE": "1", holes.VARIABLE: str(folder.resolve())})
    env["MICROGRAD2_NO_TORCH"] = "1"  # NOTE [The lessons run against PyTorch's recorded output]
    return env


def run_on_engine(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a new process on the engine in ``folder``."""
    try:
        done = subprocess.run([sys.executable, *args], env=environment(folder), cwd=PACKAGE_ROOT,
                              capture_output=True, text=True, timeout=RUN_SECONDS,
                              stdin=subprocess.DEVNULL, preexec_fn=_cpu_limited if os.name == "posix" else None)
    except subprocess.TimeoutExpired:
        raise Mistake(f"`{' '.join(args[-3:])}` on your engine ran for {RUN_SECONDS} s without "
                      "ending: does your walk loop forever (a node that never becomes ready?)") \
            from None
    if os.name == "posix" and done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):  # _cpu_limited
        raise Mistake(f"`{' '.join(args[-3:])}` on your engine used {RUN_CPU_SECONDS} s of CPU time "
                      "without ending: does your code loop forever (a walk whose node never becomes "
                      "ready, a training loop that never stops)?")
    return done


def diagnosis(done: subprocess.CompletedProcess[str]) -> str:
    """What a failed run on the student's engine says: its ``Error:`` line, which names a hole
    not implemented yet, the lesson's first failing check and each hole that differs from the
    reference (course/diagnose.py's probes); else its last line."""
    text = done.stderr + "\n" + done.stdout
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line.removeprefix("Error: ") for line in lines if line.startswith("Error: ")]
    engine = [line for line in lines if line.startswith("engine ")]
    return (errors or engine or lines[-1:] or [f"exit status {done.returncode}, no output"])[0]


def check_lesson(student: ModuleType, number: int) -> None:
    """``micrograd2 lesson run NUMBER --engine`` on the student's engine: it passes, naming no
    hole, or ``Mistake`` with its diagnosis."""
    folder = engine_folder(student)
    done = run_on_engine(folder, "-m", "micrograd2", "lesson", "run", str(number), "--no-trace",
                         "--engine", str(folder.resolve()))
    expect(done.returncode == 0, f"lesson {number} on your engine: {diagnosis(done)}")


# -- the capstone: two moons on the student's engine (U5.6) ---------------------------------------
def capstone(student: ModuleType) -> dict[str, Any]:
    """What ``train_here`` reports when it runs in a new process on the student's engine."""
    folder = engine_folder(student)
    sheet = Path(student.__file__ or student.__name__).resolve()  # a sheet is always a file
    key = (str(sheet), str(folder), sheet.stat().st_mtime_ns)
    if key not in _CAPSTONES:  # four tests read one run
        done = run_on_engine(folder, "-m", "micrograd2.exercises.course_units", str(sheet))
        last = done.stdout.strip().splitlines()[-1:] or [""]
        try:
            _CAPSTONES[key] = json.loads(last[0])
        except ValueError:
            raise Mistake(f"the capstone on your engine stopped: {diagnosis(done)}") from None
    return _CAPSTONES[key]


_CAPSTONES: dict[tuple[str, str, int], dict[str, Any]] = {}


def one_step(student: ModuleType) -> dict[str, Any]:
    """One ``train_step`` of the sheet on a small problem: the loss and the parameters after."""
    import micrograd2 as mg

    X, y = mg.data.make_moons(12, noise=0.1, seed=3)
    model = mg.nn.MLP(2, [4, 1], seed=2)
    loss = student.train_step(model, mg.optim.SGD(model.parameters(), lr=0.1), X, y)
    return {"loss": float(loss), "parameters": [float(p.data) for p in model.parameters()]}


def train_here(sheet: Path) -> dict[str, Any]:
    """The capstone in this process (on whatever engine it runs): one step, then two moons fit."""
    import micrograd2 as mg

    from ..course.diagnose import closing_line

    student = harness.load_module(sheet, sheet.stem)
    engine = holes.choose_from_environment()  # this process's entry point: the engine in place
    filled = sorted(engine.done) if engine else []
    report: dict[str, Any] = {"filled": filled, "error": None}
    try:
        report["step"] = one_step(student)
        X, y = mg.data.make_moons(30, noise=0.1, seed=3)
        model = mg.nn.MLP(2, [8, 8, 1], seed=2)
        report["losses"] = [float(v) for v in student.fit(model, X, y, steps=30, lr=0.5)]
        report["accuracy"] = float(student.accuracy(model, X, y))
    except Exception as error:  # a student's engine or loop may fail in any way: the finding
        report["error"] = f"{type(error).__name__}: {error}".splitlines()[0]
    report["engine"] = closing_line()  # each filled hole whose probe differs (course/diagnose.py)
    return report


if __name__ == "__main__":
    print(json.dumps(train_here(Path(sys.argv[1]))))
