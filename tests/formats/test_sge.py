"""Grid Engine, table-driven: qsub script -> IR, -> diagnostics, -> canonical `#$` script.

The SGE pitfalls of ../shared/docs/pitfalls.md have their own rows: `h_vmem` is per slot and is
multiplied by the slots of a thread PE (pitfall 1), `k m g` are decimal and `K M G` binary, the
memory resource is the site's (pitfall 11, `--sge-memory-resource`), names refuse whitespace
(pitfall 31), `-hold_jid` waits for any end, `#$` lines are read in the whole file.
"""

from __future__ import annotations

from typing import Any

import pytest

import bammmc
from bammmc.backends.splat import to_builtins
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.frontends.sge import scan
from bammmc.passes.lower.sge import lower
from tests.formats.test_slurm import spec, subset

SH = "#!/bin/bash\n"
BODY = "cd $SGE_O_WORKDIR\n./app\n"


def read(text: str) -> tuple[Any, list[Diagnostic]]:
    job, diags = bammmc.parse(text, "sge", filename="job.sge")
    return (to_builtins(job) if job is not None else None), diags


READ = [
    ("-N my.job", {"metadata": {"name": "my.job"}}),
    (
        "-q all.q -A acct -P physics",
        spec(schedule={"queue": "all.q", "account": "acct", "project": "physics"}),
    ),
    ("-l h_rt=3600", spec(schedule={"walltime": "PT1H"})),  # a bare number is seconds
    ("-l h_rt=1::1", spec(schedule={"walltime": "PT1H1S"})),  # empty fields are 0
    ("-l h_rt=36:00:00", spec(schedule={"walltime": "P1DT12H"})),
    ("-l h_rt=0x10", spec(schedule={"walltime": "PT16S"})),  # hex integers
    ("-l h_rt=INFINITY", spec(schedule={"walltime": "unlimited"})),
    ("-l s_rt=1:00:00", spec(extensions={"sge": {"s_rt": "PT1H"}})),
    # h_vmem is per slot: a thread PE's task holds all its slots (pitfall 1)
    ("-pe smp 8 -l h_vmem=2G", spec(resources={"cpusPerTask": 8, "memoryPerTask": "16Gi"})),
    # an MPI PE runs one task per slot
    ("-pe mpi 8 -l h_vmem=2G", spec(resources={"tasks": 8, "memoryPerTask": "2Gi"})),
    ("-pe openmpi8 40", spec(resources={"tasks": 40}, extensions={"sge": {"pe": "openmpi8"}})),
    # no PE: one slot
    ("-l h_vmem=2G", spec(resources={"memoryPerTask": "2Gi"})),
    # decimal vs binary k/K (sge_types(1))
    ("-l h_vmem=2g", spec(resources={"memoryPerTask": "2G"})),
    ("-l h_vmem=1000k", spec(resources={"memoryPerTask": "1M"})),
    ("-l h_vmem=1024K", spec(resources={"memoryPerTask": "1Mi"})),
    ("-l h_vmem=1500M", spec(resources={"memoryPerTask": "1500Mi"})),
    ("-l h_vmem=1000", spec(resources={"memoryPerTask": "1k"})),  # no suffix: bytes
    # other memory limits keep their per-slot value
    (
        "-l mem_free=4G,h_rss=1G",
        spec(extensions={"sge": {"slot_memory": {"mem_free": "4Gi/slot", "h_rss": "1Gi/slot"}}}),
    ),
    # a slot range: memory stays per slot
    (
        "-pe smp 2-8 -l h_vmem=1G",
        spec(
            resources={"cpusPerTask": 2, "memoryPerTask": "1Gi/slot"},
            extensions={"sge": {"pe": "smp", "pe_slots": "2-8"}},
        ),
    ),
    ("-l exclusive=true", spec(placement={"exclusive": True})),
    (
        "-l gpu=2,arch=lx-amd64",
        spec(extensions={"sge": {"resources": {"gpu": "2", "arch": "lx-amd64"}}}),
    ),
    (
        "-soft -l arch=x -q fast.q",
        spec(extensions={"sge": {"soft_resources": {"arch": "x"}, "soft_queue": "fast.q"}}),
    ),
    ("-t 1-100:2", spec(array={"indices": "1-100:2"})),
    ("-t 1-10:1 -tc 3", spec(array={"indices": "1-10", "maxConcurrent": 3})),
    ("-t 7", spec(array={"indices": "7"})),
    (
        "-hold_jid 12,13",
        spec(
            dependencies=[
                {"scheme": "afterany", "value": "12"},
                {"scheme": "afterany", "value": "13"},
            ]
        ),
    ),
    (
        "-hold_jid 12,prep*",
        spec(
            dependencies=[{"scheme": "afterany", "value": "12"}],
            extensions={"sge": {"hold_jid": ["12", "prep*"]}},
        ),
    ),
    ("-hold_jid_ad stage1", spec(extensions={"sge": {"hold_jid_ad": ["stage1"]}})),
    ("-cwd", spec(extensions={"sge": {"cwd": True}})),
    ("-wd /scratch/run", spec(execution={"workingDir": "/scratch/run"})),
    ("-j yes", spec(output={"mergeStderr": True})),
    ("-j n", spec(output={"mergeStderr": False})),
    (
        "-o logs/$JOB_NAME.$JOB_ID.$TASK_ID.out -e err.txt",
        spec(output={"stdout": "logs/{job_name}.{job_id}.{array_index}.out", "stderr": "err.txt"}),
    ),
    (
        "-o logs/",
        spec(
            output={"stdout": "logs/{job_name}.o{job_id}"}, extensions={"sge": {"output": "logs/"}}
        ),
    ),
    (
        "-o host1:/tmp/out",
        spec(output={"stdout": "/tmp/out"}, extensions={"sge": {"output": "host1:/tmp/out"}}),
    ),
    (
        "-m bea -M me@example.org",
        spec(notifications={"email": "me@example.org", "events": ["begin", "end", "fail"]}),
    ),
    ("-m n", spec(notifications={"events": []})),
    ("-m as", spec(notifications={"events": ["fail"]}, extensions={"sge": {"mail_points": "as"}})),
    (
        "-V -v A=1,B=two,C",
        spec(
            execution={
                "environment": {"inheritFromSubmitter": True, "vars": {"A": "1", "B": "two"}}
            },
            extensions={"sge": {"export": ["C"]}},
        ),
    ),
    ("-S /bin/csh", spec(execution={"shell": "/bin/csh"})),
    ("-p -1023", spec(schedule={"priority": 0})),
    ("-p 1024", spec(schedule={"priority": 1000}, extensions={"sge": {"priority": 1024}})),
    ("-p -50", spec(schedule={"priority": 476}, extensions={"sge": {"priority": -50}})),
    ("-h -r yes", spec(schedule={"hold": True}, lifecycle={"requeueOnFailure": True})),
    ("-a 202603010800", spec(schedule={"beginAfter": "2026-03-01T08:00:00"})),
    ("-a 03010800", spec(extensions={"sge": {"begin": "03010800"}})),
    ("-ar 42", spec(schedule={"reservation": "42"})),
    (
        "-R y -notify -now n -ckpt blcr",
        spec(extensions={"sge": {"reserve": True, "notify": True, "now": False, "ckpt": "blcr"}}),
    ),
    (
        "-js 10 -binding linear:2",
        spec(extensions={"sge": {"options": {"js": "10", "binding": "linear:2"}}}),
    ),
    ('-N "quoted"', {"metadata": {"name": "quoted"}}),
]


@pytest.mark.parametrize(("directives", "expected"), READ, ids=[r[0] for r in READ])
def test_read(directives: str, expected: dict[str, Any]) -> None:
    job, diags = read(f"{SH}#$ {directives}\n{BODY}")
    assert [d for d in diags if d.is_error] == []
    subset(expected, job)


def test_site_memory_resource() -> None:
    """The memory resource is site-defined (pitfall 11): only the named one is job memory."""
    text = SH + "#$ -pe smp 4\n#$ -l mem_free=3G,h_vmem=8G\n" + BODY
    reporter = Reporter("job.sge")
    job, _ = lower(scan(text, reporter), reporter, memory_resource="mem_free")
    assert job is not None and job.spec and job.spec.resources and job.spec.extensions
    assert job.spec.resources.memory_per_task is not None
    assert job.spec.resources.memory_per_task.bytes == 12 * 1024**3
    sge = job.spec.extensions.sge
    assert sge is not None and sge.memory_resource == "mem_free"
    assert sge.slot_memory is not None and sge.slot_memory["h_vmem"].bytes == 8 * 1024**3
    from bammmc.backends import WriteOptions
    from bammmc.backends.sge import write

    out = write(job, Reporter(), WriteOptions(sge_memory_resource="h_vmem"))[0].text
    assert "#$ -l mem_free=3G\n" in out  # the resource the job used wins


def test_cli_memory_resource_option(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from bammmc.cli import main

    path = tmp_path / "job.sge"
    path.write_text(SH + "#$ -pe smp 4\n#$ -l m_mem_free=2G\n" + BODY)
    result = CliRunner().invoke(
        main, [str(path), "--to", "slurm", "--sge-memory-resource", "m_mem_free"]
    )
    assert result.exit_code == 0, result.output
    assert "--mem-per-cpu=2G" in result.stdout or "--mem=8G" in result.stdout


DIAGNOSTICS = [
    ("#$ -l h_rt=1h\n", ["E134"]),
    ("#$ -l h_rt=1:30\n", ["E134"]),  # a two-field time is not documented
    ("#$ -l h_vmem=2T\n", ["E134"]),  # no T in the grammar
    ("#$ -l h_vmem=2GB\n", ["E134"]),
    ("#$ -pe smp x\n", ["E134"]),
    ("#$ -t 0-9\n", ["E134"]),  # task ids start at 1
    ("#$ -t 5-1\n", ["E134"]),
    ("#$ -j oe\n", ["E134"]),
    ("#$ -m xyz\n", ["E134"]),
    ("#$ -p 2000\n", ["E134"]),
    ('#$ -N "my job"\n', ["E134"]),  # whitespace in a name (pitfall 31)
    ("#$ -N a/b\n", ["E134"]),
    ("#$ -foo\n", ["E130"]),
    ("#$ -u someone\n", ["E130"]),  # a qalter option
    ("#$ -N\n", ["E131"]),
    ("#$ -pe smp\n", ["E131"]),
    ("#$ -N job extra\n", ["E133"]),
    ("#$ -q long   # the long queue\n", ["W410"]),
    ('#$ -N "unclosed\n', ["E020"]),
    ("#$ -N a\necho hi\n#$ -q late\n", ["W420"]),
    ("  #$ -N indented\n", ["W402"]),
    ("#$ -b y\n", ["W406"]),
    ("#$ -C '#PBS'\n", ["W406"]),
    ("#$ -N a\n#$ -N b\n", ["W407"]),
    ("#$ -pe big 4\n", ["W301"]),  # a PE name that says nothing: one task per slot
]


@pytest.mark.parametrize(("text", "expected"), DIAGNOSTICS, ids=[d[0] for d in DIAGNOSTICS])
def test_diagnostics(text: str, expected: list[str]) -> None:
    _, diags = read(SH + text + BODY)
    assert [d.code for d in diags] == expected
    assert all(d.span is not None and d.help for d in diags)


def test_late_directive_is_read_and_kept() -> None:
    job, diags = read(SH + "#$ -N a\necho hi\ncat <<EOF\n#$ -q inner.q\nEOF\n")
    assert [d.code for d in diags] == ["W420"]
    assert job["spec"]["schedule"]["queue"] == "inner.q"  # qsub applies it to this job
    assert "#$ -q inner.q\n" in job["spec"]["execution"]["script"]


IDENTITY = [
    "#$ -N hello\n#$ -l h_rt=00:10:00\n",
    "#$ -pe smp 8\n#$ -l h_vmem=2G\n#$ -cwd\n#$ -j y\n",
    "#$ -pe mpi 16\n#$ -l h_vmem=1500M\n#$ -l s_vmem=1g\n",
    "#$ -pe mpich-gm 2-8\n#$ -l h_vmem=1G\n",
    "#$ -t 1-99:2\n#$ -tc 5\n#$ -o out.$JOB_ID.$TASK_ID\n#$ -e err.$JOB_NAME\n",
    "#$ -hold_jid 1,2\n#$ -m bea\n#$ -M me@example.org\n",
    "#$ -hold_jid prep,3\n#$ -hold_jid_ad stage1\n",
    "#$ -q all.q\n#$ -A acct\n#$ -P physics\n#$ -p -100\n",
    "#$ -p 0\n#$ -h\n#$ -r n\n#$ -a 202603010800.30\n#$ -dl 03010800\n",
    "#$ -l exclusive=true,arch=lx-amd64,gpu=2\n#$ -R y\n#$ -notify\n#$ -now y\n",
    "#$ -V\n#$ -v A=1,B=x\n#$ -v C\n#$ -S /bin/bash\n#$ -wd /scratch\n",
    "#$ -soft\n#$ -l arch=x\n#$ -q fast.q\n#$ -hard\n#$ -l h_rt=600\n",
    "#$ -o host:/out\n#$ -m as\n#$ -ckpt blcr\n#$ -js 5\n#$ -binding pe linear:2\n",
    '#$ -N "a+b"\n#$ -i in.txt\n#$ -ac k=v\n#$ -l s_rt=0:0:30\n',
]


@pytest.mark.parametrize("directives", IDENTITY, ids=[i[:40] for i in IDENTITY])
def test_round_trip(directives: str) -> None:
    """`sge -> splat -> sge` gives the same IR, and the canonical text is stable."""
    job, diags = bammmc.parse(SH + directives + BODY, "sge")
    assert job is not None and not [d for d in diags if d.is_error], diags
    out, more = bammmc.emit(job, "sge")
    assert not [d for d in more if d.is_error], more
    again, _ = bammmc.parse(out, "sge")
    assert again == job, out
    assert bammmc.emit(again, "sge")[0] == out


def test_writer_canonical_text() -> None:
    job, _ = bammmc.parse(
        SH + "#$ -l h_vmem=2G,h_rt=9000\n#$ -pe smp 8 -N x -t 1-10:1 -j yes\n" + BODY, "sge"
    )
    assert job is not None
    out, diags = bammmc.emit(job, "sge")
    assert diags == []
    assert out == (
        SH + "#$ -N x\n#$ -l h_rt=02:30:00\n#$ -pe smp 8\n#$ -l h_vmem=2G\n#$ -t 1-10\n"
        "#$ -j y\n" + BODY
    )


def test_writer_sanitizes_names_and_quotes_values() -> None:
    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata:\n  name: 'my run/a'\n"
        "spec:\n  schedule:\n    queue: 'a b'\n",
        "splat",
    )
    assert job is not None
    out, diags = bammmc.emit(job, "sge")
    assert "#$ -N my_run_a\n" in out and '#$ -q "a b"\n' in out
    assert [(d.code, d.field) for d in diags] == [("W301", "metadata.name")]


def test_writer_refuses_line_breaks() -> None:
    job, _ = bammmc.parse(
        'apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  schedule:\n    queue: "a\\nb"\n',
        "splat",
    )
    assert job is not None
    _, diags = bammmc.emit(job, "sge")
    assert [d.code for d in diags] == ["E140"]


def test_slurm_to_sge_slots_and_memory() -> None:
    """Per-task memory becomes per slot: a 4-CPU task with 8G is `smp 4` with 2G a slot."""
    out, diags = bammmc.convert(
        SH + "#SBATCH -c 4 --mem-per-cpu=2G -t 1:00:00 --array=0-9%2\nsrun ./app\n",
        "slurm",
        "sge",
    )
    assert out is not None
    for line in ("#$ -pe smp 4\n", "#$ -l h_vmem=2G\n", "#$ -l h_rt=01:00:00\n", "#$ -tc 2\n"):
        assert line in out
    assert "#$ -t 1-10\n" in out  # task ids start at 1
    assert "spec.array.indices" in [d.field for d in diags]


def test_slurm_to_sge_tasks_and_dependencies() -> None:
    out, diags = bammmc.convert(
        SH + "#SBATCH -n 16 --mem-per-cpu=1G -d afterok:5:6 -o run_%j.out\nsrun ./app\n",
        "slurm",
        "sge",
    )
    assert out is not None
    for line in (
        "#$ -pe mpi 16\n",
        "#$ -l h_vmem=1G\n",
        "#$ -hold_jid 5,6\n",
        "#$ -o run_$JOB_ID.out\n",
    ):
        assert line in out
    # afterok waits for any end in Grid Engine; --mem-per-cpu is also in extensions.slurm
    assert {(d.code, d.field) for d in diags} == {
        ("W301", "spec.dependencies[0]"),
        ("W301", "spec.dependencies[1]"),
        ("W201", "spec.extensions.slurm"),
    }


def test_sge_variables_become_slurm_variables() -> None:
    out, diags = bammmc.convert(
        SH + "#$ -t 1-4\ncd $SGE_O_WORKDIR\necho $SGE_TASK_ID $JOB_ID\n", "sge", "slurm"
    )
    assert out is not None
    assert 'export SGE_TASK_ID="${SLURM_ARRAY_TASK_ID}"\n' in out
    assert 'export SGE_O_WORKDIR="${SLURM_SUBMIT_DIR}"\n' in out
    assert 'export JOB_ID="${SLURM_JOB_ID}"\n' in out
    back, _ = bammmc.parse(out, "slurm")
    assert back is not None and back.spec and back.spec.execution
    assert back.spec.execution.script == SH + "cd $SGE_O_WORKDIR\necho $SGE_TASK_ID $JOB_ID\n"
    assert all(d.code == "W301" for d in diags)


def test_detection() -> None:
    reporter = Reporter()
    from bammmc.registry import detect

    fmt = detect("job.sh", SH + "#$ -N a\n" + BODY, reporter)
    assert fmt is not None and fmt.name == "sge"
    fmt = detect("job.sh", SH + "#SBATCH -J a\necho $#\n", Reporter())
    assert fmt is not None and fmt.name == "slurm"
