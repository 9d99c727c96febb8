"""docs/tensor_api.md: each name its tables list exists where it says (Tensor, mg.<name>, mg.nn.functional)."""
from __future__ import annotations

import re
from pathlib import Path

import micrograd2 as mg

DOC = Path(__file__).resolve().parents[1] / "docs" / "tensor_api.md"
ROW = re.compile(r"^\| (?P<names>[^|]+) \|.*\[(?P<torch>torch\.[\w.]+)\]\(https://docs\.pytorch\.org/[^)]+\) \|$")


def _rows() -> list[tuple[str, str]]:
    rows = [(m["names"], m["torch"]) for m in map(ROW.match, DOC.read_text(encoding="utf-8").splitlines()) if m]
    assert len(rows) > 80
    return rows


def _owner(torch_name: str):
    if torch_name.startswith("torch.Tensor."):
        return mg.Tensor
    if torch_name.startswith("torch.nn.functional."):
        return mg.nn.functional
    return mg


def test_every_name_listed_exists() -> None:
    mg.tensor(0.0)  # (the Tensor engine loaded)
    missing = []
    for names, torch_name in _rows():
        if torch_name == "torch.Tensor":  # the indexing rows (x[i], x[index] = v): PyTorch's page on Tensors
            continue
        owner = _owner(torch_name)
        text = re.sub(r"\([^)]*\)", "", names)  # drop "(`+`, `alpha=`)"-like notes
        for word in re.findall(r"(?:mg\.)?[a-z_][A-Za-z_0-9]*", text.replace("`", "")):
            name = word.removeprefix("mg.")
            if not hasattr(mg if word.startswith("mg.") else owner, name):
                missing.append(f"{word} ({torch_name})")
    assert not missing, missing


def test_every_link_names_an_existing_micrograd2_name() -> None:
    mg.tensor(0.0)
    for _, torch_name in _rows():
        name = torch_name.rsplit(".", 1)[1]
        assert name in ("tensor", "Tensor") or hasattr(_owner(torch_name), name), torch_name
