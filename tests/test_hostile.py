"""Hostile and broken inputs: each is a coded diagnostic and exit status 1, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bammmc.cli import main

HEAD = "apiVersion: bammm.io/v1alpha1\nkind: Job\n"


def _bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


CASES = [
    ("empty", b"", "E001"),
    ("blank", b"\n\n   \n", "E001"),
    ("comments-only", b"# just a comment\n", "E001"),
    ("nul-bytes", HEAD.encode() + b"\x00\x00", "E002"),
    ("latin-1", HEAD.encode() + b"metadata:\n  name: caf\xe9\n", "E002"),
    ("utf-16", HEAD.encode("utf-16"), "E002"),
    ("invalid-yaml", HEAD.encode() + b"metadata: {name: [\n", "E003"),
    ("tab-indent", HEAD.encode() + b"metadata:\n\tname: x\n", "E003"),
    ("unknown-tag", HEAD.encode() + b"metadata: !!python/object:os.system {}\n", "E003"),
    (
        "alias-bomb",
        (HEAD + "metadata:\n  annotations: {}\n").encode()
        + b"spec:\n  placement:\n    affinity:\n"
        + b"".join(b"      " + line.encode() + b"\n" for line in _bomb().splitlines()),
        "E006",
    ),
    (
        "deep-nesting",
        HEAD.encode() + b"spec:\n  placement:\n    affinity: " + b"[" * 5000 + b"\n",
        "E003",
    ),
    (
        "deep-maps",
        HEAD.encode()
        + b"spec:\n  placement:\n    affinity: "
        + b"{a: " * 100
        + b"1"
        + b"}" * 100
        + b"\n",
        "E006",
    ),
    ("scalar-document", b"just a string\n", "E102"),
    ("recursive-alias", HEAD.encode() + b"spec:\n  placement:\n    affinity: &a {b: *a}\n", "E006"),
    (
        "huge-integer",
        HEAD.encode() + b"spec:\n  resources:\n    tasks: " + b"9" * 5000 + b"\n",
        "E102",
    ),
    (
        "huge-size",
        HEAD.encode() + b"spec:\n  resources:\n    memoryPerTask: " + b"9" * 5000 + b"Gi\n",
        "E105",
    ),
    ("many-unknown-keys", HEAD.encode() + b"".join(b"k%d: 1\n" % i for i in range(5000)), "E101"),
    ("list-document", b"- 1\n- 2\n", "E102"),
]


@pytest.mark.parametrize(("name", "data", "code"), CASES, ids=[c[0] for c in CASES])
def test_hostile_input(name: str, data: bytes, code: str, tmp_path: Path) -> None:
    path = tmp_path / "job.splat.yaml"
    path.write_bytes(data)
    result = CliRunner().invoke(
        main, ["check", "--diagnostics", "json", str(path)], catch_exceptions=False
    )
    codes = [json.loads(line)["code"] for line in result.stderr.splitlines()]
    assert code in codes, result.stderr
    assert result.exit_code == 1


def test_fifty_megabytes(tmp_path: Path) -> None:
    path = tmp_path / "big.splat.yaml"
    with path.open("wb") as fh:
        fh.write(HEAD.encode())
        fh.write(b"# " + b"x" * (50 * 1024 * 1024) + b"\n")
    result = CliRunner().invoke(main, ["check", "--diagnostics", "json", str(path)])
    assert [json.loads(line)["code"] for line in result.stderr.splitlines()] == ["E005"]
    assert result.exit_code == 1


def test_size_limit_applies_to_stdin() -> None:
    result = CliRunner().invoke(
        main,
        ["check", "--max-input-size", "10", "--diagnostics", "json", "-"],
        input=HEAD,
    )
    assert [json.loads(line)["code"] for line in result.stderr.splitlines()] == ["E005"]


@pytest.mark.parametrize("kind", ["directory", "missing", "unreadable", "device"])
def test_unreadable_paths(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if kind == "directory":
        target = str(tmp_path)
    elif kind == "missing":
        target = str(tmp_path / "missing.splat.yaml")
    elif kind == "device":
        target = "/dev/zero"
    else:
        p = tmp_path / "secret.splat.yaml"
        p.write_text(HEAD)
        p.chmod(0)
        target = str(p)
        if os.access(p, os.R_OK):  # root reads anything: the kernel's refusal, simulated
            real_open = open

            def refusing_open(file: Any, *args: Any, **kwargs: Any) -> Any:
                if str(file) == target:
                    raise PermissionError(13, "Permission denied", target)
                return real_open(file, *args, **kwargs)

            monkeypatch.setattr("bammmc.source.open", refusing_open, raising=False)
    result = CliRunner().invoke(main, ["check", "--diagnostics", "json", target])
    assert [json.loads(line)["code"] for line in result.stderr.splitlines()] == ["E007"]
    assert result.exit_code == 1


def test_failed_conversion_leaves_existing_output(tmp_path: Path) -> None:
    src = tmp_path / "bad.splat.yaml"
    src.write_text(HEAD + "spec:\n  resources:\n    cpuPerTask: 4\n")
    out = tmp_path / "out.splat.yaml"
    out.write_text("precious\n")
    result = CliRunner().invoke(main, [str(src), "-o", str(out)])
    assert result.exit_code == 1
    assert out.read_text() == "precious\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".bammmc-")] == []


def test_output_written_atomically_and_keeps_mode(tmp_path: Path) -> None:
    src = tmp_path / "job.splat.yaml"
    src.write_text(HEAD + "metadata:\n  name: x\n")
    out = tmp_path / "out.splat.yaml"
    out.write_text("old\n")
    out.chmod(0o640)
    result = CliRunner().invoke(main, [str(src), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert out.read_text() == HEAD + "metadata:\n  name: x\n"
    assert out.stat().st_mode & 0o777 == 0o640


def test_output_over_input_through_a_symlink(tmp_path: Path) -> None:
    src = tmp_path / "job.splat.yaml"
    src.write_text(HEAD)
    link = tmp_path / "link.splat.yaml"
    link.symlink_to(src)
    result = CliRunner().invoke(main, [str(src), "-o", str(link)])
    assert result.exit_code == 2
    assert "E013" in result.stderr
    assert src.read_text() == HEAD
