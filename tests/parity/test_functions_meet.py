"""Where the features meet (issue 24), against torch: a custom Function's gradients checked as
``validate_outputs`` does, its ctx settings, node hooks, ``autograd.grad``, ``retain_grad`` and
``create_graph``, grad modes and anomaly mode, and the examples of PyTorch's documentation.

Each test runs one program on micrograd2 and on torch, on a small grid of shapes and dtypes, and
compares what comes out: values and dtypes, or the exception's class and first line. (A Function's
``forward`` receives data here, arrays or floats, where PyTorch's receives Tensors: README's
"Differences from PyTorch".)
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import micrograd2 as mg

torch = pytest.importorskip("torch")

SHAPES = [(), (2,), (3, 2)]
GRAD_SHAPES = [(), (2,), (3,), (1, 2), (3, 2), (3, 1), (4, 3, 2), (2, 3)]
DTYPES = ["float32", "float64"]


def outcome(program: Callable[[], Any]) -> tuple[str, Any]:
    """What ``program`` gave: ("ok", its result), or ("error", (class name, first line))."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", program()
    except Exception as error:  # compared with torch's: class and first line
        return "error", (type(error).__name__, str(error).split("\n")[0])


def as_list(t: Any) -> Any:
    """A Tensor's values and dtype, comparable across the two libraries."""
    if t is None:
        return None
    if isinstance(t, torch.Tensor):
        return t.detach().tolist(), str(t.dtype).replace("torch.", "")
    return np.asarray(t.data).tolist(), t.dtype


def ramp(shape: tuple[int, ...]) -> np.ndarray:
    """1, 2, 3… in ``shape`` (float64): a gradient whose column sums tell where each went."""
    return np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape)


# -- gradients that reach an input are checked, as in validate_outputs --------------------------
def torch_returning(gradient: np.ndarray) -> Any:
    class Id(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return torch.tensor(gradient)
    return Id


def mg_returning(gradient: np.ndarray) -> Any:
    class Id(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return mg.tensor(gradient, dtype="float64")  # as torch.tensor of a float64 array
    return Id


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("grad_shape", GRAD_SHAPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_custom_gradient_is_summed_to_its_input_or_refused(shape, grad_shape, dtype) -> None:
    gradient = ramp(grad_shape)

    def on_torch():
        x = torch.ones(shape, dtype=getattr(torch, dtype), requires_grad=True)
        torch_returning(gradient).apply(x).sum().backward()
        return as_list(x.grad)

    def on_mg():
        x = mg.tensor(np.ones(shape), dtype=dtype, requires_grad=True)
        mg_returning(gradient).apply(x).sum().backward()
        return as_list(x.grad)

    assert outcome(on_mg) == outcome(on_torch)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_a_custom_gradient_is_cast_to_its_input_dtype(shape, dtype) -> None:
    def on_torch():
        x = torch.ones(shape, dtype=getattr(torch, dtype), requires_grad=True)
        torch_returning(np.full(shape, 0.1)).apply(x).sum().backward()
        return as_list(x.grad)

    def on_mg():
        x = mg.tensor(np.ones(shape), dtype=dtype, requires_grad=True)
        mg_returning(np.full(shape, 0.1)).apply(x).sum().backward()
        return as_list(x.grad)

    assert outcome(on_mg) == outcome(on_torch)


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_values_custom_gradient_is_cast_to_its_dtype(dtype) -> None:
    class Tenth(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return 0.1

    x = torch.tensor(1.0, dtype=getattr(torch, dtype), requires_grad=True)
    torch_returning(np.array(0.1)).apply(x).backward()
    v = mg.Value(1.0, dtype=dtype, requires_grad=True)
    Tenth.apply(v).backward()
    assert v.grad == x.grad.item()


def test_a_gradient_through_a_recorded_sum_keeps_its_graph() -> None:
    """Under create_graph the sum back to the input's shape is recorded, as PyTorch's sum_to."""
    class Spread(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * mg.tensor(np.ones((3, 2)))

    class TSpread(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * torch.ones(3, 2, dtype=torch.float64)

    x = mg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (gx,) = mg.autograd.grad((Spread.apply(x) * x).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad((TSpread.apply(t) * t).sum(), t, create_graph=True)
    assert as_list(gx) == as_list(gt)
    gx.sum().backward()
    gt.sum().backward()
    assert as_list(x.grad) == as_list(t.grad)


@pytest.mark.parametrize("kind", ["pre", "post"])
@pytest.mark.parametrize("change", ["size", "dtype", "count"])
def test_a_node_hook_may_not_change_its_gradients(kind, change) -> None:
    def program(lib: Any, tensor: Callable[..., Any]):
        x = tensor([1.0, 2.0], requires_grad=True)
        w = tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        bad = tensor([1.0, 1.0, 1.0]) if change == "size" else tensor([1.0, 1.0]).double()

        def hook(*args):
            got = args[0]
            if change == "count":
                return (got[0],) * (len(got) + 1)
            return (bad,) + tuple(got[1:])
        if kind == "pre":
            y.grad_fn.register_prehook(hook)
        else:
            y.grad_fn.register_hook(hook)
        y.sum().backward()
        return as_list(x.grad)

    got = outcome(lambda: program(mg, mg.tensor))
    want = outcome(lambda: program(torch, torch.tensor))
    assert got == want and got[0] == "error"


# -- custom Function ctx settings --------------------------------------------------------------
def test_mark_dirty_on_an_input_not_returned_is_refused() -> None:
    """(With one output, that output is the input's new value here: README's "Differences".)"""
    class TDirty(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(1)
            ctx.mark_dirty(x)
            return y * 1, y * 2

        @staticmethod
        def backward(ctx, g, g2):
            return None, g

    class Dirty(mg.Function):
        @staticmethod
        def forward(ctx, x, y):
            x += 1
            ctx.mark_dirty(x)
            return y * 1, y * 2

        @staticmethod
        def backward(ctx, g, g2):
            return None, g

    def program(fn, tensor):
        x = tensor([1.0, 2.0], requires_grad=True) * 1
        return fn.apply(x, tensor([1.0, 2.0], requires_grad=True))

    assert outcome(lambda: program(Dirty, mg.tensor)) == outcome(
        lambda: program(TDirty, torch.tensor))


VIEWS = {"slice": lambda b: b[:2], "row": lambda b: b[1], "transposed row": lambda b: b.t()[0],
         "itself": lambda b: b}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("view", list(VIEWS))
def test_mark_dirty_on_a_view_records_copy_slices_on_the_base(view, dtype) -> None:
    """The Function's backward runs for the base, through CopySlices, as PyTorch's."""
    def make(base: Any) -> Any:
        class Scale_(base):
            @staticmethod
            def forward(ctx, x, w):
                x *= w
                ctx.mark_dirty(x)
                ctx.save_for_backward(w)
                return x

            @staticmethod
            def backward(ctx, g):
                w, = ctx.saved_tensors
                return g * w, (g * 0).sum()
        return Scale_

    def program(base_class, tensor):
        leaf = tensor(ramp((3, 2)), requires_grad=True)
        w = tensor(5.0, requires_grad=True)
        base = leaf * 1
        out = make(base_class).apply(VIEWS[view](base), w)
        names = tuple(n.name().replace("torch::autograd::", "")
                      for n in (base.grad_fn, out.grad_fn))
        (base * tensor(ramp((3, 2)))).sum().backward()
        return names, as_list(leaf.grad), as_list(w.grad)

    assert program(mg.Function, lambda d, **k: mg.tensor(d, dtype=dtype, **k)) == program(
        torch.autograd.Function, lambda d, **k: torch.tensor(d, dtype=getattr(torch, dtype), **k))


@pytest.mark.parametrize("engine", ["value", "tensor"])
def test_a_non_tensor_output_passes_through_and_gets_none(engine) -> None:
    """An int, a string or None returned by forward comes back unchanged, and backward receives
    None for it. (On the Value engine an int is data: README's "Differences from PyTorch".)"""
    extra = (3, "tag") if engine == "tensor" else ("tag", None)
    seen: dict[str, Any] = {}

    def make(base: Any, key: str) -> Any:
        class WithCount(base):
            @staticmethod
            def forward(ctx, x):
                return (x * 2, *extra)

            @staticmethod
            def backward(ctx, g, g_first, g_second):
                seen[key] = (g_first, g_second)
                return g * 2
        return WithCount

    t = torch.tensor(1.0 if engine == "value" else [1.0, 2.0], requires_grad=True)
    x = mg.Value(1.0, requires_grad=True) if engine == "value" else mg.tensor([1.0, 2.0],
                                                                               requires_grad=True)
    ty, *tail = make(torch.autograd.Function, "torch").apply(t)
    y, *got = make(mg.Function, "mg").apply(x)
    assert [(v, type(v)) for v in got] == [(v, type(v)) for v in tail]
    ty.sum().backward()
    (y * 1 if engine == "value" else y.sum()).backward()
    assert seen["mg"] == seen["torch"] == (None, None)
    assert as_list(t.grad)[0] == (x.grad if engine == "value" else as_list(x.grad)[0])


@pytest.mark.parametrize("engine", ["value", "tensor"])
def test_grad_mode_is_off_inside_a_custom_forward(engine) -> None:
    seen = {}

    def make(base: Any, key: str, enabled: Callable[[], bool]) -> Any:
        class Look(base):
            @staticmethod
            def forward(ctx, x):
                seen[key] = enabled()
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return Look

    make(torch.autograd.Function, "torch", torch.is_grad_enabled).apply(
        torch.tensor(1.0, requires_grad=True))
    x = mg.Value(1.0, requires_grad=True) if engine == "value" else mg.tensor(
        [1.0], requires_grad=True)
    make(mg.Function, "mg", mg.is_grad_enabled).apply(x)
    assert seen["mg"] is seen["torch"] is False


@pytest.mark.parametrize("engine", ["value", "tensor"])
def test_a_hook_on_an_output_that_gets_no_gradient_is_called_with_none(engine) -> None:
    def make(base: Any) -> Any:
        class Two(base):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 2 + g2 * 3
        return Two

    def program(fn, leaf):
        a, b = fn.apply(leaf)
        seen = []
        b.register_hook(lambda g: seen.append(None if g is None else "grad"))
        total = a * 1
        (total if isinstance(total, mg.Value) else total.sum()).backward()
        return seen

    t = torch.tensor([1.0, 2.0], requires_grad=True)
    x = mg.Value(1.0, requires_grad=True) if engine == "value" else mg.tensor(
        [1.0, 2.0], requires_grad=True)
    assert program(make(mg.Function), x) == program(make(torch.autograd.Function), t) == [None]


@pytest.mark.parametrize("dtype", DTYPES)
def test_an_integer_output_keeps_its_dtype(dtype) -> None:
    class TArg(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = x.argmax()
            ctx.mark_non_differentiable(i)
            return x * 2, i

        @staticmethod
        def backward(ctx, g, gi):
            return g * 2

    class Arg(mg.Function):
        @staticmethod
        def forward(ctx, x):
            i = np.argmax(x)
            ctx.mark_non_differentiable(i)
            return x * 2, i

        @staticmethod
        def backward(ctx, g, gi):
            return g * 2

    t = torch.tensor([1.0, 3.0, 2.0], dtype=getattr(torch, dtype), requires_grad=True)
    x = mg.tensor([1.0, 3.0, 2.0], dtype=dtype, requires_grad=True)
    (ty, ti), (y, i) = TArg.apply(t), Arg.apply(x)
    assert as_list(i) == as_list(ti) and i.requires_grad is ti.requires_grad is False
    y.sum().backward()
    ty.sum().backward()
    assert as_list(x.grad) == as_list(t.grad)


# -- the form PyTorch's documentation teaches: forward without ctx, then setup_context ---------
def linear_function(base: Any, saved: Callable[[Any], Any]) -> Any:
    """PyTorch's ``LinearFunction`` from "Extending PyTorch", in the setup_context form."""
    class LinearFunction(base):
        @staticmethod
        def forward(input, weight, bias):
            return input @ weight.T + bias

        @staticmethod
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_output @ weight
            grad_weight = grad_output.T @ input
            grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias
    return LinearFunction


def my_cube(base: Any) -> Any:
    """PyTorch's ``MyCube``: two outputs, one of them saved, and a double backward."""
    class MyCube(base):
        @staticmethod
        def forward(x):
            dx = 3 * x ** 2
            return x ** 3, dx

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            result, dx = output
            ctx.save_for_backward(x, dx)

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            return grad_output * dx + grad_dx * 6 * x
    return MyCube


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_function_in_the_setup_context_form(dtype) -> None:
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s) for s in ((4, 3), (2, 3), (2,))]
    ts = [torch.tensor(d, dtype=getattr(torch, dtype), requires_grad=True) for d in data]
    xs = [mg.tensor(d, dtype=dtype, requires_grad=True) for d in data]
    linear_function(torch.autograd.Function, None).apply(*ts).sum().backward()
    linear_function(mg.Function, None).apply(*xs).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(np.asarray(x.grad.data), t.grad.numpy(), rtol=1e-6)
        assert x.grad.dtype == str(t.grad.dtype).replace("torch.", "")


@pytest.mark.parametrize("shape", SHAPES)
def test_my_cube_second_derivative_through_a_saved_output(shape) -> None:
    """Under create_graph a saved output of a several-output Function is a Tensor in the graph:
    d²(x³)/dx² = 6x, not 0."""
    data = np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape)
    t = torch.tensor(data, requires_grad=True)
    x = mg.tensor(data, dtype="float64", requires_grad=True)
    (gt,) = torch.autograd.grad(my_cube(torch.autograd.Function).apply(t)[0].sum(), t,
                                create_graph=True)
    (gx,) = mg.autograd.grad(my_cube(mg.Function).apply(x)[0].sum(), x, create_graph=True)
    assert as_list(gx) == as_list(gt)
    gt.sum().backward()
    gx.sum().backward()
    assert as_list(x.grad) == as_list(t.grad)


# -- crashes and refusals ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("returned", ["numpy scalar", "float"])
def test_a_backward_returning_a_number_for_a_tensor_is_refused(dtype, returned) -> None:
    def make(base: Any, data: Callable[[Any], Any]) -> Any:
        class Exp(base):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 1

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                value = np.exp(data(x))
                return value if returned == "numpy scalar" else float(value)
        return Exp

    def on_torch():
        x = torch.tensor(1.0, dtype=getattr(torch, dtype), requires_grad=True)
        make(torch.autograd.Function, lambda x: x.detach().numpy()).apply(x).backward()

    def on_mg():
        x = mg.tensor(1.0, dtype=dtype, requires_grad=True)
        make(mg.Function, lambda x: x.data).apply(x).backward()

    assert outcome(on_mg) == outcome(on_torch)


@pytest.mark.parametrize("value", [0.0, 1, np.zeros(2)])
def test_assigning_a_non_tensor_to_grad_is_a_type_error(value) -> None:
    def program(tensor):
        t = tensor([1.0, 2.0], requires_grad=True)
        t.grad = value

    got, want = outcome(lambda: program(mg.tensor)), outcome(lambda: program(torch.tensor))
    assert got == want and got[1][0] == "TypeError"


# -- autograd.grad, retain_grad and create_graph --------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
def test_grad_of_a_non_leaf_stops_before_its_node(shape) -> None:
    """The gradient is captured where it enters h: h's Tensor hooks apply, its node's prehooks
    don't run."""
    def program(lib, tensor):
        x = tensor(np.ones(shape) * 2, requires_grad=True)
        h = x * 3
        ran = []
        h.grad_fn.register_prehook(lambda g: ran.append("prehook"))
        h.register_hook(lambda g: g * 10)
        (g,) = lib.autograd.grad((h * h).sum(), [h])
        return as_list(g)[0], ran

    assert program(mg, lambda d, **k: mg.tensor(d, dtype="float32", **k)) == program(
        torch, lambda d, **k: torch.tensor(d, dtype=torch.float32, **k))


@pytest.mark.parametrize("engine", ["value", "tensor"])
def test_retain_grad_under_create_graph_is_a_clone(engine) -> None:
    def program(make):
        x = make(requires_grad=True)
        h = x * 2
        h.retain_grad()
        square = h * h
        (square if isinstance(square, mg.Value) else square.sum()).backward(create_graph=True)
        return h.grad.grad_fn.name()

    def mg_leaf(**k):
        return mg.Value(1.0, **k) if engine == "value" else mg.tensor([1.0, 2.0], **k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert program(mg_leaf) == program(lambda **k: torch.tensor([1.0, 2.0], **k))


@pytest.mark.parametrize("shape", SHAPES)
def test_a_grad_with_history_is_added_to_in_place(shape) -> None:
    def program(tensor):
        x = tensor(np.ones(shape), requires_grad=True)
        w = tensor(np.ones(shape), requires_grad=True)
        x.grad = w * 2
        first = x.grad
        (x * 3).sum().backward()
        return (x.grad is first, x.grad.grad_fn.name(), x.grad._version, as_list(x.grad)[0])

    assert program(lambda d, **k: mg.tensor(d, dtype="float32", **k)) == program(
        lambda d, **k: torch.tensor(d, dtype=torch.float32, **k))


@pytest.mark.parametrize("allow_unused", [None, True, False])
@pytest.mark.parametrize("shape", SHAPES)
def test_materialize_grads_gives_zeros_for_an_unused_input(shape, allow_unused) -> None:
    def program(lib, tensor):
        x = tensor(np.ones(shape), requires_grad=True)
        z = tensor(np.ones(shape), requires_grad=True)
        kwargs = {} if allow_unused is None else {"allow_unused": allow_unused}
        return [as_list(g) for g in lib.autograd.grad((x * 2).sum(), [x, z],
                                                         materialize_grads=True, **kwargs)]

    assert outcome(lambda: program(mg, lambda d, **k: mg.tensor(d, dtype="float32", **k))) == \
        outcome(lambda: program(torch, lambda d, **k: torch.tensor(d, dtype=torch.float32, **k)))


# -- grad modes and anomaly mode -----------------------------------------------------------------
@pytest.mark.parametrize("outer", ["no_grad", "inference_mode", "enable_grad"])
def test_inference_mode_false_turns_grad_mode_on(outer) -> None:
    def program(lib):
        with getattr(lib, outer)():
            with lib.inference_mode(False):
                return lib.is_grad_enabled(), lib.is_inference_mode_enabled()

    assert program(mg) == program(torch)


@pytest.mark.parametrize("check_nan", [True, False])
def test_anomaly_mode_takes_check_nan(check_nan) -> None:
    def program(lib):
        check = (mg.autograd.is_anomaly_check_nan_enabled if lib is mg
                 else torch.is_anomaly_check_nan_enabled)
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly(check_nan=check_nan):
                seen.append(check())
                x = lib.tensor([0.0], requires_grad=True)
                try:
                    (x.sqrt() * 0).sum().backward()  # 0 * inf: NaN in SqrtBackward0
                    seen.append("no error")
                except RuntimeError as error:
                    seen.append(str(error).split("\n")[0])
            lib.autograd.set_detect_anomaly(True, check_nan=check_nan)
            seen.append((lib.is_anomaly_enabled(),
                         check()))
            lib.autograd.set_detect_anomaly(False)
        seen.append((lib.is_anomaly_enabled(), check()))
        return seen

    assert program(mg) == program(torch)
