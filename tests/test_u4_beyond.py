"""U4 "beyond": the model solutions (teacher/solutions/u4_*.py) against PyTorch, live.

The exercises' public tests grade a student's file (and their wrong versions are in
test_exercises.py's MUTANTS); these hold the model solutions to torch on random functions:
``hvp`` to ``torch.autograd.functional.hvp``, ``jvp`` to ``torch.func.jvp``, the hooks' firing
order (the reference engine's, siblings included) to torch's, and ``checkpoint`` to
``torch.utils.checkpoint``: the same gradients, and what each graph saves for backward,
counted after forward (torch's by ``saved_tensors_hooks``).
"""
from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.exercises import harness

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")

SOLUTIONS = Path(__file__).resolve().parents[1] / "teacher" / "solutions"
TESTS = Path(__file__).resolve().parents[1] / "micrograd2" / "exercises" / "tests"


def module(path: Path, name: str) -> ModuleType:
    return harness.load_module(path, name)


@pytest.fixture(scope="module")
def double_backward() -> ModuleType:
    return module(SOLUTIONS / "u4_double_backward.py", "u4_double_backward__model")


@pytest.fixture(scope="module")
def forward_mode() -> ModuleType:
    return module(SOLUTIONS / "u4_forward_mode.py", "u4_forward_mode__model")


@pytest.fixture(scope="module")
def checkpointing() -> ModuleType:
    return module(SOLUTIONS / "u4_checkpoint.py", "u4_checkpoint__model")


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    return module(SOLUTIONS / "u4_hooks.py", "u4_hooks__model")


@pytest.fixture(scope="module")
def public() -> ModuleType:
    """U4.4's public tests, for their random functions (+ * tanh exp, on Values, Duals and
    torch tensors alike)."""
    return module(TESTS / "test_u4_forward_mode.py", "test_u4_forward_mode__for_parity")


def tensor(x: float) -> Any:
    return torch.tensor(x, dtype=torch.float64)


@pytest.mark.parametrize("seed", range(8))
def test_hvp_is_torchs_on_random_functions(double_backward: ModuleType, public: ModuleType,
                                           seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 4)
    f = public.random_function(200 + seed, n, 1, n_ops=10)
    xs = [rng.uniform(-1, 1) for _ in range(n)]
    vs = [rng.uniform(-2, 2) for _ in range(n)]
    got = double_backward.hvp(lambda *a: f(*a)[0], xs, vs)
    _, want = torch.autograd.functional.hvp(lambda x: f(*x.unbind())[0],
                                            torch.tensor(xs, dtype=torch.float64),
                                            torch.tensor(vs, dtype=torch.float64))
    assert got == pytest.approx(want.tolist(), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_jvp_is_torch_funcs_on_random_functions(forward_mode: ModuleType, public: ModuleType,
                                                seed: int) -> None:
    rng = random.Random(seed)
    n, m = rng.randint(1, 4), rng.randint(1, 3)
    f = public.random_function(300 + seed, n, m)
    xs = [rng.uniform(-1, 1) for _ in range(n)]
    vs = [rng.uniform(-2, 2) for _ in range(n)]
    values, tangents = forward_mode.jvp(f, xs, vs)
    want_values, want_tangents = torch.func.jvp(lambda *a: tuple(f(*a)),
                                                tuple(map(tensor, xs)), tuple(map(tensor, vs)))
    assert values == pytest.approx([t.item() for t in want_values], rel=1e-12)
    assert tangents == pytest.approx([t.item() for t in want_tangents], rel=1e-9, abs=1e-12)


def diamond(lib: Any) -> tuple[dict[str, Any], Any]:
    """a, b, c leaves; p = a·b, q = b + c, r = tanh(p·q) used twice: y = r·c + r·p."""
    if lib is mg:
        a, b, c = (mg.Value(v, requires_grad=True) for v in (0.4, -0.9, 1.3))
    else:
        a, b, c = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
                   for v in (0.4, -0.9, 1.3))
    p = a * b
    q = b + c
    r = (p * q).tanh()
    return {"a": a, "b": b, "c": c, "p": p, "q": q, "r": r}, r * c + r * p


def test_the_hooks_fire_in_torchs_order_and_clip_as_torch(hooks: ModuleType) -> None:
    named, y = diamond(mg)
    hooks.clip_gradients([named["p"], named["b"]], 0.3)
    log = hooks.record_norms(named)
    y.backward()
    tnamed, ty = diamond(torch)
    for key in ("p", "b"):
        tnamed[key].register_hook(lambda g: g.clamp(-0.3, 0.3))
    want: list[tuple[str, float]] = []
    for name, t in tnamed.items():
        t.register_hook(lambda g, name=name: want.append((name, abs(g.item()))))
    ty.backward()
    assert [n for n, _ in log] == [n for n, _ in want]
    assert [v for _, v in log] == pytest.approx([v for _, v in want], rel=1e-12)
    for key in ("a", "b", "c"):
        assert named[key].grad == pytest.approx(tnamed[key].grad.item(), rel=1e-12)


def chain(n_ops: int) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        for k in range(n_ops):
            x = x.sin() if k % 3 == 0 else x.tanh() if k % 3 == 1 else x * 1.1
        return x

    return f


def torch_saved(forward: Callable[[], Any]) -> tuple[int, Any]:
    """(how many tensors torch's graph saved while ``forward()`` ran, its result)."""
    saved: list[Any] = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        out = forward()
    return len(saved), out


def saved_values(y: Any) -> int:
    """What the nodes of ``y``'s graph saved for backward (AccumulateGrad saves nothing)."""
    from micrograd2.tracing.nodes import reachable

    entries = [node.saved_entries() for node in reachable([y.grad_fn])]
    return sum(len(e) for e in entries if not isinstance(e, str))


@pytest.mark.parametrize("n_ops", [1, 5, 30])
def test_checkpoint_saves_one_input_and_gives_torch_checkpoints_gradient(
        checkpointing: ModuleType, n_ops: int) -> None:
    x = mg.Value(0.5, requires_grad=True)
    y = checkpointing.checkpoint(chain(n_ops), x)
    ours = saved_values(y)
    tx = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    theirs, ty = torch_saved(lambda: torch.utils.checkpoint.checkpoint(chain(n_ops), tx,
                                                                       use_reentrant=True))
    assert ours == theirs == 1
    unchecked, _ = torch_saved(lambda: chain(n_ops)(tx))
    assert unchecked >= n_ops // 2  # torch's chain saves one tensor per sin and tanh
    y.backward()
    ty.backward()
    assert x.grad == pytest.approx(tx.grad.item(), rel=1e-12)
