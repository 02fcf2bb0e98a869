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
from tests.formats.honest import losses
from tests.formats.separators import directives, refused
from tests.formats.separators import emit as write_spec
from tests.formats.test_slurm import spec, subset

SH = "#!/bin/bash\n"
#: the Grid Engine writer names the `#!` line's shell with `-S` (qsub does not read `#!`)
DASH_S = "#$ -S /bin/bash\n"
BODY = "cd $SGE_O_WORKDIR\n./app\n"


def emitted(job: Any, fmt: str) -> str:
    """The text ``bammmc.emit`` writes (``None`` only on an error, which these jobs have not)."""
    text, diagnostics = bammmc.emit(job, fmt)
    assert text is not None, diagnostics
    return text


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
    # a slot range of a thread PE: memory stays per slot, and a slot is one CPU of the task
    (
        "-pe smp 2-8 -l h_vmem=1G",
        spec(
            resources={"cpusPerTask": 2, "memoryPerTask": "1Gi/cpu"},
            extensions={"sge": {"pe": "smp", "pe_slots": "2-8"}},
        ),
    ),
    ("-l exclusive=true", spec(placement={"exclusive": True})),
    (
        "-l gpu=2,arch=lx-amd64",
        spec(
            resources={"gpu": {"count": "2"}},
            extensions={"sge": {"resources": {"arch": "lx-amd64"}}},
        ),
    ),
    # `gpu`, the consumable complex of GPUs, is counted per slot (sge_complex(5))
    ("-pe mpi 4 -l gpu=1", spec(resources={"tasks": 4, "gpu": {"count": "1"}})),
    ("-pe smp 4 -l gpu=1", spec(resources={"cpusPerTask": 4, "gpu": {"count": "4"}})),
    (
        "-pe smp 2-4 -l gpu=1",  # a slot range of a thread PE: no count per task
        spec(extensions={"sge": {"resources": {"gpu": "1"}}}),
    ),
    (
        "-soft -l arch=x -q fast.q",
        spec(extensions={"sge": {"soft_resources": {"arch": "x"}, "soft_queue": "fast.q"}}),
    ),
    ("-t 1-100:2", spec(array={"indices": "1-99:2"})),  # qsub ends it at the last id
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
    # every `wc_job` pattern character keeps the reference raw (formats/sge.md §2)
    (
        "-hold_jid 12,step?,run[12]",
        spec(
            dependencies=[{"scheme": "afterany", "value": "12"}],
            extensions={"sge": {"hold_jid": ["12", "step?", "run[12]"]}},
        ),
    ),
    # a job name is the portable dependency's value too (SPLAT: "job name or job ID")
    (
        "-hold_jid prep,0zz-",
        spec(
            dependencies=[
                {"scheme": "afterany", "value": "prep"},
                {"scheme": "afterany", "value": "0zz-"},
            ]
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
    # qsub: "invalid advance reservation id, must be an unsigned integer" (the oracle)
    ("#$ -ar maint\n", ["E134"]),
    ("#$ -ar -3\n", ["E134"]),
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
    ("#$ -C '#PBS'\n", ["W410", "W406"]),  # qsub cuts the line at `#`
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
    "#$ -soft -l arch=x,mem_free=4G -q fast.q\n#$ -l h_rt=600\n",
    "#$ -o host:/out\n#$ -m as\n#$ -ckpt blcr\n#$ -js 5\n#$ -binding pe linear:2\n",
    '#$ -N "a+b"\n#$ -i in.txt\n#$ -ac k=v\n#$ -l s_rt=0:0:30\n',
]


@pytest.mark.parametrize("directives", IDENTITY, ids=[i[:40] for i in IDENTITY])
def test_round_trip(directives: str) -> None:
    """`sge -> splat -> sge` gives the same IR, and the canonical text is stable."""
    job, diags = bammmc.parse(SH + directives + BODY, "sge")
    assert job is not None and not [d for d in diags if d.is_error], diags
    out, more = bammmc.emit(job, "sge")
    assert out is not None
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
        SH + DASH_S + "#$ -N x\n#$ -l h_rt=02:30:00\n#$ -pe smp 8\n#$ -l h_vmem=2G\n#$ -t 1-10\n"
        "#$ -j y\n" + BODY
    )


def test_writer_sanitizes_names_and_quotes_values() -> None:
    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata:\n  name: 'my run/a'\n"
        "spec:\n  execution:\n    workingDir: '/a b'\n",
        "splat",
    )
    assert job is not None
    out, diags = bammmc.emit(job, "sge")
    assert out is not None
    assert "#$ -N my_run_a\n" in out and '#$ -wd "/a b"\n' in out
    assert [(d.code, d.field) for d in diags] == [("W301", "metadata.name")]


@pytest.mark.parametrize(
    ("name", "written"),
    [("9", "_9"), ("2024-run", "_2024-run"), ("a9", "a9"), ("all", "_all"), ("None", "_None")],
)
def test_a_name_never_starts_with_a_digit(name: str, written: str) -> None:
    """The qmaster refuses `-N 9` ("not a valid object name (cannot start with a digit)",
    the Grid Engine oracle; found by tests/property/test_separators.py) and `-N all`
    ("Keyword ("ALL") not allowed as objectname": `ALL`, `NONE`, `TEMPLATE` in any case)."""
    job, _ = bammmc.parse(
        f"apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata:\n  name: '{name}'\n"
        'spec:\n  execution:\n    script: "echo"\n',
        "splat",
    )
    assert job is not None
    out, diags = bammmc.emit(job, "sge")
    assert out is not None and f"#$ -N {written}\n" in out
    assert [d.code for d in diags] == (["W301"] if written != name else [])


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
        "mpiexec -n 16 ./app\n",  # Grid Engine has no launcher: the MPI's, on the 16 slots
    ):
        assert line in out
    # afterok waits for any end in Grid Engine; --mem-per-cpu, kept as written in
    # extensions.slurm, reaches Grid Engine as memory per task (per slot)
    assert {(d.code, d.field) for d in diags} == {
        ("W301", "spec.dependencies[0]"),
        ("W301", "spec.dependencies[1]"),
        ("N003", "spec.extensions.slurm.mem_per_cpu"),
        ("W301", "spec.execution.script"),
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
    assert {d.code for d in diags} == {"W301", "N003"}  # `-cwd` missing: a real change


def test_detection() -> None:
    reporter = Reporter()
    from bammmc.registry import detect

    fmt = detect("job.sh", SH + "#$ -N a\n" + BODY, reporter)
    assert fmt is not None and fmt.name == "sge"
    fmt = detect("job.sh", SH + "#SBATCH -J a\necho $#\n", Reporter())
    assert fmt is not None and fmt.name == "slurm"


# ── review findings: qsub's own behaviour (parse_qsub.c, parse_job_cull.c, sge_string.c) ──────


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def round_trip_text(text: str) -> str:
    """`sge -> splat -> sge`."""
    job, _ = bammmc.parse(text, "sge")
    assert job is not None
    return emitted(job, "sge")


def emit_any(doc: str) -> tuple[str | None, list[Diagnostic]]:
    job, diags = bammmc.parse("apiVersion: bammm.io/v1alpha1\nkind: Job\n" + doc, "splat")
    assert job is not None and diags == [], diags
    return bammmc.emit(job, "sge")


def emit_splat(doc: str) -> tuple[str, list[Diagnostic]]:
    out, diags = emit_any(doc)
    assert out is not None, diags
    return out, diags


def test_soft_lasts_to_the_end_of_its_own_line() -> None:
    """cull_parse_cmdline() runs once per `#$` line, so the next line is hard again."""
    job, diags = read(SH + "#$ -soft\n#$ -l arch=x\n#$ -q long.q\n" + BODY)
    assert diags == []
    assert job["spec"]["extensions"]["sge"] == {"resources": {"arch": "x"}, "cwd": False}
    assert job["spec"]["schedule"]["queue"] == "long.q"
    job, _ = read(SH + "#$ -soft -l arch=x -hard -l os=y -soft -q a.q\n#$ -l h=1\n" + BODY)
    sge = job["spec"]["extensions"]["sge"]
    assert sge["soft_resources"] == {"arch": "x"} and sge["soft_queue"] == "a.q"
    assert sge["resources"] == {"os": "y", "h": "1"}


def test_writer_puts_soft_requests_on_one_line() -> None:
    out, diags = emit_splat(
        "spec:\n  extensions:\n    sge:\n      soft_resources: {arch: x, mem_free: 4G}\n"
        "      soft_queue: fast.q\n"
    )
    assert diags == []
    assert "#$ -soft -l arch=x,mem_free=4G -q fast.q\n" in out
    assert "#$ -soft\n" not in out and "-hard" not in out


@pytest.mark.parametrize(
    "directive",
    ["-t 1-100000000", "-t 1-99999999999", "-tc ²", "-tc 1_0", "-p ١٢", "-p 1_0", "-p 2000"],
)
def test_bad_numbers_are_e134_not_tracebacks(directive: str) -> None:
    text = f"{SH}#$ {directive}\n{BODY}"
    job, diags = read(text)
    assert job is None and codes(diags) == ["E134"]
    span = diags[0].span
    assert span is not None and text[span.start : span.end] == directive.split(" ", 1)[1]


def test_qsub_deletes_every_quote_of_every_word() -> None:
    job, diags = read(SH + "#$ -N a\"b\"c\n#$ -v \"A='x y'\",B='1'2\n" + BODY)
    assert diags == []
    assert job["metadata"]["name"] == "abc"
    assert job["spec"]["execution"]["environment"]["vars"] == {"A": "x y", "B": "12"}


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ('metadata:\n  name: x\nspec:\n  schedule:\n    queue: "it\'s"\n', "spec.schedule.queue"),
        ("spec:\n  execution:\n    workingDir: '/a\"b'\n", "spec.execution.workingDir"),
        ('spec:\n  extensions:\n    sge:\n      ckpt: "a\'b"\n', "spec.extensions.sge.ckpt"),
        ("spec:\n  schedule:\n    account: 'a#b'\n", "spec.schedule.account"),
    ],
)
def test_writer_refuses_values_with_quotes_or_hash(doc: str, field: str) -> None:
    out, diags = emit_any(doc)
    assert [(d.code, d.field) for d in diags] == [("E140", field)]
    assert out is None  # an error: no text (issue #18: the library returns None)


def test_a_hash_ends_the_directive_anywhere() -> None:
    """parse_script_file() cuts the line at its first `#`, even inside a word or quotes."""
    job, diags = read(SH + '#$ -N run#1\n#$ -q "a # b"\n' + BODY)
    assert codes(diags) == ["W410", "W410"]
    assert job["metadata"]["name"] == "run" and job["spec"]["schedule"]["queue"] == "a"


def test_queue_mail_and_addresses_accumulate() -> None:
    job, diags = read(
        SH + "#$ -q a.q\n#$ -q b.q,c.q\n#$ -m b\n#$ -m e\n#$ -M me@x.org\n#$ -M you@y.org\n" + BODY
    )
    assert diags == []
    assert job["spec"]["schedule"]["queue"] == "a.q,b.q,c.q"
    assert job["spec"]["notifications"] == {
        "events": ["begin", "end"],
        "email": "me@x.org,you@y.org",
    }
    job, diags = read(SH + "#$ -m bs\n#$ -m n\n#$ -m a\n#$ -M a@x.org\n#$ -M b@x.org\n" + BODY)
    assert job["spec"]["notifications"] == {"events": ["fail"], "email": "b@x.org"}
    assert job["spec"]["extensions"]["sge"] == {"cwd": False}  # `n` cleared the `s` as well
    assert codes(diags) == ["W407"]  # one address per host: the later replaces the earlier


def test_streams_stay_separate_by_default() -> None:
    job, diags = read(SH + "#$ -o out.log\n" + BODY)
    # stderr goes to qsub's own name for it (qsub(1) -e: `<job_name>.e<job_id>`)
    assert diags == [] and job["spec"]["output"] == {
        "stdout": "out.log",
        "stderr": "{job_name}.e{job_id}",
        "mergeStderr": False,
    }
    out = round_trip_text(SH + "#$ -o out.log\n" + BODY)
    assert "-j" not in out  # separate files are qsub's default
    converted, _ = bammmc.convert(SH + "#$ -N x\n" + BODY, "sge", "slurm")
    assert converted is not None and "#SBATCH --error=" in converted


def test_error_path_is_ignored_when_joined() -> None:
    job, diags = read(SH + "#$ -j Y\n#$ -o out.log -e err.log\n" + BODY)
    assert codes(diags) == ["W406"]
    assert job["spec"]["output"] == {"stdout": "out.log", "mergeStderr": True}
    out, diags = emit_splat(
        "spec:\n  output:\n    mergeStderr: true\n    stdout: o\n    stderr: e\n"
    )
    assert "#$ -e" not in out and [(d.code, d.field) for d in diags] == [
        ("W201", "spec.output.stderr")
    ]


def test_site_only_path_variables_stay_grid_engine_only() -> None:
    """`$HOME`/`$USER` are expanded by the execd only; `${JOB_ID}` is not expanded at all."""
    job, diags = read(SH + "#$ -o $HOME/logs/$USER.log\n#$ -e /s/${JOB_ID}.err\n" + BODY)
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.output.stdout")]
    assert job["spec"]["extensions"]["sge"] == {"output": "$HOME/logs/$USER.log", "cwd": False}
    assert "stdout" not in job["spec"]["output"]
    assert job["spec"]["output"]["stderr"] == "/s/${{JOB_ID}}.err"  # literal braces
    out, _ = bammmc.convert(SH + "#$ -o $HOME/x.log\n" + BODY, "sge", "slurm")
    assert out is not None and "$HOME" not in out


def test_job_id_of_an_array_is_the_arrays_id() -> None:
    job, diags = read(SH + "#$ -t 1-4\n#$ -o o.$JOB_ID.$TASK_ID\n#$ -e logs/\n" + BODY)
    assert diags == []
    assert job["spec"]["output"]["stdout"] == "o.{array_job_id}.{array_index}"
    assert job["spec"]["output"]["stderr"] == "logs/{job_name}.e{array_job_id}.{array_index}"
    job, _ = read(SH + "#$ -o o.$JOB_ID\n" + BODY)
    assert job["spec"]["output"]["stdout"] == "o.{job_id}"
    out, diags = emit_splat(
        "spec:\n  array:\n    indices: 1-4\n  output:\n    stdout: o.{job_id}\n"
    )
    assert "#$ -o o.$JOB_ID.$TASK_ID\n" in out
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.output.stdout")]


def test_writer_escapes_path_separators_and_dollars() -> None:
    """A `,` (no escape in a `host:path,…` list) and a `$` Grid Engine would expand become
    `_`; a `:` is the path's own after an empty host (the qmaster records `:a:b` as the path
    `a:b` on no host: test_sge_oracle.py)."""
    out, diags = emit_splat("spec:\n  output:\n    stdout: 'run:1,x.$HOME.{job_id}'\n")
    assert "#$ -o :run:1_x._HOME.$JOB_ID\n" in out
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.output.stdout")]


def test_extensions_do_not_silently_override_portable_fields() -> None:
    out, diags = emit_splat(
        "spec:\n  dependencies:\n    - {scheme: afterany, value: '12'}\n"
        "    - {scheme: afterany, value: '14'}\n"
        "  notifications:\n    events: [end]\n"
        "  extensions:\n    sge:\n      hold_jid: ['prep*', '12', '13', ab]\n"
        "      mail_points: bas\n"
    )
    # 13 and the name `ab` were dropped from the portable list; the pattern is Grid Engine's
    assert "#$ -hold_jid prep*,12,14\n" in out
    assert "#$ -m es\n" in out
    assert {(d.code, d.field) for d in diags} == {
        ("W301", "spec.extensions.sge.hold_jid"),
        ("W301", "spec.extensions.sge.mail_points"),
    }
    # agreeing values: the extension refines the portable field without a word
    out, diags = emit_splat(
        "spec:\n  dependencies:\n    - {scheme: afterany, value: '12'}\n"
        "  notifications:\n    events: [fail]\n"
        "  extensions:\n    sge:\n      hold_jid: ['12', 'prep*']\n      mail_points: as\n"
    )
    assert diags == [] and "#$ -hold_jid 12,prep*\n" in out and "#$ -m as\n" in out


def test_shifted_array_defines_the_other_indices_exactly() -> None:
    out, _ = bammmc.convert(
        SH + "#SBATCH --array=0-199\necho $SLURM_ARRAY_TASK_ID\n", "slurm", "sge"
    )
    assert out is not None and "#$ -t 1-200\n" in out
    assert 'export SLURM_ARRAY_TASK_ID="$((SGE_TASK_ID - 1))"\n' in out
    out, _ = emit_splat(
        "spec:\n  array:\n    indices: 0-9\n  execution:\n"
        '    script: "#!/bin/bash\\necho $BAMMM_ARRAY_INDEX\\n"\n'
    )
    assert 'export BAMMM_ARRAY_INDEX="$((SGE_TASK_ID - 1))"\n' in out


def test_shifted_array_file_names_are_named_in_the_body() -> None:
    """`-o a-$TASK_ID.out` of an array shifted up by one would name a-1 … a-4, not a-0 … a-3
    (the behaviour row slurm-array-zero-based; HTCondor's `queue N` is the same): a POSIX
    shell body names the files itself (`exec >…`, with `-o /dev/null`); a body in another
    shell keeps `-o` and gets a W301 on the output field."""

    def fields(diags: list[Diagnostic]) -> list[tuple[str, str | None]]:
        return [(d.code, d.field) for d in diags]

    out, diags = bammmc.convert(SH + "#SBATCH --array=0-3\n#SBATCH -o a-%a.out\n", "slurm", "sge")
    assert out is not None and "#$ -o /dev/null\n" in out and "#$ -j y\n" in out
    assert 'exec >"a-$((SGE_TASK_ID - 1)).out" 2>&1\n' in out
    assert ("W301", "spec.output.stdout") not in fields(diags)
    out, _ = bammmc.convert(
        SH + "#SBATCH --array=0-3 -J j\n#SBATCH -o o-%x-%A-%a.out -e 'e $%a\".err'\n",
        "slurm",
        "sge",
    )
    assert out is not None and "#$ -e /dev/null\n" in out
    assert 'exec >"o-${JOB_NAME}-${JOB_ID}-$((SGE_TASK_ID - 1)).out"\n' in out
    assert 'exec 2>"e \\$$((SGE_TASK_ID - 1))\\".err"\n' in out
    out, diags = bammmc.convert(
        "#!/bin/csh\n#SBATCH --array=0-3\n#SBATCH -o a-%a.out\necho $SLURM_ARRAY_TASK_ID\n",
        "slurm",
        "sge",
    )
    assert out is not None and "#$ -o a-$TASK_ID.out\n" in out and "exec >" not in out
    assert ("W301", "spec.output.stdout") in fields(diags)
    for names in ("-o a.out", "--array=1-3\n#SBATCH -o a-%a.out"):
        out, diags = bammmc.convert(SH + f"#SBATCH --array=0-3\n#SBATCH {names}\n", "slurm", "sge")
        assert out is not None and "exec >" not in out
        assert ("W301", "spec.output.stdout") not in fields(diags)


def test_thread_pe_slot_range_is_memory_per_cpu() -> None:
    out, _ = bammmc.convert(SH + "#$ -pe smp 2-8\n#$ -l h_vmem=1G\n" + BODY, "sge", "slurm")
    assert out is not None and "#SBATCH --mem-per-cpu=1G\n" in out
    assert "#SBATCH --cpus-per-task=2\n" in out


def test_shell_option_beats_the_shebang() -> None:
    job, diags = read(SH + "#$ -S /bin/tcsh\n" + BODY)
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.execution.shell")]
    assert job["spec"]["execution"]["shell"] == "/bin/tcsh"
    _, diags = read("#!/usr/bin/env bash\n#$ -S /bin/bash\n" + BODY)
    assert diags == []  # the same shell


def test_yes_and_no_ignore_case() -> None:
    job, diags = read(SH + "#$ -j Y -r YES -R Yes -now NO\n" + BODY)
    assert diags == []
    assert job["spec"]["output"]["mergeStderr"] is True
    assert job["spec"]["lifecycle"]["requeueOnFailure"] is True
    assert job["spec"]["extensions"]["sge"] == {"reserve": True, "now": False, "cwd": False}


@pytest.mark.parametrize(
    ("directives", "cwd", "wd"),
    [("#$ -wd /x\n#$ -cwd\n", True, None), ("#$ -cwd\n#$ -wd /x\n", None, "/x")],
)
def test_the_later_of_cwd_and_wd_wins(directives: str, cwd: bool | None, wd: str | None) -> None:
    job, diags = read(SH + directives + BODY)
    assert codes(diags) == ["W407"]
    assert job["spec"].get("extensions", {}).get("sge", {}).get("cwd") == cwd
    assert job["spec"]["execution"].get("workingDir") == wd
    out = round_trip_text(SH + directives + BODY)
    assert ("#$ -cwd\n" in out) == bool(cwd) and ("#$ -wd /x\n" in out) == bool(wd)


def test_writer_with_both_cwd_and_wd_writes_the_directory() -> None:
    out, diags = emit_splat(
        "spec:\n  execution:\n    workingDir: /w\n  extensions:\n    sge:\n      cwd: true\n"
    )
    assert "#$ -wd /w\n" in out and "-cwd" not in out
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.extensions.sge.cwd")]


def test_writer_computes_large_arrays_without_listing_them() -> None:
    import time

    started = time.perf_counter()
    out, diags = emit_splat("spec:\n  array:\n    indices: 1-10000000:3\n")
    assert time.perf_counter() - started < 1
    assert "#$ -t 1-10000000:3\n" in out and diags == []
    out, diags = emit_splat("spec:\n  array:\n    indices: 0-4999999,5000000-9999999\n")
    assert "#$ -t 1-10000000\n" in out


@pytest.mark.parametrize(
    ("directive", "expected"),
    [
        ("-pe mpi 16,4", {"tasks": 4}),
        ("-pe mpi 4-", {"tasks": 4}),
        ("-pe mpi -8", {"tasks": 1}),
        ("-pe smp 2,6-8", {"cpusPerTask": 2}),
    ],
)
def test_slot_range_minimum(directive: str, expected: dict[str, int]) -> None:
    job, diags = read(f"{SH}#$ {directive}\n{BODY}")
    assert codes(diags) == ["W301"]
    assert job["spec"]["resources"] == expected


def test_inverted_slot_range_is_refused() -> None:
    _, diags = read(SH + "#$ -pe smp 8-4\n" + BODY)
    assert codes(diags) == ["E134"] and "ends before it starts" in diags[0].message


@pytest.mark.parametrize(
    ("value", "message"),
    [("h_vmem=", "the value of `h_vmem` is empty"), ("h_vmem", "`-l h_vmem` has no value")],
)
def test_empty_memory_value_says_so(value: str, message: str) -> None:
    _, diags = read(f"{SH}#$ -l {value}\n{BODY}")
    assert [(d.code, d.message) for d in diags] == [("E134", message)]


def test_every_bad_resource_item_is_reported_at_itself() -> None:
    text = SH + "#$ -l h_vmem=2T,arch=x,h_rt=1h,=5,s_rt=60\n" + BODY
    _, diags = read(text)
    shown = sorted(text[d.span.start : d.span.end] for d in diags if d.span and d.span.start)
    assert codes(diags) == ["E134"] * 3
    assert shown == ["=5", "h_rt=1h", "h_vmem=2T"]


@pytest.mark.parametrize(
    ("directive", "expected"),
    [
        ("-l h_vmem=.5G", {"resources": {"memoryPerTask": "512Mi"}}),
        ("-l h_vmem=1e3M", {"resources": {"memoryPerTask": "1000Mi"}}),
        ("-l h_vmem=+2G", {"resources": {"memoryPerTask": "2Gi"}}),
        ("-l h_vmem=010K", {"resources": {"memoryPerTask": "8Ki"}}),  # strtol: octal
        ("-l h_rt=1.5", {"schedule": {"walltime": "PT1S"}}),  # truncated
        ("-l h_rt=1.5:0:0", {"schedule": {"walltime": "PT1H30M"}}),
        ("-l h_rt=010:00:00", {"schedule": {"walltime": "PT10H"}}),  # strtod: decimal
        ("-t 1-3,4-6", {"array": {"indices": "1-6"}}),
        ("-t 1,3,5-9:2", {"array": {"indices": "1-9:2"}}),
        ("-tc 0 -t 1-3", {"array": {"indices": "1-3"}}),  # 0: no limit
    ],
)
def test_numbers_as_qsub_reads_them(directive: str, expected: dict[str, Any]) -> None:
    job, diags = read(f"{SH}#$ {directive}\n{BODY}")
    assert diags == []
    subset(expected, job["spec"])


def test_task_list_that_is_not_one_range_is_refused() -> None:
    _, diags = read(SH + "#$ -t 1-3,7-9\n" + BODY)
    assert codes(diags) == ["E134"]


def test_writer_always_writes_a_memory_unit() -> None:
    out, diags = emit_splat(
        "spec:\n  resources:\n    cpusPerTask: 3\n    memoryPerTask: 1Gi\n"
        "  extensions:\n    sge:\n      slot_memory: {s_vmem: 1001/slot}\n"
    )
    # 1Gi / 3 = 357913941.3 bytes a slot: no unit divides it, so it is rounded up to whole `k`
    # (one warning: the third of a byte before it is nothing to report)
    assert "#$ -l h_vmem=357914k\n" in out
    assert "#$ -l s_vmem=1001M\n" in out
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.resources.memoryPerTask")]


@pytest.mark.parametrize(
    ("sge", "code", "field"),
    [
        ("resources: {a: 'b,c=d'}", "E140", "spec.extensions.sge.resources.a"),
        ("resources: {'x y': '1'}", "E140", "spec.extensions.sge.resources.x y"),
        ("soft_resources: {arch: 'x=y'}", "E140", "spec.extensions.sge.soft_resources.arch"),
        ("export: ['A,B']", "E140", "spec.extensions.sge.export"),
        ("options: {N: other}", "W201", "spec.extensions.sge.options.N"),
        ("options: {hold_jid: '1'}", "W201", "spec.extensions.sge.options.hold_jid"),
        ("{pe: mpi, pe_slots: '4 -l x=1'}", "E140", "spec.extensions.sge.pe_slots"),
        ("mail_points: 'b,x'", "E140", "spec.extensions.sge.mail_points"),
        ("begin: '0301 -N x'", "E140", "spec.extensions.sge.begin"),
    ],
)
def test_writer_validates_extension_values(sge: str, code: str, field: str) -> None:
    ext = f"    sge: {sge}\n" if sge.startswith("{") else f"    sge:\n      {sge}\n"
    out, diags = emit_any("spec:\n  extensions:\n" + ext)
    assert [(d.code, d.field) for d in diags] == [(code, field)]
    # an error gives no text (issue #18); a W201 the text without the option
    assert out is None if code[0] == "E" else out is not None and out.count("#$") == 2  # -S and one
    assert out is None or "#$ -cwd\n" in out  # SPLAT's submit directory, nothing else


def test_array_before_clear_is_kept() -> None:
    """cull_parse_job_parameter() applies `-t` and `-tc` before it handles `-clear`."""
    job, diags = read(SH + "#$ -t 1-10 -tc 2 -N a -l h_rt=60\n#$ -clear\n#$ -N b\n" + BODY)
    assert diags == []
    assert job["spec"]["array"] == {"indices": "1-10", "maxConcurrent": 2}
    assert job["metadata"]["name"] == "b" and "schedule" not in job["spec"]


def test_priority_uses_the_priority_band() -> None:
    from bammmc.ir.priority import PriorityBand

    text = SH + "#$ -p 1023\n" + BODY
    reporter = Reporter("job.sge")
    job, _ = lower(scan(text, reporter), reporter, band=PriorityBand(0, 100))
    assert job is not None and job.spec and job.spec.schedule
    assert job.spec.schedule.priority == 100


# ── losses the honesty test (tests/test_honesty.py) found silent: each now has its diagnostic ──

HONEST_SGE = [
    # (SPLAT spec as YAML flow, target, the (code, field) pairs among the diagnostics)
    # a slot range without a parallel environment to go with (one task of one CPU)
    *[
        (
            f"{{extensions: {{sge: {{pe_slots: '{slots}'}}}}}}",
            "sge",
            {("W201", "spec.extensions.sge.pe_slots")},
        )
        for slots in ("0", "4", "2-8")
    ],
    # tasks of several CPUs in an MPI PE: the slots read back as tasks of one CPU, and the
    # memory per slot as theirs
    (
        "{resources: {tasks: 4, cpusPerTask: 2, memoryPerTask: 1Gi}}",
        "sge",
        {
            ("W301", "spec.resources.cpusPerTask"),
            ("W301", "spec.resources.tasks"),
            ("W301", "spec.resources.memoryPerTask"),
        },
    ),
    (
        "{execution: {script: 'echo', container: {image: img, command: [x]}}}",
        "sge",
        {("W201", "spec.execution.container.command")},
    ),
    (
        "{execution: {environment: {configMaps: [{name: A, configMapName: c, configMapKey: k}]}}}",
        "sge",
        {("W201", "spec.execution.environment.configMaps")},
    ),
    # the arguments of a script: only the qsub command line takes them (shared code)
    (
        "{execution: {script: 'echo', arguments: 'a b'}}",
        "sge",
        {("W201", "spec.execution.arguments")},
    ),
    # the name of the memory resource, without memory to write with it
    (
        "{extensions: {sge: {memory_resource: mem_free}}}",
        "sge",
        {("W201", "spec.extensions.sge.memory_resource")},
    ),
    # memory per CPU on half a CPU rounded up to one slot: twice the memory per task
    (
        "{resources: {cpusPerTask: 0.5, memoryPerTask: 2G/cpu}}",
        "sge",
        {("W301", "spec.resources.cpusPerTask"), ("W301", "spec.resources.memoryPerTask")},
    ),
]


@pytest.mark.parametrize(("spec_yaml", "target", "expected"), HONEST_SGE)
def test_silent_losses_are_reported(
    spec_yaml: str, target: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= losses(spec_yaml, target)


# ── separators of the value languages (issue 18, item 4) ─────────────────────────────────────
# qsub reads `-i`/`-o`/`-e`/`-S` as `[[host]:]path[,…]` (sge.md §3), `-l` as requests split at
# `,` and white space, `-pe` as one name word. A `:` in a path is the path's own after an empty
# host (`:in:2024.txt`: the qmaster records the path `in:2024.txt` and no host —
# test_sge_oracle.py); written bare, `-i in:2024.txt` names the host `in`. A `,` in a path
# has no escape, nor a blank in a `-l` value or a PE name: refused (E140, naming the field and
# the character).
UNWRITABLE_SGE = [
    # (SPLAT spec, field, the character as the message names it)
    ("{execution: {stdin: 'a,b'}}", "spec.execution.stdin", ","),
    ("{execution: {shell: '/bin/a,b'}}", "spec.execution.shell", ","),
    ("{extensions: {sge: {resources: {arch: 'x y'}}}}", "spec.extensions.sge.resources.arch", " "),
    (
        "{extensions: {sge: {soft_resources: {arch: 'x y'}}}}",
        "spec.extensions.sge.soft_resources.arch",
        " ",
    ),
    ("{resources: {tasks: 2}, extensions: {sge: {pe: 'smp x'}}}", "spec.extensions.sge.pe", " "),
    ("{resources: {tasks: 2}, extensions: {sge: {pe: 'a,b'}}}", "spec.extensions.sge.pe", ","),
]


@pytest.mark.parametrize(("spec_yaml", "field", "char"), UNWRITABLE_SGE)
def test_separators_are_refused(spec_yaml: str, field: str, char: str) -> None:
    errors = refused(spec_yaml, "sge")
    assert [(code, f) for code, f, _ in errors] == [("E140", field)]
    assert ("a blank" if char == " " else f"`{char}`") in errors[0][2]


# A value the Grid Engine object it names cannot hold: written, the qmaster would refuse the
# whole job or match other jobs or queues; dropped with a W201 that names the character (the
# job still runs; a corpus job's Jean Zay account `six@v100` is one).
LOST_SGE = [
    # (SPLAT spec, field, the character as the note names it)
    # the qmaster refuses the whole job for an account string with one of `QSUB_TABLE`'s
    # characters ("Slash ('/') not allowed in objectname", the Grid Engine oracle)
    ("{schedule: {account: 'lab/a'}}", "spec.schedule.account", "/"),
    ("{schedule: {account: 'lab:a'}}", "spec.schedule.account", ":"),
    ("{schedule: {account: 'a@b'}}", "spec.schedule.account", "@"),
    ("{schedule: {account: 'a*'}}", "spec.schedule.account", "*"),
    # the oracle's qmaster fails on a blank ("Error reading answer list from qmaster")
    ("{schedule: {account: 'lab a'}}", "spec.schedule.account", " "),
    # a `-hold_jid` name with a pattern character waits for every job whose name it matches
    (
        "{dependencies: [{scheme: afterany, value: 'prep[1]'}]}",
        "spec.dependencies[0]",
        "[",
    ),
    ("{dependencies: [{scheme: afterok, value: 'run*'}]}", "spec.dependencies[0]", "*"),
    # no cluster queue is named with a blank, `\\` or `{`: the qmaster would match none, or
    # after a `!` (negation) every queue (`-q '!9\\'` was accepted by the oracle)
    ("{schedule: {partition: '!9\\\\'}}", "spec.schedule.partition", "\\"),
    ("{schedule: {queue: 'a b'}}", "spec.schedule.queue", " "),
    ("{schedule: {queue: 'a{b'}}", "spec.schedule.queue", "{"),
    ("{schedule: {account: None}}", "spec.schedule.account", "reserves"),
]


@pytest.mark.parametrize(("spec_yaml", "field", "char"), LOST_SGE)
def test_names_grid_engine_cannot_hold_are_lost(spec_yaml: str, field: str, char: str) -> None:
    text, diags = write_spec(spec_yaml, "sge")
    assert text is not None
    lost = [d for d in diags if d.code == "W201"]
    assert [d.field for d in lost] == [field]
    assert ("a blank" if char == " " else char if char == "reserves" else f"`{char}`") in " ".join(
        lost[0].notes
    )
    assert not [x for x in text.splitlines() if x.startswith(("#$ -A", "#$ -q", "#$ -hold_jid"))]


ENCODED_SGE = [
    # (SPLAT spec, the directive written, the field read back and its value)
    ("{execution: {stdin: 'in:2024.txt'}}", "#$ -i :in:2024.txt", "stdin", "in:2024.txt"),
    ("{execution: {shell: '/opt/x:y/bash'}}", "#$ -S :/opt/x:y/bash", "shell", "/opt/x:y/bash"),
    ("{output: {stdout: 'out:1.txt'}}", "#$ -o :out:1.txt", None, None),
]


@pytest.mark.parametrize(("spec_yaml", "line", "key", "value"), ENCODED_SGE)
def test_a_colon_in_a_path_follows_an_empty_host(
    spec_yaml: str, line: str, key: str | None, value: str | None
) -> None:
    written = directives(spec_yaml, "sge")
    assert line in written
    job, diags = read(SH + line + "\n" + BODY)
    assert not [d for d in diags if d.is_error]
    if key is not None:
        assert job["spec"]["execution"][key] == value
        # one path on no host: the portable field (and no `-cwd`: the home directory)
        assert job["spec"]["extensions"] == {"sge": {"cwd": False}}
    else:
        assert job["spec"]["output"]["stdout"] == "out:1.txt"


@pytest.mark.parametrize(
    ("path", "line"),
    [
        # the execd expands a leading `~` to the home directory (sge.md §3)
        ("~out.txt", "#$ -o ./~out.txt"),
        ("~/logs/x.out", "#$ -o ./~/logs/x.out"),
        # a path ending in `/` is a folder, in which the execd writes its default name
        ("logs/", "#$ -o logs/$JOB_NAME.o$JOB_ID"),
    ],
)
def test_an_output_path_is_written_as_the_same_file(path: str, line: str) -> None:
    """Found by the 100k separator survey (tools/injection_survey.py --target sge)."""
    text, diags = write_spec(
        f"{{output: {{stdout: '{path}'}}, execution: {{script: echo}}}}", "sge"
    )
    assert text is not None and line + "\n" in text
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.output.stdout")]


def test_an_array_folder_path_names_each_tasks_default_file() -> None:
    written = directives(
        "{array: {indices: '1-3'}, output: {stdout: 'logs/'}, execution: {script: 'echo'}}",
        "sge",
    )
    assert "#$ -o logs/$JOB_NAME.o$JOB_ID.$TASK_ID" in written


@pytest.mark.parametrize(
    ("reservation", "line", "codes"),
    [("42", "#$ -ar 42", []), ("maint", None, [("W201", "spec.schedule.reservation")])],
)
def test_a_reservation_is_written_by_its_id_only(
    reservation: str, line: str | None, codes: list[tuple[str, str]]
) -> None:
    """`-ar` takes an advance reservation's id: `-ar maint` makes qsub refuse the job ("invalid
    advance reservation id, must be an unsigned integer", the Grid Engine oracle)."""
    text, diags = write_spec(
        f"{{schedule: {{reservation: '{reservation}'}}, execution: {{script: echo}}}}", "sge"
    )
    assert text is not None
    assert [x for x in text.splitlines() if x.startswith("#$ -ar")] == ([line] if line else [])
    assert [(d.code, d.field) for d in diags] == codes


def test_a_mail_list_without_an_address_is_lost() -> None:
    """qsub refuses `-M ,` ("Wrong mail list format "," specified to -M option", the Grid
    Engine oracle); an empty entry beside an address is nothing (`-M a@b,` mails `a@b`)."""
    text, diags = write_spec("{notifications: {email: ','}, execution: {script: echo}}", "sge")
    assert text is not None and "#$ -M" not in text
    assert [(d.code, d.field) for d in diags] == [("W201", "spec.notifications.email")]
    assert "#$ -M a@b," in directives("{notifications: {email: 'a@b,'}}", "sge")


@pytest.mark.parametrize(
    ("email", "line"),
    [("a@b@c,d@e", "#$ -M d@e"), ("@b,d", "#$ -M d"), ("a@,d", "#$ -M d"), ("@", None)],
)
def test_an_address_qsub_would_change_is_lost(email: str, line: str | None) -> None:
    """qsub keeps `user@host` up to a second `@` (`a@b@c` and `a@@b` are `a@b`) and loses the
    empty part of `@b` or `a@` (the Grid Engine oracle's record): such an address is dropped,
    the rest is written."""
    text, diags = write_spec(
        f"{{notifications: {{email: '{email}'}}, execution: {{script: echo}}}}", "sge"
    )
    assert text is not None
    assert [x for x in text.splitlines() if x.startswith("#$ -M")] == ([line] if line else [])
    assert [(d.code, d.field) for d in diags] == [("W201", "spec.notifications.email")]


def test_a_job_starts_where_its_scheduler_starts_it() -> None:
    """Grid Engine starts a job in the home directory unless `-cwd` says the submit directory
    (qsub(1); the oracle's run-job: without `-cwd` the `.o` file lands in $HOME), which is
    SPLAT's default and Slurm's, LSF's, Flux's and HTCondor's; PBS starts it in $HOME too."""
    job, _ = read(SH + "#$ -N a\n" + BODY)
    assert job["spec"]["extensions"]["sge"] == {"cwd": False}
    job, _ = read(SH + "#$ -cwd\n" + BODY)
    assert job["spec"]["extensions"]["sge"] == {"cwd": True}
    # the submit directory of a job from elsewhere is `-cwd`; the home directory is nothing
    assert "#$ -cwd\n" in emit_splat("spec:\n  execution:\n    script: echo\n")[0]
    assert "-cwd" not in round_trip_text(SH + "#$ -N a\n" + BODY)
    for text, target, codes_ in [
        (SH + "#$ -N a\n" + BODY, "slurm", [("W301", "spec.extensions.sge.cwd")]),
        (SH + "#$ -N a\n" + BODY, "pbs", []),  # the home directory, as on Grid Engine
        (SH + "#$ -cwd\n" + BODY, "slurm", []),  # the submit directory, as on Grid Engine
        (SH + "#$ -cwd\n" + BODY, "lsf", []),
    ]:
        out, diags = bammmc.convert(text, "sge", target)
        assert out is not None
        got = [(d.code, d.field) for d in diags if d.field and "cwd" in d.field]
        assert got == codes_, (text, target, diags)
    out, diags = bammmc.convert(SH + "#$ -cwd\n" + BODY, "sge", "pbs")
    assert out is not None and 'cd "$PBS_O_WORKDIR"\n' in out
    assert not [d for d in diags if "cwd" in (d.field or "")]


def test_one_task_on_one_node_is_no_placement_warning() -> None:
    """`select=1:ncpus=2` is one task of 2 CPUs on one node: a thread PE's 2 slots on one host
    say the same, and nothing is left for an allocation rule to place (issue 19 item 8: a
    warning that needs no action is noise)."""
    text = "#!/bin/bash\n#PBS -l select=1:ncpus=2\necho hi\n"
    out, diags = bammmc.convert(text, "pbs", "sge")
    assert out is not None and "#$ -pe smp 2\n" in out
    assert [d.code for d in diags] == []


@pytest.mark.parametrize(
    ("directives", "line", "says"),
    [
        # Slurm picks the nodes: the 8 slots are taken to share one host (8G over 8 slots)
        ("-n 4 -c 2 --mem=8G", "#$ -l h_vmem=1G\n", "taken to share one host"),
        # two nodes of 4 tasks each, if Slurm spreads them evenly
        ("-N 2 -n 8 --mem=8G", "#$ -l h_vmem=2G\n", "spread evenly"),
        ("-N 2 --ntasks-per-node=4 --mem=8G", "#$ -l h_vmem=2G\n", None),  # exact
    ],
)
def test_memory_per_node_is_shared_by_its_slots(
    directives: str, line: str, says: str | None
) -> None:
    """Grid Engine's h_vmem is per slot (complex(5)); Slurm's --mem is per node (sbatch(1))."""
    out, diags = bammmc.convert(f"{SH}#SBATCH {directives}\nsrun ./app\n", "slurm", "sge")
    assert out is not None and line in out
    notes = [d.message for d in diags if d.field == "spec.resources.memoryPerTask"]
    assert any(says in n for n in notes) if says else not [n for n in notes if "node" in n]


def test_default_file_names_reach_other_schedulers() -> None:
    """qsub(1): without `-o`/`-e` the streams go to `<job_name>.o<job_id>` and `.e<job_id>`
    (`.<task_id>` appended in an array): Slurm writes those names, PBS Pro (whose own default
    is the same, pbs.md) and Grid Engine itself write nothing."""
    array = SH + "#$ -N ga\n#$ -t 1-9:2\n" + BODY
    out, diags = bammmc.convert(array, "sge", "slurm")
    assert out is not None and "--output=%x.o%A.%a\n" in out and "--error=%x.e%A.%a\n" in out
    assert not [d for d in diags if d.field and d.field.startswith("spec.output")]
    out, diags = bammmc.convert(array, "sge", "pbs")
    assert out is not None and "#PBS -o" not in out and "#PBS -e" not in out
    assert not [d for d in diags if d.field and d.field.startswith("spec.output")]
    assert bammmc.convert(array, "sge", "sge")[0] == array.replace(SH, SH + DASH_S)
    single = SH + "#$ -N g\n#$ -j y\n" + BODY
    out, _ = bammmc.convert(single, "sge", "slurm")
    assert out is not None and "--output=%x.o%j\n" in out and "--error" not in out
    out, _ = bammmc.convert(single, "sge", "torque")
    assert out is not None and "#PBS -o" not in out
