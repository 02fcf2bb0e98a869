"""`flux-batch`: the RFC 36 directive scanner, the `flux batch` options, lowering, the writer,
and agreement with Flux's own directive parser (tests/conftest.py `flux_batch_oracle`) over
../shared/corpus/flux/batch and over everything the writer emits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

import bammmc
from bammmc.backends.flux_batch import quote, render
from bammmc.backends.splat import enc_hook
from bammmc.diagnostics.model import Reporter
from bammmc.frontends.flux_batch import scan, sniff
from bammmc.ir.job import Job
from bammmc.ir.priority import from_native, to_native
from bammmc.passes.lower.flux_batch import fsd_seconds, lower
from tests.conftest import CORPUS, FluxBatchOracle, record_corpus
from tests.formats.honest import losses
from tests.formats.separators import directives, emit, refused

BATCH = CORPUS / "flux" / "batch"
CORPUS_FILES = sorted(p for p in BATCH.glob("*/*") if p.is_file()) if BATCH.is_dir() else []


def read(text: str) -> tuple[Job | None, list[str]]:
    reporter = Reporter(file="job.flux")
    script = scan(text, reporter)
    job, _ = lower(script, reporter)
    return job, [d.code for d in reporter.diagnostics]


def fields(job: Job | None) -> dict[str, Any]:
    assert job is not None
    data: dict[str, Any] = msgspec.to_builtins(job, enc_hook=enc_hook)
    return data


def spec_of(text: str) -> dict[str, Any]:
    job, codes = read(text)
    assert job is not None, codes
    spec: dict[str, Any] = fields(job)["spec"]
    return spec


# ── the directive scanner ─────────────────────────────────────────────────────────────────────

SCAN_CASES = [
    ("#!/bin/sh\n#FLUX: -N2\n", ["-N2"]),
    ("#!/bin/sh\n# flux: -N2 -n4  # comment\n", ["-N2", "-n4"]),
    ("#!/bin/sh\n-- flux: --queue=q\n", ["--queue=q"]),
    ("#!/bin/sh\n#flux: --job-name=\"a b\" --output='x y'\n", ["--job-name=a b", "--output=x y"]),
    ("#!/bin/sh\n#flux: --job-name=a\\ b\n", ["--job-name=a b"]),
    ("#!/bin/sh\n#flux: --requires=a|b\n", ["--requires=a", "|", "b"]),
    ("#!/bin/sh\n#flux: --output=foo#bar\n", ["--output=foo"]),
    ("#!/bin/sh\n#flux: # -N8\n#flux: -N1\n", ["-N1"]),
    ("#!/bin/sh\n#flux:\n#flux: -N1\n", ["-N1"]),
    ("#!/bin/sh\nset -e\n#flux: -N1\n#\n#flux: -n2\necho\n", ["-N1", "-n2"]),
    ('#!/bin/sh\n#flux: --job-name="""it\'s "x\\""""\n', None),
    ("#!/bin/sh\n#flux: --job-name='''It's a \"job\"'''\n", ['--job-name=It\'s a "job"']),
    (
        '#!/bin/sh\n#flux: --setattr=user.c="""\n#flux: [a]\n#flux:   b = 1\n#flux: """\n',
        ["--setattr=user.c=[a]\n  b = 1\n"],
    ),
    ("#!/bin/sh\n#flux: -N1\nhostname\n#flux: -n2\n", "E031"),
    ("#!/bin/sh\n#flux: -N1\n#FLUX: -n2\n", "E030"),
    ("#!/bin/sh\n#flux: -N1\n# flux: -n2\n", "E030"),
    ('#!/bin/sh\n#flux: --setattr=x="""\n#flux: a\nhostname\n', "E032"),
    ("#!/bin/sh\n#flux: --job-name='''abc\n", "E032"),
    ("#!/bin/sh\n#flux: nodes=2\n", "E033"),
    ('#!/bin/sh\n#flux: --job-name="abc\n', "E020"),
    ("#!/bin/sh\n#flux: --job-name=abc\\\n", "E020"),
]


@pytest.mark.parametrize(("text", "expected"), SCAN_CASES)
def test_scanner(
    text: str, expected: list[str] | str | None, flux_batch_oracle: FluxBatchOracle
) -> None:
    reporter = Reporter(file="job.flux")
    script = scan(text, reporter)
    codes = [d.code for d in reporter.diagnostics]
    ok, args, error = flux_batch_oracle.parse(text)
    assert script.ok == ok, (codes, error)
    if ok:
        assert script.args == args
    if isinstance(expected, list):
        assert script.args == expected
    elif isinstance(expected, str):
        assert expected in codes
        assert not ok


def test_directive_lines_leave_the_body() -> None:
    reporter = Reporter()
    script = scan("#!/bin/sh\n# note\n#FLUX: -N2\n#FLUX: -n4\nhostname\n", reporter)
    assert script.script == "#!/bin/sh\n# note\nhostname\n"
    assert script.directive_lines == [3, 4]
    assert script.sentinel == "#FLUX:"


def test_spans_point_at_the_option() -> None:
    reporter = Reporter(file="job.flux")
    scan("#!/bin/sh\n#flux: -N2 --bogus=1\n", reporter)
    (diag,) = reporter.diagnostics
    assert diag.code == "E130"
    assert diag.span is not None
    assert (diag.span.line, diag.span.column) == (2, 12)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#!/bin/sh\n#FLUX: -N2\nhostname\n", True),
        ("#!/bin/sh\n# flux: -N2\n", True),
        ("-- flux: -N1\n", True),
        ("#!/bin/sh\n#SBATCH -N2\n", False),
        ("#!/bin/sh\necho flux: hi\n", False),
    ],
)
def test_sniff(text: str, expected: bool) -> None:
    assert sniff(text) is expected


# ── options and lowering ──────────────────────────────────────────────────────────────────────

LOWER_CASES: list[tuple[str, str | None, Any]] = [
    ("-N4", "resources.nodes", 4),
    ("--nodes=4", "resources.nodes", 4),
    ("-n 8", "resources.tasks", 8),
    ("--nslots=8", "resources.tasks", 8),
    ("-c4", "resources.cpusPerTask", 4),
    ("--cores-per-slot=4", "resources.cpusPerTask", 4),
    ("-g2", "resources.gpu.count", 2),
    ("-N2 -x", "placement.exclusive", True),
    ("-t 30", "schedule.walltime", "PT30M"),
    ("-t 30s", "schedule.walltime", "PT30S"),
    ("-t 2.5m", "schedule.walltime", "PT2M30S"),
    ("--time-limit=1h", "schedule.walltime", "PT1H"),
    ("-t 2d", "schedule.walltime", "P2D"),
    ("-t inf", "schedule.walltime", "unlimited"),
    ("-q batch", "schedule.queue", "batch"),
    ("--queue=debug", "schedule.queue", "debug"),
    ("-B mybank", "schedule.account", "mybank"),
    ("--bank=mybank", "schedule.account", "mybank"),
    ("--urgency=16", "schedule.priority", from_native(16, "flux")),
    ("--urgency=31", "schedule.priority", from_native(31, "flux")),
    ("--urgency=0", "schedule.hold", True),
    ("--urgency=hold", "schedule.hold", True),
    ("--urgency=expedite", "schedule.priority", from_native(31, "flux")),
    ("--job-name=sweep", None, "sweep"),
    ("--output=out.{{id}}.log", "output.stdout", "out.{job_id}.log"),
    ("--output={{name}}-{{jobid}}.txt", "output.stdout", "{job_name}-{job_id}.txt"),
    ("--error=err.log", "output.stderr", "err.log"),
    ("--cwd=/scratch/run", "execution.workingDir", "/scratch/run"),
    ("--env=OMP_NUM_THREADS=4", "execution.environment.vars", {"OMP_NUM_THREADS": "4"}),
    ("--env=-*", "execution.environment.inheritFromSubmitter", False),
    ("--signal=SIGUSR1@2m", "schedule.signalBeforeEnd", "SIGUSR1@120"),
    ("--signal=@30", "schedule.signalBeforeEnd", "SIGUSR1@30"),
    ("--begin-time=2030-01-02T03:04:05", "schedule.beginAfter", "2030-01-02T03:04:05"),
    ("--requires=ssd", "placement.constraint", "ssd"),
    ("--requires='ssd bigmem'", "placement.constraint", "ssd&bigmem"),
    ("--requires='a|b'", "placement.constraint", "a|b"),
    ("--requires=-host:n7", "extensions.flux.batch_options.requires", ["-host:n7"]),
    ("--dependency=afterok:123", "dependencies", [{"scheme": "afterok", "value": "123"}]),
    ("--dependency=afterstart:f2Zq", "dependencies", [{"scheme": "after", "value": "f2Zq"}]),
    ("--dependency=singleton", "dependencies", [{"scheme": "singleton"}]),
    (
        "--dependency=string:foo?type=out",
        "extensions.flux.batch_options.dependency",
        ["string:foo?type=out"],
    ),
    ("-S user.x=1", "extensions.flux.user_attributes", {"x": 1}),
    ("--setattr=user.conf='{\"a\": [1]}'", "extensions.flux.user_attributes", {"conf": {"a": [1]}}),
    ("--setattr=user.flag", "extensions.flux.user_attributes", {"flag": 1}),
    ("--setattr=system.x=1", "extensions.flux.batch_options.setattr", ["system.x=1"]),
    ("--setattr=user.a.b=1", "extensions.flux.batch_options.setattr", ["user.a.b=1"]),
    ("--setopt=mpibind=off", "extensions.flux.shell_options", {"mpibind": "off"}),
    ("-o mpibind=off", "extensions.flux.shell_options", {"mpibind": "off"}),
    (
        "-o output.stdout.mode=append",
        "extensions.flux.batch_options.setopt",
        ["output.stdout.mode=append"],
    ),
    ("--begin-time=+1h", "extensions.flux.batch_options.begin-time", ["+1h"]),
    ("--output=o.{{node.id}}", "extensions.flux.batch_options.output", ["o.{{node.id}}"]),
    ("-u", "extensions.flux.batch_options.unbuffered", [""]),
    ("--env=PATH", "extensions.flux.batch_options.env", ["PATH"]),
    ("--env=-LD_PRELOAD", "extensions.flux.env_unset", ["LD_PRELOAD"]),
    ("--env=0=1", "execution.environment.vars", {"0": "1"}),
    ("--env=a.b=1", "execution.environment.vars", {"a.b": "1"}),
    # flux/job/_utils.py get_filtered_environment: `$` is substituted in the value alone, and
    # a value holding `{{` goes to the job shell's mustache renderer as it is
    ("--env=A$B=1", "execution.environment.vars", {"A$B": "1"}),
    ("--env=X=a{{b$HOME", "execution.environment.vars", {"X": "a{{b$HOME"}),
    ("--env=X={{id}}", "extensions.flux.batch_options.env", ["X={{id}}"]),
    ("--env=-LD_*", "extensions.flux.batch_options.env", ["-LD_*"]),
    ("--input=in.txt", "execution.stdin", "in.txt"),
    # an idset names the ranks that get stdin (flux-core tries `IDset(input)` first)
    ("--input=0-3", "extensions.flux.batch_options.input", ["0-3"]),
]


def _get(data: dict[str, Any], path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        node = node[part]
    return node


@pytest.mark.parametrize(("directive", "path", "expected"), LOWER_CASES)
def test_lowering(directive: str, path: str | None, expected: Any) -> None:
    job, codes = read(f"#!/bin/sh\n#flux: {directive}\nhostname\n")
    assert job is not None, codes
    data = fields(job)
    if path is None:
        assert data["metadata"]["name"] == expected
        return
    value = _get(data["spec"], path)
    if path == "resources.gpu.count" or path == "resources.cpusPerTask":
        value = int(value)
    assert value == expected


@pytest.mark.parametrize(
    ("directive", "code"),
    [
        ("--bogus=1", "E130"),
        ("--ntasks=4", "E130"),
        ("-Z", "E130"),
        ("--exclusive=yes", "E132"),
        ("--queue", "E131"),
        ("-N", "E131"),
        ("-N two", "E134"),
        ("-t 2x", "E134"),
        ("--urgency=40", "E134"),
        ("--signal=USR1@x", "E134"),
        ("--requires='(ssd'", "E134"),
        ("--dependency=afterok", "E134"),
        ("--time=30", "W436"),
        ("--requires=a|b", "W435"),
        ("--dry-run", "W406"),
    ],
)
def test_option_errors(directive: str, code: str) -> None:
    _, codes = read(f"#!/bin/sh\n#flux: {directive}\nhostname\n")
    assert code in codes


def test_stderr_merges_without_error() -> None:
    assert spec_of("#!/bin/sh\n#flux: -N1\n")["output"]["mergeStderr"] is True
    assert "mergeStderr" not in spec_of("#!/bin/sh\n#flux: -N1 --error=e\n").get("output", {})


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30", 30.0),
        ("2ms", 0.002),
        ("1.2h", 4320.0),
        ("5d", 432000.0),
        ("inf", None),
        ("INF", None),
    ],
)
def test_fsd(text: str, seconds: float | None) -> None:
    assert fsd_seconds(text) == pytest.approx(seconds) if seconds else fsd_seconds(text) is None


# ── the writer ────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "value",
    ["plain", "a b", "a|b", "x#y", "it's", 'say "hi"', "back\\slash", "", "''", '""', "{{id}}"],
)
def test_quote_survives_flux(value: str, flux_batch_oracle: FluxBatchOracle) -> None:
    ok, args, error = flux_batch_oracle.parse(f"#!/bin/sh\n#flux: --job-name={quote(value)}\n")
    assert ok, error
    assert args == [f"--job-name={value}"]


SPLAT_JOB = """\
apiVersion: bammm.io/v1alpha1
kind: Job
metadata:
  name: "sweep #7 | a&b"
spec:
  schedule:
    queue: batch
    account: proj
    priority: 500
    walltime: PT2H
    signalBeforeEnd: USR2@300
    beginAfter: "2030-01-02T03:04:05"
  resources:
    nodes: 2
    tasks: 8
    cpusPerTask: 4
    gpu: {count: 1}
  execution:
    workingDir: /scratch/my dir
    environment:
      vars: {A: "1", B: "x $HOME y"}
    script: |
      #!/bin/bash
      flux run -n8 ./app
  output:
    stdout: "out-{job_name}-{job_id}.log"
    stderr: "err-{job_id}.log"
  dependencies:
    - {scheme: afterok, value: "123"}
    - {scheme: after, value: "f2Zq"}
  placement:
    constraint: "ssd&bigmem"
    exclusive: true
  extensions:
    flux:
      shell_options: {cpu-affinity: per-task}
      user_attributes: {conf: "[run]\\nseed = 7\\n"}
"""


def test_writer_output_is_what_flux_reads(flux_batch_oracle: FluxBatchOracle) -> None:
    job, diags = bammmc.parse(SPLAT_JOB, "splat")
    assert job is not None, diags
    reporter = Reporter()
    text, args = render(job, reporter)
    ok, flux_args, error = flux_batch_oracle.parse(text)
    assert ok, (error, text)
    assert flux_args == args, text
    assert f"--urgency={to_native(500, 'flux')}" in args
    assert "--time-limit=2h" in args
    assert "--requires=ssd,bigmem" in args
    assert "--dependency=afterstart:f2Zq" in args
    assert "--env=B=x $$HOME y" in args
    assert "--output=out-{{name}}-{{id}}.log" in args
    assert not [d for d in reporter.diagnostics if d.is_error]


def test_writer_refuses_a_body_directive() -> None:
    job, _ = read("#!/bin/sh\n#flux: -N1\nhostname\n")
    assert job is not None
    assert job.spec is not None and job.spec.execution is not None
    body = "#!/bin/sh\necho hi\n#flux: -n2\n"
    job = msgspec.structs.replace(
        job,
        spec=msgspec.structs.replace(
            job.spec, execution=msgspec.structs.replace(job.spec.execution, script=body)
        ),
    )
    reporter = Reporter()
    render(job, reporter)
    assert "E140" in [d.code for d in reporter.diagnostics]


def test_array_is_reported_lost() -> None:
    out, diags = bammmc.convert(
        "#!/bin/bash\n#SBATCH --array=1-10%2\nhostname\n", "slurm", "flux-batch"
    )
    assert out is not None
    assert any(d.code == "W201" and "spec.array" in d.message for d in diags)


# ── the corpus: our reader agrees with Flux's parser ──────────────────────────────────────────


@pytest.mark.skipif(not CORPUS_FILES, reason="../shared/corpus/flux/batch is not here")
@pytest.mark.parametrize(
    "path", CORPUS_FILES, ids=[f"{p.parent.name}/{p.name}" for p in CORPUS_FILES]
)
def test_reader_agrees_with_flux(path: Path, flux_batch_oracle: FluxBatchOracle) -> None:
    text = path.read_text(encoding="utf-8")
    reporter = Reporter(file=path.name)
    script = scan(text, reporter)
    ok, args, error = flux_batch_oracle.parse(text)
    _, diagnostics = bammmc.parse(text, "flux-batch", filename=path.name)
    record_corpus("flux-batch", f"{path.parent.name}/{path.name}", diagnostics)
    assert script.ok == ok, ([d.message for d in reporter.diagnostics], error)
    assert (path.parent.name == "invalid") == (not ok)
    if ok:
        assert script.args == args


@pytest.mark.skipif(not CORPUS_FILES, reason="../shared/corpus/flux/batch is not here")
@pytest.mark.parametrize(
    "path",
    [p for p in CORPUS_FILES if p.parent.name != "invalid"],
    ids=[f"{p.parent.name}/{p.name}" for p in CORPUS_FILES if p.parent.name != "invalid"],
)
def test_round_trip_reproduces_every_directive(
    path: Path, flux_batch_oracle: FluxBatchOracle
) -> None:
    """flux-batch -> splat -> flux-batch: Flux reads the same options from the written script
    (the last of a repeated single-valued option, which is the one `flux batch` keeps)."""
    text = path.read_text(encoding="utf-8")
    once, diags = bammmc.convert(text, "flux-batch", "splat", filename=path.name)
    assert once is not None, diags
    again, diags = bammmc.convert(once, "splat", "flux-batch")
    assert again is not None, diags
    ok, _, error = flux_batch_oracle.parse(again)
    assert ok, error
    # and the written script is stable: read and written again, it is the same text
    third, _ = bammmc.convert(again, "flux-batch", "flux-batch")
    assert third == again
    first, _ = read(text)
    second, _ = read(again)
    assert fields(first)["spec"].get("resources") == fields(second)["spec"].get("resources")
    one, two = fields(first), fields(second)
    for data in (one, two):
        data["spec"].setdefault("execution", {}).pop("script", None)
        if not data["spec"]["execution"]:
            del data["spec"]["execution"]
    assert one == two


@pytest.mark.parametrize(
    ("directives", "written", "code"),
    [
        ("#SBATCH --priority=1000", "#flux: --urgency=31", "W301"),
        ("#SBATCH --hold", "#flux: --urgency=hold", None),
        ("#SBATCH --time=90", "#flux: --time-limit=90m", None),
        ("#SBATCH --constraint='a|b&c'", "#flux: --requires=a\\ \\|\\ b,c", None),
        ("#SBATCH --dependency=after:12", "#flux: --dependency=afterstart:12", None),
        ("#SBATCH -N2 --ntasks-per-node=4", "#flux: --nslots=8", "W301"),
        ("#SBATCH -o out-%j-%a.log", None, "W201"),
        # flux batch refuses a job without -n or -N ("Number of slots to allocate must be
        # specified", BatchAllocCmd.init_common() in flux/cli/base.py); sbatch runs one task
        ("#SBATCH --time=5", "#flux: --nslots=1", None),
        # --gres is per node; one node of one task: one slot with both GPUs
        ("#SBATCH --gres=gpu:2", "#flux: --gpus-per-slot=2", None),
        # -N alone: one exclusive slot per node (init_common: nslots = nodes)
        ("#SBATCH -N2 --gres=gpu:2", "#flux: --gpus-per-slot=2", None),
        # half a GPU per slot: a whole one each, more than asked rather than none
        ("#SBATCH -n4 --gres=gpu:2", "#flux: --gpus-per-slot=1", "W301"),
    ],
)
def test_writer_from_slurm(directives: str, written: str | None, code: str | None) -> None:
    out, diags = bammmc.convert(f"#!/bin/bash\n{directives}\nhostname\n", "slurm", "flux-batch")
    assert out is not None, diags
    if written is not None:
        assert written in out.splitlines(), out
    if code is not None:
        assert code in [d.code for d in diags]


FROM_JOBSPEC_KEYS = """\
apiVersion: bammm.io/v1alpha1
kind: Job
spec:
  resources: {tasks: 2}
  extensions:
    flux:
      symbolic_dependencies:
        - {scheme: fluid, value: restart, type: in, scope: user}
      constraints_spec: {not: [{hostlist: ["node7"]}]}
      env_unset: [DISPLAY]
      shell_options: {cpu-affinity: per-task}
      user_attributes: {member: 7}
"""


def test_writer_carries_the_jobspec_keys(flux_batch_oracle: FluxBatchOracle) -> None:
    job, diags = bammmc.parse(FROM_JOBSPEC_KEYS, "splat")
    assert job is not None, diags
    reporter = Reporter()
    text, args = render(job, reporter)
    ok, flux_args, error = flux_batch_oracle.parse(text)
    assert ok, error
    assert flux_args == args
    assert "--dependency=fluid:restart?type=in&scope=user" in args
    assert "--requires=-host:node7" in args
    assert "--env=-DISPLAY" in args
    assert "--setopt=cpu-affinity=per-task" in args
    assert "--setattr=user.member=7" in args
    assert not [d for d in reporter.diagnostics if d.code == "W201"]


@pytest.mark.parametrize("directive", ["-t 0.5s", "-t 0", "--output=o.{{node.id}}", "-t 2d"])
def test_kept_options_come_back_once(directive: str) -> None:
    text = f"#!/bin/sh\n#flux: {directive}\nhostname\n"
    once, _ = bammmc.convert(text, "flux-batch", "flux-batch")
    assert once is not None
    twice, diags = bammmc.convert(once, "flux-batch", "flux-batch")
    assert twice == once
    assert "W407" not in [d.code for d in diags]
    assert sum(line.startswith("#flux:") for line in once.splitlines()) == 1, once


def test_a_script_without_shebang_is_noted() -> None:
    _, codes = read("#flux: -N1\nhostname\n")
    assert "W409" in codes
    out, _ = bammmc.convert("#flux: -N1\nhostname\n", "flux-batch", "flux-batch")
    assert out is not None and out.startswith("#!/bin/sh\n#flux: --nodes=1\n")


# ── losses the honesty test (tests/test_honesty.py) found silent: each now has its diagnostic ──

HONEST_FLUX_BATCH = [
    # (SPLAT spec as YAML flow, target, the (code, field) pairs among the diagnostics)
    # a priority that rounds to urgency 1 (the lowest that runs) reads back as another priority
    ("{schedule: {priority: 23}}", "flux-batch", {("W301", "spec.schedule.priority")}),
    ("{schedule: {priority: 256}}", "flux-batch", {("W301", "spec.schedule.priority")}),
    # `--urgency` reads back as `schedule.priority` (common.MIRRORS): for another target the
    # raw urgency is approximated by the priority when one is set, lost otherwise
    (
        "{schedule: {priority: 645}, extensions: {flux: {urgency: 20}}}",
        "slurm",
        {("W301", "spec.extensions.flux.urgency")},
    ),
    ("{extensions: {flux: {urgency: 20}}}", "slurm", {("W201", "spec.extensions.flux.urgency")}),
    # a script's own arguments: a batch script has no place for them (`flux batch job.sh ARGS`)
    (
        '{execution: {script: "#!/bin/sh\\necho $1\\n", arguments: a}}',
        "flux-batch",
        {("W201", "spec.execution.arguments")},
    ),
    # arguments of a container command (no executable): nothing takes them
    (
        "{execution: {container: {image: i, command: [c]}, arguments: a}}",
        "flux-batch",
        {("W201", "spec.execution.arguments")},
    ),
    # flux batch runs only a script with `#!`: the added line is reported
    ("{execution: {script: hostname}}", "flux-batch", {("W301", "spec.execution.script")}),
    # merged streams with a separate stderr file: --error is not written
    (
        "{output: {stdout: o.log, stderr: e.log, mergeStderr: true}}",
        "flux-batch",
        {("W301", "spec.output.stderr")},
    ),
    (
        "{resources: {gpu: {count: 1, fraction: 0.5}}}",
        "flux-batch",
        {("W201", "spec.resources.gpu.fraction")},
    ),
    (
        "{resources: {gpu: {migProfile: 1g.10gb}}}",
        "flux-batch",
        {("W201", "spec.resources.gpu.migProfile")},
    ),
    (
        "{extensions: {flux: {preemptible_after: 60}}}",
        "flux-batch",
        {("W201", "spec.extensions.flux.preemptible_after")},
    ),
    # a scheme Flux does not know is written, and read back as a kept option
    (
        "{extensions: {flux: {symbolic_dependencies: [{scheme: x-y, value: v}]}}}",
        "flux-batch",
        {("W301", "spec.extensions.flux.symbolic_dependencies[0]")},
    ),
    (
        "{extensions: {flux: {user_attributes: {'.': 1}}}}",
        "flux-batch",
        {("W201", "spec.extensions.flux.user_attributes..")},
    ),
    ("{execution: {stdin: '0'}}", "flux-batch", {("W301", "spec.execution.stdin")}),
    # a rule that starts with `-` removes variables: such a name cannot be set (refused)
    (
        "{execution: {environment: {vars: {-x: '1'}}}}",
        "flux-batch",
        {("E140", "spec.execution.environment.vars.-x")},
    ),
    (
        "{execution: {container: {command: [app], args: [x]}}}",
        "flux-batch",
        {("W301", "spec.execution.container.command"), ("W301", "spec.execution.container.args")},
    ),
    (
        "{extensions: {flux: {user_attributes: {a.b: 1}}}}",
        "flux-batch",
        {("W301", "spec.extensions.flux.user_attributes.a.b")},
    ),
    (
        "{extensions: {flux: {urgency: 0}}}",
        "flux-batch",
        {("W301", "spec.extensions.flux.urgency")},
    ),
    (
        "{schedule: {hold: true}, extensions: {flux: {urgency: 5}}}",
        "flux-batch",
        {("W201", "spec.extensions.flux.urgency")},
    ),
    (
        "{extensions: {flux: {version: 2}}}",
        "flux-batch",
        {("W201", "spec.extensions.flux.version")},
    ),
    (
        "{extensions: {flux: {env_unset: [a*]}}}",
        "flux-batch",
        {("W201", "spec.extensions.flux.env_unset")},
    ),
    # both files lost (no `{array_job_id}` in Flux): stderr still kept apart
    (
        "{output: {stdout: '/s/{array_job_id}.out', stderr: '/s/{array_job_id}.err', "
        "mergeStderr: false}}",
        "flux-batch",
        {("W301", "spec.output.mergeStderr")},
    ),
    # a kept option that the reader reads as a field (`--setopt` is `shell_options`)
    (
        "{extensions: {flux: {shell_options: {a: b}, batch_options: {setopt: [c=d]}}}}",
        "flux-batch",
        {
            ("W301", "spec.extensions.flux.batch_options.setopt"),
            ("W301", "spec.extensions.flux.shell_options"),
        },
    ),
    (
        "{extensions: {flux: {shell_options: {a.b: 1}}}}",
        "flux-batch",
        {("W301", "spec.extensions.flux.shell_options.a.b")},
    ),
    # the raw urgency wins over the portable priority
    (
        "{schedule: {priority: 750}, extensions: {flux: {urgency: 20}}}",
        "flux-batch",
        {("W301", "spec.schedule.priority")},
    ),
]


@pytest.mark.parametrize(("spec_yaml", "target", "expected"), HONEST_FLUX_BATCH)
def test_silent_losses_are_reported(
    spec_yaml: str, target: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= losses(spec_yaml, target)


# ── separators of the value languages (issue 18, item 4) ─────────────────────────────────────
# Beyond the `#flux:` line's shell words (`quote`), a value goes into a sub-language of
# flux-core: the job shell renders `--output`/`--error` paths and an `--env` value holding `{{`
# as mustache templates (src/shell/mustache.c: `{{NAME}}` up to the next `}}` is a tag, unknown
# ones are kept but a plugin may know them, and there is no escape); flux-core's
# get_filtered_environment substitutes `$` in an `--env` value (`$$` is a `$`) unless it holds
# `{{`, and reads `^FILE` as a file of rules; parse_jobspec_keyval splits `--setopt`/`--setattr`
# at the first `=` and loads `^KEY=FILE` from a file; URIArg reads `--dependency` with urlparse
# (`?` query, `#` fragment). What would read as more than the value is refused (E140, naming
# the field and the character); test_flux_batch_oracle.py judges each row by Flux's own code.
UNWRITABLE_FLUX_BATCH = [
    # (SPLAT spec, field, the character as the message names it)
    (
        "{execution: {environment: {vars: {A: 'x{{id}}'}}}}",
        "spec.execution.environment.vars.A",
        "{{",
    ),
    (
        "{execution: {environment: {vars: {A: '$HOME/{{name}}'}}}}",
        "spec.execution.environment.vars.A",
        "{{",
    ),
    ("{execution: {environment: {vars: {'^A': 'x'}}}}", "spec.execution.environment.vars.^A", "^"),
    ("{output: {stdout: 'a{{{{id}}}}.out'}}", "spec.output.stdout", "{{"),
    ("{output: {stdout: 'a{{{job_id}.out'}}", "spec.output.stdout", "{"),
    ("{output: {stderr: '{{{{x}}}}.err'}}", "spec.output.stderr", "{{"),
    (
        "{extensions: {flux: {shell_options: {'a=b': 1}}}}",
        "spec.extensions.flux.shell_options.a=b",
        "=",
    ),
    (
        "{extensions: {flux: {shell_options: {'^opts': 'f.json'}}}}",
        "spec.extensions.flux.shell_options.^opts",
        "^",
    ),
    (
        "{extensions: {flux: {user_attributes: {'a=b': 1}}}}",
        "spec.extensions.flux.user_attributes.a=b",
        "=",
    ),
    ("{dependencies: [{scheme: afterok, value: '1#x'}]}", "spec.dependencies[0].value", "#"),
    ("{dependencies: [{scheme: afterok, value: '1?x=y'}]}", "spec.dependencies[0].value", "?"),
    (
        "{extensions: {flux: {symbolic_dependencies: [{scheme: string, value: 'a#b'}]}}}",
        "spec.extensions.flux.symbolic_dependencies[0].value",
        "#",
    ),
]


@pytest.mark.parametrize(("spec_yaml", "field", "char"), UNWRITABLE_FLUX_BATCH)
def test_separators_are_refused(spec_yaml: str, field: str, char: str) -> None:
    errors = refused(spec_yaml, "flux-batch")
    assert [(code, f) for code, f, _ in errors] == [("E140", field)]
    assert f"`{char}`" in errors[0][2]


KEPT_FLUX_BATCH = [
    # (SPLAT spec, the directive written): nothing Flux reads as more than the value
    ("{execution: {environment: {vars: {A: 'a$b'}}}}", "#flux: --env=A=a$$b"),
    # a value with `{{` is not `$`-substituted (get_filtered_environment): `$` stays `$`
    ("{execution: {environment: {vars: {A: '$x{{y'}}}}", "#flux: --env=A=$x{{y"),
    ("{execution: {environment: {vars: {A: '}}{{'}}}}", "#flux: --env=A=}}{{"),
    ("{execution: {environment: {vars: {'A^': '1'}}}}", "#flux: --env=A^=1"),
    ("{output: {stdout: '{job_id}}}}}.out'}}", "#flux: --output={{id}}}}.out"),
    ("{output: {stdout: 'a{{{{b.out'}}", "#flux: --output=a{{b.out"),
    # the input path and the working directory are not rendered
    ("{execution: {stdin: 'x{{id}}'}}", "#flux: --input=x{{id}}"),
    ("{execution: {workingDir: '/x/{{id}}'}}", "#flux: --cwd=/x/{{id}}"),
    (
        "{dependencies: [{scheme: afterok, value: 'a;b&c'}]}",
        "#flux: --dependency=afterok:a\\;b\\&c",
    ),
    ("{extensions: {flux: {user_attributes: {'^x': 1}}}}", "#flux: --setattr=user.^x=1"),
    ("{extensions: {flux: {shell_options: {'x^': 1}}}}", "#flux: --setopt=x^=1"),
]


@pytest.mark.parametrize(("spec_yaml", "line"), KEPT_FLUX_BATCH)
def test_values_without_separators_are_kept(spec_yaml: str, line: str) -> None:
    assert line in directives(spec_yaml, "flux-batch")


@pytest.mark.parametrize("name", ["kvs", "none"])
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_an_output_file_named_kvs_is_a_file(stream: str, name: str) -> None:
    """`flux batch --output=kvs` (or `none`) keeps the output in the KVS and names no file
    (flux-core JobspecV1._set_extra_options): the file is written `./kvs`."""
    text, diags = emit(f"{{output: {{{stream}: {name}}}}}", "flux-batch")
    assert text is not None
    option = "output" if stream == "stdout" else "error"
    assert f"#flux: --{option}=./{name}" in text.splitlines()
    assert [(d.code, d.field) for d in diags if d.code == "W301"] == [
        ("W301", f"spec.output.{stream}")
    ]


def test_an_env_rule_reading_a_file_is_no_variable() -> None:
    """`--env=^FILE` reads rules from FILE (flux-core get_filtered_environment): `^A=x` names
    the file `A=x`, so the reader keeps it as written and sets no variable `^A`."""
    job, _ = read("#!/bin/sh\n#flux: --env=^A=x\n#flux: -n1\necho\n")
    data = fields(job)["spec"]
    assert "environment" not in data.get("execution", {})
    assert data["extensions"]["flux"]["batch_options"] == {"env": ["^A=x"]}


def test_a_count_left_to_the_command_line_stays_there() -> None:
    """A batch script without -n/-N gets its count from `flux batch`'s command line: written
    back without one (the command line still has to give it), one slot for a jobspec (W301),
    and nothing to say for sbatch, whose command line gives it as well."""
    text = "#!/bin/bash\n#flux: -t 5m\nhostname\n"
    back, diags = bammmc.convert(text, "flux-batch", "flux-batch")
    assert back is not None and "nslots" not in back, back
    assert not [d for d in diags if d.code.startswith(("W2", "W3"))]
    jobspec, diags = bammmc.convert(text, "flux-batch", "flux")
    assert jobspec is not None
    assert [d.field for d in diags if d.code == "W301"] == [
        "spec.extensions.flux.slots_from_command_line"
    ]
    slurm, diags = bammmc.convert(text, "flux-batch", "slurm")
    assert slurm is not None and "--ntasks" not in slurm
    assert not [d for d in diags if "slots_from_command_line" in (d.field or "")]


def test_the_submit_directory_is_where_flux_batch_starts_the_job() -> None:
    """`cd $PBS_O_WORKDIR` must not become `cd ""` (the home directory): flux batch starts the
    job in the submit directory unless `--cwd` is given (flux/cli/base.py: `cwd=args.cwd if
    args.cwd is not None else os.getcwd()`), so `$PWD` at the start is that directory."""
    pbs = "#!/bin/bash\n#PBS -l select=1:ncpus=2\ncd $PBS_O_WORKDIR\n./run\n"
    out, diags = bammmc.convert(pbs, "pbs", "flux-batch")
    assert out is not None
    assert 'export PBS_O_WORKDIR="$PWD"' in out.splitlines()
    assert [d.code for d in diags if d.field == "spec.execution.script"] == ["N003"]
    # with a working directory of its own the job starts there: the submit directory is unknown
    wd = "#!/bin/bash\n#PBS -l select=1:ncpus=2\n#PBS -d /scratch/x\ncd $PBS_O_WORKDIR\n./run\n"
    out, diags = bammmc.convert(wd, "torque", "flux-batch")
    assert out is not None and "PBS_O_WORKDIR=" not in out
    (empty,) = [d for d in diags if d.field == "spec.execution.script"]
    assert empty.code == "W301" and "`$PBS_O_WORKDIR` has no equivalent" in empty.message
    assert empty.span is not None and empty.span.line == 4  # where the script uses it


#: flux batch's own output file where the job names none (flux-batch(1) --output: "the default
#: is flux-{{id}}.out", stderr with it): other targets write that file, not their own default
#: (bsub would mail the output, lsf.md §2.7; HTCondor would discard it)
FLUX_DEFAULT_OUTPUT = [
    ("slurm", "#SBATCH --output=flux-%j.out"),
    ("lsf", '#BSUB -oo "flux-%J.out"'),
    ("htcondor", "output = flux-$(Cluster).out"),
    ("sge", "#$ -o flux-$JOB_ID.out"),
]


@pytest.mark.parametrize(("target", "line"), FLUX_DEFAULT_OUTPUT)
def test_flux_batch_default_output_is_the_file_other_targets_write(target: str, line: str) -> None:
    text = "#!/bin/bash\n#flux: -n1\nflux run hostname\n"
    files, diags = bammmc.convert_files(text, "flux-batch", target, filename="job")
    assert files is not None, diags
    assert line in files[0][1].splitlines(), files[0][1]
    # written back for flux batch, the default is left to it
    out, _ = bammmc.convert(text, "flux-batch", "flux-batch")
    assert out is not None and "--output" not in out, out
