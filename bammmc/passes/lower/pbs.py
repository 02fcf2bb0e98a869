"""Lowering for ``pbs`` and ``torque``: qsub option occurrences -> SPLAT IR, with a source map.

Chunks are the semantics (pbs.md §2): a single-shape `select=N:ncpus=C:mpiprocs=M:mem=X` is
N nodes × M tasks per node × C/M CPUs per task × X/M memory per task when the divisions are
exact; otherwise, and for several chunk shapes (`…+…`), the raw `select` is kept in
`extensions.pbs` and the first chunk feeds the portable fields — never a sum (pitfall 18).
Sizes default to bytes (pitfall 8), a bare walltime is seconds (pitfall 13), `cput` is CPU time
and stays apart from walltime (pitfall 16), `-p` is higher = more urgent (pitfall 36).
Torque: `nodes=N:ppn=M[:gpus=G][:feature]`, `procs`, `pmem`, `mem` per job, `-t`, `-d`.

Siblings: ``frontends/pbs.py``, ``backends/pbs.py``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from fractions import Fraction
from typing import Any, Final

import msgspec

from bammmc.backends.pbs import PBS_CHUNK_RESOURCES, pbs_job_ref
from bammmc.diagnostics.model import Reporter
from bammmc.facts.pbs import SIZE_MULTIPLIERS, default_path
from bammmc.frontends.pbs import PbsScript, parser
from bammmc.frontends.slurm import Occurrence
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.priority import DEFAULT_BAND, PriorityBand, from_native, to_native
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import Count, Cpu, DateTime, IndexSpec, Size, Template, is_digits
from bammmc.passes.lower.common import Invalid, duration, whole
from bammmc.passes.lower.slurm import _Builder, _keep_values

MAIL_EVENTS: Final = {"a": "fail", "b": "begin", "e": "end"}
#: PBS job names: letters, digits, `+ _ . -` (ck_job_name.c); Torque takes any graphic character
PBS_NAME_CHARS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-"
)
PORTABLE_DEPENDENCIES: Final = frozenset({"after", "afterok", "afternotok", "afterany"})
DEPENDENCY_TYPES: Final = frozenset(
    {
        *PORTABLE_DEPENDENCIES,
        "before",
        "beforeok",
        "beforenotok",
        "beforeany",
        "on",
        "runone",
        "synccount",
        "syncwith",
        "afterstartarray",
        "afterokarray",
        "afternotokarray",
        "afteranyarray",
        "beforestartarray",
        "beforeokarray",
        "beforenotokarray",
        "beforeanyarray",
    }
)


def lower(
    script: PbsScript, reporter: Reporter, band: PriorityBand = DEFAULT_BAND
) -> tuple[Job | None, SourceMap]:
    source_map = SourceMap()
    errors_before = sum(d.is_error for d in reporter.diagnostics)
    b = _Builder(reporter, "", source_map, band=band)
    b.data = {"apiVersion": API_VERSION, "kind": "Job"}
    torque = script.dialect == "torque"
    last: dict[str, Occurrence] = {}
    resources: list[tuple[str, str, Occurrence]] = []
    attributes: list[Occurrence] = []
    for occ in script.options:
        if occ.name == "l":
            resources += _resource_list(occ, reporter)
        elif occ.name == "W":
            # each `-W` attribute is an option of its own (qsub.c keeps one flag per
            # attribute: depend, stagein, group_list…): every `-W` line applies, and the
            # last one naming an attribute sets it
            attributes.append(occ)
            last.setdefault("W", occ)
        else:
            last[occ.name] = occ  # within the script, the last occurrence wins (qsub.c)
    for letter, occ in last.items():
        for each in attributes if letter == "W" else [occ]:
            try:
                _option(letter, each, b, torque)
            except Invalid:
                continue
    with contextlib.suppress(Invalid):
        _resources(resources, b, torque)
    _job_memory(b)
    if "j" not in last or (last["j"].value or "") == "n":
        # PBS writes stdout and stderr to separate files unless told to join them
        b.data.setdefault("spec", {}).setdefault("output", {})["mergeStderr"] = False
    _default_files(b, torque, (last["j"].value or "") if "j" in last else "n")
    if script.script:
        b.data.setdefault("spec", {}).setdefault("execution", {})["script"] = script.script
    if sum(d.is_error for d in reporter.diagnostics) > errors_before:
        return None, source_map
    job = msgspec.convert(b.data, Job, dec_hook=_keep_values)
    return job, source_map


def _ext(b: _Builder, key: str, value: Any, occ: Occurrence) -> None:
    b.set(f"spec.extensions.pbs.{key}", value, occ)


def _invalid(reporter: Reporter, occ: Occurrence, message: str, help: str) -> Invalid:
    reporter.report(
        "E134", message, occ.value_span or occ.span, notes=("qsub rejects the script",), help=help
    )
    return Invalid()


def _tree(
    start: str, text: str, occ: Occurrence, reporter: Reporter, what: str, example: str
) -> Any:
    from lark.exceptions import UnexpectedInput

    try:
        return parser(start).parse(text)
    except UnexpectedInput:
        raise _invalid(
            reporter, occ, f"`{text}` is not a valid {what}", f"write e.g. `{example}`"
        ) from None


def pbs_size_bytes(text: str, occ: Occurrence, reporter: Reporter) -> int:
    """Bytes of a PBS size: INT[k|m|g|t|p][b|w], default bytes, powers of 1024 (to_size)."""
    tree = _tree("pbs_size", text, occ, reporter, "size", "4gb")
    number = whole(str(tree.children[0]), occ, reporter)
    suffix = str(tree.children[1]).lower() if len(tree.children) > 1 else ""
    unit = 8 if suffix.endswith("w") else 1
    mult = SIZE_MULTIPLIERS[suffix.rstrip("bw")]
    return number * mult * unit


def pbs_seconds(text: str, occ: Occurrence, reporter: Reporter) -> int:
    """Seconds of a PBS duration: [[H:]M:]S[.frac], a bare number is seconds (decode_time)."""
    tree = _tree("pbs_duration", text, occ, reporter, "duration", "01:30:00")
    nums = [whole(str(t), occ, reporter) for t in tree.children if str(t)[:1] != "."]
    frac = [str(t) for t in tree.children if str(t)[:1] == "."]
    if len(nums) > 3:
        raise _invalid(reporter, occ, f"`{text}` has too many fields", "write `HH:MM:SS`")
    seconds = 0
    for n in nums:
        seconds = seconds * 60 + n
    if frac and float(frac[0]) >= 0.5:
        seconds += 1
    return seconds


def _resource_list(occ: Occurrence, reporter: Reporter) -> list[tuple[str, str, Occurrence]]:
    try:
        tree = _tree(
            "resources", occ.value or "", occ, reporter, "resource list", "walltime=1:00:00"
        )
    except Invalid:
        return []
    out = []
    for res in tree.children:
        name = str(res.children[0])
        if len(res.children) < 2:
            out.append((name, "true", occ))  # a boolean resource written bare
            continue
        value = "".join(
            str(t)[1:-1] if t.type in ("DQ", "SQ") else str(t) for t in res.children[1].children
        )
        out.append((name, value, occ))
    return out


def _option(letter: str, occ: Occurrence, b: _Builder, torque: bool) -> None:
    reporter = b.reporter
    value = occ.value or ""
    if letter == "N":
        bad = (
            [c for c in value if not (c.isprintable() and not c.isspace())]
            if torque
            else [c for c in value if c not in PBS_NAME_CHARS]
        )
        if bad or not value:
            allowed = "printable characters without spaces" if torque else "letters, digits, `+_.-`"
            raise _invalid(
                reporter,
                occ,
                f"job name `{value}` has characters qsub refuses: "
                + " ".join(f"`{c}`" for c in dict.fromkeys(bad)),
                f"use {allowed}",
            )
        b.set("metadata.name", value, occ)
    elif letter == "q":
        queue, _, server = value.partition("@")
        if queue:
            b.set("spec.schedule.queue", queue, occ)
        if server:
            _ext(b, "server", server, occ)
    elif letter == "A":
        b.set("spec.schedule.account", value, occ)
    elif letter == "P" and not torque:
        b.set("spec.schedule.project", value, occ)
    elif letter == "p":
        try:
            native = whole(value, occ, reporter)
        except ValueError:
            raise _invalid(
                reporter, occ, f"`-p` needs an integer, not `{value}`", "write `-p 10`"
            ) from None
        if not -1024 <= native <= 1023:
            raise _invalid(reporter, occ, f"`-p {value}` is outside -1024..1023", "write `-p 0`")
        band = from_native(native, "pbs", b.band)
        b.set("spec.schedule.priority", band, occ)
        if to_native(band, "pbs", b.band) != native:  # the band cannot carry every native step
            _ext(b, "priority", native, occ)
    elif letter == "h":
        b.set("spec.schedule.hold", True, occ)
    elif letter == "a":
        _begin(occ, b)
    elif letter == "r":
        if value not in ("y", "n"):
            raise _invalid(reporter, occ, f"`-r` is `y` or `n`, not `{value}`", "write `-r y`")
        b.set("spec.lifecycle.requeueOnFailure", value == "y", occ)
    elif letter == "j":
        if value not in ("oe", "eo", "n"):
            raise _invalid(
                reporter, occ, f"`-j` is `oe`, `eo` or `n`, not `{value}`", "write `-j oe`"
            )
        b.set("spec.output.mergeStderr", value != "n", occ)
        if value == "eo":
            _ext(b, "join", "eo", occ)
    elif letter in ("o", "e"):
        _path(letter, occ, b)
    elif letter == "k":
        _ext(b, "keep", value, occ)
    elif letter == "m":
        _mail(occ, b, torque)
    elif letter == "M":
        b.set("spec.notifications.email", value, occ)
    elif letter == "S":
        b.set("spec.execution.shell", value, occ)
    elif letter == "V":
        b.set("spec.execution.environment.inheritFromSubmitter", True, occ)
    elif letter == "v":
        _variables(occ, b)
    elif letter == "W":
        _attributes(occ, b)
    elif letter == "J" and not torque:
        tree = _tree("pbs_array", value, occ, reporter, "array range", "0-99:2%10")
        nums = [whole(str(t), occ, reporter) for t in tree.children]
        if nums[0] >= nums[1]:
            raise _invalid(
                reporter,
                occ,
                f"`-J {value}`: the start must be below the end",
                "write e.g. `-J 1-10`",
            )
        b.set("spec.array.indices", IndexSpec.parse(value), occ)
    elif letter == "t" and torque:
        _tree("torque_array", value, occ, reporter, "array request", "1-10%2")
        b.set("spec.array.indices", IndexSpec.parse(value), occ)
    elif letter == "d" and torque:
        b.set("spec.execution.workingDir", value, occ)
    elif letter == "n" and torque:
        b.set("spec.placement.exclusive", True, occ)
    else:
        # kept as written, each option where it was written (its W201 points at its line)
        _ext(b, f"options.{letter}", value if occ.value is not None else "", occ)


def _begin(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    tree = _tree("pbs_datetime", value, occ, b.reporter, "date and time", "202603010800")
    digits = str(tree.children[0])
    seconds = int(str(tree.children[1])[1:]) if len(tree.children) > 1 else 0
    if len(digits) == 12:  # CCYYMMDDhhmm: absolute
        try:
            when = dt.datetime(
                int(digits[:4]),
                int(digits[4:6]),
                int(digits[6:8]),
                int(digits[8:10]),
                int(digits[10:12]),
                seconds,
            )
        except ValueError:
            raise _invalid(
                b.reporter, occ, f"`-a {value}` is not a valid date", "write `CCYYMMDDhhmm`"
            ) from None
        b.set("spec.schedule.beginAfter", DateTime.parse(when.isoformat()), occ)
    else:  # shorter forms roll forward from now: not a fixed time
        _ext(b, "begin", value, occ)


def _path(letter: str, occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    host, sep, path = value.partition(":")
    if not sep or "/" in host:
        host, path = "", value
    template = Template.parse(
        path.replace("{", "{{").replace("}", "}}").replace("^array_index^", "{array_index}")
    )
    field = "stdout" if letter == "o" else "stderr"
    b.set(f"spec.output.{field}", template, occ)
    if host:
        _ext(b, "output" if letter == "o" else "error", value, occ)


def _default_files(b: _Builder, torque: bool, join: str) -> None:
    """The files qsub writes when `-o`/`-e` name none (`<jobname>.o<seq>`, `.e<seq>`), so
    that another scheduler writes the same names; with `-j oe` stderr is in the `-o` file.
    `-j eo` (both in the `-e` file) is left to the writer's default."""
    if join == "eo":
        return
    output = b.data.setdefault("spec", {}).setdefault("output", {})
    array = b.get("spec.array") is not None
    for letter, stream in (("o", "stdout"), ("e", "stderr")):
        default = default_path(letter, array, torque)
        if stream in output or default is None or (letter == "e" and join == "oe"):
            continue
        output[stream] = Template.parse(default)


def _mail(occ: Occurrence, b: _Builder, torque: bool) -> None:
    value = occ.value or ""
    allowed = set("abejn" + ("fp" if torque else ""))
    if not value or set(value) - allowed or ("n" in value and len(value) > 1):
        raise _invalid(
            b.reporter, occ, f"`-m {value}` is not a mail option", "write `-m abe` or `-m n`"
        )
    events = [MAIL_EVENTS[c] for c in "bea" if c in value]
    b.set("spec.notifications.events", events, occ)
    if set(value) - set("abe") - {"n"}:
        _ext(b, "mail_points", value, occ)


def _variables(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    tree = _tree("variables", value, occ, b.reporter, "variable list", "A=1,B='x,y'")
    out: dict[str, str] = {}
    copied: list[str] = []
    for var in tree.children:
        parts = var.children
        if len(parts) == 1:  # `-v NAME` copies the submitter's value: not writable as a value
            copied.append(str(parts[0]))
            continue
        text = "".join(
            str(t)[1:-1] if t.type in ("DQ", "SQ") else str(t)
            for v in parts[2:]
            for t in v.children
        )
        out[str(parts[0])] = text
    if out:
        b.set("spec.execution.environment.vars", out, occ)
    if copied:  # the PBS writer writes them back into the same `-v` list
        _ext(b, "options.v", ",".join(copied), occ)


def _attributes(occ: Occurrence, b: _Builder) -> None:
    tree = _tree(
        "w_attrs", occ.value or "", occ, b.reporter, "attribute list", "depend=afterok:123"
    )
    for attr in tree.children:
        name = str(attr.children[0])
        value = str(attr.children[1]) if len(attr.children) > 1 else ""
        if name == "depend":
            _depend(value, occ, b)
        elif name in ("group_list", "umask", "sandbox"):
            if name == "sandbox" and value not in ("PRIVATE", "HOME"):
                raise _invalid(
                    b.reporter,
                    occ,
                    f"`sandbox={value}` is PRIVATE or HOME",
                    "write `sandbox=PRIVATE`",
                )
            _ext(b, name, value, occ)
        elif name in ("stagein", "stageout"):
            # qsub's `parse_equal_string()` (pbs.md §6) reads a value that starts with a quote
            # as quoted, up to the same quote; a quote anywhere else is a path's own text
            if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0]:
                value = value[1:-1]
            entries = [e for e in value.split(",") if e]
            _ext(b, name, entries, occ)
            staged = []
            for entry in entries:
                local, _, remote = entry.partition("@")
                src, dst = (remote, local) if name == "stagein" else (local, remote)
                staged.append({"src": src, "dst": dst})
            b.set(f"spec.fileStaging.{'inputs' if name == 'stagein' else 'outputs'}", staged, occ)
        else:
            _ext(b, f"options.W:{name}", value, occ)


def _depend(value: str, occ: Occurrence, b: _Builder) -> None:
    tree = _tree("depend", value, occ, b.reporter, "dependency list", "afterok:1234")
    portable: list[dict[str, str]] = []
    exact = True
    for item in tree.children:
        kind = str(item.children[0])
        args = [str(a) for a in item.children[1:]]
        if kind not in DEPENDENCY_TYPES:
            raise _invalid(
                b.reporter,
                occ,
                f"unknown dependency type `{kind}`",
                "use afterok, afternotok, afterany, after, before…, on",
            )
        if not args:
            raise _invalid(b.reporter, occ, f"`{kind}` needs a job id", f"write `{kind}:1234`")
        if kind in PORTABLE_DEPENDENCIES:
            portable += [{"scheme": kind, "value": a} for a in args]
            # a name or a placeholder (`afterok:jobid`) is not portable: keep the text
            exact = exact and all(pbs_job_ref(a) == a for a in args)
        else:
            exact = False
    if portable:
        b.set("spec.dependencies", portable, occ)
    if not exact:
        _ext(b, "dependency", value, occ)


def _resources(items: list[tuple[str, str, Occurrence]], b: _Builder, torque: bool) -> None:
    reporter = b.reporter
    extra: dict[str, str] = {}
    occs: dict[str, Occurrence] = {}
    select = place = nodes = None
    for name, value, occ in items:
        if name == "walltime":
            b.set(
                "spec.schedule.walltime",
                duration(pbs_seconds(value, occ, reporter), occ, reporter),
                occ,
            )
        elif name in ("cput", "pcput"):
            _ext(b, name, duration(pbs_seconds(value, occ, reporter), occ, reporter), occ)
        elif name == "select":
            select = (value, occ)
        elif name == "place":
            place = (value, occ)
        elif name == "nodes" and torque:
            nodes = (value, occ)
        elif name == "procs" and torque:
            if not is_digits(value):
                raise _invalid(reporter, occ, f"`procs={value}` needs a number", "write `procs=16`")
            b.set("spec.resources.tasks", whole(value, occ, reporter), occ)
        elif name == "pmem":
            b.set(
                "spec.resources.memoryPerTask",
                Size.from_bytes(pbs_size_bytes(value, occ, reporter)),
                occ,
            )
        elif name == "mem" and torque:
            _ext(b, "mem", Size.from_bytes(pbs_size_bytes(value, occ, reporter), scope="job"), occ)
        elif name == "advres":
            b.set("spec.schedule.reservation", value, occ)
        else:
            extra[name] = value
            occs[name] = occ
            b.source_map.add(f"spec.extensions.pbs.resources.{name}", occ.span, occ.value_span)
    old = not torque and select is None and place is None
    if old and (converted := _old_syntax(extra, occs, b)) is not None:
        # PBS Pro turns `nodes=` and job-wide chunk resources into `select` and `place`
        # itself (qsub refuses them beside `select` or `place`: E135 below): the job is what
        # the server makes of it
        select, place = converted
    elif not torque and (select or place):
        for name in extra.keys() & PBS_CHUNK_RESOURCES:
            reporter.report(
                "E135",
                f"`-l {name}` for the whole job beside `-l select`/`-l place`",
                occs[name].span,
                notes=(
                    'qsub refuses the old syntax beside select ("-lresource=" cannot be used '
                    'with "select" or "place")',
                ),
                help=f"put `{name}=` into each chunk of `select`",
            )
    if select is not None:
        arrangement = _place(*place, b) if place is not None else None
        _select(*select, b, arrangement)
    elif place is not None and not torque:
        # `place` stands on its own: qsub takes it without a `select` (the server's default
        # chunk), and the writer writes one that way
        _place(*place, b)
    elif place is not None:
        extra["place"] = place[0]
    if nodes is not None:
        _nodes(*nodes, b)
    if extra:
        b.data.setdefault("spec", {}).setdefault("extensions", {}).setdefault("pbs", {})[
            "resources"
        ] = extra


#: job-wide resources PBS Pro moves into the chunk it makes when there is no `select` (their
#: ATR_DFLAG_CVTSLT flag in OpenPBS src/lib/Libattr/master_resc_def_all.xml)
CONVERTED_TO_CHUNK: Final = (
    "ncpus",
    "mem",
    "vmem",
    "mpiprocs",
    "ompthreads",
    "naccelerators",
    "accelerator",
    "accelerator_model",
    "accelerator_memory",
    "accelerator_group",
    "arch",
    "host",
    "vnode",
    "vntype",
    "aoe",
    "eoe",
    "hbmem",
)


def _old_syntax(
    extra: dict[str, str], occs: dict[str, Occurrence], b: _Builder
) -> tuple[tuple[str, Occurrence], tuple[str, Occurrence] | None] | None:
    """PBS Pro's conversion of the old syntax into `select` and `place`, as its server does
    (OpenPBS src/server/svr_jobfunc.c set_select_and_place(), node_manager.c
    cvt_nodespec_to_select()); the consumed resources leave ``extra``.

    - `nodes=N[:prop…][:ppn=P][:cpp=C]+…` becomes `N:ncpus=P×C[:mem=M][:prop=True…]
      [:mpiprocs=P]` per part, placed `scatter`: a job-wide `ncpus` that is a multiple of the
      spec's CPUs multiplies each part's, a job-wide `mem` is shared by all the nodes.
    - Without `nodes=`, the job-wide chunk resources (`ncpus`, `mem`, …) make one chunk (placed
      `pack`, which says nothing of one chunk)."""
    reporter = b.reporter
    if "nodes" in extra:
        value, occ = extra.pop("nodes"), occs.pop("nodes")
        tree = _tree("nodes", value, occ, reporter, "node specification", "2:ppn=16")
        parts: list[tuple[int, int, int, bool, list[str]]] = []
        for spec in tree.children:
            props = [
                (str(p.children[0]), str(p.children[1]) if len(p.children) > 1 else None)
                for p in spec.children
            ]
            count = 1
            if props and props[0][1] is None and is_digits(props[0][0]):
                count = whole(props[0][0], occ, reporter)
                props = props[1:]
            ppn = cpp = 1
            has_cpp = False
            words = []
            for key, text in props:
                if text is None:
                    words.append(key)
                elif key.lower() in ("ppn", "cpp", "ncpus") and is_digits(text) and int(text):
                    if key.lower() == "ppn":
                        ppn = whole(text, occ, reporter)
                    else:
                        cpp, has_cpp = whole(text, occ, reporter), True
                else:
                    raise _invalid(
                        reporter,
                        occ,
                        f"`nodes={value}`: PBS Pro's node spec takes `ppn=`, `cpp=` or "
                        f"`ncpus=` (a positive number), not `{key}={text}`",
                        "write `select=N:ncpus=…:mpiprocs=…` (or convert with `--from torque` "
                        "if this is a Torque script)",
                    )
            parts.append((count, ppn, cpp, has_cpp, words))
        total = sum(n * p * c for n, p, c, _, _ in parts)
        factor = 1
        if "ncpus" in extra and is_digits(extra["ncpus"]):
            ncpus = whole(extra["ncpus"], occs["ncpus"], reporter)
            if (any(hc for *_, hc, _ in parts) and ncpus != total) or ncpus % total:
                raise _invalid(
                    reporter,
                    occs["ncpus"],
                    f"`ncpus={ncpus}` beside `nodes={value}` ({total} CPUs): the server "
                    "refuses it unless it is a multiple of them",
                    f"write `ncpus={total}`, or ask with `select` alone",
                )
            if not any(hc for *_, hc, _ in parts):
                factor = ncpus // total
            extra.pop("ncpus")
            occs.pop("ncpus")
        mem_kb = None
        if "mem" in extra:
            nodes = sum(n for n, *_ in parts)
            mem_kb = pbs_size_bytes(extra.pop("mem"), occs.pop("mem"), reporter) // 1024 // nodes
        chunks = []
        for count, ppn, cpp, _, words in parts:
            chunk = f"{count}:ncpus={ppn * cpp * factor}"
            if mem_kb is not None:
                chunk += f":mem={mem_kb}kb"
            chunk += "".join(f":{w}=True" for w in words)
            if ppn != 1:
                chunk += f":mpiprocs={ppn}"
            chunks.append(chunk)
        return ("+".join(chunks), occ), ("scatter", occ)
    wide = [name for name in CONVERTED_TO_CHUNK if name in extra]
    if not wide:
        return None
    occ = occs[wide[0]]
    chunk = "1:" + ":".join(f"{name}={extra.pop(name)}" for name in wide)
    for name in wide:
        occs.pop(name)
    return (chunk, occ), None


def _job_memory(b: _Builder) -> None:
    """Torque `-l mem` is for the whole job: per task when the task count is known and divides
    it (the raw value stays in extensions.pbs.mem for writing back)."""
    mem = b.get("spec.extensions.pbs.mem")
    res = b.get("spec.resources") or {}
    if mem is None or "memoryPerTask" in res:
        return
    tasks = res.get("tasks") or (res.get("nodes") or 1) * (res.get("tasksPerNode") or 1)
    if tasks and mem.bytes % tasks == 0:
        node = b.data["spec"]["resources"] if "resources" in b.data.get("spec", {}) else None
        value = Size.from_bytes(mem.bytes // tasks)
        if node is None:
            b.data.setdefault("spec", {}).setdefault("resources", {})["memoryPerTask"] = value
        else:
            node["memoryPerTask"] = value
        span = b.source_map.value("spec.extensions.pbs.mem")
        if span is not None:
            key = b.source_map.key("spec.extensions.pbs.mem")
            b.source_map.add("spec.resources.memoryPerTask", key, span)


def _chunk_map(chunk: Any, occ: Occurrence, reporter: Reporter) -> tuple[int, dict[str, str]]:
    children = chunk.children
    count = 1
    if chunk.data == "counted":
        count = whole(str(children[0]), occ, reporter)
        children = children[1:]
    res = {str(c.children[0]): str(c.children[1]) for c in children}
    for text in res.values():
        if is_digits(text):
            whole(text, occ, reporter)  # a number no scheduler holds is refused here, once
    return count, res


MAPPED_CHUNK: Final = frozenset({"ncpus", "mpiprocs", "ompthreads", "mem", "ngpus"})


def _select(value: str, occ: Occurrence, b: _Builder, arrangement: str | None = None) -> None:
    """The chunks of `select` as nodes and tasks. A chunk is a node unless `place` says
    otherwise (pbs.md §2): `pack` puts them all on one host; `free` anywhere, so chunks of one
    task each are tasks on nodes PBS picks (chunks of several tasks stay nodes: each keeps its
    tasks on one host, which a task count alone does not say)."""
    reporter = b.reporter
    tree = _tree("select", value, occ, reporter, "select statement", "2:ncpus=8:mem=16gb")
    chunks = [_chunk_map(c, occ, reporter) for c in tree.children]
    if any(n < 1 for n, _ in chunks):  # qsub: "Illegal attribute or resource value"
        raise _invalid(
            reporter, occ, f"`select={value}` asks for no chunk", "write `select=1:…` or more"
        )
    count, res = chunks[0]
    exact = len(chunks) == 1 and set(res) <= MAPPED_CHUNK
    if len(chunks) > 1:
        _ext(b, "mixed_chunks", value, occ)

    def num(key: str, default: int) -> int:
        text = res.get(key)
        if text is None:
            return default
        if not is_digits(text):
            raise _invalid(
                reporter, occ, f"`{key}={text}` needs a whole number", f"write `{key}=4`"
            )
        return int(text)

    ncpus = num("ncpus", 1)
    mpiprocs = num("mpiprocs", 1 if ncpus > 0 else 0)
    if (
        len(chunks) == 1
        and count > 1
        and ((arrangement == "free" and mpiprocs == 1) or (arrangement == "pack" and mpiprocs > 0))
    ):
        b.set("spec.resources.tasks", count * mpiprocs, occ)
        if arrangement == "pack":
            b.set("spec.resources.nodes", 1, occ)
    else:
        b.set("spec.resources.nodes", count, occ)
        if mpiprocs > 0:
            b.set("spec.resources.tasksPerNode", mpiprocs, occ)
    per_task = mpiprocs or 1
    if ncpus % per_task == 0 and ncpus:
        b.set("spec.resources.cpusPerTask", Cpu.parse(ncpus // per_task), occ)
    elif ncpus:
        exact = False
    if "ompthreads" in res:
        _ext(b, "ompthreads_per_chunk", num("ompthreads", 1), occ)
    if "mem" in res:
        mem = pbs_size_bytes(res["mem"], occ, reporter)
        if mem % per_task == 0:
            b.set("spec.resources.memoryPerTask", Size.from_bytes(mem // per_task), occ)
        else:
            b.set("spec.resources.memoryPerTask", Size.from_bytes(mem, scope="chunk"), occ)
    if "ngpus" in res:
        gpus = num("ngpus", 0)
        amount = gpus // per_task if gpus % per_task == 0 else None
        b.set(
            "spec.resources.gpu.count",
            Count.parse(amount if amount is not None else f"{gpus}/chunk"),
            occ,
        )
    if not exact and len(chunks) == 1:
        _ext(b, "select", value, occ)
    if len(chunks) > 1 and _same_tasks(chunks, occ, reporter):
        # chunks that differ only in how many tasks they hold: the job is that many tasks
        # on that many nodes, at most the first chunk's per node (`2:mpiprocs=4+1:mpiprocs=2`)
        b.set("spec.resources.nodes", sum(c for c, _ in chunks), occ)
        b.set("spec.resources.tasks", sum(c * int(r.get("mpiprocs", "1")) for c, r in chunks), occ)
        per_chunk = {r.get("ngpus") for _, r in chunks}
        shares = {
            Fraction(int(r.get("ngpus", "0")), int(r.get("mpiprocs", "1"))) for _, r in chunks
        }
        if "ngpus" in res and len(per_chunk) == 1 and len(shares) > 1:
            # the same GPUs in every chunk, whatever its tasks: GPUs per node
            b.set("spec.resources.gpu.count", Count.parse(f"{res['ngpus']}/node"), occ)
        if "mem" in res:
            sizes = [pbs_size_bytes(r["mem"], occ, reporter) for _, r in chunks]
            procs = [int(r.get("mpiprocs", "1")) for _, r in chunks]
            if len(set(sizes)) == 1 and len(set(procs)) > 1:
                # the same memory in every chunk, whatever its tasks: memory per node
                b.set("spec.resources.memoryPerTask", Size.from_bytes(sizes[0], scope="node"), occ)


def _same_tasks(
    chunks: list[tuple[int, dict[str, str]]], occ: Occurrence, reporter: Reporter
) -> bool:
    """Do the chunks ask for the same per task (CPUs, memory; GPUs per task or per chunk;
    other resources per chunk), the first holding the most tasks?"""

    def per_task(res: dict[str, str]) -> dict[str, Any] | None:
        if not all(is_digits(v) for k, v in res.items() if k in MAPPED_CHUNK - {"mem"}):
            return None
        procs = int(res.get("mpiprocs", "1"))
        if procs < 1:
            return None
        out: dict[str, Any] = {"keys": frozenset(res), "omp": res.get("ompthreads")}
        # other resources (`a=1`): the same per chunk (the writer's amounts per node)
        out["other"] = {k: v for k, v in res.items() if k not in MAPPED_CHUNK}
        out["ncpus"] = Fraction(int(res.get("ncpus", "1")), procs)
        # GPUs per task, or the same GPUs per chunk (per node: the writer's `gpu.count: N/node`)
        out["ngpus"] = (Fraction(int(res.get("ngpus", "0")), procs), res.get("ngpus"))
        if "mem" in res:
            try:
                size = pbs_size_bytes(res["mem"], occ, reporter)
            except Invalid:
                return None
            # memory per task, or the same memory per chunk (the writer's `N/node`)
            out["mem"] = (Fraction(size, procs), size)
        return out

    shapes = [per_task(r) for _, r in chunks]
    first = shapes[0]
    if first is None or any(s is None for s in shapes):
        return False
    most = int(chunks[0][1].get("mpiprocs", "1"))
    for (_, res), shape in zip(chunks, shapes, strict=True):
        assert shape is not None
        if int(res.get("mpiprocs", "1")) > most:
            return False
        if any(shape.get(k) != first.get(k) for k in ("keys", "omp", "ncpus", "other")):
            return False
    # GPUs and memory: the same per task, or the same per chunk
    for key in ("ngpus", "mem"):
        each_task = {s[key][0] for s in shapes if s and key in s}
        each_chunk = {s[key][1] for s in shapes if s and key in s}
        if len(each_task) > 1 and len(each_chunk) > 1:
            return False
    return True


def _place(value: str, occ: Occurrence, b: _Builder) -> str | None:
    """The placement of `place`; returns its arrangement (`free`, `scatter`…) when it has one."""
    tree = _tree("place", value, occ, b.reporter, "place statement", "scatter:excl")
    exact = True
    arrangement = None
    for word in tree.children:
        if word.data == "group":
            b.set("spec.placement.groupBy", str(word.children[0]), occ)
            continue
        text = str(word.children[0])
        if text in ("free", "pack", "scatter", "vscatter"):
            arrangement = text
        if text in ("free", "pack", "scatter"):
            b.set("spec.placement.topology", text, occ)
        elif text == "excl":
            b.set("spec.placement.exclusive", True, occ)
        else:  # vscatter, shared, exclhost: keep the exact statement
            exact = False
    if not exact:
        _ext(b, "place", value, occ)
    return arrangement


def _nodes(value: str, occ: Occurrence, b: _Builder) -> None:
    reporter = b.reporter
    tree = _tree("nodes", value, occ, reporter, "node specification", "2:ppn=16")
    specs = []
    for spec in tree.children:
        props = [
            (str(p.children[0]), str(p.children[1]) if len(p.children) > 1 else None)
            for p in spec.children
        ]
        specs.append(props)
        for key, text in props:
            if is_digits(text or key):
                whole(text or key, occ, reporter)  # refused here, once: no scheduler holds it
    first = specs[0]
    count = 1
    if first and first[0][1] is None and is_digits(first[0][0]):
        count = int(first[0][0])
        first = first[1:]
    keyed = {k: v for k, v in first if v is not None}
    words = [k for k, v in first if v is None]
    exact = len(specs) == 1 and set(keyed) <= {"ppn", "gpus"}
    b.set("spec.resources.nodes", count, occ)
    if "ppn" in keyed and is_digits(keyed["ppn"]):
        b.set("spec.resources.tasksPerNode", int(keyed["ppn"]), occ)
    if "gpus" in keyed and is_digits(keyed["gpus"]):
        b.set("spec.resources.gpu.count", Count.parse(f"{keyed['gpus']}/node"), occ)
    if words:
        b.set("spec.placement.constraint", "&".join(words), occ)
    if len(specs) > 1:
        _ext(b, "mixed_chunks", value, occ)
    elif not exact:
        _ext(b, "nodes", value, occ)


__all__ = ["lower", "pbs_seconds", "pbs_size_bytes"]
