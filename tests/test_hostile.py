"""Hostile and broken inputs: each is a coded diagnostic and an exit status, never a traceback,
a hang or partial output (issue #9).

``CASES``: broken SPLAT content through ``bammmc check``. ``TABLE``: hostile files and outputs
through a real ``bammmc`` process (a hang is a failure after ``TIMEOUT`` seconds), one row per
kind of input, each with its code and exit status.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

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
        "E006",
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


# --- the hostile-file table -------------------------------------------------------------------

#: seconds a row may take; bammmc refusing a device or a pipe must not wait for it
TIMEOUT = 30
SLURM = "#!/bin/bash\n#SBATCH --time=10\nsrun hostname\n"
LIMIT = 10 * 1024 * 1024  # bammmc.source.MAX_INPUT_SIZE, written out: the test pins it


@dataclass
class Row:
    """One hostile input or output: how to make it, the code and exit status it must give."""

    name: str
    make: Callable[[Path], list[str]]  # tmp dir -> the bammmc arguments before `--diagnostics`
    code: str
    status: int
    stdin: bytes | None = None
    keeps: dict[str, bytes] = field(default_factory=dict)  # files that must stay as they were


def _file(name: str, data: bytes) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        (tmp / name).write_bytes(data)
        return [str(tmp / name), "-o", str(tmp / "out.pbs")]

    return make


def _sparse(size: int, *extra: str) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        path = tmp / "big.sbatch"
        with path.open("wb") as fh:
            fh.write(SLURM.encode())
            fh.truncate(size)  # a sparse file: the size without the disk
        return [str(path), *extra, "-o", str(tmp / "out.pbs")]

    return make


def _symlink(target: str) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        (tmp / "job.sbatch").symlink_to(target)
        return [str(tmp / "job.sbatch"), "-o", str(tmp / "out.pbs")]

    return make


def _fifo(tmp: Path) -> list[str]:
    os.mkfifo(tmp / "job.sbatch")  # nobody writes to it: opening it must not wait for a writer
    return [str(tmp / "job.sbatch"), "-o", str(tmp / "out.pbs")]


def _unreadable(tmp: Path) -> list[str]:
    (tmp / "job.sbatch").write_text(SLURM)
    (tmp / "job.sbatch").chmod(0)
    return [str(tmp / "job.sbatch"), "-o", str(tmp / "out.pbs")]


def _directory(tmp: Path) -> list[str]:
    (tmp / "jobs.sbatch").mkdir()
    return [str(tmp / "jobs.sbatch"), "-o", str(tmp / "out.pbs")]


def _missing(tmp: Path) -> list[str]:
    return [str(tmp / "missing.sbatch"), "-o", str(tmp / "out.pbs")]


def _existing_output(tmp: Path) -> list[str]:
    (tmp / "job.sbatch").write_text("#!/bin/bash\n#SBATCH --time=banana\nrun\n")
    (tmp / "out.pbs").write_bytes(b"precious\n")
    return [str(tmp / "job.sbatch"), "-o", str(tmp / "out.pbs")]


def _writer_refuses(tmp: Path) -> list[str]:
    (tmp / "job.splat.yaml").write_text(
        HEAD
        + 'metadata:\n  name: "a\\n#SBATCH --time=1"\nspec:\n  execution:\n    script: "run\\n"\n'
    )
    (tmp / "out.sbatch").write_bytes(b"precious\n")
    return [str(tmp / "job.splat.yaml"), "-o", str(tmp / "out.sbatch")]


def _output_is_input(tmp: Path) -> list[str]:
    (tmp / "job.sbatch").write_text(SLURM)
    return [str(tmp / "job.sbatch"), "--to", "slurm", "-o", str(tmp / "job.sbatch")]


def _output_is_input_via_link(tmp: Path) -> list[str]:
    (tmp / "job.sbatch").write_text(SLURM)
    (tmp / "link.sbatch").symlink_to(tmp / "job.sbatch")
    return [str(tmp / "job.sbatch"), "-o", str(tmp / "link.sbatch")]


def _through_a_file(tmp: Path) -> list[str]:
    """A missing directory is made (`mkdir -p`, issue #18); a regular file on the way is E014."""
    (tmp / "job.sbatch").write_text(SLURM)
    (tmp / "no").write_text("a file\n")
    return [str(tmp / "job.sbatch"), "-o", str(tmp / "no" / "such" / "out.pbs")]


def _deep_json(tmp: Path) -> list[str]:
    (tmp / "job.jobspec.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    return [str(tmp / "job.jobspec.json"), "-o", str(tmp / "out.pbs")]


def _deep_json_lists(tmp: Path) -> list[str]:
    (tmp / "job.jobspec.json").write_text('{"version": 1, "resources": ' + "[" * 100_000)
    return [str(tmp / "job.jobspec.json"), "-o", str(tmp / "out.pbs")]


BOMB = (HEAD + "spec:\n  placement:\n    affinity:\n").encode() + b"".join(
    b"      " + line.encode() + b"\n" for line in _bomb().splitlines()
)

TABLE = [
    Row("size-over-default-limit", _sparse(LIMIT + 1), "E005", 1),
    # exactly at the limit is read (and its zero bytes are binary): the limit is not off by one
    Row("size-at-default-limit-is-read", _sparse(LIMIT), "E002", 1),
    Row("size-over-max-input-size", _sparse(4096, "--max-input-size", "4095"), "E005", 1),
    Row(
        "stdin-over-max-input-size",
        lambda tmp: ["-", "--from", "slurm", "--max-input-size", "10", "-o", str(tmp / "o.pbs")],
        "E005",
        1,
        stdin=SLURM.encode(),
    ),
    Row("yaml-alias-bomb", _file("job.splat.yaml", BOMB), "E006", 1),
    Row(
        "yaml-deep-flow-nesting",
        _file("job.splat.yaml", HEAD.encode() + b"a: " + b"[" * 10**5),
        "E006",
        1,
    ),
    Row(
        "yaml-deep-block-nesting",
        _file(
            "job.splat.yaml",
            HEAD.encode()
            + b"".join(b"  " * i + b"k:\n" for i in range(2000))
            + b"  " * 2000
            + b"v\n",
        ),
        "E006",
        1,
    ),
    Row("json-deep-nesting-maps", _deep_json, "E006", 1),
    Row("json-deep-nesting-lists", _deep_json_lists, "E006", 1),
    Row("binary-file", _file("job.sbatch", bytes(range(256)) * 64), "E002", 1),
    Row("invalid-utf8", _file("job.sbatch", SLURM.encode() + b"# caf\xe9\n"), "E002", 1),
    Row("symlink-to-dev-zero", _symlink("/dev/zero"), "E007", 1),
    Row("symlink-to-dev-urandom", _symlink("/dev/urandom"), "E007", 1),
    Row("fifo-without-writer", _fifo, "E007", 1),
    Row("unreadable-file", _unreadable, "E007", 1),
    Row("directory", _directory, "E007", 1),
    Row("nonexistent-path", _missing, "E007", 1),
    Row(
        "failed-conversion-keeps-output",
        _existing_output,
        "E134",
        1,
        keeps={"out.pbs": b"precious\n"},
    ),
    Row(
        "writer-refuses-keeps-output",
        _writer_refuses,
        "E140",
        1,
        keeps={"out.sbatch": b"precious\n"},
    ),
    Row("output-is-input", _output_is_input, "E013", 2, keeps={"job.sbatch": SLURM.encode()}),
    Row(
        "output-is-input-via-symlink",
        _output_is_input_via_link,
        "E013",
        2,
        keeps={"job.sbatch": SLURM.encode()},
    ),
    Row("output-through-a-file", _through_a_file, "E014", 1, keeps={"no": b"a file\n"}),
]


def _as_nobody() -> list[str] | None:
    """A command prefix that runs bammmc as an unprivileged user, when this test runs as root
    (root reads a mode-000 file: chmod alone would test nothing); None when not root."""
    if os.geteuid() != 0:
        return None
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a mode-000 file cannot be made unreadable")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary directory every user may enter (pytest's tmp_path is private to root)."""
    with tempfile.TemporaryDirectory(prefix="bammmc-hostile-") as name:
        os.chmod(name, 0o755)
        yield Path(name)


@pytest.mark.parametrize("row", TABLE, ids=[r.name for r in TABLE])
def test_hostile_table(row: Row, shared_tmp: Path) -> None:
    tmp = shared_tmp
    args = row.make(tmp)
    prefix = (_as_nobody() or []) if row.name == "unreadable-file" else []
    before = set(os.listdir(tmp))
    try:
        proc = subprocess.run(
            [*prefix, sys.executable, "-m", "bammmc", *args, "--diagnostics", "json"],
            input=row.stdin or b"",
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"bammmc did not answer within {TIMEOUT} s (it waited on the input)")
    stderr = proc.stderr.decode()
    assert "Traceback" not in stderr, stderr
    codes = [json.loads(line)["code"] for line in stderr.splitlines() if line.startswith("{")]
    assert row.code in codes, stderr
    assert proc.returncode == row.status, stderr
    assert proc.stdout == b"", "no partial output"
    written = set(os.listdir(tmp)) - before
    assert not written, f"files left behind: {sorted(written)}"
    for name, data in row.keeps.items():
        assert (tmp / name).read_bytes() == data, f"{name} was changed"
    if row.name == "unreadable-file" and not prefix:
        assert not os.access(tmp / "job.sbatch", os.R_OK)  # the row tested what it says


def test_table_covers_every_code_it_promises() -> None:
    """The rows name every input kind of issue #9 (a row removed is a test failing)."""
    kinds = {
        "size-over-default-limit", "size-over-max-input-size", "yaml-alias-bomb",
        "yaml-deep-flow-nesting", "json-deep-nesting-maps", "binary-file",
        "symlink-to-dev-zero", "symlink-to-dev-urandom", "fifo-without-writer",
        "unreadable-file", "directory", "nonexistent-path", "failed-conversion-keeps-output",
        "output-is-input", "output-through-a-file",
    }  # fmt: skip
    assert kinds <= {r.name for r in TABLE}
