"""Every diagnostic code is documented, and its documented example emits it."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bammmc.cli import main
from bammmc.diagnostics.codes import CODES, FIFO, lookup

SOURCES = Path(__file__).parent.parent / "bammmc"


#: the codes whose exit status is 2 (usage): output paths and the configuration
USAGE = ("E011", "E012", "E013", "E016", "E017", "E018")


@pytest.mark.parametrize("code", sorted(CODES))
def test_example_emits_its_code(code: str, tmp_path: Path) -> None:
    entry = CODES[code]
    example = tmp_path / entry.filename
    example.write_bytes(entry.example.encode())
    for name, text in entry.extra.items():
        if text == FIFO:
            os.mkfifo(tmp_path / name)
        else:
            (tmp_path / name).write_text(text)
    argv = [a.replace("{file}", str(example)).replace("{dir}", str(tmp_path)) for a in entry.argv]
    result = CliRunner().invoke(main, [*argv, "--diagnostics", "json"], catch_exceptions=False)
    emitted = [json.loads(line)["code"] for line in result.stderr.splitlines() if line]
    assert code in emitted, result.stderr
    assert result.exit_code == (2 if code in USAGE else 1 if code[0] == "E" else 0)
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("code", sorted(CODES))
def test_explanation_has_every_section(code: str) -> None:
    text = CODES[code].explanation
    for section in ("## What it means", "## Why", "## Example", "## How to fix"):
        assert section in text
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", CODES[code].name)
    assert CODES[code].summary == CODES[code].summary.rstrip(".")


def test_names_are_unique_and_lookup_works() -> None:
    names = [c.name for c in CODES.values()]
    assert len(names) == len(set(names))
    assert lookup("e101") is CODES["E101"]
    assert lookup("unknown-field") is CODES["E101"]
    assert lookup("nope") is None


def test_every_code_used_in_the_source_is_registered() -> None:
    used = set()
    for path in SOURCES.rglob("*.py"):
        if path.name == "codes.py":
            continue
        used |= set(re.findall(r'"([EWN][0-9]{3})"', path.read_text()))
    assert used <= set(CODES), sorted(used - set(CODES))


def test_every_registered_code_is_used_somewhere() -> None:
    used = set()
    for path in SOURCES.rglob("*.py"):
        if path.name != "codes.py":
            used |= set(re.findall(r'"([EWN][0-9]{3})"', path.read_text()))
    assert set(CODES) - used == set()


def test_codes_list_prints_every_code() -> None:
    result = CliRunner().invoke(main, ["codes"])
    assert result.exit_code == 0
    for code in CODES:
        assert code in result.stdout
