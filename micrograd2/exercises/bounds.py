"""How a grading run bounds itself, so that nothing it starts outlives the grader or runs for ever.

``guard(limit, on_timeout)`` is called by the runner before the student's
code runs.  From then on:

* each test, and the import of the student's module, stops after ``test_limit``
  seconds of CPU time of its own (NOTE [A test's own limit]);
* the run stops itself after ``limit`` seconds of CPU time, or ``2 × limit``
  seconds of wall-clock time (code that waits instead of computing; the time
  spent waiting for a CPU that other programs hold does not count):
  a watchdog thread calls ``on_timeout(where, spent)`` — ``where`` is the
  innermost place in the student's files that the main thread had reached, as
  ``ex03_topo_order.py:14 in topo_order``, and ``spent`` says which limit was
  reached (``3 s of CPU time``, ``6 s``) — then ends the process;
* the run ends at once when its parent (the grader) is gone, however the
  grader ended (Ctrl-C, SIGTERM, SIGKILL): Linux's parent-death signal where
  there is one, and the watchdog's check of the parent's pid everywhere;
* a CPU-time limit set with ``resource.RLIMIT_CPU`` ends the process even if
  its code holds the interpreter and the watchdog cannot run.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Callable

POLL_S = 0.1
WALL_FACTOR = 2.0  # wall-clock limit = WALL_FACTOR × the CPU-time limit
TIMED_OUT_EXIT = 3
PARENT_GONE_EXIT = 4


def wall_limit(limit: float) -> float:
    """The wall-clock seconds a run with a CPU-time ``limit`` may take."""
    return WALL_FACTOR * limit


# NOTE [a busy machine is not slow code]: the wall-clock limit is there for code that waits (a sleep,
# an input()), not for a machine whose CPUs other programs hold.  So the clock it is measured on leaves
# out the time the process spent ready to run but waiting for a CPU: Linux counts it per task, as the
# second number of /proc/PID/schedstat ("run_delay").  Elsewhere that time is unknown and counts.
def run_delay(pid: int | str = "self") -> float:
    """Seconds the task ``pid`` (its main thread) has waited, ready to run, for a CPU; 0.0 where unknown."""
    try:
        with open(f"/proc/{pid}/schedstat", encoding="ascii") as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class WaitClock:
    """Seconds since it was made, less the time process ``pid`` waited for a CPU (see the NOTE above)."""

    def __init__(self, pid: int | str = "self") -> None:
        self.pid, self.started = pid, time.monotonic()
        self.delay_at_start = self.delay = run_delay(pid)

    def seconds(self) -> float:
        self.delay = max(self.delay, run_delay(self.pid))  # a process that has just ended reads as 0.0
        return time.monotonic() - self.started - (self.delay - self.delay_at_start)


class Phases:
    """The parts of a run that each have ``limit`` seconds of CPU time of their own (NOTE [A test's
    own limit]): ``begin()`` when one starts (the import of the student's module, a test),
    ``end()`` when it ends; between them (pytest's start-up, collection) only the run's limits hold."""

    def __init__(self, limit: float | None) -> None:
        self.most = self.limit = limit  # most: what any part may use; limit: the part now running
        self.since: float | None = None  # the process's CPU time when the part now running began

    def begin(self, limit: float | None = None) -> None:
        """A part begins, with ``limit`` seconds (default, and at most: the limit ``guard`` set)."""
        self.limit = self.most if limit is None or self.most is None else min(limit, self.most)
        self.since = time.process_time()

    def end(self) -> None:
        self.since = None

    def over(self) -> bool:
        """Whether the part now running has used more than its limit."""
        since, limit = self.since, self.limit
        return limit is not None and since is not None and time.process_time() - since > limit


# NOTE [A test's own limit]
# An infinite loop costs the grader the whole limit it runs under, and a workspace stuck in loops
# everywhere costs the sum of them.  So besides the run's limits (CPU time, wall-clock time, for
# the whole exercise) each test, and the import of the student's module, has a limit of its own,
# a small multiple of the model solution's slowest test (grader.per_test_timeout): a loop is
# stopped at its first test's limit, a second or two, not at the whole exercise's.
def guard(limit: float, workspace: Path, on_timeout: Callable[[str, str], None], parent: int | None = None,
          test_limit: float | None = None) -> Phases:
    """Bound this process as the module docstring says (call once, from the main thread); with
    ``test_limit``, each part that the returned ``Phases`` marks may use that much CPU time.

    ``parent`` is the pid of the process that started this one (default: the parent now); a parent that has
    already gone is noticed at the watchdog's first look."""
    parent = os.getppid() if parent is None else parent
    _die_with_parent()
    _cpu_rlimit(limit)
    main = threading.main_thread().ident
    clock = WaitClock()  # this process's main thread: the student's code
    phases = Phases(test_limit)

    def watch() -> None:
        while True:
            time.sleep(POLL_S)
            if os.getppid() != parent:
                os._exit(PARENT_GONE_EXIT)
            cpu_out, wall_out = time.process_time() > limit, clock.seconds() > wall_limit(limit)
            part_limit = phases.limit
            part_out = phases.over()
            if cpu_out or wall_out or part_out:
                frame = sys._current_frames().get(main or 0)
                spent = (f"{part_limit:g} s of CPU time" if part_out and part_limit is not None
                         else f"{limit:g} s of CPU time" if cpu_out else f"{wall_limit(limit):g} s")
                try:
                    on_timeout(where(frame, workspace), spent)
                finally:
                    os._exit(TIMED_OUT_EXIT)

    threading.Thread(target=watch, name="micrograd2-grading-watchdog", daemon=True).start()
    return phases


def where(frame: object, workspace: Path) -> str:
    """``file.py:LINE in function`` for the innermost frame of ``frame``'s stack inside ``workspace``."""
    if frame is None:
        return ""
    stack = traceback.extract_stack(frame)  # type: ignore[arg-type]
    inside = [f for f in stack if is_inside(f.filename, workspace)]
    if not inside:
        return ""
    last = inside[-1]
    return f"{Path(last.filename).name}:{last.lineno} in {last.name}"


def is_inside(filename: str, folder: Path) -> bool:
    """Whether the file ``filename`` is in ``folder`` (or below it)."""
    try:
        return Path(filename).resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError):
        return False


def _die_with_parent() -> None:
    """Ask Linux to send SIGKILL when the parent ends (``prctl(PR_SET_PDEATHSIG)``); elsewhere, do nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # the watchdog's check of the parent's pid remains


def _cpu_rlimit(limit: float) -> None:
    """A hard stop past the watchdog's limits: SIGXCPU, then SIGKILL, after about twice ``limit`` CPU seconds."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return
    soft = math.ceil(wall_limit(limit)) + 2
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1 if hard == resource.RLIM_INFINITY else hard))
