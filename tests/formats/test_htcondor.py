"""HTCondor submit descriptions, table-driven: submit file -> IR, -> diagnostics.

The HTCondor pitfalls of ../shared/docs/pitfalls.md have their own rows: `request_memory` is MiB
and `request_disk` KiB without a unit (pitfall 8), `$(Process)` is 0-based (24), there is no
walltime but `allowed_job_duration` (17), `getenv` is off unless set (35), `notification` takes
one value (39), `+Attr` and `MY.Attr` are the same attribute, spelled as written (43).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import bammmc
from bammmc.backends.splat import to_builtins
from bammmc.diagnostics.model import Diagnostic, Reporter
from bammmc.frontends.htcondor import Macros, scan, split_row
from bammmc.passes.lower.htcondor import parse_arguments, quantity, shell_arguments
from tests.formats.test_slurm import spec, subset

EXE = "executable = /bin/app\n"


def read(text: str) -> tuple[Any, list[Diagnostic]]:
    job, diags = bammmc.parse(text, "htcondor", filename="job.sub")
    return (to_builtins(job) if job is not None else None), diags


def ext(**fields: Any) -> dict[str, Any]:
    return spec(extensions={"htcondor": fields})


READ = [
    ("request_cpus = 4", spec(resources={"cpusPerTask": 4})),
    # memory: MiB without a unit, binary units, rounded up to whole MiB (pitfall 8)
    ("request_memory = 2048", spec(resources={"memoryPerTask": "2Gi"})),
    ("request_memory = 4 GB", spec(resources={"memoryPerTask": "4Gi"})),
    ("request_memory = 4g", spec(resources={"memoryPerTask": "4Gi"})),
    ("request_memory = 1.5G", spec(resources={"memoryPerTask": "1536Mi"})),
    ("request_memory = 1500K", spec(resources={"memoryPerTask": "2Mi"})),
    ("request_memory = 1T", spec(resources={"memoryPerTask": "1Ti"})),
    # disk: KiB without a unit
    ("request_disk = 1024", spec(resources={"diskPerTask": "1Mi"})),
    ("request_disk = 20G", spec(resources={"diskPerTask": "20Gi"})),
    ("request_disk = 500MB", spec(resources={"diskPerTask": "500Mi"})),
    # an expression is kept as written
    (
        "request_memory = max({60, Target.TotalSlotMemory})",
        ext(commands={"request_memory": "max({60, Target.TotalSlotMemory})"}),
    ),
    ("request_gpus = 2", spec(resources={"gpu": {"count": 2}})),
    ("request_gpus = 1\ngpus_minimum_memory = 40G", spec(resources={"gpu": {"memory": "40Gi"}})),
    ("request_gpus = 1\ngpus_minimum_memory = 4096", spec(resources={"gpu": {"memory": "4Gi"}})),
    ("request_licenses = 2", spec(resources={"genericResources": {"licenses": 2}})),
    # walltime (pitfall 17)
    ("allowed_job_duration = 43200", spec(schedule={"walltime": "PT12H"})),
    ("universe = docker", ext(universe="docker")),
    ("universe = Vanilla", ext(universe="vanilla")),
    ("arguments = -a -b 26", spec(execution={"arguments": "-a -b 26"})),
    # the writer's form of a container's command: a program inside the image
    (
        "container_image = docker://img:1\ntransfer_executable = False\narguments = \"a 'b c'\"",
        spec(
            execution={
                "container": {"image": "img:1", "command": ["/bin/app"], "args": ["a", "b c"]}
            }
        ),
    ),
    ("container_image = /images/x.sif", spec(execution={"container": {"image": "/images/x.sif"}})),
    (
        "arguments = \"one 'two with spaces' 3\"",
        spec(execution={"arguments": "one 'two with spaces' 3"}),
    ),
    # $(Process) is 0-based: it becomes SPLAT's array index variable (pitfall 24)
    (
        "arguments = --index $(Process) --job $(Cluster)\nqueue 3",
        spec(
            execution={"arguments": '--index "${BAMMM_ARRAY_INDEX}" --job "${BAMMM_JOB_ID}"'},
            array={"indices": "0-2"},
        ),
    ),
    (
        "environment = \"A=1 B='x y'\"",
        spec(execution={"environment": {"vars": {"A": "1", "B": "x y"}}}),
    ),
    ("environment = A=1;B=2", spec(execution={"environment": {"vars": {"A": "1", "B": "2"}}})),
    # getenv is off unless set (pitfall 35)
    ("getenv = True", spec(execution={"environment": {"inheritFromSubmitter": True}})),
    ("getenv = false", spec(execution={"environment": {"inheritFromSubmitter": False}})),
    ("getenv = PATH, HOME", ext(getenv="PATH, HOME")),
    ("output = out.$(Cluster).$(Process)", spec(output={"stdout": "out.{job_id}.{array_index}"})),
    # the jobs of one `queue N` share the cluster id: the array's id
    (
        "output = out.$(Cluster).$(Process)\nerror = err.$(ClusterId).$(ProcId)\nqueue 4",
        spec(
            output={
                "stdout": "out.{array_job_id}.{array_index}",
                "stderr": "err.{array_job_id}.{array_index}",
            }
        ),
    ),
    ("output = o.txt\nerror = o.txt", spec(output={"stdout": "o.txt", "mergeStderr": True})),
    ("input = in.txt", spec(execution={"stdin": "in.txt"})),
    ("log = job.log", ext(log="job.log")),
    ("initialdir = /scratch/run", spec(execution={"workingDir": "/scratch/run"})),
    # notification takes one value (pitfall 39)
    ("notification = Complete", spec(notifications={"events": ["end"]})),
    (
        "notification = Error\nnotify_user = me@x.org",
        spec(notifications={"email": "me@x.org", "events": ["fail"]}),
    ),
    ("notification = never", spec(notifications={"events": []})),
    ("notification = Always", ext(notification="Always")),
    ("priority = 1000", spec(schedule={"priority": 1000})),
    ("priority = -1000", spec(schedule={"priority": 0})),
    ("priority = 5000", ext(commands={"priority": "5000"})),
    ("hold = True", spec(schedule={"hold": True})),
    (
        "max_retries = 3\nsuccess_exit_code = 2",
        spec(lifecycle={"maxRetries": 3, "successExitCodes": [2]}),
    ),
    ("concurrency_limits = sw_a:2, sw_b", ext(concurrency_limits=["sw_a:2", "sw_b"])),
    ("accounting_group = group_physics.alice", spec(schedule={"account": "group_physics.alice"})),
    ("batch_name = sweep", {"metadata": {"name": "sweep"}}),
    ('batch_name = "my sweep"', {"metadata": {"name": "my sweep"}}),
    # one pair of quotes comes off, and nothing else (submit_utils.cpp f_strip_quotes)
    ('batch_name = ""quoted""', {"metadata": {"name": '"quoted"'}}),
    ('batch_name = "a\\"b"', {"metadata": {"name": 'a\\"b'}}),
    ('batch_name = "half', {"metadata": {"name": '"half'}}),
    # `$$` not opening `$$(attr)` is text (HTCondor fills in `$$(…)` alone)
    ("output = cost$$.log", spec(output={"stdout": "cost$$.log"})),
    (
        "universe = container\ncontainer_image = img.sif",
        spec(execution={"container": {"image": "img.sif"}}),
    ),
    ("docker_image = ubuntu:22.04", spec(execution={"container": {"image": "ubuntu:22.04"}})),
    ("max_materialize = 5\nqueue 100", spec(array={"indices": "0-99", "maxConcurrent": 5})),
    ("max_idle = 10", ext(max_idle=10)),
    ("universe = parallel\nmachine_count = 4", spec(resources={"nodes": 4, "tasksPerNode": 1})),
    ("deferral_time = 1767225600", spec(schedule={"beginAfter": "2026-01-01T00:00:00Z"})),
    (
        "should_transfer_files = YES\ntransfer_input_files = data/, params.json\n"
        'transfer_output_files = out.dat\ntransfer_output_remaps = "out.dat = results/o.dat"',
        spec(
            fileStaging={
                "transferPolicy": "always",
                "inputs": [
                    {"src": "data/", "dst": "."},
                    {"src": "params.json", "dst": "params.json"},
                ],
                "outputs": [{"src": "out.dat", "dst": "results/o.dat"}],
            },
        ),
    ),
    # a remap of a file not in `transfer_output_files` has no output to be the destination of
    (
        'transfer_output_files = a\ntransfer_output_remaps = "a = b; c = d"',
        spec(
            fileStaging={"outputs": [{"src": "a", "dst": "b"}]},
            extensions={"htcondor": {"transfer_output_remaps": {"c": "d"}}},
        ),
    ),
    (
        "retry_request_memory = 8G, 16G\nretry_request_disk = 1024\nperiodic_hold_subcode = 42\n"
        "encrypt_input_files = a, b",
        ext(
            retry_request_memory=["8Gi", "16Gi"],
            retry_request_disk=["1Mi"],
            periodic_hold_subcode=42,
            encrypt_input_files=["a", "b"],
        ),
    ),
    # ClassAd-valued commands stay verbatim
    (
        'requirements = (OpSysAndVer == "AlmaLinux9")\nrank = Memory',
        ext(requirements='(OpSysAndVer == "AlmaLinux9")', rank="Memory"),
    ),
    ("periodic_remove = JobStatus == 5", ext(periodic_remove="JobStatus == 5")),
    ("PeriodicRelease = NumJobStarts < 5", ext(periodic_release="NumJobStarts < 5")),
    # +Attr and MY.Attr, spelled as written (pitfall 43)
    ('+ProjectName = "proj42"', spec(schedule={"project": "proj42"})),
    (
        '+WantGPULab = true\nMY.Flavor = "short"',
        ext(attributes={"+WantGPULab": "true", "MY.Flavor": '"short"'}),
    ),
    # commands without a field are kept
    (
        "when_to_transfer_output = ON_EXIT_OR_EVICT",
        ext(commands={"when_to_transfer_output": "ON_EXIT_OR_EVICT"}),
    ),
    # case-insensitive names, tab separators, continuation lines
    ("Request_CPUs\t=\t3", spec(resources={"cpusPerTask": 3})),
    ("arguments = a \\\n  b", spec(execution={"arguments": "a b"})),
    ("arguments = a\\\n  b", spec(execution={"arguments": "ab"})),
    # macros: late binding, defaults, self reference, $(DOLLAR), $F functions
    ("m = 4\nrequest_cpus = $(m)\nm = 8", spec(resources={"cpusPerTask": 8})),
    ("request_memory = $(mem:6GB)", spec(resources={"memoryPerTask": "6Gi"})),
    ("a = x\na = $(a) y\narguments = $(a)", spec(execution={"arguments": "x y"})),
    # a function that refers to its own macro is left as written (no endless expansion)
    ("x = $INT(x)\narguments = $(x)", spec(execution={"arguments": "'$INT(x)'"})),
    ("arguments = $(DOLLAR)HOME", spec(execution={"arguments": "'$HOME'"})),
    (
        "f = /a/b/c.dat\narguments = $Fnx(f) $Fn(/a/b/c.dat)",
        spec(execution={"arguments": "c.dat c"}),
    ),
    ("n = 6\nrequest_cpus = $INT(n)", spec(resources={"cpusPerTask": 6})),
    (
        "r = 2.5\narguments = $INT(r) $REAL(r) $INT(r,%03d) $REAL(r,%.2f)",
        spec(execution={"arguments": "2 2.5 002 2.50"}),
    ),
    (
        "s = abcdef\narguments = $SUBSTR(s, 1, 3) $SUBSTR(s, -2)",
        spec(execution={"arguments": "bcd ef"}),
    ),
    ("arguments = $CHOICE(1, a, b, c)", spec(execution={"arguments": "b"})),
    # no getenv: the job starts with an empty environment (pitfall 35)
    ("request_cpus = 1", spec(execution={"environment": {"inheritFromSubmitter": False}})),
    # conditionals decided by the file
    (
        "if defined X\nrequest_cpus = 2\nelse\nrequest_cpus = 3\nendif",
        spec(resources={"cpusPerTask": 3}),
    ),
    (
        "X = 1\nif defined X\nrequest_cpus = 2\nelse\nrequest_cpus = 3\nendif",
        spec(resources={"cpusPerTask": 2}),
    ),
    (
        "if false\nrequest_cpus = 2\nelif true\nrequest_cpus = 5\nendif",
        spec(resources={"cpusPerTask": 5}),
    ),
    # a block only the submitting machine decides is read as false, and kept as written
    (
        "if $(USE_GPU)\n  request_gpus = 1\nelse\n  request_cpus = 2\nendif",
        spec(
            resources={"cpusPerTask": 2},
            extensions={
                "htcondor": {
                    "verbatim": [
                        "if $(USE_GPU)\n  request_gpus = 1\nelse\n  request_cpus = 2\nendif"
                    ]
                }
            },
        ),
    ),
    ("include : common.sub", ext(verbatim=["include : common.sub"])),
    # a count no array can carry is kept with the statement
    ("queue 3 x from items.txt", ext(queue={"count": "3", "source": "items.txt"})),
    # multi-line values
    ("arguments @=END\n-a\n-b\n@END", spec(execution={"arguments": "-a -b"})),
    # queue forms: arrays are 0-based (pitfall 24)
    ("queue 1", spec()),
    ("queue 10", spec(array={"indices": "0-9"})),
    (
        "queue 2 input in (a.dat, b.dat c.dat)",
        spec(
            array={"indices": "0-5"},
            extensions={
                "htcondor": {
                    "queue": {"vars": ["input"], "mode": "in", "items": ["a.dat", "b.dat", "c.dat"]}
                }
            },
        ),
    ),
    (
        "queue in a, b",
        spec(
            array={"indices": "0-1"},
            extensions={"htcondor": {"queue": {"vars": ["Item"], "items": ["a", "b"]}}},
        ),
    ),
    (
        "queue x, y from (\n  1, -a -b\n# skipped\n  2, -c\n)",
        spec(
            array={"indices": "0-1"},
            extensions={
                "htcondor": {
                    "queue": {"vars": ["x", "y"], "mode": "from", "items": ["1, -a -b", "2, -c"]}
                }
            },
        ),
    ),
    (
        "queue matching files *.dat",
        ext(queue={"vars": ["Item"], "mode": "matching", "qualifier": "files", "items": ["*.dat"]}),
    ),
    ("queue item in [1:3] (a b c d)", ext(queue={"slice": "1:3", "items": ["a", "b", "c", "d"]})),
    # bammmc's own spelling of an array that does not count from 0 reads back as that array
    (
        "bammmc_array_index = $(Process) * 2 + 1\narguments = -i $INT(bammmc_array_index)\nqueue 5",
        spec(array={"indices": "1-9:2"}, execution={"arguments": '-i "${BAMMM_ARRAY_INDEX}"'}),
    ),
    ("queue bammmc_array_index in (1, 3, 7)", spec(array={"indices": "1,3,7"})),
    (
        "bammmc_array_index = $(Process) * $(bammmc_array_step) + $(bammmc_array_base)\n"
        "bammmc_array_step = 1\nbammmc_array_base = 1\nqueue 3\n"
        "bammmc_array_step = 5\nbammmc_array_base = 5\nqueue 2",
        spec(array={"indices": "1-3,20-25:5"}),
    ),
    # ... and so do they when clusters of their own follow the array (the writer writes
    # `extensions.htcondor.clusters` after it); a cluster does not move the step or the base
    (
        "output = o_$(bammmc_array_index)\nqueue bammmc_array_index in (1, 3, 7)\n"
        "arguments = 2\nqueue 3",
        spec(
            array={"indices": "1,3,7"},
            output={"stdout": "o_{array_index}"},
            extensions={"htcondor": {"clusters": [{"commands": {"arguments": "2"}, "queue": "3"}]}},
        ),
    ),
    # `output` and `error` naming one file by the writer's index: stderr merged into stdout
    (
        "output = o_$INT(bammmc_array_index)\nerror = o_$INT(bammmc_array_index)\n"
        "queue bammmc_array_index in (1, 3, 7)",
        spec(
            array={"indices": "1,3,7"},
            output={"stdout": "o_{array_index}", "stderr": "o_{array_index}", "mergeStderr": True},
        ),
    ),
    (
        "bammmc_array_index = $(Process) * 2 + 1\nqueue 5\narguments = 2\nqueue 2",
        spec(
            array={"indices": "1-9:2"},
            extensions={"htcondor": {"clusters": [{"commands": {"arguments": "2"}, "queue": "2"}]}},
        ),
    ),
    (
        "bammmc_array_index = $(Process) * $(bammmc_array_step) + $(bammmc_array_base)\n"
        "bammmc_array_step = 1\nbammmc_array_base = 1\nqueue 3\n"
        "bammmc_array_step = 5\nbammmc_array_base = 5\nqueue 2\narguments = 2\nqueue 4",
        spec(
            array={"indices": "1-3,20-25:5"},
            extensions={"htcondor": {"clusters": [{"commands": {"arguments": "2"}, "queue": "4"}]}},
        ),
    ),
    # a macro that only a `$INT()` left in the text uses is kept for it
    ("n = $(Process) + 1\narguments = $INT(n)\nqueue 2", ext(macros={"n": "$(Process) + 1"})),
    # later queue statements are clusters of their own
    (
        "arguments = 1\nqueue\narguments = 2\nqueue 3",
        spec(
            execution={"arguments": "1"},
            extensions={"htcondor": {"clusters": [{"commands": {"arguments": "2"}, "queue": "3"}]}},
        ),
    ),
]


@pytest.mark.parametrize(("text", "expected"), READ, ids=[r[0].splitlines()[0] for r in READ])
def test_read(text: str, expected: dict[str, Any]) -> None:
    body = EXE + text + ("" if "queue" in text.lower() else "\nqueue")
    job, diags = read(body + "\n")
    assert [d for d in diags if d.is_error] == []
    subset(expected, job)


DIAGNOSE = [
    ("{{template}} = 3\nqueue", "E020", 2, 1),
    ("x y z\nqueue", "E020", 2, 2),
    # htcondor2 joins a comment line to a continued line: the next line then stands alone
    ("arguments = a \\\n# a comment\n  b\nqueue", "E020", 4, 3),
    ("if defined X\nqueue", "E020", 2, 1),
    ("endif\nqueue", "E020", 2, 1),
    ("queue 3 frm (a b)", "E020", 2, 13),
    ("arguments @=END\n-a\nqueue", "E020", 2, 1),
    ("error : stop here\nqueue", "E023", 2, 1),
    ("include : other.sub\nqueue", "W421", 2, 1),
    ("queue x from items.txt", "W421", 2, 1),
    ("queue from seq 1 10 |", "W421", 2, 1),
    ("if $(GPU)\nrequest_gpus = 1\nendif\nqueue", "W422", 2, 1),
    ("if version >= 9.0\nendif\nqueue", "W422", 2, 1),
    ("arguments = $(datafile)\nqueue", "W423", 2, 13),
    ("arguments = $ENV(HOME)\nqueue", "W423", 2, 13),
    ("request_cpus = 1", "W424", None, None),
    ("queue 0", "W424", 2, 1),
    ("reqest_memory = 4G\nqueue", "W425", 2, 1),
    ("universe = bogus\nqueue", "E134", 2, 12),
    ("hold = maybe\nqueue", "E134", 2, 8),
    ("notification = sometimes\nqueue", "E134", 2, 16),
    ("max_retries = -1\nqueue", "E134", 2, 15),
    ('environment = "A=1 B"\nqueue', "E134", 2, 15),
    ("stdin = a\ninput = b\nqueue", "W407", 2, 1),
    ("queue 99999999999999999999999", "E134", 2, 1),
    ("queue -3", "E020", 2, 1),
    ("deferral_time = 99999999999999999999\nqueue", "E134", 2, 17),
    ("request_memry = 4G\nqueue", "W425", 2, 1),
]


@pytest.mark.parametrize(
    ("text", "code", "line", "column"), DIAGNOSE, ids=[r[0].splitlines()[0] for r in DIAGNOSE]
)
def test_diagnose(text: str, code: str, line: int | None, column: int | None) -> None:
    _, diags = read(EXE + text + "\n")
    found = [d for d in diags if d.code == code]
    assert found, [(d.code, d.message) for d in diags]
    if line is not None:
        assert found[0].span is not None
        assert (found[0].span.line, found[0].span.column) == (line, column), found[0]
    assert found[0].help


@pytest.mark.parametrize(
    ("text", "program"),
    [
        # a file in the submit directory (htcondor.md §3), run from the job's directory
        ("executable = run.sh", "./run.sh"),
        ("executable = ./run.sh", "./run.sh"),
        ("executable = bin/run.sh", "bin/run.sh"),
        ("executable = /bin/echo", "/bin/echo"),
        # relative to the submit directory, not to `initialdir`
        ("executable = run.sh\ninitialdir = data/a", "../../run.sh"),
        ("executable = bin/x\ninitialdir = ./data/", "../bin/x"),
        # the writer's form of a command found on PATH
        (
            "executable = /usr/bin/env\narguments = hostname -s\ntransfer_executable = False",
            "hostname",
        ),
        (
            "executable = /usr/bin/env\narguments = -i x\ntransfer_executable = False",
            "/usr/bin/env",
        ),
    ],
)
def test_executable_is_a_submit_directory_path(text: str, program: str) -> None:
    job, diags = read(text + "\nqueue\n")
    assert job is not None, diags
    assert job["spec"]["execution"]["executable"] == program
    assert not [d for d in diags if d.code == "W301"]


def test_executable_beside_an_absolute_initialdir_is_reported() -> None:
    _, diags = read("executable = run.sh\ninitialdir = /scratch/run\nqueue\n")
    found = [d for d in diags if d.code == "W301"]
    assert len(found) == 1 and found[0].span is not None, diags
    assert (found[0].span.line, found[0].span.column) == (1, 14)
    assert "relative to the submit directory" in found[0].message


@pytest.mark.parametrize(
    ("execution", "lines"),
    [
        ({"executable": "./run.sh"}, ["executable = run.sh"]),
        ({"executable": "../run.sh", "workingDir": "data"}, ["executable = run.sh"]),
        (
            {"executable": "hostname", "arguments": "-s"},
            [
                "executable = /usr/bin/env",
                'arguments = "hostname -s"',
                "transfer_executable = False",
            ],
        ),
        ({"executable": "/bin/echo"}, ["executable = /bin/echo"]),
    ],
)
def test_the_writer_names_the_program_from_the_submit_directory(
    execution: dict[str, str], lines: list[str]
) -> None:
    job, _ = bammmc.parse(
        json.dumps(
            {"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": {"execution": execution}}
        ),
        "splat",
    )
    assert job is not None
    out, _ = bammmc.emit(job, "htcondor")
    assert out is not None and set(lines) <= set(out.splitlines()), out
    again, _ = bammmc.parse(out, "htcondor")
    assert again is not None and again.spec is not None and again.spec.execution is not None
    assert again.spec.execution.executable == execution["executable"]


def test_no_executable_is_an_error() -> None:
    _, diags = read("request_cpus = 1\nqueue\n")
    assert [d.code for d in diags if d.is_error] == ["E103"]


def test_broken_requirements_is_located() -> None:
    _, diags = read(EXE + "requirements = (Memory > \nqueue\n")
    errors = [d for d in diags if d.code == "E021"]
    assert errors and errors[0].span is not None and errors[0].span.line == 2


def test_inactive_branch_is_not_read() -> None:
    """A broken line in a branch not taken is not an error: condor_submit skips it too."""
    _, diags = read(EXE + "if false\n{{x}}\nendif\nqueue\n")
    assert not [d for d in diags if d.is_error]


def test_queue_snapshot_is_late_binding() -> None:
    submit = scan(EXE + "a = 1\nqueue\na = 2\nqueue\n", Reporter("job.sub"))
    values = [Macros(q.commands).expand("$(a)").text for q in submit.queues]
    assert values == ["1", "2"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("-a -b 26", ["-a", "-b", "26"]),
        ("\"one 'two with spaces' 3\"", ["one", "two with spaces", "3"]),
        (
            "\"one \"\"two\"\" 'spacey ''quoted'' argument'\"",
            ["one", '"two"', "spacey 'quoted' argument"],
        ),
        ('a\\"b c', ['a"b', "c"]),
        ('""', []),
        ("\"''\"", [""]),
    ],
)
def test_arguments(value: str, expected: list[str]) -> None:
    assert parse_arguments(value) == expected


def test_shell_arguments_never_inject() -> None:
    assert shell_arguments(["$(whoami)", "; rm -rf /", "`x`"]) == "'$(whoami)' '; rm -rf /' '`x`'"


@pytest.mark.parametrize(
    ("text", "base", "expected"),
    [
        ("1", 1024**2, 1024**2),
        ("1k", 1024**2, 1024**2),  # rounded up to the base unit
        ("2.5G", 1024**2, 2560 * 1024**2),
        ("100", 1024, 102400),
        ("3 MB", 1024, 3 * 1024**2),
        ("1P", 1024, None),  # no P unit
        ("x", 1024, None),
    ],
)
def test_quantity(text: str, base: int, expected: int | None) -> None:
    assert quantity(text, base) == expected


def test_split_row() -> None:
    assert split_row("a b c", 2) == ["a", "b c"]
    assert split_row("a, b, c", 3) == ["a", "b", "c"]


def test_sniff_and_extensions() -> None:
    from bammmc.registry import by_extension, detect

    assert by_extension("x.sub") is not None and by_extension("x.sub").name == "htcondor"  # type: ignore[union-attr]
    fmt = detect(None, "Executable = a\nQueue 3\n", Reporter(None))
    assert fmt is not None and fmt.name == "htcondor"


def test_kept_block_round_trips() -> None:
    """An `if` block on a submit-time macro is written back as it was, before `queue`."""
    text = EXE + "if $(USE_GPU)\n  request_gpus = 1\nendif\nqueue 2\n"
    out, _ = bammmc.convert(text, "htcondor", "htcondor")
    assert out is not None and out.endswith("if $(USE_GPU)\n  request_gpus = 1\nendif\nqueue 2\n")
    again, _ = bammmc.parse(out, "htcondor")
    assert again == bammmc.parse(text, "htcondor")[0]


def test_macro_bomb_is_refused_quickly() -> None:
    """40 macros each doubling the next would expand to 2**40 characters: E006, located."""
    lines = [f"m{i} = $(m{i + 1})$(m{i + 1})" for i in range(40)]
    text = EXE + "\n".join(lines) + "\nm40 = x\narguments = $(m0)\nqueue\n"
    job, diags = read(text)
    assert job is None
    errors = [d for d in diags if d.code == "E006"]
    assert errors and errors[0].span is not None and errors[0].span.line > 1
