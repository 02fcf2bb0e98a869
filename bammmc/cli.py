"""The ``bammmc`` command line.

    bammmc INPUT [-o OUT | --to FMT | --to all] [--from FMT] [--explain]
                 [--strict] [--allow CODE] [--deny CODE] [--config PATH | --no-config]
                 [--diagnostics human|json|sarif] [--color/--no-color]
    bammmc check INPUT...        validate and lint only
    bammmc codes [CODE]          list or explain diagnostic codes
    bammmc formats               formats, extensions, capabilities
    bammmc schema                JSON Schema of SPLAT (for editors)

Exit status (the one place it is defined; ``docs/cli.md`` repeats it):

* 0 — success (warnings allowed); with ``--to all``: at least one target converts the job
* 1 — errors in the input, or a warning made an error by ``--strict`` / ``--deny`` (nothing was
  written); with ``--to all``: errors in the input, or no target converts the job without an
  error (under ``--strict``: without loss)
* 2 — usage: bad options, unknown format or code, output path equal to the input, ``-o`` with
  ``--to all``, an invalid configuration file (E016)

Severity levels and the project configuration (``bammmc.toml``, ``[tool.bammmc]``) are
:mod:`bammmc.config`'s; ``--explain`` and the ``--to all`` table are :mod:`bammmc.explain`'s.
A first word that is not a subcommand is the INPUT of the convert command, so a file named
``check`` is reached as ``./check``. Diagnostics and ``--explain`` go to stderr; converted text to
stdout or ``-o``; the ``--to all`` table (which replaces the converted text) to stdout.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, NoReturn, TextIO

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
    """Format names, looked up only when an option is used (keeps start-up light). ``extra``
    words are accepted too without being listed in the error message (`--to all`)."""

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        super().__init__([], case_sensitive=False)
        self.extra = extra

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.lower() in self.extra:
            return value.lower()
        self.choices = tuple(_format_names())
        return super().convert(value, param, ctx)


def _selectors(action: str) -> Callable[[click.Context, click.Parameter, Any], tuple[str, ...]]:
    """The callback of `--allow`/`--deny`: each word as a code or code prefix."""

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> tuple[str, ...]:
        from bammmc.config import SelectorError, parse_selector

        out = []
        for word in value or ():
            try:
                out.append(parse_selector(word, action))  # type: ignore[arg-type]
            except SelectorError as exc:
                raise click.BadParameter(str(exc)) from None
        return tuple(out)

    return callback


def _common(f: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--from",
            "src",
            type=_FormatChoice(),
            metavar="FORMAT",
            help="Input format (default: detect; `bammmc formats` lists them).",
        ),
        click.option(
            "--diagnostics",
            "diag_format",
            type=click.Choice(["human", "json", "sarif"]),
            default="human",
            show_default=True,
            help="How to print diagnostics (to stderr).",
        ),
        click.option(
            "--color/--no-color",
            default=None,
            help="Colour diagnostics and tables (default: on a terminal, unless NO_COLOR is set).",
        ),
        click.option(
            "--strict/--no-strict",
            default=None,
            help="Treat W2xx/W3xx (lost/approximated) as errors (nothing is written).",
        ),
        click.option(
            "--allow",
            metavar="CODE",
            multiple=True,
            callback=_selectors("allow"),
            help="Silence a warning: a code (W201), its name, or a prefix (W3). Repeatable.",
        ),
        click.option(
            "--deny",
            metavar="CODE",
            multiple=True,
            callback=_selectors("deny"),
            help="Make a warning an error: a code, its name, or a prefix (W4). Repeatable.",
        ),
        click.option(
            "--config",
            "config_path",
            metavar="PATH",
            help="Read the configuration from PATH (default: the closest bammmc.toml or "
            "pyproject.toml with [tool.bammmc]).",
        ),
        click.option("--no-config", is_flag=True, help="Ignore every configuration file."),
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
            "-v",
            "--verbose",
            is_flag=True,
            help="Also print the notes (N codes: how a value was written, nothing to act on).",
        ),
        click.option(
            "--lsf-unit",
            type=click.Choice(["KB", "MB", "GB", "TB", "PB", "EB"], case_sensitive=False),
            default=None,
            help="The site's LSF_UNIT_FOR_LIMITS: the unit of bare LSF sizes (`-M 4000`); "
            "without it MB, as lsfinstall sets it, with a W302 where it decides.",
        ),
        click.option(
            "--lsf-reserve",
            type=click.Choice(["host", "task"], case_sensitive=False),
            default=None,
            help="How the LSF site reserves `rusage[mem=N]` for several slots: `task` when "
            "lsb.params sets RESOURCE_RESERVE_PER_TASK=y; without it per host (LSF's default), "
            "with a W302 where it decides.",
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


class _Configured(click.Command):
    """A command whose option defaults may come from the project configuration, and whose
    `--strict`/`--allow`/`--deny` (with the file's) become one ``policy`` parameter."""

    def invoke(self, ctx: click.Context) -> Any:
        _configure(self, ctx)
        return super().invoke(ctx)


def _configure(command: click.Command, ctx: click.Context) -> None:
    """Fill the options not given on the command line from the configuration file, and replace
    ``strict``, ``allow``, ``deny``, ``config_path``, ``no_config`` by ``policy``."""
    from click.core import ParameterSource

    from bammmc.config import ConfigError, Policy, Rule, conflicts, file_rules, find_config, load

    params = ctx.params
    explicit = params.pop("config_path")
    no_config = params.pop("no_config")
    strict = params.pop("strict")
    rules = [Rule(c, "allow", 1) for c in params.pop("allow")]
    rules += [Rule(c, "deny", 1) for c in params.pop("deny")]
    for selector in conflicts(rules):
        raise click.UsageError(f"`{selector}` is both in `--allow` and in `--deny`", ctx)
    if explicit and no_config:
        raise click.UsageError("`--config` and `--no-config` exclude each other", ctx)
    path = explicit
    if path is None and not no_config:
        found = find_config(os.getcwd())
        path = os.path.relpath(found) if found is not None else None  # shown as found from here
    config_strict: bool | None = None
    if path is not None:
        try:
            config = load(path)
            config_strict, config_rules = file_rules(config)
            rules = [*config_rules, *rules]
            options = {_long_name(p): p for p in command.params if isinstance(p, click.Option)}
            for key, raw in config.values.items():
                param = options.get(key)
                if key in ("strict", "allow", "deny") or param is None or param.name is None:
                    continue  # handled above, or an option of the other command
                if ctx.get_parameter_source(param.name) not in (
                    ParameterSource.DEFAULT,
                    ParameterSource.DEFAULT_MAP,
                ):
                    continue  # the command line wins
                expected = _toml_kind(param)
                if not isinstance(raw, expected) or (expected is int and isinstance(raw, bool)):
                    from bammmc.config import _toml_type

                    names = {bool: "`true` or `false`", int: "an integer", str: "a string"}
                    raise config.error(
                        f"`{key}` must be {names[expected]}, not {_toml_type(raw)}",
                        key,
                        help=f"`bammmc {command.name} --help` describes `--{key}`",
                    )
                try:
                    params[param.name] = param.process_value(ctx, raw)
                except click.BadParameter as exc:
                    raise config.error(
                        f"invalid `{key}`: {exc.message}",
                        key,
                        help=f"`bammmc {command.name} --help` describes `--{key}`",
                    ) from None
        except ConfigError as exc:
            printer = _Printer(params.get("diag_format", "human"), params.get("color"))
            diag = exc.diagnostic
            printer.add([diag], diag.path, exc.text)
            printer.flush()
            sys.exit(EXIT_USAGE)
    params["policy"] = Policy(
        strict=bool(config_strict) if strict is None else strict,
        rules=tuple(rules),
        verbose=bool(params.pop("verbose")),
    )
    unit, reserve = params.pop("lsf_unit"), params.pop("lsf_reserve")
    params["site"] = Site(
        lsf_unit=unit and unit.upper(),
        lsf_reserve=reserve and reserve.lower(),
        sge_memory_resource=params.pop("sge_memory_resource"),
    )


@dataclass(frozen=True)
class Site:
    """What bammmc cannot see of the clusters: `--lsf-unit`, `--lsf-reserve` (None when not
    given) and `--sge-memory-resource`."""

    lsf_unit: str | None = None
    lsf_reserve: str | None = None
    sge_memory_resource: str = "h_vmem"

    def read(self, **more: Any) -> Any:
        """The reader options with these settings."""
        from bammmc.pipeline import Options

        return Options(
            lsf_unit=self.lsf_unit,
            lsf_reserve=self.lsf_reserve,
            sge_memory_resource=self.sge_memory_resource,
            **more,
        )

    def write(self, **more: Any) -> Any:
        """The writer options with these settings."""
        from bammmc.backends import WriteOptions

        return WriteOptions(
            lsf_unit=self.lsf_unit,
            lsf_reserve=self.lsf_reserve,
            sge_memory_resource=self.sge_memory_resource,
            **more,
        )


def _long_name(param: click.Option) -> str:
    longs = [o[2:] for o in param.opts if o.startswith("--")]
    return longs[0] if longs else param.name or ""


def _toml_kind(param: click.Option) -> type:
    """The TOML type a configuration value for ``param`` must have."""
    if param.is_flag or param.is_bool_flag or isinstance(param.type, click.types.BoolParamType):
        return bool
    if isinstance(param.type, click.types.IntParamType):
        return int
    return str


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bammmc")
def main() -> None:
    """Convert batch job specifications between schedulers, through SPLAT.

    Run `bammmc INPUT --to FORMAT` to convert, `bammmc check FILES` to validate,
    `bammmc formats` for the formats, `bammmc codes CODE` to explain a diagnostic.
    """


# ── shared plumbing ───────────────────────────────────────────────────────────────────────


def _use_color(stream: TextIO, color: bool | None) -> bool:
    """Colour when asked (`--color`/`--no-color`), else on a terminal unless NO_COLOR is set
    (https://no-color.org: any non-empty value)."""
    if color is not None:
        return color
    return stream.isatty() and not os.environ.get("NO_COLOR")


def _summary(shown: Sequence[Any], hidden: int) -> str:
    """`2 warnings, 1 note not shown (`-v` shows it)`: what was printed, as printed (alike
    warnings merged), and the notes left out."""
    counts = {"error": 0, "warning": 0, "note": 0}
    for d in shown:
        counts[d.severity] = counts.get(d.severity, 0) + 1
    parts = [f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in counts.items() if n]
    if hidden:
        parts.append(
            f"{hidden} note{'s' if hidden > 1 else ''} not shown "
            f"(`-v` shows {'them' if hidden > 1 else 'it'})"
        )
    return ", ".join(parts)


class _Printer:
    """Collects diagnostics and source texts, prints them once, in the chosen form; with a
    ``policy``, allowed diagnostics are dropped and promoted ones printed as errors."""

    def __init__(
        self,
        diag_format: str,
        color: bool | None,
        stream: TextIO | None = None,
        policy: Any = None,
    ) -> None:
        self.diag_format = diag_format
        self.stream = stream or sys.stderr
        self.color = _use_color(self.stream, color)
        self.policy = policy
        self.sources: dict[str | None, str] = {}
        self.diagnostics: list[Any] = []
        #: ``--explain`` tables: (rows, summary object, number of jobs)
        self.explained: list[tuple[list[dict[str, Any]], dict[str, Any], int]] = []

    def add(self, diagnostics: Sequence[Any], source_name: str | None, text: str | None) -> None:
        if text is not None:
            self.sources[source_name] = text
        if self.policy is not None:
            diagnostics = self.policy.apply(diagnostics)
        self.diagnostics.extend(diagnostics)

    def flush(self) -> None:
        from bammmc.diagnostics.model import sort_key

        diags, self.diagnostics = self.diagnostics, []
        explained, self.explained = self.explained, []
        diags.sort(key=sort_key)
        if self.diag_format == "json":
            from bammmc.diagnostics.render import json as render_json

            self.stream.write(render_json.render(diags))
        elif self.diag_format == "sarif":
            from bammmc.diagnostics.render import sarif

            properties = None
            if explained:  # the SARIF log is one document: the tables go into its property bag
                properties = {
                    "explain": [row for table, _, _ in explained for row in table],
                    "explainSummaries": [summary for _, summary, _ in explained],
                }
            self.stream.write(sarif.render(diags, properties))
        else:
            from bammmc.diagnostics.model import merge_alike
            from bammmc.diagnostics.render import human

            shown = diags
            if self.policy is None or not self.policy.verbose:
                shown = [d for d in diags if d.severity != "note"]
            hidden = len(diags) - len(shown)
            shown = merge_alike(shown)
            if shown and self.color:
                human.print_color(shown, self.sources, self.stream)
            elif shown:
                self.stream.write(human.render(shown, self.sources))
            if shown:  # one summary line; a clean conversion stays silent
                self.stream.write("\n" + _summary(shown, hidden) + "\n")
            diags = shown
        if explained and self.diag_format != "sarif":
            from bammmc import explain

            for i, (table, summary, jobs) in enumerate(explained):
                if self.diag_format == "json":
                    self.stream.write(explain.json_lines(table, summary))
                    continue
                if diags or i:
                    self.stream.write("\n")
                line = explain.summary_line(summary, jobs)
                totals = summary.get("totals")
                if self.color:
                    self.stream.flush()
                    explain.print_rich(table, line, self.stream, True, totals)
                else:
                    self.stream.write(explain.plain(table, line, totals))
        self.stream.flush()


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
    site: Site | None = None,
) -> tuple[list[Any], list[Any], str | None, str, Any]:
    """Read and compile one input: (compiled jobs, diagnostics, text, display name, format)."""
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import compile_text, get_format
    from bammmc.registry import check_explicit, detect
    from bammmc.source import MAX_INPUT_SIZE, read_input

    name = "<stdin>" if path == "-" else path
    reporter = Reporter(name)
    source = read_input(path, reporter, max_input_size or MAX_INPUT_SIZE)
    if source is None:
        return [], reporter.diagnostics, None, name, None
    fmt = get_format(src.lower()) if src else detect(source.path, source.text, reporter)
    if fmt is None or (src and not check_explicit(fmt, source.text, reporter)):
        return [], reporter.diagnostics, source.text, name, None
    compiled = compile_text(
        source.text, fmt, reporter, (site or Site()).read(band=band, batch=batch)
    )
    return compiled, reporter.diagnostics, source.text, name, fmt


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
    given = ""  # the path as the user gave it, for the error
    try:
        for path, text, executable in files:
            given = path
            if os.path.islink(path):  # write through a symlink to its target, keeping the link
                path = os.path.realpath(path)
            directory = os.path.dirname(os.path.abspath(path))
            _make_directory(directory, given)  # `-o new/dir/job.pbs` makes `new/dir`
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
        for (shown, _, _), (tmp, path, existed) in zip(
            reversed(files), reversed(staged), strict=True
        ):
            given = shown
            os.replace(tmp, path)
            if not existed:
                renamed.append(path)
    except BaseException as exc:
        for tmp, _, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for path in renamed:
            with contextlib.suppress(OSError):
                os.unlink(path)
        if isinstance(exc, OSError):
            raise _WriteError(given, exc.strerror or str(exc)) from None
        raise


def _make_directory(directory: str, given: str) -> None:
    """``mkdir -p directory``; a part of the way that is a file is a :class:`_WriteError`
    naming it (os.makedirs would only say "File exists")."""
    if os.path.isdir(directory):
        return
    part = directory
    while not os.path.exists(part) and os.path.dirname(part) != part:
        part = os.path.dirname(part)
    if os.path.exists(part) and not os.path.isdir(part):
        shown = os.path.relpath(part) if not os.path.isabs(given) else part
        raise _WriteError(given, f"`{shown}` is a file, not a directory")
    os.makedirs(directory, exist_ok=True)


class _WriteError(Exception):
    """Writing an output failed: the path as the user gave it (never the temporary file)."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(path, why)
        self.path = path
        self.why = why


#: the line that marks a file beside `-o` as bammmc's own (an HTCondor job's script): such a
#: file is replaced on the next conversion; any other file there is the user's (E017)
MARKER: Final = "# bammmc: written with `{main}`; converting again replaces this file"


def _names_directory(output: str) -> bool:
    """`-o DIR/` or an existing directory: the output is named after the input, inside it."""
    return output.endswith(("/", os.sep)) or os.path.isdir(output)


def _in_directory(directory: str, input_path: str, target: Any) -> str:
    """``DIR/<input stem>.<target extension>``: `-o out/ --to pbs` of `run.sbatch` is
    `out/run.pbs` (the stem drops the input's format extension, `.jobspec.yaml` included)."""
    from bammmc.registry import by_extension

    if input_path == "-":
        _usage(
            f"`-o {directory}` names the output after the input, and standard input has no "
            "name: give the output file's name"
        )
    name = os.path.basename(input_path.rstrip("/"))
    fmt = by_extension(name)
    ext = next((e for e in fmt.extensions if name.lower().endswith(e)), "") if fmt else ""
    stem = name[: len(name) - len(ext)] if ext else os.path.splitext(name)[0]
    return os.path.join(directory, (stem or "job") + target.extensions[0])


def _special(path: str) -> str | None:
    """What an existing path is when bammmc must not replace it with a regular file (a
    device, a FIFO, a socket, a directory), or None."""
    import stat

    try:
        mode = os.stat(path).st_mode  # through a symlink: `-o link-to-/dev/null` too
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    for test, what in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return "not a regular file"


def _read_only(path: str) -> bool:
    """An existing regular file without any write permission bit (also for root, who could
    write it: the mode says the owner meant it to stay)."""
    try:
        return os.stat(path).st_mode & 0o222 == 0
    except OSError:
        return False


def _is_input(input_path: str, path: str) -> bool:
    """``path`` is the file being read: the same path, link or inode, also when the input came
    on standard input redirected from that file (`bammmc - -o job.pbs < job.pbs`)."""
    if input_path != "-":
        return _same_file(input_path, path)
    try:
        here, there = os.fstat(sys.stdin.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError):
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _check_output(printer: _Printer, input_path: str, output: str, force: bool) -> None:
    """E013 for `-o` that is the input, E011 for a device, FIFO, socket or directory, E012 for
    a read-only file (unless `--force`): each before anything is read."""
    if _is_input(input_path, output):
        _fail(
            printer,
            EXIT_USAGE,
            "E013",
            f"the output `{output}` is the input file",
            "write the conversion to another path",
            output,
        )
    what = _special(output)
    if what is not None:
        _fail(
            printer,
            EXIT_USAGE,
            "E011",
            f"the output `{output}` is {what}, which bammmc does not replace with a file",
            "write to a regular file; to print the conversion, leave out `-o` (or `-o -`)",
            output,
        )
    if _read_only(output) and not force:
        _fail(
            printer,
            EXIT_USAGE,
            "E012",
            f"the output `{output}` is read-only",
            "write to another path, or pass `--force` to replace it",
            output,
        )


def _check_companion(
    printer: _Printer, input_path: str, output: str, path: str, extra: Any, force: bool
) -> None:
    """A file written beside `-o` (an HTCondor job's script): E013 when it is the input, E011
    when it is not a regular file, E018 when the script runs a file of its own name (it would
    call itself), E017 when a file is there that bammmc did not write (unless `--force`)."""
    main = os.path.basename(output)
    other = f"`-o other{os.path.splitext(output)[1]}` writes `other{extra.suffix}`"
    if _is_input(input_path, path):
        _fail(
            printer,
            EXIT_USAGE,
            "E013",
            f"the output `{path}` (written beside `{output}`) is the input file",
            f"name the output after another stem: {other}",
            path,
        )
    what = _special(path)
    if what is not None:
        _fail(
            printer,
            EXIT_USAGE,
            "E011",
            f"`{path}` (written beside `{output}`) is {what}",
            f"name the output after another stem: {other}",
            path,
        )
    if _calls(extra.text, os.path.basename(path)):
        _fail(
            printer,
            EXIT_USAGE,
            "E018",
            f"the script written as `{path}` runs `{os.path.basename(path)}`: it would call itself",
            f"name the output after another stem: {other}",
            path,
        )
    if os.path.lexists(path) and not force and not _ours(path, main):
        _fail(
            printer,
            EXIT_USAGE,
            "E017",
            f"`{path}` exists and bammmc did not write it; `{main}` needs its own script there",
            f"name the output after another stem ({other}), or pass `--force` to replace it",
            path,
        )
    if _read_only(path) and not force:
        _fail(
            printer,
            EXIT_USAGE,
            "E012",
            f"`{path}` (written beside `{output}`) is read-only",
            f"name the output after another stem ({other}), or pass `--force` to replace it",
            path,
        )


def _calls(script: str, name: str) -> bool:
    """Does ``script`` name the file ``name`` as a word (`bash train.sh`, `./train.sh`,
    `source train.sh`)? Written as that name, the script would run itself."""
    import re

    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", script) is not None


def _ours(path: str, main: str) -> bool:
    """Is ``path`` a file bammmc wrote beside an output (its marker line among the first
    three lines)? Any marker counts: the file may have been written for another `-o`."""
    prefix = MARKER.split("`", 1)[0]
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace").split("\n")[:3]
    except OSError:
        return False
    return any(line.startswith(prefix) for line in head)


def _marked(extra: Any, main: str) -> Any:
    """``extra`` with the marker line after its `#!` line (or first), naming the main file."""
    from dataclasses import replace

    line = MARKER.format(main=main) + "\n"
    text = extra.text
    if text.startswith("#!"):
        first, nl, rest = text.partition("\n")
        text = first + nl + line + rest
    else:
        text = line + text
    return replace(extra, text=text)


def _same_file(a: str, b: str) -> bool:
    if a == "-" or b == "-":
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


# ── convert ───────────────────────────────────────────────────────────────────────────────


@main.command("convert", cls=_Configured)
@click.argument("input_path", metavar="INPUT")
@click.option("-o", "--output", metavar="OUT", help="Write here (default: stdout; `-` = stdout).")
@click.option(
    "--to",
    "dst",
    type=_FormatChoice(extra=("all",)),
    metavar="FORMAT|all",
    help="Target format (default: from -o); `all`: a table of what every target keeps.",
)
@click.option("--explain", is_flag=True, help="Print what each field became (to stderr).")
@click.option(
    "--preserve",
    is_flag=True,
    help="Keep what the target cannot express in a block it ignores, so that converting the "
    "output back restores it (docs/preserve.md).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace a read-only output file, or a file beside `-o` (an HTCondor job's script) "
    "that bammmc did not write.",
)
@click.option(
    "--container-runtime",
    type=click.Choice(["apptainer", "singularity"]),
    default="apptainer",
    show_default=True,
    help="How HPC targets run a container image.",
)
@click.option(
    "--no-rewrite-body",
    "rewrite_body",
    flag_value=False,
    default=True,
    help="Keep the script's launcher lines (`srun`, `flux run` …) as written, and only report "
    "the ones the target has no such launcher for.",
)
@_common
def convert_cmd(
    input_path: str,
    output: str | None,
    dst: str | None,
    explain: bool,
    preserve: bool,
    force: bool,
    container_runtime: str,
    rewrite_body: bool,
    src: str | None,
    diag_format: str,
    color: bool | None,
    policy: Any,
    band: Any,
    max_input_size: int | None,
    batch: bool,
    site: Site,
) -> None:
    """Convert INPUT to another format (`-` reads stdin)."""
    from bammmc.pipeline import get_format

    if dst == "all":
        if output:
            _usage("`--to all` writes nothing, so it takes no `-o`; convert to one target for that")
        _convert_all(
            input_path,
            explain,
            container_runtime,
            rewrite_body,
            src,
            diag_format,
            color,
            policy,
            band,
            max_input_size,
            batch,
            site,
        )
    into_directory = bool(output) and output != "-" and _names_directory(output or "")
    if dst is None:
        if output and output != "-" and not into_directory:
            from bammmc.registry import target_for

            fmt = target_for(output)
            if fmt is None:
                _usage(f"cannot tell the target format from `{output}`; add `--to FORMAT`")
            dst = fmt.name
        elif into_directory:
            _usage(f"`-o {output}` is a directory: add `--to FORMAT` to name the files in it")
        else:
            _usage("no target format: add `--to FORMAT` or `-o FILE` with a known extension")
    target = get_format(dst.lower())
    printer = _Printer(diag_format, color, policy=policy)
    if into_directory:
        output = _in_directory(output or "", input_path, target)
    if output and output != "-":
        _check_output(printer, input_path, output, force)

    compiled, diagnostics, text, name, _ = _compile_input(
        input_path, src, band, max_input_size, batch, site
    )
    printer.add(diagnostics, name, text)
    if policy.fails(diagnostics) or not compiled or any(c.job is None for c in compiled):
        printer.flush()
        sys.exit(EXIT_ERRORS)

    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import emit_job

    to_file = bool(output) and output != "-"
    # extra files (an HTCondor job's script) are named after the main output's stem
    stem = os.path.splitext(os.path.basename(output or ""))[0] if to_file else "job"
    reporter = Reporter(name)
    pieces = []
    per_job: list[list[Any]] = []  # each job's own target diagnostics, for --explain
    extras: list[Any] = []
    for c in compiled:
        before = len(reporter.diagnostics)
        files = emit_job(
            c.job,
            target,
            reporter,
            c.source_map,
            site.write(
                container_runtime=container_runtime,
                rewrite_body=rewrite_body,
                band=band,
                script_stem=stem or "job",
                flux_json=to_file and (output or "").lower().endswith(".json"),
                preserve=preserve,
            ),
        )
        per_job.append(reporter.diagnostics[before:])
        pieces.append(files[0].text)
        extras += files[1:]
    if len(pieces) > 1 and target.document_separator is None:
        reporter.report(
            "E004",
            f"`{target.name}` holds one job per file, but the input has {len(pieces)}",
            help="convert the documents one by one",
        )
    extra_paths = _extra_paths(output, stem, extras, reporter) if extras else []
    for path, extra in zip(extra_paths, extras, strict=False):
        _check_companion(printer, input_path, output or "", path, extra, force)
    if extra_paths:
        extras = [_marked(f, os.path.basename(output or "")) for f in extras]
    printer.add(reporter.diagnostics, None, None)
    if explain:  # also when the conversion fails: the table says why
        options = site.read(band=band)
        for i, (c, piece, own) in enumerate(zip(compiled, pieces, per_job, strict=True)):
            _explain(
                printer,
                c,
                target,
                [*diagnostics, *own],
                text,
                name,
                i + 1,
                len(compiled),
                piece,
                options,
            )
    if policy.fails(reporter.diagnostics):
        printer.flush()
        sys.exit(EXIT_ERRORS)
    out_text = (target.document_separator or "").join(pieces)

    if output and output != "-":
        written = [(output, out_text, False)]
        written += [(p, f.text, f.executable) for p, f in zip(extra_paths, extras, strict=True)]
        try:
            _write_all_atomic(written)
        except _WriteError as exc:
            _fail(
                printer,
                EXIT_ERRORS,
                "E014",
                f"cannot write `{exc.path}`: {exc.why}",
                "check that the directory is writable and the disk not full",
                exc.path,
            )
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(out_text.encode("utf-8"))  # UTF-8 whatever the locale says
        sys.stdout.buffer.flush()
    printer.flush()
    if extra_paths and diag_format == "human":
        for path in extra_paths:
            click.echo(f"wrote {path}", err=True)


def _explain(
    printer: _Printer,
    compiled: Any,
    target: Any,
    diagnostics: Sequence[Any],
    text: str | None,
    name: str,
    job: int,
    jobs: int,
    output: str | None,
    options: Any,
) -> list[dict[str, Any]]:
    """Queue one job's ``--explain`` table on ``printer``; return its rows."""
    from bammmc import explain

    readback = explain.read_back(output, target, options) if output is not None else None
    table = explain.rows(
        compiled, target.name, diagnostics, source=text, file=name, readback=readback, job=job
    )
    totals = explain.job_totals(compiled, readback, diagnostics)
    printer.explained.append((table, explain.summary(table, target.name, job, totals), jobs))
    return table


def _convert_all(
    input_path: str,
    explain: bool,
    container_runtime: str,
    rewrite_body: bool,
    src: str | None,
    diag_format: str,
    color: bool | None,
    policy: Any,
    band: Any,
    max_input_size: int | None,
    batch: bool,
    site: Site,
) -> NoReturn:
    """`--to all`: convert to every registered format but the input's, write nothing, and print
    one row per target (exact / approximated / lost fields, errors) to stdout. Exit 1 when the
    input has errors or no target converts it without an error under the policy."""
    from bammmc import explain as report
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import emit_job
    from bammmc.registry import FORMATS

    printer = _Printer(diag_format, color, policy=policy)
    compiled, diagnostics, text, name, fmt = _compile_input(
        input_path, src, band, max_input_size, batch, site
    )
    printer.add(diagnostics, name, text)
    if policy.fails(diagnostics) or not compiled or any(c.job is None for c in compiled):
        printer.flush()
        sys.exit(EXIT_ERRORS)
    options = site.read(band=band)
    table = []
    for target in FORMATS.values():
        if target is fmt:
            continue
        reporter = Reporter(name)
        rows: list[dict[str, Any]] = []
        for i, c in enumerate(compiled):
            before = len(reporter.diagnostics)
            files = emit_job(
                c.job,
                target,
                reporter,
                c.source_map,
                site.write(
                    container_runtime=container_runtime, rewrite_body=rewrite_body, band=band
                ),
            )
            own = [*diagnostics, *reporter.diagnostics[before:]]
            if explain:
                rows += _explain(
                    printer,
                    c,
                    target,
                    own,
                    text,
                    name,
                    i + 1,
                    len(compiled),
                    files[0].text,
                    options,
                )
            else:
                rows += report.rows(c, target.name, own)
        if len(compiled) > 1 and target.document_separator is None:
            reporter.report(
                "E004",
                f"`{target.name}` holds one job per file, but the input has {len(compiled)}",
                help="convert the documents one by one",
            )
        errors = [d for d in reporter.diagnostics if policy.level(d.code) == "error"]
        table.append(report.target_row(target.name, rows, errors))
    printer.flush()
    if diag_format == "json":
        out = report.targets_json(table)
    elif _use_color(sys.stdout, color):
        sys.stdout.flush()
        report.targets_rich(table, sys.stdout, True)
        out = ""
    else:
        out = report.targets_plain(table)
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.exit(EXIT_OK if any(r["status"] != "fails" for r in table) else EXIT_ERRORS)


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


@main.command("check", cls=_Configured)
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...")
@_common
def check_cmd(
    inputs: tuple[str, ...],
    src: str | None,
    diag_format: str,
    color: bool | None,
    policy: Any,
    band: Any,
    max_input_size: int | None,
    batch: bool,
    site: Site,
) -> None:
    """Validate and lint INPUTs without converting them."""
    printer = _Printer(diag_format, color, policy=policy)
    clean = warned = failed = 0
    for path in inputs:
        compiled, diagnostics, text, name, _ = _compile_input(
            path, src, band, max_input_size, batch, site
        )
        printer.add(diagnostics, name, text)
        if policy.fails(diagnostics) or not compiled:
            failed += 1
        elif any(d.severity == "warning" for d in policy.apply(diagnostics)):
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
    click.echo(
        "\nThe input's format: `--from`, else the extension, else the content. Content beats "
        "the extension\nwhen the file holds none of its format's markers and those of exactly "
        "one other (`run.sub`\nwith `#SBATCH` lines is Slurm, N002); a `.pbs`/`.qsub` file with "
        "Torque-only constructs is\nTorque. `--from` on a file written for another scheduler "
        "is E019. docs/cli.md has the rule."
    )


@main.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of SPLAT."""
    import orjson

    from bammmc.ir.schema import json_schema

    click.echo(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":  # pragma: no cover
    main()
