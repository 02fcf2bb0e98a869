"""The Slurm format, table-driven: sbatch script -> IR, -> diagnostics, -> canonical sbatch.

Every script the writer produces here is also submitted to a real `sbatch --test-only` (the
Slurm oracle of ../shared/oracles) and must be accepted; the oracle also rejects what our reader
rejects. The pitfalls of ../shared/docs/pitfalls.md for Slurm have their own rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import bammmc
from bammmc.backends.splat import to_builtins
from bammmc.diagnostics.model import Diagnostic
from tests.formats.honest import losses
from tests.formats.separators import directives, emit, refused

SH = "#!/bin/bash\n"
BODY = "srun hostname\n"
Check = Callable[[str], tuple[bool, str]]


def read(text: str) -> tuple[Any, list[Diagnostic]]:
    job, diags = bammmc.parse(text, "slurm", filename="job.sbatch")
    return (to_builtins(job) if job is not None else None), diags


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def subset(expected: Any, actual: Any, path: str = "") -> None:
    """Every key of ``expected`` is in ``actual`` with an equal value (recursively)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{path}.{key} missing in {actual!r}"
            subset(value, actual[key], f"{path}.{key}")
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def spec(**fields: Any) -> dict[str, Any]:
    return {"spec": fields}


# ── reading: directives -> IR fields ──────────────────────────────────────────────────────

READ = [
    # --input: `%%` is one `%` (sbatch's filename pattern), `%j` is kept raw beside it
    ("input %% is a percent", "--input=data%%1.txt", spec(execution={"stdin": "data%1.txt"})),
    (
        "input with a replacement stays raw",
        "--input=in_%j.txt",
        spec(execution={"stdin": "in_%j.txt"}, extensions={"slurm": {"input": "in_%j.txt"}}),
    ),
    # time: every form of time_str2secs (pitfalls 12-15)
    ("time M:S is minutes:seconds", "--time=1:30", spec(schedule={"walltime": "PT1M30S"})),
    ("time bare number is minutes", "--time=90", spec(schedule={"walltime": "PT1H30M"})),
    ("time D-H is days-hours", "--time=1-12", spec(schedule={"walltime": "P1DT12H"})),
    ("time D-H:M", "--time=2-12:30", spec(schedule={"walltime": "P2DT12H30M"})),
    ("time H:M:S", "-t 01:00:30", spec(schedule={"walltime": "PT1H30S"})),
    ("time 0 is no limit", "--time=0", spec(schedule={"walltime": "unlimited"})),
    ("time UNLIMITED", "--time=UNLIMITED", spec(schedule={"walltime": "unlimited"})),
    (
        "time the longest sbatch holds",
        "--time=24855-03:13:08",
        spec(schedule={"walltime": "P24855DT3H13M8S"}),
    ),
    ("time-min", "--time-min=30", spec(schedule={"walltimeMin": "PT30M"})),
    # names, queues, accounts
    ("job name", "-J my-job", {"metadata": {"name": "my-job"}}),
    ("quoted job name", '--job-name="my job"', {"metadata": {"name": "my job"}}),
    ("partition", "-p gpu", spec(schedule={"queue": "gpu"})),
    (
        "account and qos",
        "-A proj42 --qos=high",
        spec(schedule={"account": "proj42", "qos": "high"}),
    ),
    ("hold", "-H", spec(schedule={"hold": True})),
    ("reservation", "--reservation=maint", spec(schedule={"reservation": "maint"})),
    # tasks, nodes, cpus
    (
        "nodes tasks cpus",
        "-N 2 --ntasks-per-node=4 -c 8",
        spec(resources={"nodes": 2, "tasksPerNode": 4, "cpusPerTask": 8}),
    ),
    ("tasks-per-node alias", "--tasks-per-node=2", spec(resources={"tasksPerNode": 2})),
    (
        "node range keeps its text",
        "--nodes=2-4",
        spec(resources={"nodes": 2}, extensions={"slurm": {"nodes": "2-4"}}),
    ),
    # memory: scope conversions (pitfalls 1, 4, 7)
    (
        "mem per node with tasks per node is per task",
        "--mem=64G --ntasks-per-node=4",
        spec(resources={"memoryPerTask": "16Gi"}),
    ),
    (
        "mem per node with sbatch's default of one task per node",
        "--mem=64G -N 2",
        spec(resources={"memoryPerTask": "64Gi"}, extensions={"slurm": {"mem": "64Gi/node"}}),
    ),
    ("mem alone: one task on one node", "--mem=8G", spec(resources={"memoryPerTask": "8Gi"})),
    ("as many tasks as nodes", "-N 3 -n 3 --mem=8G", spec(resources={"memoryPerTask": "8Gi"})),
    ("mem=0 is the whole node, not zero", "--mem=0", spec(extensions={"slurm": {"mem": 0}})),
    (
        "mem-per-cpu times cpus per task",
        "--mem-per-cpu=2G -c 4",
        spec(resources={"memoryPerTask": "8Gi"}),
    ),
    ("mem units: GB is G", "--mem-per-cpu=4GB", spec(resources={"memoryPerTask": "4Gi"})),
    ("mem default unit is MiB", "--mem-per-cpu=4096", spec(resources={"memoryPerTask": "4Gi"})),
    ("mem K rounds up to MiB", "--mem-per-cpu=100K", spec(resources={"memoryPerTask": "1Mi"})),
    # one task never spans nodes: --mem is its memory (the writer writes a one-task job with
    # GPUs per task so; the reader left memoryPerTask unset, found by tests/test_honesty.py)
    (
        "one task: mem is its memory",
        "-n 1 --mem=8G --gpus-per-task=2",
        spec(resources={"memoryPerTask": "8Gi", "tasks": 1}),
    ),
    (
        "single node: mem over tasks",
        "-N 1 -n 4 --mem=16G",
        spec(resources={"memoryPerTask": "4Gi"}),
    ),
    # memory for each GPU the job gets (sbatch(1) --mem-per-gpu): scoped as the GPUs are
    (
        "mem-per-gpu with GPUs per task",
        "-n 2 --gpus-per-task=2 --mem-per-gpu=8G",
        spec(resources={"memoryPerTask": "16Gi"}),
    ),
    (
        "mem-per-gpu with GPUs per node",
        "-N 2 -n 4 --mem-per-gpu=4G --gpus-per-node=2",
        spec(resources={"memoryPerTask": "8Gi/node"}),
    ),
    (
        "mem-per-gpu with one task",
        "-n 1 --gres=gpu:2 --mem-per-gpu=8G",
        spec(resources={"memoryPerTask": "16Gi"}),
    ),
    (
        "mem-per-gpu with GPUs per job",
        "-n 2 --gpus=4 --mem-per-gpu=1G",
        spec(resources={"memoryPerTask": "4Gi/job"}),
    ),
    # GPUs and GRES keep their scope (pitfall 20)
    (
        "gres gpu is per node",
        "--gres=gpu:a100:2",
        spec(resources={"gpu": {"count": "2/node", "type": "a100"}}),
    ),
    ("gpus is per job", "--gpus=8", spec(resources={"gpu": {"count": "8/job"}})),
    (
        "gpus-per-task",
        "-n 2 --gpus-per-task=a100:1",
        spec(resources={"gpu": {"count": 1, "type": "a100"}}),
    ),
    (
        "other gres",
        "--gres=gpu:1,shard:2",
        spec(resources={"gpu": {"count": "1/node"}, "genericResources": {"shard": "2/node"}}),
    ),
    # arrays (pitfall 24-25)
    ("array with step and throttle", "--array=0-15:4%2", spec(array={"indices": "0-15:4%2"})),
    ("array list", "-a 1,3,5-7", spec(array={"indices": "1,3,5-7"})),
    # dependencies (pitfall 28)
    (
        "dependency all-of",
        "--dependency=afterok:11:12,afterany:13",
        spec(
            dependencies=[
                {"scheme": "afterok", "value": "11"},
                {"scheme": "afterok", "value": "12"},
                {"scheme": "afterany", "value": "13"},
            ]
        ),
    ),
    (
        "dependency any-of stays raw",
        "--dependency=afterok:11?afternotok:12",
        spec(extensions={"slurm": {"dependency": "afterok:11?afternotok:12"}}),
    ),
    ("singleton", "-d singleton", spec(dependencies=[{"scheme": "singleton"}])),
    (
        "array element dependency",
        "--dependency=afterok:123_4",
        spec(dependencies=[{"scheme": "afterok", "value": "123_4"}]),
    ),
    # output patterns (pitfall 29-30)
    (
        "%A and %a are different",
        "-o out_%A_%a.log",
        spec(output={"stdout": "out_{array_job_id}_{array_index}.log", "mergeStderr": True}),
    ),
    (
        "error given: streams separate",
        "-o o_%j -e e_%j",
        spec(output={"stdout": "o_{job_id}", "stderr": "e_{job_id}"}),
    ),
    (
        "padding has no template: raw kept",
        "-o out_%4a.log",
        spec(extensions={"slurm": {"output": "out_%4a.log"}}),
    ),
    ("%% is a literal percent", "-o 100%%.log", spec(output={"stdout": "100%.log"})),
    ("open mode", "--open-mode=append", spec(output={"openMode": "append"})),
    # mail (pitfall 39)
    (
        "mail types",
        "--mail-type=begin,END --mail-user=me@example.org",
        spec(notifications={"email": "me@example.org", "events": ["begin", "end"]}),
    ),
    (
        "mail ALL keeps the raw value",
        "--mail-type=ALL",
        spec(
            notifications={"events": ["begin", "end", "fail", "requeue"]},
            extensions={"slurm": {"mail_type": "ALL"}},
        ),
    ),
    (
        "mail types accumulate over options",
        "--mail-type=BEGIN\n#SBATCH --mail-type=END",
        spec(notifications={"events": ["begin", "end"]}),
    ),
    # environment, working dir, signal, begin
    ("chdir", "-D /scratch/run", spec(execution={"workingDir": "/scratch/run"})),
    (
        "export list",
        "--export=ALL,OMP_NUM_THREADS=4",
        spec(
            execution={
                "environment": {"inheritFromSubmitter": True, "vars": {"OMP_NUM_THREADS": "4"}}
            }
        ),
    ),
    (
        "export NONE",
        "--export=NONE",
        spec(execution={"environment": {"inheritFromSubmitter": False}}),
    ),
    ("signal", "--signal=USR1@90", spec(schedule={"signalBeforeEnd": "USR1@90"})),
    (
        "signal with batch flag keeps the raw value",
        "--signal=B:USR1@300",
        spec(
            schedule={"signalBeforeEnd": "USR1@300"}, extensions={"slurm": {"signal": "B:USR1@300"}}
        ),
    ),
    (
        "begin ISO",
        "--begin=2026-03-01T08:00:00",
        spec(schedule={"beginAfter": "2026-03-01T08:00:00"}),
    ),
    ("begin relative", "--begin=now+1hour", spec(extensions={"slurm": {"begin": "now+1hour"}})),
    ("begin named", "--begin=teatime", spec(extensions={"slurm": {"begin": "teatime"}})),
    (
        "begin US date",
        "--begin=12/25/26-08:00",
        spec(extensions={"slurm": {"begin": "12/25/26-08:00"}}),
    ),
    ("deadline ISO", "--deadline=2026-03-05", spec(schedule={"deadline": "2026-03-05"})),
    (
        "constraint with brackets and counts",
        "--constraint='[avx512*2&ib*2]'",
        spec(placement={"constraint": "[avx512*2&ib*2]"}),
    ),
    # placement
    (
        "constraint and exclusive",
        "-C 'avx512&ib' --exclusive",
        spec(placement={"constraint": "avx512&ib", "exclusive": True}),
    ),
    ("exclusive=user", "--exclusive=user", spec(extensions={"slurm": {"exclusive": "user"}})),
    # slurmctld reads each `,` of a feature expression as `&` (build_feature_list() of
    # src/slurmctld/job_scheduler.c, 16.05 and later: "Use of commas separator is a common
    # error. Replace them with '&'"); sbatch 22.05.8 (the oracle) accepts it
    (
        "constraint with commas",
        "--constraint=avx512,ib",
        spec(placement={"constraint": "avx512&ib"}),
    ),
    ("prefer with commas", "--prefer=a,b|c", spec(placement={"prefer": "a&b|c"})),
    # `%J` is jobid.stepid, and the batch script's step has no id in a name: its files are
    # named with the job id (src/slurmd/common/fname.c _batch_path_check(); the run-mode
    # oracle wrote run-1.out for -o run-%J.out)
    (
        "output %J is the job id",
        "-o run-%J.out",
        spec(output={"stdout": "run-{job_id}.out"}),
    ),
    # forms sbatch accepts that a strict reading would refuse (checked with sbatch)
    ("empty mail items", "--mail-type=END,,FAIL", spec(notifications={"events": ["end", "fail"]})),
    ("open mode by first letter", "--open-mode=APPEND", spec(output={"openMode": "append"})),
    ("signal without seconds", "--signal=USR1@", spec(schedule={"signalBeforeEnd": "USR1@0"})),
    (
        "exclusive=oversubscribe",
        "--exclusive=oversubscribe",
        spec(extensions={"slurm": {"exclusive": "oversubscribe"}}),
    ),
    ("requeue", "--requeue", spec(lifecycle={"requeueOnFailure": True})),
    ("no-requeue", "--no-requeue", spec(lifecycle={"requeueOnFailure": False})),
    # extensions
    (
        "node lists and licenses",
        "-w node[01-04] -x node05 -L matlab:1",
        spec(
            extensions={
                "slurm": {"nodelist": "node[01-04]", "exclude": "node05", "licenses": "matlab:1"}
            }
        ),
    ),
    (
        "long tail options keep name and value",
        "--acctg-freq=task=30 --reboot",
        spec(extensions={"slurm": {"options": {"acctg-freq": "task=30", "reboot": ""}}}),
    ),
    # tokenizer: quotes, escapes, comments (shared/docs/formats/slurm.md §1.1, checked)
    ("trailing comment", "-J a # a comment", {"metadata": {"name": "a"}}),
    ("hash ends an unquoted word", "-J a#b", {"metadata": {"name": "a"}}),
    ("hash inside quotes", "-J 'a#b'", {"metadata": {"name": "a#b"}}),
    ("escaped hash", "-J a\\#b", {"metadata": {"name": "a#b"}}),
    ("escaped quote inside quotes", '-J "a\\"b"', {"metadata": {"name": 'a"b'}}),
    ("mid-word quotes", '-J a"b c"d', {"metadata": {"name": "ab cd"}}),
    ("glued short option", "-N2 -n8", spec(resources={"nodes": 2, "tasks": 8})),
    ("value on the next directive line", "--job-name\n#SBATCH foo", {"metadata": {"name": "foo"}}),
    (
        "combined flags",
        "-HO",
        spec(schedule={"hold": True}, extensions={"slurm": {"overcommit": True}}),
    ),
    # the writer writes it for this field: it reads back
    ("ignore-pbs", "--ignore-pbs", spec(extensions={"slurm": {"ignore_pbs": True}})),
]


@pytest.mark.parametrize(("name", "directives", "expected"), READ, ids=[r[0] for r in READ])
def test_read(name: str, directives: str, expected: dict[str, Any]) -> None:
    job, diags = read(f"{SH}#SBATCH {directives}\n{BODY}")
    assert [d for d in diags if d.is_error] == []
    subset(expected, job)


# memory per node that has no exact per-task size: the tasks may spread unevenly over nodes
MEM_STAYS_PER_NODE = [
    "--mem=64G -N 2 -n 8",
    "--mem=64G --nodes=2-4 -n 2",
    "--mem=10G -N 1 -n 3",
    "--mem=0",
]


@pytest.mark.parametrize("directives", MEM_STAYS_PER_NODE)
def test_mem_stays_per_node(directives: str) -> None:
    job, diags = read(f"{SH}#SBATCH {directives}\n{BODY}")
    assert [d for d in diags if d.is_error] == []
    # no per-task share is exact: the memory stays per node (a `/node` size), or only raw
    assert job["spec"].get("resources", {}).get("memoryPerTask", "/node").endswith("/node")
    assert "mem" in job["spec"]["extensions"]["slurm"]


# ── reading: diagnostics ──────────────────────────────────────────────────────────────────

DIAGNOSTICS = [
    ("mem with mem-per-cpu", "#SBATCH --mem=8G --mem-per-cpu=2G\n", ["E135"]),
    (
        "unknown option with suggestion",
        "#SBATCH --ntasks-per-nod=4 --memory=1G\n",
        ["W403", "E130"],
    ),
    ("--gpu is ambiguous, as sbatch says (pitfall 21)", "#SBATCH --gpu=1\n", ["E136"]),
    ("ambiguous abbreviation", "#SBATCH --mem-per=2G\n", ["E136"]),
    ("abbreviation", "#SBATCH --job-nam=x\n", ["W403"]),
    ("unquoted space", "#SBATCH --job-name=my job\n", ["E133"]),
    ("unmatched quote", '#SBATCH --job-name="abc\n', ["E020"]),
    ("flag with value", "#SBATCH --hold=1\n", ["E132"]),
    ("missing value", "#SBATCH --time\n", ["E131"]),
    ("bad time", "#SBATCH --time=1h\n", ["E134"]),
    # sbatch adds the seconds in a 32-bit int: 100000 days wraps around to 579-11:04:00
    ("time longer than sbatch holds", "#SBATCH --time=100000-00:00:00\n", ["E134"]),
    ("time one second too long", "#SBATCH --time=24855-03:13:09\n", ["E134"]),
    ("fractional memory", "#SBATCH --mem=1.5G\n", ["E134"]),
    ("unknown mail type", "#SBATCH --mail-type=bogus\n", ["E134"]),
    ("unknown signal", "#SBATCH --signal=BUS@10\n", ["E134"]),
    ("backwards array", "#SBATCH --array=5-1\n", ["E134"]),
    ("bad dependency", "#SBATCH --dependency=nonsense:1\n", ["E134"]),
    ("late directive", "#SBATCH -J a\necho hi\n#SBATCH --time=5\n", ["W402"]),
    ("indented directive", "  #SBATCH --time=5\n", ["W402"]),
    ("lower-case directive", "#sbatch --time=5\n", ["W402"]),
    ("options after hetjob are dropped", "#SBATCH -N 1\n#SBATCH hetjob -N 2\n", ["W402"]),
    ("repeated option", "#SBATCH --time=10\n#SBATCH --time=20\n", ["W407"]),
    ("foreign directive", "#SBATCH -J a\n#PBS -N b\n", ["W404"]),
    ("CLI-only option", "#SBATCH --verbose\n", ["W406"]),
    (
        "ignore-pbs after hetjob",
        "#SBATCH -N 1\n#SBATCH hetjob\n#SBATCH -N 2 --ignore-pbs\n",
        ["W406"],
    ),
    ("stray colon", "#SBATCH : -N 2\n", ["E133"]),
    ("bad begin", "#SBATCH --begin=bogus\n", ["E134"]),
    ("backwards node range", "#SBATCH --nodes=2-1\n", ["E134"]),
    ("impossible begin date", "#SBATCH --begin=2026-13-01\n", ["E134"]),
    ("bad constraint", "#SBATCH --constraint='avx512&&ib'\n", ["E134"]),
]


@pytest.mark.parametrize(("name", "text", "expected"), DIAGNOSTICS, ids=[d[0] for d in DIAGNOSTICS])
def test_diagnostics(name: str, text: str, expected: list[str]) -> None:
    _, diags = read(SH + text + BODY)
    assert codes(diags) == expected
    assert all(d.span is not None and d.help for d in diags)


def test_unknown_option_suggests() -> None:
    _, diags = read(SH + "#SBATCH --ntasts-per-node=4\n" + BODY)
    assert diags[0].help == "did you mean `--ntasks-per-node`?"
    assert (diags[0].span.line, diags[0].span.column) == (2, 9)  # type: ignore[union-attr]


def test_late_directive_is_not_read() -> None:
    job, _ = read(SH + "#SBATCH -J a\necho hi\n#SBATCH --time=5\n")
    assert "schedule" not in job["spec"]
    assert job["spec"]["execution"]["script"] == SH + "echo hi\n#SBATCH --time=5\n"


def test_hetjob_components() -> None:
    job, diags = read(SH + "#SBATCH -J het -t 10 -N 1\n#SBATCH hetjob\n#SBATCH -N 2 -c 4\n" + BODY)
    assert diags == []
    assert job["spec"]["resources"] == {"nodes": 1}
    comps = job["spec"]["extensions"]["slurm"]["het_components"]
    assert comps == [{"resources": {"nodes": 2, "cpusPerTask": 4}}]


#: --mem carries into later het components that name none; --mem-per-cpu and -c do not
#: (measured with the run-mode oracle: `-n 1 -c 4 --mem=1G`, `hetjob -n 1`, `hetjob -n 1
#: --mem=2G`, `hetjob -n 1` gave MinMemoryNode 1G, 1G, 2G, 2G and CPUs/Task 4, 1, 1, 1;
#: `--mem-per-cpu=3G` then `hetjob -n 1 -c 2` gave 1000M per CPU, the site default)
HET_MEMORY = [
    ("--mem=1G", "-n 1", [{"mem": "1Gi/node"}]),
    (
        "--mem=1G",
        "-n 1\n#SBATCH hetjob\n#SBATCH -n 1 --mem=2G\n#SBATCH hetjob\n#SBATCH -n 1",
        [{"mem": "1Gi/node"}, {"mem": "2Gi/node"}, {"mem": "2Gi/node"}],
    ),
    ("--mem-per-cpu=3G", "-n 1 -c 2", [{}]),
]


@pytest.mark.parametrize(("first", "rest", "slurm"), HET_MEMORY)
def test_het_components_take_over_mem(first: str, rest: str, slurm: list[dict[str, str]]) -> None:
    job, diags = read(SH + f"#SBATCH -n 1 -c 4 {first}\n#SBATCH hetjob\n#SBATCH {rest}\n" + BODY)
    assert diags == [], diags
    comps = job["spec"]["extensions"]["slurm"]["het_components"]
    assert [{k: v for k, v in c.get("slurm", {}).items() if k == "mem"} for c in comps] == slurm


def test_het_component_mem_per_cpu_after_a_carried_mem_is_refused() -> None:
    # the real sbatch: "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive"
    text = SH + "#SBATCH -n 2 --mem=2G\n#SBATCH hetjob\n#SBATCH -n 1 --mem-per-cpu=500M\n" + BODY
    job, diags = read(text)
    assert job is None and codes(diags) == ["E135"], diags
    assert diags[0].span is not None and diags[0].span.line == 4


def test_script_keeps_everything_but_directives() -> None:
    text = SH + "# a comment\n#SBATCH -J a\n\n#SBATCH -N 1\nmodule load x\n" + BODY
    job, _ = read(text)
    assert job["spec"]["execution"]["script"] == SH + "# a comment\n\nmodule load x\n" + BODY


# ── writing: canonical sbatch, accepted by real sbatch ────────────────────────────────────

IDENTITY = [
    ("minimal", "", ""),
    (
        "name and time",
        "#SBATCH -J hello -t 10\n",
        "#SBATCH --job-name=hello\n#SBATCH --time=00:10:00\n",
    ),
    (
        "resources",
        "#SBATCH -N 2 --ntasks-per-node=4 -c 2 --mem=32G -p batch\n",
        "#SBATCH --partition=batch\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\n"
        "#SBATCH --cpus-per-task=2\n#SBATCH --mem=32G\n",
    ),
    (
        "mem per cpu",
        "#SBATCH -n 4 -c 2 --mem-per-cpu=1500M\n",
        "#SBATCH --ntasks=4\n#SBATCH --cpus-per-task=2\n#SBATCH --mem-per-cpu=1500M\n",
    ),
    ("mem 0", "#SBATCH --mem=0\n", "#SBATCH --mem=0\n"),
    (
        "gpus",
        "#SBATCH -p gpu --gres=gpu:a100:2 -n 2\n",
        "#SBATCH --partition=gpu\n#SBATCH --ntasks=2\n#SBATCH --gres=gpu:a100:2\n",
    ),
    (
        "array and output",
        "#SBATCH --array=1-10:3%2 -o 'logs/%x_%A_%a.out'\n",
        "#SBATCH --array=1-10:3%2\n#SBATCH --output=logs/%x_%A_%a.out\n",
    ),
    (
        "quoted name",
        "#SBATCH --job-name='my job #1'\n",
        '#SBATCH --job-name="my job #1"\n',
    ),
    (
        "mail and dependency",
        "#SBATCH --mail-type=END,FAIL --mail-user=me@example.org -d afterok:1\n",
        "#SBATCH --dependency=afterok:1\n#SBATCH --mail-user=me@example.org\n"
        "#SBATCH --mail-type=END,FAIL\n",
    ),
    (
        "export and chdir",
        "#SBATCH --export=NONE,A=1 -D /tmp\n",
        "#SBATCH --chdir=/tmp\n#SBATCH --export=NONE,A=1\n",
    ),
    (
        "signal, requeue, exclusive",
        "#SBATCH --signal=B:USR1@300 --requeue --exclusive\n",
        "#SBATCH --exclusive\n#SBATCH --requeue\n#SBATCH --signal=B:USR1@300\n",
    ),
    (
        "hetjob",
        "#SBATCH -N 1 -t 10\n#SBATCH hetjob\n#SBATCH -N 2\n",
        "#SBATCH --time=00:10:00\n#SBATCH --nodes=1\n#SBATCH hetjob\n#SBATCH --nodes=2\n",
    ),
    ("licenses", "#SBATCH -L matlab:1\n", "#SBATCH --licenses=matlab:1\n"),
    ("constraint", "#SBATCH -C avx512\n", "#SBATCH --constraint=avx512\n"),
]


def canonical(directives: str) -> str:
    return SH + directives + BODY


@pytest.mark.parametrize(("name", "source", "expected"), IDENTITY, ids=[i[0] for i in IDENTITY])
def test_identity(name: str, source: str, expected: str) -> None:
    out, diags = bammmc.convert(canonical(source), "slurm", "slurm")
    assert [d for d in diags if d.is_error] == []
    assert out == canonical(expected)
    again, _ = bammmc.convert(out, "slurm", "slurm")
    assert again == out


@pytest.mark.oracle
@pytest.mark.parametrize(("name", "source", "expected"), IDENTITY, ids=[i[0] for i in IDENTITY])
def test_written_scripts_are_accepted_by_sbatch(
    name: str, source: str, expected: str, sbatch_check: Check
) -> None:
    accepted, message = sbatch_check(canonical(expected))
    assert accepted, message


REJECTED_BY_BOTH = [
    "#SBATCH --time=1h\n",
    "#SBATCH --mem=foo\n",
    "#SBATCH --mem=8G --mem-per-cpu=2G\n",
    "#SBATCH --mail-type=bogus\n",
    "#SBATCH --array=5-1\n",
    "#SBATCH --job-name=my job\n",
    "#SBATCH --bogus=1\n",
    "#SBATCH --begin=bogus\n",
    "#SBATCH --begin=2026-13-01\n",
    "#SBATCH --constraint='avx512&&ib'\n",
    "#SBATCH --signal=BUS@10\n",
    "#SBATCH --mem=1.5G\n",
    "#SBATCH --gpu=1\n",
    "#SBATCH --nodes=2-1\n",
]


@pytest.mark.oracle
@pytest.mark.parametrize("directives", REJECTED_BY_BOTH)
def test_sbatch_rejects_what_we_reject(directives: str, sbatch_check: Check) -> None:
    _, diags = read(canonical(directives))
    assert any(d.is_error for d in diags)
    accepted, _ = sbatch_check(canonical(directives))
    assert not accepted


def test_writer_refuses_line_breaks() -> None:
    job, _ = bammmc.parse(
        'apiVersion: bammm.io/v1alpha1\nkind: Job\nmetadata:\n  name: "a\\n#SBATCH -x y"\n',
        "splat",
    )
    assert job is not None
    _, diags = bammmc.emit(job, "slurm")
    assert codes(diags) == ["E140"]


def test_writer_adds_ignore_pbs_for_foreign_lines() -> None:
    job, _ = bammmc.parse(SH + "#SBATCH -J a\n#PBS -N b\n" + BODY, "slurm")
    assert job is not None
    out, _ = bammmc.emit(job, "slurm")
    assert out is not None
    assert "#SBATCH --ignore-pbs\n" in out


def test_splat_to_slurm_reports_losses() -> None:
    text = (
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  gang:\n    minAvailable: 2\n"
        "  resources:\n    cpusPerTask: 500m\n"
    )
    out, diags = bammmc.convert(text, "splat", "slurm")
    assert out is not None and "--cpus-per-task=1" in out
    assert sorted((d.code, d.field) for d in diags) == [
        ("W201", "spec.gang"),
        ("W301", "spec.resources.cpusPerTask"),
    ]


@pytest.mark.parametrize("runtime", ["apptainer", "singularity"])
def test_container_image_runs_through_a_runtime(runtime: str) -> None:
    from bammmc.backends import WriteOptions
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import emit_job, get_format

    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  execution:\n    container:\n"
        "      image: python:3.12\n      command: [python3, -c, 'print(1)']\n",
        "splat",
    )
    assert job is not None
    reporter = Reporter()
    (out,) = emit_job(job, get_format("slurm"), reporter, None, WriteOptions(runtime))
    assert out.text.endswith(f"exec {runtime} exec docker://python:3.12 python3 -c 'print(1)'\n")
    assert [(d.code, d.field) for d in reporter.diagnostics] == [
        ("W301", "spec.execution.container.image")
    ]


def test_script_beside_an_image_runs_in_the_image() -> None:
    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  execution:\n    container:\n"
        "      image: python:3.12\n    script: |\n      #!/bin/bash\n      python3 run.py\n",
        "splat",
    )
    assert job is not None
    out, diags = bammmc.emit(job, "slurm")
    assert out is not None
    assert [(d.code, d.field) for d in diags] == [("W301", "spec.execution.container.image")]
    assert 'exec apptainer exec docker://python:3.12 bash "$bammmc_script"' in out
    assert "<<'BAMMMC_SCRIPT_END'\npython3 run.py\nBAMMMC_SCRIPT_END\n" in out


# ── regressions found by review against real sbatch ───────────────────────────────────────

KEPT = [
    # memory is written in the form it was given: --mem and --mem-per-cpu differ when Slurm
    # allocates more CPUs than tasks (--exclusive, --cpus-per-gpu, --mincpus): checked with jobs
    ("-N 1 -n 4 --exclusive --mem=8G", ["--mem=8G"], ["--mem-per-cpu"]),
    (
        "-N 1 --ntasks-per-node=2 -c 3 --mem-per-cpu=2G --exclusive",
        ["--mem-per-cpu=2G"],
        ["--mem="],
    ),
    ("-N 1 -n 2 --mincpus=8 --mem=8G", ["--mem=8G"], ["--mem-per-cpu"]),
    # the later of two opposite options wins
    ("--exclusive --oversubscribe", ["--oversubscribe"], ["--exclusive"]),
    ("--requeue --no-requeue --requeue", ["--requeue"], ["--no-requeue"]),
    # one --gres list (sbatch keeps only the last --gres)
    ("-p gpu --gres=gpu:a100:2,shard:1", ["--gres=gpu:a100:2,shard:1"], []),
]


@pytest.mark.parametrize(("directives", "present", "absent"), KEPT, ids=[k[0] for k in KEPT])
def test_conversion_keeps_the_job(directives: str, present: list[str], absent: list[str]) -> None:
    out, diags = bammmc.convert(canonical(f"#SBATCH {directives}\n"), "slurm", "slurm")
    assert out is not None, diags
    for text in present:
        assert f"#SBATCH {text}" in out
    for text in absent:
        assert f"#SBATCH {text}" not in out


def test_ignore_pbs_goes_to_the_first_component() -> None:
    text = SH + "#SBATCH -t 5\n#SBATCH hetjob\n#SBATCH -N 1\n#PBS -l walltime=100:00:00\n" + BODY
    out, _ = bammmc.convert(text, "slurm", "slurm")
    assert out is not None
    assert out.index("--ignore-pbs") < out.index("hetjob")


def test_hetjob_in_the_middle_of_a_line_ends_it() -> None:
    job, diags = read(SH + "#SBATCH -t 3\n#SBATCH -N 1 hetjob -t 7 --mem=1G\n" + BODY)
    assert [d.code for d in diags] == ["W402"]
    assert job["spec"]["schedule"]["walltime"] == "PT3M"
    assert "mem" not in job["spec"].get("extensions", {}).get("slurm", {})


def test_quoted_hetjob_is_a_value() -> None:
    job, diags = read(SH + '#SBATCH -J "hetjob" -t 5\n' + BODY)
    assert diags == [] and job["metadata"]["name"] == "hetjob"


def test_compatibility_block_round_trip_keeps_user_lines() -> None:
    text = SH + "#SBATCH -t 5\nexport OMP_NUM_THREADS=4\necho $PBS_JOBID $OMP_NUM_THREADS\n"
    once, _ = bammmc.convert(text, "slurm", "slurm")
    twice, _ = bammmc.convert(once or "", "slurm", "slurm")
    assert once == twice
    assert "export OMP_NUM_THREADS=4\n" in (twice or "")


def test_body_directives_are_shielded() -> None:
    job, _ = bammmc.parse(
        "apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  schedule: {walltime: PT10M}\n"
        "  execution:\n    script: |\n      #!/bin/bash\n      #SBATCH --time=600\n"
        "      hostname\n",
        "splat",
    )
    assert job is not None
    out, diags = bammmc.emit(job, "slurm")
    assert out is not None
    assert ": # bammmc" in out and out.index(": # bammmc") < out.index("#SBATCH --time=600")
    again, _ = bammmc.parse(out, "slurm")
    assert again is not None and again.spec and again.spec.schedule
    assert again.spec.schedule.walltime is not None and again.spec.schedule.walltime.seconds == 600
    assert "W301" in {d.code for d in diags}


@pytest.mark.parametrize(
    ("splat", "expected"),
    [
        ("  schedule: {signalBeforeEnd: SEGV@60}\n", "#SBATCH --signal=11@60"),
    ],
)
def test_writer_stays_within_what_sbatch_reads(splat: str, expected: str) -> None:
    job, _ = bammmc.parse("apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n" + splat, "splat")
    assert job is not None
    out, _ = bammmc.emit(job, "slurm")
    assert out is not None
    assert expected in out


@pytest.mark.parametrize("value", ["-c ²", "-n ²", "--priority=²", "--switches=²", "--nodes=²"])
def test_non_ascii_digits_are_errors_not_tracebacks(value: str) -> None:
    _, diags = read(canonical(f"#SBATCH {value}\n"))
    assert [d.code for d in diags] == ["E134"]


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("directives", "present", "absent"), KEPT[:-1], ids=[k[0] for k in KEPT[:-1]]
)  # the oracle cluster has no `shard` GRES
def test_kept_jobs_are_accepted(
    directives: str, present: list[str], absent: list[str], sbatch_check: Check
) -> None:
    out, _ = bammmc.convert(canonical(f"#SBATCH {directives}\n"), "slurm", "slurm")
    accepted, message = sbatch_check(out or "")
    assert accepted, message


MEMORY_WRITTEN = [
    # (SPLAT resources, the memory option written): --mem covers the most tasks one node runs
    ("{memoryPerTask: 4Gi}", "#SBATCH --mem=4G"),  # one task, on one node
    ("{memoryPerTask: 4Gi, tasks: 2, tasksPerNode: 4}", "#SBATCH --mem=8G"),  # not 16G
    ("{memoryPerTask: 4Gi, tasks: 10, tasksPerNode: 4}", "#SBATCH --mem=16G"),
    ("{memoryPerTask: 4Gi, nodes: 1, tasks: 3}", "#SBATCH --mem=12G"),
    ("{memoryPerTask: 4Gi, tasks: 4, cpusPerTask: 2}", "#SBATCH --mem-per-cpu=2G"),
]


@pytest.mark.parametrize(("resources", "line"), MEMORY_WRITTEN)
def test_memory_written(resources: str, line: str) -> None:
    job, _ = bammmc.parse(
        f"apiVersion: bammm.io/v1alpha1\nkind: Job\nspec:\n  resources: {resources}\n", "splat"
    )
    assert job is not None
    out, _ = bammmc.emit(job, "slurm")
    assert out is not None
    assert line in out.splitlines()
    back, _ = bammmc.parse(out, "slurm")  # and reads back as the same memory per task
    assert back is not None and back.spec and back.spec.resources
    assert back.spec.resources.memory_per_task == job.spec.resources.memory_per_task  # type: ignore[union-attr]


# ── losses the honesty test (tests/test_honesty.py) found silent: each now has its diagnostic ──

HONEST_SLURM = [
    # (SPLAT spec as YAML flow, target, the (code, field) pairs among the diagnostics)
    # `--mem` is per node, `--mem-per-cpu` per CPU: a size per something else is written so
    (
        "{resources: {tasks: 4}, extensions: {slurm: {mem: 1Gi/task}}}",
        "slurm",
        {("W301", "spec.extensions.slurm.mem")},
    ),
    (
        "{extensions: {slurm: {mem_per_cpu: 1Gi/node}}}",
        "slurm",
        {("W301", "spec.extensions.slurm.mem_per_cpu")},
    ),
    # a time longer than sbatch holds (it would wrap around) is written as UNLIMITED
    ("{schedule: {walltime: 99999999999}}", "slurm", {("W301", "spec.schedule.walltime")}),
    (
        "{schedule: {walltimeMin: 99999999999}}",
        "slurm",
        {("W301", "spec.schedule.walltimeMin")},
    ),
    # `singleton` takes no count: a count given with it is not written
    (
        "{dependencies: [{scheme: singleton, count: 3}]}",
        "slurm",
        {("W201", "spec.dependencies[0].count")},
    ),
    # the container's pull policy, secrets and command do not reach `apptainer exec`
    (
        "{execution: {script: 'echo hi', container: {image: img, imagePullPolicy: Always, "
        "imagePullSecrets: [s], command: [run]}}}",
        "slurm",
        {
            ("W201", "spec.execution.container.imagePullPolicy"),
            ("W201", "spec.execution.container.imagePullSecrets"),
            ("W201", "spec.execution.container.command"),
        },
    ),
    # args without a command: `exec` runs them as the command, not the image's entrypoint
    (
        "{execution: {container: {image: img, args: [a]}}}",
        "slurm",
        {("W301", "spec.execution.container.args")},
    ),
    # a shell the script's own `#!` line overrides
    (
        '{execution: {script: "#!/bin/sh\\necho\\n", shell: /bin/zsh}}',
        "slurm",
        {("W201", "spec.execution.shell")},
    ),
    # a stderr file beside `mergeStderr: true`: merged, as the other writers do
    (
        "{output: {stdout: a.log, stderr: b.log, mergeStderr: true}}",
        "slurm",
        {("W301", "spec.output.stderr")},
    ),
    # `pack` becomes --nodes=1
    ("{placement: {topology: pack}}", "slurm", {("W301", "spec.placement.topology")}),
    # `pack` beside a node count: the count is written, `pack` only when it is one node
    (
        "{placement: {topology: pack}, resources: {nodes: 1}}",
        "slurm",
        {("W301", "spec.placement.topology")},
    ),
    (
        "{placement: {topology: pack}, resources: {nodes: 2}}",
        "slurm",
        {("W201", "spec.placement.topology")},
    ),
    (
        "{placement: {topology: pack}, extensions: {slurm: {nodes: 2-4}}}",
        "slurm",
        {("W201", "spec.placement.topology")},
    ),
    # a GRES count is per node in `--gres`: per task (no scope) or a fraction is approximated
    (
        "{resources: {genericResources: {foo: 2, bar: 1.5/node, baz: 2/node}}}",
        "slurm",
        {
            ("W301", "spec.resources.genericResources.foo"),
            ("W301", "spec.resources.genericResources.bar"),
        },
    ),
    # names `--gres` cannot hold (an empty type), `none` (no GRES) and a `gpu` GRES: the GPU
    # request (a `,` or a blank is refused: `UNWRITABLE_SLURM`)
    (
        "{resources: {genericResources: {'e:': 1/node, none: 1/node, gpu: 2/node}}}",
        "slurm",
        {
            ("W201", "spec.resources.genericResources.e:"),
            ("W201", "spec.resources.genericResources.none"),
            ("W301", "spec.resources.genericResources.gpu"),
        },
    ),
    (
        "{resources: {genericResources: {'gpu:a100': 2/node}, gpu: {count: 1}}}",
        "slurm",
        {("W201", "spec.resources.genericResources.gpu:a100")},
    ),
    # a raw size sbatch can only say in whole MiB
    (
        "{extensions: {slurm: {mem: 1000M, tmp: 1000M}}}",
        "slurm",
        {("W301", "spec.extensions.slurm.mem"), ("W301", "spec.extensions.slurm.tmp")},
    ),
    # the raw extensions.slurm form, written instead, says something else than the field
    (
        "{schedule: {priority: 750}, extensions: {slurm: {priority: TOP}}}",
        "slurm",
        {("W301", "spec.schedule.priority")},
    ),
    (
        "{placement: {exclusive: true}, extensions: {slurm: {exclusive: user}}}",
        "slurm",
        {("W301", "spec.placement.exclusive")},
    ),
    # the field path is the wire name (it was `config_maps`)
    (
        "{execution: {environment: {configMaps: [{name: A, configMapName: c, configMapKey: k}]}}}",
        "slurm",
        {("W201", "spec.execution.environment.configMaps")},
    ),
    # the arguments of a script: only the sbatch command line takes them (shared code)
    (
        "{execution: {script: 'echo', arguments: 'a b'}}",
        "slurm",
        {("W201", "spec.execution.arguments")},
    ),
    ("{execution: {arguments: x}}", "slurm", {("W201", "spec.execution.arguments")}),
    # a container without an image: nothing to pull, and its command runs on the host
    (
        "{execution: {container: {imagePullPolicy: Always, args: [a, b]}}}",
        "slurm",
        {
            ("W201", "spec.execution.container.imagePullPolicy"),
            ("W301", "spec.execution.container"),
        },
    ),
    # Slurm allocates whole GPUs: a fraction beside a count is not written
    (
        "{resources: {gpu: {count: 1, fraction: 1.0, migProfile: 1g.5gb}}}",
        "slurm",
        {("W201", "spec.resources.gpu.fraction"), ("W201", "spec.resources.gpu.migProfile")},
    ),
    # a raw value its own reader (and sbatch) refuses is not written: an error names it
    (
        "{extensions: {slurm: {priority: '.'}}}",
        "slurm",
        {("E134", "spec.extensions.slurm.priority")},
    ),
    (
        "{extensions: {slurm: {mail_type: '1-'}}}",
        "slurm",
        {("E134", "spec.extensions.slurm.mail_type")},
    ),
    (
        "{execution: {script: echo, environment: {vars: {'0': '0'}}}}",
        "slurm",
        {("E134", "spec.execution.environment")},
    ),
    # an array-count dependency without a scheme
    ("{dependencies: [{value: '12', count: 3}]}", "slurm", {("W201", "spec.dependencies[0]")}),
    # the wait of `--switches` without a switch count
    (
        "{extensions: {slurm: {switches_max_wait: PT1H}}}",
        "slurm",
        {("W201", "spec.extensions.slurm.switches_max_wait")},
    ),
]


@pytest.mark.parametrize(("spec_yaml", "target", "expected"), HONEST_SLURM)
def test_silent_losses_are_reported(
    spec_yaml: str, target: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= losses(spec_yaml, target)


@pytest.mark.parametrize(
    ("ext", "line"),
    [("{input: in.txt}", "#SBATCH --input=in.txt"), ("{export: NONE}", "#SBATCH --export=NONE")],
)
def test_raw_options_without_an_execution_block_are_written(ext: str, line: str) -> None:
    """The raw `--input`/`--export` do not depend on `execution` being there (they vanished)."""
    text = f"apiVersion: bammm.io/v1alpha1\nkind: Job\nspec: {{extensions: {{slurm: {ext}}}}}"
    job, _ = bammmc.parse(text, "splat")
    assert job is not None
    out, _ = bammmc.emit(job, "slurm")
    assert out is not None
    assert line + "\n" in out


#: a value holding a separator of the sub-language it goes into, which sbatch or the controller
#: would read as more than the one value: refused, E140 naming the field and the character
#: (issue 18, item 4; judged by the real parsers in tests/formats/test_slurm_oracle.py)
UNWRITABLE_SLURM: list[tuple[str, str, str | None]] = [
    # (SPLAT spec, field, the character as the message names it)
    # `--gpus-per-task=a100:4,gpu:1`: the controller stored TresPerTask
    # gres:gpu:a100:4,gres:gpu:gpu:1, five GPUs per task for a count of one
    ("{resources: {gpu: {type: 'a100:4,gpu', count: 1}}}", "spec.resources.gpu.type", ":"),
    ("{resources: {gpu: {type: 'a100,gpu', count: 2/job}}}", "spec.resources.gpu.type", ","),
    ("{resources: {gpu: {type: 'a1 00', count: 1/node}}}", "spec.resources.gpu.type", " "),
    ("{resources: {gpu: {type: 'x:2'}}}", "spec.resources.gpu.type", ":"),
    (
        "{resources: {genericResources: {'fpga,gpu:4': 1/node}}}",
        "spec.resources.genericResources.fpga,gpu:4",
        ",",
    ),
    ("{resources: {genericResources: {'c d': 1}}}", "spec.resources.genericResources.c d", " "),
    (
        "{resources: {genericResources: {'fpga:x:9': 1}}}",
        "spec.resources.genericResources.fpga:x:9",
        ":",
    ),
    # a job id with `,`/`?`/`:` adds dependencies
    (
        "{dependencies: [{scheme: afterok, value: '1_[2,afterany:3]'}]}",
        "spec.dependencies[0].value",
        ",",
    ),
    ("{dependencies: [{scheme: afterok, value: '1?afterany'}]}", "spec.dependencies[0].value", "?"),
    # a `,` in a feature expression is no SPLAT operator, and slurmctld would read it as `&`
    ("{placement: {prefer: 'a,b'}}", "spec.placement.prefer", None),
    # `--export`: a name ends at `=`; an unpaired quote runs the item on into the next ones;
    # a `,` with both kinds of quotes has no quoting left
    ("{execution: {environment: {vars: {'A=B': x}}}}", "spec.execution.environment.vars.A=B", "="),
    (
        "{execution: {environment: {vars: {'a,LD_PRELOAD': x}}}}",
        "spec.execution.environment.vars.a,LD_PRELOAD",
        ",",
    ),
    ("{execution: {environment: {vars: {'A B': x}}}}", "spec.execution.environment.vars.A B", " "),
    ('{execution: {environment: {vars: {A: "it\'s"}}}}', "spec.execution.environment.vars.A", "'"),
    (
        "{execution: {environment: {vars: {A: 'x\",B=2'}}}}",
        "spec.execution.environment.vars.A",
        '"',
    ),
    (
        '{execution: {environment: {vars: {A: "\'a\',\\"b\\""}}}}',
        "spec.execution.environment.vars.A",
        ",",
    ),
]


@pytest.mark.parametrize(("spec_yaml", "field", "char"), UNWRITABLE_SLURM)
def test_separators_are_refused(spec_yaml: str, field: str, char: str | None) -> None:
    errors = refused(spec_yaml, "slurm")
    assert [(code, f) for code, f, _ in errors] == [("E140", field)]
    if char is not None:
        assert ("a blank" if char == " " else f"`{char}`") in errors[0][2]


#: what is the value's own there (a false error is a bug too), or how it is encoded so that
#: sbatch reads the one value back (checked with a real job's environment)
KEPT_SLURM = [
    # (SPLAT spec, a directive written)
    # `=` and `(` are plain in a GPU type (the controller stored gres:gpu:a1=00:2)
    ("{resources: {gpu: {type: 'a1=00', count: 2/job}}}", "#SBATCH --gpus=a1=00:2"),
    ("{resources: {gpu: {type: a100, count: 1}}}", "#SBATCH --gpus-per-task=a100:1"),
    ("{resources: {genericResources: {'fpga:x': 1/node}}}", "#SBATCH --gres=fpga:x:1"),
    (
        "{dependencies: [{scheme: afterok, value: '12_[1-3]'}]}",
        "#SBATCH --dependency=afterok:12_[1-3]",
    ),
    # a `,` in a value: the item is quoted whole (sbatch takes those quotes off)
    (
        "{execution: {environment: {vars: {A: 'x,LD_PRELOAD=/x.so'}}}}",
        '#SBATCH --export="ALL,\\"A=x,LD_PRELOAD=/x.so\\""',
    ),
    (
        "{execution: {environment: {vars: {A: 'a\"b,c\"d'}}}}",
        '#SBATCH --export="ALL,\'A=a\\"b,c\\"d\'"',
    ),
    # paired quotes without a `,` stay the value's own
    ("{execution: {environment: {vars: {A: 'p\"q\"r'}}}}", '#SBATCH --export="ALL,A=p\\"q\\"r"'),
    # `%` in a working directory is plain (the controller stored WorkDir=/tmp/a%j)
    ("{execution: {workingDir: '/tmp/a%j'}}", "#SBATCH --chdir=/tmp/a%j"),
    # a blank or `#` in a value: quoted for sbatch's directive tokenizer
    ("{metadata: {name: 'a b#c'}}", '#SBATCH --job-name="a b#c"'),
]


@pytest.mark.parametrize(("spec_yaml", "line"), KEPT_SLURM)
def test_separators_where_they_are_plain(spec_yaml: str, line: str) -> None:
    if spec_yaml.startswith("{metadata"):
        text, diags = bammmc.convert(
            "apiVersion: bammm.io/v1alpha1\nkind: Job\n" + spec_yaml[1:-1], "splat", "slurm"
        )
        assert text is not None and line in text.splitlines(), diags
        return
    assert line in directives(spec_yaml, "slurm")


def test_an_export_value_with_a_comma_reads_back() -> None:
    """The quoted `--export` item is read back by bammmc's own reader as the same value."""
    spec = "{execution: {environment: {vars: {A: 'x,y', B: 'a\"b,c\"d'}}}}"
    text, diags = emit(spec, "slurm")
    assert text is not None, diags
    job, diags = bammmc.parse(text, "slurm")
    assert job is not None and job.spec and job.spec.execution, diags
    env = job.spec.execution.environment
    assert env is not None and env.vars == {"A": "x,y", "B": 'a"b,c"d'}


#: sbatch's own output file where the job names none (sbatch(1) --output: "slurm-%j.out",
#: "slurm-%A_%a.out" for an array): other targets write that file, not their own default
#: (bsub mails the output, lsf.md §2.7; HTCondor discards it; Grid Engine's is `<name>.o<id>`)
DEFAULT_OUTPUT = [
    ("", "lsf", '#BSUB -oo "slurm-%J.out"'),
    ("", "htcondor", "output = slurm-$(Cluster).out"),
    ("", "sge", "#$ -o slurm-$JOB_ID.out"),
    ("#SBATCH --array=1-3\n", "sge", "#$ -o slurm-$JOB_ID_$TASK_ID.out"),
    ("#SBATCH --array=1-3\n", "lsf", '#BSUB -oo "slurm-%J_%I.out"'),
]


@pytest.mark.parametrize(("lines", "target", "line"), DEFAULT_OUTPUT)
def test_sbatch_default_output_is_the_file_other_targets_write(
    lines: str, target: str, line: str
) -> None:
    text = "#!/bin/bash\n" + lines + "#SBATCH -n 1\necho ok\n"
    files, diags = bammmc.convert_files(text, "slurm", target, filename="job")
    assert files is not None, diags
    assert line in files[0][1].splitlines(), files[0][1]
    assert not [d for d in diags if d.field and d.field.startswith("spec.output")], diags
    # written back for Slurm, the default is left to sbatch; PBS has its own, with a note
    out, more = bammmc.convert(text, "slurm", "slurm")
    assert out is not None and "--output" not in out, out
    out, more = bammmc.convert(text, "slurm", "pbs")
    assert out is not None and "#PBS -o" not in out, out
    assert [d.code for d in more if d.field == "spec.output.stdout"] == ["N003"], more
