"""`flux-batch` against flux-core's own `flux batch` option parser (the `flux_batch_cli` fixture:
`BatchCmd` of the pinned flux-python wheel, built in-process): our option table is its option
table; our reader refuses what it refuses; every script the writer makes passes it, one
directive at a time, with no stray word."""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path
from typing import Any

import pytest

import bammmc
from bammmc.backends.flux_batch import render
from bammmc.backends.flux_batch_options import ALIASES, OPTIONS, SHORT
from bammmc.diagnostics.model import Reporter
from tests.conftest import FluxBatchOracle
from tests.formats.corpus_lists import known_faulty
from tests.formats.test_flux_batch import CORPUS_FILES, LOWER_CASES, read
from tests.formats.test_flux_batch_to_slurm import OTHER_FILES, SLURM_FILES


def flux_batch_accepts(parser: Any, directives: list[list[str]]) -> argparse.Namespace | None:
    namespace = None
    for words in directives:
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                namespace = parser.parse_args(words, namespace=namespace)
        except SystemExit:
            return None
    return namespace or argparse.Namespace(SCRIPT=[])


def test_option_table_is_flux_batchs(flux_batch_cli: Any) -> None:
    actions = {s: a for a in flux_batch_cli._actions for s in a.option_strings}
    longs = {s[2:] for s in actions if s.startswith("--")}
    assert longs == set(OPTIONS) | set(ALIASES)
    shorts = {s[1:] for s in actions if not s.startswith("--")}
    assert shorts == set(SHORT)
    for name, opt in OPTIONS.items():
        action = actions[f"--{name}"]
        kind = "none" if action.nargs == 0 else "optional" if action.nargs == "?" else "required"
        assert kind == opt.arg, name


@pytest.mark.parametrize(("directive", "path", "expected"), LOWER_CASES)
def test_what_we_read_flux_batch_accepts(
    directive: str, path: str | None, expected: Any, flux_batch_cli: Any
) -> None:
    text = f"#!/bin/sh\n#flux: {directive}\n"
    job, codes = read(text)
    assert job is not None, codes
    import shlex

    ns = flux_batch_accepts(flux_batch_cli, [shlex.split(directive)])
    assert ns is not None
    assert not ns.SCRIPT


@pytest.mark.parametrize(
    "directive",
    ["--bogus=1", "--ntasks=4", "-Z", "--exclusive=yes", "--queue", "-N", "-N two", "--time=30"],
)
def test_what_we_refuse_flux_batch_refuses(directive: str, flux_batch_cli: Any) -> None:
    _, codes = read(f"#!/bin/sh\n#flux: {directive}\n")
    assert {"E130", "E131", "E132", "E134", "W436"} & set(codes)
    assert flux_batch_accepts(flux_batch_cli, [directive.split()]) is None


def test_stray_words_become_the_script(flux_batch_cli: Any) -> None:
    _, codes = read("#!/bin/sh\n#flux: --requires=a|b\n")
    assert "W435" in codes
    ns = flux_batch_accepts(flux_batch_cli, [["--requires=a", "|", "b"]])
    assert ns is not None and ns.SCRIPT == ["|", "b"]


def _written(fmt: str, path: Path) -> str | None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    job, _ = bammmc.parse(text, fmt, filename=path.name)
    if job is None:  # a file its reader is known to refuse
        assert path.name in known_faulty()
        return None
    reporter = Reporter()
    script, _ = render(job, reporter)
    if any(d.is_error for d in reporter.diagnostics):
        return None
    return script


CASES = (
    [("slurm", p) for p in SLURM_FILES]
    + OTHER_FILES
    + [("flux-batch", p) for p in CORPUS_FILES if p.parent.name != "invalid"]
)


@pytest.mark.skipif(not CASES, reason="../shared/corpus is not here")
@pytest.mark.parametrize(("fmt", "path"), CASES, ids=[f"{f}/{p.name}" for f, p in CASES])
def test_written_scripts_pass_flux_batch(
    fmt: str, path: Path, flux_batch_cli: Any, flux_batch_oracle: FluxBatchOracle
) -> None:
    script = _written(fmt, path)
    if script is None:  # refused by its reader (checked in _written) or by the writer (E140)
        return
    ns = flux_batch_accepts(flux_batch_cli, flux_batch_oracle.directives(script))
    assert ns is not None, script
    assert not ns.SCRIPT, script
