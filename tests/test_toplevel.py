"""micrograd2/toplevel.py: mg.exp, mg.cat… as PyTorch's functions, each the method of its input."""
from __future__ import annotations

import subprocess
import sys

import pytest

import micrograd2 as mg


def test_functions_are_the_methods_of_their_input() -> None:
    x = mg.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    for name in ("exp", "tanh", "sigmoid", "relu"):
        assert getattr(mg, name)(x).grad_fn.name() == getattr(x, name)().grad_fn.name()
    assert mg.log(x.abs()).grad_fn.name() == "LogBackward0"
    assert mg.softmax(x, 1).grad_fn.name() == "SoftmaxBackward0"
    assert mg.log_softmax(x, dim=1).grad_fn.name() == "LogSoftmaxBackward0"
    assert mg.clamp(x, min=0.0).grad_fn.name() == "ClampBackward1"
    assert mg.matmul(x, x).grad_fn.name() == "MmBackward0"
    assert mg.maximum(x, -x).grad_fn.name() == "MaximumBackward0"
    assert mg.exp(mg.Value(0.0)).item() == 1.0 and mg.relu(mg.Value(-1.0)).item() == 0.0


def test_a_number_is_refused_as_torch_refuses_it() -> None:
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        mg.exp(1.0)
    with pytest.raises(TypeError, match="must be Tensor, not Value"):
        mg.softmax(mg.Value(1.0), 0)


def test_importing_micrograd2_still_needs_no_numpy() -> None:
    code = "import sys, micrograd2 as mg; mg.exp(mg.Value(1.0)); print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_functional_relu_and_softmax() -> None:
    F = mg.nn.functional
    x = mg.tensor([1.0, -1.0])
    assert F.relu(x).tolist() == [1.0, 0.0] and F.relu(mg.Value(-2.0)).item() == 0.0
    assert abs(sum(F.softmax(x, dim=0).tolist()) - 1.0) < 1e-6
    probs = F.softmax([mg.Value(0.0), mg.Value(0.0)])
    assert [p.item() for p in probs] == [0.5, 0.5]
