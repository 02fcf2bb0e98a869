"""IBM Spectrum LSF, table-driven: bsub script -> IR, -> diagnostics, -> canonical bsub script.

The LSF pitfalls of ../shared/docs/pitfalls.md have their own rows: sizes default to KB (or
`--lsf-unit`), `-W 1:30` is ninety minutes, `-c` is CPU time, `-M` is a limit kept apart from
the per-slot `rusage[mem]`, `-n` with `span[]`, arrays in the job name, `-nnodes` with `-n`.
"""

from __future__ import annotations

from typing import Any

import pytest

import bammmc
from bammmc.backends.splat import to_builtins
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.frontends.lsf import scan
from bammmc.passes.lower.lsf import lower
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
    # memory: KB by default (pitfall 8), -M a limit apart from rusage (pitfall 3, 9)
    ('-R "rusage[mem=4GB]"', spec(resources={"memoryPerTask": "4Gi"})),
    ('-R "rusage[mem=2048]"', spec(resources={"memoryPerTask": "2Mi"})),
    ("-M 8GB", spec(extensions={"lsf": {"mem_limit": "8Gi"}})),
    ("-M 4096", spec(extensions={"lsf": {"mem_limit": "4Mi"}})),
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
        spec(extensions={"lsf": {"resreq": ["select[a]", "select[b]"]}}),
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
    """A bare `-M` is KB by default; `--lsf-unit MB` makes it MB (pitfall 8, 9)."""
    text = SH + "#BSUB -M 4096\n#BSUB -R 'rusage[mem=2048]'\n" + BODY
    reporter = Reporter("job.lsf")
    job, _ = lower(scan(text, reporter), reporter, unit="MB")
    assert job is not None and job.spec and job.spec.extensions and job.spec.extensions.lsf
    mem_limit = job.spec.extensions.lsf.mem_limit
    assert mem_limit is not None and mem_limit.bytes == 4096 * 1024**2
    assert job.spec.resources and job.spec.resources.memory_per_task
    assert job.spec.resources.memory_per_task.bytes == 2048 * 1024**2
    assert [d.code for d in reporter.diagnostics] == ["W302", "W302"]
    assert "MB" in reporter.diagnostics[0].message


def test_explicit_units_are_written() -> None:
    job, _ = bammmc.parse(SH + "#BSUB -M 4096 -R 'rusage[mem=1536MB]'\n" + BODY, "lsf")
    assert job is not None
    out, diags = bammmc.emit(job, "lsf")
    assert "#BSUB -M 4MB\n" in out and "rusage[mem=1536MB]" in out
    assert diags == []


def test_slurm_minutes_seconds_become_whole_minutes() -> None:
    """Slurm `--time=1:30` is 90 s: LSF has minutes only, so 2 minutes (pitfall 12, 15)."""
    out, diags = bammmc.convert(SH + "#SBATCH --time=1:30\nsrun x\n", "slurm", "lsf")
    assert out is not None and "#BSUB -W 0:02\n" in out
    assert [d.code for d in diags] == ["W301"]


def test_cpu_time_is_not_cpus_on_slurm() -> None:
    out, diags = bammmc.convert(SH + "#BSUB -c 10:00\n" + BODY, "lsf", "slurm")
    assert out is not None and "--cpus-per-task" not in out and "--time" not in out
    assert any((d.field or "").startswith("spec.extensions.lsf") for d in diags)


def test_directives_anywhere_and_comments() -> None:
    text = SH + "echo first\n#BSUB -q late   # a comment\n  #BSUB -J a \\\n   -n 2\n##BSUB -x\n"
    job, diags = read(text)
    assert diags == []
    assert job["spec"]["schedule"]["queue"] == "late"
    assert job["metadata"]["name"] == "a" and job["spec"]["resources"]["tasks"] == 2
    assert "placement" not in job["spec"]
    assert job["spec"]["execution"]["script"] == SH + "echo first\n##BSUB -x\n"


def test_array_index_zero_from_slurm() -> None:
    out, diags = bammmc.convert(SH + "#SBATCH -J sw --array=0-9%2\nsrun x\n", "slurm", "lsf")
    assert out is not None and '#BSUB -J "sw[1-9]%2"\n' in out
    assert "spec.array.indices" in {d.field for d in diags if d.code == "W301"}


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
