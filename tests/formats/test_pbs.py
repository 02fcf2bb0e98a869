"""PBS Professional and Torque, table-driven: qsub script -> IR, -> diagnostics, -> canonical qsub.

The PBS pitfalls of ../shared/docs/pitfalls.md have their own rows: sizes default to bytes,
`cput` is not walltime, heterogeneous chunks are kept, never summed, `-p` keeps its direction,
`-J` steps only in PBS Pro, the job-name charset, `-j oe`, `-V`.
"""

from __future__ import annotations

from typing import Any

import pytest

import bammmc
from bammmc import totals
from bammmc.backends.splat import to_builtins
from bammmc.diagnostics.model import Diagnostic
from tests.formats.honest import losses
from tests.formats.separators import directives, refused
from tests.formats.test_slurm import spec, subset

SH = "#!/bin/bash\n"
BODY = "cd $PBS_O_WORKDIR\nmpiexec ./app\n"


def read(text: str, fmt: str = "pbs") -> tuple[Any, list[Diagnostic]]:
    job, diags = bammmc.parse(text, fmt, filename="job.pbs")
    return (to_builtins(job) if job is not None else None), diags


READ = [
    ("pbs", "-N my.job", {"metadata": {"name": "my.job"}}),
    (
        "pbs",
        "-q gpu@srv01",
        spec(schedule={"queue": "gpu"}, extensions={"pbs": {"server": "srv01"}}),
    ),
    ("pbs", "-A proj -P climate", spec(schedule={"account": "proj", "project": "climate"})),
    ("pbs", "-l walltime=3600", spec(schedule={"walltime": "PT1H"})),  # a bare number is seconds
    ("pbs", "-l walltime=1:30", spec(schedule={"walltime": "PT1M30S"})),
    ("pbs", "-l walltime=36:00:00", spec(schedule={"walltime": "P1DT12H"})),
    # cput is CPU time, not walltime (pitfall 16)
    ("pbs", "-l cput=10:00:00", spec(extensions={"pbs": {"cput": "PT10H"}})),
    # the old syntax, as the PBS Pro server converts it (OpenPBS set_select_and_place(),
    # cvt_nodespec_to_select(), pbs.md §2): nodes=N:ppn=P is N:ncpus=P:mpiprocs=P placed
    # scatter, a job-wide mem is shared by the nodes, a job-wide ncpus multiplies each part
    # when it is a multiple of the spec's CPUs; job-wide chunk resources alone are one chunk
    (
        "pbs",
        "-l nodes=2:ppn=4 -l mem=8gb",
        spec(
            resources={"nodes": 2, "tasksPerNode": 4, "memoryPerTask": "1Gi"},
            placement={"topology": "scatter"},
        ),
    ),
    (
        "pbs",
        "-l nodes=2:ppn=2,ncpus=8",
        spec(resources={"nodes": 2, "tasksPerNode": 2, "cpusPerTask": 2}),
    ),
    ("pbs", "-l nodes=3", spec(resources={"nodes": 3, "tasksPerNode": 1})),
    (
        "pbs",
        "-l nodes=1:ppn=2:cpp=4",
        spec(resources={"nodes": 1, "tasksPerNode": 2, "cpusPerTask": 4}),
    ),
    (
        "pbs",
        "-l ncpus=4,mem=8gb",
        spec(resources={"nodes": 1, "tasksPerNode": 1, "cpusPerTask": 4, "memoryPerTask": "8Gi"}),
    ),
    # a bare size is bytes (pbs.md §2.3), also job-wide
    ("pbs", "-l mem=1073741824", spec(resources={"memoryPerTask": "1Gi"})),
    # sizes default to bytes (pitfall 8)
    (
        "pbs",
        "-l select=1:ncpus=1:mem=1000",
        spec(resources={"memoryPerTask": "1k"}),
    ),
    (
        "pbs",
        "-l select=2:ncpus=8:mpiprocs=4:mem=16gb:ngpus=4",
        spec(
            resources={
                "nodes": 2,
                "tasksPerNode": 4,
                "cpusPerTask": 2,
                "memoryPerTask": "4Gi",
                "gpu": {"count": 1},
            }
        ),
    ),
    (
        "pbs",
        "-l select=4:ncpus=32",
        spec(resources={"nodes": 4, "tasksPerNode": 1, "cpusPerTask": 32}),
    ),
    # heterogeneous chunks: kept exactly, first chunk portable, never summed (pitfall 18)
    (
        "pbs",
        "-l select=1:ncpus=16:mem=64gb+4:ncpus=4:ngpus=1",
        spec(
            resources={"nodes": 1, "cpusPerTask": 16},
            extensions={"pbs": {"mixed_chunks": "1:ncpus=16:mem=64gb+4:ncpus=4:ngpus=1"}},
        ),
    ),
    (
        "pbs",
        "-l select=2:ncpus=4:host=node01",
        spec(extensions={"pbs": {"select": "2:ncpus=4:host=node01"}}),
    ),
    (
        "pbs",
        "-l select=2:ncpus=4 -l place=scatter:excl:group=switch",
        spec(placement={"topology": "scatter", "exclusive": True, "groupBy": "switch"}),
    ),
    (
        "pbs",
        "-l select=1:ncpus=1 -l place=vscatter",
        spec(extensions={"pbs": {"place": "vscatter"}}),
    ),
    # priority keeps its direction (pitfall 36)
    ("pbs", "-p 1023", spec(schedule={"priority": 1000})),
    ("pbs", "-p -1024", spec(schedule={"priority": 0})),
    ("pbs", "-p 1", spec(schedule={"priority": 501}, extensions={"pbs": {"priority": 1}})),
    ("pbs", "-J 0-99:2%10", spec(array={"indices": "0-99:2%10"})),
    (
        "pbs",
        "-j oe -o logs/run.^array_index^.out",
        spec(output={"mergeStderr": True, "stdout": "logs/run.{array_index}.out"}),
    ),
    ("pbs", "-j eo", spec(output={"mergeStderr": True}, extensions={"pbs": {"join": "eo"}})),
    (
        "pbs",
        "-o login01:/home/me/out.txt",
        spec(
            output={"stdout": "/home/me/out.txt"},
            extensions={"pbs": {"output": "login01:/home/me/out.txt"}},
        ),
    ),
    (
        "pbs",
        "-m abe -M me@example.org",
        spec(notifications={"email": "me@example.org", "events": ["begin", "end", "fail"]}),
    ),
    ("pbs", "-m n", spec(notifications={"events": []})),
    (
        "pbs",
        "-V -v \"A=1,B='x,y'\"",
        spec(
            execution={
                "environment": {"inheritFromSubmitter": True, "vars": {"A": "1", "B": "x,y"}}
            }
        ),
    ),
    # `-v NAME` copies the submitter's value: no value to write, so the bare names stay in
    # the extension; the valued items are read as variables (pbs.md §3)
    (
        "pbs",
        "-v SAMPLES,REF=hg38,THREADS",
        spec(
            execution={"environment": {"vars": {"REF": "hg38"}}},
            extensions={"pbs": {"options": {"v": "SAMPLES,THREADS"}}},
        ),
    ),
    # qsub's tokenizer removes the quotes before the `-v` list is read: `b` and `c` are names
    (
        "pbs",
        '-v SAMPLES="a,b,c",REF=hg38',
        spec(
            execution={"environment": {"vars": {"SAMPLES": "a", "REF": "hg38"}}},
            extensions={"pbs": {"options": {"v": "b,c"}}},
        ),
    ),
    (
        "pbs",
        "-W depend=afterok:123.srv:124,group_list=g1,umask=022",
        spec(
            dependencies=[
                {"scheme": "afterok", "value": "123.srv"},
                {"scheme": "afterok", "value": "124"},
            ],
            extensions={"pbs": {"group_list": "g1", "umask": "022"}},
        ),
    ),
    ("pbs", "-W depend=before:5", spec(extensions={"pbs": {"dependency": "before:5"}})),
    # `place` without `select` is the placement all the same (the writer writes a job without
    # resources that way; it was read as an unknown resource, found by tests/test_honesty.py)
    (
        "pbs",
        "-l place=scatter:excl:group=rack",
        spec(placement={"topology": "scatter", "exclusive": True, "groupBy": "rack"}),
    ),
    # every `-W` line applies: each attribute is an option of its own (the writer writes one
    # line per attribute; the reader kept only the last line, found by tests/test_honesty.py)
    *(
        (
            fmt,
            "-W depend=afterok:12\n#PBS -W group_list=g1\n#PBS -W umask=022,umask=027",
            spec(
                dependencies=[{"scheme": "afterok", "value": "12"}],
                extensions={"pbs": {"group_list": "g1", "umask": "027"}},
            ),
        )
        for fmt in ("pbs", "torque")
    ),
    (
        "pbs",
        "-W stagein=in.dat@host:/data/in.dat",
        spec(fileStaging={"inputs": [{"src": "host:/data/in.dat", "dst": "in.dat"}]}),
    ),
    # the documented quotes around a list of entries are syntax; a quote in a path is text
    # (qsub's parse_equal_string reads a value as quoted only when it starts with a quote)
    (
        "pbs",
        '-W stageout="a@h:/x,b@h:/y"',
        spec(fileStaging={"outputs": [{"src": "a", "dst": "h:/x"}, {"src": "b", "dst": "h:/y"}]}),
    ),
    (
        "pbs",
        """-W 'stageout=p1@h:"x"'""",
        spec(fileStaging={"outputs": [{"src": "p1", "dst": 'h:"x"'}]}),
    ),
    ("pbs", "-h -r n", spec(schedule={"hold": True}, lifecycle={"requeueOnFailure": False})),
    ("pbs", "-a 202603010800", spec(schedule={"beginAfter": "2026-03-01T08:00:00"})),
    ("pbs", "-a 0800", spec(extensions={"pbs": {"begin": "0800"}})),
    ("pbs", "-S /bin/tcsh", spec(execution={"shell": "/bin/tcsh"})),
    ("pbs", "-l wd", spec(extensions={"pbs": {"resources": {"wd": "true"}}})),
    ("pbs", "-Nglued", {"metadata": {"name": "glued"}}),
    # Torque
    (
        "torque",
        "-l nodes=2:ppn=16:gpus=2,walltime=04:00:00,pmem=4gb",
        spec(
            schedule={"walltime": "PT4H"},
            resources={
                "nodes": 2,
                "tasksPerNode": 16,
                "memoryPerTask": "4Gi",
                "gpu": {"count": "2/node"},
            },
        ),
    ),
    ("torque", "-l nodes=1:ppn=4:bigmem", spec(placement={"constraint": "bigmem"})),
    (
        "torque",
        "-l nodes=1:ppn=4+2:ppn=8",
        spec(
            resources={"nodes": 1, "tasksPerNode": 4},
            extensions={"pbs": {"mixed_chunks": "1:ppn=4+2:ppn=8"}},
        ),
    ),
    ("torque", "-l procs=32", spec(resources={"tasks": 32})),
    ("torque", "-l mem=64gb", spec(extensions={"pbs": {"mem": "64Gi/job"}})),
    ("torque", "-t 1,3,5-10%2", spec(array={"indices": "1,3,5-10%2"})),
    ("torque", "-d /scratch/run", spec(execution={"workingDir": "/scratch/run"})),
    ("torque", "-n", spec(placement={"exclusive": True})),
]


@pytest.mark.parametrize(
    ("fmt", "directives", "expected"), READ, ids=[f"{r[0]}:{r[1]}" for r in READ]
)
def test_read(fmt: str, directives: str, expected: dict[str, Any]) -> None:
    job, diags = read(f"{SH}#PBS {directives}\n{BODY}", fmt)
    assert [d for d in diags if d.is_error] == []
    subset(expected, job)


DIAGNOSTICS = [
    ("pbs", "#PBS -l walltime=1h\n", ["E134"]),
    ("pbs", "#PBS -l select=1:mem=1.5gb\n", ["E134"]),
    ("pbs", "#PBS -J 5-1\n", ["E134"]),
    ("pbs", "#PBS -j xy\n", ["E134"]),
    ("pbs", "#PBS -m xyz\n", ["E134"]),
    ("pbs", "#PBS -r maybe\n", ["E134"]),
    ("pbs", "#PBS -p 5000\n", ["E134"]),
    ("pbs", "#PBS -t 1-10\n", ["E130"]),  # a Torque option: says so
    ("pbs", "#PBS -N job extra\n", ["E133"]),
    ("pbs", "#PBS -q long   # comment\n", ["W410"]),
    ("pbs", "#PBS -N a\necho hi\n#PBS -q late\n", ["W402"]),
    ("pbs", '#PBS -N "unclosed\n', ["E020"]),
    ("pbs", "#PBS -W depend=nonsense:1\n", ["E134"]),
    ("torque", "#PBS -J 1-10\n", ["E130"]),
    # the old syntax beside select: qsub refuses it; Torque has no select and no such rule
    ("pbs", "#PBS -l select=1\n#PBS -l ncpus=64\n", ["E135"]),
    ("pbs", "#PBS -l place=pack\n#PBS -l mem=4gb\n", ["E135"]),
    # the server refuses a job-wide ncpus that is no multiple of the nodes spec's CPUs, and
    # PBS Pro's nodes spec takes no other key (Torque's gpus=)
    ("pbs", "#PBS -l nodes=2:ppn=4,ncpus=6\n", ["E134"]),
    ("pbs", "#PBS -l nodes=1:ppn=4:gpus=2\n", ["E134"]),
    ("pbs", "#PBS -l select=1\n#PBS -l software=x\n", []),
    ("pbs", "#PBS -l ncpus=64\n#PBS -l mem=4gb\n", []),
]


@pytest.mark.parametrize(
    ("fmt", "text", "expected"), DIAGNOSTICS, ids=[f"{d[0]}:{d[1]}" for d in DIAGNOSTICS]
)
def test_diagnostics(fmt: str, text: str, expected: list[str]) -> None:
    _, diags = read(SH + text + BODY, fmt)
    assert [d.code for d in diags] == expected
    assert all(d.span is not None and d.help for d in diags)


def test_torque_hint_in_pbs() -> None:
    _, diags = read(SH + "#PBS -t 1-10\n" + BODY)
    assert diags[0].help and "--from torque" in diags[0].help


def test_directive_continuation_and_leading_space() -> None:
    job, diags = read(SH + "  #PBS -N a \\\n   -q b\n" + BODY)
    assert diags == []
    assert job["metadata"]["name"] == "a" and job["spec"]["schedule"]["queue"] == "b"


IDENTITY = [
    ("pbs", "#PBS -N hello\n#PBS -l walltime=00:10:00\n"),
    (
        "pbs",
        "#PBS -l select=2:ncpus=8:mpiprocs=4:mem=16gb:ngpus=4\n#PBS -l place=scatter:excl\n",
    ),
    ("pbs", "#PBS -J 1-99:2%5\n#PBS -j oe\n#PBS -o out.^array_index^\n"),
    ("pbs", "#PBS -W depend=afterok:1:2\n#PBS -m abe\n#PBS -M me@example.org\n"),
    ("pbs", "#PBS -q workq@srv\n#PBS -A proj\n#PBS -P climate\n#PBS -p 100\n"),
    ("pbs", "#PBS -l select=1:ncpus=4:mem=1000b\n"),
    ("pbs", "#PBS -l select=1:ncpus=16:mem=64gb+4:ncpus=4:ngpus=1\n"),
    ("pbs", "#PBS -v 'A=1,B=\"x,y\"'\n#PBS -V\n"),
    ("pbs", "#PBS -v A=1,HOME_COPY,B=2\n"),
    ("torque", "#PBS -v LIST,N=4\n"),
    ("torque", "#PBS -l nodes=2:ppn=16:gpus=2\n#PBS -l pmem=4gb\n#PBS -t 1-10%2\n"),
    ("torque", "#PBS -l walltime=04:00:00\n#PBS -l nodes=1:ppn=4+2:ppn=8\n"),
]


@pytest.mark.parametrize(
    ("fmt", "directives"), IDENTITY, ids=[f"{i[0]}:{i[1][:30]}" for i in IDENTITY]
)
def test_round_trip(fmt: str, directives: str) -> None:
    """`pbs -> splat -> pbs` gives the same IR, and the canonical text is stable."""
    job, diags = bammmc.parse(SH + directives + BODY, fmt)
    assert job is not None and not [d for d in diags if d.is_error], diags
    out, more = bammmc.emit(job, fmt)
    assert out is not None
    assert not [d for d in more if d.is_error]
    again, _ = bammmc.parse(out, fmt)
    assert again == job, out
    assert bammmc.emit(again, fmt)[0] == out


def test_kept_option_points_at_its_own_line() -> None:
    """A W201 for a kept option names the line that set it, not the first option's."""
    text = SH + "#PBS -N job\n#PBS -l walltime=1:00\n#PBS -v A,B=1\n" + BODY
    _, diags = bammmc.convert(text, "pbs", "slurm")
    lost = [d for d in diags if d.code == "W201"]
    assert [d.field for d in lost] == ["spec.extensions.pbs.options"]
    assert lost[0].span is not None and lost[0].span.line == 4


def test_writer_sanitizes_names() -> None:
    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata:\n  name: '1 run/a=b'\n", "splat"
    )  # a digit first is fine for PBS's server (pbs.md §5); `/`, ` ` and `=` are not
    assert job is not None
    out, diags = bammmc.emit(job, "pbs")
    assert out is not None
    assert "#PBS -N 1_run_a_b\n" in out
    assert [(d.code, d.field) for d in diags] == [("W301", "metadata.name")]


def test_writer_units_are_explicit() -> None:
    job, _ = bammmc.parse(SH + "#SBATCH --mem-per-cpu=1000 -n 2\nsrun x\n", "slurm")
    assert job is not None
    out, _ = bammmc.emit(job, "pbs")
    assert out is not None
    assert "mem=1000mb" in out


def test_slurm_variables_become_pbs_variables() -> None:
    job, _ = bammmc.parse(
        SH + "#SBATCH -J a\ncd $SLURM_SUBMIT_DIR\necho $SLURM_ARRAY_TASK_ID\n", "slurm"
    )
    assert job is not None
    out, diags = bammmc.emit(job, "pbs")
    assert out is not None
    assert {d.code for d in diags} == {"N003"}
    assert 'export SLURM_SUBMIT_DIR="${PBS_O_WORKDIR}"\n' in out
    assert 'export SLURM_ARRAY_TASK_ID="${PBS_ARRAY_INDEX}"\n' in out
    back, _ = bammmc.parse(out, "pbs")
    assert back is not None and back.spec and back.spec.execution
    assert back.spec.execution.script == SH + "cd $SLURM_SUBMIT_DIR\necho $SLURM_ARRAY_TASK_ID\n"


def test_pbs_to_slurm_keeps_the_shape() -> None:
    out, diags = bammmc.convert(
        SH + "#PBS -l select=2:ncpus=8:mpiprocs=4:mem=16gb\n#PBS -l walltime=01:00:00\n" + BODY,
        "pbs",
        "slurm",
    )
    # $PBS_O_WORKDIR defined from Slurm's (a note); PBS's own file names, stdout and stderr
    # apart (pbs.md: `<jobname>.o<seq>`, `.e<seq>`)
    assert [(d.code, d.field) for d in diags] == [("N003", "spec.execution.script")]
    assert out is not None
    assert "#SBATCH --output=%x.o%j\n#SBATCH --error=%x.e%j\n" in out
    for line in (
        "--nodes=2",
        "--ntasks-per-node=4",
        "--cpus-per-task=2",
        "--mem=16G",
        "--time=01:00:00",
    ):
        assert line in out
    assert 'export PBS_O_WORKDIR="${SLURM_SUBMIT_DIR}"' in out


# ── writing from other formats: the chunk shape and dependency ids ────────────────────────

FROM_SLURM = [
    # (Slurm directives, lines the PBS output has, codes and fields of the diagnostics)
    (
        "-n 10 --ntasks-per-node=4 -c 2",  # 4+4+2 tasks, exactly
        ["#PBS -l select=2:ncpus=8:mpiprocs=4+1:ncpus=4:mpiprocs=2"],
        [],
    ),
    ("-n 8 --ntasks-per-node=4", ["#PBS -l select=2:ncpus=4:mpiprocs=4"], []),
    (
        "-N 3 -n 10 --mem-per-cpu=1G",  # as evenly as chunks can say it: 4, 3, 3
        ["#PBS -l select=1:ncpus=4:mpiprocs=4:mem=4gb+2:ncpus=3:mpiprocs=3:mem=3gb"],
        [("N003", "spec.extensions.slurm.mem_per_cpu")],
    ),
    ("-n 2 --ntasks-per-node=4", ["#PBS -l select=1:ncpus=2:mpiprocs=2"], []),
    (
        "-n 6 --ntasks-per-node=4 --mem-per-cpu=1G",
        ["#PBS -l select=1:ncpus=4:mpiprocs=4:mem=4gb+1:ncpus=2:mpiprocs=2:mem=2gb"],
        # Slurm's per-CPU memory grows with the CPUs Slurm allocates; PBS's per chunk does not
        [("N003", "spec.extensions.slurm.mem_per_cpu")],
    ),
    (
        "-n 5 --ntasks-per-node=2 --gpus-per-task=1",
        ["#PBS -l select=2:ncpus=2:mpiprocs=2:ngpus=2+1:ncpus=1:mpiprocs=1:ngpus=1"],
        [("N003", "spec.extensions.slurm.gpus_per_task")],
    ),
    # tasks without nodes are one chunk each: per-node amounts cannot be written exactly
    (
        "-n 4 --gres=gpu:2",
        ["#PBS -l select=4:ncpus=1:mpiprocs=1:ngpus=2"],
        # `--gres=gpu:2` is the GPU count's spelling: its approximation is the count's
        [("W301", "spec.resources.gpu.count"), ("N003", "spec.extensions.slurm.gres")],
    ),
    # tasks on nodes Slurm picks: chunks of one task placed anywhere, said so (`place=free`,
    # PBS's default) so that the chunks read back as tasks, not nodes
    ("-n 7", ["#PBS -l select=7:ncpus=1:mpiprocs=1", "#PBS -l place=free"], []),
    ("-n 7 --spread-job", ["#PBS -l select=7:ncpus=1:mpiprocs=1", "#PBS -l place=scatter"], []),
    # job ids: PBS takes ids only, and Slurm's array element forms have PBS spellings
    ("-d afterok:123_4", ["#PBS -W depend=afterok:123[4]"], []),
    ("-d afterany:123_*", ["#PBS -W depend=afterany:123[]"], []),
]


@pytest.mark.parametrize(("directives", "lines", "diagnostics"), FROM_SLURM)
def test_from_slurm(directives: str, lines: list[str], diagnostics: list[tuple[str, str]]) -> None:
    out, diags = bammmc.convert(f"{SH}#SBATCH {directives}\nsrun ./app\n", "slurm", "pbs")
    assert out is not None
    for line in lines:
        assert line in out.splitlines(), out
    mine = [
        (d.code, d.field)
        for d in diags
        # sbatch's default output name has its own test (test_slurm DEFAULT_OUTPUT)
        if d.field
        and d.field.startswith("spec.")
        and d.field not in ("spec.execution.script", "spec.output.stdout")
    ]
    assert mine == diagnostics


PLACED = [
    # (place, the resources `select=4:ncpus=2:mpiprocs=2` reads as): pbs.md §2, "pack all
    # chunks on one host; scatter at most one chunk with MPI processes per host"; `free`
    # (the default) places them on any vnodes; chunks of several tasks placed freely stay
    # nodes: each keeps its tasks on one host (one-task chunks are tasks: below)
    ("free", {"nodes": 4, "tasksPerNode": 2, "cpusPerTask": 1}),
    ("pack", {"tasks": 8, "nodes": 1, "cpusPerTask": 1}),
    ("scatter", {"nodes": 4, "tasksPerNode": 2, "cpusPerTask": 1}),
    ("scatter:excl", {"nodes": 4, "tasksPerNode": 2, "cpusPerTask": 1}),
    # no `place`: a chunk is read as a node, as sites that default to scatter run it
    (None, {"nodes": 4, "tasksPerNode": 2, "cpusPerTask": 1}),
]


def test_free_chunks_of_one_task_are_tasks() -> None:
    job, _ = read(SH + "#PBS -l select=7:ncpus=2:mpiprocs=1\n#PBS -l place=free\n" + BODY)
    assert job["spec"]["resources"] == {"tasks": 7, "cpusPerTask": 2}


@pytest.mark.parametrize(("place", "resources"), PLACED)
def test_place_decides_what_a_chunk_is(place: str | None, resources: dict[str, Any]) -> None:
    lines = "#PBS -l select=4:ncpus=2:mpiprocs=2\n" + (f"#PBS -l place={place}\n" if place else "")
    job, diags = read(SH + lines + BODY, "pbs")
    assert [d for d in diags if d.is_error] == []
    assert job["spec"]["resources"] == resources


def test_remainder_chunk_reads_back_as_written() -> None:
    out, _ = bammmc.convert(f"{SH}#SBATCH -n 10 --ntasks-per-node=4\nsrun ./app\n", "slurm", "pbs")
    assert out is not None
    job, diags = read(out)
    assert not [d for d in diags if d.is_error]
    mixed = job["spec"]["extensions"]["pbs"]["mixed_chunks"]
    assert mixed == "2:ncpus=4:mpiprocs=4+1:ncpus=2:mpiprocs=2"
    assert (
        sum(
            int(term.split(":")[0]) * int(term.split("mpiprocs=")[1].split(":")[0])
            for term in mixed.split("+")
        )
        == 10
    )


DEPENDENCY_VALUES = [
    # (SPLAT dependency value, PBS text or None when it is lost)
    ("123", "123"),
    ("123.pbs01", "123.pbs01"),
    ("123[]", "123[]"),
    ("123[7].pbs01", "123[7].pbs01"),
    ("123_7", "123[7]"),
    ("prepare", None),  # a job name (LSF `done(prepare)`)
    ("$PREV", None),
    ("12a", None),
    ("123[x]", None),
    ("123.", None),
]


@pytest.mark.parametrize(("value", "written"), DEPENDENCY_VALUES)
def test_dependency_values(value: str, written: str | None) -> None:
    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  dependencies:\n"
        f"    - scheme: afterok\n      value: '{value}'\n",
        "splat",
    )
    assert job is not None
    out, diags = bammmc.emit(job, "pbs")
    assert out is not None
    if written is None:
        assert "depend=" not in out
        assert [(d.code, d.field) for d in diags] == [("W201", "spec.dependencies[0]")]
    else:
        assert f"#PBS -W depend=afterok:{written}" in out.splitlines()
        assert diags == []


def test_placeholder_dependency_round_trips_as_written() -> None:
    """`afterok:jobid` in a template is kept as text, not made portable and then lost."""
    text = f"{SH}#PBS -W depend=afterok:jobid\n{BODY}"
    job, diags = read(text)
    assert not [d for d in diags if d.is_error]
    assert job["spec"]["extensions"]["pbs"]["dependency"] == "afterok:jobid"
    out, _ = bammmc.convert(text, "pbs", "pbs")
    assert out is not None and "#PBS -W depend=afterok:jobid" in out.splitlines()


def test_torque_writes_uneven_tasks_as_even_nodes() -> None:
    """Torque's `nodes=` could hold `1:ppn=4+2:ppn=3`, but bammmc writes one shape: W301."""
    out, diags = bammmc.convert(f"{SH}#SBATCH -N 3 -n 10\nsrun ./app\n", "slurm", "torque")
    assert out is not None and "#PBS -l nodes=3:ppn=4" in out.splitlines()
    assert ("W301", "spec.resources.tasks") in {(d.code, d.field) for d in diags}


MIXED = [
    # (select, the resources read): chunks that differ only in task count are one job shape
    (
        "2:ncpus=8:mpiprocs=4:mem=8gb+1:ncpus=4:mpiprocs=2:mem=4gb",
        {"nodes": 3, "tasks": 10, "tasksPerNode": 4, "cpusPerTask": 2, "memoryPerTask": "2Gi"},
    ),
    ("2:ncpus=4:mpiprocs=4+1:ncpus=2:mpiprocs=2", {"nodes": 3, "tasks": 10, "tasksPerNode": 4}),
    # the same GPUs or other resources in each chunk (the writer's amounts per node)
    (
        "2:ncpus=4:mpiprocs=4:ngpus=4+1:ncpus=3:mpiprocs=3:ngpus=4",
        {"nodes": 3, "tasks": 11, "tasksPerNode": 4, "gpu": {"count": "4/node"}},
    ),
    ("1:ncpus=4:mpiprocs=4:a=1+1:ncpus=3:mpiprocs=3:a=1", {"nodes": 2, "tasks": 7}),
    # the same memory in each chunk: memory per node (the writer's `N/node`)
    (
        "1:ncpus=8:mpiprocs=4:mem=64gb+1:ncpus=4:mpiprocs=2:mem=64gb",
        {"nodes": 2, "tasks": 6, "tasksPerNode": 4, "memoryPerTask": "64Gi/node"},
    ),
    # different per task: the first chunk only, no total (pitfall 18: never summed)
    ("1:ncpus=8:mpiprocs=1+4:ncpus=1:mpiprocs=1", {"nodes": 1, "tasksPerNode": 1}),
    ("1:ncpus=2:mem=4gb+1:ncpus=2:mem=8gb", {"nodes": 1}),
    ("1:ncpus=2:mpiprocs=2+2:ncpus=4:mpiprocs=4", {"nodes": 1, "tasksPerNode": 2}),  # first < rest
    ("1:ncpus=4:ngpus=1+1:ncpus=4", {"nodes": 1}),
    ("1:ncpus=4:host=a+1:ncpus=4:host=b", {"nodes": 1}),
    ("1:ncpus=4:mpiprocs=4:ngpus=4+1:ncpus=3:mpiprocs=3:ngpus=2", {"nodes": 1}),
]


@pytest.mark.parametrize(("select", "resources"), MIXED)
def test_mixed_chunks(select: str, resources: dict[str, Any]) -> None:
    job, diags = read(f"{SH}#PBS -l select={select}\n{BODY}")
    assert not [d for d in diags if d.is_error]
    assert job["spec"]["extensions"]["pbs"]["mixed_chunks"] == select
    got = job["spec"]["resources"]
    subset(resources, got)
    if "tasks" not in resources:
        assert "tasks" not in got


def test_slurm_uneven_tasks_survive_pbs_and_back() -> None:
    text = f"{SH}#SBATCH -n 10 --ntasks-per-node=4 -c 2\nsrun ./app\n"
    pbs, _ = bammmc.convert(text, "slurm", "pbs")
    assert pbs is not None
    back, _ = bammmc.convert(pbs, "pbs", "slurm")
    assert back is not None
    for option in ("--nodes=3", "--ntasks=10", "--ntasks-per-node=4", "--cpus-per-task=2"):
        assert any(line.startswith(f"#SBATCH {option}") for line in back.splitlines()), back


# ── losses the honesty test (tests/test_honesty.py) found silent: each now has its diagnostic ──

HONEST_PBS = [
    # (SPLAT spec as YAML flow, target, the (code, field) pairs among the diagnostics)
    # an options key that is not an option letter (nor `W:NAME`)
    *[
        (
            "{extensions: {pbs: {options: {-x9: y, v: A=1}}}}",
            target,
            {("W201", "spec.extensions.pbs.options.-x9")},
        )
        for target in ("pbs", "torque")
    ],
    # Slurm's --spread-job is scatter, which `place=scatter` writes
    (
        "{placement: {topology: scatter}, extensions: {slurm: {spread_job: true}}}",
        "pbs",
        {("W301", "spec.extensions.slurm.spread_job")},
    ),
    (
        "{execution: {script: 'echo', container: {image: img, imagePullPolicy: Always}}}",
        "pbs",
        {("W201", "spec.execution.container.imagePullPolicy")},
    ),
    # Torque's job-wide `-l mem` is not PBS Pro's: memory per chunk carries it, or nothing
    (
        "{resources: {tasks: 4, memoryPerTask: 1Gi}, extensions: {pbs: {mem: 4gb/job}}}",
        "pbs",
        {("W301", "spec.extensions.pbs.mem")},
    ),
    ("{extensions: {pbs: {mem: 4gb/job}}}", "pbs", {("W201", "spec.extensions.pbs.mem")}),
    # memory per node over tasks that do not divide it: `pmem` rounded up
    (
        "{resources: {memoryPerTask: 64G/node, tasksPerNode: 679}}",
        "torque",
        {("W301", "spec.resources.memoryPerTask")},
    ),
    # Torque's `-l mem` is the whole job's: a raw value per node (task, CPU) is multiplied
    # out, or written as it is when the count is unknown, and reads back per job either way
    *[
        (
            f"{{{res}extensions: {{pbs: {{mem: {mem}}}}}}}",
            "torque",
            {("W301", "spec.extensions.pbs.mem")},
        )
        for res, mem in (
            ("resources: {nodes: 2}, ", "64G/node"),
            ("", "64G/node"),
            ("resources: {tasks: 4, cpusPerTask: 2}, ", "1G/cpu"),
            ("resources: {cpusPerTask: 2}, ", "1G/cpu"),
            ("resources: {tasks: 4}, ", "1G/node"),
        )
    ],
    # raw resources the reader reads as fields of their own, and chunk resources qsub refuses
    # beside `select` ("-lresource=" cannot be used with "select" or "place")
    (
        "{resources: {tasks: 2}, extensions: {pbs: {resources: "
        "{software: x, walltime: '1:00:00', mem: 2gb, ngpus: '1'}}}}",
        "pbs",
        {
            ("W201", "spec.extensions.pbs.resources.walltime"),
            ("W201", "spec.extensions.pbs.resources.mem"),
            ("W201", "spec.extensions.pbs.resources.ngpus"),
        },
    ),
    # Torque has no place=: exclusive is -n, the rest is lost
    (
        "{placement: {topology: scatter, groupBy: rack}}",
        "torque",
        {("W201", "spec.placement.topology"), ("W201", "spec.placement.groupBy")},
    ),
    ("{placement: {constraint: ib}}", "torque", {("W201", "spec.placement.constraint")}),
    (
        "{resources: {nodes: 2, tasksPerNode: 4, tasks: 8, cpusPerTask: 2}}",
        "torque",
        {("W301", "spec.resources.tasksPerNode"), ("W301", "spec.resources.tasks")},
    ),
    (
        "{extensions: {pbs: {ompthreads_per_chunk: 2, mixed_chunks: '1:ncpus=2+2:ncpus=4'}}}",
        "pbs",
        {("W201", "spec.extensions.pbs.ompthreads_per_chunk")},
    ),
    (
        "{extensions: {pbs: {select: '2:ncpus=4', mixed_chunks: '1:ncpus=2+2:ncpus=4'}}}",
        "pbs",
        {("W201", "spec.extensions.pbs.select")},
    ),
    (
        "{placement: {topologySpread: [{maxSkew: 1}]}}",
        "pbs",
        {("W201", "spec.placement.topologySpread")},
    ),
    (
        "{fileStaging: {checkpointFiles: [a]}}",
        "pbs",
        {("W201", "spec.fileStaging.checkpointFiles")},
    ),
    # the raw extensions.pbs form, written instead, says something else than the field
    (
        "{placement: {groupBy: switch}, extensions: {pbs: {place: 'scatter:group=rack'}}}",
        "pbs",
        {("W301", "spec.placement.groupBy")},
    ),
    # the arguments of a script: only the qsub command line takes them (shared code)
    (
        "{execution: {script: 'echo', arguments: 'a b'}}",
        "pbs",
        {("W201", "spec.execution.arguments")},
    ),
    ("{execution: {arguments: x}}", "torque", {("W201", "spec.execution.arguments")}),
    # PBS and Torque have no standard GPU memory, fraction or MIG resource
    *[
        (
            "{resources: {gpu: {count: 1, memory: 4Gi, fraction: 0.5, migProfile: 1g.5gb}}}",
            target,
            {
                ("W201", "spec.resources.gpu.memory"),
                ("W201", "spec.resources.gpu.fraction"),
                ("W201", "spec.resources.gpu.migProfile"),
            },
        )
        for target in ("pbs", "torque")
    ],
    # GPUs per node or per job are written per chunk (PBS) or per node (Torque)
    (
        "{resources: {nodes: 2, tasksPerNode: 3, gpu: {count: 4/node}}}",
        "pbs",
        {("W301", "spec.resources.gpu.count")},
    ),
    (
        "{resources: {nodes: 2, gpu: {count: 8/job}}}",
        "torque",
        {("W301", "spec.resources.gpu.count")},
    ),
    # Torque has no task count: tasks without nodes are nodes of one processor
    (
        "{resources: {tasks: 5, gpu: {count: 1}}}",
        "torque",
        {("W301", "spec.resources.tasks"), ("W301", "spec.resources.gpu.count")},
    ),
    # generic resources: a custom resource per `select` chunk (PBS), none on Torque
    (
        "{resources: {genericResources: {a: 2}}}",
        "pbs",
        {("W301", "spec.resources.genericResources.a")},
    ),
    (
        "{resources: {genericResources: {a: 2}}}",
        "torque",
        {("W201", "spec.resources.genericResources.a")},
    ),
    # a raw value its own reader (and qsub) refuses is not written: an error names it
    (
        "{extensions: {pbs: {options: {x: '-'}}}}",
        "pbs",
        {("E134", "spec.extensions.pbs.options.x")},
    ),
    # the other dialect's raw chunk request
    (
        "{extensions: {pbs: {select: '2:ncpus=4'}}}",
        "torque",
        {("W201", "spec.extensions.pbs.select")},
    ),
    ("{extensions: {pbs: {nodes: '2:ppn=4'}}}", "pbs", {("W201", "spec.extensions.pbs.nodes")}),
    # PBS has no unlimited CPU time
    ("{extensions: {pbs: {cput: unlimited}}}", "torque", {("W201", "spec.extensions.pbs.cput")}),
    # more nodes than tasks: a chunk holds at least one task
    *[
        ("{resources: {tasks: 3, nodes: 5}}", t, {("W301", "spec.resources.nodes")})
        for t in ("pbs", "torque")
    ],
    ("{resources: {tasks: 3, nodes: 5}}", "torque", {("W301", "spec.resources.tasks")}),
    # not written (yet): the AOE and the checkpoint interval; Torque has no mpiprocs
    *[
        (
            "{extensions: {pbs: {aoe: sles, checkpoint_interval: 60}}}",
            target,
            {
                ("W201", "spec.extensions.pbs.aoe"),
                ("W201", "spec.extensions.pbs.checkpoint_interval"),
            },
        )
        for target in ("pbs", "torque")
    ],
    (
        "{extensions: {pbs: {mpiprocs_per_chunk: 4}}}",
        "torque",
        {("W201", "spec.extensions.pbs.mpiprocs_per_chunk")},
    ),
    # PBS Pro: `mpiprocs=` of each chunk is the tasks per node; with no chunk (the job asks
    # for no resources), or other chunks written, the raw value is not written
    (
        "{extensions: {pbs: {mpiprocs_per_chunk: 4}}}",
        "pbs",
        {("W201", "spec.extensions.pbs.mpiprocs_per_chunk")},
    ),
    (
        "{resources: {nodes: 2, tasksPerNode: 3}, extensions: {pbs: {mpiprocs_per_chunk: 4}}}",
        "pbs",
        {("W301", "spec.extensions.pbs.mpiprocs_per_chunk")},
    ),
    (
        "{extensions: {pbs: {select: '2:ncpus=4:mpiprocs=4', mpiprocs_per_chunk: 3}}}",
        "pbs",
        {("W201", "spec.extensions.pbs.mpiprocs_per_chunk")},
    ),
    (
        "{tasks: [{name: a, resources: {nodes: 1}}], extensions: {pbs: {mpiprocs_per_chunk: 2}}}",
        "pbs",
        {("W201", "spec.extensions.pbs.mpiprocs_per_chunk")},
    ),
    # GPUs per task of tasks that do not fill the nodes evenly (82 on 6 nodes of 14): written
    # per node for 14 tasks on each
    (
        "{resources: {tasks: 82, nodes: 6, gpu: {count: 1}}}",
        "torque",
        {("W301", "spec.resources.tasks"), ("W301", "spec.resources.gpu.count")},
    ),
    # memory per CPU on half a CPU rounded up to one: twice the memory per task
    *[
        (
            "{resources: {cpusPerTask: 0.5, memoryPerTask: 2G/cpu}}",
            target,
            {("W301", "spec.resources.cpusPerTask"), ("W301", "spec.resources.memoryPerTask")},
        )
        for target in ("pbs", "torque")
    ],
]


@pytest.mark.parametrize(("spec_yaml", "target", "expected"), HONEST_PBS)
def test_silent_losses_are_reported(
    spec_yaml: str, target: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= losses(spec_yaml, target)


@pytest.mark.parametrize(
    ("spec_yaml", "select"),
    [
        # the raw `mpiprocs_per_chunk` shapes the chunks the portable fields leave open
        (
            "{resources: {nodes: 2}, extensions: {pbs: {mpiprocs_per_chunk: 4}}}",
            "2:ncpus=4:mpiprocs=4",
        ),
        # the same number in both: nothing to report
        (
            "{resources: {nodes: 2, tasksPerNode: 4}, extensions: {pbs: {mpiprocs_per_chunk: 4}}}",
            "2:ncpus=4:mpiprocs=4",
        ),
    ],
)
def test_mpiprocs_per_chunk_is_written(spec_yaml: str, select: str) -> None:
    job, _ = bammmc.parse("apiVersion: bammm.io/v1alpha1\nkind: Job\nspec: " + spec_yaml, "splat")
    assert job is not None
    text, diags = bammmc.emit(job, "pbs")
    assert text is not None
    assert f"#PBS -l select={select}\n" in text
    assert not [d for d in diags if d.field == "spec.extensions.pbs.mpiprocs_per_chunk"]


@pytest.mark.parametrize(
    ("spec_yaml", "mem"),
    [
        ("{resources: {nodes: 2}, extensions: {pbs: {mem: 64G/node}}}", "125000000kb"),
        ("{resources: {tasks: 4, cpusPerTask: 2}, extensions: {pbs: {mem: 1G/cpu}}}", "7812500kb"),
        ("{extensions: {pbs: {mem: 4gb/job}}}", "4gb"),
        ("{resources: {cpusPerTask: 2}, extensions: {pbs: {mem: 1G/cpu}}}", "1953125kb"),
    ],
)
def test_torque_job_memory_is_the_whole_jobs(spec_yaml: str, mem: str) -> None:
    job, _ = bammmc.parse("apiVersion: bammm.io/v1alpha1\nkind: Job\nspec: " + spec_yaml, "splat")
    assert job is not None
    text, _ = bammmc.emit(job, "torque")
    assert text is not None
    assert f"#PBS -l mem={mem}\n" in text


def test_torque_pmem_rounds_up() -> None:
    """Memory per node over tasks that do not divide it: never less memory than asked."""
    spec_yaml = "{resources: {memoryPerTask: 64G/node, tasksPerNode: 679}}"
    job, _ = bammmc.parse("apiVersion: bammm.io/v1alpha1\nkind: Job\nspec: " + spec_yaml, "splat")
    assert job is not None
    text, _ = bammmc.emit(job, "torque")
    assert text is not None
    assert "#PBS -l pmem=94256260b\n" in text  # 64e9 / 679 = 94256259.2


def test_torque_does_not_take_mpiprocs_per_chunk_as_processors() -> None:
    """Torque reports the raw `mpiprocs` lost (W201): it must not write it as `ppn` either."""
    spec_yaml = "{resources: {nodes: 2}, extensions: {pbs: {mpiprocs_per_chunk: 4}}}"
    job, _ = bammmc.parse("apiVersion: bammm.io/v1alpha1\nkind: Job\nspec: " + spec_yaml, "splat")
    assert job is not None
    text, diags = bammmc.emit(job, "torque")
    assert text is not None
    assert "#PBS -l nodes=2\n" in text
    assert ("W201", "spec.extensions.pbs.mpiprocs_per_chunk") in {(d.code, d.field) for d in diags}


# ── separators of the value languages (issue 18, item 4) ─────────────────────────────────────
# A value goes into a sub-language of qsub's: a `-l` resource list (OpenPBS and Torque
# `set_resources()`: `,` ends a value, quotes quote; OpenPBS's `pbs_quote_parse()` also ends it
# at white space and refuses `&`), `select`/`place` chunks (`:`, `+`, `=`), a `-W` attribute
# list (`parse_equal_string()`: a `=` in a value starts another attribute after the `,`
# before it), a `-v` list (`,`, `=`), `-q queue@server`, `-S path[@host][,…]`. A separator
# of it is refused (E140, naming the field and the character): written, it added a resource or
# an attribute (`advres=r1,walltime=99:00:00` is a 99 h walltime to Slurm's #PBS reader too:
# test_pbs_oracle.py).
UNWRITABLE_PBS = [
    # (SPLAT spec, target, field, the character as the message names it)
    *[
        ("{schedule: {reservation: 'r1,walltime=99:00:00'}}", t, "spec.schedule.reservation", ",")
        for t in ("pbs", "torque")
    ],
    ("{schedule: {reservation: 'r1 walltime=99:00:00'}}", "pbs", "spec.schedule.reservation", " "),
    ("{schedule: {reservation: 'a\"b\"c'}}", "pbs", "spec.schedule.reservation", '"'),
    ("{schedule: {reservation: 'a&b'}}", "pbs", "spec.schedule.reservation", "&"),
    (
        "{extensions: {pbs: {resources: {'a,walltime': '99:00:00'}}}}",
        "pbs",
        "spec.extensions.pbs.resources.a,walltime",
        ",",
    ),
    *[
        (
            "{extensions: {pbs: {resources: {software: 'x,walltime=99:00:00'}}}}",
            t,
            "spec.extensions.pbs.resources.software",
            ",",
        )
        for t in ("pbs", "torque")
    ],
    (
        "{resources: {tasks: 2, genericResources: {'fpga:ncpus': 1}}}",
        "pbs",
        "spec.resources.genericResources.fpga:ncpus",
        ":",
    ),
    (
        "{resources: {tasks: 2, genericResources: {'fpga+2': 1}}}",
        "pbs",
        "spec.resources.genericResources.fpga+2",
        "+",
    ),
    (
        "{resources: {tasks: 2}, placement: {groupBy: 'switch:excl'}}",
        "pbs",
        "spec.placement.groupBy",
        ":",
    ),
    (
        "{extensions: {pbs: {select: '1:ncpus=2,walltime=99:00:00'}}}",
        "pbs",
        "spec.extensions.pbs.select",
        ",",
    ),
    (
        "{extensions: {pbs: {nodes: '1:ppn=2,walltime=99:00:00'}}}",
        "torque",
        "spec.extensions.pbs.nodes",
        ",",
    ),
    (
        "{resources: {tasks: 2}, extensions: {pbs: {place: 'scatter,walltime=99:00:00'}}}",
        "pbs",
        "spec.extensions.pbs.place",
        ",",
    ),
    # -W: a `=` after a `,` starts another attribute
    (
        "{extensions: {pbs: {group_list: 'g1,umask=000'}}}",
        "pbs",
        "spec.extensions.pbs.group_list",
        "=",
    ),
    (
        "{extensions: {pbs: {umask: '077,group_list=x'}}}",
        "torque",
        "spec.extensions.pbs.umask",
        "=",
    ),
    (
        "{extensions: {pbs: {dependency: 'afterok:1,umask=000'}}}",
        "pbs",
        "spec.extensions.pbs.dependency",
        "=",
    ),
    (
        "{extensions: {pbs: {options: {'W:foo': 'a,umask=000'}}}}",
        "pbs",
        "spec.extensions.pbs.options.W:foo",
        "=",
    ),
    (
        "{extensions: {pbs: {stagein: ['a@h:/x,b@h:/y']}}}",
        "pbs",
        "spec.extensions.pbs.stagein",
        ",",
    ),
    # -v: a variable's name ends at `=`, an item at `,`
    *[
        (
            "{execution: {environment: {vars: {'a,LD_PRELOAD': '/x.so'}}}}",
            t,
            "spec.execution.environment.vars.a,LD_PRELOAD",
            ",",
        )
        for t in ("pbs", "torque")
    ],
    ("{schedule: {queue: 'q@evil'}}", "pbs", "spec.schedule.queue", "@"),
    ("{execution: {shell: '/bin/bash,/bin/sh@h'}}", "pbs", "spec.execution.shell", ","),
    ("{execution: {shell: '/bin/bash@h'}}", "torque", "spec.execution.shell", "@"),
]


@pytest.mark.parametrize(("spec_yaml", "target", "field", "char"), UNWRITABLE_PBS)
def test_separators_are_refused(spec_yaml: str, target: str, field: str, char: str) -> None:
    errors = refused(spec_yaml, target)
    assert [(code, f) for code, f, _ in errors] == [("E140", field)]
    assert ("a blank" if char == " " else f"`{char}`") in errors[0][2]


#: what is the value's own there (a false error is a bug too): the same characters where the
#: sub-language does not read them
KEPT_PBS = [
    # (SPLAT spec, target, a directive written)
    # both kinds of quotes: groups in the quotes each does not hold, joined into one word
    # (`'"'#^']'` was cut at the value's own `'`: read back `"#^]`)
    ("{output: {stderr: '\"''#^'']'}}", "pbs", "#PBS -e '\"'\"'#^']\""),
    ("{output: {stderr: 'a\"b''c'}}", "torque", '#PBS -e "a"\'"\'"b\'c"'),
    # Torque's `set_resources()` keeps white space in a value ("already tokenized by getopt()")
    (
        "{schedule: {reservation: 'r1 x'}}",
        "torque",
        '#PBS -l "advres=r1 x"',
    ),
    # `=` and `:` are plain characters of a job-wide `-l` value
    ("{schedule: {reservation: 'R12.srv:a=b'}}", "pbs", "#PBS -l advres=R12.srv:a=b"),
    # a `,` without a `=` after it is the `-W` value's own (pbs.md §6)
    ("{extensions: {pbs: {group_list: 'g1@h1,g2@h2'}}}", "pbs", "#PBS -W group_list=g1@h1,g2@h2"),
    # a `-v` value runs to the next `,`: a `=` in it is its own; a `,` is quoted
    ("{execution: {environment: {vars: {A: 'x=y,z'}}}}", "pbs", "#PBS -v \"A='x=y,z'\""),
]


@pytest.mark.parametrize(("spec_yaml", "target", "line"), KEPT_PBS)
def test_separators_where_they_are_plain(spec_yaml: str, target: str, line: str) -> None:
    assert line in directives(spec_yaml, target)


def test_torque_pmem_is_per_processor() -> None:
    """`pmem` is per process, and Torque/Moab reserve it for each processor `ppn` counts
    (torque.md §2): a task of 8 CPUs with 200G is `ppn=8` with `pmem=25gb`, which reads back
    as 200G on the node (it was `pmem=200gb`, 1600G, said to be exact); a W301 says so."""
    text = "#!/bin/bash\n#SBATCH --cpus-per-task=8\n#SBATCH --mem=200G\n./app\n"
    out, diags = bammmc.convert(text, "slurm", "torque")
    assert out is not None and "#PBS -l nodes=1:ppn=8\n#PBS -l pmem=25gb\n" in out
    said = [d for d in diags if d.field == "spec.resources.memoryPerTask"]
    assert [d.code for d in said] == ["W301"] and "per processor" in said[0].message
    back, _ = bammmc.parse(out, "torque")
    assert back is not None and back.spec is not None and back.spec.resources is not None
    res = back.spec.resources
    assert res.memory_per_task is not None and res.tasks_per_node is not None
    assert res.memory_per_task.bytes * res.tasks_per_node == 200 * 1024**3
    # one CPU per task: pmem is the task's memory, nothing to say
    out, diags = bammmc.convert(text.replace("=8", "=1"), "slurm", "torque")
    assert out is not None and "pmem=200gb" in out
    assert [d for d in diags if d.field == "spec.resources.memoryPerTask"] == []


def test_mixed_chunks_are_a_heterogeneous_slurm_job() -> None:
    """Chunks of different shapes are one component each (`#SBATCH hetjob`), the first being
    the job's own resources; sbatch carries `--mem` over to the next component (it is not
    reset between them: reset_each_pass in src/common/slurm_opt.c; the oracle's record gave
    the GPU chunks the first chunk's 64G), which a W301 says."""
    text = SH + "#PBS -l select=1:ncpus=16:mem=64gb+4:ncpus=4:ngpus=1\n" + BODY
    out, diags = bammmc.convert(text, "pbs", "slurm")
    assert out is not None
    first, second = out.split("#SBATCH hetjob\n")
    assert "--cpus-per-task=16\n" in first and "--mem=64G\n" in first
    for line in ("--nodes=4\n", "--cpus-per-task=4\n", "--gpus-per-task=1\n"):
        assert line in second
    said = [d.message for d in diags if d.field == "spec.extensions.pbs.mixed_chunks"]
    assert len(said) == 2 and any("heterogeneous" in m for m in said)
    assert any("inherits `--mem=64G`" in m for m in said)
    # chunks alike but for their task count stay one component
    out, _ = bammmc.convert(
        SH + "#PBS -l select=2:ncpus=4:mpiprocs=4+1:ncpus=2:mpiprocs=2\n" + BODY, "pbs", "slurm"
    )
    assert out is not None and "hetjob" not in out and "--ntasks=10\n" in out


#: chunks of several shapes, written by the other dialect's writer in its own words: PBS Pro
#: converts Torque's `nodes=N:ppn=P` into `N:ncpus=P:mpiprocs=P` (pbs.md §2, `nodes` is
#: "converted to select"), Torque's `ppn` counts processors and its `mem` is the job's total
#: (torque.md), PBS Pro refuses a job-wide `mem` beside `select` (pbs.md §2)
OTHER_DIALECT = [
    (
        "pbs",
        "torque",
        "select=1:ncpus=4:mem=8gb+2:ncpus=8:mpiprocs=8:mem=32gb",
        ["#PBS -l nodes=1:ppn=4+2:ppn=8", "#PBS -l mem=72gb"],
        ["the node file lists each node 4 times, not 1", "the job's total, `mem=72gb`"],
    ),
    (
        "pbs",
        "torque",
        "select=1:ncpus=2:mpiprocs=2:ngpus=1+2:ncpus=4:mpiprocs=4",
        ["#PBS -l nodes=1:ppn=2:gpus=1+2:ppn=4"],
        [],
    ),
    (
        "torque",
        "pbs",
        "nodes=2:ppn=8+1:ppn=4:gpus=2\n#PBS -l mem=20gb",
        [
            "#PBS -l select=2:ncpus=8:mpiprocs=8:mem=8388608kb"
            "+1:ncpus=4:mpiprocs=4:ngpus=2:mem=4194304kb"
        ],
        ["divided among the chunks by their processors"],
    ),
    # a node property has no PBS Pro word: the first chunk alone, and W301 says so
    (
        "torque",
        "pbs",
        "nodes=2:blue:ppn=2+red:ppn=3",
        ["#PBS -l select=2:ncpus=2:mpiprocs=2"],
        ["only the first chunk shape (`2:blue:ppn=2`)"],
    ),
]


@pytest.mark.parametrize(("source", "target", "chunks", "lines", "said"), OTHER_DIALECT)
def test_mixed_chunks_are_written_in_the_target_dialect(
    source: str, target: str, chunks: str, lines: list[str], said: list[str]
) -> None:
    text = SH + f"#PBS -l {chunks}\n" + BODY
    out, diags = bammmc.convert(text, source, target)
    assert out is not None, diags
    for line in lines:
        assert line in out.splitlines(), out
    warned = " ".join(d.message for d in diags if d.code == "W301")
    for words in said:
        assert words in warned, warned
    if len(said) == 0 and "blue" not in chunks:
        assert not [d for d in diags if d.code.startswith("W3")], diags
    # the totals are the source's (the W301s name only the node file's count)
    job, _ = bammmc.parse(text, source)
    back, _ = bammmc.parse(out, target)
    assert job is not None and back is not None
    before, after = totals.of(job), totals.of(back)
    for quantity in ("nodes", "cpus", "gpus", "memory"):
        if "blue" not in chunks:
            assert before[quantity].key == after[quantity].key, (quantity, before, after)


def test_memory_per_node_of_tasks_without_nodes() -> None:
    """`--ntasks=8 --mem=16G`: Slurm's memory per node, tasks without a node count. A chunk
    per task with the node's memory asked for it eight times (128gb); the tasks are taken to
    share one host, as the Grid Engine writer takes its slots: 2gb each, with a W301 naming
    the assumption. Torque writes them as `procs=8` (processors from any nodes), not as 8
    nodes of one processor."""
    text = "#!/bin/bash\n#SBATCH --ntasks=8\n#SBATCH --mem=16G\nsrun ./app\n"
    for target, lines in (
        ("pbs", ("#PBS -l select=8:ncpus=1:mpiprocs=1:mem=2gb\n",)),
        ("torque", ("#PBS -l procs=8\n", "#PBS -l pmem=2gb\n")),
    ):
        out, diags = bammmc.convert(text, "slurm", target)
        assert out is not None and all(line in out for line in lines), out
        said = [d for d in diags if d.field == "spec.resources.memoryPerTask"]
        assert [d.code for d in said] == ["W301"] and "share one host" in said[0].message
        assert [d for d in diags if d.field == "spec.resources.tasks"] == []
        back, _ = bammmc.parse(out, target)
        assert back is not None and back.spec is not None and back.spec.resources is not None
        res = back.spec.resources
        tasks = res.tasks or (res.nodes or 1) * (res.tasks_per_node or 1)
        assert res.memory_per_task is not None and tasks == 8
        assert res.memory_per_task.bytes * tasks == 16 * 1024**3
