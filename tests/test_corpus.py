"""Every seed file in corpus/ reads to a job or coded diagnostics; clean ones round-trip."""

from __future__ import annotations

from pathlib import Path

import pytest

import bammmc
from bammmc.registry import FORMATS, by_extension

CORPUS = Path(__file__).parent.parent / "corpus"
FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "README.md")


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORPUS)) for p in FILES])
def test_seed(path: Path) -> None:
    # The folder names the format: a `.pbs` seed under torque/ is a Torque job.
    fmt = FORMATS.get(path.parent.name) or by_extension(path.name)
    assert fmt is not None
    text = path.read_bytes().decode("utf-8")
    job, diagnostics = bammmc.parse(text, fmt.name, filename=path.name)
    assert all(d.span is not None or d.code.startswith("E0") for d in diagnostics)
    if job is not None:
        out, _ = bammmc.emit(job, fmt.name)
        assert out is not None
        again, _ = bammmc.parse(out, fmt.name)
        assert again == job
        assert bammmc.emit(again, fmt.name)[0] == out


def test_corpus_is_not_empty() -> None:
    assert len(FILES) >= 4
