"""Predictions: a question asked before the cell that shows its result, and the answer judged after.

``guess = predict("L3.three-backwards", "What is x.grad after …?", answer=prediction)``, then
``guess.reveal(x.grad)`` once the result is computed.  ``micrograd2 lesson run N --interactive``
waits for the answer on the terminal; otherwise the cell's ``prediction`` (``...`` until filled
in) is the answer, and with none the question is printed and the run goes on.  Answers are
recorded in ``predictions.json`` in the exercise workspace (``$MICROGRAD2_WORKSPACE``, else the
current folder if it is one; else nowhere).
"""
from __future__ import annotations

import json
import os
import re
import sys
import textwrap
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .compare import plain, same, show
from .page import PAGE, fit
from .session import Session, mark, open_session, session

PREDICTIONS_FILE = "predictions.json"
WORKSPACE_ENV = "MICROGRAD2_WORKSPACE"  # the exercise workspace, as exercises.harness names it
UNANSWERED = ...  # ``prediction = ...``: the cell's answer, not filled in yet
NUMBER = re.compile(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?)")  # as typed


@dataclass
class Prediction:
    """A question asked before its result is shown (``predict``), the answer, and the verdict."""

    question_id: str
    prompt: str
    answer: Any = UNANSWERED
    right: bool | None = None  # None: not judged yet, or nothing to judge (no answer)
    rel: float = 1e-3

    @property
    def answered(self) -> bool:
        return self.answer is not UNANSWERED

    def reveal(self, expected: Any, shown: str | None = None) -> bool | None:
        """Say what the result is and whether the answer was right; record it in predictions.json.

        ``expected``: the result (a value the answer must equal: a number, None, a bool, a choice
        like ``"b"``) or a checker ``fn(answer) -> bool``; ``shown``: how to write it (its value).
        """
        told = shown or ("?" if callable(expected) else show(plain(expected)))
        s = session()
        if not self.answered:
            hint = "" if s.hinted else (" (no prediction: `--interactive` asks for one, "
                                        "a notebook's `prediction = ...` holds it)")
            s.hinted = True
            said = f"    · it is {told}{hint}"
            for line in [said] if len(said) <= PAGE else [f"    · it is {told}", f"     {hint}"]:
                s.write(fit(line, PAGE), "advice")
            return None
        if callable(expected):
            self.right = bool(expected(self.answer))
        else:
            self.right = _guessed(self.answer, expected, self.rel)
        s.predictions.append(self)
        if s.json:
            record = {"kind": "prediction", "id": self.question_id, "lesson": s.lesson,
                      "answer": _plain_json(self.answer), "expected": told, "right": self.right}
            (s.stream or sys.stdout).write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            verdict = "right" if self.right else "not it"
            tick = mark(self.right, s.stream)
            s.write(f"    {tick} you predicted {show(self.answer)}: {verdict}; it is {told}",
                    "ok" if self.right else "bad")
        _record_prediction(self, s.lesson)
        return self.right


# NOTE [predict before you run]: a lesson asks before the cell that shows the result, and reveals it
# after, so the cell's source (which ``lesson run`` prints before running it) never gives the answer
# away.  The answer comes from the cell (``prediction = ...`` filled in: a notebook, an edited
# copy), else from the terminal under ``lesson run N --interactive``; otherwise the question is
# printed and the run goes on (``make lessons``, CI, a notebook with the cell unfilled).
def predict(question_id: str, prompt: str, expected: Any = UNANSWERED, *, answer: Any = UNANSWERED,
            rel: float = 1e-3) -> Prediction:
    """Ask the student to predict a result before the lesson shows it; return the ``Prediction``.

    ``answer``: the cell's answer (``prediction = ...`` until the student fills it in).  Without
    one, ``micrograd2 lesson run N --interactive`` waits for it on the terminal.  ``expected``: the
    right answer or a checker ``fn(answer) -> bool``, judged at once; leave it out and call
    ``.reveal(result)`` once the result is computed.  Answers are recorded in ``predictions.json``
    (``predictions_file``).  Numbers compare within ``rel``; a typed answer is read as the expected
    kind: ``"9"`` or ``"tensor([9.])"`` for 9.0, ``"none"`` for None, ``"(b)"`` for ``"b"``.
    """
    s = open_session()
    asked = Prediction(question_id, prompt, answer, rel=rel)
    for line in textwrap.wrap(f"? Predict: {prompt}", PAGE - 2, subsequent_indent="    "):
        s.write(f"  {line}", "section")
    if not asked.answered and s.interactive and not s.json:
        asked.answer = _ask(s)
    if expected is not UNANSWERED:
        asked.reveal(expected)
    return asked


def _ask(s: Session) -> Any:
    """The student's answer, read from the terminal (empty or end of input: no answer)."""
    (s.stream or sys.stdout).write("    your prediction: ")
    (s.stream or sys.stdout).flush()
    try:
        typed = input().strip()
    except EOFError:
        return UNANSWERED
    return typed if typed else UNANSWERED


def _guessed(answer: Any, expected: Any, rel: float) -> bool:
    """Whether the student's answer is the expected result (a typed answer read as its kind)."""
    want = plain(expected)
    if isinstance(answer, str) and not isinstance(want, str):
        answer = _typed(answer, want)
    got = plain(answer)
    if isinstance(want, list) and len(want) == 1 and not isinstance(got, list):
        want = want[0]  # 9 for tensor([9.])
    if isinstance(got, list) and len(got) == 1 and not isinstance(want, list):
        got = got[0]
    if isinstance(want, str):
        return _choice(str(got)) == _choice(want)
    return same(got, want, rel, 1e-9)


def _typed(text: str, like: Any) -> Any:
    """A typed answer as a value of ``like``'s kind: None, a bool, a number or a list of numbers."""
    word = text.strip().lower()
    if like is None:
        return None if word in ("none", "null") else text
    if isinstance(like, bool):
        return {"true": True, "yes": True, "false": False, "no": False}.get(word, text)
    numbers = [float(n) for n in NUMBER.findall(word)]
    if not numbers:
        return text
    return numbers if isinstance(like, list) else numbers[0]


def _choice(text: str) -> str:
    """``"(B)"``, ``"b)"``, ``" b. "`` -> ``"b"``: a choice as the student may type it."""
    return text.strip().lower().strip("().").strip()


def _plain_json(x: Any) -> Any:
    data = plain(x)
    try:
        json.dumps(data)
    except (TypeError, ValueError):
        return show(data)
    return data


def predictions_file() -> Path | None:
    """Where answers are recorded: ``$MICROGRAD2_WORKSPACE/predictions.json``; else the current
    folder's, if it is an exercise workspace (``micrograd2 exercise start``); else None."""
    workspace = os.environ.get(WORKSPACE_ENV)
    if workspace:
        return Path(workspace) / PREDICTIONS_FILE
    from micrograd2.exercises import catalog

    here = Path.cwd()
    if any((here / e.filename).is_file() for e in catalog.EXERCISES):
        return here / PREDICTIONS_FILE
    return None


def _record_prediction(p: Prediction, lesson: int | None) -> None:
    """Write ``p``'s entry into predictions.json (one per question id: a new answer replaces it)."""
    path = predictions_file()
    if path is None:
        return
    try:
        entries = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        entries = None  # an unreadable file is not overwritten
    if not isinstance(entries, dict):
        warnings.warn(f"{path} is not a predictions file: answer not recorded", stacklevel=4)
        return
    entries[p.question_id] = {"answer": _plain_json(p.answer), "right": p.right, "lesson": lesson,
                              "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                              "prompt": p.prompt}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(entries, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        warnings.warn(f"could not record the prediction in {path}: {exc}", stacklevel=4)


def predictions_line(predictions: list[Prediction]) -> str | None:
    """``predictions: 2 of 3 right (recorded in …/predictions.json)``; None if none answered."""
    if not predictions:
        return None
    where = predictions_file()
    kept = f" (recorded in {where})" if where is not None else " (not recorded: no workspace)"
    right = sum(bool(p.right) for p in predictions)
    return f"predictions: {right} of {len(predictions)} right{kept}"
