"""No injection, for every registered format that reads and writes.

Two properties:

* :func:`test_every_string_field` — every string-valued leaf of the IR, listed from the IR
  types (tests/property/injection_fields.py: str fields, list items, map keys and values,
  templates, the extensions' strings), gets adversarial values for every target: the target's
  own directive behind a line break, a `\\r`, quotes, backslashes, `$(…)`, a backquote, `;`,
  `#`, NUL, a very long and a non-ASCII value. The writer either refuses (errors only, nothing
  written) or writes text that our own reader reads back with exactly the fields the same job
  with a plain value gets: no field more (no walltime, array, second cluster, unknown option).
  Text our reader refuses (it takes what the scheduler takes) is a failure too: a writer
  refuses a value it cannot write readably. A new string field is covered without touching
  this file; so is a string one level down in a free-form map (a map or a list in it).
* :func:`test_no_value_becomes_a_directive` — generated combinations of line breaks and every
  scheduler's walltime/array directive in the fields users write most.

HTCondor's own parser checks the submit files (tests/property/test_htcondor_injection.py);
Slurm's own `sbatch` checks a sample of the scripts (:func:`test_sbatch_reads_no_injected_option`),
Flux's own directive parser the batch scripts (:func:`test_flux_reads_no_injected_directive`).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.ir.job import Job
from bammmc.ir.paths import related, schema_path, set_leaves
from bammmc.ir.values import Value
from bammmc.registry import FORMATS
from tests.property.injection_fields import Leaf, display, document, string_leaves

TARGETS = sorted(f for f in FORMATS if f != "splat")

#: a line each target would read as a directive setting a walltime (and more)
LINE = {
    "slurm": "#SBATCH --time=99:00:00 --array=1-9",
    "pbs": "#PBS -l walltime=99:00:00 -J 1-9",
    "torque": "#PBS -l walltime=99:00:00 -t 1-9",
    "lsf": "#BSUB -W 99:00 -J x[1-9]",
    "sge": "#$ -l h_rt=99:00:00 -t 1-9",
    "flux-batch": "#flux: -t 99h",
    "htcondor": "allowed_job_duration = 356400\nqueue 9",
    "flux": "attributes: {system: {duration: 9}}",
}
#: adversarial values; `{line}` is the target's directive. The first is tried in every leaf
#: for every target, the others in turn (two more per leaf: each goes into about 40 leaves
#: per target), which keeps the test at a few seconds per target.
PAYLOADS = [
    "x\n{line}",
    "x\r{line}",
    "x\r\n{line}",
    "x\n {line}",
    "x\\\n{line}",
    "x' \n{line}\n'",
    'x" \n{line}\n"',
    "x; {line}",
    "x # {line}",
    "$(touch /tmp/bammmc-injected)\n{line}",
    "`touch /tmp/bammmc-injected`",
    "a\\b\\\\c'd\"e",
    "x\x00{line}",
    "x\u2028{line}\u0085{line}",
    "ünïcödé ☃ {line}",
    "{line}",
    "x" * 5000 + "\n{line}",
    "x\n\n{line}\n",
]
#: fields the payloads' directives set (a walltime, an array, another HTCondor cluster)
SENTINELS = frozenset(
    {
        "spec.schedule.walltime",
        "spec.array.indices",
        "spec.extensions.htcondor.clusters[].queue",
        "spec.extensions.htcondor.clusters[].commands",
    }
)
#: the leaves that are a job script's text
SCRIPTS = frozenset(
    {
        "spec.execution.script",
        "spec.tasks[].execution.script",
        "spec.extensions.slurm.het_components[].execution.script",
    }
)
#: the reference value of a leaf: a plain one, which every target can carry
PLAIN = "plain1"
#: leaves that take only a checked form (the IR refuses anything else), and the remote side of
#: a staged file, which PBS stages from `host:path` only
PLAIN_FOR = {
    "spec.fileStaging.embeddedFiles[].permissions": "0644",
    "spec.fileStaging.inputs[].src": "host:plain1",
    "spec.fileStaging.outputs[].dst": "host:plain1",
}


@functools.cache
def _read(leaf: Leaf, value: str) -> tuple[Job | None, bool]:
    """The job of the SPLAT document setting ``leaf`` to ``value``, read by the SPLAT reader;
    None when the IR refuses the value. And whether the document has a script: it has one,
    unless the leaf is what the job runs instead (a program, a container's command: written
    into the script's `exec` line) or cannot go with one."""
    runs = leaf[-1] in ("executable", "arguments") or (
        "container" in leaf and leaf[-2:-1] in (("command",), ("args",), ("container",))
    )
    for script in (False, True) if runs else (True, False):
        text = json.dumps(document(leaf, value, script=script))
        job, diagnostics = bammmc.parse(text, "splat")
        if job is not None and not any(d.is_error for d in diagnostics):
            return job, script
    return None, True


def _job(leaf: Leaf, template: str, target: str) -> Job | None:
    """The job with ``leaf`` set to ``template`` filled with the target's line. The SPLAT
    reader decides once per template (with Slurm's line: what it refuses is a character, a
    form, not a directive) whether the IR takes the value; the job itself is then built
    directly from the document, which is what the reader would build, in a fraction of the
    time."""
    accepted, script = _read(leaf, _fill(leaf, template, "slurm"))
    if accepted is None:
        return None
    value = _fill(leaf, template, target)
    return msgspec.convert(document(leaf, value, script=script), Job, dec_hook=_typed)


def _typed(t: type, obj: Any) -> Any:
    if isinstance(t, type) and issubclass(t, Value):
        return t.parse(obj)
    raise NotImplementedError(t)


def _fill(leaf: Leaf, template: str, target: str) -> str:
    value = template.replace("{line}", LINE[target])
    if display(leaf).startswith("spec.output."):  # a template: braces are its variables
        value = value.replace("{", "{{").replace("}", "}}")
    return value


def _fields(job: Job, value: str) -> set[str]:
    """The schema paths a job sets, map entries by key (the key ``value``, a leaf's own, as
    the plain key: a map key is compared by where it is, not by its text)."""
    out = set()
    for path, got in set_leaves(job):
        out.add(schema_path(path))
        if isinstance(got, dict):
            out.update(f"{schema_path(path)}.{PLAIN if key == value else key}" for key in got)
    return out


def _round_trip(
    job: Job, target: str, value: str, leaf: Leaf | None = None
) -> tuple[str | None, set[str] | None, str, bool]:
    """Write ``job`` as ``target`` and read it back: (what is wrong — an injection, text our
    reader refuses — or None, the fields read back — None when the writer refused —, the
    written text, whether a warning about the leaf says what changed)."""
    files, diagnostics = bammmc.emit_files(job, target)
    if files is None or any(d.is_error for d in diagnostics):
        return None, None, "", False  # refused: nothing written
    main = files[0][1]
    reported = leaf is not None and any(
        d.field and related(_field_of(leaf), schema_path(d.field)) for d in diagnostics
    )
    again, back = bammmc.parse(main, target, filename="out")
    if again is None:
        # the target refuses what was written (our reader, which takes what the scheduler
        # takes, says why): a writer refuses a value rather than write what cannot be read
        codes = sorted({d.code for d in back if d.is_error})
        return f"written, but our reader refuses it ({', '.join(codes)})", None, main, reported
    return None, _fields(again, value), main, reported


def _field_of(leaf: Leaf) -> str:
    """The field a leaf's value is in: `spec.execution.environment.vars` for a key or value of
    the map, `spec.tasks[].name` for itself."""
    path = display(leaf)
    while path.endswith(("{k}", "{v}", "[]")):
        path = path[:-3] if path.endswith(("{k}", "{v}")) else path[:-2]
    return path


@functools.cache
def _reference(leaf: Leaf, target: str) -> tuple[str | None, set[str] | None]:
    """Why the plain value's job is written wrong (None when it is not), and the fields it
    reads back with."""
    plain = PLAIN_FOR.get(display(leaf), PLAIN)
    job = _read(leaf, plain)[0]
    if job is None:
        return None, None
    failure, fields, text, _ = _round_trip(job, target, plain)
    return (f"{failure}\n{text[:400]}" if failure else None), fields


def test_every_string_leaf_is_listed() -> None:
    """The list comes from the IR types: it has the fields every kind of string lives in."""
    names = {display(leaf) for leaf in string_leaves()}
    for name in (
        "metadata.name",
        "metadata.labels{k}",
        "metadata.labels{v}",
        "spec.output.stdout",  # a Template
        "spec.execution.container.args[]",  # list[str] items
        "spec.tasks[].execution.environment.vars{v}",  # inside a list of structs
        "spec.extensions.slurm.options{v}",
        "spec.extensions.htcondor.clusters[].commands{k}",
        "spec.extensions.flux.batch_options{v}[]",
        "spec.extensions.flux.user_attributes{v}",  # free-form data
        "spec.extensions.flux.user_attributes{v}{k}",  # … a map in it
        "spec.extensions.flux.user_attributes{v}{v}",
        "spec.extensions.flux.user_attributes{v}[]",  # … a list in it
        "spec.placement.tolerations[]{v}{v}",
    ):
        assert name in names, name
    # every leaf builds a document the IR reads with a plain value
    unreadable = [
        display(leaf)
        for leaf in string_leaves()
        if _read(leaf, PLAIN_FOR.get(display(leaf), PLAIN))[0] is None
    ]
    assert not unreadable, unreadable


@pytest.mark.parametrize("target", TARGETS)
def test_every_string_field(target: str) -> None:
    leaves = string_leaves()
    failures: list[str] = []
    for n, leaf in enumerate(leaves):
        wrong, reference = _reference(leaf, target)
        if wrong:
            failures.append(f"{display(leaf)} = {PLAIN!r}: {wrong}")
        others = len(PAYLOADS) - 1
        for index in (0, 1 + (2 * n) % others, 1 + (2 * n + 1) % others):
            job = _job(leaf, PAYLOADS[index], target)
            if job is None:
                continue  # the IR refuses the value itself (NUL, a control character…)
            value = _fill(leaf, PAYLOADS[index], target)
            failure, fields, text, reported = _round_trip(job, target, value, leaf)
            where = f"{display(leaf)} = {value[:60]!r}"
            if failure:
                failures.append(f"{where}: {failure}\n{text[:400]}")
                continue
            if fields is None:
                continue  # refused: nothing written
            if reference is None:  # the target takes no plain value here: the payload's own
                reference = fields - SENTINELS  # directives must not show
            own = _field_of(leaf)
            # a warning about the leaf says its value changed (fields may differ), but never
            # lets the payload's directives (a walltime, an array, a cluster) through — except
            # in a script's own body, where the target reads them as the script asks (LSF and
            # Grid Engine read directive lines after commands; the writer says so, W301)
            if reported and display(leaf) in SCRIPTS:
                continue
            new = (fields & SENTINELS) - reference if reported else fields - reference
            extra = {f for f in new if not related(own, f)}
            if extra:
                failures.append(f"{where}: new fields {sorted(extra)}\n{text[:400]}")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:400])


SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=400,
    suppress_health_check=[HealthCheck.too_slow],
)

#: one line per scheduler that would set a walltime or an array if it became a directive
DIRECTIVES = [
    "#SBATCH --time=99:00:00 --array=1-9",
    "#PBS -l walltime=99:00:00 -J 1-9",
    "#BSUB -W 99:00 -J x[1-9]",
    "#$ -l h_rt=99:00:00 -t 1-9",
    "#flux: -t 99h",
    "allowed_job_duration = 356400",
    "queue 9",
    '"""',
    "spec:\n  schedule:\n    walltime: 99h",
]
GLUE = ["\n", "\r\n", "\r", "\n ", "\\\n", "' \n", '" \n', "; ", " # ", "\n\n", "\u2028", ""]
FIELDS = [
    "name",
    "queue",
    "account",
    "project",
    "stdout",
    "stderr",
    "workingDir",
    "email",
    "executable",
    "arguments",
    "env",
    "qos",
    "reservation",
    "partition",
    "constraint",
    "stdin",
    "image",
]


@st.composite
def jobs(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    value = "x" + draw(st.sampled_from(GLUE)) + draw(st.sampled_from(DIRECTIVES))
    field = draw(st.sampled_from(FIELDS))
    spec: dict[str, Any] = {"execution": {"script": "#!/bin/bash\necho hi\n"}}
    doc: dict[str, Any] = {"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": spec}
    if field == "name":
        doc["metadata"] = {"name": value}
    elif field in ("queue", "account", "project"):
        spec["schedule"] = {field: value}
    elif field in ("stdout", "stderr"):
        spec["output"] = {field: value.replace("{", "{{").replace("}", "}}")}
    elif field == "workingDir":
        spec["execution"]["workingDir"] = value
    elif field == "email":
        spec["notifications"] = {"email": value, "events": ["end"]}
    elif field in ("qos", "reservation", "partition"):
        spec["schedule"] = {field: value}
    elif field == "constraint":
        spec["placement"] = {"constraint": value}
    elif field == "stdin":
        spec["execution"]["stdin"] = value
    elif field == "image":
        spec["execution"]["container"] = {"image": value}
    elif field == "executable":
        spec["execution"] = {"executable": value}
    elif field == "arguments":
        spec["execution"] = {"executable": "/bin/app", "arguments": value}
    else:
        spec["execution"]["environment"] = {"vars": {"V": value}}
    return field, doc


@pytest.mark.parametrize("target", TARGETS)
def test_no_value_becomes_a_directive(target: str) -> None:
    @SETTINGS
    @given(jobs())
    def run(case: tuple[str, dict[str, Any]]) -> None:
        field, doc = case
        job, _ = bammmc.parse(json.dumps(doc), "splat")
        if job is None:
            return  # the IR refuses the value itself (a control character…)
        files, more = bammmc.emit_files(job, target)
        errors = {d.code for d in more if d.is_error}
        if files is None or errors:
            assert errors <= {"E140"}, more  # refused, nothing written
            return
        main = files[0][1]
        again, back = bammmc.parse(main, target, filename="out")
        if again is None:  # what we wrote must read back
            pytest.fail(f"{target} cannot read its own output ({field}): {back}\n{main}")
        spec = again.spec
        assert spec is None or spec.schedule is None or spec.schedule.walltime is None, main
        assert spec is None or spec.array is None, main
        ext = spec.extensions if spec is not None else None
        if ext is not None and ext.htcondor is not None:
            assert not ext.htcondor.clusters, main

    run()


def _splat(spec: dict[str, Any], **top: Any) -> Any:
    job, diags = bammmc.parse(
        json.dumps({"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": spec, **top}),
        "splat",
    )
    assert job is not None, diags
    return job


@pytest.mark.parametrize(
    ("target", "spec", "top", "code"),
    [
        # found by the property above: an argument string with a line break put a `#$ -l h_rt`
        # line into the Grid Engine script (qsub reads `#$` anywhere) — now E140 everywhere
        (
            "sge",
            {"execution": {"executable": "/bin/app", "arguments": "x\n#$ -l h_rt=99:00:00"}},
            {},
            "E140",
        ),
        (
            "slurm",
            {"execution": {"executable": "/bin/app", "arguments": "x\nrm -rf ~"}},
            {},
            "E140",
        ),
        # a value with a quote: qsub's -v list reads it as quoting
        ("pbs", {"execution": {"environment": {"vars": {"V": 'x"'}}}}, {}, "E140"),
        # an unclosed quote cannot be split into a Flux command (was a traceback)
        ("flux", {"execution": {"executable": "/bin/app", "arguments": "it's"}}, {}, "E140"),
        # found by test_every_string_field: an LSF option name that is no option wrote its own
        # `#BSUB -W` line (now W201, as Slurm's and Grid Engine's unknown options)
        (
            "lsf",
            {
                "execution": {"script": "#!/bin/bash\nrun\n"},
                "extensions": {"lsf": {"options": {"x\n#BSUB -W 99:00": "1"}}},
            },
            {},
            "W201",
        ),
        # a job name with brackets in `-w` is an array element (`done("x[1-9]")`): W201
        (
            "lsf",
            {
                "execution": {"script": "#!/bin/bash\nrun\n"},
                "dependencies": [{"scheme": "afterok", "value": "x[1-9]"}],
            },
            {},
            "W201",
        ),
        # qsub reads `#$` lines anywhere: a script line that changes the job is W301 …
        ("sge", {"execution": {"script": "x\n#$ -l h_rt=99:00:00\n"}}, {}, "W301"),
        # … and an executable with a line break, which would put one in the script, E140
        ("sge", {"execution": {"executable": "x\n#$ -l h_rt=99:00:00"}}, {}, "E140"),
        ("lsf", {"execution": {"executable": "x\n#BSUB -W 99:00"}}, {}, "E140"),
        ("pbs", {"execution": {"container": {"image": "i", "command": ["a\nb"]}}}, {}, "E140"),
        # a NUL character: no scheduler's file carries one
        (
            "slurm",
            {"execution": {"script": "#!/bin/bash\nrun\n", "workingDir": "a\u0000b"}},
            {},
            "E140",
        ),
        ("htcondor", {"execution": {"executable": "/bin/a", "arguments": "a\u0000b"}}, {}, "E140"),
        # a Flux `--env` rule reads the name up to the first `=`
        (
            "flux-batch",
            {"execution": {"script": "#!/bin/sh\nrun\n", "environment": {"vars": {"A=B": "1"}}}},
            {},
            "E140",
        ),
        # found by running every payload in every leaf: Slurm strips the backslashes of a file
        # name (fname.c), PBS reads `-o host:path`, and qsub reads `#PBS` lines in front of the
        # script's first command
        (
            "slurm",
            {"execution": {"script": "#!/bin/sh\nrun\n"}, "output": {"stdout": "a\\b"}},
            {},
            "E140",
        ),
        ("slurm", {"execution": {"script": "#!/bin/sh\nrun\n", "stdin": "a\\b"}}, {}, "E140"),
        (
            "pbs",
            {"execution": {"script": "#!/bin/sh\nrun\n"}, "output": {"stderr": "x:y"}},
            {},
            "E140",
        ),
        ("torque", {"execution": {"script": "#PBS -l walltime=99:00:00\nrun\n"}}, {}, "W301"),
        ("pbs", {"execution": {"script": "#!/bin/sh\n  #PBS -J 1-9\nrun\n"}}, {}, "W301"),
        (
            "pbs",
            {
                "execution": {"script": "#!/bin/sh\nrun\n"},
                "fileStaging": {"inputs": [{"src": "h:/a,b", "dst": "c"}]},
            },
            {},
            "E140",
        ),
        # Flux reads the script with universal newlines: a `\r` starts a line (Flux's own
        # directive parser found it)
        ("flux-batch", {"execution": {"script": "#!/bin/sh\nx\r#flux: -t 99h"}}, {}, "E140"),
        # a name `x[1-9]` is an LSF array: written with the brackets replaced (W301)
        (
            "lsf",
            {"execution": {"script": "#!/bin/bash\nrun\n"}},
            {"metadata": {"name": "x[1-9]"}},
            "W301",
        ),
    ],
)
def test_injections_found(
    target: str, spec: dict[str, Any], top: dict[str, Any], code: str
) -> None:
    files, diags = bammmc.emit_files(_splat(spec, **top), target)
    assert code in {d.code for d in diags}, diags
    assert (files is None) == (code[0] == "E")  # an error gives no text (issue #18)
    if code == "W301" and target in ("pbs", "torque"):  # the `#PBS` lines are not read
        assert files is not None
        again, _ = bammmc.parse(files[0][1], target)
        assert again is not None and again.spec is not None
        assert again.spec.array is None and again.spec.schedule is None
    elif code == "W301":
        assert files is not None
        again, _ = bammmc.parse(files[0][1], target)
        assert again is not None and again.spec is not None and again.spec.array is None


@pytest.mark.parametrize("target", ["slurm", "pbs", "lsf", "sge", "flux-batch"])
def test_image_with_a_line_break_is_refused(target: str) -> None:
    job = _splat(
        {"execution": {"script": "#!/bin/bash\nrun\n", "container": {"image": "x\n#SBATCH -t 9"}}}
    )
    _, diags = bammmc.emit_files(job, target)
    assert ("E140", "spec.execution.container.image") in {(d.code, d.field) for d in diags}


def _written(leaf: Leaf, template: str, target: str) -> str | None:
    """The main file of the job with ``leaf`` set to ``template`` (the plain value when
    ``template`` is None), or None when the IR or the writer refuses it."""
    job = _job(leaf, template, target)
    if job is None:
        return None
    files, diagnostics = bammmc.emit_files(job, target)
    if files is None or any(d.is_error for d in diagnostics):
        return None
    return files[0][1]


def _sample(step: int) -> list[tuple[Leaf, str]]:
    """Every ``step``-th string leaf with a payload (in turn), for the oracles."""
    leaves = string_leaves()
    return [
        (leaf, PAYLOADS[(n // step) % len(PAYLOADS)])
        for n, leaf in enumerate(leaves)
        if not n % step
    ]


@pytest.mark.oracle
def test_sbatch_reads_no_injected_option(sbatch_check: Any, tmp_path: Any) -> None:
    """Slurm's own reading (`sbatch -v --test-only`, ../shared/oracles/slurm/sbatch-inspect)
    of a sample of the scripts above: the options sbatch defines for the payload are those it
    defines for the plain value, in as many components — no option, no hetjob more."""
    import os
    import subprocess
    import sys

    from tests.conftest import ORACLES, _start_slurm

    env = _start_slurm()
    assert not isinstance(env, str), env  # sbatch_check has started it (or skipped)

    def options(text: str, name: str) -> list[set[str]]:
        script = tmp_path / f"{name}.sbatch"
        script.write_text(text)
        proc = subprocess.run(
            [sys.executable, str(ORACLES / "slurm" / "sbatch-inspect"), str(script)],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=120,
            check=False,
        )
        if proc.returncode == 3:
            pytest.skip("the Slurm oracle is not reachable: " + proc.stderr.strip())
        data = json.loads(proc.stdout)
        # the wrapper splits sbatch's `-v` listing with str.splitlines(), which also breaks a
        # value at `\x85` and `\u2028` (sbatch itself splits the script at `\n` only): such a
        # piece of a value is no option name
        return [
            {k for k in component if re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", k)}
            for component in data["components"]
        ]

    checked = 0
    failures = []
    for n, (leaf, template) in enumerate(_sample(8)):
        written = _written(leaf, template, "slurm")
        plain = _written(leaf, PLAIN_FOR.get(display(leaf), PLAIN), "slurm")
        if written is None or plain is None:
            continue  # refused (E140 …): nothing reaches sbatch
        got, meant = options(written, f"p{n}"), options(plain, f"r{n}")
        checked += 1
        if len(got) != len(meant) or any(g - m for g, m in zip(got, meant, strict=True)):
            failures.append(f"{display(leaf)}: {got} vs {meant}\n{written[:300]}")
    assert checked >= 20, checked
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("target", ["flux", "splat"])
def test_yaml_line_breaks_are_escaped(target: str) -> None:
    """YAML folds `\x85`, `\u2028` and `\u2029` (line breaks to YAML) in plain and single-quoted
    scalars: found by test_every_string_field in a Flux shell option's name. Written
    double-quoted, they read back as they were."""
    value = "a\x85b\u2028c\u2029d"
    job = _splat(
        {
            "execution": {"script": "#!/bin/sh\nrun\n"},
            "extensions": {"flux": {"shell_options": {value: value}}},
        },
        metadata={"name": value},
    )
    files, diagnostics = bammmc.emit_files(job, target)
    assert files is not None
    assert not any(d.is_error for d in diagnostics), diagnostics
    again, _ = bammmc.parse(files[0][1], target)
    assert again is not None and again.spec is not None and again.spec.extensions is not None
    assert again.spec.extensions.flux is not None
    assert again.spec.extensions.flux.shell_options == {value: value}


def test_flux_reads_no_injected_directive(flux_batch_oracle: Any) -> None:
    """Flux's own directive parser (flux-python's `directives.py`, reading the file with
    universal newlines as `flux batch` does) on every string leaf's batch script, with two
    payloads each in turn: no option that the plain value's script lacks, no more words."""
    failures = []
    checked = 0
    for n, leaf in enumerate(string_leaves()):
        plain = _written(leaf, PLAIN_FOR.get(display(leaf), PLAIN), "flux-batch")
        if plain is None:
            continue
        ok, meant, error = flux_batch_oracle.parse(plain)
        assert ok, (display(leaf), error, plain)
        names = {a.split("=", 1)[0] for a in meant if a.startswith("-")}
        for template in (PAYLOADS[n % len(PAYLOADS)], PAYLOADS[(n + 7) % len(PAYLOADS)]):
            written = _written(leaf, template, "flux-batch")
            if written is None:
                continue  # refused (E140 …)
            ok, got, error = flux_batch_oracle.parse(written)
            checked += 1
            more = {a.split("=", 1)[0] for a in got if a.startswith("-")} - names
            if not ok or more or len(got) > len(meant):
                failures.append(f"{display(leaf)}: {error or sorted(more)}\n{written[:300]}")
    assert checked >= 300, checked
    assert not failures, "\n".join(failures[:10])
