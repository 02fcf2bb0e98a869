"""The HTCondor writer, table-driven: SPLAT -> submit commands and diagnostics (code + field).

The HTCondor pitfalls of ../shared/docs/pitfalls.md have rows of their own: `request_memory` is
MiB and `request_disk` KiB without a unit, so sizes are written with one and rounded up only
with a W301 (8); resources are per job, one slot (1, 20); there is no walltime, only
`allowed_job_duration` (17); `$(Process)` is 0-based (24); `getenv` is off unless set (35);
`notification` takes one value (39); `+Attr` job attributes (43). Every written file is also
parsed by HTCondor's own parser (the `condor_oracle` fixture), which must accept it with
exactly the commands the writer meant.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import bammmc
from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.htcondor import (
    Submit,
    intended,
    new_syntax_word,
    progressions,
    size_text,
    write,
)
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.ir.job import Job
from bammmc.ir.priority import PriorityBand
from tests.formats.separators import emit, refused

HEAD = {"apiVersion": "bammm.io/v1alpha1", "kind": "Job"}

SCRIPT = "#!/bin/bash\nhostname\n"


#: what a row's job runs when it names no program (condor_submit refuses a job without one,
#: and so does the writer: E103)
PROGRAM = "/bin/app"


def job_of(spec: dict[str, Any] | None = None, *, runs: bool = True, **top: Any) -> Job:
    """The job of a row; one that names no program runs `PROGRAM` (unless not ``runs``)."""
    spec = dict(spec or {})
    ex = dict(spec.get("execution") or {})
    container = ex.get("container") or {}
    if runs and not ({"script", "executable", "shell"} & ex.keys() or container.get("command")):
        spec["execution"] = {**ex, "executable": PROGRAM}
    doc = {**HEAD, **top, "spec": spec}
    job, diags = bammmc.parse(json.dumps(doc), "splat")
    assert job is not None, diags
    return job


def run(
    spec: dict[str, Any] | None = None, options: WriteOptions | None = None, **top: Any
) -> tuple[list[OutputFile], list[Diagnostic]]:
    reporter = Reporter("job.splat.yaml")
    files = write(job_of(spec, **top), reporter, options or WriteOptions())
    return files, reporter.diagnostics


def lines(files: list[OutputFile]) -> list[str]:
    return files[0].text.splitlines()


def found(diags: list[Diagnostic]) -> set[tuple[str, str | None]]:
    return {(d.code, d.field) for d in diags}


# Each row: spec, submit lines that must be written (in this order), diagnostics (code, field)
# that must be reported (others may be too, unless the row's set is exact: see EXACT).
WRITE: list[tuple[str, dict[str, Any], list[str], set[tuple[str, str]]]] = [
    # ── sizes: explicit units, exact or rounded up with a W301 (pitfall 8) ──
    ("memory 4Gi", {"resources": {"memoryPerTask": "4Gi"}}, ["request_memory = 4G"], set()),
    ("memory 1.5Gi", {"resources": {"memoryPerTask": "1.5Gi"}}, ["request_memory = 1536M"], set()),
    ("memory bare MiB", {"resources": {"memoryPerTask": 4096}}, ["request_memory = 4G"], set()),
    (
        "memory decimal 4096M",  # 4,096,000,000 bytes = 3906.25 MiB
        {"resources": {"memoryPerTask": "4096M"}},
        ["request_memory = 3907M"],
        {("W301", "spec.resources.memoryPerTask")},
    ),
    (
        "memory not a whole MiB",
        {"resources": {"memoryPerTask": "1536Ki"}},
        ["request_memory = 2M"],
        {("W301", "spec.resources.memoryPerTask")},
    ),
    ("memory 2Ti", {"resources": {"memoryPerTask": "2Ti"}}, ["request_memory = 2T"], set()),
    ("disk 100Ki", {"resources": {"diskPerTask": "100Ki"}}, ["request_disk = 100K"], set()),
    ("disk 20Gi", {"resources": {"diskPerTask": "20Gi"}}, ["request_disk = 20G"], set()),
    (
        "disk not a whole KiB",
        {"resources": {"diskPerTask": "100k"}},  # 100,000 bytes
        ["request_disk = 98K"],
        {("W301", "spec.resources.diskPerTask")},
    ),
    # ── one slot per job: tasks × per-task amounts (pitfalls 1, 20) ──
    (
        "tasks share a slot",
        {"resources": {"tasks": 4, "cpusPerTask": 2, "memoryPerTask": "2Gi", "diskPerTask": "1Gi"}},
        ["request_cpus = 8", "request_memory = 8G", "request_disk = 4G"],
        {("W301", "spec.resources.tasks")},
    ),
    (
        "memory per cpu",
        {"resources": {"cpusPerTask": 4, "memoryPerTask": "1Gi/cpu"}},
        ["request_cpus = 4", "request_memory = 4G"],
        set(),
    ),
    (
        "memory per job",
        {"resources": {"tasks": 4, "memoryPerTask": "8Gi/job"}},
        ["request_cpus = 4", "request_memory = 8G"],
        {("W301", "spec.resources.tasks")},
    ),
    (
        "memory per node, nodes known",
        {"resources": {"nodes": 2, "tasksPerNode": 1, "memoryPerTask": "4Gi/node"}},
        ["request_cpus = 2", "request_memory = 8G"],
        {("W201", "spec.resources.nodes"), ("W201", "spec.resources.tasksPerNode")},
    ),
    (
        "memory per node, nodes unknown",
        {"resources": {"tasks": 2, "memoryPerTask": "4Gi/node"}},
        ["request_memory = 4G"],
        {("W301", "spec.resources.memoryPerTask")},
    ),
    (
        "fractional CPUs",
        {"resources": {"cpusPerTask": "500m"}},
        ["request_cpus = 1"],
        {("W301", "spec.resources.cpusPerTask")},
    ),
    (
        "fractions add up",
        {"resources": {"cpusPerTask": 0.5, "tasks": 4}},
        ["request_cpus = 2"],
        set(),
    ),
    (
        "several nodes",
        {"resources": {"nodes": 4, "tasksPerNode": 8}},
        ["request_cpus = 32"],
        {
            ("W201", "spec.resources.nodes"),
            ("W201", "spec.resources.tasksPerNode"),
            ("W301", "spec.resources.tasks"),
        },
    ),
    (
        "parallel universe: a slot per task",
        {
            "resources": {"tasks": 4, "cpusPerTask": 2, "memoryPerTask": "2Gi"},
            "extensions": {"htcondor": {"universe": "parallel"}},
        },
        [
            "universe = parallel",
            "request_cpus = 2",
            "machine_count = 4",
            "request_memory = 2G",
        ],
        set(),
    ),
    # ── GPUs and custom resources ──
    (
        "gpus per task",
        {"resources": {"tasks": 2, "gpu": {"count": 1}}},
        ["request_gpus = 2"],
        set(),
    ),
    ("gpus per node", {"resources": {"gpu": {"count": "2/node"}}}, ["request_gpus = 2"], set()),
    (
        "gpu model and memory",
        {"resources": {"gpu": {"count": 1, "type": "a100", "memory": "40Gi"}}},
        ["request_gpus = 1", "gpus_minimum_memory = 40G"],
        {("W201", "spec.resources.gpu.type")},
    ),
    (
        "gpu fraction",
        {"resources": {"gpu": {"count": 0.5, "fraction": 0.5}}},
        ["request_gpus = 1"],
        {("W301", "spec.resources.gpu.count"), ("W201", "spec.resources.gpu.fraction")},
    ),
    (
        "custom resources",
        {"resources": {"genericResources": {"nvme": 1, "nvidia.com/gpu": 1}}},
        ["request_nvme = 1"],
        {("W201", "spec.resources.genericResources.nvidia.com/gpu")},
    ),
    # ── time (pitfall 17) ──
    (
        "walltime",
        {"schedule": {"walltime": "1:30:00"}},
        ["allowed_job_duration = 5400"],
        {("W301", "spec.schedule.walltime")},
    ),
    ("no limit", {"schedule": {"walltime": "unlimited"}}, [], set()),
    (
        "begin with a zone",
        {"schedule": {"beginAfter": "2026-03-01T08:00:00Z"}},
        ["deferral_time = 1772352000"],
        set(),
    ),
    (
        "begin without a zone",
        {"schedule": {"beginAfter": "2026-03-01T08:00:00"}},
        ["deferral_time = 1772352000"],
        {("W301", "spec.schedule.beginAfter")},
    ),
    ("hold", {"schedule": {"hold": True}}, ["hold = True"], set()),
    # ── priority: the band onto -1000..1000 ──
    ("priority normal", {"schedule": {"priority": 500}}, ["priority = 0"], set()),
    ("priority top", {"schedule": {"priority": 1000}}, ["priority = 1000"], set()),
    ("priority bottom", {"schedule": {"priority": 0}}, ["priority = -1000"], set()),
    ("priority 750", {"schedule": {"priority": 750}}, ["priority = 500"], set()),
    # ── what has no submit command ──
    (
        "queue",
        {"schedule": {"queue": "gpu", "qos": "high", "reservation": "r1"}},
        [],
        {
            ("W201", "spec.schedule.queue"),
            ("W201", "spec.schedule.qos"),
            ("W201", "spec.schedule.reservation"),
        },
    ),
    (
        "dependencies name DAGMan",
        {"dependencies": [{"scheme": "afterok", "value": "123"}, {"scheme": "singleton"}]},
        [],
        {("W201", "spec.dependencies[0]"), ("W201", "spec.dependencies[1]")},
    ),
    (
        "gang and placement",
        {"gang": {"minAvailable": 2}, "placement": {"exclusive": True, "constraint": "avx512"}},
        [],
        {
            ("W201", "spec.gang"),
            ("W201", "spec.placement.exclusive"),
            ("W201", "spec.placement.constraint"),
        },
    ),
    # ── accounting ──
    (
        "account and project",
        {"schedule": {"account": "physics", "project": 'say "hi"'}},
        ["accounting_group = physics", '+ProjectName = "say \\"hi\\""'],
        set(),
    ),
    # ── environment (pitfall 35) ──
    (
        "environment, new syntax",
        {
            "execution": {
                "executable": "/bin/env",
                "environment": {
                    "vars": {"A": "1", "B": "x y", "C": "it's", "D": 'say "x"', "E": ""},
                    "inheritFromSubmitter": True,
                },
            }
        },
        [
            "environment = \"A=1 'B=x y' 'C=it''s' 'D=say \"\"x\"\"' E=\"",
            "getenv = True",
        ],
        set(),
    ),
    (
        "getenv off",
        {"execution": {"executable": "/bin/env", "environment": {"inheritFromSubmitter": False}}},
        ["getenv = False"],
        set(),
    ),
    # ── output paths ──
    (
        "output and error",
        {"output": {"stdout": "out_{job_id}.log", "stderr": "err_{job_id}.log"}},
        ["output = out_$(Cluster).log", "error = err_$(Cluster).log"],
        set(),
    ),
    (
        "merged streams",
        {"output": {"stdout": "all.log", "mergeStderr": True}},
        ["output = all.log", "error = all.log"],
        set(),
    ),
    (
        "append has no command",
        {"output": {"stdout": "all.log", "openMode": "append"}},
        ["output = all.log"],
        {("W201", "spec.output.openMode")},
    ),
    (
        "a job name in a path",
        {"output": {"stdout": "{job_name}.out"}, "execution": {"script": SCRIPT}},
        ["output = job.sh.out"],
        {("W301", "spec.output.stdout")},
    ),
    (
        "a host name has no spelling",
        {"output": {"stdout": "o.{node_hostname}.log"}},
        ["output = o..log"],
        {("W301", "spec.output.stdout")},
    ),
    (
        "macros the reader kept in a path are HTCondor's",
        {
            "output": {"stdout": "$(Process)/$$(Machine)/$HOME.log"},
            "extensions": {"htcondor": {"kept_macros": ["output"]}},
        },
        ["output = $(Process)/$$(Machine)/$HOME.log"],
        set(),
    ),
    (
        "a `$` of any other path is literal: `$(DOLLAR)`",
        {"output": {"stdout": "$(Process)/$ENV(HOME)/$HOME.log"}},
        ["output = $(DOLLAR)(Process)/$(DOLLAR)ENV(HOME)/$HOME.log"],
        set(),
    ),
    # ── arrays (pitfall 24) ──
    ("array from 0", {"array": {"indices": "0-9"}}, ["queue 10"], set()),
    (
        "array from 1",
        {"array": {"indices": "1-10"}, "output": {"stdout": "o_{array_index}"}},
        ["output = o_$INT(bammmc_array_index)", "bammmc_array_index = $(Process) + 1", "queue 10"],
        set(),
    ),
    (
        "array with a step",
        {"array": {"indices": "1-99:2"}},
        ["bammmc_array_index = $(Process) * 2 + 1", "queue 50"],
        set(),
    ),
    (
        "irregular array",
        {"array": {"indices": "1,3,7-12"}, "output": {"stdout": "o_{array_index}"}},
        [
            "output = o_$(bammmc_array_index)",
            "queue bammmc_array_index in (",
            "1, 3, 7, 8, 9, 10, 11, 12",
            ")",
        ],
        set(),
    ),
    (
        "ranges that make one",
        {"array": {"indices": "1-3,4-6"}},
        ["bammmc_array_index = $(Process) + 1", "queue 6"],
        set(),
    ),
    ("throttle", {"array": {"indices": "0-99%5"}}, ["max_materialize = 5", "queue 100"], set()),
    (
        "array job id",
        {"array": {"indices": "0-3"}, "output": {"stdout": "o_{job_id}"}},
        ["output = o_$(Cluster)", "queue 4"],
        {("W301", "spec.output.stdout")},
    ),
    # ── notification: one value (pitfall 39) ──
    ("mail on end", {"notifications": {"events": ["end"]}}, ["notification = Complete"], set()),
    (
        "mail on end and fail",
        {"notifications": {"events": ["end", "fail"], "email": "a@b.c"}},
        ["notification = Complete", "notify_user = a@b.c"],
        set(),
    ),
    ("mail on fail", {"notifications": {"events": ["fail"]}}, ["notification = Error"], set()),
    ("mail on start", {"notifications": {"events": ["begin"]}}, ["notification = Start"], set()),
    ("no mail", {"notifications": {"events": []}}, ["notification = Never"], set()),
    (
        "mail on start and end",
        {"notifications": {"events": ["begin", "end"]}},
        ["notification = Complete"],
        {("W301", "spec.notifications.events")},
    ),
    (
        "a notification value condor_submit refuses is not written",
        {"extensions": {"htcondor": {"notification": "x.-"}}},
        [],
        {("W201", "spec.extensions.htcondor.notification")},
    ),
    # ── lifecycle ──
    (
        "retries",
        {"lifecycle": {"maxRetries": 3, "successExitCodes": [0]}},
        ["max_retries = 3", "success_exit_code = 0"],
        set(),
    ),
    (
        "another success code",
        {"lifecycle": {"successExitCodes": [3, 4]}},
        ["success_exit_code = 3"],
        {("W301", "spec.lifecycle.successExitCodes")},
    ),
    (
        "no requeue",
        {"lifecycle": {"requeueOnFailure": False}},
        [],
        {("W201", "spec.lifecycle.requeueOnFailure")},
    ),
    # ── files ──
    (
        "file transfer",
        {
            "fileStaging": {
                "transferPolicy": "always",
                "inputs": [{"src": "data/in.dat", "dst": "in.dat"}],
                "outputs": [
                    {"src": "out.dat", "dst": "results/out.dat"},
                    {"src": "log", "dst": "log"},
                ],
                "checkpointFiles": ["ckpt/"],
            }
        },
        [
            "should_transfer_files = YES",
            "transfer_input_files = data/in.dat",
            "transfer_output_files = out.dat, log",
            "transfer_checkpoint_files = ckpt/",
            'transfer_output_remaps = "out.dat = results/out.dat"',
        ],
        set(),
    ),
    (
        "an input renamed",
        {"fileStaging": {"inputs": [{"src": "a.dat", "dst": "b.dat"}]}},
        ["transfer_input_files = a.dat"],
        {("W301", "spec.fileStaging.inputs")},
    ),
    # ── containers ──
    (
        "image and script",
        {"execution": {"script": SCRIPT, "container": {"image": "ubuntu:22.04"}}},
        ["executable = job.sh", "container_image = docker://ubuntu:22.04"],
        set(),
    ),
    (
        "docker universe",
        {
            "execution": {"executable": "/bin/date", "container": {"image": "docker://alpine"}},
            "extensions": {"htcondor": {"universe": "docker"}},
        },
        ["universe = docker", "executable = /bin/date", "docker_image = alpine"],
        set(),
    ),
    (
        "the image's submit command without an image is not written",
        {
            "execution": {"executable": "./x"},
            "extensions": {"htcondor": {"image_command": "docker_image"}},
        },
        ["executable = x"],
        {("W201", "spec.extensions.htcondor.image_command")},
    ),
    (
        "a container command without an image is the job's program",
        {"execution": {"container": {"command": ["/bin/x"], "args": ["a"]}}},
        ["executable = /bin/x", 'arguments = "a"'],
        {
            ("W301", "spec.execution.container.command"),
            ("W301", "spec.execution.container.args"),
        },
    ),
    (
        "an apptainer image",
        {"execution": {"executable": "/bin/date", "container": {"image": "/images/x.sif"}}},
        ["container_image = /images/x.sif"],
        set(),
    ),
    (
        "a command in the image",
        {
            "execution": {
                "container": {
                    "image": "python:3.12",
                    "command": ["python3", "-c"],
                    "args": ["print('a b')"],
                }
            }
        },
        [
            "executable = python3",
            "arguments = \"-c 'print(''a b'')'\"",
            "transfer_executable = False",
            "container_image = docker://python:3.12",
        ],
        set(),
    ),
    # ── extensions.htcondor: HTCondor's own text ──
    (
        "expressions verbatim",
        {
            "extensions": {
                "htcondor": {
                    "requirements": '(OpSysAndVer == "AlmaLinux9") && HasSingularity',
                    "rank": "Memory",
                    "periodic_remove": "(time() - JobStartDate) > $(MAXTIME:3600)",
                    "on_exit_hold": "ExitCode == 99",
                    "concurrency_limits": ["db:5", "license"],
                    "log": "job.$(Cluster).log",
                    "max_idle": 10,
                }
            }
        },
        [
            "log = job.$(Cluster).log",
            'requirements = (OpSysAndVer == "AlmaLinux9") && HasSingularity',
            "rank = Memory",
            "periodic_remove = (time() - JobStartDate) > $(MAXTIME:3600)",
            "on_exit_hold = ExitCode == 99",
            "concurrency_limits = db:5, license",
            "max_idle = 10",
        ],
        set(),
    ),
    (
        "a script's arguments: the script is the program, it gets them as $1",
        {"execution": {"script": SCRIPT, "arguments": "a 'b c'"}},
        ["executable = job.sh", "arguments = \"a 'b c'\""],
        set(),
    ),
    (
        "arguments without an executable",
        {"execution": {"container": {"image": "i", "command": ["run"]}, "arguments": "a"}},
        ["executable = run"],
        {("W201", "spec.execution.arguments")},
    ),
    (
        "a script without #! gets one, reported",
        {"execution": {"script": "hostname\n"}},
        ["executable = job.sh"],
        {("W301", "spec.execution.script")},
    ),
    (
        "a container command of several words",
        {"execution": {"container": {"image": "img", "command": ["a", "b"], "args": ["c"]}}},
        ["executable = a", 'arguments = "b c"', "transfer_executable = False"],
        {("W301", "spec.execution.container.command"), ("W301", "spec.execution.container.args")},
    ),
    (
        "a shell beside a container's program",
        {"execution": {"container": {"image": "img", "command": ["a"]}, "shell": "/bin/sh"}},
        ["executable = a"],
        {("W201", "spec.execution.shell")},
    ),
    (
        "merged streams without files",
        {"execution": {"executable": "/bin/x"}, "output": {"mergeStderr": True}},
        [],
        {("W201", "spec.output.mergeStderr")},
    ),
    (
        "merged streams with only a stderr file: no output file to merge into",
        {"execution": {"executable": "/bin/x"}, "output": {"stderr": "e.log", "mergeStderr": True}},
        ["error = e.log"],
        {("W301", "spec.output.mergeStderr")},
    ),
    (
        "separate streams naming the same file: one file holds both, merged",
        {
            "execution": {"executable": "/bin/x"},
            "output": {"stdout": "o.log", "stderr": "o.log", "mergeStderr": False},
        },
        ["output = o.log", "error = o.log"],
        {("W301", "spec.output.mergeStderr")},
    ),
    (
        "GPUs per node of several nodes: the one slot's GPUs",
        {
            "execution": {"executable": "/bin/x"},
            "resources": {"nodes": 3, "tasksPerNode": 1, "gpu": {"count": "4/node"}},
        },
        ["request_gpus = 12"],
        {("W301", "spec.resources.gpu.count")},
    ),
    (
        "retry sizes per CPU: the slot's share",
        {
            "execution": {"executable": "/bin/x"},
            "resources": {"cpusPerTask": 4},
            "extensions": {"htcondor": {"retry_request_disk": ["2G/cpu", "1.5Gi"]}},
        },
        ["retry_request_disk = 7812500K, 1536M"],
        {("W301", "spec.extensions.htcondor.retry_request_disk")},
    ),
    (
        "stderr merged into the same file: `{job_name}` spelled out there too",
        {
            "execution": {"executable": "/bin/x"},
            "output": {"stdout": "{job_name}.out", "stderr": "{job_name}.out", "mergeStderr": True},
        },
        ["output = x.out", "error = x.out"],
        {("W301", "spec.output.stdout"), ("W301", "spec.output.stderr")},
    ),
    (
        "an image's submit command in a universe that runs no image",
        {
            "execution": {"executable": "/bin/x", "container": {"image": "img"}},
            "extensions": {"htcondor": {"universe": "local", "image_command": "docker_image"}},
        },
        ["universe = local"],
        {
            ("W201", "spec.execution.container.image"),
            ("W201", "spec.extensions.htcondor.image_command"),
        },
    ),
    (
        "tasks per node on one machine",
        {"execution": {"executable": "/bin/x"}, "resources": {"tasksPerNode": 4}},
        [],
        {("W201", "spec.resources.tasksPerNode")},
    ),
    (
        "per-task amounts summed into the slot",
        {
            "execution": {"executable": "/bin/x"},
            "resources": {"tasks": 2, "cpusPerTask": 2, "diskPerTask": "1Gi", "gpu": {"count": 1}},
        },
        ["request_cpus = 4", "request_disk = 2G", "request_gpus = 2"],
        {
            ("W301", "spec.resources.cpusPerTask"),
            ("W301", "spec.resources.diskPerTask"),
            ("W301", "spec.resources.gpu.count"),
        },
    ),
    (
        "mail on end and fail reads back as end",
        {"execution": {"executable": "/bin/x"}, "notifications": {"events": ["end", "fail"]}},
        ["notification = Complete"],
        {("W301", "spec.notifications.events")},
    ),
    (
        "slurm memory as request_memory",
        {"execution": {"executable": "/bin/x"}, "extensions": {"slurm": {"mem": "4Gi"}}},
        ["request_memory = 4G"],
        {("W301", "spec.extensions.slurm.mem")},
    ),
    (
        "pbs memory as request_memory",
        {"execution": {"executable": "/bin/x"}, "extensions": {"pbs": {"mem": "4Gi"}}},
        ["request_memory = 4G"],
        {("W301", "spec.extensions.pbs.mem")},
    ),
    (
        "other schedulers' keys",
        {"extensions": {"slurm": {"comment": "hi"}, "sge": {"ckpt": "blcr"}}},
        [],
        {("W201", "spec.extensions.slurm.comment"), ("W201", "spec.extensions.sge.ckpt")},
    ),
]


@pytest.mark.parametrize(
    ("spec", "expected", "diagnostics"),
    [row[1:] for row in WRITE],
    ids=[row[0] for row in WRITE],
)
def test_write(
    spec: dict[str, Any],
    expected: list[str],
    diagnostics: set[tuple[str, str]],
    condor_oracle: Any,
) -> None:
    files, diags = run(spec)
    written = lines(files)
    positions = [written.index(line) if line in written else -1 for line in expected]
    assert -1 not in positions, f"missing {expected[positions.index(-1)]!r} in\n{files[0].text}"
    assert positions == sorted(positions), files[0].text
    assert diagnostics <= found(diags), diags
    assert not [d for d in diags if d.is_error], diags
    accepted(condor_oracle, job_of(spec))


def accepted(oracle: Any, job: Job, options: WriteOptions | None = None) -> dict[str, Any]:
    """HTCondor's parser accepts the file, with exactly the commands the writer meant (up to
    the first `queue`, where htcondor2 stops) and the queue arguments it meant."""
    submit = intended(job, options)
    result: dict[str, Any] = oracle.submit(submit.text())
    assert result["ok"], (result["errors"], submit.text())
    statements = sum(line.lower().startswith("queue") for line in submit.queue)
    expected = (
        []
        if statements == 1
        else [
            f"{statements} queue statements; htcondor2.Submit "
            "keeps only the first (condor_submit would honour all)"
        ]
    )
    assert result["warnings"] == expected, (result["warnings"], submit.text())
    assert result["keys"] == meant_keys(submit), submit.text()
    first = next((q for q in submit.queue if q.lower().startswith("queue")), "queue")
    assert result["queue"] == first[len("queue") :].strip()
    return result


def meant_keys(submit: Submit) -> dict[str, str]:
    """The commands htcondor2 should see. Kept `if` blocks (`extensions.htcondor.verbatim`) are
    left out: the ones written here test macros nobody defines, so they are false."""
    keys: dict[str, str] = {}
    before_queue: list[tuple[str, str]] = []
    depth = 0
    for line in submit.queue[: _first_queue(submit)]:
        word = line.strip().split(" ", 1)[0].lower()
        depth += (word == "if") - (word == "endif")
        if depth == 0 and word != "endif":
            key, _, value = line.partition(" = ")
            before_queue.append((key, value))
    for key, value in [*submit.commands, *before_queue]:
        keys["MY." + key[1:] if key.startswith("+") else key] = value
    return keys


def _first_queue(submit: Submit) -> int:
    return next(i for i, q in enumerate(submit.queue) if q.lower().startswith("queue"))


# ── script mode and executable mode ─────────────────────────────────────────────────────────


def test_script_job_is_two_files_and_the_body_is_kept_byte_for_byte() -> None:
    body = "#!/bin/bash -l\n# a comment\necho 'é' \\\n  $HOME\n\n"
    files, diags = run({"execution": {"script": body}}, WriteOptions(script_stem="run"))
    assert [(f.suffix, f.executable) for f in files] == [("", False), (".sh", True)]
    assert files[1].text == body
    assert "executable = run.sh" in lines(files)
    assert not diags


def test_a_script_without_shebang_gets_one() -> None:
    files, _ = run({"execution": {"script": "hostname\n"}})
    assert files[1].text == "#!/bin/bash\nhostname\n"
    files, _ = run({"execution": {"script": "hostname\n", "shell": "/bin/zsh"}})
    assert files[1].text == "#!/bin/zsh\nhostname\n"


def test_dos_line_ends_would_break_the_shebang() -> None:
    files, diags = run({"execution": {"script": "#!/bin/bash\r\nhostname\r\n"}})
    assert files[1].text == "#!/bin/bash\nhostname\n"
    assert ("W301", "spec.execution.script") in found(diags)


def test_executable_job_is_one_file_with_new_syntax_arguments(condor_oracle: Any) -> None:
    spec = {"execution": {"executable": "/opt/app", "arguments": "-n 3 'two words' \"it's\" ''"}}
    files, diags = run(spec)
    assert len(files) == 1
    assert lines(files)[:2] == [
        "executable = /opt/app",
        "arguments = \"-n 3 'two words' 'it''s' ''\"",
    ]
    assert not diags
    accepted(condor_oracle, job_of(spec))


@pytest.mark.parametrize(
    ("indices", "macro"),
    [("0-9", "$(Process)"), ("1-10", "$INT(bammmc_array_index)")],
)
def test_normalized_variables_in_arguments_become_the_index(indices: str, macro: str) -> None:
    spec = {
        "execution": {
            "executable": "/bin/app",
            "arguments": '--i="${BAMMM_ARRAY_INDEX}" ${BAMMM_JOB_ID}',
        },
        "array": {"indices": indices},
    }
    files, diags = run(spec)
    assert f'arguments = "--i={macro} $(Cluster)"' in lines(files)
    assert not diags


def test_shell_syntax_in_arguments_is_reported() -> None:
    files, diags = run({"execution": {"executable": "/bin/app", "arguments": "$HOME/x *.dat"}})
    assert 'arguments = "$HOME/x *.dat"' in lines(files)
    assert ("W301", "spec.execution.arguments") in found(diags)
    _, diags = run({"execution": {"executable": "/bin/app", "arguments": "'unclosed"}})
    assert [d.code for d in diags] == ["E140"]


def test_compatibility_block_reads_the_job_ad(condor_oracle: Any) -> None:
    script = "#!/bin/bash\necho $SLURM_ARRAY_TASK_ID $SLURM_JOB_ID $PBS_O_WORKDIR $LSB_HOSTS\n"
    spec = {"execution": {"script": script}, "array": {"indices": "1-10"}}
    files, diags = run(spec)
    text = files[1].text
    assert text.startswith("#!/bin/bash\n# bammmc: variables of the original scheduler")
    assert text.endswith("# bammmc: end of variables\n" + script.split("\n", 1)[1])
    assert "export SLURM_ARRAY_TASK_ID=\"$(sed -n 's/^BammmcArrayIndex = //p'" in text
    assert "+BammmcArrayIndex = $INT(bammmc_array_index)" in lines(files)
    assert ("W301", "spec.execution.script") in found(diags)  # $LSB_HOSTS: empty there
    result = accepted(condor_oracle, job_of(spec))
    assert result["expanded"]["MY.BammmcArrayIndex"] == "1"  # the first job's index


def test_zero_based_arrays_read_the_process_id() -> None:
    script = "#!/bin/sh\necho $PBS_ARRAY_INDEX\n"
    files, _ = run({"execution": {"script": script}, "array": {"indices": "0-4"}})
    assert (
        'export PBS_ARRAY_INDEX="$(sed -n \'s/^ProcId = //p\' "$_CONDOR_JOB_AD")"' in files[1].text
    )
    assert not any(line.startswith("+BammmcArrayIndex") for line in lines(files))


# ── arrays against HTCondor's own expansion ─────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("indices", "first", "queue"),
    [
        ("0-9", "0", "10"),
        ("5", "5", ""),
        ("1-10", "1", "10"),
        ("10-100:10", "10", "10"),
        ("2,4,6,8", "2", "4"),
        ("7,1,3", "1", "bammmc_array_index in ("),
        ("1-5000,7000-9000", "1", "5000"),
    ],
)
def test_arrays_index_the_jobs_exactly(
    indices: str, first: str, queue: str, condor_oracle: Any
) -> None:
    spec = {"array": {"indices": indices}, "output": {"stdout": "o.{array_index}"}}
    result = accepted(condor_oracle, job_of(spec))
    if result["itemdata"]:  # htcondor2 does not expand a queue's item variables
        assert result["itemdata"][0]["bammmc_array_index"] == first
    else:
        assert result["expanded"]["output"] == f"o.{first}"
    assert result["queue"] == queue


def test_an_irregular_list_is_listed_exactly(condor_oracle: Any) -> None:
    result = accepted(condor_oracle, job_of({"array": {"indices": "1,3,7-12,40-45:5"}}))
    items = [row["bammmc_array_index"] for row in result["itemdata"]]
    assert items == ["1", "3", "7", "8", "9", "10", "11", "12", "40", "45"]


def test_large_irregular_arrays_are_one_queue_per_range() -> None:
    spec = {"array": {"indices": "1-5000,7000-9000:2"}}
    submit = intended(job_of(spec))
    assert submit.queue == [
        "bammmc_array_step = 1",
        "bammmc_array_base = 1",
        "queue 5000",
        "bammmc_array_step = 2",
        "bammmc_array_base = -3000",  # job 5000 is index 7000
        "queue 1001",
    ]
    index = "$(Process) * $(bammmc_array_step) + $(bammmc_array_base)"
    assert ("bammmc_array_index", index) in submit.commands
    _, diags = run({"array": {"indices": "1-5000,7000-9000%10"}})
    assert ("W201", "spec.array.maxConcurrent") in found(diags)  # one queue statement only


def test_progressions() -> None:
    assert progressions([(1, 10, 1)]) == [(1, 1, 10)]
    assert progressions([(1, 2, 1), (2, 5, 1)]) == [(1, 1, 5)]  # overlapping ranges
    assert progressions([(0, 8, 4), (12, 12, 1)]) == [(0, 4, 4)]
    assert progressions([(5, 5, 1)]) == [(5, 1, 1)]


# ── injection: nothing a value holds can become a command or a statement ──────────────────


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"notifications": {"email": "a@b.c\nqueue 100"}}, "spec.notifications.email"),
        ({"output": {"stdout": "out\nrequirements = False"}}, "spec.output.stdout"),
        ({"output": {"stdout": "out.log\\"}}, "spec.output.stdout"),  # would continue the line
        (
            {"execution": {"executable": "a", "environment": {"vars": {"A B": "1"}}}},
            "spec.execution.environment.vars",
        ),
        (
            {"execution": {"executable": "a", "arguments": "$'a\nb'"}},
            "spec.execution.arguments",
        ),
        (
            {"extensions": {"htcondor": {"log": "job.log\nqueue 5"}}},
            "spec.extensions.htcondor.log",
        ),
        (
            {"extensions": {"htcondor": {"commands": {"queue": "5"}}}},
            "spec.extensions.htcondor.commands.queue",
        ),
        (
            {"extensions": {"htcondor": {"commands": {"a = b\nqueue": "5"}}}},
            "spec.extensions.htcondor.commands.a = b\nqueue",
        ),
        (
            {"extensions": {"htcondor": {"attributes": {"+a b": "1"}}}},
            "spec.extensions.htcondor.attributes.+a b",
        ),
        ({"fileStaging": {"inputs": [{"src": "a,b", "dst": "a,b"}]}}, "spec.fileStaging.inputs"),
    ],
)
def test_unwritable_values_are_errors_and_never_written(
    spec: dict[str, Any], field: str, condor_oracle: Any
) -> None:
    files, diags = run(spec)
    errors = [d for d in diags if d.is_error]
    assert [(d.code, d.field) for d in errors] == [("E140", field)]
    result = condor_oracle.submit(files[0].text)
    assert result["ok"] and result["queue"] == ""
    assert result["keys"] == meant_keys(intended(job_of(spec)))  # nothing more was written


@pytest.mark.parametrize(
    "value",
    [
        "+Evil = 1",
        "queue 5",
        "include : /etc/passwd",
        "if defined X",
        "endif",
        'x" y',
        "a # b",
        "@=END",
        "$HOME $$ a$$b 100% $5 $[1+2] $ (x) $",
        "é ü 中文",
    ],
)
def test_strange_values_stay_on_their_line(value: str, condor_oracle: Any) -> None:
    spec = {
        "execution": {
            "executable": "/bin/echo",
            "arguments": "'" + value.replace("'", "'\\''") + "'",
            "environment": {"vars": {"V": value}},
        },
        "notifications": {"email": value},
    }
    job = job_of(spec, metadata={"name": value})
    result = accepted(condor_oracle, job)
    keys = result["keys"]
    assert keys["batch_name"] == keys["notify_user"] == value
    assert keys["arguments"] == '"' + new_syntax_word(value) + '"'
    assert keys["environment"] == '"' + new_syntax_word("V=" + value) + '"'
    assert result["queue"] == ""


def test_macro_references_are_written_as_they_are(condor_oracle: Any) -> None:
    """A DAGMan node's `$(VAR)`, match-time `$$(Attr)`, `$ENV(…)`: the reader keeps them in
    portable fields (W423) and lists the commands in `kept_macros`; only HTCondor can say
    what they mean."""
    spec = {
        "execution": {
            "executable": "./run.sh",
            "arguments": "$(input) 'MEMORY:$$(memory)' $ENV(HOME)",
            "environment": {"vars": {"NAME": "$$(Name)", "SPACED": " $(x) "}},
        },
        "output": {"stdout": "$(input).out"},
        "extensions": {"htcondor": {"kept_macros": ["arguments", "environment", "output"]}},
    }
    files, diags = run(spec)
    written = lines(files)
    assert 'arguments = "$(input) MEMORY:$$(memory) $ENV(HOME)"' in written
    assert "environment = \"NAME=$$(Name) 'SPACED= $(x) '\"" in written
    assert "output = $(input).out" in written
    assert not diags  # no shell syntax reported for macros
    result = condor_oracle.submit(files[0].text)
    assert result["ok"] and result["keys"] == meant_keys(intended(job_of(spec)))


def test_size_text_is_exact_or_rounds_up() -> None:
    assert size_text(3 * 1024**4, "M") == ("3T", 3 * 1024**4)
    assert size_text(1, "K") == ("1K", 1024)
    assert size_text(1024**2 + 1, "M") == ("2M", 2 * 1024**2)


# ── extensions.htcondor round trips: what the reader keeps is written back ──────────────────


def test_reader_extensions_are_written_back(condor_oracle: Any) -> None:
    ext = {
        "universe": "vanilla",
        "getenv": "PATH, HOME, !SECRET*",
        "notification": "Always",
        "attributes": {"+WantGPULab": "true", "MY.Flavour": '"short"'},
        "macros": {"dataset": "run7", "cpus": "4"},
        "commands": {"when_to_transfer_output": "ON_EXIT", "request_cpus": "$(cpus)"},
        "queue": {"vars": ["infile"], "mode": "in", "items": ["a.dat", "b.dat", "c.dat"]},
        "checkpointExitCode": 85,
        "transfer_output_remaps": {"o.dat": "out/o.dat"},
        "stream_output": True,
    }
    spec = {
        "execution": {"executable": "/bin/app"},
        "extensions": {"htcondor": ext},
        "notifications": {"events": ["begin", "end", "fail", "requeue"]},
        "array": {"indices": "0-2"},
    }
    files, diags = run(spec)
    written = lines(files)
    for line in [
        "universe = vanilla",
        "getenv = PATH, HOME, !SECRET*",
        "notification = Always",
        "+WantGPULab = true",
        'MY.Flavour = "short"',
        "dataset = run7",
        "cpus = 4",
        "when_to_transfer_output = ON_EXIT",
        "request_cpus = $(cpus)",
        "checkpoint_exit_code = 85",
        'transfer_output_remaps = "o.dat = out/o.dat"',
        "stream_output = True",
        "queue infile in (",
        "a.dat, b.dat, c.dat",
        ")",
    ]:
        assert line in written, files[0].text
    assert not diags
    result = accepted(condor_oracle, job_of(spec))
    assert [row["infile"] for row in result["itemdata"]] == ["a.dat", "b.dat", "c.dat"]


@pytest.mark.parametrize(
    ("indices", "statement"),
    [("0-5", "queue 2 in ("), ("0-2", "queue in ("), (None, None)],
)
def test_the_count_of_an_item_list_is_the_array_over_the_items(
    indices: str | None, statement: str | None
) -> None:
    ext = {"queue": {"vars": ["Item"], "mode": "in", "items": ["a", "b", "c"]}}
    spec: dict[str, Any] = {"execution": {"executable": "a"}, "extensions": {"htcondor": ext}}
    if indices is not None:
        spec["array"] = {"indices": indices}
    files, diags = run(spec)
    if statement is None:  # one job cannot be three items: the portable field wins
        assert lines(files)[-1] == "queue"
        assert ("W301", "spec.extensions.htcondor.queue") in found(diags)
    else:
        assert statement in lines(files) and not diags


def test_later_clusters_follow_the_first_queue() -> None:
    ext = {"clusters": [{"commands": {"arguments": "2"}, "queue": "3"}, {"queue": ""}]}
    files, _ = run({"execution": {"executable": "a"}, "extensions": {"htcondor": ext}})
    assert lines(files)[-4:] == ["queue", "arguments = 2", "queue 3", "queue"]


def test_extensions_never_silently_override_portable_fields() -> None:
    spec = {
        "schedule": {"account": "a"},
        "notifications": {"events": ["end"]},
        "array": {"indices": "0-2%2"},  # 3 jobs: not a count of the 2 items
        "execution": {"executable": "x", "environment": {"inheritFromSubmitter": True}},
        "extensions": {
            "htcondor": {
                "accounting_group": "b",
                "notification": "Always",
                "max_materialize": 3,
                "getenv": "PATH",
                "queue": {"mode": "in", "vars": ["Item"], "items": ["x", "y"]},
                "commands": {"accounting_group": "c"},
            }
        },
    }
    files, diags = run(spec)
    written = lines(files)
    for line in [
        "accounting_group = a",
        "notification = Complete",
        "max_materialize = 2",
        "getenv = True",
        "queue 3",
    ]:
        assert line in written, files[0].text
    assert {
        ("W301", "spec.extensions.htcondor.accounting_group"),
        ("W301", "spec.extensions.htcondor.notification"),
        ("W301", "spec.extensions.htcondor.max_materialize"),
        ("W301", "spec.extensions.htcondor.getenv"),
        ("W301", "spec.extensions.htcondor.queue"),
        ("W301", "spec.extensions.htcondor.commands.accounting_group"),
    } <= found(diags)


def test_priority_band_option() -> None:
    files, _ = run({"schedule": {"priority": 50}}, WriteOptions(band=PriorityBand(0, 100)))
    assert "priority = 0" in lines(files)


def test_foreign_memory_per_node_becomes_the_job_memory() -> None:
    job, _ = bammmc.parse("#!/bin/bash\n#SBATCH --mem=8G\n#SBATCH -n 4\nsrun app\n", "slurm")
    assert job is not None
    reporter = Reporter()
    files = write(job, reporter)
    assert "request_memory = 8G" in lines(files)
    assert ("N003", "spec.extensions.slurm.mem") in found(reporter.diagnostics)
    assert ("W201", "spec.extensions.slurm.mem") not in found(reporter.diagnostics)


def test_every_loss_names_its_field() -> None:
    _, diags = run(
        {
            "tasks": [{"name": "a"}],
            "volumes": [{"name": "v", "mountPath": "/v", "emptyDir": True}],
            "workloadType": "training",
        },
        metadata={"name": "x", "labels": {"a": "b"}, "clientId": "c"},
    )
    assert {
        ("W201", "spec.tasks"),
        ("W201", "spec.volumes"),
        ("W201", "spec.workloadType"),
        ("W201", "metadata.labels"),
        ("W201", "metadata.clientId"),
    } <= found(diags)
    assert all(d.field for d in diags)


@pytest.mark.parametrize(
    "spec",
    [
        {"resources": {"cpusPerTask": 2}},
        # the arguments of an image's entrypoint: HTCondor runs a named program only
        {"execution": {"container": {"image": "i", "args": ["x"]}, "arguments": "a"}},
        # the programs of tasks: HTCondor runs one program per job (tasks are not written)
        {"tasks": [{"name": "a", "execution": {"executable": "/bin/a"}}]},
    ],
)
def test_a_job_without_a_program_is_refused(spec: dict[str, Any]) -> None:
    """condor_submit refuses a job without `executable`: so does the writer, with an error
    (E103), so nothing is written (it wrote a file no scheduler takes, with a W201)."""
    _, diags = bammmc.emit_files(job_of(spec, runs=False), "htcondor")
    assert [(d.code, d.field) for d in diags if d.is_error] == [("E103", "spec.execution")]


#: raw `extensions.htcondor` values that condor_submit (and our reader) refuses: the writer
#: wrote them as they were, a file no one could submit (found by test_every_string_field).
#: A notification that is none of HTCondor's words is not written (W201); another command
#: our reader refuses is an error (E134): nothing is written.
UNREADABLE_RAW = [
    ({"notification": "`touch /tmp/x`"}, ("W201", "spec.extensions.htcondor.notification")),
    ({"notification": "often"}, ("W201", "spec.extensions.htcondor.notification")),
    ({"commands": {"hold": "perhaps"}}, ("E134", "spec.extensions.htcondor.commands.hold")),
]


@pytest.mark.parametrize(("ext", "expected"), UNREADABLE_RAW)
def test_a_raw_value_our_reader_refuses_is_not_written(
    ext: dict[str, Any], expected: tuple[str, str]
) -> None:
    files, diags = run({"extensions": {"htcondor": ext}})
    assert expected in {(d.code, d.field) for d in diags}
    if expected[0] == "E134":
        assert [(d.code, d.field) for d in diags if d.is_error] == [expected]
    else:
        assert not any(d.is_error for d in diags)
        assert "notification" not in files[0].text


@pytest.mark.parametrize(
    "block", ["queue 5", "if $(X)\n  request_cpus = 2", "if $(X)\nqueue\nendif", "yac"]
)
def test_verbatim_cannot_queue_leave_an_if_open_or_be_refused(block: str) -> None:
    spec = {
        "execution": {"executable": "/bin/app"},
        "extensions": {"htcondor": {"verbatim": [block]}},
    }
    files, diags = run(spec)
    assert ("E140", "spec.extensions.htcondor.verbatim[0]") in {(d.code, d.field) for d in diags}
    assert files[0].text.count("queue") == 1


# ── separators of the submit language (issue 18, item 4) ────────────────────────────────────
# A `$` that opens a macro reference is condor_submit's (`$(NAME)`, `$ENV(…)`, `$INT(…)`,
# `$Fnx(…)`) or the match's (`$$(Attr)`, `$$([expr])`): portable text spells it `$(DOLLAR)`
# (htcondor.md §2), or is refused where HTCondor has no spelling; checked with htcondor2.Submit
# in tests/formats/test_htcondor_oracle.py.

#: (SPLAT spec, field, the character as the message names it)
UNWRITABLE_HTCONDOR = [
    # a comma list: `a,b` would be two limits (found by tests/property/test_separators.py)
    (
        "{extensions: {htcondor: {concurrency_limits: ['a,b', c]}}}",
        "spec.extensions.htcondor.concurrency_limits",
        ",",
    ),
    (
        "{extensions: {htcondor: {concurrency_limits: ['a b']}}}",
        "spec.extensions.htcondor.concurrency_limits",
        " ",
    ),
    ("{output: {stdout: 'o.$$(Machine).log'}}", "spec.output.stdout", "$"),
    (
        "{execution: {executable: /bin/x, arguments: \"'$$(Memory)'\"}}",
        "spec.execution.arguments",
        "$",
    ),
    (
        "{execution: {executable: /bin/x, environment: {vars: {A: '$$([1+2])'}}}}",
        "spec.execution.environment.vars",
        "$",
    ),
    ("{notifications: {email: 'a$(DOLLAR)b'}}", "spec.notifications.email", "$"),
    ("{schedule: {project: 'p$$(x)'}}", "spec.schedule.project", "$"),
    # old syntax (condor_submit) reads `\` as itself, new syntax as an escape: refused
    ("{schedule: {project: 'C:\\proj'}}", "spec.schedule.project", "\\"),
    ("{execution: {executable: /bin/x, stdin: 'in$(dollar)'}}", "spec.execution.stdin", "$"),
    ("{fileStaging: {inputs: [{src: 'a,b', dst: 'a,b'}]}}", "spec.fileStaging.inputs", ","),
    ("{fileStaging: {outputs: [{src: 'o', dst: 'a\\b'}]}}", "spec.fileStaging.outputs", "\\"),
    ("{fileStaging: {outputs: [{src: 'o', dst: 'a\"b'}]}}", "spec.fileStaging.outputs", '"'),
    (
        "{execution: {executable: /bin/x, environment: {vars: {'A B': '1'}}}}",
        "spec.execution.environment.vars",
        " ",
    ),
]


def runnable(spec_yaml: str) -> str:
    """The spec with a program, when it names none (condor_submit needs `executable`)."""
    if "executable" in spec_yaml or "command" in spec_yaml:
        return spec_yaml
    return "{execution: {executable: /bin/x}, " + spec_yaml[1:]


@pytest.mark.parametrize(("spec_yaml", "field", "char"), UNWRITABLE_HTCONDOR)
def test_separators_are_refused(spec_yaml: str, field: str, char: str) -> None:
    errors = refused(runnable(spec_yaml), "htcondor")
    assert [(code, f) for code, f, _ in errors] == [("E140", field)]
    assert ("a blank" if char == " " else f"`{char}`") in errors[0][2]


#: (SPLAT spec, a line written): a literal `$` where it would open a reference
ENCODED_HTCONDOR = [
    ("{output: {stdout: '$(HOME)/o.log'}}", "output = $(DOLLAR)(HOME)/o.log"),
    ("{output: {stdout: 'o$$(x)'}}", None),  # refused above: the table's guard
    ("{output: {stdout: 'o${job_id}'}}", "output = o$(DOLLAR)$(Cluster)"),
    (
        "{execution: {executable: /bin/x, arguments: \"'$ENV(SECRET)' '$INT(n,%c)'\"}}",
        'arguments = "$(DOLLAR)ENV(SECRET) $(DOLLAR)INT(n,%c)"',
    ),
    (
        "{execution: {executable: /bin/x, environment: {vars: {'A$(x)': '$Fnx(/etc/passwd)'}}}}",
        'environment = "A$(DOLLAR)(x)=$(DOLLAR)Fnx(/etc/passwd)"',
    ),
    (
        "{execution: {executable: /bin/x, stdin: '$RANDOM_CHOICE(a,b)'}}",
        "input = $(DOLLAR)RANDOM_CHOICE(a,b)",
    ),
    (
        "{execution: {executable: /bin/x, workingDir: '/w/$(Cluster)'}}",
        "initialdir = /w/$(DOLLAR)(Cluster)",
    ),
    ("{schedule: {account: 'g.$(USER)'}}", "accounting_group = g.$(DOLLAR)(USER)"),
    ("{schedule: {project: 'a\"b$(x)'}}", '+ProjectName = "a\\"b$(DOLLAR)(x)"'),
    ("{fileStaging: {inputs: [{src: '$(x).dat', dst: '$(x).dat'}]}}", None),
    (
        "{fileStaging: {outputs: [{src: 'o', dst: 'a=b;$(c)'}]}}",
        'transfer_output_remaps = "o = a\\=b\\;$(DOLLAR)(c)"',
    ),
    ("{execution: {container: {image: 'img:$(tag)', command: [/bin/x]}}}", None),
]


@pytest.mark.parametrize(
    ("name", "line"),
    [('"q"', 'batch_name = ""q""'), ('"', 'batch_name = """'), ('"half', 'batch_name = "half')],
)
def test_batch_name_keeps_its_quotes(name: str, line: str) -> None:
    """condor_submit takes one pair of quotes off a `batch_name` that starts and ends with one
    (submit_utils.cpp `trim_and_strip_quotes_in_place`; a lone `"` is one pair)."""
    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata: {name: '" + name + "'}\n"
        "spec: {execution: {executable: /bin/x}}\n",
        "splat",
    )
    assert job is not None
    text, diags = bammmc.emit(job, "htcondor")
    assert text is not None and line in text.splitlines(), (text, diags)
    back, _ = bammmc.parse(text, "htcondor")
    assert back is not None and back.metadata is not None and back.metadata.name == name


@pytest.mark.parametrize(("spec_yaml", "line"), [r for r in ENCODED_HTCONDOR if r[1]])
def test_dollars_are_spelled(spec_yaml: str, line: str) -> None:
    text, diags = emit(runnable(spec_yaml), "htcondor")
    assert not [d for d in diags if d.is_error], diags
    assert text is not None
    assert line in text.splitlines(), text


@pytest.mark.parametrize("spec_yaml", [r[0] for r in ENCODED_HTCONDOR if r[1] is None])
def test_no_reference_is_written_as_text(spec_yaml: str) -> None:
    """Wherever the value goes, no `$(` of the value is left unspelled."""
    text, diags = emit(runnable(spec_yaml), "htcondor")
    if text is None:
        assert {d.code for d in diags if d.is_error} == {"E140"}
        return
    assert "$(x)" not in text and "$(tag)" not in text and "$$(" not in text, text


#: what stays as it is: a `$` that opens no reference, `#` past a line's start, and the
#: references of the commands the reader listed in `kept_macros`
KEPT_HTCONDOR = [
    (
        "{execution: {executable: /bin/x, arguments: \"'$HOME $5 $ (x) a$$b $[1] $'\"}}",
        "arguments = \"'$HOME $5 $ (x) a$$b $[1] $'\"",
    ),
    ("{output: {stdout: 'o#1.log'}}", "output = o#1.log"),
    # a `\` continues the line only at its end: inside the quotes of the new syntax it does not
    (
        "{execution: {executable: /bin/x, arguments: '''C:\\dir\\'''}}",
        'arguments = "C:\\dir\\"',
    ),
    (
        "{execution: {executable: /bin/x, environment: {vars: {P: 'C:\\'}}}}",
        'environment = "P=C:\\"',
    ),
    ("{notifications: {email: '#a@b'}}", "notify_user = #a@b"),
    (
        "{execution: {executable: /bin/x, arguments: \"'$(item)' '$$(Memory)'\"},"
        " extensions: {htcondor: {kept_macros: [arguments]}}}",
        'arguments = "$(item) $$(Memory)"',
    ),
]


@pytest.mark.parametrize(("spec_yaml", "line"), KEPT_HTCONDOR)
def test_separators_where_they_are_plain(spec_yaml: str, line: str) -> None:
    text, diags = emit(runnable(spec_yaml), "htcondor")
    assert not [d for d in diags if d.is_error], diags
    assert text is not None
    assert line in text.splitlines(), text


def test_the_reader_lists_the_commands_it_kept_references_in() -> None:
    """`htcondor -> htcondor` keeps a DAGMan node's `$(datafile)` and a `$$(Memory)` reference,
    and a `$(DOLLAR)` a literal `$` (it read `$(DOLLAR)(x)` as the text `$(x)`)."""
    text = (
        "executable = $(DOLLAR)(x).sh\narguments = --in $(datafile) --m $$(Memory)\n"
        "input = $(DOLLAR)(y)\nqueue\n"
    )
    out, diags = bammmc.convert(text, "htcondor", "htcondor")
    assert out is not None, diags
    assert out.splitlines()[:3] == [
        "executable = $(DOLLAR)(x).sh",
        'arguments = "--in $(datafile) --m $$(Memory)"',
        "input = $(DOLLAR)(y)",
    ]


@pytest.mark.parametrize(
    ("spec_yaml", "line", "field"),
    [
        ('{output: {stdout: "o\\v"}}', "output = o", "spec.output.stdout"),
        ('{output: {stdout: " o.{job_id} "}}', "output = o.$(Cluster)", "spec.output.stdout"),
        ('{notifications: {email: "\\fa@b"}}', "notify_user = a@b", "spec.notifications.email"),
        (
            '{execution: {container: {image: " img\\v", command: [/bin/x]}}}',
            "container_image = docker://img",
            "spec.execution.container.image",
        ),
    ],
)
def test_blanks_condor_submit_trims_are_dropped_with_a_w301(
    spec_yaml: str, line: str, field: str
) -> None:
    """condor_submit trims C white space (a vertical tab, a form feed too) around a value:
    the writer drops it and says so, rather than let the file say more than the job gets."""
    text, diags = emit(runnable(spec_yaml), "htcondor")
    assert text is not None and line in text.splitlines(), text
    assert any(d.code == "W301" and d.field == field and "trims" in d.message for d in diags)


def test_a_dollar_of_a_kept_command_stays_a_dollar(condor_oracle: Any) -> None:
    """`htcondor -> htcondor`: a command kept as submit text (`extensions.htcondor.commands`,
    an attribute, an expression) keeps its `$(DOLLAR)`; htcondor2.Submit expands the original
    and the converted file alike (it read `error = $(DOLLAR)(y).err` as `error = $(y).err`,
    the file `.err`)."""
    text = (
        'executable = run.sh\nerror = $(DOLLAR)(y).err\n+Note = "$(DOLLAR)(z)"\n'
        'requirements = Name == "$(DOLLAR)(w)"\nqueue\n'
    )
    out, diags = bammmc.convert(text, "htcondor", "htcondor")
    assert out is not None, diags
    before, after = condor_oracle.submit(text), condor_oracle.submit(out)
    for key in ("error", "MY.Note", "requirements"):
        assert after["expanded"][key] == before["expanded"][key], (key, out)
