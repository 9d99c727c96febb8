"""The Tensor engine on the CUDA backend, run on the CPU emulator of the kernels (no GPU needed): the ops
go through the backend interface only, so ``device="cuda"`` computes what ``device="cpu"`` does."""
from __future__ import annotations

from typing import Iterator

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2 import backends
from micrograd2.tensors import functional as F

emulator = pytest.importorskip("cuda_emu.emulator")
cuda = pytest.importorskip("micrograd2.backends.cuda")


@pytest.fixture
def emulated_cuda(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``get_backend("cuda")`` returns a CudaBackend whose device is the CPU emulator."""
    be = cuda.CudaBackend(emulator.EmulatedDevice(tiles=emulator.SMALL_TILES))
    monkeypatch.setitem(backends._backends, "cuda", be)
    array_type = type(be.full((1,), 0.0, "float32"))
    monkeypatch.setitem(backends._by_array_type, array_type, be)
    yield


def _mlp_step(device: str) -> tuple[float, list[np.ndarray]]:
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.normal(size=(6, 3)), dtype="float64", device=device)
    model = mg.nn.TensorMLP.from_mlp(mg.nn.MLP(3, [5, 4], seed=1), dtype="float64", device=device)
    loss = F.cross_entropy(model(x), [0, 1, 2, 3, 0, 1])
    loss.backward()
    return loss.item(), [p.grad.to("cpu").numpy() for p in model.parameters()]


def test_an_mlp_step_on_emulated_cuda_matches_cpu(emulated_cuda: None) -> None:
    cpu_loss, cpu_grads = _mlp_step("cpu")
    gpu_loss, gpu_grads = _mlp_step("cuda")
    assert gpu_loss == pytest.approx(cpu_loss, rel=1e-12)
    for g, c in zip(gpu_grads, cpu_grads):
        np.testing.assert_allclose(g, c, rtol=1e-10, atol=1e-14)


def test_ops_and_moves_between_devices_on_emulated_cuda(emulated_cuda: None) -> None:
    a = mg.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    b = a.to("cuda")
    assert b.device == "cuda" and b.grad_fn.name() == "ToCopyBackward0"
    y = ((b * b).sum(1).sqrt() + b.relu().amax(1) - b.T.mean(0)).exp()[b.detach().amax(1) > 0]
    y = y.sum() + b[0, 1] * b.max()
    y.backward()
    assert a.grad is not None and a.grad.device == "cpu"
    a2 = mg.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    y2 = ((a2 * a2).sum(1).sqrt() + a2.relu().amax(1) - a2.T.mean(0)).exp()[a2.detach().amax(1) > 0]
    (y2.sum() + a2[0, 1] * a2.max()).backward()
    np.testing.assert_allclose(a.grad.numpy(), a2.grad.numpy(), rtol=1e-6)


def test_sgd_updates_parameters_on_emulated_cuda(emulated_cuda: None) -> None:
    w = mg.tensor([1.0, 2.0], requires_grad=True, device="cuda")
    opt = mg.optim.SGD([w], lr=0.5, momentum=0.9)
    (w * w).sum().backward()
    opt.step()
    assert w.to("cpu").tolist() == [0.0, 0.0] and w._version == 1


def test_a_cpu_scalar_tensor_mixes_with_cuda_tensors(emulated_cuda: None) -> None:
    w = mg.tensor([1.0, 2.0], device="cuda")
    assert (w * mg.tensor(3.0)).to("cpu").tolist() == [3.0, 6.0]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        w + mg.tensor([1.0, 1.0])


def _clipped_and_scaled(device: str) -> tuple[float, list[np.ndarray], bool]:
    w = mg.tensor([[3.0, -4.0], [1.0, 2.0]], requires_grad=True, dtype="float32", device=device)
    (w * w).sum().backward()
    norm = mg.nn.utils.clip_grad_norm_([w], max_norm=1.0)
    scaler = mg.amp.GradScaler(init_scale=2.0**4)
    opt = mg.optim.SGD([w], lr=0.1)
    scaler.scale((w * w).sum()).backward()
    scaler.step(opt)
    finite_step = scaler.get_scale() == 2.0**4
    return float(norm), [w.detach().to("cpu").numpy(), w.grad.to("cpu").numpy()], finite_step


def test_clipping_and_grad_scaler_work_on_emulated_cuda(emulated_cuda: None) -> None:
    """The gradient norm (clipping) and the inf/nan check (GradScaler) go through the CUDA backend and agree
    with the CPU.  (The emulator's arrays are NumPy arrays, so this cannot show that no NumPy call is made.)"""
    cpu_norm, cpu_arrays, cpu_finite = _clipped_and_scaled("cpu")
    gpu_norm, gpu_arrays, gpu_finite = _clipped_and_scaled("cuda")
    assert gpu_norm == pytest.approx(cpu_norm, rel=1e-6) and gpu_finite == cpu_finite is True
    for g, c in zip(gpu_arrays, cpu_arrays):
        np.testing.assert_allclose(g, c, rtol=1e-6)


def test_grad_scaler_skips_a_step_with_inf_on_emulated_cuda(emulated_cuda: None) -> None:
    w = mg.tensor([1.0, 2.0], requires_grad=True, device="cuda")
    scaler, opt = mg.amp.GradScaler(init_scale=2.0**4), mg.optim.SGD([w], lr=0.1)
    scaler.scale((w * mg.tensor([float("inf"), 1.0], device="cuda")).sum()).backward()
    scaler.step(opt)
    scaler.update()
    assert w.detach().to("cpu").numpy().tolist() == [1.0, 2.0] and scaler.get_scale() == 2.0**3


def _views_in_place(device: str) -> tuple[list, list, list]:
    x = mg.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True, dtype="float64", device=device)
    y = x * 2
    row, col, flat = y[1], y[0:2], y.t()
    row.mul_(3)  # a row changed in place: the base follows (CopySlices)
    y.add_(1)  # the base changed in place: the views follow, numbers too (copies on CUDA)
    flat[2].mul_(-1)  # a view of a view: its elements found in the base, then written back
    ((y * y).sum() + (col * col).sum() + (flat * 2).sum()).backward()
    return y.to("cpu").tolist(), col.to("cpu").tolist(), x.grad.to("cpu").tolist()


def test_in_place_ops_through_views_on_emulated_cuda_match_the_cpu(emulated_cuda: None) -> None:
    assert _views_in_place("cuda") == _views_in_place("cpu")


def _batches_clamps_and_minima(device: str) -> tuple[list, list, list, list, list]:
    """Batched @ (folded and bmm, a small and a large product), nn.Linear on 3-D input, min, clamp, softmax,
    contiguous and a reshape of a transpose: the same graph and numbers on every device."""
    rng = np.random.default_rng(3)
    a = mg.tensor(rng.normal(size=(2, 3, 4)), requires_grad=True, dtype="float64", device=device)
    b = mg.tensor(rng.normal(size=(2, 4, 5)), requires_grad=True, dtype="float64", device=device)
    big = mg.tensor(rng.normal(size=(2, 9, 9)), requires_grad=True, dtype="float64", device=device)
    w = mg.tensor(rng.normal(size=(2, 4)), requires_grad=True, dtype="float64", device=device)
    y = (a @ b).softmax(2) + (a @ w.t()).sum(2, keepdim=True) + F.linear(a, w, w[:, 0]).amin(2, keepdim=True)
    z = (big @ big).clamp(-1.0, 1.0) + big.transpose(1, 2).contiguous().min(1, keepdim=True)[0]
    loss = (y * y).sum() + z.sum() + a.transpose(1, 2).reshape(2, 12).clamp(min=0.0).sum() + (b @ b[0, 0]).min()
    loss.backward()
    names = [y.grad_fn.name(), a.transpose(1, 2).reshape(2, 12).grad_fn.name(), (a @ w.t()).grad_fn.name()]
    return ([loss.item()], a.grad.to("cpu").tolist(), b.grad.to("cpu").tolist(), w.grad.to("cpu").tolist(),
            names + [big.grad.to("cpu").tolist()])


def test_batched_products_clamps_and_minima_on_emulated_cuda_match_the_cpu(emulated_cuda: None) -> None:
    cpu, gpu = _batches_clamps_and_minima("cpu"), _batches_clamps_and_minima("cuda")
    assert gpu[4][:3] == cpu[4][:3]
    for g, c in zip(gpu[:4] + (gpu[4][3],), cpu[:4] + (cpu[4][3],)):
        np.testing.assert_allclose(np.array(g), np.array(c), rtol=1e-12, atol=1e-14)


def test_copy_between_devices_sends_the_gradient_back_in_the_srcs_dtype(emulated_cuda: None) -> None:
    s = mg.tensor([1.0, 2.0], requires_grad=True, dtype="float64")
    z = mg.tensor([[0.0, 0.0], [0.0, 0.0]], device="cuda")
    z.copy_(s)  # broadcast, cast to float32 and moved: one CopyBackwards, as PyTorch's copy_ across devices
    assert z.device == "cuda" and z.dtype == "float32" and z.grad_fn.name() == "CopyBackwards"
    (z * mg.tensor([[1.0, 2.0], [3.0, 4.0]], device="cuda")).sum().backward()
    assert s.grad.device == "cpu" and s.grad.dtype == "float64" and s.grad.tolist() == [4.0, 6.0]
    u = mg.tensor([1.0, 2.0], requires_grad=True, device="cuda")
    w = mg.tensor([0.0, 0.0])
    w.copy_(u * 3)
    (g,) = mg.autograd.grad((w * w).sum(), [u], create_graph=True)  # 18 u, recorded back across the move
    assert g.device == "cuda" and g.to("cpu").tolist() == [18.0, 36.0]
