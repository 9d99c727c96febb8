"""Pictures of a training run: the loss curve and, for 2-D data, the decision boundary (matplotlib, optional)."""
from __future__ import annotations

from typing import Any

from .config import TrainResult

MATPLOTLIB_MISSING = ("--plot needs matplotlib, which isn't installed: pip install -e '.[plot]' in the micrograd2 "
                      "folder (or pip install matplotlib)")


def require_matplotlib() -> Any:
    """``matplotlib.pyplot`` with the file-only Agg backend; ``RuntimeError`` saying how to install it."""
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError(MATPLOTLIB_MISSING) from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot(result: TrainResult, path: str, grid: int = 40) -> str:
    """Write the loss curve and, for 2-D datasets, the decision boundary (a ``grid``×``grid`` map) to ``path``."""
    plt = require_matplotlib()
    two_d = result.dataset.n_features == 2
    fig, axes = plt.subplots(1, 2 if two_d else 1, figsize=(11 if two_d else 6, 4.5))
    loss_ax = axes[0] if two_d else axes
    loss_ax.plot(range(1, result.steps + 1), result.losses)
    loss_ax.set_xlabel("step")
    loss_ax.set_ylabel("training loss")
    loss_ax.set_title(f"{result.config.dataset}: final loss {result.final_loss:.4f}, "
                      f"accuracy {result.accuracy:.1%}")
    if two_d:
        _decision_boundary(axes[1], result, grid)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _decision_boundary(ax: Any, result: TrainResult, grid: int) -> None:
    xs = [p[0] for p in result.dataset.X]
    ys = [p[1] for p in result.dataset.X]
    x0, x1 = min(xs) - 0.25, max(xs) + 0.25
    y0, y1 = min(ys) - 0.25, max(ys) + 0.25
    gx = [x0 + (x1 - x0) * i / (grid - 1) for i in range(grid)]
    gy = [y0 + (y1 - y0) * j / (grid - 1) for j in range(grid)]
    classes = result.predict([[x, y] for y in gy for x in gx])
    rows = [classes[j * grid:(j + 1) * grid] for j in range(grid)]
    levels = [k - 0.5 for k in range(result.dataset.n_classes + 1)]  # one band per class
    ax.contourf(gx, gy, rows, levels=levels, cmap="coolwarm", alpha=0.35)
    ax.scatter(xs, ys, c=result.dataset.y, cmap="coolwarm", s=14, edgecolors="k", linewidths=0.3)
    ax.set_title("decision boundary")
    ax.set_aspect("equal")
