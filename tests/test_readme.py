"""The README's two set-up commands are what CI runs, and the first one really converts."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", setup, re.S)


def test_exactly_two_setup_commands() -> None:
    commands = _commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert "pip install ." in commands[0] and "bammmc examples/" in commands[0]
    assert "'.[test]'" in commands[1] and "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    test_cmd = _commands()[1]
    assert test_cmd in ci  # run as a line of its own
    assert f'TEST_CMD="{test_cmd}"' in ci  # and compared with the README's when CI runs


def test_readme_conversion_example_exists() -> None:
    example = re.search(r"bammmc (examples/\S+)", _commands()[0])
    assert example is not None and (ROOT / example.group(1)).is_file()
