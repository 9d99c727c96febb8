"""``micrograd2 train``: train an MLP on a generated dataset, with a progress bar and a summary.

A thin shell over ``micrograd2.training.train``: options map one to one onto
``TrainConfig``'s fields.  Everything that can be checked is checked before
training starts (the plot's folder, scikit-learn for digits, NumPy or pycuda and
a GPU for ``--device``).  After two steps it says how long the run will
take (and, for a long scalar run, that ``--device cpu`` trains the same model
on the Tensor engine); the summary's accuracy is on the training set.  Exit 0
on success, 2 on a bad option, 1 on a failure, always with a one-line message.
"""
from __future__ import annotations

import importlib.util
import math
import os
import sys
import time
import warnings
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from ..training import TrainConfig, TrainResult

# The choices of TrainConfig's fields (micrograd2.training's constants, repeated so `--help` imports nothing;
# tests/test_train_cli.py checks that they agree).
DATASETS = ("moons", "circles", "spirals", "digits")
OPTIMIZERS = ("sgd", "adam")
DEVICES = ("scalar", "cpu", "cuda")
AMP_DTYPES = ("float16", "bfloat16")
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg")
SLOW_S = 10.0  # a scalar run longer than this gets the hint to use --device cpu
NO_NUMBER = "—"
NUMPY_NAN_WARNINGS = r"(overflow|invalid value|divide by zero) encountered"


def _hidden(ctx: click.Context, param: click.Parameter, text: str) -> tuple[int, ...]:
    """``"16,16"`` -> ``(16, 16)``; ``""`` -> no hidden layer; an empty or non-positive size is an error."""
    text = text.replace(" ", "")
    if not text:
        return ()
    parts = text.split(",")
    if not all(part.isdigit() for part in parts):
        raise click.BadParameter(f"expected layer sizes separated by commas, like 16,16; got {text!r}")
    sizes = tuple(int(part) for part in parts)
    if any(size < 1 for size in sizes):
        raise click.BadParameter(f"layer sizes must be at least 1, got {text!r}")
    return sizes


def _plot_path(ctx: click.Context, param: click.Parameter, text: str | None) -> Path | None:
    """The plot's file, if its folder exists and can be written and its suffix is one matplotlib writes."""
    if text is None:
        return None
    path = Path(text)
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise click.BadParameter(f"{text}: the file must end in {', '.join(PLOT_SUFFIXES)}")
    folder = path.parent
    if not folder.is_dir():
        raise click.BadParameter(f"{text}: the folder {folder} does not exist (create it first)")
    if not os.access(folder, os.W_OK) or path.is_dir():
        raise click.BadParameter(f"{text}: can't write a file there")
    return path


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
              help="scalar: Values (pure Python, the engine the lessons teach); cpu/cuda: the same model on "
                   "the Tensor engine (much faster).")
@click.option("--plot", "plot_path", default=None, callback=_plot_path,
              help="Write the loss curve and decision boundary to this PNG (needs matplotlib).")
def command(plot_path: Path | None, **options: Any) -> None:
    """Train an MLP on a generated dataset and report loss, training accuracy and time per step."""
    from .. import training

    config = training.TrainConfig(**options)
    try:
        config.check()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    _check_can_run(config, plot_path)
    result = _run(config)
    _summary(result)
    if plot_path is not None:
        try:
            training.plot(result, str(plot_path))
        except (OSError, ValueError, RuntimeError) as exc:
            raise click.ClickException(f"could not write the plot {plot_path}: {exc}") from None
        click.echo(f"plot written to {plot_path}")


def _check_can_run(config: TrainConfig, plot_path: Path | None) -> None:
    """Fail now, in one line, for anything missing that the run would need later."""
    from .. import training

    if plot_path is not None:
        try:
            training.require_matplotlib()
        except RuntimeError as exc:
            raise click.ClickException(str(exc)) from None
    if config.dataset == "digits" and importlib.util.find_spec("sklearn") is None:
        raise click.ClickException("--dataset digits needs scikit-learn, which isn't installed: "
                                   "pip install scikit-learn, or use --dataset moons (or circles, spirals)")
    if config.device != "scalar" and importlib.util.find_spec("numpy") is None:
        raise click.ClickException(f"--device {config.device} needs NumPy, which isn't installed: "
                                   "pip install numpy, or use --device scalar")
    if config.device == "cuda":
        from ..backends.cuda import cuda_status

        ok, why = cuda_status()
        if not ok:
            raise click.ClickException(f"--device cuda can't run here: {why}. Use --device cpu "
                                       "(the same model on the Tensor engine, on the CPU)")


# NOTE [The bar's frames]
# The bar opens after step 2 (the first step also pays for imports), at 2/N: it never shows 0 steps
# done once two are.  Each frame's "training acc" is that step's, measured on its batch before the
# update; the summary's is the trained model's, on the whole training set.  So the last frame is
# drawn again with the summary's number: the bar and the summary never disagree.
def _run(config: TrainConfig) -> TrainResult:
    """Train with a progress bar, opened once the time of one step is known (that of the second step:
    the first also pays for imports and set-up)."""
    from .. import training

    click.echo(f"training on {config.dataset}: {config.samples} samples, {config.steps} steps, "
               f"{config.device} engine")
    status: dict[str, float | None] = {"loss": None, "accuracy": None}
    times = [time.perf_counter()]
    with ExitStack() as stack:
        bars: list[Any] = []

        def progress(step: int, loss: float, accuracy: float) -> None:
            status["loss"], status["accuracy"] = loss, accuracy
            times.append(time.perf_counter())
            if bars:
                bars[0].update(1, step)
            elif step >= 2 or step == config.steps:
                _estimate(config, times[-1] - times[-2])
                bar: Any = click.progressbar(length=config.steps, label="training", show_pos=True,
                                             item_show_func=lambda _: _status(status))
                bar.pos = step  # its first frame: the steps already done, not 0 (NOTE [The bar's frames])
                bars.append(stack.enter_context(bar))

        try:
            with warnings.catch_warnings():  # a diverging run's nan is said once, with a hint, in the summary
                warnings.filterwarnings("ignore", NUMPY_NAN_WARNINGS, RuntimeWarning)
                result = training.train(config, progress)
            if bars:  # the last frame shows the trained model's accuracy, as the summary does
                status["accuracy"] = result.accuracy
                bars[0].render_progress()
            return result
        except (RuntimeError, ImportError) as exc:
            raise click.ClickException(" ".join(str(exc).split())) from None
        except KeyboardInterrupt:
            stack.close()  # end the progress bar's line first
            _stopped(config, len(times) - 1, status)
    raise AssertionError("not reached: training.train returns or raises")


def _stopped(config: TrainConfig, steps: int, status: dict[str, float | None]) -> NoReturn:
    """Ctrl-C: say how many steps were trained and the last loss, then exit 130 (as ``exercise check``)."""
    click.echo(f"\ntraining stopped (Ctrl-C) after {steps} of {config.steps} steps; last {_status(status)}",
               err=True)
    sys.exit(130)


def _status(status: dict[str, float | None]) -> str:
    """``loss 0.4123  training acc 85.0%``, with ``—`` for what has no number yet."""
    loss, accuracy = status["loss"], status["accuracy"]
    loss_text = NO_NUMBER if loss is None else f"{loss:.4f}"
    accuracy_text = NO_NUMBER if accuracy is None else f"{accuracy:.1%}"
    return f"loss {loss_text}  training acc {accuracy_text}"


def _estimate(config: TrainConfig, step_s: float) -> None:
    """Say how long the whole run will take, from the time of one step; a long scalar run gets a hint."""
    total = step_s * config.steps
    click.echo(f"estimated time: {_duration(total)}")
    if total > SLOW_S and config.device == "scalar":
        click.echo("hint: --device cpu trains the same model on the Tensor engine (NumPy), far faster; "
                   "the scalar engine is the one the lessons teach")


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    return f"about {seconds / 60:.0f} min"


def _summary(result: TrainResult) -> None:
    config = result.config
    sizes = "-".join(str(n) for n in (result.dataset.n_features, *config.hidden,
                                      1 if result.dataset.n_classes == 2 else result.dataset.n_classes))
    click.echo(f"{config.dataset}: {len(result.dataset)} samples, MLP {sizes} ({result.n_parameters} parameters), "
               f"{config.optimizer} lr {config.learning_rate:g}, {config.device} engine")
    click.echo(f"steps: {result.steps}  final loss: {result.final_loss:.4f}  "
               f"training accuracy: {result.accuracy:.1%}  "
               f"time per step: {result.seconds_per_step * 1000:.1f} ms ({result.seconds:.2f} s total)")
    if config.amp is not None:
        scale = "no GradScaler" if result.final_scale is None else f"final scale {result.final_scale:g}"
        click.echo(f"amp {config.amp}: {result.skipped_steps} step(s) skipped, {scale}")
    if not math.isfinite(result.final_loss):
        _diverged(config, result.final_loss)


def _diverged(config: TrainConfig, loss: float) -> None:
    """The loss ended as nan or inf: say it, and what to try."""
    from ..training import DEFAULT_LR

    lr, default = config.learning_rate, DEFAULT_LR[config.optimizer]
    smaller = default if lr > default else lr / 10
    click.echo(f"the loss diverged to {loss}: learning rate {lr:g} is too large for this model. "
               f"What to do: lower it (--lr {smaller:g}), or clip the gradients (--clip 1.0)")
