"""IBM Spectrum LSF, table-driven: bsub script -> IR, -> diagnostics, -> canonical bsub script.

The LSF pitfalls of ../shared/docs/pitfalls.md have their own rows: bare sizes are in the site's
unit (MB, as `lsfinstall` writes `LSF_UNIT_FOR_LIMITS`, or `--lsf-unit`), `rusage[mem]` is
reserved per host unless `/task` (or `--lsf-reserve task`), `-W 1:30` is ninety minutes, `-c` is
CPU time, `-M` is a limit kept apart from `rusage[mem]` (and the memory asked for only without
one), `-n` with `span[]`, arrays in the job name, `-nnodes` with `-n`.
"""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

import bammmc
from bammmc.backends import WriteOptions
from bammmc.backends.lsf import write
from bammmc.backends.splat import to_builtins
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.frontends.lsf import scan, sniff
from bammmc.ir.priority import PriorityBand
from bammmc.passes.lower.lsf import lower
from tests.formats.honest import losses
from tests.formats.separators import directives, refused
from tests.formats.test_slurm import spec, subset

SH = "#!/bin/bash\n"
BODY = "cd $LS_SUBCWD\nmpirun ./app\n"


def read(text: str) -> tuple[Any, list[Diagnostic]]:
    job, diags = bammmc.parse(text, "lsf", filename="job.lsf")
    return (to_builtins(job) if job is not None else None), diags


READ = [
    # names and arrays (pitfalls 24, 25)
    ("-J my.job", {"metadata": {"name": "my.job"}}),
    (
        '-J "sweep[1-100:2]%10"',
        {"metadata": {"name": "sweep"}, "spec": {"array": {"indices": "1-100:2%10"}}},
    ),
    ("-J parallel[1-3,7]", spec(array={"indices": "1-3,7"})),
    # queues, accounts, projects
    ("-q normal", spec(schedule={"queue": "normal"})),
    (
        '-q "short long"',
        spec(schedule={"queue": "short"}, extensions={"lsf": {"queues": ["short", "long"]}}),
    ),
    ("-P proj42 -G fairgroup", spec(schedule={"account": "proj42", "project": "fairgroup"})),
    (
        "-app mpi -sla gold -Lp matlab",
        spec(
            extensions={
                "lsf": {"app_profile": "mpi", "service_class": "gold", "license_project": "matlab"}
            }
        ),
    ),
    # time: `-W [hour:]minute` (pitfall 12), `-c` CPU time (pitfall 16)
    ("-W 1:30", spec(schedule={"walltime": "PT1H30M"})),
    ("-W 90", spec(schedule={"walltime": "PT1H30M"})),
    ("-W30", spec(schedule={"walltime": "PT30M"})),
    ("-W 210", spec(schedule={"walltime": "PT3H30M"})),
    (
        "-W 30/hostA",
        spec(schedule={"walltime": "PT30M"}, extensions={"lsf": {"run_limit": "30/hostA"}}),
    ),
    ("-c 10:00", spec(extensions={"lsf": {"cpu_time_limit": "PT10H"}})),
    ("-b 2026:03:01:08:00", spec(schedule={"beginAfter": "2026-03-01T08:00:00"})),
    ("-b 8:00", spec(extensions={"lsf": {"begin": "8:00"}})),
    ("-t 2026:03:02:08:30", spec(schedule={"deadline": "2026-03-02T08:30:00"})),
    # slots, span, affinity (pitfall 22 for -nnodes)
    ("-n 8", spec(resources={"tasks": 8})),
    ("-n12", spec(resources={"tasks": 12})),
    ("-n 6,12", spec(resources={"tasks": 6}, extensions={"lsf": {"max_tasks": 12}})),
    (
        '-n 8 -R "span[ptile=4]"',
        spec(resources={"tasks": 8, "tasksPerNode": 4, "nodes": 2}),
    ),
    ('-n 4 -R "span[hosts=1]"', spec(resources={"tasks": 4, "nodes": 1})),
    ('-n 4 -R "span[block=2]"', spec(extensions={"lsf": {"span": "block=2"}})),
    ('-n 2 -R "affinity[core(4)]"', spec(resources={"tasks": 2, "cpusPerTask": 4})),
    ("-nnodes 2", spec(resources={"nodes": 2}, extensions={"lsf": {"nnodes": True}})),
    # memory: MB by default (`lsfinstall` writes LSF_UNIT_FOR_LIMITS=MB; pitfall 8), -M a
    # limit apart from rusage (pitfall 3, 9), the memory asked for only without one
    ('-R "rusage[mem=4GB]"', spec(resources={"memoryPerTask": "4Gi"})),
    ('-R "rusage[mem=2048]"', spec(resources={"memoryPerTask": "2Gi"})),
    # rusage[mem] of several slots: per host by default (IBM "Enabling per-task memory
    # reservation": `bsub -n 4 -R "rusage[mem=500]"` reserves 500 MB on each host), `/task`,
    # `/host`, `/job` as written (LSF 10.1.0.9 release notes, "resource reservation method")
    ('-n 8 -R "rusage[mem=4GB]"', spec(resources={"tasks": 8, "memoryPerTask": "4Gi/node"})),
    (
        '-n 8 -R "span[ptile=4] rusage[mem=4GB/host]"',
        spec(resources={"tasks": 8, "nodes": 2, "tasksPerNode": 4, "memoryPerTask": "4Gi/node"}),
    ),
    ('-n 8 -R "rusage[mem=4GB/task]"', spec(resources={"tasks": 8, "memoryPerTask": "4Gi"})),
    ('-n 8 -R "rusage[mem=32GB/job]"', spec(resources={"tasks": 8, "memoryPerTask": "32Gi/job"})),
    ('-n 8 -R "span[ptile=1] rusage[mem=4GB]"', spec(resources={"memoryPerTask": "4Gi"})),
    ('-n 1 -R "rusage[mem=4GB/host]"', spec(resources={"memoryPerTask": "4Gi"})),
    ('-R "rusage[mem=4GB/job]"', spec(resources={"memoryPerTask": "4Gi"})),
    (
        "-M 8GB",
        spec(
            resources={"memoryPerTask": "8Gi"},
            extensions={"lsf": {"mem_limit": "8Gi", "memory_from_limit": True}},
        ),
    ),
    ("-M 4096", spec(extensions={"lsf": {"mem_limit": "4Gi"}})),
    ("-M 1GB!", spec(extensions={"lsf": {"mem_limit": "1Gi", "mem_limit_hard": True}})),
    ("-S 8MB -T 16", spec(extensions={"lsf": {"stack_limit": "8Mi", "thread_limit": 16}})),
    (
        '-R "rusage[mem=8000:duration=10:decay=1]"',
        spec(extensions={"lsf": {"rusage_string": "rusage[mem=8000:duration=10:decay=1]"}}),
    ),
    (
        '-R "rusage[mem=1GB || lic=1]"',
        spec(extensions={"lsf": {"rusage_string": "rusage[mem=1GB || lic=1]"}}),
    ),
    # select, order, same, cu
    ('-R "select[avx512 && ib]"', spec(placement={"constraint": "avx512&ib"})),
    ("-R gpu", spec(placement={"constraint": "gpu"})),
    ('-R "select[mem>64000]"', spec(extensions={"lsf": {"select": "mem>64000"}})),
    # a unit in a select expression (LSF 10.1.0.2+, formats/lsf.md §2.3)
    (
        '-R "select[mem>10GB && ncpus>4]"',
        spec(extensions={"lsf": {"select": "mem>10GB && ncpus>4"}}),
    ),
    ('-R "order[-r15s:pg]"', spec(extensions={"lsf": {"order_expression": "-r15s:pg"}})),
    ('-R "same[type:model]"', spec(extensions={"lsf": {"same_resource": ["type", "model"]}})),
    (
        '-R "cu[type=rack:maxcus=2:excl]"',
        spec(
            extensions={
                "lsf": {"compute_unit": {"type": "rack", "max_units": 2, "exclusive": True}}
            }
        ),
    ),
    (
        '-R "cu[type=cabinet:pref=config]"',
        spec(extensions={"lsf": {"cu": "type=cabinet:pref=config"}}),
    ),
    (
        '-R "1*{select[LN]} + 4*{select[CN] span[ptile=1]}"',
        spec(extensions={"lsf": {"resreq": ["1*{select[LN]} + 4*{select[CN] span[ptile=1]}"]}}),
    ),
    (
        '-R "select[a]" -R "select[b]"',
        spec(
            placement={"constraint": "a&b"},
            extensions={"lsf": {"resreq": ["select[a]", "select[b]"]}},
        ),
    ),
    # GPUs: `num` per host unless /task (pitfall 20)
    (
        '-gpu "num=2:mode=exclusive_process"',
        spec(
            resources={"gpu": {"count": "2/node"}},
            extensions={"lsf": {"gpu_options": "num=2:mode=exclusive_process"}},
        ),
    ),
    (
        '-gpu "num=1/task:gmodel=TeslaV100:gmem=16G"',
        spec(resources={"gpu": {"count": 1, "type": "TeslaV100", "memory": "16Gi"}}),
    ),
    # dependencies (pitfall 28)
    (
        "-w 'done(1234) && exit(5) && ended(\"prep\") && started(7)'",
        spec(
            dependencies=[
                {"scheme": "afterok", "value": "1234"},
                {"scheme": "afternotok", "value": "5"},
                {"scheme": "afterany", "value": "prep"},
                {"scheme": "after", "value": "7"},
            ]
        ),
    ),
    ("-w 1234", spec(dependencies=[{"scheme": "afterok", "value": "1234"}])),
    (
        "-w 'done(1) || exit(2, >3)'",
        spec(extensions={"lsf": {"dependency": "done(1) || exit(2, >3)"}}),
    ),
    ("-w 'numdone(12, *)'", spec(extensions={"lsf": {"dependency": "numdone(12, *)"}})),
    # output: %J/%I, -oo/-eo (overwrite)
    (
        "-o logs/%J_%I.out",
        spec(
            output={
                "stdout": "logs/{job_id}_{array_index}.out",
                "mergeStderr": True,
                "openMode": "append",
            }
        ),
    ),
    (
        "-oo out.%J -eo err.%J",
        spec(output={"stdout": "out.{job_id}", "stderr": "err.{job_id}", "openMode": "truncate"}),
    ),
    (
        "-o out -eo err",
        spec(output={"openMode": "append"}, extensions={"lsf": {"error_open_mode": "truncate"}}),
    ),
    (
        "-i in.txt -cwd /scratch/run",
        spec(execution={"stdin": "in.txt", "workingDir": "/scratch/run"}),
    ),
    ("-outdir /scratch/%U", spec(extensions={"lsf": {"outdir": "/scratch/%U"}})),
    # mail (pitfall 39)
    (
        "-u me@example.org -B -N",
        spec(notifications={"email": "me@example.org", "events": ["begin", "end"]}),
    ),
    ("-Ne", spec(notifications={"events": ["fail"]})),
    # environment
    ('-env "all"', spec(execution={"environment": {"inheritFromSubmitter": True}})),
    (
        "-env \"all, A=1, B='x, y'\"",
        spec(
            execution={
                "environment": {"inheritFromSubmitter": True, "vars": {"A": "1", "B": "x, y"}}
            }
        ),
    ),
    ('-env "all, ~HOME"', spec(extensions={"lsf": {"env": "all, ~HOME"}})),
    # a list without `all`: only those variables (IBM bsub -env; UNVERIFIED detail)
    (
        '-env "A=1, B=2"',
        spec(
            execution={"environment": {"inheritFromSubmitter": False, "vars": {"A": "1", "B": "2"}}}
        ),
    ),
    (
        "-env \"all, P=' padded ', Q=x \"",
        spec(execution={"environment": {"vars": {"P": " padded ", "Q": "x"}}}),
    ),
    # the rest
    ("-sp 100", spec(schedule={"priority": 1000})),
    ("-sp 1", spec(schedule={"priority": 0})),
    ("-sp 500", spec(extensions={"lsf": {"priority": 500}})),
    (
        "-x -H -r",
        spec(
            placement={"exclusive": True},
            schedule={"hold": True},
            lifecycle={"requeueOnFailure": True},
        ),
    ),
    ("-rn", spec(lifecycle={"requeueOnFailure": False})),
    ("-U resv1", spec(schedule={"reservation": "resv1"})),
    ('-m "hostA hostB+2"', spec(extensions={"lsf": {"hosts": "hostA hostB+2"}})),
    (
        '-E "/bin/check" -Ep "/bin/post" -L /bin/bash -ar',
        spec(
            extensions={
                "lsf": {
                    "pre_exec": "/bin/check",
                    "post_exec": "/bin/post",
                    "login_shell": "/bin/bash",
                    "autoresizable": True,
                }
            }
        ),
    ),
    ('-alloc_flags "gpumps smt4"', spec(extensions={"lsf": {"alloc_flags": "gpumps smt4"}})),
    (
        '-Q "140 ~1" -a openmpi',
        spec(extensions={"lsf": {"options": {"Q": "140 ~1", "a": "openmpi"}}}),
    ),
    (
        '-f "in.dat > /tmp/in.dat" -f "out.dat < /tmp/out.dat"',
        spec(
            fileStaging={
                "inputs": [{"src": "in.dat", "dst": "/tmp/in.dat"}],
                "outputs": [{"src": "/tmp/out.dat", "dst": "out.dat"}],
            }
        ),
    ),
    ('-f "log << log"', spec(extensions={"lsf": {"files": ["log << log"]}})),
]


@pytest.mark.parametrize(("directives", "expected"), READ, ids=[r[0] for r in READ])
def test_read(directives: str, expected: dict[str, Any]) -> None:
    job, diags = read(f"{SH}#BSUB {directives}\n{BODY}")
    assert [d for d in diags if d.is_error] == []
    subset(expected, job)


DIAGNOSTICS = [
    ("#BSUB -W 1:75\n", ["E134"]),
    ("#BSUB -W 1h\n", ["E134"]),
    ("#BSUB -n 0\n", ["E134"]),
    ("#BSUB -n 8,4\n", ["E134"]),
    ('#BSUB -J "a[0-9]"\n', ["E134"]),  # LSF indices start at 1 (pitfall 24)
    ('#BSUB -J "a[1-"\n', ["E134"]),
    ('#BSUB -R "span[ptile=4"\n', ["E134"]),
    ("#BSUB -w 'done(1'\n", ["E134"]),
    ('#BSUB -gpu "num=x"\n', ["E134"]),
    ("#BSUB -sp high\n", ["E134"]),
    ("#BSUB -b 25:00\n", ["E134"]),
    ("#BSUB -M 4 GB\n", ["E133", "W302"]),
    ("#BSUB -M 4000\n", ["W302"]),
    ("#BSUB -nnodes 2 -n 4\n", ["E135"]),
    ("#BSUB -qeue x\n", ["E133"]),  # `-q eue` as getopt reads it, then a stray word
    ("#BSUB -gppu x\n", ["E130"]),
    ("#BSUB --time=10\n", ["E130"]),
    ("#BSUB -outdr x\n", ["E130"]),
    ("#BSUB -alloc_flag x\n", ["E130"]),
    ("#BSUB -J\n", ["E131"]),
    ('#BSUB -J "unclosed\n', ["E020"]),
]


@pytest.mark.parametrize(("text", "expected"), DIAGNOSTICS, ids=[d[0] for d in DIAGNOSTICS])
def test_diagnostics(text: str, expected: list[str]) -> None:
    _, diags = read(SH + text + BODY)
    assert [d.code for d in diags] == expected
    assert all(d.span is not None and d.help for d in diags)


def test_unknown_option_suggests() -> None:
    _, diags = read(SH + "#BSUB -alloc_flag x\n" + BODY)
    assert diags[0].help == "did you mean `-alloc_flags`?"


# ── pitfalls ──────────────────────────────────────────────────────────────────────────────


def test_site_unit_option() -> None:
    """A bare `-M` is MB unless the site's unit is given (pitfall 8, 9): `lsfinstall` writes
    `LSF_UNIT_FOR_LIMITS=MB` into lsf.conf (IBM, lsf.conf LSF_UNIT_FOR_LIMITS: "Set to MB at
    time of installation"), each such guess a W302; `--lsf-unit KB` reads KB, saying nothing."""
    text = SH + "#BSUB -M 4096\n#BSUB -R 'rusage[mem=2048]'\n" + BODY
    for unit, factor, said in ((None, 1024**2, ["W302", "W302"]), ("KB", 1024, [])):
        reporter = Reporter("job.lsf")
        job, _ = lower(scan(text, reporter), reporter, unit=unit)
        assert job is not None and job.spec and job.spec.extensions and job.spec.extensions.lsf
        mem_limit = job.spec.extensions.lsf.mem_limit
        assert mem_limit is not None and mem_limit.bytes == 4096 * factor
        assert job.spec.resources and job.spec.resources.memory_per_task
        assert job.spec.resources.memory_per_task.bytes == 2048 * factor
        assert [d.code for d in reporter.diagnostics] == said
    assert "read as MB" in lower_diags(text)[0].message


def lower_diags(text: str, **site: Any) -> list[Diagnostic]:
    reporter = Reporter("job.lsf")
    lower(scan(text, reporter), reporter, **site)
    return reporter.diagnostics


def test_site_reservation() -> None:
    """`rusage[mem]` of several slots without `/task` or `/host` is reserved as the site says:
    per host by default (a W302 that names the assumption), per task with `--lsf-reserve
    task` (RESOURCE_RESERVE_PER_TASK=y), silently when the site is given."""
    text = SH + '#BSUB -n 8\n#BSUB -R "span[ptile=4] rusage[mem=4GB]"\n' + BODY
    (warning,) = lower_diags(text)
    assert warning.code == "W302" and "reserved per host (8 slots)" in warning.message
    assert warning.span is not None and warning.span.column == text.splitlines()[2].index("4GB") + 1
    reporter = Reporter("job.lsf")
    job, _ = lower(scan(text, reporter), reporter, reserve="task")
    assert reporter.diagnostics == []
    assert job is not None and job.spec and job.spec.resources
    assert str(job.spec.resources.memory_per_task) == "4Gi"
    assert lower_diags(text, reserve="host") == []
    # written with its method, a unit, one slot or one slot per host: nothing to assume
    for same in ("rusage[mem=4GB/task]", "rusage[mem=4GB/host]", "span[ptile=1] rusage[mem=4GB]"):
        assert lower_diags(SH + f'#BSUB -n 8 -R "{same}"\n' + BODY) == []
    assert lower_diags(SH + '#BSUB -R "rusage[mem=4GB]"\n' + BODY) == []
    # no unit either: one W302 says both
    (both,) = lower_diags(SH + '#BSUB -n 8 -R "rusage[mem=4000]"\n' + BODY)
    assert "no unit: read as 4000 MB, reserved per host" in both.message


def test_memory_limit_alone_is_the_request() -> None:
    """`-M` without `rusage[mem]`: the limit (per process: each task's) stands for the memory
    the job needs, with a W301 for other targets saying it was a limit; LSF writes it back as
    `-M` alone. With a reservation, `-M` stays a limit apart (pitfall 3)."""
    text = SH + "#BSUB -n 4\n#BSUB -M 8GB\n./app\n"
    out, diags = bammmc.convert(text, "lsf", "slurm")
    assert out is not None and "--mem-per-cpu=8G\n" in out
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.extensions.lsf.mem_limit")]
    assert "a limit per process" in diags[0].message
    out, diags = bammmc.convert(text, "lsf", "lsf")
    assert out is not None and "#BSUB -M 8GB\n" in out and "rusage" not in out and diags == []
    job, _ = read(SH + '#BSUB -M 8GB -R "rusage[mem=2GB]"\n' + BODY)
    assert job["spec"]["resources"] == {"memoryPerTask": "2Gi"}
    assert job["spec"]["extensions"] == {"lsf": {"mem_limit": "8Gi"}}


def test_reservation_is_written_with_its_method() -> None:
    """Several slots: `/task`, `/host` or `/job` after the size, so any site reads it alike; one
    slot (or one per host): the plain size, which every LSF version reads."""
    cases = [
        ("--ntasks=8 --mem-per-cpu=2G", "rusage[mem=2GB/task]"),
        ("--nodes=2 --ntasks=8 --mem=16G", "rusage[mem=16GB/host]"),
        ("--ntasks=1 --mem=4G", "rusage[mem=4GB]"),
        ("--nodes=3 --ntasks-per-node=1 --mem=4G", "rusage[mem=4GB]"),
    ]
    for options, section in cases:
        text = SH + "".join(f"#SBATCH {o}\n" for o in options.split()) + "srun x\n"
        out, _ = bammmc.convert(text, "slurm", "lsf")
        assert out is not None and section in out, (options, out)
        _, diags = bammmc.parse(out, "lsf")
        assert [d for d in diags if d.code == "W302"] == [], out  # nothing left to the site


def test_explicit_units_are_written() -> None:
    job, _ = bammmc.parse(SH + "#BSUB -M 4096 -R 'rusage[mem=1536MB]'\n" + BODY, "lsf")
    assert job is not None
    out, diags = bammmc.emit(job, "lsf")
    assert out is not None
    assert "#BSUB -M 4GB\n" in out and "rusage[mem=1536MB]" in out
    assert diags == []


def test_slurm_minutes_seconds_become_whole_minutes() -> None:
    """Slurm `--time=1:30` is 90 s: LSF has minutes only, so 2 minutes (pitfall 12, 15)."""
    out, diags = bammmc.convert(SH + "#SBATCH --time=1:30\nsrun x\n", "slurm", "lsf")
    assert out is not None and "#BSUB -W 0:02\n" in out
    # and the one task's `srun x` is `x` (N003: one task needs no launcher)
    assert [d.code for d in diags] == ["N003", "W301"] and out.endswith("\nx\n")


def test_cpu_time_is_not_cpus_on_slurm() -> None:
    out, diags = bammmc.convert(SH + "#BSUB -c 10:00\n" + BODY, "lsf", "slurm")
    assert out is not None and "--cpus-per-task" not in out and "--time" not in out
    assert any((d.field or "").startswith("spec.extensions.lsf") for d in diags)


def test_directives_anywhere_and_comments() -> None:
    """bsub reads every `#BSUB` line; only the leading block leaves the script text."""
    late = "#BSUB -q late   # a comment\n  #BSUB -J a \\\n   -n 2\n##BSUB -x\n"
    text = SH + "#BSUB -W 10\n# note\n#BSUB -P p\necho first\n" + late
    job, diags = read(text)
    assert diags == []
    assert job["spec"]["schedule"]["queue"] == "late"
    assert job["spec"]["schedule"]["account"] == "p"
    assert job["metadata"]["name"] == "a" and job["spec"]["resources"]["tasks"] == 2
    assert "placement" not in job["spec"]
    assert job["spec"]["execution"]["script"] == SH + "# note\necho first\n" + late


def test_array_index_zero_from_slurm() -> None:
    """LSF indices start at 1 (pitfall 24): `0-9%2` is 10 elements shifted up, `1-10%2`, and
    the Slurm index the script reads is `$LSB_JOBINDEX - 1`, so each element sees the index
    it had (index 0 used not to run); a W301 says the file names take the shifted index."""
    body = 'echo "i=$SLURM_ARRAY_TASK_ID"\n'
    out, diags = bammmc.convert(SH + "#SBATCH -J sw --array=0-9,20%2\n" + body, "slurm", "lsf")
    assert out is not None and '#BSUB -J "sw[1-10,21]%2"\n' in out
    assert 'export SLURM_ARRAY_TASK_ID="$((LSB_JOBINDEX - 1))"\n' in out
    assert "spec.array.indices" in {d.field for d in diags if d.code == "W301"}
    for index in (1, 10, 21):
        shown = subprocess.run(
            ["bash", "-c", out],
            env={"LSB_JOBINDEX": str(index), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert shown == f"i={index - 1}\n"
    # an array from 1 needs no shift
    out, diags = bammmc.convert(SH + "#SBATCH -J sw --array=1-4\n" + body, "slurm", "lsf")
    assert out is not None and '#BSUB -J "sw[1-4]"\n' in out and "LSB_JOBINDEX - " not in out
    assert "spec.array.indices" not in {d.field for d in diags}


def test_writer_rejects_values_it_cannot_quote() -> None:
    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata:\n  name: a'b\"c\n", "splat"
    )
    assert job is not None
    _, diags = bammmc.emit(job, "lsf")
    assert [d.code for d in diags] == ["E140"]


def test_foreign_variables_are_defined() -> None:
    job, _ = bammmc.parse(SH + "#SBATCH -J a\ncd $SLURM_SUBMIT_DIR\n", "slurm")
    assert job is not None
    out, _ = bammmc.emit(job, "lsf")
    assert out is not None
    assert 'export SLURM_SUBMIT_DIR="${LS_SUBCWD}"\n' in out
    back, _ = bammmc.parse(out, "lsf")
    assert back is not None and back.spec and back.spec.execution
    assert back.spec.execution.script == SH + "cd $SLURM_SUBMIT_DIR\n"


IDENTITY = [
    "#BSUB -J hello\n#BSUB -W 0:10\n",
    '#BSUB -J "sweep[1-99:2]%5"\n#BSUB -oo "out.%J.%I"\n#BSUB -eo "err.%J.%I"\n',
    '#BSUB -n 8\n#BSUB -R "select[avx && ib] rusage[mem=4GB] span[ptile=4] affinity[core(2)]"\n',
    '#BSUB -n 4,8\n#BSUB -R "select[mem>64000] order[-r15s:pg] span[block=2] same[type]"\n',
    '#BSUB -R "1*{select[LN]} + 2*{select[CN] span[ptile=1]}"\n',
    "#BSUB -w 'done(1) && ended(\"prep\")'\n#BSUB -u me@example.org\n#BSUB -B\n#BSUB -N\n",
    "#BSUB -w 'done(1) || exit(2, >3)'\n",
    '#BSUB -q "a b"\n#BSUB -P proj\n#BSUB -G grp\n#BSUB -sp 50\n#BSUB -x\n',
    '#BSUB -gpu "num=2:mode=exclusive_process"\n#BSUB -M 8GB!\n#BSUB -c 1:00\n',
    '#BSUB -nnodes 2\n#BSUB -alloc_flags "gpumps smt4"\n#BSUB -csm y\n',
    "#BSUB -env \"all, A=1, B='x, y'\"\n#BSUB -cwd /scratch\n#BSUB -o out\n",
    '#BSUB -f "a > b"\n#BSUB -f "c < d"\n#BSUB -b 2026:03:01:08:00\n#BSUB -rn\n',
    '#BSUB -R "rusage[mem=8000:duration=10] cu[type=rack:maxcus=2]"\n#BSUB -app mpi\n',
]


@pytest.mark.parametrize("directives", IDENTITY, ids=[i[:40] for i in IDENTITY])
def test_round_trip(directives: str) -> None:
    """`lsf -> splat -> lsf` gives the same IR, and the canonical text is stable."""
    job, diags = bammmc.parse(SH + directives + BODY, "lsf")
    assert job is not None and not [d for d in diags if d.is_error], diags
    out, more = bammmc.emit(job, "lsf")
    assert out is not None
    assert not [d for d in more if d.is_error], more
    again, _ = bammmc.parse(out, "lsf")
    assert again == job, out
    assert bammmc.emit(again, "lsf")[0] == out


def test_lsf_to_slurm_keeps_the_shape() -> None:
    out, diags = bammmc.convert(
        SH + '#BSUB -n 8 -R "span[ptile=4] rusage[mem=2GB]"\n#BSUB -W 1:30\n' + BODY,
        "lsf",
        "slurm",
    )
    assert out is not None, diags
    for line in ("--nodes=2", "--ntasks=8", "--ntasks-per-node=4", "--time=01:30:00"):
        assert line in out
    assert 'export LS_SUBCWD="${SLURM_SUBMIT_DIR}"' in out


# ── review fixes ──────────────────────────────────────────────────────────────────────────


def splat(body: str) -> Any:
    """A SPLAT job from the YAML of its `spec` (two-space indented)."""
    text = "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata:\n  name: j\nspec:\n" + body
    job, diags = bammmc.parse(text, "splat")
    assert job is not None, diags
    return job


def codes(diags: list[Diagnostic]) -> list[tuple[str, str | None]]:
    return [(d.code, d.field) for d in diags]


def test_ptile_without_slots_is_one_slot() -> None:
    """`span[ptile=4]` without `-n` is one slot: not `tasksPerNode` alone, which SPLAT reads as
    a node of four tasks; the writer turns `tasksPerNode` alone into `-n nodes×ptile`."""
    job, diags = read(SH + '#BSUB -R "span[ptile=4]"\n' + BODY)
    assert diags == []
    assert "resources" not in job["spec"]
    assert job["spec"]["extensions"]["lsf"]["span"] == "ptile=4"
    out, diags = bammmc.emit(splat("  resources:\n    tasksPerNode: 4\n"), "lsf")
    assert out is not None
    assert '#BSUB -n 4\n#BSUB -R "span[ptile=4]"\n' in out and diags == []
    out, _ = bammmc.emit(splat("  resources:\n    nodes: 2\n    tasksPerNode: 4\n"), "lsf")
    assert out is not None
    assert "#BSUB -n 8\n" in out
    # LSF fills hosts `ptile` slots at a time: -n 10 with ptile=4 is 3 hosts
    job, _ = read(SH + '#BSUB -n 10 -R "span[ptile=4]"\n' + BODY)
    assert job["spec"]["resources"] == {"tasks": 10, "nodes": 3, "tasksPerNode": 4}
    parsed, _ = bammmc.parse(SH + '#BSUB -n 10 -R "span[ptile=4]"\n', "lsf")
    assert parsed is not None
    back, more = bammmc.emit(parsed, "lsf")
    assert back is not None
    assert more == [] and '#BSUB -n 10\n#BSUB -R "span[ptile=4]"\n' in back


def test_quoted_digit_name_stays_a_name() -> None:
    """`done("123")` waits for the job *named* 123: the value keeps its quotes."""
    text = SH + '#BSUB -w \'done("123") && ended("1abc") && done(7)\'\n' + BODY
    job, diags = read(text)
    assert diags == []
    assert job["spec"]["dependencies"] == [
        {"scheme": "afterok", "value": '"123"'},
        {"scheme": "afterany", "value": "1abc"},
        {"scheme": "afterok", "value": "7"},
    ]
    out, _ = bammmc.convert(text, "lsf", "lsf")
    assert out is not None
    assert '#BSUB -w \'done("123") && ended("1abc") && done(7)\'\n' in out
    out, diags = bammmc.convert(text, "lsf", "slurm")
    assert out is not None and "afterok:123" not in out
    assert ("W201", "spec.dependencies[0]") in codes(diags)


def test_quoted_name_that_is_no_id_is_the_names_own_text() -> None:
    """Only a name that looks like an id is spelled `"123"` in the IR (the reader's
    convention); any other `"` belongs to the name, which `-w` cannot quote: lost (W201), not
    written as the name without its quotes (found by the separator survey)."""
    job = splat("  dependencies:\n    - scheme: afterok\n      value: '\"prep\"'\n")
    out, diags = bammmc.emit(job, "lsf")
    assert out is not None and "-w" not in out
    assert ("W201", "spec.dependencies[0]") in codes(diags)


def test_wildcard_name_is_not_written() -> None:
    """IBM bsub -w: a `*` at the end of a job name means every job whose name starts so; a
    SPLAT job name is one job, so a name with `*` is lost (W201), not widened."""
    job = splat("  dependencies:\n    - scheme: afterok\n      value: 'prep*'\n")
    out, diags = bammmc.emit(job, "lsf")
    assert out is not None and "-w" not in out
    assert ("W201", "spec.dependencies[0]") in codes(diags)


def test_slurm_array_element_dependency() -> None:
    out, diags = bammmc.convert(SH + "#SBATCH --dependency=afterok:123_4:9_*\nx\n", "slurm", "lsf")
    assert out is not None and "#BSUB -w 'done(\"123[4]\") && done(9)'\n" in out
    assert diags == []


def test_raw_extension_does_not_shadow_silently() -> None:
    """A raw `extensions.lsf` value that is written instead of a portable field saying
    something else is a W301 on that field."""
    job = splat(
        "  schedule:\n    queue: regular\n    beginAfter: 2026-03-01T08:00:00\n"
        "  resources:\n    tasks: 4\n    memoryPerTask: 4Gi\n    cpusPerTask: 2\n"
        "    gpu:\n      count: 1\n      type: a100\n"
        '  execution:\n    script: "#!/bin/bash\\necho hi\\n"\n'
        "    environment:\n      vars:\n        A: '1'\n"
        "  dependencies:\n    - scheme: afterok\n      value: '42'\n"
        "  fileStaging:\n    inputs:\n      - src: a\n        dst: b\n"
        "  placement:\n    constraint: ib\n"
        "  extensions:\n    lsf:\n      queues: [normal, long]\n      dependency: done(7)\n"
        "      env: 'all, ~HOME'\n      resreq: ['span[ptile=2]']\n"
        "      gpu_options: num=2:mode=shared\n      files: ['x << y']\n      begin: '8:00'\n"
    )
    out, diags = bammmc.emit(job, "lsf")
    assert out is not None
    assert '#BSUB -q "normal long"\n' in out and "#BSUB -w 'done(7)'\n" not in out
    shadowed = {d.field for d in diags if d.code == "W301" and "written instead" in d.message}
    assert shadowed == {
        "spec.schedule.queue",
        "spec.schedule.beginAfter",
        "spec.resources.memoryPerTask",
        "spec.resources.cpusPerTask",
        "spec.resources.gpu.count",
        "spec.resources.gpu.type",
        "spec.execution.environment.vars",
        "spec.dependencies",
        "spec.fileStaging.inputs",
        "spec.placement.constraint",
    }


@pytest.mark.parametrize(
    "directives",
    [
        '#BSUB -q "a b"\n',
        "#BSUB -w 'done(1) || exit(2)' -w 'done(1) && numdone(3, *)'\n",
        '#BSUB -n 8 -R "select[gpu] span[ptile=2] rusage[mem=2GB]" -R "select[ib]"\n',
        '#BSUB -gpu "num=2:mode=exclusive_process" -env "all, ~HOME, A=1"\n',
        '#BSUB -f "a > b" -f "c << d" -b 8:00 -sp 55 -W 30/hostA\n',
        '#BSUB -n 4 -R "rusage[mem=8000:duration=10] span[block=2]"\n',
        '#BSUB -n 4 -R "affinity[core(2):cpubind=core]"\n',
        "#BSUB -i in.%J -cwd /scratch/%U/%J\n",
    ],
)
def test_raw_extensions_of_a_read_script_are_not_shadowed(directives: str) -> None:
    out, diags = bammmc.convert(SH + directives + BODY, "lsf", "lsf")
    assert out is not None
    assert [d for d in diags if "written instead" in d.message] == []


def test_lsf_variables_on_other_schedulers() -> None:
    text = (
        SH + "#BSUB -n 8\nmpirun -np $LSB_DJOB_NUMPROC ./a.out\necho $LSB_HOSTS $LSB_MCPU_HOSTS\n"
    )
    out, diags = bammmc.convert(text, "lsf", "slurm")
    # LSF's slots are the job's 8 tasks: the value itself (facts/variables.py STATIC)
    assert out is not None and "export LSB_DJOB_NUMPROC=8\n" in out
    # the script is written whole; the two variables without an equivalent are empty there
    empty = [d.message for d in diags if d.code == "W301" and d.field == "spec.execution.script"]
    assert any("`$LSB_HOSTS`" in m for m in empty) and any("LSB_MCPU_HOSTS" in m for m in empty)
    assert not [d for d in diags if d.code == "W201" and d.field == "spec.execution.script"]
    out, _ = bammmc.convert(SH + "#SBATCH -n 2\nsrun -n $SLURM_NTASKS x\n", "slurm", "lsf")
    assert out is not None and "export SLURM_NTASKS=2\n" in out


def test_path_patterns() -> None:
    """`-o dir/` is `dir/<job id>.out`; `%J`/`%I`; `-i`/`-cwd` patterns stay LSF's own (the
    SPLAT fields are literal paths) with a W301; a literal `%J` cannot be written."""
    text = SH + "#BSUB -o logs/\n#BSUB -e logs/\n#BSUB -i in.%J\n#BSUB -cwd /scratch/%U/%J\n" + BODY
    job, diags = read(text)
    assert job["spec"]["output"] == {
        "stdout": "logs/{job_id}.out",
        "stderr": "logs/{job_id}.err",
        "openMode": "append",
    }
    assert job["spec"]["execution"]["stdin"] == "in.%J"
    assert job["spec"]["extensions"]["lsf"]["options"] == {"i": "in.%J", "cwd": "/scratch/%U/%J"}
    assert codes(diags) == [
        ("W301", "spec.execution.stdin"),
        ("W301", "spec.execution.workingDir"),
    ]
    assert diags[1].span is not None and diags[1].span.column == 12
    out, more = bammmc.convert(text, "lsf", "lsf")
    assert out is not None and '#BSUB -cwd "/scratch/%U/%J"\n' in out and '-i "in.%J"\n' in out
    assert out.count("-cwd") == 1 and [d for d in more if d.code != "W301"] == []
    job2 = splat(
        "  execution:\n    workingDir: /data/%J\n    stdin: in.%I\n"
        "  output:\n    stdout: logs/100%J.out\n    stderr: 'logs/{job_id}%x.err'\n"
    )
    _, diags = bammmc.emit(job2, "lsf")
    assert [(c, f) for c, f in codes(diags) if c == "E140"] == [
        ("E140", "spec.output.stdout"),
        ("E140", "spec.execution.workingDir"),
        ("E140", "spec.execution.stdin"),
    ]


def test_folder_path_names_the_file() -> None:
    """IBM ("Specifying a directory for job output"): `-o dir/` writes `dir/<job id>.out`; a
    SPLAT path ending in `/` is written as that file, with a W301 that says so."""
    job = splat("  execution:\n    script: x\n  output:\n    stdout: logs/\n    stderr: e/\n")
    out, diags = bammmc.emit(job, "lsf")
    assert out is not None and '#BSUB -oo "logs/%J.out"\n' in out and '-eo "e/%J.err"\n' in out
    assert codes(diags) == [("W301", "spec.output.stdout"), ("W301", "spec.output.stderr")]


def test_array_job_id_and_index() -> None:
    """`%J` in an array job is the array's id; `%I` outside an array is 0 (W301)."""
    job, diags = read(SH + '#BSUB -J "a[1-3]"\n#BSUB -o out.%J.%I\n' + BODY)
    assert job["spec"]["output"]["stdout"] == "out.{array_job_id}.{array_index}" and diags == []
    job, diags = read(SH + "#BSUB -o out.%J.%I\n" + BODY)
    assert job["spec"]["output"]["stdout"] == "out.{job_id}.{array_index}"
    assert codes(diags) == [("W301", "spec.output.stdout")]
    out, diags = bammmc.convert(SH + "#SBATCH -a 1-3 -o out.%j\nx\n", "slurm", "lsf")
    assert out is not None and '#BSUB -oo "out.%J"\n' in out
    assert ("W301", "spec.output.stdout") in codes(diags)


def test_late_directives_stay_in_the_body() -> None:
    """bsub reads a `#BSUB` line in a heredoc too (it applies), but the line is part of the
    script text: it stays there. Writing it back is a W301 when it changes the job, an E140
    when bsub would reject it."""
    body = "cat > child.lsf <<'X'\n#BSUB -n 64\nX\nbsub < child.lsf\n"
    text = SH + "#BSUB -J gen\n" + body
    job, diags = read(text)
    assert diags == [] and job["spec"]["resources"]["tasks"] == 64
    assert job["spec"]["execution"]["script"] == SH + body
    out, diags = bammmc.convert(text, "lsf", "lsf")
    assert out == SH + "#BSUB -J gen\n#BSUB -n 64\n" + body and diags == []
    script = "    script: |\n      #!/bin/bash\n" + "".join(
        f"      {line}\n" for line in body.split("\n")[:-1]
    )
    _, diags = bammmc.emit(splat("  resources:\n    tasks: 32\n  execution:\n" + script), "lsf")
    assert codes(diags) == [("W301", "spec.execution.script")]
    assert "`#BSUB -n 64`, line 5" in diags[0].message
    bad = script.replace("-n 64", "-W 1:99")
    _, diags = bammmc.emit(splat("  execution:\n" + bad), "lsf")
    assert codes(diags) == [("E140", "spec.execution.script")]
    # the heredoc body of the corpus keeps its `#BSUB` lines through a round trip
    job2, _ = bammmc.parse(text, "lsf")
    assert job2 is not None
    out2, _ = bammmc.emit(job2, "lsf")
    assert out2 is not None
    again, _ = bammmc.parse(out2, "lsf")
    assert again == job2


def test_shell_without_shebang() -> None:
    job = splat('  execution:\n    shell: /bin/csh\n    script: "setenv FOO bar\\n"\n')
    out, diags = bammmc.emit(job, "lsf")
    assert out == "#!/bin/csh\n#BSUB -J j\nsetenv FOO bar\n" and diags == []


def test_repeated_sections_are_merged() -> None:
    """Several `-R` with a section each: select ANDed, rusage merged; the strings kept for
    LSF, the portable fields for the others. The same section twice means it once."""
    text = SH + '#BSUB -n 8\n#BSUB -R "select[gpu] span[ptile=2] rusage[mem=2GB]"\n'
    text += '#BSUB -R "select[ib]"\n' + BODY
    job, diags = read(text)
    assert [d.code for d in diags] == ["W302"]  # per host: 2 slots of each
    subset(
        spec(
            resources={"tasks": 8, "nodes": 4, "tasksPerNode": 2, "memoryPerTask": "2Gi/node"},
            placement={"constraint": "gpu&ib"},
            extensions={
                "lsf": {"resreq": ["select[gpu] span[ptile=2] rusage[mem=2GB]", "select[ib]"]}
            },
        ),
        job,
    )
    out, _ = bammmc.convert(text, "lsf", "slurm")
    assert out is not None
    for line in ("--ntasks-per-node=2", "--constraint=gpu&ib", "--nodes=4"):
        assert line in out
    # different values in a repeated section: nothing portable for it
    job, _ = read(SH + '#BSUB -R "rusage[mem=2GB]" -R "rusage[mem=4GB] select[x]"\n' + BODY)
    assert "memoryPerTask" not in job["spec"].get("resources", {})
    assert job["spec"]["placement"] == {"constraint": "x"}
    # the same rusage twice, once with the site's unit implied: one section
    job, diags = read(SH + '#BSUB -R "rusage[mem=2500MB]"\n#BSUB -R "rusage[mem=2500]"\n' + BODY)
    assert job["spec"]["resources"] == {"memoryPerTask": "2500Mi"}
    assert "extensions" not in job["spec"] and codes(diags) == [("W302", None)]


def test_env_writer() -> None:
    """`none` never with variables; values with `,`, end spaces or nothing quoted; `'`
    cannot be carried (E140); everything reads back exactly."""
    job = splat(
        "  execution:\n    environment:\n      inheritFromSubmitter: false\n      vars:\n"
        "        A: '1'\n        B: ' padded '\n        D: 'x,y'\n        E: ''\n"
    )
    out, diags = bammmc.emit(job, "lsf")
    assert out is not None
    assert "#BSUB -env \"A=1, B=' padded ', D='x,y', E=''\"\n" in out and diags == []
    back, _ = bammmc.parse(out, "lsf")
    assert back is not None and back.spec and back.spec.execution
    assert back.spec.execution.environment == job.spec.execution.environment
    out, _ = bammmc.emit(
        splat("  execution:\n    environment:\n      inheritFromSubmitter: false\n"), "lsf"
    )
    assert out is not None
    assert "#BSUB -env none\n" in out
    out, _ = bammmc.emit(
        splat("  execution:\n    environment:\n      vars:\n        A: '1'\n"), "lsf"
    )
    assert out is not None
    assert '#BSUB -env "all, A=1"\n' in out
    _, diags = bammmc.emit(
        splat('  execution:\n    environment:\n      vars:\n        C: "it\'s"\n'), "lsf"
    )
    assert codes(diags) == [("E140", "spec.execution.environment.vars")]


def test_values_bsub_would_misread() -> None:
    job = splat(
        "  schedule:\n    queue: 'q -x'\n"
        "  fileStaging:\n    inputs:\n      - src: my file.dat\n        dst: in.dat\n"
        "    outputs:\n      - src: out>x\n        dst: res.dat\n"
    )
    _, diags = bammmc.emit(job, "lsf")
    assert codes(diags) == [
        ("E140", "spec.schedule.queue"),
        ("E140", "spec.fileStaging.inputs[0]"),
        ("E140", "spec.fileStaging.outputs[0]"),
    ]
    _, diags = bammmc.emit(splat("  schedule:\n    queue: -x\n"), "lsf")
    assert codes(diags) == [("E140", "spec.schedule.queue")]
    job = splat("  resources:\n    tasks: 512\n  extensions:\n    lsf:\n      max_tasks: 64\n")
    out, diags = bammmc.emit(job, "lsf")
    assert out is not None
    assert "#BSUB -n 512\n" in out and codes(diags) == [("W201", "spec.extensions.lsf.max_tasks")]
    # a maximum without a task count: bsub's minimum, one task
    out, diags = bammmc.emit(splat("  extensions:\n    lsf:\n      max_tasks: 68\n"), "lsf")
    assert out is not None
    assert '#BSUB -n "1,68"\n' in out and not codes(diags)


def test_spans() -> None:
    """Words after a `\\` line end, a glued quoted value, a size inside `-R`."""
    _, diags = read(SH + "#BSUB -n 4 \\\n   -W 1:75 -q\n" + BODY)
    assert sorted((d.code, d.span.line, d.span.column) for d in diags if d.span) == [
        ("E131", 3, 12),
        ("E134", 3, 7),
    ]
    _, diags = read(SH + '#BSUB -J"a[0-3]"\n' + BODY)
    span = diags[0].span
    assert span is not None and (span.column, span.end_column) == (9, 17)
    _, diags = read(SH + '#BSUB -n 4\n#BSUB -R "span[hosts=1] rusage[mem=8000]"\n' + BODY)
    span = diags[0].span
    assert diags[0].code == "W302" and span is not None
    assert (span.line, span.column, span.end_column) == (3, 36, 40)


def test_swapped_option_letters() -> None:
    """`-oe x` is a typo for `-eo`, not `-o e` with a stray `x`."""
    _, diags = read(SH + "#BSUB -oe x.out\n" + BODY)
    assert [d.code for d in diags] == ["E130"] and diags[0].help == "did you mean `-eo`?"
    job, diags = read(SH + "#BSUB -oe\n" + BODY)  # no value after it: getopt's `-o e`
    assert diags == [] and job["spec"]["output"]["stdout"] == "e"


def test_sniff_reads_column_zero_only() -> None:
    assert sniff(SH + "#BSUB -n 4\n")
    assert not sniff("kind: Job\nspec:\n  execution:\n    script: |\n      #BSUB -n 4\n")


def test_memory_per_host_with_ptile() -> None:
    """`-n 2 span[ptile=4] rusage[mem=4GB]`: 4 GB on the one host the two slots share."""
    job, _ = read(SH + '#BSUB -n 2 -R "span[ptile=4] rusage[mem=4GB]"\n' + BODY)
    assert job["spec"]["resources"] == {
        "memoryPerTask": "4Gi/node",
        "tasks": 2,
        "nodes": 1,
        "tasksPerNode": 4,
    }


def test_priority_band() -> None:
    """`-sp` is mapped onto the band given (`--priority-range`), both ways."""
    text = SH + "#BSUB -sp 50\n" + BODY
    reporter = Reporter("job.lsf")
    job, _ = lower(scan(text, reporter), reporter, band=PriorityBand(1, 100))
    assert job is not None and job.spec and job.spec.schedule
    assert job.spec.schedule.priority == 50
    assert job.spec.extensions is None
    out = write(job, Reporter(), WriteOptions(band=PriorityBand(1, 100)))[0].text
    assert "#BSUB -sp 50\n" in out
    job, _ = bammmc.parse(text, "lsf", priority_range="1:100")
    assert job is not None and job.spec and job.spec.schedule
    assert job.spec.schedule.priority == 50


def test_nodes_and_tasks_become_ptile() -> None:
    """10 tasks on 3 nodes is `ptile=4` (4+4+2) exactly; 9 on 4 nodes cannot be (3 hosts)."""
    out, diags = bammmc.emit(splat("  resources:\n    tasks: 10\n    nodes: 3\n"), "lsf")
    assert out is not None
    assert '#BSUB -n 10\n#BSUB -R "span[ptile=4]"\n' in out and diags == []
    _, diags = bammmc.emit(splat("  resources:\n    tasks: 9\n    nodes: 4\n"), "lsf")
    # the 9 tasks stay; the host count is what changes
    assert codes(diags) == [("W301", "spec.resources.nodes")]


# ── losses the honesty test (tests/test_honesty.py) found silent: each now has its diagnostic ──

HONEST_LSF = [
    # (SPLAT spec as YAML flow, target, the (code, field) pairs among the diagnostics)
    # a maximum of slots beside `-nnodes`, which takes no `-n`
    (
        "{resources: {nodes: 2}, extensions: {lsf: {max_tasks: 68, nnodes: true}}}",
        "lsf",
        {("W201", "spec.extensions.lsf.max_tasks")},
    ),
    ("{schedule: {priority: 3}}", "lsf", {("W301", "spec.schedule.priority")}),
    # `-nnodes` without a node count: -n is written, not -nnodes
    (
        "{resources: {tasks: 4}, extensions: {lsf: {nnodes: true}}}",
        "lsf",
        {("W201", "spec.extensions.lsf.nnodes")},
    ),
    (
        "{fileStaging: {checkpointFiles: [a]}}",
        "lsf",
        {("W201", "spec.fileStaging.checkpointFiles")},
    ),
    (
        "{execution: {script: 'echo', container: {image: img, imagePullSecrets: [s]}}}",
        "lsf",
        {("W201", "spec.execution.container.imagePullSecrets")},
    ),
    # the arguments of a script: only the bsub command line takes them (shared code)
    (
        "{execution: {script: 'echo', arguments: 'a b'}}",
        "lsf",
        {("W201", "spec.execution.arguments")},
    ),
    # fewer tasks than nodes × tasksPerNode: LSF fills hosts, so fewer hosts are used
    (
        "{resources: {tasks: 10, nodes: 5, tasksPerNode: 4}}",
        "lsf",
        {("W301", "spec.resources.nodes")},
    ),
    # a raw value its own reader (and bsub) refuses is not written: an error names it
    (
        "{extensions: {lsf: {options: {W: abc}}}}",
        "lsf",
        {("E134", "spec.extensions.lsf.options.W")},
    ),
    # a key that is no bsub option is not written at all (it would write words of its own)
    (
        "{extensions: {lsf: {options: {'b//': x}}}}",
        "lsf",
        {("W201", "spec.extensions.lsf.options.b//")},
    ),
    # the open mode of a stderr file that is not written
    (
        "{extensions: {lsf: {error_open_mode: append}}}",
        "lsf",
        {("W201", "spec.extensions.lsf.error_open_mode")},
    ),
    # a raw rusage that is not an rusage section
    (
        "{extensions: {lsf: {rusage_string: '0'}}}",
        "lsf",
        {("E134", "spec.extensions.lsf.rusage_string")},
    ),
    # the same transfer twice is written once
    (
        "{fileStaging: {outputs: [{src: a, dst: b}, {src: a, dst: b}]}}",
        "lsf",
        {("W201", "spec.fileStaging.outputs[1]")},
    ),
    # GPUs per job are written per host
    ("{resources: {gpu: {count: 8/job}}}", "lsf", {("W301", "spec.resources.gpu.count")}),
    # the raw `-R` sections a raw compound `resreq`, written instead, does not hold
    (
        "{extensions: {lsf: {resreq: ['1*{select[a]} + 2*{select[b]}'], select: 'mem>1', "
        "order_expression: r15s, same_resource: [type], affinity: 'core(2):cpubind=core', "
        "span: 'block=2', compute_unit: {type: rack, max_units: 2}}}}",
        "lsf",
        {
            ("W301", "spec.extensions.lsf.select"),
            ("W301", "spec.extensions.lsf.order_expression"),
            ("W301", "spec.extensions.lsf.same_resource"),
            ("W301", "spec.extensions.lsf.affinity"),
            ("W301", "spec.extensions.lsf.span"),
            ("W301", "spec.extensions.lsf.compute_unit.type"),
            ("W301", "spec.extensions.lsf.compute_unit.max_units"),
        },
    ),
    # `-N` mails on every end, failures included (`-Ne` conflicts with it): read back as `end`
    (
        "{notifications: {events: [end, fail]}}",
        "lsf",
        {("W301", "spec.notifications.events")},
    ),
    # the open mode and the merge of output files that are not written
    ("{output: {openMode: append}}", "lsf", {("W201", "spec.output.openMode")}),
    ("{output: {mergeStderr: false}}", "lsf", {("W201", "spec.output.mergeStderr")}),
    # the only file is `-e`: its raw mode is what reads back as `openMode`
    (
        "{output: {stderr: e, openMode: append}, extensions: {lsf: {error_open_mode: truncate}}}",
        "lsf",
        {("W301", "spec.output.openMode")},
    ),
    # the losses of fileStaging are reported also when the raw `-f` lines are written
    (
        "{fileStaging: {checkpointFiles: [a], transferPolicy: always, embeddedFiles: "
        "[{name: a, content: b}]}, extensions: {lsf: {files: ['a << a']}}}",
        "lsf",
        {
            ("W201", "spec.fileStaging.checkpointFiles"),
            ("W201", "spec.fileStaging.transferPolicy"),
            ("W201", "spec.fileStaging.embeddedFiles"),
        },
    ),
    # `partition` (SPLAT: the same as `queue`) beside raw queues that say something else
    (
        "{schedule: {queue: a, partition: a}, extensions: {lsf: {queues: [b, c]}}}",
        "lsf",
        {("W301", "spec.schedule.queue"), ("W301", "spec.schedule.partition")},
    ),
    # generic resources: a site-defined rusage resource, or left out by a raw rusage / resreq
    (
        "{resources: {genericResources: {lic: 2}}}",
        "lsf",
        {("W301", "spec.resources.genericResources")},
    ),
    (
        "{resources: {genericResources: {lic: 2}}, extensions: {lsf: {rusage_string: "
        "'rusage[mem=1GB]'}}}",
        "lsf",
        {("W301", "spec.resources.genericResources")},
    ),
    (
        "{resources: {genericResources: {lic: 2}}, extensions: {lsf: {resreq: ['select[a]']}}}",
        "lsf",
        {("W301", "spec.resources.genericResources")},
    ),
]


@pytest.mark.parametrize(("spec_yaml", "target", "expected"), HONEST_LSF)
def test_silent_losses_are_reported(
    spec_yaml: str, target: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= losses(spec_yaml, target)


# ── separators of the value languages (issue 18, item 4) ─────────────────────────────────────
# bsub reads an `-R` string as sections `name[…]` (a `]` ends one, white space separates them)
# over resource names that cannot hold `: . ( ) [ + - * / ! & | < > @ = ,` (IBM, "Configuring
# the lsf.shared resource section"), and `-gpu` as `:`-separated keywords (IBM `bsub -gpu`). A
# value that would end its section or keyword is refused (E140, naming the field and the
# character): written, it added a section (`span[ptile=4] rusage[mem=99999]`) or a keyword
# (`gmodel=a100:num=8`: 8 GPUs). LSF has no oracle: bammmc's own reader read them back so.
UNWRITABLE_LSF = [
    # (SPLAT spec, field, the character as the message names it)
    ("{resources: {gpu: {count: 1, type: 'a100:num=8'}}}", "spec.resources.gpu.type", ":"),
    (
        "{resources: {genericResources: {'lic,mem=99999': 2}}}",
        "spec.resources.genericResources.lic,mem=99999",
        ",",
    ),
    (
        "{extensions: {lsf: {same_resource: ['type] span[hosts=1']}}}",
        "spec.extensions.lsf.same_resource",
        "]",
    ),
    ("{extensions: {lsf: {span: 'ptile=4] rusage[mem=99999'}}}", "spec.extensions.lsf.span", "]"),
    (
        "{extensions: {lsf: {affinity: 'core(2)] span[hosts=1'}}}",
        "spec.extensions.lsf.affinity",
        "]",
    ),
    (
        "{extensions: {lsf: {order_expression: 'r15s] span[hosts=1'}}}",
        "spec.extensions.lsf.order_expression",
        "]",
    ),
    ("{extensions: {lsf: {cu: 'type=rack] span[hosts=1'}}}", "spec.extensions.lsf.cu", "]"),
    ("{extensions: {lsf: {select: 'mem>1] span[hosts=1'}}}", "spec.extensions.lsf.select", "]"),
    (
        "{extensions: {lsf: {rusage_string: 'rusage[mem=1] span[hosts=1]'}}}",
        "spec.extensions.lsf.rusage_string",
        "]",
    ),
]


@pytest.mark.parametrize(("spec_yaml", "field", "char"), UNWRITABLE_LSF)
def test_separators_are_refused(spec_yaml: str, field: str, char: str) -> None:
    errors = refused(spec_yaml, "lsf")
    assert [(code, f) for code, f, _ in errors] == [("E140", field)]
    assert f"`{char}`" in errors[0][2]


#: the same characters where they are the value's own (a false error is a bug too)
KEPT_LSF = [
    # (SPLAT spec, a directive written)
    # `gmodel=NAME[-MEMSIZE]`: a `-` is part of the model
    (
        "{resources: {gpu: {count: 1, type: 'TeslaV100-SXM2-32GB'}}}",
        "#BSUB -gpu num=1/task:gmodel=TeslaV100-SXM2-32GB",
    ),
    # an affinity string's own `(`, `,`, `=`, `:`
    (
        "{extensions: {lsf: {affinity: 'core(2,same=socket):cpubind=core'}}}",
        '#BSUB -R "affinity[core(2,same=socket):cpubind=core]"',
    ),
    ("{resources: {genericResources: {lic_a: 2}}}", '#BSUB -R "rusage[lic_a=2]"'),
]


@pytest.mark.parametrize(("spec_yaml", "line"), KEPT_LSF)
def test_separators_where_they_are_plain(spec_yaml: str, line: str) -> None:
    assert line in directives(spec_yaml, "lsf")


def test_nnodes_is_no_loss_where_nodes_are_written() -> None:
    """`-nnodes 2` is `resources.nodes`; its `extensions.lsf.nnodes` mark only says how LSF
    spelled it, so a target that writes the node count reports nothing for it (it gave a
    false W201 before)."""
    text = SH + "#BSUB -nnodes 2\n#BSUB -W 10\n./app\n"
    for target, line in (("slurm", "#SBATCH --nodes=2\n"), ("pbs", "select=2")):
        out, diags = bammmc.convert(text, "lsf", target)
        assert out is not None and line in out
        assert [d for d in diags if "nnodes" in (d.field or "")] == [], target
