"""``micrograd2 train``: train an MLP on a generated dataset, with a progress bar and a summary.

A thin shell over ``micrograd2.training.train``: options map one to one onto
``TrainConfig``'s fields.  Exit 0 on success, 2 on a bad option, 1 on a failure
(a missing engine or matplotlib), always with a one-line message.
"""
from __future__ import annotations

from typing import Any

import click

from ..training import AMP_DTYPES, DATASETS, DEVICES, OPTIMIZERS, TrainConfig, TrainResult


def _hidden(ctx: click.Context, param: click.Parameter, text: str) -> tuple[int, ...]:
    """``"16,16"`` -> ``(16, 16)``; ``""`` -> no hidden layer."""
    try:
        sizes = tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise click.BadParameter(f"expected layer sizes like 16,16, got {text!r}") from None
    if any(size < 1 for size in sizes):
        raise click.BadParameter(f"layer sizes must be at least 1, got {text!r}")
    return sizes


@click.command()
@click.option("--dataset", type=click.Choice(DATASETS), default="moons", show_default=True,
              help="What to learn (digits needs scikit-learn).")
@click.option("--samples", type=click.IntRange(min=1), default=100, show_default=True,
              help="Number of training points.")
@click.option("--noise", type=click.FloatRange(min=0), default=None, help="Dataset noise (default: the dataset's own).")
@click.option("--steps", type=click.IntRange(min=1), default=100, show_default=True, help="Optimizer steps.")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="Samples per micro-batch (default: the whole dataset).")
@click.option("--accum-steps", type=click.IntRange(min=1), default=1, show_default=True,
              help="Micro-batches accumulated per step (each loss divided by this).")
@click.option("--optimizer", type=click.Choice(OPTIMIZERS), default="sgd", show_default=True)
@click.option("--lr", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Learning rate (default: 0.1 for sgd, 0.02 for adam).")
@click.option("--momentum", type=click.FloatRange(min=0), default=0.0, show_default=True, help="SGD momentum.")
@click.option("--weight-decay", type=click.FloatRange(min=0), default=0.0, show_default=True)
@click.option("--clip", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Clip the total gradient norm to this value.")
@click.option("--amp", type=click.Choice(AMP_DTYPES), default=None,
              help="Mixed precision: autocast to this dtype (float16 also uses a GradScaler).")
@click.option("--hidden", default="16,16", show_default=True, callback=_hidden, help="Hidden layer sizes.")
@click.option("--activation", type=click.Choice(["relu", "tanh"]), default="relu", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds the data, the weights and the batches.")
@click.option("--device", type=click.Choice(DEVICES), default="scalar", show_default=True,
              help="scalar: Values (pure Python); cpu/cuda: the vectorized engine.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the loss curve and decision boundary to this PNG (needs matplotlib).")
def command(plot_path: str | None, **options: Any) -> None:
    """Train an MLP on a generated dataset and report loss, accuracy and time per step."""
    from .. import training

    config = TrainConfig(**options)
    try:
        config.check()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if plot_path is not None:
        try:
            training.require_matplotlib()
        except RuntimeError as exc:
            raise click.ClickException(str(exc)) from None
    result = _run(config)
    _summary(result)
    if plot_path is not None:
        training.plot(result, plot_path)
        click.echo(f"plot written to {plot_path}")


def _run(config: TrainConfig) -> TrainResult:
    from .. import training

    status = {"loss": float("nan"), "accuracy": 0.0}

    def show(_: Any) -> str:
        return f"loss {status['loss']:.4f}  acc {status['accuracy']:.1%}"

    with click.progressbar(length=config.steps, label=f"training on {config.dataset}", item_show_func=show,
                           show_pos=True) as bar:
        def progress(step: int, loss: float, accuracy: float) -> None:
            status["loss"], status["accuracy"] = loss, accuracy
            bar.update(1, step)

        try:
            return training.train(config, progress)
        except (RuntimeError, ImportError) as exc:
            raise click.ClickException(" ".join(str(exc).split())) from None


def _summary(result: TrainResult) -> None:
    config = result.config
    sizes = "-".join(str(n) for n in (result.dataset.n_features, *config.hidden,
                                      1 if result.dataset.n_classes == 2 else result.dataset.n_classes))
    click.echo(f"{config.dataset}: {len(result.dataset)} samples, MLP {sizes} ({result.n_parameters} parameters), "
               f"{config.optimizer} lr {config.learning_rate:g}, {config.device} engine")
    click.echo(f"steps: {result.steps}  final loss: {result.final_loss:.4f}  accuracy: {result.accuracy:.1%}  "
               f"time per step: {result.seconds_per_step * 1000:.1f} ms ({result.seconds:.2f} s total)")
    if config.amp is not None:
        scale = "no GradScaler" if result.final_scale is None else f"final scale {result.final_scale:g}"
        click.echo(f"amp {config.amp}: {result.skipped_steps} step(s) skipped, {scale}")
