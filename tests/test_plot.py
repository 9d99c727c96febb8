"""Pictures of a training run (micrograd2/training/plot.py): the loss curve and, for 2-D data, the decision boundary.

It proves, with a stand-in for ``matplotlib.pyplot`` that records what is drawn, that a 2-D run gets two panels
(the loss at each step, titled with the final loss and accuracy, and the model's class on a ``grid``×``grid``
map over the data, one colour band per class) and data of more features the loss curve only; that without
matplotlib the error says how to install it before anything is written; and, where matplotlib is installed,
that a real PNG is written.
"""
from __future__ import annotations

import dataclasses
import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from micrograd2.data import Dataset
from micrograd2.training import TrainConfig, TrainResult, train

plot = importlib.import_module("micrograd2.training.plot")  # the module: the package's ``plot`` is its function


class Recorder:
    """Stands in for a matplotlib object: keeps each call as ``(name, args, kwargs)``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))

    def called(self, name: str) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
        return [(args, kwargs) for n, args, kwargs in self.calls if n == name]


class Pyplot(Recorder):
    """``plt``: ``subplots`` hands out recording axes; ``savefig`` writes a file so the path can be checked."""

    def __init__(self) -> None:
        super().__init__()
        self.figure, self.axes = Recorder(), [Recorder(), Recorder()]
        self.figure.savefig = lambda path: Path(path).write_bytes(b"picture")  # type: ignore[method-assign]

    def subplots(self, rows: int, columns: int, figsize: tuple[float, float]) -> tuple[Recorder, Any]:
        self.calls.append(("subplots", (rows, columns), {"figsize": figsize}))
        return self.figure, self.axes[:columns] if columns > 1 else self.axes[0]


@pytest.fixture(scope="module")
def result() -> TrainResult:
    return train(TrainConfig(samples=12, steps=3, hidden=(4,)))


def test_a_2d_run_draws_the_loss_curve_and_the_decision_boundary(result: TrainResult, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    plt = Pyplot()
    monkeypatch.setattr(plot, "require_matplotlib", lambda: plt)
    path = str(tmp_path / "run.png")
    assert plot.plot(result, path, grid=5) == path and Path(path).read_bytes() == b"picture"
    assert plt.called("subplots") == [((1, 2), {"figsize": (11, 4.5)})]
    assert plt.called("close") == [((plt.figure,), {})]
    loss, boundary = plt.axes
    [((steps, losses), _)] = loss.called("plot")
    assert list(steps) == [1, 2, 3] and losses == result.losses
    assert loss.called("set_title") == [((f"moons: final loss {result.final_loss:.4f}, "
                                          f"accuracy {result.accuracy:.1%}",), {})]
    [((gx, gy, rows), options)] = boundary.called("contourf")
    assert len(gx) == len(gy) == 5 and [len(row) for row in rows] == [5] * 5
    assert options["levels"] == [-0.5, 0.5, 1.5]  # one band per class
    xs = [p[0] for p in result.dataset.X]
    assert gx[0] == min(xs) - 0.25 and gx[-1] == max(xs) + 0.25
    for i, j in ((0, 0), (4, 0), (0, 4), (4, 4), (2, 3)):
        assert rows[j][i] == result.predict([[gx[i], gy[j]]])[0]  # row j is the line y = gy[j]
    [((px, py), scatter)] = boundary.called("scatter")
    assert px == xs and scatter["c"] == result.dataset.y


def test_data_of_more_than_two_features_gets_the_loss_curve_only(result: TrainResult, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    plt = Pyplot()
    monkeypatch.setattr(plot, "require_matplotlib", lambda: plt)
    three = Dataset(X=[[0.0, 1.0, 2.0], [1.0, 0.0, 2.0]], y=[0, 1], n_classes=2, name="three")
    plot.plot(dataclasses.replace(result, dataset=three), str(tmp_path / "run.png"))
    assert plt.called("subplots") == [((1, 1), {"figsize": (6, 4.5)})]
    assert len(plt.axes[0].called("plot")) == 1 and plt.axes[1].calls == []
    assert not plt.axes[0].called("contourf")


def test_without_matplotlib_the_error_says_how_to_install_it(result: TrainResult, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(RuntimeError, match=r"needs matplotlib, which isn't installed: pip install -e '\.\[plot\]'"):
        plot.require_matplotlib()
    with pytest.raises(RuntimeError, match="pip install matplotlib"):
        plot.plot(result, str(tmp_path / "run.png"))
    assert not (tmp_path / "run.png").exists()


def test_with_matplotlib_a_png_is_written(result: TrainResult, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = plot.plot(result, str(tmp_path / "run.png"), grid=8)
    assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
