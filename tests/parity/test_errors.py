"""Misuse raises what torch 2.13 raises: the same exception class, and torch's key phrase in the message.

Each entry runs one misuse on micrograd2 and on torch.  The phrase is checked in torch's message too,
so the table cannot drift from what torch really says.
"""
from __future__ import annotations

import fnmatch
import math
from typing import Any, Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

from parity_tools import raised  # noqa: E402

import micrograd2 as mg  # noqa: E402


def t(lib: Any, data: Any, requires_grad: bool = False, dtype: str = "float32") -> Any:
    """A tensor of either library (``dtype`` spelt as micrograd2 spells it)."""
    if lib is mg:
        return mg.tensor(data, requires_grad=requires_grad, dtype=dtype)
    return torch.tensor(data, requires_grad=requires_grad, dtype=getattr(torch, dtype))


def v(lib: Any, x: float, requires_grad: bool = True) -> Any:
    """A scalar of either library: a Value, or a 0-d float64 torch tensor."""
    if lib is mg:
        return mg.Value(x, requires_grad=requires_grad)
    return torch.tensor(x, dtype=torch.float64, requires_grad=requires_grad)


def F(lib: Any) -> Any:  # noqa: N802 - torch.nn.functional's usual alias
    return mg.nn.functional if lib is mg else torch.nn.functional


def _second_backward(lib: Any, make: Callable[[Any], Any]) -> None:
    x = make(lib)
    y = (x * x).sum() if hasattr(x, "shape") else x * x
    y.backward()
    y.backward()


def _modified_saved(lib: Any) -> None:
    x = v(lib, 2.0)
    h = x * 1.0
    y = h * h
    with (mg if lib is mg else torch).no_grad():
        h.add_(1) if lib is torch else h.detach().add_(1)
    y.backward()


def _leaf_in_place(lib: Any) -> None:
    v(lib, 2.0).add_(1.0)


def _unused_input(lib: Any) -> None:
    x, w = v(lib, 2.0), v(lib, 3.0)
    lib.autograd.grad(x * 2, (x, w))


def _wrong_count(lib: Any) -> None:
    base = mg.Function if lib is mg else torch.autograd.Function

    class TwoInputs(base):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad

    TwoInputs.apply(v(lib, 2.0), v(lib, 3.0)).backward()


def _grad_for_number(lib: Any) -> None:
    base = mg.Function if lib is mg else torch.autograd.Function

    class Scale(base):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx, a, k):
            return a * k

        @staticmethod
        def backward(ctx, grad):
            return grad * 2.0, grad

    Scale.apply(v(lib, 2.0), 2.0).backward()


def _gradcheck_nothing_requires_grad(lib: Any) -> None:
    lib.autograd.gradcheck(lambda a: a * 2, (t(lib, [1.0, 2.0], dtype="float64"),))


def _clip_nonfinite(lib: Any) -> None:
    p = t(lib, [1.0, 2.0], requires_grad=True)
    (p * math.inf).sum().backward()
    clip = mg.nn.utils.clip_grad_norm_ if lib is mg else torch.nn.utils.clip_grad_norm_
    clip([p], 1.0, error_if_nonfinite=True)


def _param_in_two_groups(lib: Any) -> None:
    p = t(lib, [1.0], requires_grad=True)
    (mg.optim if lib is mg else torch.optim).SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def _hook_changes_shape(lib: Any) -> None:
    x = t(lib, [1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: t(lib, [1.0, 2.0, 3.0]))
    (x * 2).sum().backward()


def _hook_changes_dtype(lib: Any) -> None:
    x = t(lib, [1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: t(lib, [1.0, 2.0], dtype="float64"))
    (x * 2).sum().backward()


def _detach_view_in_place(lib: Any) -> None:
    x = t(lib, [1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y[0:2].detach_()


def _int_in_place_float(lib: Any) -> None:
    x = t(lib, [1, 2], dtype="int64")
    x += 1.5


def _set_grad_wrong_shape(lib: Any) -> None:
    x = t(lib, [1.0, 2.0], requires_grad=True)
    x.grad = t(lib, [1.0, 2.0, 3.0])


def _inference_tensor_in_graph(lib: Any) -> None:
    with lib.inference_mode():
        y = t(lib, [1.0, 2.0])
    (y * t(lib, [1.0, 2.0], requires_grad=True)).sum().backward()


def _non_leaf_requires_grad_false(lib: Any) -> None:
    (v(lib, 2.0) * 2).requires_grad_(False)


def _backward_no_grad_value(lib: Any) -> None:
    (v(lib, 2.0, requires_grad=False) * 2).backward()


# id -> (the misuse, run with lib = mg or torch; torch's key phrase)
MISUSES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "backward_non_scalar": (lambda lib: (t(lib, [1.0, 2.0], True) * 2).backward(),
                            "grad can be implicitly created only for scalar outputs"),
    "backward_without_grad_tensor": (lambda lib: (t(lib, [1.0]) * 2).sum().backward(),
                                     "does not require grad and does not have a grad_fn"),
    "backward_without_grad_value": (_backward_no_grad_value, "does not require grad and does not have a grad_fn"),
    "second_backward_value": (lambda lib: _second_backward(lib, lambda l: v(l, 2.0)),
                              "Trying to backward through the graph a second time"),
    "second_backward_tensor": (lambda lib: _second_backward(lib, lambda l: t(l, [2.0], True)),
                               "Trying to backward through the graph a second time"),
    "leaf_in_place": (_leaf_in_place, "a leaf Variable that requires grad is being used in an in-place operation"),
    "modified_saved_value": (_modified_saved, "modified by an inplace operation"),
    "broadcast_mismatch": (lambda lib: t(lib, [1.0, 2.0, 3.0]) + t(lib, [1.0, 2.0]),
                           "must match the size of tensor b"),
    "matmul_mismatch": (lambda lib: t(lib, np.ones((2, 3))) @ t(lib, np.ones((2, 3))), "cannot be multiplied"),
    "int_requires_grad": (lambda lib: t(lib, [1, 2], True, dtype="int64"),
                          "Only Tensors of floating point and complex dtype can require gradients"),
    "mean_of_int": (lambda lib: t(lib, [1, 2], dtype="int64").mean(), "could not infer output dtype"),
    "int_in_place_float": (_int_in_place_float, "can't be cast to the desired output type"),
    "negative_step": (lambda lib: t(lib, [1.0, 2.0, 3.0])[::-1], "step must be greater than zero"),
    "index_out_of_range": (lambda lib: t(lib, [1.0, 2.0, 3.0])[5], "index 5 is out of bounds for dimension 0"),
    "view_non_contiguous": (lambda lib: t(lib, np.ones((2, 3))).T.view(6),
                            "view size is not compatible with input tensor's size and stride"),
    "detach_view_in_place": (_detach_view_in_place, "Can't detach views in-place"),
    "item_of_many": (lambda lib: t(lib, [1.0, 2.0]).item(), "cannot be converted to Scalar"),
    "bool_of_many": (lambda lib: bool(t(lib, [1.0, 2.0])),
                     "Boolean value of Tensor with more than one value is ambiguous"),
    "numpy_requires_grad": (lambda lib: t(lib, [1.0], True).numpy(), "Can't call numpy() on Tensor that requires grad"),
    "bce_out_of_range": (lambda lib: F(lib).binary_cross_entropy(t(lib, [1.5]), t(lib, [1.0])),
                         "all elements of input should be between 0 and 1"),
    "cross_entropy_target_out_of_range": (
        lambda lib: F(lib).cross_entropy(t(lib, np.ones((2, 3))), t(lib, [0, 3], dtype="int64")),
        "out of bounds"),
    "max_of_empty": (lambda lib: t(lib, np.ones((0,))).max(), "numel() == 0"),
    "len_of_0d": (lambda lib: len(t(lib, 1.0)), "len() of a 0-d tensor"),
    "unused_input": (_unused_input, "appears to not have been used in the graph"),
    "backward_gradient_shape": (lambda lib: (t(lib, [1.0, 2.0], True) * 2).backward(t(lib, [1.0, 2.0, 3.0])),
                                "Mismatch in shape"),
    "function_wrong_gradient_count": (_wrong_count, "returned an incorrect number of gradients (expected 2, got 1)"),
    "function_gradient_for_number": (_grad_for_number,
                                     "but the corresponding forward input was not a Variable"),
    "gradcheck_nothing_requires_grad": (_gradcheck_nothing_requires_grad,
                                        "gradcheck expects at least one input tensor to require gradient"),
    "clip_grad_norm_nonfinite": (_clip_nonfinite, "is non-finite, so it cannot be clipped"),
    "param_in_two_groups": (_param_in_two_groups, "some parameters appear in more than one parameter group"),
    "sgd_negative_lr": (lambda lib: (mg.optim if lib is mg else torch.optim).SGD([t(lib, [1.0], True)], lr=-0.1),
                        "Invalid learning rate: -0.1"),
    "adam_bad_beta": (lambda lib: (mg.optim if lib is mg else torch.optim).Adam([t(lib, [1.0], True)],
                                                                              betas=(1.0, 0.999)),
                      "Invalid beta parameter at index 0: 1.0"),
    "hook_changes_shape": (_hook_changes_shape, "has changed the size of value"),
    "hook_changes_dtype": (_hook_changes_dtype, "has changed the type of value"),
    "set_grad_wrong_shape": (_set_grad_wrong_shape, "attempting to assign a gradient of size"),
    "inference_tensor_in_graph": (_inference_tensor_in_graph, "Inference tensors cannot be saved for backward"),
    "non_leaf_requires_grad_false": (_non_leaf_requires_grad_false,
                                     "you can only change requires_grad flags of leaf variables"),
    "expand_a_size_not_1": (lambda lib: t(lib, np.ones((2, 3))).expand(4, -1),
                            "The expanded size of the tensor (4) must match the existing size (2) at non-singleton "
                            "dimension 0.  Target sizes: [4, -1].  Tensor sizes: [2, 3]"),
    "expand_to_fewer_axes": (lambda lib: t(lib, np.ones((2, 3))).expand(3),
                             "the number of sizes provided (1) must be greater or equal to the number of dimensions "
                             "in the tensor (2)"),
    "permute_a_dim_twice": (lambda lib: t(lib, np.ones((2, 3))).permute(0, 0),
                            "permute(): duplicate dims are not allowed."),
    "argmax_of_empty": (lambda lib: t(lib, np.ones((0, 3))).argmax(),
                        "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
    "argmin_of_empty": (lambda lib: t(lib, np.ones((0, 3))).argmin(),
                        "argmin(): Expected reduction dim to be specified for input.numel() == 0."),
    "argmax_along_an_empty_dim": (lambda lib: t(lib, np.ones((0, 3))).argmax(0),
                                  "argmax(): Expected reduction dim 0 to have non-zero size."),
}

KNOWN: dict[str, str] = {
    "inference_tensor_in_graph": ("inference_mode is no_grad here: what it makes is not an inference tensor, "
                                  "so later use in a recorded op works (README: Differences from PyTorch)"),
}


def _marks(name: str) -> list:
    for pattern, reason in KNOWN.items():
        if fnmatch.fnmatchcase(name, pattern):
            return [pytest.mark.xfail(strict=True, reason=reason)]
    return []


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n), id=n) for n in MISUSES])
def test_misuse_raises_as_torch(name: str) -> None:
    misuse, phrase = MISUSES[name]
    theirs = raised(misuse, torch)
    assert theirs is not None and phrase in str(theirs), f"the table is wrong about torch: {theirs!r}"
    ours = raised(misuse, mg)
    assert ours is not None, "micrograd2 raised nothing"
    expected = [c for c in type(theirs).__mro__ if c.__module__ == "builtins"][0]
    assert isinstance(ours, expected), f"{type(ours).__name__} where torch raises {type(theirs).__name__}: {ours}"
    assert phrase in str(ours), f"torch's phrase {phrase!r} is not in: {ours}"
    assert "What to do" in str(ours), f"no hint in: {ours}"


def _changed_after_saving(make: Callable[[Any], Any], change: Callable[[Any, Any], Any],
                          under_no_grad: bool = False) -> Callable[[Any], Any]:
    """A program that saves a value (``make``), changes it in place (``change``) and runs backward."""
    def program(lib: Any) -> None:
        saved, loss = make(lib)
        if under_no_grad:
            with lib.no_grad():
                change(lib, saved)
        else:
            change(lib, saved)
        loss().backward()
    return program


def _exp_output(lib: Any, dtype: str = "float32") -> tuple[Any, Callable[[], Any]]:
    y = t(lib, [1.0, 2.0, 3.0], True, dtype=dtype).exp()
    z = y * 1
    return y, lambda: z.sum()


def _squared(lib: Any, x: Any) -> tuple[Any, Callable[[], Any]]:
    y = x * x
    return x, lambda: y if isinstance(y, mg.Value) else y.sum()


VERSION_ERRORS = {  # the version error's whole first line, as torch words it: type, shape, the op that made it
    "a saved output": _changed_after_saving(_exp_output, lambda lib, y: y.add_(1)),
    "a float16 output": _changed_after_saving(lambda lib: _exp_output(lib, "float16"), lambda lib, y: y.mul_(2)),
    "a bfloat16 output": _changed_after_saving(lambda lib: _exp_output(lib, "bfloat16"), lambda lib, y: y.mul_(2)),
    "a leaf": _changed_after_saving(lambda lib: _squared(lib, t(lib, [1.0, 2.0], True)),
                                    lambda lib, x: x.add_(1), under_no_grad=True),
    "an input, made by mul": _changed_after_saving(lambda lib: _squared(lib, t(lib, np.ones((2, 3)), True) * 2),
                                                   lambda lib, a: a.mul_(3)),
    "an input, 0-d float64": _changed_after_saving(
        lambda lib: _squared(lib, t(lib, 1.0, True, dtype="float64") * 2), lambda lib, a: a.mul_(3), True),
    "the Value engine's": _changed_after_saving(
        lambda lib: _squared(lib, v(lib, 1.0) * 2), lambda lib, a: a.mul_(3), True),
}


@pytest.mark.parametrize("name", list(VERSION_ERRORS))
def test_the_version_error_names_the_value_as_torch(name: str) -> None:
    theirs, ours = (raised(VERSION_ERRORS[name], lib) for lib in (torch, mg))
    assert theirs is not None and ours is not None
    assert str(ours).splitlines()[0] == str(theirs).split(" Hint:")[0]
