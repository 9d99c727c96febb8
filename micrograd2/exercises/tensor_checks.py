"""U3's checks (tensors): random shapes from a seed, the holes' answers against NumPy's, the
sentence that names a likely mistake, and gradcheck with the student's holes run in place.

* Shapes are drawn from ``run_seed()``: ``$MICROGRAD2_SEED`` if set, else a new one per run;
  every message names it, so a failure can be replayed.  ``salt`` keeps the hidden tests'
  shapes apart from the public ones'.  Each draw holds every kind of case (NOTE [Every kind]).
* ``check_sum_to``, ``check_reduction``, ``check_matmul``: call the student's hole directly and
  raise ``Mistake`` naming the case and the mistake its answer matches (``*_mistakes``: the
  answers of the usual wrong versions, computed with NumPy).
* ``in_place(path, holes, salt)``: a new process with ``MICROGRAD2_REFERENCE=1`` and
  ``MICROGRAD2_ENGINE`` set to a folder that holds the student's file, so the Tensor ops'
  backward call the student's hole (alone: the other pieces stay the core's, as
  ``course.diagnose`` runs a hole); gradcheck runs there on each case (``_in_place_main``).
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

import micrograd2 as mg

from .harness import Mistake, expect

SEED_ENV = "MICROGRAD2_SEED"
_SEED = random.SystemRandom().randrange(10**6)  # this run's, unless $MICROGRAD2_SEED says
Shape = tuple[int, ...]


def run_seed() -> int:
    """The seed of this run's shapes: ``$MICROGRAD2_SEED``, else one drawn when first imported."""
    text = os.environ.get(SEED_ENV, "").strip()
    return int(text) if text.isdigit() else _SEED


def rng(salt: int) -> np.random.Generator:
    """The generator of one test's shapes and numbers (``salt``: which test, public or hidden)."""
    return np.random.default_rng([run_seed(), salt])


def replay() -> str:
    """How a message says which shapes failed: the seed, and how to draw them again."""
    return f"(seed {run_seed()}: {SEED_ENV}={run_seed()} replays these shapes)"


def tensor(gen: np.random.Generator, shape: Shape, requires_grad: bool = False) -> Any:
    """A float64 Tensor of ``shape`` with numbers in [-2, 2)."""
    return mg.tensor(gen.uniform(-2.0, 2.0, size=shape), dtype="float64",
                     requires_grad=requires_grad)


def array(x: Any) -> np.ndarray:
    """The numbers of a Tensor (or of an array) as a NumPy array."""
    return np.asarray(x.detach().numpy() if hasattr(x, "detach") else x, dtype=np.float64)


# -- the cases ----------------------------------------------------------------------------------
# NOTE [Every kind]
# A seed changes the sizes, never the kinds: each draw holds a case of every kind a mistake shows
# on (leading axes, size-1 axes, both, a scalar target; a negative dim, several dims, keepdim
# both ways; a square and a non-square product), so a test's verdict never depends on the seed.
# Sizes are 2 to 5: an axis of size 1 is only ever a broadcast (or summed) one (a product's row
# and column excepted).
def broadcast_pairs(gen: np.random.Generator, top: int = 5) -> list[tuple[Shape, Shape]]:
    """(shape, broadcast shape) pairs, sizes 2 to ``top``: leading axes only, size-1 axes only,
    both, to (), none."""
    def sizes(n: int) -> list[int]:
        return [int(s) for s in gen.integers(2, top + 1, size=n)]

    big = sizes(int(gen.integers(3, 5)))
    lead = int(gen.integers(1, len(big)))
    ones = [i for i in range(len(big)) if gen.random() < 0.5] or [len(big) - 1]
    rest = big[lead:]
    with_ones = tuple(1 if i in ones else n for i, n in enumerate(big))
    both = tuple(1 if i == 0 else n for i, n in enumerate(rest))
    return [(tuple(rest), tuple(big)), (with_ones, tuple(big)), (both, tuple(big)),
            ((), tuple(big[:2])), (tuple(big), tuple(big)), ((1,) * len(rest), tuple(big))]


def reduction_cases(gen: np.random.Generator, top: int = 5) -> list[tuple[Shape, Any, bool]]:
    """(shape, dim, keepdim), sizes 2 to ``top``: everything summed, one axis (a negative one
    too), several axes, keepdim both ways."""
    shape = tuple(int(s) for s in gen.integers(2, top + 1, size=int(gen.integers(3, 5))))
    n = len(shape)
    one = int(gen.integers(0, n - 1))  # not the last axis: a missing reshape shows
    two = tuple(sorted(int(d) for d in gen.choice(n, size=2, replace=False)))
    return [(shape, None, False), (shape[:2], None, False), (shape, one, False), (shape, one, True),
            (shape, -1, False), (shape, -n, True), (shape, two, False), (shape, two, True),
            (shape, (two[0] - n, two[1]), False)]


def matrix_cases(gen: np.random.Generator) -> list[tuple[int, int, int]]:
    """(n, k, m) for an (n×k) @ (k×m) product: three different sizes, a square one, a row, a
    column."""
    n, k, m = (int(s) for s in gen.choice(np.arange(2, 8), size=3, replace=False))
    return [(n, k, m), (k, k, k), (1, k, m), (n, k, 1), (m, n, k)]


def kept_shape(shape: Shape, dim: Any) -> Shape:
    """The reduction's shape with keepdim=True (what the core passes as ``kept``)."""
    if dim is None:
        return (1,) * len(shape)
    dims = {d % len(shape) for d in ((dim,) if isinstance(dim, int) else dim)}
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def reduced_shape(shape: Shape, dim: Any, keepdim: bool) -> Shape:
    """The shape of ``x.sum(dim, keepdim=keepdim)`` (``()`` for ``x.sum()``)."""
    if dim is None:
        return ()
    kept = kept_shape(shape, dim)
    return kept if keepdim else tuple(s for s, k in zip(shape, kept) if k != 1)


# -- naming the mistake -------------------------------------------------------------------------
def named_mistake(got: np.ndarray, wrong: dict[str, np.ndarray | None]) -> str:
    """The sentence of the first known wrong answer ``got`` matches (same shape and numbers), or
    ``""``."""
    for sentence, answer in wrong.items():
        if answer is not None and answer.shape == got.shape and np.allclose(got, answer):
            return f": {sentence}"
    return ""


def answer_of(result: Any, what: str) -> np.ndarray:
    """A hole's result as an array: a Tensor is required."""
    expect(isinstance(result, mg.Tensor),
           f"{what} returned {type(result).__name__}, not a Tensor: compute with Tensor ops "
           "(.sum, .reshape, .expand, @, .t()) on the Tensors you receive")
    return array(result)


def compare(got: np.ndarray, expected: np.ndarray, what: str,
            wrong: dict[str, np.ndarray | None]) -> None:
    """``Mistake`` unless ``got`` is ``expected``: the shapes, or the numbers, and the mistake."""
    if got.shape != expected.shape:
        raise Mistake(f"{what} has shape {got.shape}, expected {expected.shape}"
                      f"{named_mistake(got, wrong)} {replay()}")
    if not np.allclose(got, expected, rtol=1e-9, atol=1e-12):
        worst = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
        raise Mistake(f"{what} is wrong at {tuple(int(i) for i in worst)}: got "
                      f"{got[worst]:.6g}, expected {expected[worst]:.6g}"
                      f"{named_mistake(got, wrong)} {replay()}")


def calling(fn: Callable[..., Any], what: str, *args: Any, hint: str = "") -> Any:
    """``fn(*args)``; an error in it becomes a ``Mistake`` naming the call and ``hint`` (a
    hole's own ``NotImplementedError`` passes through)."""
    try:
        return fn(*args)
    except NotImplementedError:
        raise
    except Exception as error:  # noqa: BLE001 - a student's piece may fail in any way
        first = (str(error).splitlines() or [""])[0]
        raise Mistake(f"{what} raised {type(error).__name__}: {first}"
                      f"{': ' + hint if hint else ''} {replay()}") from error


# -- sum_to ---------------------------------------------------------------------------------------
def sum_to_mistakes(g: np.ndarray, shape: Shape) -> dict[str, np.ndarray | None]:
    """What the usual wrong ``sum_to``s return for ``g`` and ``shape``."""
    lead = g.ndim - len(shape)
    ones = tuple(i + lead for i, n in enumerate(shape) if n == 1 and g.shape[i + lead] != 1)
    leading = g.sum(axis=tuple(range(lead)))
    wrong: dict[str, np.ndarray | None] = {
        "you returned grad unchanged: sum over the axes broadcasting added or stretched":
            g if lead and ones else None,
        "the axes where shape has 1 (and grad does not) were not summed: sum them too, with "
        "keepdim=True": leading if ones else None,
        "the size-1 axes were summed without keepdim=True: their 1s must stay in the shape":
            g.sum(axis=tuple(range(lead)) + ones) if ones else None,
        "the leading axes were not summed away: grad has grad.ndim - len(shape) axes more than "
        "shape, the FIRST ones (broadcasting lines shapes up from the right)":
            g.sum(axis=ones, keepdims=True) if lead else None,
    }
    if lead:
        trailing = g.sum(axis=tuple(range(g.ndim - lead, g.ndim)))  # the last axes, wrongly
        wrong["summed the wrong axes: the leading axes are the FIRST grad.ndim - len(shape) "
              "ones (broadcasting lines shapes up from the right)"] = trailing
    if lead or ones:
        mean = g.mean(axis=tuple(range(lead))) if lead else g
        wrong["averaged instead of summed: broadcasting copies each number, so its gradient is "
              "the SUM of the copies' gradients"] = mean.mean(
                  axis=tuple(o - lead for o in ones), keepdims=True) if ones else mean
    return wrong


def check_sum_to(sum_to: Callable[..., Any], salt: int) -> None:
    """The student's ``sum_to`` on every broadcast pair of the draw ``salt``."""
    gen = rng(salt)
    for shape, big in broadcast_pairs(gen):
        g = tensor(gen, big)
        what = f"sum_to(grad of shape {big}, {shape})"
        got = answer_of(calling(sum_to, what, g, shape), what)
        want = array(g).sum(axis=tuple(range(len(big) - len(shape))))
        axes = tuple(i for i, n in enumerate(shape) if n == 1 and big[i - len(shape)] != 1)
        want = want.sum(axis=axes, keepdims=True) if axes else want
        compare(got, want.reshape(shape), what, sum_to_mistakes(array(g), shape))


# -- sum and mean backward ------------------------------------------------------------------------
def reduction_mistakes(g: np.ndarray, shape: Shape, kept: Shape,
                       mean: bool) -> dict[str, np.ndarray | None]:
    """What the usual wrong ``sum_backward`` / ``mean_backward`` return."""
    n = math.prod(shape) // math.prod(kept)
    total = math.prod(shape)
    right = np.broadcast_to(g.reshape(kept), shape)
    wrong: dict[str, np.ndarray | None] = {}
    if mean:
        wrong[f"you forgot to divide by n, the number of elements averaged ({n})"] = right
        if total != n:
            wrong[f"divided by x.numel() ({total}) instead of by the number of elements "
                  f"averaged ({n} = the product of the averaged axes' sizes)"] = right / total
        wrong[f"multiplied by n ({n}) instead of dividing by it"] = right * n
    try:
        plain = np.broadcast_to(g / n if mean else g, shape)
    except ValueError:
        plain = None
    if plain is not None and g.shape != kept:
        wrong["the summed axes were not put back before expanding (keepdim=False dropped them): "
              "reshape grad to kept first, or it lines up with the wrong axes"] = plain
    if not mean:
        wrong[f"you divided by n ({n}): that is the mean's backward, a sum passes the gradient "
              "on unchanged"] = right / n
    return wrong


EXPAND_HINT = ("grad has the reduction's shape: reshape grad to kept (the summed axes put back as "
               "1s) before you expand it to shape")


def check_reduction(backward: Callable[..., Any], mean: bool, salt: int) -> None:
    """The student's ``sum_backward`` (or ``mean_backward``) on every case of the draw ``salt``."""
    gen = rng(salt)
    name = "mean_backward" if mean else "sum_backward"
    for shape, dim, keepdim in reduction_cases(gen):
        kept, out = kept_shape(shape, dim), reduced_shape(shape, dim, keepdim)
        g = tensor(gen, out)
        what = (f"{name}(grad of shape {out}, {shape}, {kept}) for x.{'mean' if mean else 'sum'}"
                f"({'' if dim is None else f'dim={dim}, keepdim={keepdim}'})")
        got = answer_of(calling(backward, what, g, shape, kept, hint=EXPAND_HINT), what)
        n = math.prod(shape) // math.prod(kept)
        want = np.broadcast_to(array(g).reshape(kept), shape) / (n if mean else 1)
        compare(got, want, what, reduction_mistakes(array(g), shape, kept, mean))


# -- matmul ---------------------------------------------------------------------------------------
def matmul_mistakes(g: np.ndarray, a: np.ndarray, b: np.ndarray,
                    side: str) -> dict[str, np.ndarray | None]:
    """What the usual wrong ``grad_a`` (side "a") or ``grad_b`` return, where the shapes allow."""
    def product(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
        return x @ y if x.shape[-1] == y.shape[0] else None

    if side == "a":
        return {"grad_a and grad_b are swapped: what you return for a is b's gradient":
                product(a.T, g),
                "b was not transposed: grad_a needs b with its rows and columns exchanged":
                product(g, b),
                "the operands are in the wrong order: in grad_a, grad is the left factor (a "
                "matrix product does not commute)": product(b.T, g),
                "grad was transposed where b should be, in grad_a": product(g.T, b),
                "that is grad_a transposed: check which factor comes first, and which one is "
                "transposed": product(b, g.T)}
    return {"grad_a and grad_b are swapped: what you return for b is a's gradient":
            product(g, b.T),
            "a was not transposed: grad_b needs a with its rows and columns exchanged":
            product(a, g),
            "the operands are in the wrong order: in grad_b, grad is the right factor (a "
            "matrix product does not commute)": product(g, a.T),
            "grad was transposed where a should be, in grad_b": product(a, g.T),
            "that is grad_b transposed: check which factor comes first, and which one is "
            "transposed": product(g.T, a)}


CHAIN = ("the shapes must chain: grad is n×m, a is n×k and b is k×m; each gradient has its "
         "input's shape, and (p×q) @ (q×r) needs the inner sizes to agree")


def check_matmul(matmul_backward: Callable[..., Any], salt: int) -> None:
    """The student's ``matmul_backward`` on every product of the draw ``salt``, with both
    gradients needed, then only one (the other operand ``None``)."""
    gen = rng(salt)
    for n, k, m in matrix_cases(gen):
        a, b, g = tensor(gen, (n, k)), tensor(gen, (k, m)), tensor(gen, (n, m))
        what = f"matmul_backward(grad {n}×{m}, a {n}×{k}, b {k}×{m})"
        result = calling(matmul_backward, what, g, a, b, hint=CHAIN)
        expect(isinstance(result, tuple) and len(result) == 2,
               f"{what} returned {type(result).__name__}, expected a pair (grad_a, grad_b)")
        for side, got, want in (("a", result[0], array(g) @ array(b).T),
                                ("b", result[1], array(a).T @ array(g))):
            label = f"grad_{side} of {what}"
            compare(answer_of(got, label), want, label,
                    matmul_mistakes(array(g), array(a), array(b), side))
    check_matmul_one_side(matmul_backward, gen)


def check_matmul_one_side(matmul_backward: Callable[..., Any], gen: np.random.Generator) -> None:
    """``a`` None (b needs no gradient, a was not saved): ``(grad @ bᵀ, None)``; and ``b`` None."""
    n, k, m = matrix_cases(gen)[0]
    a, b, g = tensor(gen, (n, k)), tensor(gen, (k, m)), tensor(gen, (n, m))
    for given, which in (((g, None, b), "a is None: b needs no gradient (a was not saved)"),
                         ((g, a, None), "b is None: a needs no gradient (b was not saved)")):
        what = f"matmul_backward(grad, {'None, b' if given[1] is None else 'a, None'})"
        try:
            result = matmul_backward(*given)
        except NotImplementedError:
            raise
        except Exception as error:  # noqa: BLE001
            raise Mistake(f"{what} raised {type(error).__name__}: {which}; return None for the "
                          "gradient that is not needed, and compute the other") from error
        expect(isinstance(result, tuple) and len(result) == 2,
               f"{what} returned {result!r}, expected a pair")
        needed, unneeded = (0, 1) if given[1] is None else (1, 0)
        expect(result[unneeded] is None and isinstance(result[needed], mg.Tensor),
               f"{what} returned ({type(result[0]).__name__}, {type(result[1]).__name__}): "
               f"{which}, so return {'(grad @ bᵀ, None)' if needed == 0 else '(None, aᵀ @ grad)'}")


# -- gradcheck ------------------------------------------------------------------------------------
def gradcheck(fn: Callable[..., Any], inputs: Sequence[Any], what: str) -> None:
    """``mg.autograd.gradcheck`` on float64 Tensors; its failure is a ``Mistake`` naming
    ``what``."""
    try:
        mg.autograd.gradcheck(fn, tuple(inputs))
    except mg.autograd.GradcheckError as error:
        lines = str(error).splitlines()
        raise Mistake(f"gradcheck fails for {what}: {' '.join(lines[:3])} {replay()}") from None


# -- Jacobians -------------------------------------------------------------------------------------
def random_function(gen: np.random.Generator, n: int, m: int) -> tuple[Callable[..., Any], str]:
    """A random f: R^n -> R^m of a few Tensor ops (its weights are constants), and its formula."""
    w, v = tensor(gen, (m, n)), tensor(gen, (m, n))
    kind = int(gen.integers(0, 3))
    if kind == 0:
        return (lambda x: w @ (x * x).tanh()), "W @ tanh(x * x)"
    if kind == 1:
        return (lambda x: (w @ x).sigmoid() * 2.0 + v @ x.exp()), "2 sigmoid(W @ x) + V @ exp(x)"
    return (lambda x: ((w @ x) * (v @ x)).tanh() - w @ x), "tanh((W @ x) * (V @ x)) - W @ x"


def finite_differences(f: Callable[..., Any], x: Any, eps: float = 1e-6) -> np.ndarray:
    """The m×n Jacobian of ``f`` at ``x`` by central differences."""
    base = array(x)
    columns = []
    for j in range(base.size):
        step = np.zeros_like(base)
        step[j] = eps
        plus = array(f(mg.tensor(base + step, dtype="float64")))
        minus = array(f(mg.tensor(base - step, dtype="float64")))
        columns.append((plus - minus) / (2 * eps))
    return np.stack(columns, axis=1)


def reference_jacobian(f: Callable[..., Any], x: Any) -> np.ndarray:
    """``mg.autograd.functional.jacobian(f, x)`` on the core's own pieces, even on a student's
    engine (``--engine``): the answer to compare with is the reference's."""
    from ..course.diagnose import only

    with only():
        return array(mg.autograd.functional.jacobian(f, x))


def backward_nodes(y: Any) -> int:
    """How many backward nodes y's graph has (a leaf's AccumulateGrad not counted)."""
    from ..tracing.nodes import reachable

    return sum(node.name() != "AccumulateGrad" for node in reachable([y.grad_fn]))


def measured_jacobian(jacobian: Callable[..., Any], f: Callable[..., Any],
                      x: Any) -> tuple[np.ndarray, int, int]:
    """The student's ``jacobian(f, x)`` under ``mg.trace()``: (J, backward passes, node visits)."""
    with mg.trace() as trace:
        result = jacobian(f, x)
    visits = [e for e in trace.events if e.kind == "backward"]
    expect(isinstance(result, mg.Tensor), f"jacobian returned {type(result).__name__}, expected "
           "an m×n Tensor")
    return array(result), len({e.pass_no for e in visits}), len(visits)


# -- the holes in place ----------------------------------------------------------------------------
SMALL = 3  # the largest size in place: gradcheck runs one backward pass per output element


def op_cases(hole: str, salt: int) -> list[tuple[str, Callable[..., Any], list[Any]]]:
    """The Tensor ops whose backward asks ``hole``, on the shapes of the draw ``salt``:
    (what, fn, inputs) for gradcheck."""
    gen = rng(salt)
    cases: list[tuple[str, Callable[..., Any], list[Any]]] = []
    if hole == "sum_to":
        for shape, big in broadcast_pairs(gen, SMALL)[:4]:
            a, b = tensor(gen, shape, True), tensor(gen, big, True)
            cases.append((f"a * b + a for a {shape} and b {big}", lambda a, b: a * b + a, [a, b]))
            cases.append((f"b - a.expand{big} for a {shape}",
                          lambda a, b, big=big: b - a.expand(*big), [a, b]))
    elif hole in ("sum_backward", "mean_backward"):
        op = "mean" if hole == "mean_backward" else "sum"
        for shape, dim, keepdim in reduction_cases(gen, SMALL):
            x = tensor(gen, shape, True)
            args = "" if dim is None else f"{dim}, keepdim={keepdim}"
            fn: Callable[..., Any] = (lambda x, op=op: getattr(x, op)()) if dim is None else \
                (lambda x, op=op, d=dim, k=keepdim: getattr(x, op)(d, keepdim=k))
            cases.append((f"x.{op}({args}) for x {shape}", fn, [x]))
    elif hole == "matmul_backward":
        for n, k, m in matrix_cases(gen):
            a, b = tensor(gen, (n, k), True), tensor(gen, (k, m), True)
            cases.append((f"a @ b for a {n}×{k}, b {k}×{m}", lambda a, b: a @ b, [a, b]))
        cases.append(("a @ b, only a requiring grad", lambda a: a @ b.detach(), [a]))
        cases.append(("a @ b, only b requiring grad", lambda b: a.detach() @ b, [b]))
    return cases


def in_place(path: Path, holes: Sequence[str], salt: int, timeout: float = 60.0) -> None:
    """Gradcheck the Tensor ops on the student's ``holes`` (from the file ``path``), each hole
    alone in place of the core's, in a new process run as ``--engine`` runs; ``Mistake`` for the
    first case that fails, or when the student's function was never called."""
    with tempfile.TemporaryDirectory(prefix="mg2-u3-") as folder:
        shim = Path(folder) / "student_holes.py"
        shim.write_text(
            "from micrograd2.exercises.harness import load_module\n"
            f"_m = load_module(__import__('pathlib').Path({str(path)!r}), 'u3_student_holes')\n"
            + "".join(f"{h} = _m.{h}\n" for h in holes), encoding="utf-8")
        env = {**os.environ, "MICROGRAD2_REFERENCE": "1", "MICROGRAD2_ENGINE": folder,
               SEED_ENV: str(run_seed())}
        done = subprocess.run([sys.executable, "-m", __name__, json.dumps([list(holes), salt])],
                              env=env, capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise Mistake(f"running the Tensor ops on your {', '.join(holes)} failed: {tail}")
    report = json.loads(lines[-1])
    if report["failed"]:
        raise Mistake(f"with your {report['hole']} in place of the core's: {report['failed']}")
    for hole in holes:
        expect(report["calls"].get(hole, 0) > 0,
               f"your {hole} was never called by the Tensor ops: is it named {hole}, at the top "
               "level of your file?")


def shape_problem(hole: str, args: tuple[Any, ...], result: Any) -> str:
    """What is wrong with the shape of what ``hole`` returned for ``args`` (``""``: nothing), so
    that the engine's ops never meet a gradient of the wrong shape."""
    def shape(x: Any) -> Any:
        return None if x is None else tuple(getattr(x, "shape", ()))

    if hole == "matmul_backward":
        grad, a, b = args
        want = (None if b is None else (grad.shape[0], b.shape[0]),
                None if a is None else (a.shape[1], grad.shape[1]))
        got = tuple(shape(r) for r in result) if isinstance(result, tuple) else shape(result)
    else:
        want, got = tuple(args[1]), shape(result)
    return "" if got == want else (f"your {hole} returned a gradient of shape {got} where the "
                                   f"engine needs {want} (the other tests name the mistake)")


def _in_place_main(holes_wanted: list[str], salt: int) -> dict[str, Any]:
    """In the new process: each hole alone in place, gradcheck on its op cases."""
    from ..autograd.pieces import using
    from ..course import engine as course_engine
    from ..tensors import pieces as tensor_pieces

    engine = course_engine.load(os.environ[course_engine.VARIABLE])
    calls: dict[str, int] = {}
    for hole in holes_wanted:
        if hole not in engine.done:
            return {"hole": hole, "failed": f"{hole} is not filled (still the stub)", "calls": {}}
        counted: dict[str, Any] = {hole: _counted(hole, engine.functions[hole], calls)}
        alone = dataclasses.replace(tensor_pieces.REFERENCE, **counted)
        with using(mg.Tensor, alone):
            for what, fn, inputs in op_cases(hole, salt):
                try:
                    gradcheck(fn, inputs, what)
                except Exception as error:  # noqa: BLE001 - the finding
                    first = (str(error).splitlines() or [""])[0]
                    said = first if isinstance(error, Mistake) else \
                        f"{what} raised {type(error).__name__}: {first}"
                    return {"hole": hole, "calls": calls, "failed": said}
    return {"hole": ", ".join(holes_wanted), "failed": "", "calls": calls}


def _counted(hole: str, student: Callable[..., Any], calls: dict[str, int]) -> Callable[..., Any]:
    """The student's ``hole`` as the Tensor engine's piece: each call counted, and a gradient of
    the wrong shape refused at once (``shape_problem``)."""
    def counted(*args: Any) -> Any:
        if hole == "matmul_backward":
            args = args[:3]  # the engine also passes the inputs' layouts, which the student's omits
        calls[hole] = calls.get(hole, 0) + 1
        result = student(*args)
        problem = shape_problem(hole, args, result)
        if problem:
            raise Mistake(problem)
        return result

    return counted


if __name__ == "__main__":
    wanted, salt_arg = json.loads(sys.argv[1])
    print(json.dumps(_in_place_main(wanted, int(salt_arg))))
