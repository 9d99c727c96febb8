"""Modules and optimizers next to torch.nn 2.13 (issue 34, round 4): Linear's Parameters, the
TypeError for a plain Tensor over a Parameter, keyword arguments through ``__call__``, a parameter
group of one Tensor, and ``autograd.backward(..., inputs=...)``."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import raised  # noqa: E402

import micrograd2 as mg  # noqa: E402


def test_linears_weight_and_bias_are_parameters() -> None:
    for lib in (mg, torch):
        layer = lib.nn.Linear(3, 2)
        assert isinstance(layer.weight, lib.nn.Parameter) and isinstance(layer.bias, lib.nn.Parameter)
        assert [tuple(p.shape) for p in layer.parameters()] == [(2, 3), (2,)]
        assert all(p.requires_grad and p.is_leaf for p in layer.parameters())
    assert [n for n, _ in mg.nn.Linear(3, 2).named_parameters()] == ["weight", "bias"]


@pytest.mark.parametrize("value", ["tensor", "parameter", "none", "number"])
def test_assigning_over_a_registered_parameter(value: str) -> None:
    def run(lib):
        layer = lib.nn.Linear(2, 1)
        new = {"tensor": lambda: lib.ones(1, 2), "parameter": lambda: lib.nn.Parameter(lib.ones(1, 2)),
               "none": lambda: None, "number": lambda: 3.0}[value]()
        layer.weight = new
        return [tuple(p.shape) for p in layer.parameters()]

    ours, theirs = raised(run, mg), raised(run, torch)
    assert type(ours) is type(theirs)
    if theirs is None and value != "none":
        assert run(mg) == run(torch)


def test_a_plain_attribute_that_was_not_a_parameter_takes_a_tensor() -> None:
    for lib in (mg, torch):
        layer = lib.nn.Linear(2, 1)
        layer.scale = lib.ones(1)
        layer.scale = lib.zeros(1)
        assert layer.scale.tolist() == [0.0]


def test_module_call_passes_keyword_arguments() -> None:
    results = []
    for lib in (mg, torch):
        class Scaled(lib.nn.Module):
            def forward(self, x, scale=1.0, *, shift=0.0):
                return x * scale + shift

        model = Scaled()
        results.append((model(lib.ones(1), scale=3.0).tolist(), model(lib.ones(1), 2.0, shift=1.0).tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW"])
@pytest.mark.parametrize("params", ["one tensor", "list", "tuple", "generator", "set"])
def test_a_parameter_group_of_one_tensor(optimizer: str, params: str) -> None:
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        given = {"one tensor": w, "list": [w], "tuple": (w,), "generator": (p for p in [w]),
                 "set": {w}}[params]
        opt = getattr(lib.optim, optimizer)([{"params": given}], lr=0.1)
        (w * w).sum().backward()
        opt.step()
        return [len(g["params"]) for g in opt.param_groups], w.tolist()

    ours, theirs = raised(run, mg), raised(run, torch)
    assert type(ours) is type(theirs)
    if theirs is None:
        got, want = run(mg), run(torch)
        assert got[0] == want[0]
        assert all(abs(a - b) < 1e-6 for a, b in zip(got[1], want[1]))


@pytest.mark.parametrize("inputs", ["a", "[a]", "[a, b]", "[c]"])
def test_autograd_backward_with_inputs(inputs: str) -> None:
    seen = []
    for lib in (mg, torch):
        a, b = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)
        c = a * 3
        c.retain_grad()
        y1, y2 = c * b, (a + b).sum()
        chosen = {"a": a, "[a]": [a], "[a, b]": [a, b], "[c]": [c]}[inputs]
        lib.autograd.backward([y1, y2], [lib.ones(1), lib.tensor(2.0)], inputs=chosen)
        seen.append([None if t.grad is None else t.grad.tolist() for t in (a, b, c)])
    assert seen[0] == seen[1]
