"""``mg.Tensor``: reading a Tensor, and the autograd semantics it shares with ``Value`` (accumulation, retain_graph,
no_grad, detach, in-place checks, hooks, custom Functions, dtypes, anomaly mode, gradcheck): tests about the Tensor
class and the core together.  Making Tensors is in ``test_tensor_creation.py``, casts in ``test_tensor_casts.py``,
the in-place arithmetic in ``test_tensor_arithmetic.py``, ``copy_`` in ``test_tensor_shapes.py``, the events the
Tensor ops announce in ``test_events.py``."""
from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from conftest import SquareAndDouble

import micrograd2 as mg
from micrograd2.tensors import Tensor

# -- creation and reading -------------------------------------------------------------------------


def test_only_float_tensors_can_require_grad() -> None:
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        mg.tensor([1, 2], dtype="int64", requires_grad=True)


def test_item_numpy_len_and_repr() -> None:
    t = mg.tensor([[1.5, 2.0]])
    assert t[0, 0].item() == 1.5 and isinstance(t.sum().item(), float)
    assert mg.tensor([3], dtype="int64").item() == 3
    assert len(t) == 1 and t.numel() == 2 and t.ndim == 2 and t.size(1) == 2
    assert repr(mg.tensor([1.0, 2.0], dtype="float64")) == "tensor([1., 2.], dtype=torch.float64)"
    assert "requires_grad=True" in repr(mg.tensor([1.0], requires_grad=True))
    assert "grad_fn=<MulBackward0>" in repr(mg.tensor([1.0], requires_grad=True) * 2)
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        t.item()


def test_numpy_of_a_tensor_that_requires_grad_raises_as_pytorch() -> None:
    t = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Use tensor.detach\\(\\).numpy\\(\\) instead"):
        t.numpy()
    assert t.detach().numpy().tolist() == [1.0]


def test_numpy_shares_memory_on_cpu_like_pytorch() -> None:
    t = mg.tensor([1.0, 2.0])
    t.numpy()[0] = 5.0
    assert t.tolist() == [5.0, 2.0]


def test_cuda_device_without_a_gpu_says_what_is_missing() -> None:
    pytest.importorskip("numpy")
    try:
        import pycuda.driver  # noqa: F401
        pytest.skip("pycuda is importable here")
    except Exception:
        pass
    with pytest.raises(RuntimeError) as info:
        mg.tensor([1.0], device="cuda")
    assert "pycuda" in str(info.value) or "GPU" in str(info.value) or "driver" in str(info.value)


def test_unknown_device_is_a_runtime_error() -> None:
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        mg.tensor([1.0], device="tpu")


def test_importing_micrograd2_does_not_import_numpy_but_tensors_does() -> None:
    code = ("import sys, micrograd2 as mg; a = 'numpy' in sys.modules; mg.nn; b = 'numpy' in sys.modules;"
            "mg.tensor([1.0]); print(a, b, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True"]


# -- backward and .grad ------------------------------------------------------------------------------
def test_grad_is_a_tensor_and_accumulates_across_backward_calls() -> None:
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    assert isinstance(x.grad, Tensor) and x.grad.tolist() == [4.0, 6.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [7.0, 9.0]
    assert x.grad.dtype == "float32" and x.grad.grad_fn is None


def test_block1_on_tensors_matches_pytorch() -> None:
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    w = mg.tensor([4.0, 5.0], requires_grad=True)
    z = (x * w).sum()
    assert z.item() == 23.0 and z.grad_fn.name() == "SumBackward0"
    (mul, _), = z.grad_fn.next_functions
    assert mul.name() == "MulBackward0"
    assert [n.variable for n, _ in mul.next_functions] == [x, w]
    z.backward()
    assert x.grad.tolist() == [4.0, 5.0] and w.grad.tolist() == [2.0, 3.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()


def test_retain_graph_allows_a_second_backward() -> None:
    x = mg.tensor([2.0], requires_grad=True)
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert x.grad.tolist() == [8.0]  # E8


def test_non_scalar_backward_needs_a_gradient() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.backward(gradient=mg.tensor([1.0, 1.0, 1.0]))
    assert x.grad.tolist() == [2.0, 2.0, 2.0]  # E1


def test_a_gradient_of_the_wrong_shape_is_a_clear_error() -> None:
    x = mg.tensor(np.ones((3, 4)), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of \[4\]"):
        (x * 2).backward(mg.tensor([1.0, 1.0, 1.0, 1.0]))
    with pytest.raises(TypeError, match="needs a Tensor"):
        (x * 2).backward("ones")


def test_one_element_tensors_of_any_shape_seed_implicitly() -> None:
    x = mg.tensor([[2.0]], requires_grad=True)
    (x * 3).backward()
    assert x.grad.tolist() == [[3.0]]


def test_backward_from_a_tensor_without_grad_raises() -> None:
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        (mg.tensor([1.0]) * 2).sum().backward()  # E2


def test_grad_of_a_non_leaf_warns_and_retain_grad_keeps_it() -> None:
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward()
    assert h.grad.tolist() == [8.0, 12.0] and x.grad.tolist() == [16.0, 24.0]  # E3
    h2 = x * 2
    (h2 * h2).sum().backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert h2.grad is None


def test_grads_of_two_leaves_never_share_memory() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([1.0, 2.0], requires_grad=True)
    (a + b).sum().backward()  # AddBackward0 hands the same gradient to both
    with mg.no_grad():
        a.grad.mul_(10.0)
    assert b.grad.tolist() == [1.0, 1.0]


def test_no_grad_makes_leaves_and_keeps_the_input_flags() -> None:
    x = mg.tensor([1.0], requires_grad=True)
    with mg.no_grad():
        y = x * 2
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None and x.requires_grad  # E5


def test_autograd_grad_returns_tensors_and_leaves_grad_alone() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    x.grad = mg.tensor([100.0, 100.0])
    (g,) = mg.autograd.grad((x * 3).sum(), x)
    assert isinstance(g, Tensor) and g.tolist() == [3.0, 3.0]
    assert x.grad.tolist() == [100.0, 100.0]  # E11


def test_second_derivative_of_x_cubed_is_12_at_2() -> None:
    x = mg.tensor(2.0, requires_grad=True, dtype="float64")
    (dy,) = mg.autograd.grad(x**3, x, create_graph=True)
    assert dy.item() == 12.0 and dy.grad_fn is not None
    (d2y,) = mg.autograd.grad(dy, x)
    assert d2y.item() == 12.0  # E9


def test_create_graph_makes_grad_a_tensor_with_a_grad_fn() -> None:
    x = mg.tensor([2.0], requires_grad=True)
    (x * x * x).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None and x.grad.tolist() == [12.0]


def test_a_long_chain_backpropagates_without_recursion() -> None:
    x = mg.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


# -- detach and in-place ----------------------------------------------------------------------------
def test_detach_shares_the_array_and_the_version_counter() -> None:
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d.add_(1)
    assert x.tolist() == [3.0, 4.0] and x._version == 1  # E6


def test_changing_a_saved_tensor_through_detach_fails_at_backward() -> None:
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    z = (x * x).sum()
    x.detach().add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_changing_an_unsaved_tensor_is_fine() -> None:
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    z = (x * 3).sum()
    x.detach().add_(1)
    z.backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_data_assignment_bypasses_autograd_silently() -> None:
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    z = (x * x).sum()
    x.data = x.data + 1  # PyTorch's .data trap: no error, a wrong gradient
    z.backward()
    assert x.grad.tolist() == [6.0, 8.0]


def test_in_place_on_a_leaf_that_requires_grad_raises_at_once() -> None:
    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x += 1


def test_in_place_on_a_saved_non_leaf_fails_at_backward_naming_the_output() -> None:
    x = mg.tensor([1.0], requires_grad=True)
    b = x.exp()
    y = b.sum()
    b.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Exp,"):
        y.backward()


def test_in_place_keeps_the_shape() -> None:
    a = mg.tensor([1.0, 1.0, 1.0])
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        a += mg.tensor(np.ones((2, 3)))


def test_a_view_of_a_leaf_cannot_change_in_place() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0:1].add_(1)


def test_a_view_shares_the_version_counter_of_its_base() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    z = (a * a).sum()
    v = a[0:1]
    v.add_(1)  # writes into a's memory
    assert a.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_setitem_writes_in_place_with_copyslices() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = mg.tensor(5.0, requires_grad=True)
    a = x * 1
    a[1] = v * 2
    assert a.tolist() == [1.0, 10.0, 3.0] and a.grad_fn.name() == "CopySlices"
    (a * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 3.0] and v.grad.item() == 4.0
    with mg.no_grad():
        x[0] = 7.0
    assert x.tolist() == [7.0, 2.0, 3.0]


def test_setitem_at_a_repeated_position_keeps_the_last_write_as_pytorch() -> None:
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, dtype="float64")
    v = mg.tensor([5.0, 6.0, 7.0], requires_grad=True, dtype="float64")
    y = x * 1
    y[mg.tensor([0, 1, 0], dtype="int64"), 1] = v * 1
    assert y.detach().numpy().tolist() == [[1.0, 7.0], [3.0, 6.0]]  # not 5 + 7
    (y * y).sum().backward()
    assert x.grad.numpy().tolist() == [[2.0, 0.0], [6.0, 0.0]]
    assert v.grad.numpy().tolist() == [14.0, 12.0, 14.0]  # PyTorch's too: every value reads its position


# -- hooks ---------------------------------------------------------------------------------------------
def test_hooks_on_tensors_replace_the_gradient_and_can_be_removed() -> None:
    x = mg.tensor([1.0, 1.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 2)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]  # E10
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_hook_on_a_non_leaf_receives_a_tensor_and_may_replace_it() -> None:
    x = mg.tensor([1.0, 1.0], requires_grad=True)
    h = x * 3
    seen: list[Any] = []
    h.register_hook(lambda g: seen.append(g) or g * 2)
    h.sum().backward()
    assert isinstance(seen[0], Tensor) and seen[0].tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [6.0, 6.0]


def test_a_hook_returning_none_keeps_the_gradient() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    shapes: list[tuple[int, ...]] = []
    x.register_hook(lambda g: shapes.append(g.shape))
    (x * 2).sum().backward()
    assert shapes == [(2,)] and x.grad.tolist() == [2.0, 2.0]


# -- custom Functions ------------------------------------------------------------------------------------
def test_a_custom_function_gets_arrays_and_works_on_tensors() -> None:
    x = mg.tensor([3.0, 1.0], requires_grad=True)
    y = SquareAndDouble.apply(x)
    assert isinstance(y, Tensor) and y.tolist() == [18.0, 2.0]
    assert y.grad_fn.name() == "SquareAndDoubleBackward"
    y.sum().backward()
    assert x.grad.tolist() == [12.0, 4.0]


def test_a_custom_function_gives_second_derivatives_on_tensors() -> None:
    x = mg.tensor([3.0], requires_grad=True, dtype="float64")
    (g,) = mg.autograd.grad(SquareAndDouble.apply(x).sum(), x, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), x)
    assert g.tolist() == [12.0] and h.tolist() == [4.0]


# -- dtypes ------------------------------------------------------------------------------------------------


def test_float16_gradients_underflow_like_pytorch() -> None:
    w = mg.tensor([1.0], requires_grad=True, dtype="float16")
    (w * 1e-8).sum().float().backward()
    assert w.grad.tolist() == [0.0]  # E15: 1e-8 is below float16's smallest subnormal


def test_bfloat16_values_are_rounded_to_8_significant_bits() -> None:
    t = mg.tensor([1e-8, 1.0 + 2**-8], dtype="bfloat16")
    assert t.dtype == "bfloat16"
    assert t.tolist()[0] == pytest.approx(1.0011717677116394e-08, rel=1e-7) and t.tolist()[1] == 1.0
    x = mg.tensor([3.0], requires_grad=True, dtype="bfloat16")
    (x * mg.tensor([1.0 / 3.0], dtype="bfloat16")).sum().backward()
    assert x.grad.dtype == "bfloat16" and x.grad.item() == 0.333984375  # 1/3 in bfloat16


def test_the_tensor_engine_rounds_and_adds_its_gradients_itself() -> None:
    """The walk carries a Tensor graph's gradients as Tensors (NOTE [Backward on Tensors])."""
    g = Tensor._round_gradient(mg.tensor([1.0 / 3.0], dtype="float64"), "float16")
    assert g.dtype == "float16" and g.data.dtype == np.float16 and Tensor._round_gradient(g, "float16") is g
    total = Tensor._add_gradients(mg.tensor(1.0), mg.tensor(2.0))
    assert isinstance(total, Tensor) and total.shape == () and total.item() == 3.0
    assert isinstance(total.data, np.ndarray)  # not a NumPy scalar


# -- anomaly mode ------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # pytest resets our filter
def test_anomaly_mode_names_the_node_that_made_nan() -> None:
    x = mg.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning), mg.detect_anomaly():
        with pytest.raises(RuntimeError, match="Function 'LogBackward0' returned nan values in its 0th output"):
            (x.log() * 0).sum().backward()


# -- gradcheck -----------------------------------------------------------------------------------------
def test_gradcheck_checks_tensors_element_by_element() -> None:
    x = mg.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True, dtype="float64")
    w = mg.tensor([1.5, -0.5], requires_grad=True, dtype="float64")
    assert mg.autograd.gradcheck(lambda a, b: ((a @ b).tanh() * a.sum(0)).sum(), (x, w))


class WrongSquare(mg.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad * 3 * x


def test_gradcheck_names_the_element_that_disagrees() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True, dtype="float64")
    with pytest.raises(mg.autograd.GradcheckError, match="input 0, element 0"):
        mg.autograd.gradcheck(lambda a: WrongSquare.apply(a).sum(), (x,))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_dimensional_tensors_used_twice_keep_array_gradients(dtype) -> None:
    # NumPy adds two 0-d arrays up to a NumPy scalar; the walk's sums and ReLU's backward keep arrays
    x = mg.tensor(1.5, requires_grad=True, dtype=dtype)
    y = (x * 3).relu() * x
    (y * y + y).backward()
    assert type(x.grad.data) is np.ndarray and x.grad.shape == ()
    assert abs(x.grad.item() - (36 * 1.5**3 + 6 * 1.5)) < 1e-3


def test_shapes_that_do_not_broadcast_give_pytorchs_error_with_a_hint() -> None:
    with pytest.raises(RuntimeError, match=r"(?s)size of tensor a \(3\) must match the size of tensor b \(2\) "
                                           r"at non-singleton dimension 1.*What to do"):
        mg.tensor([[1.0, 2.0, 3.0]]) + mg.tensor([[1.0, 2.0]])


def test_an_index_out_of_range_names_the_dimension_as_pytorch() -> None:
    with pytest.raises(IndexError, match=r"(?s)index 5 is out of bounds for dimension 0 with size 2.*What to do"):
        mg.tensor([1.0, 2.0])[5]
