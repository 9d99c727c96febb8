"""``micrograd2.lessons.tools``: what the lessons import, gathered in one module; lessons run one after
another in one process each count their own checks."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from micrograd2.lessons import tools

LESSONS = Path(__file__).resolve().parents[1] / "lessons"


def test_every_name_a_lesson_imports_from_tools_is_there() -> None:
    imported = set()
    for path in LESSONS.glob("[0-9][0-9]_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "micrograd2.lessons.tools":
                imported |= {alias.name for alias in node.names}
    assert {"check", "summary", "live_torch", "section"} <= imported
    assert sorted(imported - set(tools.__all__)) == []
    assert all(hasattr(tools, name) for name in tools.__all__)


def test_lesson_scripts_run_one_after_another_in_one_process_count_their_own(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import runpy

    from micrograd2.commands import lesson as lesson_command

    script = ("from micrograd2.lessons.tools import check, summary\n"
              "for i in range({n}):\n    check(f'c{{i}}', i, i)\n"
              "summary('{name}')\n")
    paths = []
    for name, n in (("a", 3), ("b", 2)):
        paths.append(tmp_path / f"{name}.py")
        paths[-1].write_text("# %%\n" + script.format(n=n, name=name), encoding="utf-8")
    tools.start_session()
    for path in paths:  # as plain scripts, in one interpreter (a notebook kernel, the playground)
        runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert "✓ a: 3 checks:" in out and "✓ b: 2 checks:" in out
    done = [lesson_command._run_one(p, lesson_command.Options(trace=False)) for p in paths]  # the CLI's way
    assert [len(r.checks) for r in done] == [3, 2]
    lesson_command._overall(done, as_json=False)
    assert "All 2 lessons: 5 checks:" in capsys.readouterr().out
    tools.start_session()
