"""The Slurm reader's front half (format ``slurm``): sbatch script -> option occurrences with spans.

Scans exactly as sbatch does (shared/docs/formats/slurm.md §1, Slurm's `_opt_batch_script` and
`get_argument`): `#SBATCH` at column 0 only, scanning stops at the first command, quotes and
backslashes and an unquoted `#` as sbatch's tokenizer treats them, several options per line,
`#SBATCH hetjob` starting the next component; then getopt_long's rules for long, short,
glued, separate and abbreviated options. All of it through ``grammars/slurm.lark``.

Siblings: ``passes/lower/slurm.py`` (occurrences -> IR), ``backends/slurm.py`` (the writer),
``backends/slurm_options.py`` (the option table both read).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bammmc import grammars
from bammmc.backends.slurm_options import (
    ALIASES,
    LONG_NAMES,
    OPTIONS,
    PLUGIN_OPTIONS,
    SHORT,
    Option,
)
from bammmc.diagnostics.model import Reporter, Span
from bammmc.diagnostics.suggest import did_you_mean
from bammmc.frontends.limits import DirectiveBudget
from bammmc.ir.envvars import strip_compatibility_block

if TYPE_CHECKING:
    from lark import Lark, Token

MAGIC = ("#SBATCH", "#SLURM")


def parser(start: str) -> Lark:
    return grammars.parser("slurm", start)


@dataclass
class Word:
    """One argument of a directive, unquoted and unescaped, with its span."""

    text: str
    span: Span
    quoted: bool = False


@dataclass
class Occurrence:
    """One option as written: canonical long name, value (``None`` for a flag), spans."""

    name: str
    value: str | None
    span: Span
    value_span: Span | None
    written: str
    component: int = 0


@dataclass
class SlurmScript:
    components: list[list[Occurrence]] = field(default_factory=list)
    #: the script without its `#SBATCH` directive lines (shebang, comments and body kept)
    script: str = ""
    #: 1-based line numbers of the directive lines
    directive_lines: list[int] = field(default_factory=list)
    #: words of the current component not yet turned into options
    pending: list[Word] = field(default_factory=list)


def sniff(text: str) -> bool:
    return any(line.startswith(MAGIC) for line in text[:65536].split("\n"))


def _span(file: str | None, line: int, column: int, width: int, offset: int) -> Span:
    return Span(
        file=file,
        line=line,
        column=column,
        end_line=line,
        end_column=column + max(width, 1),
        start=offset,
        end=offset + max(width, 1),
    )


def scan(text: str, reporter: Reporter) -> SlurmScript:
    """Find the directives as sbatch does and split them into options."""
    from lark.exceptions import UnexpectedInput

    file = reporter.file
    result = SlurmScript(components=[[]])
    if "\r\n" in text:
        first = text.index("\r\n")
        line = text.count("\n", 0, first) + 1
        reporter.report(
            "W405",
            "the script has DOS line ends (CRLF); sbatch refuses such scripts",
            _span(file, line, first - (text.rfind("\n", 0, first) + 1) + 1, 2, first),
            help="convert the file with `dos2unix`",
        )
    try:
        tree = parser("script").parse(text)
    except UnexpectedInput as exc:  # pragma: no cover - the scanner accepts every text
        reporter.report("E020", f"cannot scan the script: {exc}")
        return result
    kept: list[str] = []
    cursor = 0
    rest_token: Token | None = None
    budget = DirectiveBudget(reporter, "#SBATCH")
    for tok in tree.children:
        assert not isinstance(tok, str) or hasattr(tok, "type")
        kind = tok.type  # type: ignore[union-attr]
        if kind == "REST":
            rest_token = tok  # type: ignore[assignment]
            break
        if kind == "COMMENT":
            _misplaced_directive(str(tok), tok, reporter)  # type: ignore[arg-type]
            continue
        if kind != "DIRECTIVE":
            continue
        if not budget.spend_token(tok):
            break
        start = tok.start_pos or 0  # type: ignore[union-attr]
        end = tok.end_pos or start  # type: ignore[union-attr]
        # drop the directive line (and its newline) from the script text
        kept.append(text[cursor:start])
        cursor = end + 1 if text[end : end + 1] == "\n" else end
        line = tok.line or 1  # type: ignore[union-attr]
        result.directive_lines.append(line)
        magic = "#SBATCH" if str(tok).startswith("#SBATCH") else "#SLURM"
        if magic == "#SLURM":
            reporter.report(
                "W406",
                "`#SLURM` is a deprecated spelling of `#SBATCH`",
                _span(file, line, 1, 6, start),
                help="write `#SBATCH`",
            )
        _directive(
            str(tok)[len(magic) :], line, len(magic) + 1, start + len(magic), reporter, result
        )
    _flush(reporter, result)
    kept.append(text[cursor:])
    result.script = "".join(kept)
    result.script = _without_compatibility_block(result.script)
    if text.strip() and not text.startswith("#!"):
        reporter.report(
            "W409",
            "the script does not start with a `#!` line; sbatch refuses it",
            _span(file, 1, 1, max(1, len(text.split("\n", 1)[0])), 0),
            notes=("bammmc writes `#!/bin/bash` (or `execution.shell`) in front of it",),
            help="start the script with `#!/bin/bash`",
        )
    if rest_token is not None:
        _late_directives(text, rest_token, reporter)
    _foreign_directives(text, reporter, result)
    return result


def _directive(
    body: str, line: int, column: int, offset: int, reporter: Reporter, result: SlurmScript
) -> None:
    from lark.exceptions import UnexpectedInput

    file = reporter.file
    stripped = body.lstrip()
    lead = len(body) - len(stripped)
    first = stripped.split(None, 1)[0] if stripped.split(None, 1) else ""
    if first.lower() in ("hetjob", "packjob") and (
        len(stripped) == len(first) or stripped[len(first)].isspace()
    ):
        _flush(reporter, result)
        result.components.append([])
        rest = stripped[len(first) :].split("#", 1)[0].strip()
        if rest:
            col = (
                column
                + lead
                + len(first)
                + (len(stripped[len(first) :]) - len(stripped[len(first) :].lstrip()))
            )
            reporter.report(
                "W402",
                f"sbatch ignores `{rest}` after `{first}`",
                _span(file, line, col, len(rest), offset + col - column),
                notes=("options on a `hetjob` line are silently dropped by sbatch",),
                help="put the component's options on the next `#SBATCH` line",
            )
        return
    try:
        tree = parser("args").parse(body)
    except UnexpectedInput as exc:
        pos = getattr(exc, "pos_in_stream", None) or 0
        quote = body[pos : pos + 1]
        if quote in ("'", '"'):
            message = f"unmatched `{quote}` in a directive"
            help_text = f"close the quote, or escape it as `\\{quote}`"
        else:
            message = f"cannot read the directive at `{body[pos : pos + 10]}`"
            help_text = "check the quoting of this directive"
        reporter.report(
            "E020",
            message,
            _span(file, line, column + pos, 1, offset + pos),
            notes=("sbatch rejects the script",),
            help=help_text,
        )
        return
    words: list[Word] = []
    for node in tree.children:
        if getattr(node, "data", None) != "word":
            continue
        parts = node.children  # type: ignore[union-attr]
        text = "".join(_unquote(str(p), p.type) for p in parts)  # type: ignore[union-attr]
        start = parts[0].start_pos or 0  # type: ignore[union-attr]
        end = parts[-1].end_pos or start  # type: ignore[union-attr]
        quoted = any(p.type in ("DQ", "SQ", "ESC") for p in parts)  # type: ignore[union-attr]
        words.append(
            Word(text, _span(file, line, column + start, end - start, offset + start), quoted)
        )
    if words and words[0].text.startswith(":"):
        reporter.report(
            "E133",
            "unexpected `:` in a directive",
            words[0].span,
            notes=("`:` separates heterogeneous components only on the command line",),
            help="start the next component with `#SBATCH hetjob`",
        )
        return
    for word in words:
        if word.text.lower() in ("hetjob", "packjob") and not word.quoted:
            # sbatch blanks the word and reads nothing after it on this line (checked)
            reporter.report(
                "W402",
                f"sbatch ignores `{word.text}` and the rest of this line",
                word.span,
                help="a component separator must be the first word of its own `#SBATCH` line",
            )
            break
        result.pending.append(word)


def _flush(reporter: Reporter, result: SlurmScript) -> None:
    """All directive lines of a component form one argument list (a value may even sit on
    the next `#SBATCH` line, as sbatch's getopt sees it)."""
    words, result.pending = result.pending, []
    _options(words, reporter, result)


def _unquote(text: str, kind: str) -> str:
    if kind == "ESC":
        return text[1:]
    if kind in ("DQ", "SQ"):
        inner = text[1:-1]
        out, i = [], 0
        while i < len(inner):
            if inner[i] == "\\" and i + 1 < len(inner):
                out.append(inner[i + 1])
                i += 2
            else:
                out.append(inner[i])
                i += 1
        return "".join(out)
    return text


def _lookup_long(name: str, word: Word, reporter: Reporter) -> Option | None:
    canonical = ALIASES.get(name, name)
    if canonical in OPTIONS:
        return OPTIONS[canonical]
    if name in PLUGIN_OPTIONS:
        plugin = PLUGIN_OPTIONS[name]
        reporter.report(
            "W408",
            f"`--{name}` is an option of the {plugin.plugin} SPANK plugin, not of sbatch",
            word.span,
            notes=("sbatch accepts it only on clusters that install the plugin",),
            help="check that the target cluster has the plugin; bammmc keeps the option as is",
        )
        return plugin
    matches = sorted({ALIASES.get(n, n) for n in LONG_NAMES if n.startswith(name)})
    if len(matches) == 1 and name:
        reporter.report(
            "W403",
            f"`--{name}` is an abbreviation of `--{matches[0]}`",
            word.span,
            notes=("sbatch's getopt accepts unique prefixes; other tools and readers may not",),
            help=f"write `--{matches[0]}`",
        )
        return OPTIONS[matches[0]]
    if len(matches) > 1:
        shown = ", ".join(f"`--{m}`" for m in matches[:6])
        reporter.report(
            "E136",
            f"`--{name}` is ambiguous: it abbreviates {shown}",
            word.span,
            help="write the option in full",
        )
        return None
    reporter.report(
        "E130",
        f"unknown sbatch option `--{name}`",
        word.span,
        label="sbatch rejects the script",
        help=did_you_mean(name, OPTIONS, wrap="--%s") or "see `man sbatch` for the options",
    )
    return None


def _options(words: list[Word], reporter: Reporter, result: SlurmScript) -> None:
    component = len(result.components) - 1
    out = result.components[-1]
    i = 0
    while i < len(words):
        word = words[i]
        text = word.text
        i += 1
        if text == "--":  # getopt: end of options; everything after is a stray word
            for stray in words[i:]:
                reporter.report(
                    "E133",
                    f"`{stray.text}` is not an option (it follows `--`)",
                    stray.span,
                    notes=('sbatch rejects the script: "Invalid directive found in batch script"',),
                    help="remove the `--`",
                )
            return
        if text.startswith("--") and len(text) > 2:
            name, eq, value = text[2:].partition("=")
            opt = _lookup_long(name, word, reporter)
            if opt is None:
                continue
            value_span = word.span.shifted(2 + len(name) + 1, len(text)) if eq else None
            if opt.arg == "none" and eq:
                reporter.report(
                    "E132",
                    f"`--{opt.long}` takes no value",
                    word.span,
                    help=f"write `--{opt.long}` alone",
                )
                continue
            if opt.arg == "required" and not eq:
                if i >= len(words):
                    reporter.report(
                        "E131",
                        f"`--{opt.long}` needs a value",
                        word.span,
                        help=f"write `--{opt.long}=VALUE`",
                    )
                    continue
                value, value_span = words[i].text, words[i].span
                i += 1
            out.append(
                Occurrence(
                    opt.long,
                    value if (eq or opt.arg == "required") else None,
                    word.span,
                    value_span,
                    text,
                    component,
                )
            )
        elif text.startswith("-") and len(text) > 1:
            j = 1
            while j < len(text):
                letter = text[j]
                opt = SHORT.get(letter)
                sub = word.span.shifted(j, j + 1)
                if opt is None:
                    reporter.report(
                        "E130",
                        f"unknown sbatch option `-{letter}`",
                        sub,
                        label="sbatch rejects the script",
                        help="see `man sbatch` for the options",
                    )
                    break
                if opt.arg == "none":
                    out.append(Occurrence(opt.long, None, sub, None, f"-{letter}", component))
                    j += 1
                    continue
                glued = text[j + 1 :]
                if glued:
                    out.append(
                        Occurrence(
                            opt.long,
                            glued,
                            word.span.shifted(j, len(text)),
                            word.span.shifted(j + 1, len(text)),
                            text,
                            component,
                        )
                    )
                elif opt.arg == "optional":
                    out.append(Occurrence(opt.long, None, sub, None, f"-{letter}", component))
                elif i < len(words):
                    out.append(
                        Occurrence(
                            opt.long, words[i].text, sub, words[i].span, f"-{letter}", component
                        )
                    )
                    i += 1
                else:
                    reporter.report(
                        "E131",
                        f"`-{letter}` needs a value",
                        sub,
                        help=f"write `-{letter} VALUE`",
                    )
                break
        else:
            reporter.report(
                "E133",
                f"`{text}` is not an option",
                word.span,
                notes=('sbatch rejects the script: "Invalid directive found in batch script"',),
                help="quote the value it belongs to, or remove it",
            )


def _misplaced_directive(text: str, tok: Token, reporter: Reporter) -> None:
    """An indented or miscased `#SBATCH` in the header: sbatch reads it as a comment."""
    stripped = text.lstrip()
    word = stripped.split()[0] if stripped.split() else ""
    indented = stripped != text and word.startswith(MAGIC)
    miscased = word[:7].lower() == "#sbatch" and not word.startswith(MAGIC)
    if not (indented or miscased):
        return
    column = len(text) - len(stripped) + 1
    offset = (tok.start_pos or 0) + column - 1
    why = "it is indented" if indented else "`#SBATCH` must be upper-case"
    reporter.report(
        "W402",
        f"sbatch ignores this directive: {why}",
        _span(reporter.file, tok.line or 1, column, min(len(word), 7), offset),
        help="write `#SBATCH` at the very start of the line",
    )


def _late_directives(text: str, rest: Token, reporter: Reporter) -> None:
    body_start = rest.start_pos or 0
    first_line = rest.line or 1
    found: list[tuple[int, int, int]] = []
    offset = body_start
    for line_no, raw_line in enumerate(text[body_start:].split("\n"), first_line):
        stripped = raw_line.lstrip()
        if stripped[:7].upper() == "#SBATCH" or stripped.startswith("#SLURM"):
            col = len(raw_line) - len(stripped) + 1
            found.append((line_no, col, offset + col - 1))
        offset += len(raw_line) + 1
    if not found:
        return
    line_no, col, start = found[0]
    more = (f"{len(found) - 1} more such lines follow",) if len(found) > 1 else ()
    reporter.report(
        "W402",
        "this `#SBATCH` line comes after the first command; sbatch ignores it",
        _span(reporter.file, line_no, col, 7, start),
        notes=(f"sbatch stops reading directives at line {first_line}", *more),
        help="move the directive above the first command (ignore this if the line is "
        "written into another file, as in a heredoc)",
    )


def _foreign_directives(text: str, reporter: Reporter, result: SlurmScript) -> None:
    """sbatch also obeys `#PBS` / `#BSUB` lines (its built-in translation) unless the first
    component says `--ignore-pbs`."""
    if any(occ.name == "ignore-pbs" for occ in (result.components or [[]])[0]):
        return
    offset = 0
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith(("#PBS", "#BSUB")):
            word = line.split()[0]
            reporter.report(
                "W404",
                f"sbatch also reads this `{word}` line and it overrides `#SBATCH`",
                _span(reporter.file, number, 1, len(word), offset),
                notes=(
                    "sbatch translates #PBS/#BSUB directives itself and rejects those it "
                    "cannot translate",
                ),
                help="add `#SBATCH --ignore-pbs`, or write the line as `# PBS ...`",
            )
            return
        offset += len(line) + 1


def _without_compatibility_block(script: str) -> str:
    """Drop the variable block an earlier bammmc conversion wrote after the directives."""
    if script.startswith("#!"):
        first, _, rest = script.partition("\n")
        return first + "\n" + strip_compatibility_block(rest)
    return strip_compatibility_block(script)
