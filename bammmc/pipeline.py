"""The compiler pipeline: text -> (frontend) -> IR -> (passes) -> IR -> (backend) -> files.

Each stage is a pure function of its input; diagnostics are collected in a
:class:`~bammmc.diagnostics.model.Reporter`. The CLI and the library API both call these.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import msgspec

from bammmc import preserve
from bammmc.backends import OutputFile, WriteOptions
from bammmc.diagnostics.model import Reporter
from bammmc.ir.decode import MAX_NODES
from bammmc.ir.job import Job
from bammmc.ir.priority import DEFAULT_BAND, PriorityBand
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import ValueSyntaxError
from bammmc.passes import PassContext, run_passes
from bammmc.registry import FORMATS, Format


@dataclass
class Options:
    """Everything a conversion can be asked to do differently."""

    band: PriorityBand = DEFAULT_BAND
    batch: bool = False
    max_nodes: int = MAX_NODES
    #: the site's `LSF_UNIT_FOR_LIMITS`: the unit of bare LSF sizes (`-M 4000`)
    #: the LSF site's `LSF_UNIT_FOR_LIMITS` and `rusage[mem]` reservation (`host`, `task`):
    #: None when not given (MB and per host are assumed, each use a W302)
    lsf_unit: str | None = None
    lsf_reserve: str | None = None
    #: the Grid Engine `-l` resource that carries memory per slot (`--sge-memory-resource`)
    sge_memory_resource: str = "h_vmem"


@dataclass
class Compiled:
    """One job through the front half of the pipeline."""

    job: Job | None
    source_map: SourceMap = field(default_factory=SourceMap)


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        known = ", ".join(FORMATS)
        raise ValueError(f"unknown format `{name}` (formats: {known})") from None


def compile_text(
    text: str, fmt: Format, reporter: Reporter, options: Options | None = None
) -> list[Compiled]:
    """Read ``text`` as ``fmt`` and run the passes. A job with errors comes back as ``None``.
    A valid ``--preserve`` block in the text (``preserve.py``) puts back the fields it keeps."""
    options = options or Options()
    from bammmc.frontends.limits import too_long

    if too_long(text, reporter):
        return [Compiled(None)]
    out: list[Compiled] = []
    found: preserve.Found | None = None
    where = preserve.placement(fmt.name)
    if where == "comment":  # a `--preserve` block: taken off before the reader sees the text
        text, found = preserve.split_comment(text, reporter)
    lowering = fmt.lowerer()
    if lowering is None:
        reads = fmt.reader().read(text, reporter, batch=options.batch, max_nodes=options.max_nodes)
    else:
        from bammmc.frontends.splat import Read

        scanned = fmt.reader().scan(text, reporter)
        if where == "attribute":  # Flux: `attributes.user.bammmc`, left out by the lowering
            found = preserve.find_attribute(getattr(scanned, "root", None), reporter)
        # each lowering takes the site settings it needs: LSF's unit for bare sizes, Grid
        # Engine's memory resource, and the priority band for every native priority
        wanted = inspect.signature(lowering.lower).parameters
        settings = {
            "unit": options.lsf_unit,
            "reserve": options.lsf_reserve,
            "memory_resource": options.sge_memory_resource,
            "band": options.band,
        }
        kwargs = {k: v for k, v in settings.items() if k in wanted}
        try:
            job, source_map = lowering.lower(scanned, reporter, **kwargs)
        except ValueSyntaxError as exc:  # a value no lowering check caught: an error, not a crash
            reporter.report(
                exc.code,
                exc.message,
                notes=("bammmc could not tell where in the file this value is",),
                help=exc.help or "check the value",
            )
            job, source_map = None, SourceMap()
        except msgspec.ValidationError as exc:  # a field out of the IR's range, not caught before
            reporter.report(
                "E118",
                f"a value is outside what SPLAT allows: {exc}",
                notes=("bammmc could not tell where in the file this value is",),
                help="check the value the message names",
            )
            job, source_map = None, SourceMap()
        reads = [Read(job, source_map)]
    for read in reads:
        job = read.job
        if job is not None:
            before = len([d for d in reporter.diagnostics if d.is_error])
            ctx = PassContext(reporter, read.source_map, options.band)
            job = run_passes(job, ctx)
            if len([d for d in reporter.diagnostics if d.is_error]) > before:
                job = None
            elif found is not None and job is not None:
                job = preserve.restore(job, read.source_map, found, fmt.name, reporter)
        if job is not None and job.spec and job.spec.execution and job.spec.execution.script:
            from bammmc.ir.envvars import references

            read.source_map.references = references(text, reporter.file)
            read.source_map.text = text
        out.append(Compiled(job, read.source_map))
    return out


def refuse_nul(job: Job, fmt: Format, reporter: Reporter) -> None:
    """E140 for every string of the job that holds a NUL character: no script, submit file or
    scheduler (C strings all) carries one — sbatch refuses the script, a shell drops the rest
    of the word. Only SPLAT, the IR's own text, keeps it (as an escape)."""
    from bammmc.ir.paths import set_leaves

    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in (*strings(k), *strings(v))]
        if isinstance(value, list | tuple):
            return [s for item in value for s in strings(item)]
        raw = getattr(value, "raw", None)  # a typed value (a template) as written
        return [raw] if isinstance(raw, str) else []

    for path, value in set_leaves(job):
        if any("\x00" in s for s in strings(value)):
            reporter.report(
                "E140",
                f"`{path}` holds a NUL character, which no {fmt.name} file can carry",
                field=path,
                help="remove the NUL character from the value",
            )


def _without_empty_name(job: Job, reporter: Reporter) -> Job:
    """An empty `metadata.name` is no name: none is written, with a W201 (bsub refuses an
    empty `-J`, and the writers used to disagree: `--job-name=""`, or nothing, silently)."""
    if job.metadata is None or job.metadata.name != "":
        return job
    reporter.report(
        "W201",
        "`metadata.name` is empty, and an empty job name is not written",
        notes=("the scheduler names the job itself (after its script or program)",),
        field="metadata.name",
        help="give the job a name, or leave `metadata.name` out",
    )
    return msgspec.structs.replace(job, metadata=msgspec.structs.replace(job.metadata, name=None))


def lf_scripts(value: object, path: str, fmt: Format, reporter: Reporter) -> object:
    """``value`` with the CRLF line ends of every script in it (``spec.execution.script``, a
    task's, a hetjob component's) made LF, one W301 per script: a `#!/bin/bash\\r` line does
    not run (the kernel looks for `/bin/bash\\r`), sbatch refuses DOS line ends outright, and
    every output is LF throughout. SPLAT keeps the text as it is."""
    if isinstance(value, list):
        items = [lf_scripts(v, f"{path}[{i}]", fmt, reporter) for i, v in enumerate(value)]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if not isinstance(value, msgspec.Struct):
        return value
    changes: dict[str, object] = {}
    for name in value.__struct_fields__:
        item = getattr(value, name)
        wire = value.__struct_encode_fields__[value.__struct_fields__.index(name)]
        where = f"{path}.{wire}" if path else wire
        if name == "script" and isinstance(item, str) and "\r\n" in item:
            changes[name] = item.replace("\r\n", "\n")
            reporter.report(
                "W301",
                f"`{where}` is approximated in the `{fmt.name}` output: DOS line ends (CRLF) "
                "converted to LF",
                notes=(
                    "a `#!/bin/bash\\r` first line does not run, and sbatch refuses such scripts",
                ),
                field=where,
                help="nothing to do: the converted script runs; convert the source with "
                "`dos2unix` to silence this",
            )
        elif isinstance(item, msgspec.Struct | list):
            new = lf_scripts(item, where, fmt, reporter)
            if new is not item:
                changes[name] = new
    return msgspec.structs.replace(value, **changes) if changes else value


SCRIPT = "spec.execution.script"


def emit_job(
    job: Job,
    fmt: Format,
    reporter: Reporter,
    source_map: SourceMap | None = None,
    options: WriteOptions | None = None,
) -> list[OutputFile]:
    """Write ``job`` as ``fmt``. A backend's diagnostics about a field get the span of the
    source text that set it, from ``source_map``."""
    own = Reporter(reporter.file)
    options = options or WriteOptions()
    target = job
    if fmt.name != "splat":
        target = _without_empty_name(job, own)
        target = lf_scripts(target, "", fmt, own)  # type: ignore[assignment]
    files: list[OutputFile]
    if options.preserve:

        def write(opts: WriteOptions, rep: Reporter) -> list[OutputFile]:
            written: list[OutputFile] = fmt.writer().write(target, rep, opts)
            return written

        files = preserve.embed(job, fmt, write, options, own)
    else:
        files = fmt.writer().write(target, own, options)
    if fmt.name != "splat":
        refuse_nul(job, fmt, own)
    for diag in own.diagnostics:
        if diag.span is None and diag.field == SCRIPT and source_map is not None:
            # about one launcher line of the script, or one variable: where the script has
            # the line, or first uses the variable
            from bammmc.ir.envvars import reference_span
            from bammmc.ir.launchers import command_span

            span = command_span(diag.message, source_map.text, reporter.file)
            span = span or reference_span(diag.message, source_map.references)
            if span is not None:
                diag = msgspec.structs.replace(diag, span=span)
        if diag.span is None and diag.field and source_map is not None:
            span = source_map.key(diag.field)
            if span is not None:
                diag = msgspec.structs.replace(diag, span=span)
        reporter.diagnostics.append(diag)
    return files
