"""How a grading run bounds itself (micrograd2/exercises/bounds.py): a CPU-time limit, a watchdog that stops
the run at its limit saying where the student's code was, and an end as soon as the grader is gone."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from micrograd2.exercises import bounds

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def test_a_runner_notices_its_parent_is_gone_without_the_parent_death_signal(tmp_path: Path) -> None:
    """The watchdog's own check (for systems without prctl): a runner whose parent exits ends within a second."""
    code = ("import os, sys, time\n"
            "from pathlib import Path\n"
            "import micrograd2.exercises.bounds as b\n"
            "b._die_with_parent = lambda: None\n"
            "b.guard(60.0, Path('.'), lambda where, spent: None)\n"
            "open(sys.argv[1] + '.tmp', 'w').write(str(os.getpid()))\n"
            "os.replace(sys.argv[1] + '.tmp', sys.argv[1])\n"
            "while True:\n    pass\n")
    pid_file = tmp_path / "pid"
    parent = subprocess.Popen([sys.executable, "-c",
                               "import os, subprocess, sys, time\n"
                               "subprocess.Popen(sys.argv[1:])\n"
                               "deadline = time.monotonic() + 60\n"  # exit once the child is guarded
                               "while not os.path.exists(sys.argv[-1]) and time.monotonic() < deadline:\n"
                               "    time.sleep(0.05)\n",
                               sys.executable, "-c", code, str(pid_file)],
                              env=ENV)
    parent.wait(timeout=90)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 2
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_runner_limits_its_cpu_time(tmp_path: Path) -> None:
    resource = pytest.importorskip("resource")
    code = ("import resource\nfrom pathlib import Path\nimport micrograd2.exercises.bounds as b\n"
            "b.guard(2.0, Path('.'), lambda where, spent: None)\nprint(resource.getrlimit(resource.RLIMIT_CPU)[0])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=ENV)
    assert 0 < int(out.stdout) <= 10 and resource.RLIM_INFINITY != int(out.stdout)


def test_at_its_limit_a_run_says_where_the_code_was_and_ends(tmp_path: Path) -> None:
    student = tmp_path / "student.py"
    student.write_text("def spin():\n    while True:\n        pass\n")
    code = ("import sys\nfrom pathlib import Path\nimport micrograd2.exercises.bounds as b\n"
            f"sys.path.insert(0, {str(tmp_path)!r})\n"
            f"b.guard(0.5, Path({str(tmp_path)!r}), lambda where, spent: print(spent, 'where:', where, flush=True))\n"
            "import student\nstudent.spin()\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60)
    assert done.returncode == bounds.TIMED_OUT_EXIT and time.monotonic() - started < 30
    spent, where = done.stdout.strip().split(" where: ")
    assert spent in ("0.5 s of CPU time", "1 s")  # which limit came first depends on the machine's load
    assert where in ("student.py:2 in spin", "student.py:3 in spin")


def test_a_part_of_the_run_stops_at_its_own_limit(tmp_path: Path) -> None:
    student = tmp_path / "student.py"
    student.write_text("def spin():\n    while True:\n        pass\n")
    code = ("import sys\nfrom pathlib import Path\nimport micrograd2.exercises.bounds as b\n"
            f"sys.path.insert(0, {str(tmp_path)!r})\n"
            f"parts = b.guard(60.0, Path({str(tmp_path)!r}), lambda where, spent: print(spent, flush=True), "
            "test_limit=5.0)\n"
            "import student\nparts.begin(0.5)\nparts.end()\nparts.begin(0.5)\nstudent.spin()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60)
    assert done.returncode == bounds.TIMED_OUT_EXIT and done.stdout.strip() == "0.5 s of CPU time"
    parts = bounds.Phases(2.0)
    parts.begin(9.0)
    assert parts.limit == 2.0 and not parts.over()  # never more than guard's test_limit
    parts.end()
    assert not parts.over()


def test_where_names_the_innermost_frame_inside_the_workspace(tmp_path: Path) -> None:
    assert bounds.where(sys._getframe(), tmp_path) == ""
    here = Path(__file__).resolve()
    line = sys._getframe().f_lineno
    assert bounds.where(sys._getframe(), here.parent) == f"{here.name}:{line + 1} in " \
        "test_where_names_the_innermost_frame_inside_the_workspace"
    assert bounds.where(None, tmp_path) == ""


def test_the_wall_clock_limit_leaves_out_the_time_spent_waiting_for_a_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    now, delay = [100.0], [5.0]
    monkeypatch.setattr(bounds.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(bounds, "run_delay", lambda pid="self": delay[0])
    clock = bounds.WaitClock()
    now[0], delay[0] = 110.0, 12.0  # 10 s passed, 7 of them waiting for a CPU that others held
    assert clock.seconds() == pytest.approx(3.0)
    now[0] = 120.0  # 10 s more asleep (a sleep or input() is not a wait for a CPU): it counts
    assert clock.seconds() == pytest.approx(13.0)
    delay[0] = 0.0  # the process just ended: its last reading stands
    assert clock.seconds() == pytest.approx(13.0)


def test_run_delay_reads_linux_schedstat_or_says_zero() -> None:
    assert bounds.run_delay() >= 0.0 and bounds.run_delay(-1) == 0.0
