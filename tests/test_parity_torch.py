"""Parity with PyTorch: the same expressions give the same values and gradients (float64)."""
from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: parity tests need it")

import micrograd2 as mg  # noqa: E402

EXPRESSIONS = {
    "poly": lambda a, b, m: a**3 - 2 * a * b + b / (a + 3),
    "transcendental": lambda a, b, m: (a.exp() * b.tanh() + (a * a + 1).log() - (b * 0.3).sigmoid()),
    "relu_sqrt_abs": lambda a, b, m: ((a - b).relu() + (a * a + 0.1).sqrt() + (a - 2 * b).abs()),
    "reuse": lambda a, b, m: (lambda h: h * h + h.exp() * a)(a * b),
    "pow_values": lambda a, b, m: (a.abs() + 0.5) ** b + 2**a - (3 - b),
    "division": lambda a, b, m: 1 / (a * a + 1) - b / 4,
}


def both(name: str, a0: float, b0: float):
    f = EXPRESSIONS[name]
    a, b = mg.Value(a0, requires_grad=True), mg.Value(b0, requires_grad=True)
    ours = f(a, b, mg)
    ours.backward()
    ta = torch.tensor(a0, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b0, dtype=torch.float64, requires_grad=True)
    theirs = f(ta, tb, torch)
    theirs.backward()
    return ours, a, b, theirs, ta, tb


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
@pytest.mark.parametrize("a0, b0", [(0.7, -1.3), (1.9, 0.4), (-0.6, 2.2)])
def test_values_and_gradients_equal_torch(name, a0, b0) -> None:
    ours, a, b, theirs, ta, tb = both(name, a0, b0)
    assert ours.data == pytest.approx(theirs.item(), rel=1e-12, abs=1e-12)
    assert a.grad == pytest.approx(ta.grad.item(), rel=1e-10, abs=1e-12)
    assert b.grad == pytest.approx(tb.grad.item(), rel=1e-10, abs=1e-12)


def test_block1_and_2_equal_torch(block1) -> None:
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    w = torch.tensor([4.0, 5.0], requires_grad=True)
    z = (x * w).sum()
    z.backward()
    block1["z"].backward()
    assert block1["z"].item() == z.item()
    assert [v.grad for v in block1["x"]] == x.grad.tolist()
    assert [v.grad for v in block1["w"]] == w.grad.tolist()
    assert block1["z"].grad_fn.name() == z.grad_fn.name()


def test_second_derivatives_equal_torch() -> None:
    a = mg.Value(0.8, requires_grad=True)
    ta = torch.tensor(0.8, dtype=torch.float64, requires_grad=True)
    (g,) = mg.autograd.grad((a * a).tanh() * a.exp(), a, create_graph=True)
    (tg,) = torch.autograd.grad((ta * ta).tanh() * ta.exp(), ta, create_graph=True)
    (g2,) = mg.autograd.grad(g, a)
    (tg2,) = torch.autograd.grad(tg, ta)
    assert g.data == pytest.approx(tg.item(), rel=1e-12)
    assert g2 == pytest.approx(tg2.item(), rel=1e-10)


def test_node_names_equal_torch_for_common_ops() -> None:
    a = mg.Value(0.5, requires_grad=True)
    ta = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    for f in (lambda v: v * 2, lambda v: v + 1, lambda v: v - 1, lambda v: 2 - v, lambda v: v**2,
              lambda v: 2**v, lambda v: -v, lambda v: v.exp(), lambda v: v.log(), lambda v: v.tanh(),
              lambda v: v.relu(), lambda v: v.sigmoid(), lambda v: v.sqrt(), lambda v: v.abs(),
              lambda v: v / 3):
        assert f(a).grad_fn.name() == f(ta).grad_fn.name()


def test_ieee_edge_values_equal_torch() -> None:
    for f in (lambda v: v.log(), lambda v: 1 / v, lambda v: v.sqrt()):
        for x0 in (0.0, -1.0):
            ours = f(mg.Value(x0)).data
            theirs = f(torch.tensor(x0, dtype=torch.float64)).item()
            assert (math.isnan(ours) and math.isnan(theirs)) or ours == theirs
