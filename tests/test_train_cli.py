"""Tests for ``micrograd2 train`` (micrograd2/commands/train.py): exit codes, the summary,
``--plot``, and the one-line failures (missing matplotlib, engine or scikit-learn)."""
from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from micrograd2.cli import main

FAST = ["train", "--samples", "12", "--steps", "2", "--hidden", "4"]


def run(args: list[str]):
    return CliRunner().invoke(main, args)


def test_a_run_exits_0_and_prints_a_summary() -> None:
    result = run(FAST)
    assert result.exit_code == 0, result.output
    assert "moons: 12 samples, MLP 2-4-1 (17 parameters), sgd lr 0.1, scalar engine" in result.output
    assert "steps: 2" in result.output and "final loss:" in result.output
    assert "training accuracy:" in result.output and "time per step:" in result.output and " ms" in result.output
    assert "estimated time: under a second" in result.output and "hint:" not in result.output


def test_every_option_reaches_the_run() -> None:
    result = run(["train", "--dataset", "spirals", "--samples", "12", "--steps", "2", "--batch-size", "3",
                  "--accum-steps", "2", "--optimizer", "adam", "--lr", "0.01", "--clip", "1.0",
                  "--amp", "float16", "--hidden", "3,3", "--activation", "tanh", "--seed", "4",
                  "--weight-decay", "0.01", "--noise", "0.1", "--device", "scalar"])
    assert result.exit_code == 0, result.output
    assert "spirals: 12 samples, MLP 2-3-3-3" in result.output and "adam lr 0.01" in result.output
    assert "amp float16:" in result.output and "final scale" in result.output


def test_momentum_option() -> None:
    assert run([*FAST, "--momentum", "0.9"]).exit_code == 0


def test_plot_writes_a_png(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "run.png"
    result = run([*FAST, "--plot", str(path)])
    assert result.exit_code == 0, result.output
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written to {path}" in result.output


def test_plot_without_matplotlib_fails_with_one_line_before_training(monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run([*FAST, "--plot", str(tmp_path / "run.png")])
    assert result.exit_code == 1
    assert result.output.strip() == (
        "Error: --plot needs matplotlib, which isn't installed: pip install -e '.[plot]' in the micrograd2 folder "
        "(or pip install matplotlib)")
    assert not (tmp_path / "run.png").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--dataset", "mnist"],
        ["--optimizer", "rmsprop"],
        ["--steps", "0"],
        ["--hidden", "16,x"],
        ["--hidden", "16,0"],
        ["--hidden", "16,,16"],
        ["--hidden", "16,"],
        ["--hidden", "-4"],
        ["--lr", "-1"],
        ["--amp", "float32"],
        ["--device", "tpu"],
        ["--no-such-option"],
    ],
)
def test_a_bad_option_exits_2_with_a_usage_error(args) -> None:
    result = run(["train", *args])
    assert result.exit_code == 2
    assert "Error:" in result.output and "Traceback" not in result.output


def test_device_cpu_without_the_vectorized_engine_exits_1_with_one_line(monkeypatch) -> None:
    import micrograd2.training

    monkeypatch.delattr(micrograd2.training, "vectorized", raising=False)
    monkeypatch.setitem(sys.modules, "micrograd2.training.vectorized", None)
    result = run([*FAST, "--device", "cpu"])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "isn't available in this build" in errors[0]


def test_digits_without_scikit_learn_exits_1_with_one_line(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    result = run([*FAST, "--dataset", "digits"])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "pip install scikit-learn" in errors[0]


def test_help_lists_the_options() -> None:
    result = run(["train", "--help"])
    assert result.exit_code == 0
    for option in ("--dataset", "--samples", "--steps", "--batch-size", "--lr", "--optimizer", "--momentum",
                   "--accum-steps", "--clip", "--amp", "--hidden", "--seed", "--plot", "--device"):
        assert option in result.output


def test_the_choices_are_the_training_packages() -> None:
    from micrograd2 import training
    from micrograd2.commands import train

    assert (train.DATASETS, train.OPTIMIZERS, train.DEVICES, train.AMP_DTYPES) == (
        training.DATASETS, training.OPTIMIZERS, training.DEVICES, training.AMP_DTYPES)


@pytest.mark.parametrize("name, why", [("nowhere/x.png", "does not exist"), ("x.txt", "must end in .png")])
def test_a_bad_plot_path_is_a_usage_error_before_training(tmp_path, name, why) -> None:
    result = run([*FAST, "--plot", str(tmp_path / name)])
    assert result.exit_code == 2 and why in result.output and "training on" not in result.output


def test_digits_without_scikit_learn_suggests_moons_before_training(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    result = run([*FAST, "--dataset", "digits"])
    assert result.exit_code == 1 and "training on" not in result.output
    assert "pip install scikit-learn, or use --dataset moons" in result.output


@pytest.mark.parametrize("why", ["pycuda is not installed: pip install -e '.[cuda]'", "the NVIDIA driver sees no GPU"])
def test_device_cuda_without_pycuda_or_a_gpu_says_which_and_suggests_cpu(monkeypatch, why) -> None:
    from micrograd2.backends import cuda

    monkeypatch.setattr(cuda, "cuda_status", lambda: (False, why))
    result = run([*FAST, "--device", "cuda"])
    assert result.exit_code == 1 and "training on" not in result.output
    assert f"--device cuda can't run here: {why}. Use --device cpu" in result.output


def test_the_estimate_comes_after_the_first_step_with_a_hint_for_long_scalar_runs(capsys) -> None:
    from micrograd2.commands import train
    from micrograd2.training import TrainConfig

    train._estimate(TrainConfig(steps=100), 0.4)
    assert capsys.readouterr().out.splitlines() == [
        "estimated time: about 40 s",
        "hint: --device cpu trains the same model on the Tensor engine (NumPy), far faster; the scalar engine "
        "is the one the lessons teach"]
    train._estimate(TrainConfig(steps=100, device="cpu"), 0.4)
    assert capsys.readouterr().out.splitlines() == ["estimated time: about 40 s"]
    train._estimate(TrainConfig(steps=100), 0.05)
    assert capsys.readouterr().out.splitlines() == ["estimated time: about 5 s"]


def test_the_bar_shows_a_dash_until_there_is_a_number() -> None:
    from micrograd2.commands import train

    assert train._status({"loss": None, "accuracy": None}) == "loss —  training acc —"
    assert train._status({"loss": 0.25, "accuracy": 0.5}) == "loss 0.2500  training acc 50.0%"


def test_a_diverging_run_gets_a_hint_to_lower_the_learning_rate(recwarn) -> None:
    pytest.importorskip("numpy")
    result = run(["train", "--samples", "20", "--steps", "5", "--lr", "1e6", "--device", "cpu"])
    assert not [w for w in recwarn if "encountered" in str(w.message)]  # no NumPy overflow warnings
    assert result.exit_code == 0, result.output
    assert "final loss: nan" in result.output
    assert "What to do: lower it (--lr 0.1), or clip the gradients (--clip 1.0)" in result.output


def test_ctrl_c_says_how_many_steps_were_trained_and_exits_130(monkeypatch) -> None:
    from micrograd2 import training

    def three_steps_then_ctrl_c(config, progress):
        for step in (1, 2, 3):
            progress(step, 0.5, 0.75)
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "train", three_steps_then_ctrl_c)
    result = run(["train", "--steps", "10"])
    assert result.exit_code == 130 and "Aborted" not in result.output
    assert "training stopped (Ctrl-C) after 3 of 10 steps; last loss 0.5000  training acc 75.0%" in result.output


def test_the_bar_counts_from_the_steps_done_and_ends_on_the_summarys_accuracy(monkeypatch) -> None:
    import click._termui_impl

    from micrograd2 import training

    real = training.train

    def zero_accuracy_in_each_step(config, progress):  # each step's accuracy differs from the model's
        return real(config, lambda step, loss, accuracy: progress(step, loss, 0.0))

    monkeypatch.setattr(training, "train", zero_accuracy_in_each_step)
    monkeypatch.setattr(click._termui_impl, "isatty", lambda stream: True)  # draw the frames
    result = run(["train", "--samples", "12", "--steps", "4", "--hidden", "4"])
    assert result.exit_code == 0, result.output
    frames = [f for f in result.output.replace("\n", "\r").split("\r") if f.startswith("training  [")]
    assert [f.split()[2] for f in frames][:3] == ["2/4", "3/4", "4/4"], frames
    summary = result.output.split("training accuracy: ")[1].split()[0]
    assert frames[-1].split("training acc ")[1].startswith(summary), (frames[-1], summary)
