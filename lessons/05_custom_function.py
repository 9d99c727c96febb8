# %% [markdown]
# # Lesson 5: A custom Function
#
# Block 5: SquareAndDouble, its node, gradcheck passing, and a wrong backward caught.
#
# The article's block 5 writes its own op, forward and backward, as a `torch.autograd.Function`:
#
# ```python
# import torch
#
# class SquareAndDouble(torch.autograd.Function):
#     """Custom op: forward returns 2·x², backward grad = 4·x·g"""
#     @staticmethod
#     def forward(ctx, x):
#         ctx.save_for_backward(x)
#         return 2 * x * x
#
#     @staticmethod
#     def backward(ctx, grad_output):
#         (x,) = ctx.saved_tensors
#         return grad_output * 4 * x
#
# x = torch.tensor([3.0], requires_grad=True)
# y = SquareAndDouble.apply(x)   # 2*9 = 18
# y.backward()
# print("y =", y.item(), "| x.grad =", x.grad.item())   # 4*3 = 12
# ```
#
# The block is right: 18 and 12. This lesson runs it on micrograd2 and on PyTorch (live, where it is installed), then
# asks the question the article leaves out: how do you know your backward is right?

# %%
import re
import textwrap
import warnings

import micrograd2 as mg
from micrograd2.lessons.tools import Recorded, check, error_of, live_torch, raises, section, show_graph, summary

torch = live_torch()  # PyTorch when it is installed: the same experiments then run on it, live
print("PyTorch:", torch.__version__ if torch else "not installed (checks use its recorded output)")

# %% [markdown]
# In micrograd2 every op is written this way, the built-in ones too: `MulBackward0` is the node of a Function called
# `Mul`. So the article's class runs with one change, the base class: `mg.Function` for `torch.autograd.Function`.
# `forward` receives the input's number, `backward` the upstream gradient; `ctx.save_for_backward` keeps x for backward.
# The class is written once here, on a base class of your choice, so that the very same code also runs on PyTorch:

# %%
section("1. SquareAndDouble, as the article writes it")

def square_and_double(base):
    """The article's class, on ``base``: ``mg.Function`` or ``torch.autograd.Function``."""
    class SquareAndDouble(base):
        """Custom op: forward returns 2·x², backward grad = 4·x·g"""
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return 2 * x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 4 * x

    return SquareAndDouble


# %%
SquareAndDouble = square_and_double(mg.Function)
x = mg.Value(3.0, requires_grad=True, label="x")
y = SquareAndDouble.apply(x)   # 2*9 = 18
y.backward()
print("y =", y.item(), "| x.grad =", x.grad)   # 4*3 = 12
print("y.grad_fn:", y.grad_fn.name())

# %% [markdown]
# The narration shows the one thing autograd knows about this op: it calls your backward with the upstream gradient and
# trusts what comes back. The article's block, on PyTorch:

# %%
if torch:
    TorchSquareAndDouble = square_and_double(torch.autograd.Function)
    t_x = torch.tensor([x.item()], requires_grad=True)
    t_y = TorchSquareAndDouble.apply(t_x)
    t_y.backward()

# %%
now = {"x": x.item()}  # the input the recorded outputs below must match
check("y = 2·x²", y, 2 * x.item() ** 2, torch=lambda: t_y, recorded=Recorded("y = 18.0", x=3.0), inputs=now)
check("x.grad = 4·x", x.grad, 4 * x.item(), torch=lambda: t_x.grad, recorded=Recorded("x.grad = 12.0", x=3.0),
      inputs=now)
check("the node's name: the class name + Backward", y.grad_fn.name(), "SquareAndDoubleBackward",
      torch=lambda: t_y.grad_fn.name(), recorded="SquareAndDoubleBackward")

# %% [markdown]
# Nothing checks that 4·x·g is the derivative of 2·x², unless you ask.
#
# ## gradcheck: does backward agree with the function?
#
# `gradcheck` nudges each input by ±ε, measures the change of the output (a central difference) and compares it with
# what backward returns. Use float64 inputs: the difference quotient needs the digits.

# %%
section("2. gradcheck: does backward agree with the function?")
x = mg.Value(3.0, requires_grad=True, label="x")
passed = mg.autograd.gradcheck(SquareAndDouble, (x,))
print("gradcheck(SquareAndDouble):", passed)
check("gradcheck(SquareAndDouble, float64)", passed, True,
      torch=lambda: torch.autograd.gradcheck(TorchSquareAndDouble.apply,
                                            (torch.tensor([3.0], dtype=torch.float64, requires_grad=True),)),
                                            recorded="True")

# %% [markdown]
# Now a backward with a mistake: x² has derivative 2x, this one returns 3x. It runs without complaint, and the training
# would just be wrong:

# %%
def wrong_square(base):
    """x² with a wrong backward, on ``base``: ``mg.Function`` or ``torch.autograd.Function``."""
    class WrongSquare(base):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x     # wrong: d(x²)/dx = 2x

    return WrongSquare

WrongSquare = wrong_square(mg.Function)
x = mg.Value(1.0, requires_grad=True, label="x")
y = WrongSquare.apply(x)
y.backward()
print("WrongSquare: y =", y.item(), "| x.grad =", x.grad, "(silently wrong)")

# %% [markdown]
# gradcheck catches it. PyTorch's `gradcheck`, on the same class, raises the same error:

# %%
if torch:
    t_error = error_of(lambda: torch.autograd.gradcheck(
        wrong_square(torch.autograd.Function).apply,
        (torch.tensor([1.0], dtype=torch.float64, requires_grad=True),)))

with raises("gradcheck(WrongSquare)", mg.autograd.GradcheckError,
            "Jacobian mismatch for output 0 with respect to input 0",
            torch=lambda: t_error,
            recorded="GradcheckError: Jacobian mismatch for output 0 with respect to input 0"):
    mg.autograd.gradcheck(WrongSquare, (mg.Value(1.0, requires_grad=True, label="x"),))

# %%
def named_numbers(message):
    """[analytical, numerical] as micrograd2's gradcheck message names them (empty if it doesn't)."""
    found = [re.search(rf"{name}:\s*(\S+)", message) for name in ("analytical", "numerical")]
    return [float(m.group(1)) for m in found if m]

error = error_of(lambda: mg.autograd.gradcheck(WrongSquare, (mg.Value(x.item(), requires_grad=True),))).value
check(f"the numbers it names: [analytical 3·x, numerical 2·x] at x = {x.item():g}", named_numbers(str(error)),
      [3 * x.item(), 2 * x.item()], rel=1e-6, inputs={"x": x.item()},
      recorded=Recorded("numerical:tensor([[2.0000]]) analytical:tensor([[3.]])", x=1.0))
check("GradcheckError is a RuntimeError", isinstance(error, RuntimeError), True,
      torch=lambda: isinstance(t_error.value, RuntimeError), recorded="GradcheckError subclasses RuntimeError")

# %% [markdown]
# And the float64 advice is not a detail: the correct x·x checked in float32 fails, because the central difference
# itself is wrong there (PyTorch: numerical 1.9670 against analytical 2, with a warning to use double precision).

# %%
x32 = mg.Value(1.0, requires_grad=True, dtype="float32")
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    passed32 = mg.autograd.gradcheck(lambda v: v * v, (x32,), raise_exception=False)
print("gradcheck(x·x, float32):", passed32, "| its warning:", *textwrap.wrap(str(said[0].message), 100), sep="\n")
if torch:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns that float32 inputs will likely fail
        t_passed32 = torch.autograd.gradcheck(lambda v: v * v, (torch.tensor([1.0], requires_grad=True),),
                                              raise_exception=False)
check("gradcheck of a correct function in float32", passed32, False, torch=lambda: t_passed32,
      recorded=Recorded("fails: numerical 1.9670 vs analytical 2.", x=1.0, dtype="float32"),
      inputs={"x": x32.item(), "dtype": x32.dtype})

# %% [markdown]
# The graph of WrongSquare's output: one node, the class's own, over the leaf's `AccumulateGrad`:

# %%
show_graph(y, "WrongSquare.apply(x):")

# %%
summary("Lesson 5")
