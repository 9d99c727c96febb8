"""``micrograd2.tensors.linalg``: matrix products (``@``) and their PyTorch nodes.

It proves that the shape errors of ``@`` are PyTorch's, and that a product with a batch builds PyTorch's graph
(a batch folded into one ``MmBackward0``/``MvBackward0`` when that needs no copy, else broadcast, expanded and
multiplied by ``BmmBackward0``, a transposed batch included) with torch's values and gradients.  The plain
``mm``, ``mv``, ``dot``, ``bmm``, vector @ matrix and ``linear`` are in ``test_tensor_ops.py``'s catalogue.
"""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def test_matmul_shape_errors_are_clear() -> None:
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        mg.tensor(np.ones((2, 3))) @ mg.tensor(np.ones((2, 3)))
    with pytest.raises(RuntimeError, match="at least 1D"):
        mg.tensor(1.0) @ mg.tensor([1.0])


def test_shape_errors_of_batches_and_vectors_are_pytorchs_with_a_hint() -> None:
    cases = [((2, 3, 4), (3, 4, 5), r"size of tensor a \(2\) must match the size of tensor b \(3\)"),
             ((3,), (4,), r"inconsistent tensor size, expected tensor \[3\] and src \[4\]"),
             ((2, 3), (4,), r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)")]
    for a, b, message in cases:
        with pytest.raises(RuntimeError, match=f"(?s){message}.*What to do"):
            mg.tensor(np.ones(a)) @ mg.tensor(np.ones(b))


def _node_names(t: object) -> list[str]:
    """The names of every node behind ``t``, depth first (torch's AccumulateGrad without its namespace)."""
    names, stack, seen = [], [t.grad_fn], set()  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name().replace("torch::autograd::", ""))
        stack += [n for n, _ in node.next_functions]
    return names


BATCHES = {
    "batch @ matrix (folded)": ((2, 3, 4), (4, 5), None),
    "matrix @ batch": ((3, 4), (2, 4, 5), None),
    "vector @ batch": ((4,), (2, 4, 5), None),
    "batch @ vector (folded)": ((2, 3, 4), (4,), None),
    "broadcast batches": ((2, 1, 3, 4), (5, 4, 2), None),
    "transposed batch @ matrix": ((3, 2, 4), (4, 5), (1, 0, 2)),
}


@needs_torch
@pytest.mark.parametrize("name", BATCHES)
def test_a_batched_product_builds_pytorchs_graph_and_gradients(name: str) -> None:
    a_shape, b_shape, axes = BATCHES[name]
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    ma, mb = mg.tensor(a, requires_grad=True, dtype="float64"), mg.tensor(b, requires_grad=True, dtype="float64")
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out = (ma if axes is None else ma.permute(*axes)) @ mb
    tout = (ta if axes is None else ta.permute(*axes)) @ tb
    assert _node_names(out) == _node_names(tout)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    weights = rng.uniform(0.5, 1.5, tuple(tout.shape))
    (out * mg.tensor(weights, dtype="float64")).sum().backward()
    (tout * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ma.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(mb.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
