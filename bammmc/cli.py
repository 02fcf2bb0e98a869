"""The ``bammmc`` command line.

    bammmc INPUT [-o OUT | --to FMT] [--from FMT] [--explain] [--strict]
                 [--diagnostics human|json|sarif] [--color/--no-color]
    bammmc check INPUT...        validate and lint only
    bammmc codes [CODE]          list or explain diagnostic codes
    bammmc formats               formats, extensions, capabilities
    bammmc schema                JSON Schema of SPLAT (for editors)

Exit status (the one place it is defined; ``docs/cli.md`` repeats it):

* 0 — success (warnings allowed)
* 1 — errors in the input, or warnings W2xx/W3xx under ``--strict``; nothing was written
* 2 — usage: bad options, unknown format or code, output path equal to the input

A first word that is not a subcommand is the INPUT of the convert command, so a file named
``check`` is reached as ``./check``. Diagnostics go to stderr; converted text to stdout or ``-o``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

import click

from bammmc import __version__

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2

SUBCOMMANDS = ("convert", "check", "codes", "formats", "schema")


class _DefaultGroup(click.Group):
    """A group whose first word falls through to ``convert`` when it is not a subcommand."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["convert", *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(
            "bammmc", "INPUT [-o OUT | --to FMT] [OPTIONS]\n       bammmc COMMAND ..."
        )


def _priority_band(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    from bammmc.ir.priority import DEFAULT_BAND, PriorityBand

    if value is None:
        return DEFAULT_BAND
    try:
        return PriorityBand.parse(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _format_names() -> list[str]:
    from bammmc.registry import FORMATS

    return list(FORMATS)


class _FormatChoice(click.Choice):  # type: ignore[type-arg]
    """Format names, looked up only when an option is used (keeps start-up light)."""

    def __init__(self) -> None:
        super().__init__([], case_sensitive=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        self.choices = tuple(_format_names())
        return super().convert(value, param, ctx)


def _common(f: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--from", "src", type=_FormatChoice(), help="Input format (default: detect)."),
        click.option(
            "--diagnostics",
            "diag_format",
            type=click.Choice(["human", "json", "sarif"]),
            default="human",
            show_default=True,
            help="How to print diagnostics (to stderr).",
        ),
        click.option(
            "--color/--no-color", default=None, help="Colour diagnostics (default: on a terminal)."
        ),
        click.option(
            "--strict", is_flag=True, help="Treat W2xx/W3xx (lost/approximated) as errors."
        ),
        click.option(
            "--priority-range",
            "band",
            metavar="MIN:MAX",
            callback=_priority_band,
            help="The canonical priority band (default 0:1000).",
        ),
        click.option(
            "--max-input-size",
            type=click.IntRange(min=1),
            default=None,
            metavar="BYTES",
            help="Refuse inputs larger than this (default 10 MiB).",
        ),
        click.option("--batch", is_flag=True, help="Read every document of a multi-document file."),
        click.option(
            "--lsf-unit",
            type=click.Choice(["KB", "MB", "GB", "TB", "PB", "EB"], case_sensitive=False),
            default="KB",
            show_default=True,
            help="The site's LSF_UNIT_FOR_LIMITS: the unit of bare LSF sizes (`-M 4000`).",
        ),
        click.option(
            "--sge-memory-resource",
            metavar="NAME",
            default="h_vmem",
            show_default=True,
            help="The Grid Engine `-l` resource that holds memory per slot (h_vmem, mem_free…).",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bammmc")
def main() -> None:
    """Convert batch job specifications between schedulers, through SPLAT.

    Run `bammmc INPUT --to FORMAT` to convert, `bammmc check FILES` to validate,
    `bammmc formats` for the formats, `bammmc codes CODE` to explain a diagnostic.
    """


# ── shared plumbing ───────────────────────────────────────────────────────────────────────


class _Printer:
    """Collects diagnostics and source texts, prints them once, in the chosen form."""

    def __init__(self, diag_format: str, color: bool | None, stream: TextIO | None = None) -> None:
        self.diag_format = diag_format
        self.stream = stream or sys.stderr
        self.color = self.stream.isatty() if color is None else color
        self.sources: dict[str | None, str] = {}
        self.diagnostics: list[Any] = []

    def add(self, diagnostics: Sequence[Any], source_name: str | None, text: str | None) -> None:
        if text is not None:
            self.sources[source_name] = text
        self.diagnostics.extend(diagnostics)

    def flush(self) -> None:
        from bammmc.diagnostics.model import sort_key

        diags, self.diagnostics = self.diagnostics, []
        diags.sort(key=sort_key)
        if self.diag_format == "json":
            from bammmc.diagnostics.render import json as render_json

            self.stream.write(render_json.render(diags))
        elif self.diag_format == "sarif":
            from bammmc.diagnostics.render import sarif

            self.stream.write(sarif.render(diags))
        elif diags:
            from bammmc.diagnostics.render import human

            if self.color:
                human.print_color(diags, self.sources, self.stream)
            else:
                self.stream.write(human.render(diags, self.sources))
        self.stream.flush()


def _is_failure(diagnostics: Sequence[Any], strict: bool) -> bool:
    return any(d.is_error or (strict and d.code[:2] in ("W2", "W3")) for d in diagnostics)


def _fail(
    printer: _Printer, status: int, code: str, message: str, help: str, file: str
) -> NoReturn:
    """Report one diagnostic that is not about the input's content, print all, and exit."""
    from bammmc.diagnostics.model import Reporter

    reporter = Reporter(file)
    reporter.report(code, message, help=help)
    printer.add(reporter.diagnostics, None, None)
    printer.flush()
    sys.exit(status)


def _usage(message: str) -> NoReturn:
    click.echo(f"bammmc: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _compile_input(
    path: str,
    src: str | None,
    band: Any,
    max_input_size: int | None,
    batch: bool,
    lsf_unit: str = "KB",
    sge_memory_resource: str = "h_vmem",
) -> tuple[list[Any], list[Any], str | None, str]:
    """Read and compile one input: (compiled jobs, diagnostics, text, display name)."""
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import Options, compile_text, get_format
    from bammmc.registry import detect
    from bammmc.source import MAX_INPUT_SIZE, read_input

    name = "<stdin>" if path == "-" else path
    reporter = Reporter(name)
    source = read_input(path, reporter, max_input_size or MAX_INPUT_SIZE)
    if source is None:
        return [], reporter.diagnostics, None, name
    fmt = get_format(src.lower()) if src else detect(source.path, source.text, reporter)
    if fmt is None:
        return [], reporter.diagnostics, source.text, name
    compiled = compile_text(
        source.text,
        fmt,
        reporter,
        Options(
            band=band,
            batch=batch,
            lsf_unit=lsf_unit.upper(),
            sge_memory_resource=sge_memory_resource,
        ),
    )
    return compiled, reporter.diagnostics, source.text, name


def _write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and a rename,
    so a failure never leaves a partial file and an existing file stays untouched."""
    _write_all_atomic([(path, text, False)])


def _write_all_atomic(files: Sequence[tuple[str, str, bool]]) -> None:
    """Write each ``(path, text, executable)``, the main file first in the list: every file goes
    to a temporary file in its directory first, and only when all are written are they renamed
    into place, the main file last (it names the others), so a failure leaves no file
    half-written and no main file without the others; a new file renamed before a failure is
    removed again. An executable file gets execute permission (as the umask allows)."""
    import tempfile

    umask = os.umask(0)
    os.umask(umask)
    staged: list[tuple[str, str, bool]] = []
    renamed: list[str] = []
    try:
        for path, text, executable in files:
            if os.path.islink(path):  # write through a symlink to its target, keeping the link
                path = os.path.realpath(path)
            directory = os.path.dirname(os.path.abspath(path))
            fd, tmp = tempfile.mkstemp(prefix=".bammmc-", dir=directory)
            existed = os.path.exists(path)
            staged.append((tmp, path, existed))
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            if existed:
                mode = os.stat(path).st_mode & 0o7777
                os.chmod(tmp, mode | (0o111 & ~umask) if executable else mode)
            else:
                os.chmod(tmp, (0o777 if executable else 0o666) & ~umask)
        for tmp, path, existed in reversed(staged):
            os.replace(tmp, path)
            if not existed:
                renamed.append(path)
    except BaseException:
        for tmp, _, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for path in renamed:
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise


def _same_file(a: str, b: str) -> bool:
    if a == "-" or b == "-":
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


# ── convert ───────────────────────────────────────────────────────────────────────────────


@main.command("convert")
@click.argument("input_path", metavar="INPUT")
@click.option("-o", "--output", metavar="OUT", help="Write here (default: stdout; `-` = stdout).")
@click.option("--to", "dst", type=_FormatChoice(), help="Target format (default: from -o).")
@click.option("--explain", is_flag=True, help="Print what each field became (to stderr).")
@click.option(
    "--preserve",
    is_flag=True,
    help="Keep what the target cannot express in a block it ignores, so that converting the "
    "output back restores it (docs/preserve.md).",
)
@click.option(
    "--container-runtime",
    type=click.Choice(["apptainer", "singularity"]),
    default="apptainer",
    show_default=True,
    help="How HPC targets run a container image.",
)
@_common
def convert_cmd(
    input_path: str,
    output: str | None,
    dst: str | None,
    explain: bool,
    preserve: bool,
    container_runtime: str,
    src: str | None,
    diag_format: str,
    color: bool | None,
    strict: bool,
    band: Any,
    max_input_size: int | None,
    batch: bool,
    lsf_unit: str,
    sge_memory_resource: str,
) -> None:
    """Convert INPUT to another format (`-` reads stdin)."""
    from bammmc.pipeline import get_format

    if dst is None:
        if output and output != "-":
            from bammmc.registry import target_for

            fmt = target_for(output)
            if fmt is None:
                _usage(f"cannot tell the target format from `{output}`; add `--to FORMAT`")
            dst = fmt.name
        else:
            _usage("no target format: add `--to FORMAT` or `-o FILE` with a known extension")
    target = get_format(dst.lower())
    printer = _Printer(diag_format, color)
    if output and _same_file(input_path, output):
        _fail(
            printer,
            EXIT_USAGE,
            "E013",
            f"the output `{output}` is the input file",
            "write the conversion to another path",
            output,
        )

    compiled, diagnostics, text, name = _compile_input(
        input_path, src, band, max_input_size, batch, lsf_unit, sge_memory_resource
    )
    printer.add(diagnostics, name, text)
    if _is_failure(diagnostics, strict) or not compiled or any(c.job is None for c in compiled):
        printer.flush()
        sys.exit(EXIT_ERRORS)

    from bammmc.backends import WriteOptions
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import emit_job

    to_file = bool(output) and output != "-"
    # extra files (an HTCondor job's script) are named after the main output's stem
    stem = os.path.splitext(os.path.basename(output or ""))[0] if to_file else "job"
    reporter = Reporter(name)
    pieces = []
    extras: list[Any] = []
    for c in compiled:
        files = emit_job(
            c.job,
            target,
            reporter,
            c.source_map,
            WriteOptions(
                container_runtime=container_runtime,
                lsf_unit=lsf_unit.upper(),
                sge_memory_resource=sge_memory_resource,
                band=band,
                script_stem=stem or "job",
                flux_json=to_file and (output or "").lower().endswith(".json"),
                preserve=preserve,
            ),
        )
        pieces.append(files[0].text)
        extras += files[1:]
    if len(pieces) > 1 and target.document_separator is None:
        reporter.report(
            "E004",
            f"`{target.name}` holds one job per file, but the input has {len(pieces)}",
            help="convert the documents one by one",
        )
    extra_paths = _extra_paths(output, stem, extras, reporter) if extras else []
    for path in extra_paths:
        if _same_file(input_path, path):
            _fail(
                printer,
                EXIT_USAGE,
                "E013",
                f"the output `{path}` (written beside `{output}`) is the input file",
                f"name the output after another stem: `-o other{os.path.splitext(output or '')[1]}`"
                " writes `other" + extras[extra_paths.index(path)].suffix + "`",
                path,
            )
    printer.add(reporter.diagnostics, None, None)
    if _is_failure(reporter.diagnostics, strict):
        printer.flush()
        sys.exit(EXIT_ERRORS)
    out_text = (target.document_separator or "").join(pieces)

    if explain:
        from bammmc.explain import explain_text

        for c in compiled:
            sys.stderr.write(explain_text(c, target.name, diag_format, reporter.diagnostics))

    if output and output != "-":
        written = [(output, out_text, False)]
        written += [(p, f.text, f.executable) for p, f in zip(extra_paths, extras, strict=True)]
        try:
            _write_all_atomic(written)
        except OSError as exc:
            failed = exc.filename if isinstance(exc.filename, str) else output
            _fail(
                printer,
                EXIT_ERRORS,
                "E014",
                f"cannot write `{failed}`: {exc.strerror or exc}",
                "check that the directory exists and is writable",
                failed,
            )
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(out_text.encode("utf-8"))  # UTF-8 whatever the locale says
        sys.stdout.buffer.flush()
    printer.flush()
    if extra_paths and diag_format == "human":
        for path in extra_paths:
            click.echo(f"wrote {path}", err=True)


def _extra_paths(output: str | None, stem: str, extras: Sequence[Any], reporter: Any) -> list[str]:
    """Where the extra files of a multi-file output go: beside `-o`, named after its stem.
    E015 when there is no `-o` to name them after, or when one would be the main output."""
    if not output or output == "-":
        names = ", ".join(f"`{stem}{f.suffix}`" for f in extras)
        reporter.report(
            "E015",
            f"the conversion writes {len(extras) + 1} files (the main one and {names}), but "
            "standard output holds one",
            notes=("the main file names the others, so they are written beside it",),
            help="write to a file with `-o`, e.g. `-o job.sub`: the others go beside it",
        )
        return []
    paths = [os.path.join(os.path.dirname(output), stem + f.suffix) for f in extras]
    for path in paths:
        if _same_file(output, path) or os.path.abspath(output) == os.path.abspath(path):
            reporter.report(
                "E015",
                f"`{output}` would also be the name of the extra file `{path}`",
                help="give the output another extension, e.g. `-o "
                f"{os.path.join(os.path.dirname(output), stem)}.sub`",
            )
            return []
    return paths


# ── check ─────────────────────────────────────────────────────────────────────────────────


@main.command("check")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...")
@_common
def check_cmd(
    inputs: tuple[str, ...],
    src: str | None,
    diag_format: str,
    color: bool | None,
    strict: bool,
    band: Any,
    max_input_size: int | None,
    batch: bool,
    lsf_unit: str,
    sge_memory_resource: str,
) -> None:
    """Validate and lint INPUTs without converting them."""
    printer = _Printer(diag_format, color)
    clean = warned = failed = 0
    for path in inputs:
        compiled, diagnostics, text, name = _compile_input(
            path, src, band, max_input_size, batch, lsf_unit, sge_memory_resource
        )
        printer.add(diagnostics, name, text)
        if _is_failure(diagnostics, strict) or not compiled:
            failed += 1
        elif any(d.severity == "warning" for d in diagnostics):
            warned += 1
        else:
            clean += 1
    printer.flush()
    if diag_format == "human":
        total = len(inputs)
        noun = "file" if total == 1 else "files"
        click.echo(
            f"checked {total} {noun}: {clean} clean, {warned} with warnings, {failed} with errors",
            err=True,
        )
    sys.exit(EXIT_ERRORS if failed else EXIT_OK)


# ── codes / formats / schema ──────────────────────────────────────────────────────────────


@main.command("codes")
@click.argument("code", required=False)
def codes_cmd(code: str | None) -> None:
    """List diagnostic codes, or explain CODE (`E101` or `unknown-field`)."""
    from bammmc.diagnostics.codes import CODES, lookup

    if code is None:
        for c in CODES.values():
            flag = " (removed)" if c.removed else ""
            click.echo(f"{c.code}  {c.name:<28} {c.summary}{flag}")
        return
    found = lookup(code)
    if found is None:
        from bammmc.diagnostics.suggest import did_you_mean

        hint = did_you_mean(code, [*CODES, *(c.name for c in CODES.values())])
        _usage(f"unknown code `{code}`" + (f"; {hint}" if hint else ""))
    click.echo(found.explanation, nl=False)


@main.command("formats")
@click.option(
    "--matrix",
    is_flag=True,
    help="Print the conversion matrix (fields × targets, Markdown; docs/matrix.md).",
)
def formats_cmd(matrix: bool) -> None:
    """List the formats bammmc reads and writes."""
    from bammmc.registry import FORMATS

    if matrix:
        from bammmc.capabilities import matrix_markdown

        sys.stdout.write(matrix_markdown())
        return
    for fmt in FORMATS.values():
        exts = " ".join(fmt.extensions)
        click.echo(f"{fmt.name:<12} read write  {exts:<32} {fmt.description}")


@main.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of SPLAT."""
    import orjson

    from bammmc.ir.schema import json_schema

    click.echo(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":  # pragma: no cover
    main()
