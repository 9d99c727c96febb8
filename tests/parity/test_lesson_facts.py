"""The facts the lessons and the README state about PyTorch, asserted against torch itself (issue 25's
second fact-check): each test names the sentence it keeps true."""
from __future__ import annotations

import pytest

import micrograd2 as mg

torch = pytest.importorskip("torch")


def test_unbind_sends_its_gradient_to_output_1_in_both_engines() -> None:
    """Lesson 1: the output index is 0 only for a node's only output; unbind has several."""
    ours = mg.tensor([1.0, 2.0], requires_grad=True).unbind(0)[1] * 2
    theirs = torch.tensor([1.0, 2.0], requires_grad=True).unbind(0)[1] * 2
    for y in (ours, theirs):
        node, index = y.grad_fn.next_functions[0]
        assert node.name().endswith("UnbindBackward0") and index == 1


def test_add_backward_keeps_the_number_alpha_and_no_value() -> None:
    """Lesson 2: `AddBackward0` keeps no value; PyTorch keeps the number alpha."""
    a = torch.tensor(1.0, requires_grad=True)
    saved = sorted(n for n in dir((a + a).grad_fn) if n.startswith("_saved"))
    assert saved == ["_saved_alpha"]
    assert (mg.Value(1.0, requires_grad=True) * 1 + mg.Value(2.0, requires_grad=True)).grad_fn.saved in ((), [], None)


def test_torch_dot_is_on_no_lower_precision_list_of_cpu_autocast() -> None:
    """Lesson 6: `mg.dot` plays Linear's part; PyTorch's `torch.dot` is left alone by CPU autocast."""
    with torch.autocast("cpu", dtype=torch.float16):
        assert torch.dot(torch.ones(2), torch.ones(2)).dtype == torch.float32
        assert (torch.ones(1, 2) @ torch.ones(2, 1)).dtype == torch.float16


def test_cpu_autocast_runs_binary_cross_entropy() -> None:
    """Lesson 6: BCE is on none of CUDA's lists (CUDA autocast refuses it); CPU autocast runs it."""
    with torch.autocast("cpu", dtype=torch.float16):
        loss = torch.nn.functional.binary_cross_entropy(torch.tensor([0.5]), torch.ones(1))
    assert loss.dtype == torch.float32


def test_an_inference_tensor_is_refused_only_by_an_op_that_saves_it() -> None:
    """README "Differences": PyTorch raises for `it * x` (saves it), not for `it + x`; micrograd2 runs both."""
    with torch.inference_mode():
        it = torch.ones(2)
    x = torch.ones(2, requires_grad=True)
    (it + x).sum().backward()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        it * x
    with mg.inference_mode():
        ours = mg.tensor([1.0, 1.0])
    y = mg.tensor([1.0, 1.0], requires_grad=True)
    (ours * y).sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]


def test_the_leaf_in_place_error_fires_in_grad_mode_only() -> None:
    """README D2: `add_` on a leaf that requires grad raises in grad mode; under no_grad it is allowed."""
    for lib in (torch, mg):
        leaf = lib.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            leaf.add_(1)
        with lib.no_grad():
            leaf.add_(1)
        assert leaf.tolist() == [2.0]


def test_every_relu_output_but_the_last_is_saved_twice() -> None:
    """Lesson 7: each ReLU output is saved by its relu and by the next Linear, except the last one."""
    torch.manual_seed(0)
    layers = [torch.nn.Linear(4, 4) for _ in range(3)]
    saved: list[int] = []
    x = torch.randn(2, 4)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t.untyped_storage().data_ptr()) or t,
                                                  lambda t: t):
        outputs = []
        for layer in layers:
            x = layer(x).relu()
            outputs.append(x.untyped_storage().data_ptr())
    assert [saved.count(p) for p in outputs] == [2, 2, 1]
