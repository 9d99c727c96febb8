"""Grad mode, anomaly mode and gradcheck next to torch 2.13."""
from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

import micrograd2 as mg  # noqa: E402


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


LIBS = [pytest.param(torch, id="torch"), pytest.param(mg, id="micrograd2")]


# -- grad mode as decorators -------------------------------------------------------------------------------
@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("parentheses", [True, False])
def test_no_grad_decorates_a_function(lib, parentheses: bool) -> None:
    deco = lib.no_grad() if parentheses else lib.no_grad

    @deco
    def f():
        return lib.is_grad_enabled()

    assert f() is False and lib.is_grad_enabled() is True


@pytest.mark.parametrize("lib", LIBS)
def test_enable_grad_decorates_inside_no_grad(lib) -> None:

    @lib.enable_grad
    def f():
        return lib.is_grad_enabled()

    with lib.no_grad():
        assert f() is True


@pytest.mark.parametrize("lib", LIBS)
def test_no_grad_on_a_generator_holds_between_yields(lib) -> None:

    @lib.no_grad()
    def gen():
        for _ in range(2):
            yield lib.is_grad_enabled()

    assert list(gen()) == [False, False] and lib.is_grad_enabled()


@pytest.mark.parametrize("lib", LIBS)
def test_set_detect_anomaly_is_a_context_manager(lib) -> None:
    try:
        with lib.autograd.set_detect_anomaly(True):
            assert lib.is_anomaly_enabled()
        assert not lib.is_anomaly_enabled()
    finally:
        lib.autograd.set_detect_anomaly(False)


@pytest.mark.parametrize("lib", LIBS)
def test_inference_mode(lib) -> None:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.inference_mode():
        y = x * 2
    assert not y.requires_grad and y.is_leaf


# -- gradcheck ----------------------------------------------------------------------------------------------
def _function(lib, backward):
    base = torch.autograd.Function if lib is torch else mg.Function

    class Square(base):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return backward(g, x)

    return Square


def _input(lib, data):
    if lib is torch:
        return torch.tensor(data, dtype=torch.float64, requires_grad=True)
    return mg.tensor(data, dtype="float64", requires_grad=True)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("bad", ["nan", "inf"])
def test_gradcheck_fails_on_a_nonfinite_backward(lib, bad: str) -> None:
    value = math.nan if bad == "nan" else math.inf
    square = _function(lib, lambda g, x: g * 2 * x + value)
    x = _input(lib, [1.0, 2.0])
    assert lib.autograd.gradcheck(lambda t: square.apply(t).sum(), (x,), raise_exception=False) is False


@pytest.mark.parametrize("lib", LIBS)
def test_gradcheck_on_a_vector_output(lib) -> None:
    square = _function(lib, lambda g, x: g * 2 * x)
    assert lib.autograd.gradcheck(square.apply, (_input(lib, [1.0, 2.0, 3.0]),))
    wrong = _function(lib, lambda g, x: g * 3 * x)
    assert lib.autograd.gradcheck(wrong.apply, (_input(lib, [1.0, 2.0, 3.0]),), raise_exception=False) is False


@pytest.mark.parametrize("lib", LIBS)
def test_gradgradcheck(lib) -> None:
    assert lib.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (_input(lib, [1.0, 2.0]),))


def test_gradcheck_error_names_input_and_both_jacobians() -> None:
    wrong = _function(mg, lambda g, x: g * 3 * x)
    with pytest.raises(mg.autograd.GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        mg.autograd.gradcheck(lambda t: wrong.apply(t).sum(), (_input(mg, [1.0, 2.0]),))
