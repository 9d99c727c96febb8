"""The list of classroom exercises, by unit: id, module, title, lesson, goal, hints and alias.

NOTE [Declaring an exercise]
A unit is one ``Unit(...)`` in ``UNITS`` (U0 on paper … U5 the capstone); an
exercise is one ``Exercise(unit, index, module, title, lesson, goal, hints)``
in ``EXERCISES``, kept in unit order.  Its id is ``"<unit>.<index>"``
(``"U2.1"``); ``alias`` is its number from before the units (1-9), so
``exercise check 3`` still means U2.1.  Each exercise has a stub,
``sources/<module>.py`` (generated from the model solution, which is not
installed: ``stubs.py``), and one public test file ``tests/test_<module>.py``
marked ``<unit>`` and ``<unit>_<index>`` for pytest (``pytest -m u2_1``).
A unit without exercises is not listed anywhere.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"  # the stubs a workspace gets (no solution in them)
TESTS = HERE / "tests"
PYTEST_INI = HERE / "pytest.ini"
README_TEMPLATE = HERE / "WORKSPACE_README.md"


@dataclass(frozen=True)
class Unit:
    """One unit of the course: ``U2``, its theme and the hours it is planned for."""

    key: str
    theme: str
    hours: float


UNITS: tuple[Unit, ...] = (  # hours: the estimate of docs/course_plan.md (tests/test_course_plan.py)
    Unit("U0", "on paper: gradients by hand, forward vs reverse mode", 1),
    Unit("U1", "record: a Value from scratch, Functions, ctx and what forward saves", 3.5),
    Unit("U2", "walk: topological order, backprop, accumulation", 3.5),
    Unit("U3", "tensors: broadcasting, reductions, matmul's VJP", 2.5),
    Unit("U4", "beyond: higher order, hooks, checkpointing, forward mode", 3.5),
    Unit("U5", "capstone: training on your engine's pieces", 4.5),
)


@dataclass(frozen=True)
class Exercise:
    """One exercise: its unit and place in it, what the student writes, after which lesson, and
    hints from gentle to explicit (``alias``: its number from before the units)."""

    unit: str
    index: int
    name: str  # the module the student edits, e.g. "ex01_mul_sum"
    title: str
    lesson: int
    goal: str
    hints: tuple[str, ...]
    alias: int | None = None

    @property
    def id(self) -> str:
        """``U2.1``: how the CLI, the table and the JSON report name it."""
        return f"{self.unit}.{self.index}"

    @property
    def marker(self) -> str:
        """The pytest marker of its tests: ``pytest -m u2_1``."""
        return f"{self.unit.lower()}_{self.index}"

    @property
    def unit_marker(self) -> str:
        """The pytest marker of its unit's tests: ``pytest -m u2``."""
        return self.unit.lower()

    @property
    def filename(self) -> str:
        return f"{self.name}.py"

    @property
    def stub_file(self) -> Path:
        """The stub a workspace gets (the model solution is not installed)."""
        return SOURCES / self.filename

    @property
    def test_file(self) -> Path:
        """The public tests the grader runs."""
        return TESTS / f"test_{self.filename}"

    @property
    def test_count(self) -> int:
        """How many tests its public test file holds."""
        return count_tests([self.test_file])


# The engine exercises whose sheet only states the task: the student writes the hole's module in
# engine/ (classroom.py's NOTE [To do]; ``exercise list`` and the workspace's README name it).
ENGINE_FILES = {"U1.3": ("engine/u1_record.py",), "U2.3": ("engine/u2_walk.py",)}


def student_files(exercise: Exercise) -> tuple[str, ...]:
    """The workspace files the student writes for ``exercise``: its own module, or for an engine
    exercise the hole's module in engine/ (``ENGINE_FILES``)."""
    return ENGINE_FILES.get(exercise.id, (exercise.filename,))


def count_tests(files: list[Path]) -> int:
    """How many ``def test_`` functions the files hold (what the table's "tests" column counts)."""
    lines = [line for path in files for line in path.read_text(encoding="utf-8").splitlines()]
    return sum(line.startswith("def test_") for line in lines)


EXERCISES: tuple[Exercise, ...] = (
    Exercise(  # U0's graph is drawn from the file's SEED and graded by exercises/paper.py
        "U0", 1, "u0_gradients", "Gradients on paper", 1,
        "work out dL/dv by hand for every value of a small random graph, a value used twice included",
        (
            "Start from dL/dL = 1 and go up the lines from the last: a value's gradient needs only the "
            "gradients of the values that use it, which you have already found.",
            "Each use of v in c = op(v, ...) sends back dL/dc × ∂c/∂v; a value used by two ops gets "
            "the two added.  tanh's and exp's derivatives are written with their OUTPUTS: 1 − t², y.",
            "Write expressions, not numbers: for k = g * h, `dL[\"h\"] = dL[\"k\"] * g`; for g used in "
            "k = g * h and L = k + g, `dL[\"g\"] = dL[\"k\"] * h + dL[\"L\"]`; for d = a ** 3, "
            "`dL[\"a\"] = dL[\"d\"] * 3 * a ** 2`.",
        ),
    ),
    Exercise(
        "U0", 2, "u0_modes", "Forward vs reverse mode, counted", 1,
        "predict the passes and ops of forward and reverse mode for f: R^n -> R; the tests run both",
        (
            "A dual number x + ẋε carries the derivative along ONE direction.  How many directions does "
            "the whole gradient of f: R^n -> R need?  And how many outputs does one backward walk start "
            "from?",
            "Forward mode: one pass per input, and every pass evaluates all N ops (on dual numbers).  "
            "Reverse mode: one forward pass, then ONE backward pass that calls each of the N nodes once "
            "and reaches every input.  Which of the two grows with n?",
            "Count passes first, then ops: every pass, of either mode, calls each of the N ops "
            "once, so its ops are its passes times N.  Forward mode needs one pass per input "
            "direction; reverse mode one pass per output, whatever n is.  cheaper_mode compares "
            "the two counts of passes, n against m.",
        ),
    ),
    Exercise(  # micrograd-sized, the whole engine the student's own; checked by value_checks.py
        "U1", 0, "u1_value_from_scratch", "A Value from scratch", 2,
        "write a micrograd-sized Value: data, grad, _backward closures for +, * and tanh, and the "
        "order backward() calls them in; compared with micrograd2 on the article's blocks 1-2",
        (
            "Each op makes a new Value that remembers its inputs (_prev) and gets a closure, "
            "_backward, that knows how to send the new Value's gradient on to them.  It cannot run "
            "when the op runs: out.grad is only known once everything computed from out has sent "
            "its share.  What must backward() do first, and in which order must the closures run?",
            "Inside an op, define _backward after out exists, so it can read out.grad later.  "
            "Chain rule: an input receives its local derivative (∂out/∂input: 1 for +, the OTHER "
            "input for *, 1 − t² for tanh with t the output) times out.grad.  A Value used twice "
            "(x*x, or h in h*h + h) receives from each use, so the closure adds, never assigns.  "
            "The order: the root first, and every Value before the Values it was computed from.",
            "The idea is a depth-first post-order, reversed: a recursive helper visits a Value's "
            "_prev before appending the Value itself, skips a Value already visited (a set), and the "
            "finished list is reversed so the root comes first.  If a test names a value used twice, "
            "the line to change is the `.grad` line of each _backward (it must add into .grad); if "
            "the root's gradient is 0, the first line of backward() (seed the root with 1.0); if it "
            "names the order, the line that returns the list (the reversal).",
        ),
    ),
    Exercise(
        "U1", 1, "ex01_mul_sum", "Mul and Sum as Functions", 2,
        "write the forward and backward of a product and of an n-input sum",
        (
            "forward receives plain floats and returns a float; backward receives the upstream "
            "gradient and returns one gradient per forward input, in the same order.",
            "For z = a·b the chain rule gives ∂L/∂a = ∂L/∂z · b and ∂L/∂b = ∂L/∂z · a, so backward "
            "needs a and b: keep them with ctx.save_for_backward(a, b) in forward.",
            "Mul.backward reads a and b back from ctx.saved_tensors and returns a pair: for each "
            "input, the upstream grad times the OTHER input.  Sum.forward leaves the number of "
            "inputs on ctx; Sum.backward returns a tuple of that length, each entry the upstream "
            "grad unchanged (a sum's local derivative is 1 for every term).",
        ),
        alias=1,
    ),
    Exercise(
        "U1", 2, "ex02_activations", "Tanh, Exp and Sigmoid backward", 2,
        "write the backward of three activations from their saved outputs",
        (
            "Each forward saved its own output (t, e or s).  The derivative of each of these "
            "functions can be written with the output alone.",
            "In terms of the saved outputs: with t = tanh(x), d t/dx = 1 − t²; with e = eˣ, d e/dx = e; "
            "with s = σ(x), d s/dx = s·(1 − s).  No need to compute tanh, exp or σ again: multiply the "
            "upstream gradient by these (the chain rule).",
            "Each backward is: unpack the saved output (ctx.saved_tensors is a tuple, even of "
            "one), then return the upstream grad times hint 2's local derivative of that output.  "
            "The usual slip is to use the input x, or to call tanh or exp again: the saved output "
            "is all you need.",
        ),
        alias=2,
    ),
    Exercise(  # an engine hole: the student writes engine/u1_record.py (exercises/course_units.py)
        "U1", 3, "u1_engine_record", "Record: requires_grad spreading, on your engine", 1,
        "fill the hole record in engine/u1_record.py: what an op records, and its edges; lesson 1 "
        "then runs on your engine",
        (
            "record(fn, inputs, output, ctx) answers one question per op: is it recorded, and where do "
            "its input gradients go?  It is recorded only in grad mode and only when at least one input "
            "requires grad; a plain number (3.0) never does.",
            "Return None for an op that is not recorded: `not mg.is_grad_enabled()`, or no input with "
            "`isinstance(x, Variable) and x.requires_grad`.  Otherwise return a tuple of one edge per "
            "input, in order; an edge is (node, input_nr).",
            "The line that decides is the test \"recorded at all?\": grad mode on AND some input "
            "that is a Variable requiring grad (a float never is).  When recorded, return one "
            "edge per input, in order: gradient_edge(x) for an input that needs a gradient, the "
            "empty edge (None, 0) for one that does not, so that edge i still belongs to input i.",
        ),
    ),
    Exercise(
        "U2", 1, "ex03_topo_order", "Reverse topological order, without recursion", 2,
        "order the graph's nodes so that each comes after all its consumers, on a 10^5-deep chain too",
        (
            "A node may be visited only when every node that uses it (every consumer) has been visited: "
            "count, for each node, how many edges of next_functions point at it.",
            "Kahn's algorithm: a first walk with an explicit stack counts the incoming edges of every "
            "reachable node; then start from root.grad_fn and emit a node when its count drops to 0.  "
            "A Python list as a stack (append/pop) replaces recursion.",
            "Two loops, each over a list used as a stack.  The first counts, for every node "
            "reachable from root.grad_fn, the next_functions edges that point at it (push a node "
            "the first time you meet it).  The second pops ready nodes into the order and pushes "
            "a node when its count drops to 0, never before: that is the line a visited-set or "
            "recursive version gets wrong on a diamond.",
        ),
        alias=3,
    ),
    Exercise(
        "U2", 2, "ex04_backprop", "Backpropagation by hand", 2,
        "walk the nodes in order, call each node's backward and add up the gradients",
        (
            "Keep a dictionary node → gradient received so far, starting with {root.grad_fn: 1.0}.  "
            "A node's gradient is complete when the walk reaches it.",
            "A node used twice (x * x, or a non-leaf h used by two ops) receives one gradient per use: "
            "they must be ADDED (+=), not assigned (=).  A leaf's .grad accumulates across backward calls too.",
            "Follow the order, popping each node's gradient out of the dictionary.  The line that "
            "makes a value used twice right is the update of a child's entry: ADD what the edge "
            "delivers to what the child has already received.  At an AccumulateGrad node the walk "
            "ends in its variable: add to leaf.grad, which may hold a gradient from an earlier "
            "backward, or set it if it is None.",
        ),
        alias=4,
    ),
    Exercise(  # engine holes: the student writes engine/u2_walk.py (exercises/course_units.py)
        "U2", 3, "u2_engine_walk", "Walk: the backward pass of your engine", 4,
        "fill count_dependencies, walk and accumulate in engine/u2_walk.py; lessons 2-4 then run on "
        "your engine",
        (
            "U2.1 and U2.2 in the engine's own shape: count_dependencies is U2.1's first walk (edges "
            "into each node, by an explicit stack); walk is Kahn's algorithm with visit(node, grad) in "
            "place of local_backward; accumulate is `.grad` plus the new gradient.",
            "walk: `deps = count_dependencies(roots)`; a dict node → gradient received so far, seeded "
            "with the roots' grads; the ready nodes (count 0) in a heap of (-node.sequence_nr(), "
            "id(node), node).  Pop one, `grads_in = visit(node, buffer.pop(node, None))`, and for each "
            "edge: add its gradient into the buffer (if not None), count the edge down, push at 0.",
            "walk is U2.1's second loop with a buffer of gradients: a heap keyed by "
            "-node.sequence_nr() gives the ready node created last.  Pop it, take its gradient "
            "out of the buffer, and give both to visit, which returns one gradient per edge; add "
            "each into the child's entry (skip None), count the child down, push it at 0.  "
            "count_dependencies is U2.1's first loop; accumulate is one line: the new gradient if "
            ".grad is None, else their sum.",
        ),
    ),
    Exercise(  # U3's shapes are drawn per run; the holes are gradchecked in place (tensor_checks)
        "U3", 1, "u3_sum_to", "sum_to: broadcasting's backward", 9,
        "sum a broadcast gradient down to the input's shape, the hole every broadcasting op calls",
        (
            "Broadcasting copies an input along new leading axes and along its axes of size 1; each "
            "copy's gradient comes back, and the input's gradient is the SUM of its copies'.  Which "
            "axes of grad were made by copying?",
            "Shapes line up from the RIGHT: grad has lead = grad.ndim - len(shape) extra axes, the "
            "first ones, summed away entirely.  Then an axis i where shape[i] == 1 but grad's is "
            "larger was stretched: sum it with keepdim=True so the 1 stays.",
            "Two sums, in this order.  First the leading axes: grad has grad.ndim - len(shape) "
            "more than shape, and they go entirely (no keepdim).  Then, position by position, the "
            "axes where shape has 1 and grad does not: summed with keepdim=True.  A result of the "
            "right shape but the wrong values means an axis was averaged or not summed.",
        ),
    ),
    Exercise(
        "U3", 2, "u3_reductions", "The reductions' backward: sum and mean", 9,
        "write sum_backward and mean_backward for every dim, negative dims and keepdim both ways",
        (
            "Each element of x went into exactly one element of the sum, so it gets that element's "
            "upstream gradient: the backward copies grad back over the summed axes.  A mean also "
            "divides by how many elements it averaged.",
            "With keepdim=False the summed axes are gone from grad, and expanding it straight to "
            "shape would line it up with the wrong axes.  kept is the reduction's shape with those "
            "axes as 1s: reshape to it first.  The mean's n is prod(shape) // prod(kept), not "
            "x.numel().",
            "Both are one reshape and one expand: grad reshaped to kept puts back, as 1s, the "
            "axes keepdim=False removed; expanding that to shape copies it over the reduced axes. "
            " mean_backward also divides by the number of elements each output averaged: the size "
            "of shape over the size of kept, which is x.numel() only when every axis was reduced.",
        ),
    ),
    Exercise(
        "U3", 3, "u3_views", "Reshape and Transpose as your own Functions", 9,
        "write two custom Tensor Functions whose backward moves the gradient back where it came from",
        (
            "A view moves numbers without changing them; its Jacobian is a permutation, so the "
            "backward is the inverse move applied to grad.  forward receives NumPy arrays and "
            "returns one; backward receives a Tensor and returns one gradient per input.",
            "Reshape's backward reshapes grad to the INPUT's shape (keep x.shape on ctx in forward). "
            "Swapping two axes twice gives back the original: Transpose's backward swaps the same "
            "two.  NumPy's x.transpose(a, b) wants a whole permutation: use np.swapaxes.",
            "Reshape: forward keeps the input's shape on ctx before it reshapes; backward "
            "reshapes grad back to that shape.  Transpose: forward keeps the two axes on ctx and "
            "swaps them with np.swapaxes; backward swaps the same two axes of grad.  Each "
            "backward returns one value per forward input after ctx: None for every argument that "
            "is not a Tensor (the shape, the axes).",
        ),
    ),
    Exercise(
        "U3", 4, "u3_matmul", "matmul's vector-Jacobian product", 9,
        "write matmul_backward: grad_a and grad_b of a @ b without building the Jacobian",
        (
            "Write C[i, j] = Σ_p A[i, p] B[p, j] and differentiate L by A[i, p]: "
            "∂L/∂A[i, p] = Σ_j G[i, j] B[p, j].  Which matrix product of G and B is that sum?",
            "Let the shapes guide you: ∂L/∂A has A's shape n×k and G is n×m, so G must meet a m×k "
            "matrix: Bᵀ.  Likewise ∂L/∂B (k×m) is a k×n matrix times G: Aᵀ.  When a is None (b "
            "needs no gradient) return None for grad_b, and the same the other way round.",
            "Let the shapes lead: for a (m×n) @ b (n×p), grad is m×p; a's gradient must be m×n "
            "and b's n×p, and each is ONE matmul of grad with the other input transposed (.t()), "
            "on the side where the shapes fit.  An input passed as None needs no gradient: return "
            "None in its place.",
        ),
    ),
    Exercise(
        "U3", 5, "u3_jacobian", "A full Jacobian from backward passes, counted", 9,
        "build the m×n Jacobian of f: R^n -> R^m from m backward passes, and predict their cost",
        (
            "A backward pass seeded with v computes vᵀJ.  Which v gives row i of J?  And how many "
            "rows has the Jacobian of f: R^n -> R^m?",
            "y = f(x) once; for i in range(m): one-hot v = e_i, then mg.autograd.grad(y, x, "
            "grad_outputs=v, retain_graph=True) gives row i (keep the graph: it is walked again).  "
            "Every pass visits each backward node of y's graph once.",
            "Row i of J is the gradient of y seeded with the one-hot vector e_i: one "
            "mg.autograd.grad per output, with grad_outputs set to that float64 Tensor and "
            "retain_graph=True (the graph is walked again).  Stack the rows into a float64 "
            "Tensor.  jacobian_cost: one backward pass per output, and each pass visits every "
            "node once.",
        ),
    ),
    Exercise(
        "U4", 1, "u4_double_backward", "Double backward and Hessian-vector products", 10,
        "write a backward in Value ops so create_graph records it, then H·v by double backward "
        "(U4 runs on the reference engine, and on your own engine's holes with --engine DIR)",
        (
            "Under create_graph=True a Value's backward receives Values (floats otherwise), and its "
            "ops are recorded: the gradient it returns has a grad_fn, so it can be differentiated "
            "again.  math.sin(value) turns a Value into a plain float: the graph stops there.",
            "sin(x): `x.sin() if isinstance(x, mg.Value) else math.sin(x)` (cos, exp alike).  "
            "XSin saves x; (x·sin x)' = sin x + x·cos x.  Softplus saves x; its derivative is "
            "1 / (1 + e⁻ˣ).  Write both with YOUR sin, cos, exp.  H·v is the gradient of g·v, g "
            "the gradient taken with create_graph=True.",
            "XSin.backward reads x back and returns grad times (x·sin x)' written with the "
            "module's sin and cos, so that under create_graph a Value stays a Value (Softplus "
            "alike).  hvp: fresh leaves, their gradients with create_graph=True, the scalar Σ "
            "gᵢ·vᵢ over the gradients that are not None, and ITS gradient; when there is nothing "
            "to differentiate (no terms, or no grad_fn), H·v is all zeros, and a None gradient "
            "counts as 0.0.",
        ),
    ),
    Exercise(
        "U4", 2, "u4_hooks", "Hooks: clipping and a log of gradient norms", 10,
        "clip gradients with register_hook and log each gradient's norm by name, in firing order "
        "(U4 runs on the reference engine, and on your own engine's holes with --engine DIR)",
        (
            "v.register_hook(fn) calls fn(grad) once v's gradient is complete (all its uses summed), "
            "before the walk goes below v.  What fn returns replaces the gradient; None leaves it.  "
            "Hooks on one Value run in the order registered.",
            "The clamp: max(-limit, min(limit, grad)), RETURNED.  The recorder appends and returns "
            "None.  A lambda made in a loop reads the loop variable when it runs, after the loop: "
            "all hooks would log the last name.  Make each hook in a function that takes the name.",
            "clip_gradients registers, on each Value, a hook made by a function that takes the "
            "limit, and returns the handles.  record_norms keeps one list; for each (name, value) "
            "it registers a hook made by a helper that takes the name (so each hook keeps its "
            "own), appending (name, |grad|) and returning None.  Return the list at once: "
            "backward fills it.",
        ),
    ),
    Exercise(
        "U4", 3, "u4_checkpoint", "Checkpointing, its memory measured", 10,
        "write checkpoint(f, *inputs) that keeps one node and recomputes f in backward; predict "
        "the nodes it saves (U4 runs on the reference engine, and on your own engine's holes "
        "with --engine DIR)",
        (
            "Forward: run f under mg.no_grad() on Values made from the floats forward receives, "
            "save only the inputs, return the result's .data.  Backward: run f AGAIN on fresh "
            "leaves that require grad, and backpropagate grad through that new graph.",
            "A backward runs with grad mode off: recompute under `with mg.enable_grad():`, then "
            "`mg.autograd.grad(out, leaves, grad, allow_unused=True)`.  Return one gradient per "
            "forward input: None for f, None where ctx.needs_input_grad is False.  A chain of N "
            "ops keeps N nodes; the checkpoint keeps its own node only.",
            "forward keeps f on ctx, saves the inputs, and computes f under mg.no_grad() on plain "
            "Values, so no node of f survives.  backward rebuilds leaves from the saved inputs "
            "(requiring grad), runs f again under mg.enable_grad(), and takes mg.autograd.grad of "
            "it with grad as the seed.  It returns None first (for f), then one gradient per "
            "input, None where ctx.needs_input_grad says so.  predicted_nodes compares the plain "
            "chain's nodes with one.",
        ),
    ),
    Exercise(
        "U4", 4, "u4_forward_mode", "Forward mode with dual numbers", 10,
        "write Dual (+, *, tanh, exp), jvp, and the Jacobian by forward and by reverse mode; the "
        "tests count the passes (U4 runs on the reference engine, and on your own engine's holes "
        "with --engine DIR)",
        (
            "A Dual carries a value and its derivative along one direction.  Each op computes both: "
            "the value as usual, the tangent by the chain rule.  A plain number is a Dual with "
            "tangent 0.",
            "(a + ȧε)(b + ḃε) = ab + (ȧb + aḃ)ε; tanh's tangent is (1 − t²)·ȧ with t = tanh a; "
            "exp's is eᵃ·ȧ.  jvp: f on Duals(x_i, v_i).  Forward mode's Jacobian: one jvp per "
            "input, along that input's axis (a column each).  Reverse mode's: f once on Values, "
            "one mg.autograd.grad per output (a row each), retain_graph=True.",
            "Each operator first makes a plain number a Dual with tangent 0, then returns a Dual "
            "whose value is the usual result and whose tangent is the product rule (tanh, exp: "
            "the chain rule with their derivative at the value).  jacobian_forward: one jvp per "
            "input, along its unit vector, gives a COLUMN of J.  jacobian_reverse: f once on "
            "leaves, one mg.autograd.grad per output (retain_graph=True) gives a ROW; None counts "
            "as 0.0.",
        ),
    ),
    Exercise(
        "U5", 1, "ex05_grad_accumulation", "Gradient accumulation over micro-batches", 3,
        "fill .grad with the full-batch gradient, one micro-batch graph at a time",
        (
            "backward() adds into .grad: run it once per micro-batch and the gradients sum up.  Start "
            "from clean gradients (p.grad = None).",
            "The batch loss is a mean over all samples; each micro-batch's loss is a mean over its own "
            "samples, so it counts for 1/n_micro of the batch loss.",
            "Clear every .grad first.  Cut the batch into n_micro equal slices; divide each "
            "slice's loss by n_micro BEFORE its backward, so that what adds up in .grad is the "
            "gradient of the batch's mean.  Return the sum of those divided losses' values: the "
            "batch's loss.",
        ),
        alias=5,
    ),
    Exercise(
        "U5", 2, "ex06_detach_target", "A detached target network", 4,
        "compute TD targets that no gradient flows through, and update the target network in place",
        (
            "The target y = r + γ·max Q_target(s′) is a constant for the loss: gradients must reach the "
            "online network only, never the target network.",
            "Compute the target under `with mg.no_grad():` (or call .detach() on it).  For soft_update, "
            "in-place ops on parameters that require grad are only allowed under no_grad.",
            "td_loss: only the target goes inside mg.no_grad() (a done transition's target is r "
            "alone); the squared error with q_net(s) is recorded, and averaged over the batch.  "
            "soft_update: under mg.no_grad(), move each target parameter toward its online twin "
            "IN PLACE (mul_ by 1 - tau, then add_ tau times the online value's data), never by "
            "making a new Value.",
        ),
        alias=6,
    ),
    Exercise(
        "U5", 3, "ex07_custom_function", "Custom Functions that pass gradcheck", 5,
        "write SquareAndDouble (the article's block 5) and Hypot, and check them with gradcheck",
        (
            "forward gets floats; save what backward needs with ctx.save_for_backward (inputs or the "
            "output you return), not as attributes of ctx.  backward returns one gradient per input, "
            "None for an input that is a plain number.",
            "d(2x²)/dx = 4x.  For h = √(a² + b²): ∂h/∂a = a/h and ∂h/∂b = b/h — save a, b and the output h.",
            "SquareAndDouble is the article's block 5 (lesson 5).  Hypot.forward computes h with "
            "math.hypot and saves a, b AND h; backward returns the upstream grad times a/h and "
            "times b/h, each replaced by None where ctx.needs_input_grad says its input is a "
            "plain number.",
        ),
        alias=7,
    ),
    Exercise(
        "U5", 4, "ex08_grad_scaler", "A minimal GradScaler", 6,
        "unscale gradients, skip steps with inf/NaN gradients, and adapt the loss scale",
        (
            "unscale_ divides every gradient by the scale and remembers whether one was inf or NaN; "
            "step unscales (unless already done) and calls optimizer.step() only if all were finite; "
            "update adapts the scale.",
            "update: after a skipped step multiply the scale by backoff_factor and restart the count of "
            "clean steps; after growth_interval clean steps in a row multiply it by growth_factor.  Then "
            "forget this iteration's state (unscaled? found inf?).",
            "unscale_ first refuses a second call since the last update() (the RuntimeError "
            "PyTorch raises, with its words), then multiplies every existing .grad by 1/scale and "
            "remembers whether any came out inf or NaN (math.isfinite).  step unscales only if "
            "unscale_ was not called, and calls optimizer.step() only if nothing was found.  "
            "update applies hint 2's rule.",
        ),
        alias=8,
    ),
    Exercise(
        "U5", 5, "ex09_train_moons", "A training loop on two moons", 7,
        "write train_step and fit so that an MLP separates two moons (95% accuracy)",
        (
            "One step: clear the gradients, compute the loss, backward, optimizer step.  Forgetting the "
            "first part makes the gradients of all past steps pile up.",
            "optimizer.zero_grad() (or model.zero_grad()) must come before loss.backward(), "
            "optimizer.step() after it.  fit builds one SGD optimizer and calls train_step `steps` times.",
            "train_step is four calls in the order of hint 2 (zero_grad, moons_loss, backward, "
            "step), then the loss's number.  fit makes ONE mg.optim.SGD over model.parameters() "
            "with lr and collects what train_step returns, once per step.  A loss that stalls or "
            "climbs usually means the gradients are not cleared before backward.",
        ),
        alias=9,
    ),
    Exercise(  # runs the student's engine/ (U1.3, U2.3) in a new process (exercises/course_units.py)
        "U5", 6, "u5_engine_capstone", "Capstone on your engine", 7,
        "train two moons to 95% with your own engine in place of micrograd2's: your record, walk "
        "and accumulate",
        (
            "This is U5.5's loop (copy your train_step and fit) run with engine/ in place: the tests "
            "start a new process with MICROGRAD2_ENGINE=engine/ and MICROGRAD2_REFERENCE=1, as "
            "--engine does.  Pass U1.3 and U2.3 first: every hole they fill is used.",
            "If one train step differs from micrograd2's own engine, the message names the hole whose "
            "probe differs (course/diagnose.py).  Run `micrograd2 lesson run 2 --engine engine` and "
            "`micrograd2 exercise check U2.3` to see which one, and where.",
            "The code is U5.5's: copy your train_step and fit.  What changes is the engine "
            "underneath, so if U5.5 passes and this does not, the difference is in engine/: the "
            "message names the hole whose probe differs; fix it in U1.3's or U2.3's file and "
            "check that exercise again.",
        ),
    ),
)

IDS = tuple(e.id for e in EXERCISES)
ALIASES = {e.alias: e for e in EXERCISES if e.alias is not None}


def units() -> tuple[Unit, ...]:
    """The units that have exercises, in course order (a unit without any is not listed)."""
    used = {e.unit for e in EXERCISES}
    return tuple(u for u in UNITS if u.key in used)


def get(key: str | int) -> Exercise:
    """Exercise ``key``: an id (``"U2.1"``, any case) or an alias (``3``, ``"3"``); ``KeyError``
    naming the valid ones if there is none."""
    text = str(key).strip()
    if text.isdigit() and int(text) in ALIASES:
        return ALIASES[int(text)]
    for exercise in EXERCISES:
        if exercise.id.lower() == text.lower():
            return exercise
    raise KeyError(f"there is no exercise {text}; valid: {valid_keys()}")


def select(key: str | int) -> tuple[Exercise, ...]:
    """The exercises ``key`` names: a unit (``"U2"``: all of it), an id (``"U2.1"``) or an
    alias (``3``)."""
    text = str(key).strip()
    unit = tuple(e for e in EXERCISES if e.unit.lower() == text.lower())
    return unit or (get(text),)


def valid_keys() -> str:
    """What ``get`` and ``select`` accept, for messages: ``units U1, U2; ids U1.1, U1.2, U2.1;
    aliases 1-3``."""
    aliases = sorted(ALIASES)
    span = f"{aliases[0]}-{aliases[-1]}" if aliases == list(range(aliases[0], aliases[-1] + 1)) \
        else ", ".join(map(str, aliases))
    return (f"units {', '.join(u.key for u in units())}; ids {', '.join(IDS)}"
            + (f"; aliases {span}" if aliases else ""))


def test_files(exercise: Exercise, tests_dir: Path | None = None) -> list[Path]:
    """The test files that grade ``exercise``: its public one, or with ``tests_dir`` (a teacher's
    hidden tests) the files there named like it, ``test_<module>.py`` and ``test_<module>_*.py``."""
    if tests_dir is None:
        return [exercise.test_file]
    stem = f"test_{exercise.name}"
    return sorted(p for p in tests_dir.glob(f"{stem}*.py")
                  if p.is_file() and (p.stem == stem or p.stem.startswith(f"{stem}_")))


def unclaimed_test_files(tests_dir: Path) -> list[Path]:
    """The ``test_*.py`` files of ``tests_dir`` that grade no exercise (misnamed, most likely)."""
    claimed = {p for e in EXERCISES for p in test_files(e, tests_dir)}
    return sorted(p for p in tests_dir.glob("test_*.py") if p not in claimed)


def hint(key: str | int, level: int = 1) -> str:
    """Hint ``level`` of exercise ``key``: from 1, gentle, to the last, which names the idea and
    the line to change."""
    exercise = get(key)
    if not 1 <= level <= len(exercise.hints):
        raise IndexError(f"exercise {exercise.id} has hints 1-{len(exercise.hints)}, not {level}")
    return exercise.hints[level - 1]
