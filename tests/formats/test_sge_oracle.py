"""No Grid Engine value adds to what the qmaster records (issue 18, item 4).

For each value of the tables below with each separator of the sub-language it goes into
(`[[host]:]path[,…]` paths, `-l` and `-v` lists, the `-pe` name, `-hold_jid` lists), the
writer either refuses it (E140 only, nothing reaches qsub) or writes a script whose job record,
as the real qmaster keeps it (../shared/oracles/sge/qsub-inspect, with the raw path lists and
their `PN_host`), is exactly the record of the same job with a plain value, with the value
itself where the plain value was: nothing added, nothing else changed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ORACLES, _start_sge
from tests.formats.separators import emit

#: (SPLAT spec with `{v}` for the value, the plain value, the payloads)
CASES: list[tuple[str, str, tuple[str, ...]]] = [
    (
        "{{execution: {{stdin: {v}}}}}",
        "plainin.txt",
        ("in:2024.txt", ":in.txt", "h:/p:q", "a,b", "a b", "x:"),
    ),
    (
        "{{execution: {{shell: {v}}}}}",
        "/bin/plainsh",
        ("/opt/a:b/sh", "h:/bin/sh", "/bin/a,/bin/b"),
    ),
    ("{{output: {{stdout: {v}}}}}", "plainout.txt", ("out:1.txt", "h:/x", "a b")),
    ("{{output: {{stderr: {v}}}}}", "plainerr.txt", ("err:1.txt",)),
    (
        "{{extensions: {{sge: {{resources: {{arch: {v}}}}}}}}}",
        "plainarch",
        ("x,h_rt=99", "x h_rt=99", "x=y"),
    ),
    (
        "{{execution: {{environment: {{vars: {{A: {v}}}}}}}}}",
        "plainval",
        ("x,B=1", "x=y", "p q", "a:b"),
    ),
    (
        "{{execution: {{environment: {{vars: {{{v}: '1'}}}}}}}}",
        "PLAINVAR",
        ("a,B", "A=B", "a b"),
    ),
    (
        "{{resources: {{tasks: 2}}, extensions: {{sge: {{pe: {v}}}}}}}",
        "plainpe",
        ("smp x", "a,b", "smp -l h_rt=99"),
    ),
    (
        "{{dependencies: [{{scheme: afterany, value: {v}}}]}}",
        "plainjob",
        ("1,2", "a b"),
    ),
]

PAIRS = [(template, plain, payload) for template, plain, payloads in CASES for payload in payloads]
#: the raw path lists of the record, with each entry's `PN_host`
RAW = ("JB_stdin_path_list", "JB_stdout_path_list", "JB_stderr_path_list", "JB_shell_list")


@pytest.fixture(scope="module")
def inspect(tmp_path_factory: pytest.TempPathFactory) -> Any:
    env = _start_sge()
    if isinstance(env, str):
        pytest.skip(env)
    folder: Path = tmp_path_factory.mktemp("sge-oracle")
    seen: dict[str, Any] = {}

    def record(text: str) -> Any:
        if text not in seen:
            where = folder / str(len(seen))
            where.mkdir()
            path = where / "job.sge"  # the same name for every job: it is the default -N
            path.write_text(text)
            done = subprocess.run(
                [str(ORACLES / "sge" / "qsub-inspect"), "--raw", str(path)],
                capture_output=True,
                text=True,
                env=env,
                cwd=where,
                timeout=120,
                check=False,
            )
            if done.returncode == 3:
                pytest.skip("the Grid Engine oracle is not reachable: " + done.stderr.strip())
            data = json.loads(done.stdout)
            assert data["accepted"], (data["message"], text)
            job = data["job"]
            for key in ("script_file",):
                job.pop(key, None)
            seen[text] = (job, {k: data["raw"].get(k) for k in RAW})
        return seen[text]

    return record


def _swap(value: Any, plain: str, payload: str) -> Any:
    """The record of the plain job with the plain value put back as the payload."""
    if isinstance(value, str):
        return value.replace(plain, payload)
    if isinstance(value, (list, tuple)):
        return type(value)(_swap(v, plain, payload) for v in value)
    if isinstance(value, dict):
        return {_swap(k, plain, payload): _swap(v, plain, payload) for k, v in value.items()}
    return value


@pytest.mark.oracle
@pytest.mark.parametrize(("template", "plain", "payload"), PAIRS)
def test_qmaster_records_what_the_plain_value_gives(
    template: str, plain: str, payload: str, inspect: Any
) -> None:
    text, diags = emit(template.format(v=json.dumps(payload)), "sge")
    errors = [d for d in diags if d.is_error]
    if errors:  # refused: nothing reaches qsub
        assert {d.code for d in errors} == {"E140"}, errors
        return
    assert text is not None
    reference, ref_diags = emit(template.format(v=json.dumps(plain)), "sge")
    assert reference is not None and not [d for d in ref_diags if d.is_error]
    assert inspect(text) == _swap(inspect(reference), plain, payload), text
