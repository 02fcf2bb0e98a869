"""Regenerate the expected output of the tests/cli/*.md command blocks that fail.

Run from the project's root after a change of output: `python tools/regen_cli.py`, then review
`git diff tests/cli`: every changed line is a change of what a user sees.
"""

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from click.testing import CliRunner, Result

import tests.test_cli_md as t
from bammmc.cli import main


def run(block: str, files: dict[str, str]) -> tuple[list[str], Result]:
    """The block's command run as the test runs it."""
    argv, stdin, _, _, _ = t._parse(block)
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) if files else t.ROOT
        for path, body in files.items():
            (Path(tmp) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / path).write_text(body)
        for line in block.splitlines():
            if not line.startswith("% cd "):
                break
            where = where / line[5:].strip()
        os.chdir(where)
        os.environ.pop("NO_COLOR", None)
        try:
            result = CliRunner().invoke(
                main, argv, input=stdin, catch_exceptions=False, prog_name="bammmc"
            )
        finally:
            os.chdir(cwd)
    return argv, result


def rewritten(block: str, result: Result) -> str:
    """The block with its command and input kept and the new output after them."""
    lines = block.splitlines()
    i = 0
    while lines[i].startswith("% cd "):
        i += 1
    head = lines[: i + 1]
    i += 1
    if "^D" in lines[i:]:
        head += lines[i : lines.index("^D", i) + 1]
    err = [f"2> {line}" if line else "2>" for line in result.stderr.splitlines()]
    body = result.stdout.splitlines() + err
    if result.exit_code:
        body.append(f"=> {result.exit_code}")
    return "\n".join(head + body) + "\n"


def regenerate() -> None:
    for md in sorted(t.CASES_DIR.glob("*.md")):
        text = md.read_text()
        files = {path: body for _, path, body in t.FILE.findall(text)}
        new = text
        for _, block in t.FENCE.findall(text):
            _, _, out, err, status = t._parse(block)
            argv, result = run(block, files)
            if (result.stdout, result.stderr, result.exit_code) == (out, err, status):
                continue
            new = new.replace(block, rewritten(block, result), 1)
            print("updated", md.name, argv[:4])
        md.write_text(new)


if __name__ == "__main__":
    regenerate()
