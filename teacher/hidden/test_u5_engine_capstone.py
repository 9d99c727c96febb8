"""Hidden tests of exercise U5.6, the capstone: the training loop's step on a model that already
holds gradients, here and in a new process on the student's engine, never shown.  ``micrograd2
exercise check WORKSPACE --tests teacher/hidden U5.6`` grades with them.
"""
from __future__ import annotations

import json
from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.course_units import diagnosis, engine_folder, run_on_engine
from micrograd2.exercises.harness import close, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_6]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u5_engine_capstone", __file__)


def test_a_step_after_an_earlier_backward_uses_this_steps_gradient(student: ModuleType) -> None:
    X, y = mg.data.make_moons(10, noise=0.1, seed=9)
    model, reference = mg.nn.MLP(2, [4, 1], seed=9), mg.nn.MLP(2, [4, 1], seed=9)
    student.moons_loss(model, X[:4], y[:4]).backward()  # a gradient computed earlier, to log it
    student.train_step(model, mg.optim.SGD(model.parameters(), lr=0.3), X, y)
    opt = mg.optim.SGD(reference.parameters(), lr=0.3)
    opt.zero_grad()
    student.moons_loss(reference, X, y).backward()
    opt.step()
    for p, r in zip(model.parameters(), reference.parameters()):
        expect(close(p.data, r.data, rel=1e-9),
               f"a train step on a model whose .grad held an earlier gradient left {p.label} = "
               f"{show(p.data)}, a step from clean gradients gives {show(r.data)}: clear the "
               "gradients BEFORE the backward, not after the step")


STALE_STEP = """
import json, sys
import micrograd2 as mg
from micrograd2.course.engine import choose_from_environment
from micrograd2.exercises.harness import load_module
choose_from_environment()  # an entry point: the student's engine in place
sheet = load_module(__import__("pathlib").Path(sys.argv[1]), "capstone_sheet")
X, y = mg.data.make_moons(10, noise=0.1, seed=9)
model = mg.nn.MLP(2, [4, 1], seed=9)
sheet.moons_loss(model, X[:4], y[:4]).backward()
sheet.train_step(model, mg.optim.SGD(model.parameters(), lr=0.3), X, y)
print(json.dumps([p.data for p in model.parameters()]))
"""


def test_the_same_step_on_your_engine(student: ModuleType) -> None:
    done = run_on_engine(engine_folder(student), "-c", STALE_STEP, str(student.__file__))
    lines = done.stdout.strip().splitlines()
    expect(done.returncode == 0 and bool(lines), f"the train step on your engine stopped: "
                                                  f"{diagnosis(done)}")
    X, y = mg.data.make_moons(10, noise=0.1, seed=9)
    reference = mg.nn.MLP(2, [4, 1], seed=9)
    opt = mg.optim.SGD(reference.parameters(), lr=0.3)
    student.moons_loss(reference, X, y).backward()
    opt.step()
    for i, (got, want) in enumerate(zip(json.loads(lines[-1]), reference.parameters())):
        expect(close(got, want.data, rel=1e-9),
               f"on your engine, a train step on a model whose .grad held an earlier gradient "
               f"left parameter {i} = {show(got)}; a step from clean gradients gives "
               f"{show(want.data)}")
