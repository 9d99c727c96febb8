"""Tests for micrograd2.optim: SGD and Adam follow torch.optim step for step, in place, under no_grad.

The torch comparisons train the same float64 network (Linear(3,4)-Tanh-Linear(4,1) written
with Neurons) on the same data for 10 steps and compare every parameter to 1e-12.
"""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.nn import Layer
from micrograd2.nn.functional import mse_loss
from micrograd2.optim import SGD, Adam, zero_grad

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75], [0.1, 0.2, 0.3], [-0.7, -1.2, 1.9]]
Y = [1.0, -0.5, 0.25, 2.0, -1.5]


class Net:
    """Linear(3,4) - Tanh - Linear(4,1) on Values, with random biases."""

    def __init__(self, seed: int = 0) -> None:
        rng = random.Random(seed)
        self.l1 = Layer(3, 4, activation="tanh", rng=rng)
        self.l2 = Layer(4, 1, nonlin=False, rng=rng)
        for n in self.l1.neurons + self.l2.neurons:
            n.b.data = rng.uniform(-1, 1)

    def __call__(self, x):
        return self.l2(self.l1(x))

    def parameters(self):
        return self.l1.parameters() + self.l2.parameters()


def torch_twin(net: Net):
    """The same network in torch float64, and its parameters in our order (w rows then b per neuron)."""
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).double()
    with torch.no_grad():
        for linear, layer in ((model[0], net.l1), (model[2], net.l2)):
            linear.weight.copy_(torch.tensor([[w.data for w in n.w] for n in layer.neurons], dtype=torch.float64))
            linear.bias.copy_(torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64))
    return torch, model


def torch_params_in_our_order(model) -> list[float]:
    out: list[float] = []
    for linear in (model[0], model[2]):
        for j in range(linear.out_features):
            out += linear.weight[j].tolist() + [linear.bias[j].item()]
    return out


def train_both(make_ours, make_torch, steps: int = 10) -> tuple[list[float], list[float]]:
    net = Net()
    torch, model = torch_twin(net)
    opt = make_ours(net.parameters())
    topt = make_torch(torch, model.parameters())
    x_t = torch.tensor(X, dtype=torch.float64)
    y_t = torch.tensor(Y, dtype=torch.float64).unsqueeze(1)
    for _ in range(steps):
        opt.zero_grad()
        mse_loss([net(x) for x in X], Y).backward()
        opt.step()
        topt.zero_grad()
        torch.nn.functional.mse_loss(model(x_t), y_t).backward()
        topt.step()
    return [p.data for p in net.parameters()], torch_params_in_our_order(model)


def assert_close(ours: list[float], theirs: list[float], tol: float = 1e-12) -> None:
    assert len(ours) == len(theirs)
    worst = max(abs(a - b) for a, b in zip(ours, theirs))
    assert worst <= tol, worst


# -- the update rules, against torch ---------------------------------------------------------------
def test_sgd_matches_torch_for_ten_steps() -> None:
    ours, theirs = train_both(lambda ps: SGD(ps, lr=0.1),
                              lambda torch, ps: torch.optim.SGD(ps, lr=0.1, foreach=False))
    assert_close(ours, theirs)


def test_sgd_with_momentum_and_weight_decay_matches_torch_for_ten_steps() -> None:
    ours, theirs = train_both(
        lambda ps: SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.01),
        lambda torch, ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.01, foreach=False))
    assert_close(ours, theirs)


def test_adam_matches_torch_for_ten_steps() -> None:
    ours, theirs = train_both(lambda ps: Adam(ps, lr=0.01),
                              lambda torch, ps: torch.optim.Adam(ps, lr=0.01, foreach=False))
    assert_close(ours, theirs)


def test_adam_with_weight_decay_and_other_betas_matches_torch_for_ten_steps() -> None:
    ours, theirs = train_both(
        lambda ps: Adam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
        lambda torch, ps: torch.optim.Adam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1,
                                           foreach=False))
    assert_close(ours, theirs)


def test_adam_defaults_are_pytorchs() -> None:
    opt = Adam([mg.Value(1.0, requires_grad=True)])
    assert opt.defaults == {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0, "amsgrad": False,
                            "maximize": False}


def test_adams_first_step_moves_each_parameter_by_about_lr_against_its_gradient_sign() -> None:
    p, q = mg.Value(1.0, requires_grad=True), mg.Value(1.0, requires_grad=True)
    opt = Adam([p, q], lr=0.1)
    (p * 3.0 - q * 1e-3).backward()
    opt.step()
    assert p.data == pytest.approx(0.9, abs=1e-6) and q.data == pytest.approx(1.1, abs=1e-4)


def test_sgd_by_hand_with_momentum() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.1, momentum=0.5)
    for _ in range(2):
        opt.zero_grad()
        (p * 2.0).backward()
        opt.step()
    # step 1: b = 2, p = 1 - 0.2 = 0.8; step 2: b = 0.5*2 + 2 = 3, p = 0.8 - 0.3 = 0.5
    assert p.data == pytest.approx(0.5, abs=1e-15)
    assert opt.state[p]["momentum_buffer"].data == 3.0


# -- in place, under no_grad (D15, E7, E18) ---------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda ps: SGD(ps, lr=0.1), lambda ps: SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: Adam(ps)])
def test_a_step_updates_each_parameter_in_place_and_bumps_its_version_once(make) -> None:
    p = mg.Value(0.5, requires_grad=True)
    opt = make([p])
    (p * p).backward()
    assert p._version == 0
    opt.step()
    assert p._version == 1 and p.is_leaf and p.requires_grad and p.data != 0.5
    assert mg.is_grad_enabled()


def test_a_step_works_inside_grad_mode_because_it_uses_no_grad_itself() -> None:
    p = mg.Value(1.0, requires_grad=True)
    (p * 2.0).backward()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        p.sub_(0.1)  # what the optimizer avoids
    SGD([p], lr=0.5).step()
    assert p.data == 0.0 and p.grad_fn is None


def test_parameters_without_gradient_are_left_alone() -> None:
    p, q = mg.Value(1.0, requires_grad=True), mg.Value(2.0, requires_grad=True)
    (p * 3.0).backward()
    opt = Adam([p, q], lr=0.1)
    opt.step()
    assert q.data == 2.0 and q._version == 0 and q not in opt.state


def test_zero_grad_sets_none_by_default_and_zeros_on_request() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.1)
    (p * 3.0).backward()
    opt.zero_grad()
    assert p.grad is None  # E18: not 0
    (p * 3.0).backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad == 0.0 and type(p.grad) is float


def test_zero_grad_keeps_zeros_positive_and_finite() -> None:
    p = mg.Value(1.0, requires_grad=True)
    p.grad = -math.inf
    zero_grad([p], set_to_none=False)
    assert p.grad == 0.0 and math.copysign(1.0, p.grad) == 1.0


def test_the_gradient_is_not_modified_by_a_step() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.1, momentum=0.9, weight_decay=0.5)
    (p * 3.0).backward()
    opt.step()
    opt.step()
    assert p.grad == 3.0


@pytest.mark.parametrize("make", [lambda ps: SGD(ps, lr=0.1), lambda ps: SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.5), lambda ps: Adam(ps)])
def test_a_step_reads_a_tensor_gradient_without_changing_or_keeping_it(make) -> None:
    p = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = make([p])
    (p * mg.tensor([3.0, 4.0, 5.0])).sum().backward()
    grad = p.grad
    opt.step()
    opt.step()
    assert p.grad is grad and grad.numpy().tolist() == [3.0, 4.0, 5.0]
    for buffer in opt.state[p].values():  # state buffers are copies, not the gradient's array
        if isinstance(buffer, mg.Tensor):
            assert not np.shares_memory(buffer.data, grad.data)


@pytest.mark.parametrize("make", [lambda v: mg.Value(v, requires_grad=True), lambda v: mg.tensor(v)])
def test_add_and_sub_take_pytorchs_alpha(make) -> None:
    x = make(1.0)
    with mg.no_grad():
        x.add_(2.0, alpha=3.0)
        assert float(x.item()) == 7.0
        x.sub_(make(0.5), alpha=4.0)
    assert float(x.item()) == 5.0 and x._version == 2


def test_a_gradient_that_is_a_value_after_create_graph_works_too() -> None:
    p = mg.Value(2.0, requires_grad=True)
    (p * p).backward(create_graph=True)
    assert isinstance(p.grad, mg.Value)
    SGD([p], lr=0.25).step()
    assert p.data == 1.0


def test_float16_parameters_stay_float16() -> None:
    p = mg.Value(1.0, dtype="float16", requires_grad=True)
    (p * 0.5).backward()
    Adam([p], lr=1e-3).step()
    assert p.dtype == "float16" and p.data == 0.9990234375 and p.grad == 0.5


def test_adam_on_float16_parameters_breaks_as_in_pytorch() -> None:
    """g² = 1e-6·(1-β₂) underflows and eps = 1e-8 is 0 in float16: m / 0 = inf (torch gives -inf too).
    Why mixed precision keeps parameters in float32."""
    p = mg.Value(1.0, dtype="float16", requires_grad=True)
    (p * 1e-3).backward()
    opt = Adam([p], lr=1e-3)
    opt.step()
    assert p.data == -math.inf and opt.state[p]["exp_avg_sq"].data == 0.0


# -- groups, options and errors -------------------------------------------------------------------------
def test_param_groups_hold_per_group_options_as_in_pytorch() -> None:
    a, b = mg.Value(1.0, requires_grad=True), mg.Value(1.0, requires_grad=True)
    opt = SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    (a + b).backward()
    opt.step()
    assert (a.data, b.data) == (0.9, 0.0)
    opt.lr = 0.5
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.5] and opt.params == [a, b]


def test_step_with_a_closure_returns_its_loss() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = p * p
        loss.backward()
        return loss

    assert opt.step(closure).data == 1.0 and p.data == 0.8


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda ps: SGD(ps, lr=-0.1), "Invalid learning rate: -0.1"),
        (lambda ps: SGD(ps, lr=0.1, momentum=-1), "Invalid momentum value: -1"),
        (lambda ps: SGD(ps, lr=0.1, weight_decay=-1), "Invalid weight_decay value: -1"),
        (lambda ps: Adam(ps, betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
        (lambda ps: Adam(ps, betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
        (lambda ps: Adam(ps, eps=-1.0), "Invalid epsilon value: -1.0"),
    ],
)
def test_bad_options_raise_pytorchs_value_errors(make, message) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make([mg.Value(1.0, requires_grad=True)])


def test_an_empty_parameter_list_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        SGD([], lr=0.1)


def test_a_single_value_instead_of_a_list_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        SGD(mg.Value(1.0, requires_grad=True), lr=0.1)


def test_a_non_leaf_cannot_be_optimized() -> None:
    x = mg.Value(1.0, requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        SGD([x * 2], lr=0.1)


def _quadratic_steps(opt_factory, steps: int = 3) -> list[float]:
    ps = [mg.Value(1.0, requires_grad=True), mg.Value(-2.0, requires_grad=True)]
    opt = opt_factory(ps)
    for _ in range(steps):
        opt.zero_grad()
        (ps[0] * ps[0] + ps[1] * ps[1] * 3).backward()
        opt.step()
    return [p.data for p in ps]


def test_sgd_nesterov_dampening_and_maximize() -> None:
    # by hand, one parameter p = 1 with loss p², lr 0.1, momentum 0.5: g = 2p
    p = mg.Value(1.0, requires_grad=True)
    opt = SGD([p], lr=0.1, momentum=0.5, nesterov=True)
    (p * p).backward()
    opt.step()  # b = 2, d = 2 + 0.5·2 = 3, p = 1 − 0.3
    assert p.data == pytest.approx(0.7)
    q = mg.Value(1.0, requires_grad=True)
    opt = SGD([q], lr=0.1, momentum=0.5, dampening=0.5)
    for _ in range(2):
        opt.zero_grad()
        (q * q).backward()
        opt.step()  # b = 2 → q = 0.8; then g = 1.6, b = 0.5·2 + 0.5·1.6 = 1.8 → q = 0.62
    assert q.data == pytest.approx(0.62)
    assert _quadratic_steps(lambda ps: SGD(ps, lr=0.1, maximize=True))[0] > 1.0  # climbs
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        SGD([mg.Value(1.0, requires_grad=True)], lr=0.1, nesterov=True)


def test_adam_amsgrad_keeps_the_largest_second_moment() -> None:
    p = mg.Value(1.0, requires_grad=True)
    opt = Adam([p], lr=0.1, amsgrad=True)
    for scale in (10.0, 0.1):
        opt.zero_grad()
        (p * scale).backward()
        opt.step()
    state = opt.state[p]
    assert state["max_exp_avg_sq"].data >= state["exp_avg_sq"].data
    assert state["max_exp_avg_sq"].data == pytest.approx(0.001 * 100)


def test_adamw_decays_weights_apart_from_the_gradient() -> None:
    p = mg.Value(2.0, requires_grad=True)
    opt = mg.optim.AdamW([p], lr=0.1, weight_decay=0.5)
    p.grad = 0.0
    opt.step()  # zero gradient: only the decay p·(1 − lr·wd) acts
    assert p.data == pytest.approx(2.0 * 0.95)
    assert mg.optim.AdamW([mg.Value(1.0, requires_grad=True)]).defaults["weight_decay"] == 0.01


def test_a_parameter_in_two_groups_is_refused() -> None:
    p = mg.Value(1.0, requires_grad=True)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        SGD([{"params": [p]}, {"params": [p], "lr": 0.5}], lr=0.1)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        SGD([p, p], lr=0.1)  # within one group PyTorch only warns


def test_grad_is_finite_reads_one_sum_and_checks_again_only_when_the_sum_overflows() -> None:
    p = mg.tensor([0.0, 0.0], requires_grad=True)
    for grad, finite in (([3e38, 3e38], True), ([3e38, float("inf")], False), ([1.0, float("nan")], False),
                         ([float("-inf"), float("inf")], False), ([-2.0, 1.5], True)):
        p.grad = mg.tensor(grad)
        assert mg.optim.grad_is_finite(p) is finite, grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_squared_norm_leaves_the_gradient_as_it_was(dtype: str) -> None:
    """The squares go into the float64 copy in place: never into a float64 gradient itself."""
    p = mg.tensor([0.0, 0.0], dtype=dtype, requires_grad=True)
    p.grad = mg.tensor([3.0, -4.0], dtype=dtype)
    assert mg.optim.grad_sq_norm(p) == 25.0 and mg.optim.grad_norm_term(p, 2.0) == 25.0
    assert p.grad.tolist() == [3.0, -4.0]


def test_updates_on_tensors_change_only_their_own_temporaries_in_place() -> None:
    """Adam and SGD with Nesterov and weight decay change new buffers in place, never ``.grad`` or the state
    they read (the same steps as the plain expressions, checked against torch in tests/parity)."""
    for make in (lambda ps: Adam(ps, lr=0.1, weight_decay=0.1, amsgrad=True),
                 lambda ps: SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)):
        p = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = make([p])
        for _ in range(3):
            p.grad = mg.tensor([0.5, 0.25, -1.0])
            grad = p.grad
            opt.step()
            assert p.grad is grad and grad.tolist() == [0.5, 0.25, -1.0]
