"""`--preserve` (bammmc/preserve.py, docs/preserve.md): the block each target gets, what it
holds, that reading restores exactly, that a tampered block is ignored (W411) and an edited
field wins over the block (W412), and — with the oracles — that the block changes nothing the
scheduler reads."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from bammmc import preserve
from bammmc.backends import OutputFile, WriteOptions
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.ir.job import Job
from bammmc.pipeline import compile_text, emit_job, get_format
from bammmc.registry import FORMATS
from tests.conftest import (
    BIG_CLUSTER,
    ORACLES,
    CondorOracle,
    FluxBatchOracle,
    _start_slurm,
    without_site_names,
)

ROOT = Path(__file__).parent.parent
MPI = ROOT / "examples" / "hpc-mpi-job.yaml"
#: every target but SPLAT, which carries every field itself
TARGETS = [name for name in FORMATS if preserve.placement(name) is not None]
COMMENT_TARGETS = [name for name in TARGETS if preserve.placement(name) == "comment"]
#: the directive prefixes of every scheduler (and HTCondor's `queue`)
DIRECTIVES = ("#SBATCH", "#PBS", "#BSUB", "#$", "#flux:", "# flux:", "#MSUB", "queue")
HEADER = re.compile(r"# bammmc-preserve v1 sha256=[0-9a-f]{64}")
PAYLOAD = re.compile(r"# [A-Za-z0-9_-]{1,74}")


def read(text: str, fmt: str) -> tuple[Job | None, list[Diagnostic]]:
    reporter = Reporter("job")
    compiled = compile_text(text, get_format(fmt), reporter)
    return (compiled[0].job if compiled else None), reporter.diagnostics


def source(path: Path = MPI) -> Job:
    job, _ = read(path.read_text(), "slurm" if path.suffix == ".sbatch" else "splat")
    assert job is not None
    return job


def write(
    job: Job, fmt: str, keep: bool = True, **options: Any
) -> tuple[list[OutputFile], list[Diagnostic]]:
    reporter = Reporter("job")
    files = emit_job(job, get_format(fmt), reporter, None, WriteOptions(preserve=keep, **options))
    assert not reporter.has_errors, reporter.diagnostics
    return files, reporter.diagnostics


def codes(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics if d.code in ("W411", "W412")]


def block_of(text: str) -> tuple[str, list[str]]:
    """``(text before the block, the block's lines)`` of a comment-form output."""
    at = text.rindex("\n# bammmc-preserve ") + 1
    return text[:at], text[at:].splitlines()


# ── the block, per target ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("fmt", TARGETS)
def test_each_target_round_trips_exactly(fmt: str) -> None:
    job = source()
    plain, _ = write(job, fmt, keep=False)
    kept, diagnostics = write(job, fmt)
    lossy, _ = read(plain[0].text, fmt)
    assert lossy != job  # the target alone loses something: the block has work to do
    back, more = read(kept[0].text, fmt)
    assert back == job
    assert codes(diagnostics + more) == []
    # the extra files (HTCondor's script) are the same with and without the block
    assert [f.text for f in kept[1:]] == [f.text for f in plain[1:]]


@pytest.mark.parametrize("fmt", COMMENT_TARGETS)
def test_comment_block_is_only_appended_comment_lines(fmt: str) -> None:
    job = source()
    plain, _ = write(job, fmt, keep=False)
    kept, _ = write(job, fmt)
    before, lines = block_of(kept[0].text)
    # the output is the plain output, a blank line, then the block: nothing else moved
    assert before == plain[0].text + "\n"
    assert kept[0].text.endswith("\n")
    assert HEADER.fullmatch(lines[0]), lines[0]
    assert lines[1:] and all(PAYLOAD.fullmatch(line) for line in lines[1:]), lines
    for line in lines:
        assert not line.startswith(DIRECTIVES)
        assert len(line) <= (92 if line is lines[0] else 76)
        assert "flux:" not in line.lower() and "\r" not in line and "\u2028" not in line


@pytest.mark.parametrize("as_json", [False, True], ids=["yaml", "json"])
def test_flux_block_is_a_user_attribute(as_json: bool) -> None:
    job = source()
    plain, _ = write(job, "flux", keep=False, flux_json=as_json)
    kept, _ = write(job, "flux", flux_json=as_json)
    load = json.loads if as_json else yaml.safe_load
    with_block, without = load(kept[0].text), load(plain[0].text)
    block = with_block["attributes"]["user"].pop("bammmc")
    assert set(block) == {"preserve", "sha256", "payload"}
    assert block["preserve"] == 1 and re.fullmatch(r"[0-9a-f]{64}", block["sha256"])
    assert re.fullmatch(r"[A-Za-z0-9_-]+", block["payload"])
    if not with_block["attributes"]["user"]:
        del with_block["attributes"]["user"]
    assert with_block == without  # the block is the only difference
    back, _ = read(kept[0].text, "flux")
    assert back == job


@pytest.mark.parametrize("fmt", ["slurm", "htcondor"])
def test_the_library_api_preserves_too(fmt: str) -> None:
    """`bammmc.convert(..., preserve=True)` is `--preserve`: SPLAT -> fmt -> SPLAT is exact."""
    import bammmc

    text = MPI.read_text()
    plain, _ = bammmc.convert(text, "splat", fmt)
    kept, _ = bammmc.convert(text, "splat", fmt, preserve=True)
    assert plain is not None and kept is not None
    assert "bammmc-preserve" in kept and "bammmc-preserve" not in plain
    job, _ = bammmc.parse(text, "splat")
    assert job is not None
    assert bammmc.parse(kept, fmt)[0] == job
    assert bammmc.emit(job, fmt, preserve=True)[0] == kept


def test_splat_needs_no_block() -> None:
    job = source()
    kept, _ = write(job, "splat")
    plain, _ = write(job, "splat", keep=False)
    assert kept[0].text == plain[0].text
    assert read(kept[0].text, "splat")[0] == job


@pytest.mark.parametrize("fmt", ["slurm", "flux"])
def test_an_empty_patch_writes_no_block(fmt: str) -> None:
    """A job the target carries exactly gets the same bytes as without `--preserve`."""
    plain, _ = write(source(), fmt, keep=False)
    job, _ = read(plain[0].text, fmt)  # what the target carries, read back: nothing to keep
    assert job is not None
    once, _ = write(job, fmt, keep=False)
    kept, _ = write(job, fmt)
    assert kept[0].text == once[0].text
    assert (
        "bammmc-preserve" not in kept[0].text
        and "bammmc" not in str(yaml.safe_load(kept[0].text).get("attributes", {}).get("user", {}))
        if fmt == "flux"
        else True
    )


def test_lost_field_warnings_stay_and_say_the_field_is_kept() -> None:
    _, diagnostics = write(source(), "pbs")
    lost = [d for d in diagnostics if d.code == "W201" and d.field == "spec.schedule.qos"]
    assert lost, diagnostics
    assert any("kept in the `bammmc-preserve` comment block" in n for n in lost[0].notes)
    _, plain = write(source(), "pbs", keep=False)
    assert [d.code for d in plain] == [d.code for d in diagnostics]


def test_restored_fields_point_at_the_block() -> None:
    kept, _ = write(source(), "pbs")
    reporter = Reporter("job.pbs")
    compiled = compile_text(kept[0].text, get_format("pbs"), reporter)
    span = compiled[0].source_map.key("spec.schedule.qos")
    header_line = kept[0].text[: kept[0].text.index("# bammmc-preserve")].count("\n") + 1
    assert span is not None and span.line == header_line


# ── tampering and edits ──────────────────────────────────────────────────────────────────


def _flip(text: str, at: int) -> str:
    return text[:at] + ("A" if text[at] != "A" else "B") + text[at + 1 :]


TAMPER: dict[str, Callable[[str], str]] = {
    "digest": lambda t: _flip(t, t.index("sha256=") + 7),
    "payload": lambda t: _flip(t, t.rindex("\n# ") + 5),
    "payload-line-removed": lambda t: t[: t.rindex("\n# ") + 1],
    "line-after-block": lambda t: t + "echo late\n",
    "version": lambda t: t.replace("# bammmc-preserve v1 ", "# bammmc-preserve v2 "),
    "header-garbled": lambda t: t.replace("sha256=", "sha=", 1),
    "not-base64": lambda t: t[: t.rindex("\n# ") + 3] + "!" + t[t.rindex("\n# ") + 4 :],
}


@pytest.mark.parametrize("fmt", ["slurm", "pbs", "htcondor", "flux-batch"])
@pytest.mark.parametrize("how", list(TAMPER))
def test_a_tampered_block_is_ignored(fmt: str, how: str) -> None:
    job = source()
    kept, _ = write(job, fmt)
    tampered = TAMPER[how](kept[0].text)
    assert tampered != kept[0].text
    back, diagnostics = read(tampered, fmt)
    assert codes(diagnostics) == ["W411"], diagnostics
    assert back != job  # nothing was restored
    w411 = next(d for d in diagnostics if d.code == "W411")
    assert w411.span is not None and "bammmc-preserve" in tampered.splitlines()[w411.span.line - 1]


@pytest.mark.parametrize("what", ["sha256", "payload", "preserve"])
def test_a_tampered_flux_block_is_ignored(what: str) -> None:
    job = source()
    kept, _ = write(job, "flux", flux_json=True)
    doc = json.loads(kept[0].text)
    block = doc["attributes"]["user"]["bammmc"]
    block[what] = 2 if what == "preserve" else _flip(block[what], 3)
    back, diagnostics = read(json.dumps(doc), "flux")
    assert codes(diagnostics) == ["W411"]
    assert back is not None and back != job
    # the block never reaches the job's user attributes, valid or not
    flux = back.spec.extensions.flux if back.spec and back.spec.extensions else None
    assert flux is None or "bammmc" not in (flux.user_attributes or {})


def test_a_block_for_another_format_is_ignored() -> None:
    kept, _ = write(source(), "pbs")
    _, diagnostics = read(kept[0].text, "torque")
    assert codes(diagnostics) == ["W411"]
    assert "written for `pbs`" in next(d.message for d in diagnostics if d.code == "W411")


def test_an_edited_field_keeps_the_users_value() -> None:
    job = source()
    kept, _ = write(job, "slurm")
    text = kept[0].text
    # a field the block does not hold: edited freely, no warning
    assert "#SBATCH --job-name=gmx-lysozyme-md\n" in text
    edited = text.replace("#SBATCH --job-name=gmx-lysozyme-md\n", "#SBATCH --job-name=renamed\n")
    back, diagnostics = read(edited, "slurm")
    assert back is not None and codes(diagnostics) == []
    assert back.metadata is not None and back.metadata.name == "renamed"
    # the other fields the block holds are still restored
    qos = back.spec.schedule.qos if back.spec and back.spec.schedule else None
    assert qos == job.spec.schedule.qos if job.spec and job.spec.schedule else True
    assert back.spec is not None and job.spec is not None
    assert back.spec.extensions == job.spec.extensions


def test_an_edit_of_a_field_the_block_holds_is_w412() -> None:
    text = (
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  resources:\n    cpusPerTask: 500m\n"
        "  execution:\n    script: |\n      #!/bin/bash\n      echo hi\n"
    )
    job, _ = read(text, "splat")
    assert job is not None
    kept, _ = write(job, "slurm")
    edited = kept[0].text.replace("--cpus-per-task=1\n", "--cpus-per-task=2\n")
    back, diagnostics = read(edited, "slurm")
    assert codes(diagnostics) == ["W412"]
    w412 = next(d for d in diagnostics if d.code == "W412")
    assert w412.field == "spec.resources.cpusPerTask"
    assert back is not None and back.spec is not None and back.spec.resources is not None
    assert back.spec.resources.cpus_per_task is not None
    assert str(back.spec.resources.cpus_per_task.wire()) == "2"
    assert back.spec.output == job.spec.output if job.spec else False  # the rest restored


def test_deleting_the_block_drops_what_it_kept() -> None:
    job = source()
    kept, _ = write(job, "pbs")
    plain, _ = write(job, "pbs", keep=False)
    before, _ = block_of(kept[0].text)
    assert read(before[:-1], "pbs")[0] == read(plain[0].text, "pbs")[0]


# ── script safety ────────────────────────────────────────────────────────────────────────


def _script_job(script: str) -> Job:
    text = yaml.safe_dump(
        {
            "apiVersion": "bammm.io/v1alpha1",
            "kind": "Job",
            "metadata": {"labels": {"team": "a"}},
            "spec": {"execution": {"script": script}},
        }
    )
    job, _ = read(text, "splat")
    assert job is not None
    return job


SCRIPTS = {
    "continuation": "#!/bin/bash\necho one\\\n",
    "no-final-newline": "#!/bin/bash\necho one",
    "continuation-no-newline": "#!/bin/bash\necho one\\",
    "closed-heredoc": "#!/bin/bash\ncat <<'EOF'\nline\nEOF\necho after\n",
    "dash-heredoc": "#!/bin/bash\ncat <<-END\n\tline\n\tEND\n",
    "open-heredoc": "#!/bin/bash\ncat <<EOF\nno end\n",  # no block: W411
}


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
@pytest.mark.parametrize("name", list(SCRIPTS))
@pytest.mark.parametrize("fmt", ["slurm", "pbs", "sge", "lsf", "flux-batch"])
def test_the_block_does_not_change_what_bash_runs(name: str, fmt: str, tmp_path: Path) -> None:
    """bash runs the output with and without the block alike (same stdout, stderr, status)."""
    job = _script_job(SCRIPTS[name])
    results = []
    for keep in (False, True):
        files, _ = write(job, fmt, keep=keep)
        path = tmp_path / f"{keep}.sh"
        path.write_text(files[0].text)
        proc = subprocess.run(
            ["bash", str(path)], capture_output=True, text=True, timeout=30, check=False
        )
        results.append((proc.returncode, proc.stdout, proc.stderr.replace(str(path), "")))
    assert results[0] == results[1]
    if name != "open-heredoc":
        assert read(files[0].text, fmt)[0] == job


def test_a_script_ending_in_an_open_heredoc_gets_no_block() -> None:
    job = _script_job("#!/bin/bash\ncat <<EOF\nno end\n")
    files, diagnostics = write(job, "slurm")
    assert "bammmc-preserve" not in files[0].text
    assert codes(diagnostics) == ["W411"]
    assert "here-document" in next(d.message for d in diagnostics if d.code == "W411")


# ── oracles: the schedulers read the output with the block as without it ────────────────


@pytest.mark.oracle
@pytest.mark.parametrize("path", [MPI, ROOT / "examples" / "simple-job.yaml"])
def test_sbatch_accepts_the_block(
    path: Path, big_sbatch_check: Callable[..., tuple[bool, str]]
) -> None:
    kept, _ = write(source(path), "slurm")
    assert "# bammmc-preserve" in kept[0].text
    accepted, message = big_sbatch_check(without_site_names(kept[0].text), "-p", "batch")
    assert accepted, message


@pytest.mark.oracle
@pytest.mark.parametrize("path", [MPI, ROOT / "examples" / "simple-job.yaml"])
def test_sbatch_reads_the_same_options(
    path: Path, tmp_path: Path, big_sbatch_check: Callable[..., tuple[bool, str]]
) -> None:
    """sbatch's own table of options (`sbatch -v --test-only`, sbatch-inspect) is the same
    with and without the block."""
    env = _start_slurm(BIG_CLUSTER)
    assert not isinstance(env, str), env  # big_sbatch_check has started it (or skipped)
    job = source(path)
    seen = []
    for keep in (False, True):
        files, _ = write(job, "slurm", keep=keep)
        script = tmp_path / f"{keep}.sbatch"
        script.write_text(without_site_names(files[0].text))
        proc = subprocess.run(
            [sys.executable, str(ORACLES / "slurm" / "sbatch-inspect"), str(script), "-p", "batch"],
            capture_output=True,
            text=True,
            env={**os.environ, **BIG_CLUSTER, **env},
            timeout=120,
            check=False,
        )
        data = json.loads(proc.stdout)
        assert data["accepted"], data
        seen.append(data["components"])
    assert seen[0] == seen[1]
    assert seen[0]


@pytest.mark.oracle
@pytest.mark.parametrize("path", [MPI, ROOT / "examples" / "hello.sbatch"])
def test_htcondor_reads_the_same_submit_description(
    path: Path, condor_oracle: CondorOracle
) -> None:
    job = source(path)
    plain, _ = write(job, "htcondor", keep=False)
    kept, _ = write(job, "htcondor")
    assert "# bammmc-preserve" in kept[0].text
    with_block, without = condor_oracle.submit(kept[0].text), condor_oracle.submit(plain[0].text)
    assert with_block["ok"], with_block
    for key in ("keys", "queue", "itemdata", "errors"):
        assert with_block.get(key) == without.get(key), key


@pytest.mark.oracle
@pytest.mark.parametrize("as_json", [False, True], ids=["yaml", "json"])
def test_flux_schema_accepts_the_block(as_json: bool) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    path = ORACLES / "flux" / "schemas" / "flux-core-jobspec_v1.jsonschema"
    if not path.is_file():
        pytest.skip("Flux schemas not present")
    schema = json.loads(path.read_text())
    kept, _ = write(source(), "flux", flux_json=as_json)
    doc = json.loads(kept[0].text) if as_json else yaml.safe_load(kept[0].text)
    assert "bammmc" in doc["attributes"]["user"]
    jsonschema.validators.validator_for(schema)(schema).validate(doc)


@pytest.mark.oracle
@pytest.mark.parametrize("path", [MPI, ROOT / "examples" / "hello.sbatch"])
def test_flux_batch_directives_are_the_same(path: Path, flux_batch_oracle: FluxBatchOracle) -> None:
    job = source(path)
    plain, _ = write(job, "flux-batch", keep=False)
    kept, _ = write(job, "flux-batch")
    assert "# bammmc-preserve" in kept[0].text
    ok, args, error = flux_batch_oracle.parse(kept[0].text)
    assert ok, error
    assert (ok, args) == flux_batch_oracle.parse(plain[0].text)[:2]


# ── a block with a valid digest around hostile content ───────────────────────────────────


def _forged(body: bytes) -> str:
    """A Slurm script whose block has a correct digest around ``body`` (the digest is no
    signature: anyone can write one)."""
    import base64
    import hashlib
    import zlib

    payload = base64.urlsafe_b64encode(zlib.compress(body)).rstrip(b"=").decode()
    digest = hashlib.sha256(payload.encode()).hexdigest()
    return "#!/bin/bash\n#SBATCH -n 2\necho hi\n\n" + preserve.comment_block(digest, payload)


_PATCH = b'{"v":1,"to":"slurm","sep":"\\n","patch":[%s]}'
FORGED = {
    "deep-nesting": _PATCH
    % (b'{"p":["spec","placement","affinity"],"x":%s}' % (b"[" * 100_000 + b"]" * 100_000)),
    "nesting-past-the-limit": _PATCH
    % (b'{"p":["spec","placement","affinity"],"x":%s}' % (b"[" * 500 + b"]" * 500)),
    "not-a-patch": b"[1]",
    "other-version": b'{"v":2,"to":"slurm","sep":"\\n","patch":[]}',
    "empty-path": _PATCH % b'{"p":[],"x":1}',
    "unknown-key": _PATCH % b'{"p":["kind"],"z":1}',
    "invalid-value": _PATCH % b'{"p":["spec","resources","cpusPerTask"],"x":"zzz"}',
    "not-json": b"{",
}


@pytest.mark.parametrize("name", list(FORGED))
def test_a_forged_block_is_ignored_without_a_traceback(name: str) -> None:
    text = _forged(FORGED[name])
    back, diagnostics = read(text, "slurm")
    assert codes(diagnostics) == ["W411"], diagnostics
    plain, _ = read("#!/bin/bash\n#SBATCH -n 2\necho hi\n", "slurm")
    assert back == plain
