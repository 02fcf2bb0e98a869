"""Command tests in pandoc's format (tests/cli/*.md).

Each fenced block is one command:

    % bammmc ARGS...
    stdin lines (optional)
    ^D
    expected stdout lines
    2> expected stderr lines (in order, interleaved freely with stdout lines)
    => N            (the exit status, when not 0)

The command runs in-process through click's CliRunner, in the repository root — unless the file
declares files, each in a block of its own:

    % file DIR/NAME
    the file's lines

Then every command of that file runs in a fresh temporary directory holding those files (so a
configuration file found by walking up is the test's own), and a command block may start with
`% cd DIR` lines to run in a subdirectory of it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from bammmc.cli import main

ROOT = Path(__file__).parent.parent
CASES_DIR = Path(__file__).parent / "cli"
FENCE = re.compile(r"^(`{3,})\n(% (?:bammmc|cd ).*?)^\1$", re.S | re.M)
FILE = re.compile(r"^(`{3,})\n% file (\S+)\n(.*?)^\1$", re.S | re.M)


def _cases() -> list[tuple[str, str]]:
    cases = []
    for md in sorted(CASES_DIR.glob("*.md")):
        for i, (_, block) in enumerate(FENCE.findall(md.read_text())):
            cases.append((f"{md.stem}#{i + 1}", block))
    return cases


def _files(name: str) -> dict[str, str]:
    """The files the .md file of case ``name`` declares (path -> text)."""
    md = CASES_DIR / (name.split("#")[0] + ".md")
    return {path: text for _, path, text in FILE.findall(md.read_text())}


def _parse(block: str) -> tuple[list[str], str | None, str, str, int]:
    lines = block.splitlines()
    while lines[0].startswith("% cd "):
        lines = lines[1:]
    argv = shlex.split(lines[0][len("% bammmc") :])
    rest = lines[1:]
    stdin = None
    if "^D" in rest:
        cut = rest.index("^D")
        stdin = "".join(line + "\n" for line in rest[:cut])
        rest = rest[cut + 1 :]
    status = 0
    if rest and rest[-1].startswith("=> "):
        status = int(rest[-1][3:])
        rest = rest[:-1]
    out = "".join(line + "\n" for line in rest if not line.startswith("2>"))
    err = "".join(
        line[3:] + "\n" if len(line) > 2 else "\n" for line in rest if line.startswith("2>")
    )
    return argv, stdin, out, err, status


@pytest.mark.parametrize(("name", "block"), _cases(), ids=[c[0] for c in _cases()])
def test_command(name: str, block: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    files = _files(name)
    if files:
        for path, text in files.items():
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text)
        where = tmp_path
        for line in block.splitlines():
            if not line.startswith("% cd "):
                break
            where = where / line[len("% cd ") :].strip()
        monkeypatch.chdir(where)
    else:
        monkeypatch.chdir(ROOT)
    monkeypatch.delenv("NO_COLOR", raising=False)
    argv, stdin, out, err, status = _parse(block)
    result = CliRunner().invoke(main, argv, input=stdin, catch_exceptions=False, prog_name="bammmc")
    assert result.stderr == err, f"stderr of {name}"
    assert result.stdout == out, f"stdout of {name}"
    assert result.exit_code == status, f"exit status of {name}"


def test_cases_exist() -> None:
    assert len(_cases()) >= 10
