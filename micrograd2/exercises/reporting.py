"""Show a grade: the summary table, each failing exercise's diagnosis in full, and the JSON report.

``render`` is what ``micrograd2 exercise check`` prints: ``table`` (one row
per exercise, its "what failed" cut at the terminal's width), then
``diagnoses`` (wrapped, whatever a row could not show; with ``verbose``, every
failing test), ``to_do`` (where a stub's row was cut: every stub's function, file and line),
then the last line, ``K/N exercises passed``.  ``report`` is the
machine-readable form (``--json FILE``).
"""
from __future__ import annotations

import datetime
import getpass
import json
import textwrap
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

from .grader import NOT_GRADED, PASSED, SKIPPED, ExerciseResult

TO_DO = "to do: "  # how a stub's reason begins (grader._what_failed)

INDENT = "    "
STATUS_WIDTH = len(NOT_GRADED)


REASON_MIN = 40  # the reason column keeps this many characters; titles are cut first
TITLE_MIN = 16  # a title column narrower than this is left out (the id names the exercise)
FIXED = 4 + 2 + 2 + STATUS_WIDTH + 2 + 5 + 2  # id, result, tests and the gaps, without the title


def title_width(results: Sequence[ExerciseResult], width: int) -> int:
    """The title column's width at ``width`` columns: the longest title, cut so that the reason keeps
    ``REASON_MIN`` columns; 0 (no title column) where that leaves under ``TITLE_MIN``."""
    longest = max((len(r.title) for r in results), default=0)
    fits = min(longest, width - FIXED - REASON_MIN)
    return fits if fits >= TITLE_MIN else 0


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _row(r: ExerciseResult, title_width: int) -> str:
    detail = r.summary if not r.passed or r.skipped else ""  # a pass with a skip says what was skipped
    counted = f"{r.tests_passed:>2}/{r.tests_total:<2}"
    title = f"{_cut(r.title, title_width):<{title_width}}  " if title_width else ""
    return f"{r.id:<4}  {title}{r.status:<{STATUS_WIDTH}}  {counted}  {detail}".rstrip()


def render(results: Sequence[ExerciseResult], width: int = 120, verbose: bool = False) -> str:
    """The table, the diagnoses under it, the to-do list where the table cut a "to do" row (with
    ``verbose`` the diagnoses say it all), and ``K/N exercises passed`` as the last line."""
    hidden = not verbose and any(sum(t.outcome not in (PASSED, SKIPPED) for t in r.tests) > 1 for r in results)
    parts = [table(results, width), diagnoses(results, width, verbose),
             "" if verbose else to_do(results, width),
             "(add -v to list every failing test)" if hidden else "", passed_line(results)]
    return "\n\n".join(part for part in parts if part)


def _is_to_do(r: ExerciseResult) -> bool:
    return not r.passed and r.summary.startswith(TO_DO)


def _was_cut(r: ExerciseResult, results: Sequence[ExerciseResult], width: int) -> bool:
    return len(_row(r, title_width(results, width))) > width


def to_do(results: Sequence[ExerciseResult], width: int = 120) -> str:
    """Where the table cut a stub's row ("to do: implement …"), every stub's whole reason: which
    function, in which file and line, one line each (so the list is whole, not only the cut rows)."""
    stubs = [r for r in results if _is_to_do(r)]
    if not any(_was_cut(r, results, width) for r in stubs):
        return ""
    lines = ["To do (where each exercise still runs its stub: the function, file and line):"]
    for r in stubs:
        lines += _wrapped(f"{r.id}  {r.summary.removeprefix(TO_DO)}", width, indent="  ")
    return "\n".join(lines)


def passed_line(results: Sequence[ExerciseResult]) -> str:
    """``K/N exercises passed``, then how many were not graded and why (``1 not graded: needs PyTorch``)."""
    line = f"{sum(r.passed for r in results)}/{len(results)} exercises passed"
    not_graded = [r for r in results if r.status == NOT_GRADED]
    if not_graded:
        needs = " and ".join(dict.fromkeys(r.summary.removeprefix("not graded: needs ") for r in not_graded))
        line += f"; {len(not_graded)} not graded: needs {needs}"
    return line


def table(results: Sequence[ExerciseResult], width: int = 120) -> str:
    """The summary table: a header, a rule, one row per exercise, each cut at ``width``."""
    titles = title_width(results, width)
    title = f"{'exercise':<{titles}}  " if titles else ""
    rows = [f"{'id':<4}  {title}{'result':<{STATUS_WIDTH}}  tests  what failed or was skipped"]
    rows += [_cut(_row(r, titles), width) for r in results]
    rows.insert(1, "-" * min(width, max(len(row) for row in rows)))
    return "\n".join(rows)


def diagnoses(results: Sequence[ExerciseResult], width: int = 120, verbose: bool = False) -> str:
    """Each failing exercise's diagnosis in full, wrapped to ``width``: the first failing test's (every
    failing test's with ``verbose``), unless the table's row already showed all of it or the exercise is
    still a stub ("to do: …", which ``to_do`` lists); and a passed exercise's skipped tests, with
    ``verbose`` or where its row was cut."""
    blocks = []
    for r in results:
        if r.passed or r.status == NOT_GRADED:
            if r.skipped and (verbose or _was_cut(r, results, width)):
                how = "passed, with tests skipped" if r.passed else "not graded, every test skipped"
                blocks.append("\n".join([f"Exercise {r.id}, {r.title}: {how}:",
                                         *(f"  {t.name}: {t.message}" for t in r.skipped)]))
            continue
        failing = [t for t in r.tests if t.outcome not in (PASSED, SKIPPED)]
        shown_whole = not _was_cut(r, results, width) and r.details in ("", r.summary)
        if not verbose and (shown_whole or _is_to_do(r)):  # a stub: nothing to diagnose
            continue
        lines = [f"Exercise {r.id}, {r.title}:"]
        if verbose and failing:
            for t in failing:
                lines.append(f"  {t.name}:")
                lines += _wrapped(t.details or t.message, width)
        else:
            if failing:
                lines.append(f"  {failing[0].name}:")
            lines += _wrapped(r.details or r.summary, width)
            if len(failing) > 1:
                lines.append(f"  ({len(failing) - 1} more failing test(s))")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _wrapped(text: str, width: int, indent: str = INDENT) -> list[str]:
    """``text`` indented and wrapped to ``width``, keeping its own line breaks."""
    out = []
    for line in text.strip().splitlines() or [""]:
        out += textwrap.wrap(line, width=max(40, width), initial_indent=indent, subsequent_indent=indent + "  ",
                             break_long_words=True, break_on_hyphens=False) or [""]
    return out


def report(results: Sequence[ExerciseResult], workspace: Path, timeout: float | None,
           tests_dir: Path | None = None) -> dict[str, Any]:
    """The machine-readable report (``--json FILE``): who, when, which workspace, and every test's outcome.
    ``timeout_s`` is the limit asked for (``None``: each exercise's default, given in its ``timeout``);
    ``tests`` is ``"public"``, or the folder of hidden tests that graded it (``--tests DIR``)."""
    from .. import __version__

    try:
        user = getpass.getuser()
    except Exception:  # no user name in some containers
        user = None
    return {
        "micrograd2": __version__,
        "workspace": str(workspace.resolve()),
        "user": user,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "timeout_s": timeout,
        "tests": "public" if tests_dir is None else str(tests_dir.resolve()),
        "passed": sum(r.passed for r in results),
        "total": len(results),
        "exercises": [{**asdict(r), "tests_passed": r.tests_passed} for r in results],
    }


def write_report(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
