"""micrograd2/commands/diagram.py: the ``--graph`` and ``--html`` options, defined once."""
from __future__ import annotations

from types import SimpleNamespace

import click
import pytest
from click.testing import CliRunner

from micrograd2.commands import diagram


def _command() -> click.Command:
    @click.command()
    @diagram.graph_option("it")
    @diagram.html_option("it")
    def show(graph, html) -> None:
        click.echo(f"{graph} {html}")

    return show


def test_the_options_take_files_in_existing_folders(tmp_path) -> None:
    done = CliRunner().invoke(_command(), ["--graph", str(tmp_path / "g.svg"), "--html", str(tmp_path / "s.html")])
    assert done.exit_code == 0 and done.output.split() == [str(tmp_path / "g.svg"), str(tmp_path / "s.html")]


@pytest.mark.parametrize("args", [["--graph", "/nonexistent/dir/g.svg"], ["--graph", "g.txt"],
                                  ["--html", "/nonexistent/dir/s.html"]])
def test_a_missing_folder_or_a_wrong_suffix_is_refused(args) -> None:
    done = CliRunner().invoke(_command(), args)
    assert done.exit_code == 2 and "Error" in done.output


def test_too_long_names_the_first_pass_over_the_limit() -> None:
    steps = [SimpleNamespace(kind="backward", step=k, pass_no=1) for k in range(3)]
    steps += [SimpleNamespace(kind="backward", step=k, pass_no=2) for k in range(diagram.MAX_PAGE_STEPS + 1)]
    assert diagram.too_long(steps) == (2, diagram.MAX_PAGE_STEPS + 1)
    assert diagram.too_long(steps, pass_no=1) is None
    assert "pass 2 has 101 steps" in diagram.refused_page(__import__("pathlib").Path("p.html"), "its", (2, 101))
