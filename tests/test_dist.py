"""The student's install has no answers: `make dist`'s wheel and sdist (tools/dist.py), and the
wheel the playground installs, hold no model solution, solution engine or hidden test, by content.

Every function and method of ``teacher/solutions/``, ``teacher/solution_engine/`` and
``teacher/hidden/`` is looked for in every member of the archives: in each ``.py`` member's code,
in each string literal in it (where the hints and the diagnoses live), and in each other text
member (the README in the metadata).  The archives are built into a temporary folder from a copy of
the checkout (nothing is written into the checkout), or ``dist/`` is reused when it is newer than
every file a build reads.

NOTE [What counts as an answer]
A model solution's answer is what its stub leaves out: the statements between ``# BEGIN SOLUTION``
and ``# END SOLUTION`` (the rest of the file is given code, which the stub ships on purpose).  For
the solution engine and the hidden tests it is each function's whole body, except a hidden test's
helper that the public tests hold too, by the rule below (a shared fixture: what the public tests
hold is public).  Docstrings never count: a stub carries the same one.  Each statement (a compound
one by its header line, ``if lead:``) weighs its tokens as ``ast.unparse`` writes it.  An answer
lighter than MIN_TOKENS (a one-line ``return x``, ``(t,) = ctx.saved_tensors``) gives nothing away
and is not looked for.  An answer is in a text when the statements of it found there weigh at
least MIN_TOKENS and at least FRACTION of the answer: a hint may quote the one line to change, not
most of the answer.  A statement is found when its tokens occur in a row in the text, compared two
ways: as text (whitespace, quote style, backticks and ``;`` aside), and by AST, names kept: the
code of a ``.py`` member, and every piece of a string that parses as Python (the whole string, each
backtick span, each part of a span between ``;``), is also read in its ``ast.unparse`` form, which
drops comments and redundant parentheses, so a copy reformatted or commented is found as well.
ACCEPTED lists the few answers that are public by design, each with its reason.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import re
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

import micrograd2 as mg

ROOT = Path(__file__).resolve().parent.parent
TEACHER = ROOT / "teacher"
TEACHER_FOLDERS = ("solutions", "solution_engine", "hidden")
PUBLIC_TESTS = ROOT / "micrograd2" / "exercises" / "tests"
PLAYGROUND_WHEELS = ROOT / "build" / "playground" / "wheels"
MIN_TOKENS = 12
FRACTION = 0.5
TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\*\*|//|==|!=|<=|>=|->|[^\s\w`;]")
SEP = "\x1f"
BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
COMPOUND_FIELDS = ("body", "orelse", "finalbody", "handlers")

SQUARE_AND_DOUBLE = "teacher/solutions/ex07_custom_function.py::SquareAndDouble"
# Answers that a member holds by design: (answer, member path inside the archive) -> why.  An entry
# that no longer matches fails the test, so the list stays exact.
ACCEPTED = {
    ("teacher/solution_engine/u2_walk.py::count_dependencies", "micrograd2/autograd/engine.py"):
        "the core's own dependency count, the passage the reading path teaches: U2.3 rebuilds the "
        "engine the student has the source of",
    ("teacher/solutions/ex01_mul_sum.py::Mul.forward", "micrograd2/autograd/function.py"):
        "Function's docstring shows how any op is written, with Mul's forward as its example",
    (f"{SQUARE_AND_DOUBLE}.forward", "lessons/05_custom_function.py"):
        "the article's block 5, which lesson 5 quotes and U5.3 starts from",
    (f"{SQUARE_AND_DOUBLE}.backward", "lessons/05_custom_function.py"):
        "the article's block 5, which lesson 5 quotes and U5.3 starts from",
    (f"{SQUARE_AND_DOUBLE}.forward", "lessons/08_beyond.py"):
        "the article's block 5 again, differentiated twice in lesson 8",
    (f"{SQUARE_AND_DOUBLE}.backward", "lessons/08_beyond.py"):
        "the article's block 5 again, differentiated twice in lesson 8",
}


# ── the answers ───────────────────────────────────────────────────────────────────────────────────


def tokens(text: str) -> str:
    """``text`` as a string of tokens, each followed by SEP (quotes made alike)."""
    return "".join(t + SEP for t in TOKEN.findall(text.replace('"', "'")))


@dataclass(frozen=True)
class Statement:
    """One statement of an answer (a compound one by its header line): its tokens and weight."""

    text: str
    weight: int


@dataclass(frozen=True)
class Answer:
    """What one teacher function holds that a student must not get."""

    where: str  # teacher/solutions/u3_sum_to.py::sum_to
    statements: tuple[Statement, ...]

    @property
    def weight(self) -> int:
        return sum(s.weight for s in self.statements)


def lines_of(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Each statement, and each statement inside a compound one, in order."""
    for node in statements:
        yield node
        for field in COMPOUND_FIELDS:
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from lines_of([s for s in inner if isinstance(s, ast.stmt)])


def statement(node: ast.stmt) -> Statement:
    """``node`` as a Statement: a compound statement by its header line only."""
    code = ast.unparse(node)
    text = tokens(code.splitlines()[0] if isinstance(getattr(node, "body", None), list) else code)
    return Statement(text, text.count(SEP))


def without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str):
        return body[1:]
    return body


def functions(tree: ast.AST) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method in ``tree``, nested ones too, with its qualified name."""
    stack: list[tuple[str, ast.AST]] = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not isinstance(child, ast.ClassDef):
                    yield f"{prefix}{child.name}", child
                stack.append((f"{prefix}{child.name}.", child))
            else:
                stack.append((prefix, child))


def solution_blocks(source: str) -> list[range]:
    """The line numbers (from 1) between each BEGIN SOLUTION and its END SOLUTION."""
    blocks, start = [], None
    for number, line in enumerate(source.splitlines(), 1):
        if line.strip().startswith(BEGIN):
            start = number
        elif line.strip().startswith(END) and start is not None:
            blocks.append(range(start + 1, number))
            start = None
    return blocks


def answers_in(path: Path) -> list[Answer]:
    """The answers of one teacher file (NOTE [What counts as an answer])."""
    source = path.read_text(encoding="utf-8")
    blocks = solution_blocks(source) if path.parent.name == "solutions" else None
    found = []
    for name, function in functions(ast.parse(source)):
        lines = [s for s in lines_of(without_docstring(function.body))
                 if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        if blocks is not None:
            lines = [s for s in lines if any(s.lineno in block for block in blocks)]
        answer = Answer(f"{path.relative_to(ROOT).as_posix()}::{name}",
                        tuple(statement(s) for s in lines))
        if answer.weight >= MIN_TOKENS:
            found.append(answer)
    return found


def teacher_answers() -> list[Answer]:
    """Every answer of the teacher's folder, but a hidden test's helper that the public tests hold
    too (a shared fixture: what the public tests hold is public)."""
    answers = [a for folder in TEACHER_FOLDERS for p in sorted((TEACHER / folder).rglob("*.py"))
               for a in answers_in(p)]
    helpers = [a for a in answers if "/hidden/" in a.where
               and not a.where.split("::")[-1].split(".")[-1].startswith("test_")]
    find = Finder(helpers)
    shared = {a.where for p in PUBLIC_TESTS.glob("*.py")
              for t in texts_of(p.name, p.read_text(encoding="utf-8")) for a in find(t.text)}
    return [a for a in answers if a.where not in shared]


# ── the texts of an archive ───────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Text:
    """One place in an archive an answer could hide in: a member's code, a string literal in it,
    or a text member.  ``text``: its tokens, then those of its ``ast.unparse`` form (SEP-led)."""

    where: str  # micrograd2/exercises/catalog.py, string at line 190
    text: str


CODE_SPAN = re.compile(r"`([^`]+)`")


def canonical(text: str) -> str:
    """The tokens of the ``ast.unparse`` form of each piece of ``text`` that parses as Python: all
    of it, each backtick span, and each part of a span between ``;``."""
    pieces = [text]
    for span in CODE_SPAN.findall(text):
        pieces += [span, *span.split(";")]
    out = []
    for piece in pieces:
        try:
            out.append(tokens(ast.unparse(ast.parse(piece.strip()))))
        except (SyntaxError, ValueError, RecursionError):
            continue
    return SEP.join(out)


def literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Line and text of every string literal (an f-string by its constant parts)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield node.lineno, "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def texts_of(name: str, text: str) -> Iterator[Text]:
    """The Texts of one member: a ``.py`` member's code and its string literals, or a text file."""
    if not name.endswith(".py"):
        yield Text(name, SEP + tokens(text) + SEP + canonical(text))
        return
    try:
        tree = ast.parse(text)
    except SyntaxError:
        yield Text(name, SEP + tokens(text))
        return
    yield Text(name, SEP + tokens(text) + SEP + tokens(ast.unparse(tree)))
    for line, literal in literals(tree):
        if len(TOKEN.findall(literal)) >= MIN_TOKENS:
            text = SEP + tokens(literal) + SEP + canonical(literal)
            yield Text(f"{name}, string at line {line}", text)


def members(path: Path) -> Iterator[tuple[str, bytes]]:
    """Path (in the package, or the sdist's folder) and bytes of each file of a wheel or sdist."""
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as archive:
            yield from ((n, archive.read(n)) for n in archive.namelist() if not n.endswith("/"))
        return
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None:
                yield member.name.split("/", 1)[-1], handle.read()


class Finder:
    """Finds the answers a text gives away (NOTE [What counts as an answer]).  Each statement is
    indexed by its first token, so a text is searched only for the statements that start with one of
    its tokens."""

    def __init__(self, answers: list[Answer]) -> None:
        self.answers = answers
        self.by_first: dict[str, set[str]] = {}
        for s in {s for a in answers for s in a.statements}:
            self.by_first.setdefault(s.text.split(SEP, 1)[0], set()).add(SEP + s.text)

    def __call__(self, text: str) -> Iterator[Answer]:
        present = set(text.split(SEP)) & self.by_first.keys()
        seen = {n for first in present for n in self.by_first[first] if n in text}
        if not seen:
            return
        for answer in self.answers:
            weight = sum(s.weight for s in answer.statements if SEP + s.text in seen)
            if weight >= max(MIN_TOKENS, FRACTION * answer.weight):
                yield answer


def findings(archives: list[Path], answers: list[Answer],
             read: dict[str, list[tuple[str, str]]] | None = None) -> dict[tuple[str, str], str]:
    """(answer, member) -> "archive: where in the member" for each answer found in ``archives``
    (a member with the same bytes as one in ``read``, by digest, is not read again)."""
    find = Finder(answers)
    read = {} if read is None else read
    out: dict[tuple[str, str], str] = {}
    for archive in archives:
        for name, data in members(archive):
            digest = hashlib.sha256(data).hexdigest()
            if digest not in read:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    read[digest] = []
                    continue
                read[digest] = [(a.where, t.where) for t in texts_of(name, text)
                                for a in find(t.text)]
            for answer, where in read[digest]:  # the string, rather than the whole file, if both
                if (answer, name) not in out or where != name:
                    out[answer, name] = f"{archive.name}: {where}"
    return out


def accepted(answer: str, name: str) -> bool:
    """Whether ACCEPTED lists ``answer`` in member ``name`` (``lessons/…`` is
    ``micrograd2/lessons/…`` in the wheel)."""
    return any(answer == a and (name == m or name.endswith(f"/{m}")) for a, m in ACCEPTED)


def unaccepted(found: dict[tuple[str, str], str]) -> list[str]:
    return [f"{answer} is in {where}" for (answer, name), where in sorted(found.items())
            if not accepted(answer, name)]


# ── the archives ──────────────────────────────────────────────────────────────────────────────────


def load_dist() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mg2_dist", ROOT / "tools" / "dist.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fresh(folder: Path, dist: ModuleType) -> list[Path] | None:
    """``make dist``'s sdist and wheel in ``folder``, if they are of this version and newer than
    every file a build reads; else None."""
    version = mg.__version__
    found = [folder / f"micrograd2-{version}.tar.gz",
             folder / f"micrograd2-{version}-py3-none-any.whl"]
    if not all(p.is_file() for p in found):
        return None
    built = min(p.stat().st_mtime for p in found)
    return found if all(p.stat().st_mtime < built for p in dist.sources()) else None


@pytest.fixture(scope="module")
def answers() -> list[Answer]:
    return teacher_answers()


@pytest.fixture(scope="module")
def read() -> dict[str, list[tuple[str, str]]]:
    """What was found in each member read so far, by digest: the wheels hold the same files."""
    return {}


@pytest.fixture(scope="module")
def found(archives: list[Path], answers: list[Answer], read: dict[str, list[tuple[str, str]]]
          ) -> dict[tuple[str, str], str]:
    return findings(archives, answers, read)


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The sdist and the wheel: ``dist/``'s when fresh, else built now in a temporary folder."""
    pytest.importorskip("setuptools", reason="building the archives needs setuptools>=61")
    dist = load_dist()
    return fresh(ROOT / "dist", dist) or dist.build(tmp_path_factory.mktemp("dist"))


def test_the_sdist_and_the_wheel_hold_no_answer(found: dict[tuple[str, str], str]) -> None:
    leaks = unaccepted(found)
    assert not leaks, "answers in the student's install:\n" + "\n".join(leaks)


def test_the_playground_installs_a_wheel_without_answers(
        answers: list[Answer], read: dict[str, list[tuple[str, str]]]) -> None:
    wheels = sorted(PLAYGROUND_WHEELS.glob("micrograd2-*.whl"))
    if not wheels:
        pytest.skip("no playground built (make playground builds build/playground/wheels)")
    leaks = unaccepted(findings(wheels, answers, read))
    assert not leaks, "answers in the playground's wheel:\n" + "\n".join(leaks)


def test_each_accepted_answer_is_still_where_it_is_listed(found: dict[tuple[str, str], str]
                                                          ) -> None:
    stale = [f"{a} in {m}" for a, m in ACCEPTED
             if not any(answer == a and accepted(a, name) for answer, name in found)]
    assert not stale, "ACCEPTED lists answers no longer found there; remove:\n" + "\n".join(stale)


def test_the_sdist_leaves_the_teacher_and_the_tests_out(archives: list[Path]) -> None:
    for archive in archives:
        names = [name for name, _ in members(archive)]
        assert not [n for n in names if n.split("/")[0] in ("teacher", "tests", "build")], archive
        assert any(n.endswith("exercises/sources/u3_sum_to.py") for n in names), archive
        assert any(n.endswith("lessons/01_minimal_graph.py") for n in names), archive


# Today's last hint of U3.1 before issue 32, and U1.1's: whole solutions, in backticks.
OLD_HINTS = (
    "`lead = grad.ndim - len(shape); if lead: grad = grad.sum(tuple(range(lead)))`; then "
    "`ones = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)`; "
    "`return grad.sum(ones, keepdim=True) if ones else grad`.",
    "Mul.backward: `a, b = ctx.saved_tensors; return grad * b, grad * a`.  Sum.forward: remember "
    "how many inputs there were (`ctx.n = len(xs)`); Sum.backward: `return (grad,) * ctx.n`.",
)
REFORMATTED = '''
def spread(grad, shape):  # a copy, renamed, commented and reformatted
    lead = (grad.ndim - len(shape))
    if lead:
        grad = grad.sum(tuple(range(lead)))  # the leading axes
    ones = tuple(i for i, n in enumerate(shape)
                 if n == 1 and grad.shape[i] != 1)
    return grad.sum(ones, keepdim=True) if ones else grad
'''


def fake_wheel(folder: Path, files: dict[str, str]) -> Path:
    path = folder / "fake-0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def test_an_answer_is_found_in_a_hint_and_in_a_reformatted_copy(tmp_path: Path,
                                                               answers: list[Answer]) -> None:
    hints = "HINTS = (\n" + "".join(f"    {h!r},\n" for h in OLD_HINTS) + ")\n"
    wheel = fake_wheel(tmp_path, {"pkg/hints.py": hints, "pkg/README.md": f"Try ``{OLD_HINTS[0]}``",
                                  "pkg/spread.py": REFORMATTED})
    found = findings([wheel], answers)
    for name in ("pkg/hints.py", "pkg/README.md", "pkg/spread.py"):
        assert ("teacher/solutions/u3_sum_to.py::sum_to", name) in found, name
    assert ("teacher/solutions/ex01_mul_sum.py::Mul.backward", "pkg/hints.py") in found
    where = found["teacher/solutions/u3_sum_to.py::sum_to", "pkg/hints.py"]
    assert where.endswith("string at line 2"), where


def test_a_hint_may_name_the_line_to_change(tmp_path: Path, answers: list[Answer]) -> None:
    one_line = "The line to change: `return grad.sum(ones, keepdim=True) if ones else grad`."
    trivial = "def sum_backward(grad, shape, kept):\n    return grad\n"
    wheel = fake_wheel(tmp_path, {"pkg/hint.py": f"HINT = {one_line!r}\n", "pkg/mod.py": trivial})
    assert findings([wheel], answers) == {}
