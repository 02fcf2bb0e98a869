"""The Grid Engine reader's front half (format ``sge``): qsub script -> options with spans.

Scans as Grid Engine's ``parse_script_file()`` does (shared/docs/formats/sge.md §1,
parse_job_cull.c): every line of the whole file, top to bottom — there is no stop at the first
command — and a directive is a line that starts in column 0 with ``#$``. qsub cuts a directive at
its first ``#`` (anywhere on the line: W410, the rest is ignored), splits the rest with
``string_list()`` (words at blanks, a quote runs to its matching quote, no backslash escapes, no
continuation lines) and then ``sge_strip_quotes()`` deletes **every** ``"`` and ``'`` of every
word (``a"b"c`` is ``abc``). Each line is parsed by qsub's option parser on its own
(``cull_parse_cmdline()`` once per line), so an option's value is on the same line and ``-soft``
lasts to the end of its line. Options are SGE's multi-letter words (``-hold_jid``,
``-pe NAME RANGE``). Grammar: ``grammars/sge.lark``. Siblings: ``passes/lower/sge.py``,
``backends/sge.py``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from bammmc.backends.sge import OPTIONS
from bammmc.diagnostics.model import Reporter, Span
from bammmc.diagnostics.suggest import did_you_mean
from bammmc.frontends.limits import DirectiveBudget
from bammmc.frontends.slurm import Occurrence, Word, _span
from bammmc.ir.envvars import strip_compatibility_block

if TYPE_CHECKING:
    from lark import Lark

PREFIX: Final = "#$"

#: options of the other qsub-like commands that qsub itself rejects
OTHER_COMMANDS: Final = {
    "u": "qalter",
    "pty": "qrsh",
    "noshell": "qrsh",
    "nostdin": "qrsh",
    "display": "qsh",
}


@functools.cache
def parser(start: str) -> Lark:
    from lark import Lark

    return Lark.open_from_package(
        "bammmc",
        "sge.lark",
        ("grammars",),
        parser="lalr",
        lexer="contextual",
        start=start,
        cache=True,
    )


@dataclass
class SgeScript:
    options: list[Occurrence] = field(default_factory=list)
    #: the script without its `#$` lines before the first command (later ones stay in the body)
    script: str = ""


def sniff(text: str) -> bool:
    """A file with a `#$ ` directive in column 0."""
    return any(
        line.startswith(PREFIX) and line[2:3] in (" ", "\t", "-")
        for line in text[:65536].split("\n")
    )


def scan(text: str, reporter: Reporter) -> SgeScript:
    from lark.exceptions import UnexpectedInput

    result = SgeScript()
    try:
        tree = parser("script").parse(text)
    except UnexpectedInput as exc:  # pragma: no cover - the scanner accepts every text
        reporter.report("E020", f"cannot scan the script: {exc}")
        return result
    kept: list[str] = []
    cursor = 0
    first_command: int | None = None
    late: list[Word] = []
    budget = DirectiveBudget(reporter, "#$")
    for tok in tree.children:
        kind = tok.type  # type: ignore[union-attr]
        line = tok.line or 1  # type: ignore[union-attr]
        start = tok.start_pos or 0  # type: ignore[union-attr]
        if kind == "LINE" and first_command is None:
            first_command = line
        if kind == "COMMENT":
            _indented(str(tok), line, start, reporter)
            continue
        if kind != "DIRECTIVE":
            continue
        if not budget.spend_token(tok):
            break
        end = tok.end_pos or start  # type: ignore[union-attr]
        if first_command is None:  # drop the header directive (and its newline) from the body
            kept.append(text[cursor:start])
            cursor = end + 1 if text[end : end + 1] == "\n" else end
        else:
            late.append(Word(str(tok), _span(reporter.file, line, 1, 2, start)))
        _directive(str(tok)[2:], line, start + 2, reporter, result)
    kept.append(text[cursor:])
    result.script = _without_compatibility_block("".join(kept))
    if late:
        more = (f"{len(late) - 1} more such lines follow",) if len(late) > 1 else ()
        reporter.report(
            "W420",
            "this `#$` line comes after the first command; qsub still reads it",
            late[0].span,
            notes=(
                "Grid Engine reads directives in the whole file, also in a here-document "
                "meant for another job; bammmc reads it and leaves the line in the body",
                *more,
            ),
            help="move the directive above the first command, or write `# $` if it is "
            "not meant for this job",
        )
    return result


def _directive(body: str, line: int, offset: int, reporter: Reporter, result: SgeScript) -> None:
    from lark.exceptions import UnexpectedInput

    cut = body.find("#")
    if cut >= 0:  # parse_script_file(): "don't copy additional comments", wherever `#` is
        rest = body[cut:].rstrip()
        reporter.report(
            "W410",
            "qsub ends a `#$` directive at its first `#`; the rest of the line is ignored",
            _span(reporter.file, line, 3 + cut, len(rest), offset + cut),
            notes=(
                "Grid Engine cuts the line at the first `#`, also inside a word or quotes, "
                "before it splits it into options",
            ),
            help="put the comment on a line of its own; a value cannot contain `#`",
        )
        body = body[:cut].rstrip()  # and then its trailing blanks
    try:
        args = parser("args").parse(body + _unclosed_quote(body) if cut >= 0 else body)
    except UnexpectedInput as exc:
        pos = getattr(exc, "pos_in_stream", None) or 0
        reporter.report(
            "E020",
            f"unmatched `{body[pos : pos + 1]}` in a directive",
            _span(reporter.file, line, 3 + pos, 1, offset + pos),
            notes=("qsub would read the rest of the line as one word",),
            help="close the quote",
        )
        return
    words: list[Word] = []
    for node in args.children:
        if getattr(node, "data", None) != "word":
            continue
        parts = node.children  # type: ignore[union-attr]
        raw = "".join(str(p) for p in parts)
        text = raw.replace('"', "").replace("'", "")  # sge_strip_quotes(): every quote goes
        w_start = parts[0].start_pos or 0  # type: ignore[union-attr]
        w_end = parts[-1].end_pos or w_start  # type: ignore[union-attr]
        words.append(
            Word(
                text,
                _span(reporter.file, line, 3 + w_start, w_end - w_start, offset + w_start),
                quoted=text != raw,
            )
        )
    _options(words, reporter, result)


def _unclosed_quote(body: str) -> str:
    """The quote a line cut at its `#` leaves open (string_list() runs it to the end)."""
    open_quote = ""
    for c in body:
        if open_quote and c == open_quote:
            open_quote = ""
        elif not open_quote and c in "'\"":
            open_quote = c
    return open_quote


def _options(words: list[Word], reporter: Reporter, result: SgeScript) -> None:
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        text = word.text
        if not text.startswith("-") or text == "-":
            reporter.report(
                "E133",
                f"`{text}` is not an option",
                word.span,
                notes=("qsub options take their values on the same line, one word each",),
                help="quote the value it belongs to, or remove it",
            )
            continue
        name = text[1:]
        arity = OPTIONS.get(name)
        if arity is None:
            elsewhere = OTHER_COMMANDS.get(name)
            hint = (
                f"`-{name}` is a {elsewhere} option, not a qsub option"
                if elsewhere
                else did_you_mean(name, OPTIONS, wrap="-%s") or "see `man qsub` for the options"
            )
            reporter.report("E130", f"unknown qsub option `{text}`", word.span, help=hint)
            if elsewhere and i < len(words) and not words[i].text.startswith("-"):
                i += 1  # its value, so it is not reported again as a stray word
            continue
        if name == "binding" and i < len(words) and words[i].text in ("env", "pe", "set"):
            arity = 2
        values = words[i : i + arity]
        if len(values) < arity:
            reporter.report(
                "E131",
                f"`{text}` needs {'a value' if arity == 1 else f'{arity} values'}",
                word.span,
                help=f"write `{text} VALUE" + (" VALUE" if arity == 2 else "") + "`",
            )
            i += len(values)
            continue
        i += arity
        if not values:
            result.options.append(Occurrence(name, None, word.span, None, text))
            continue
        value = " ".join(v.text for v in values)
        value_span = values[0].span
        if len(values) > 1:
            last = values[-1].span
            value_span = Span(
                file=value_span.file,
                line=value_span.line,
                column=value_span.column,
                end_line=last.end_line,
                end_column=last.end_column,
                start=value_span.start,
                end=last.end,
            )
        result.options.append(Occurrence(name, value, word.span, value_span, text))


def _indented(text: str, line: int, start: int, reporter: Reporter) -> None:
    """An indented `#$`: qsub reads it as a comment."""
    stripped = text.lstrip(" \t\r\f\v")
    if not stripped.startswith(PREFIX) or stripped == text:
        return
    column = len(text) - len(stripped) + 1
    reporter.report(
        "W402",
        "qsub ignores this directive: it is indented",
        _span(reporter.file, line, column, 2, start + column - 1),
        notes=("a directive must start in column 0 with `#$`",),
        help="write `#$` at the very start of the line",
    )


def _without_compatibility_block(script: str) -> str:
    """Drop the variable block an earlier bammmc conversion wrote after the directives."""
    if script.startswith("#!"):
        first, _, rest = script.partition("\n")
        return first + "\n" + strip_compatibility_block(rest)
    return strip_compatibility_block(script)
