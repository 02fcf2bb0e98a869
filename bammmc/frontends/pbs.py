"""The PBS reader's front half (formats ``pbs`` and ``torque``): qsub script -> options with spans.

Scans as OpenPBS/Torque qsub do (shared/docs/formats/pbs.md §1, torque.md §1): `#PBS` lines,
leading white space allowed, a trailing `\\` continues a directive, scanning stops at the first
command (a column-0 `:` line and `#!` do not count); qsub's `make_argv` tokenizer (quotes group,
no escapes inside them, backslash outside; no comments); POSIX getopt short options.
Grammar: ``grammars/pbs.lark``. Siblings: ``passes/lower/pbs.py``, ``backends/pbs.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from bammmc import grammars
from bammmc.diagnostics.model import Reporter, Span
from bammmc.frontends.limits import DirectiveBudget
from bammmc.frontends.slurm import Occurrence, Word, _span
from bammmc.ir.envvars import strip_compatibility_block

if TYPE_CHECKING:
    from lark import Lark

#: qsub's short options and whether they take a value (":"), per dialect (qsub.1B; Torque qsub.1)
PBS_OPTIONS: Final = "a:A:c:C:e:fGhIj:J:k:l:m:M:N:o:p:P:q:r:R:S:u:v:VW:Xz"
TORQUE_OPTIONS: Final = "a:A:b:c:C:d:D:e:fF:hIj:k:K:l:L:m:M:nN:o:p:P:q:r:S:t:T:u:v:Vw:W:xXz"


def _table(spec: str) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for i, ch in enumerate(spec):
        if ch != ":":
            out[ch] = spec[i + 1 : i + 2] == ":"
    return out


OPTION_TABLES: Final = {"pbs": _table(PBS_OPTIONS), "torque": _table(TORQUE_OPTIONS)}


def parser(start: str) -> Lark:
    return grammars.parser("pbs", start)


@dataclass
class PbsScript:
    dialect: str = "pbs"
    options: list[Occurrence] = field(default_factory=list)
    #: the script without its `#PBS` lines (shebang, comments and body kept)
    script: str = ""


def sniff(text: str) -> bool:
    return _has_directives(text) and not _torque_markers(text)


def sniff_torque(text: str) -> bool:
    return _has_directives(text) and _torque_markers(text)


def marks(text: str) -> bool:
    """The file holds `#PBS` lines, in either dialect (registry.detect: the file is written
    for PBS or Torque, whatever else it holds)."""
    return _has_directives(text)


def _has_directives(text: str) -> bool:
    return any(line.lstrip().startswith("#PBS") for line in text[:65536].split("\n"))


def detection_note(text: str) -> str | None:
    """Said when a `#PBS` script was read as PBS Pro without anything PBS-Pro-only in it."""
    directives = " ".join(
        ln.lstrip()[4:] for ln in text[:65536].split("\n") if ln.lstrip().startswith("#PBS")
    )
    if _torque_markers(text) or any(m in directives for m in ("select=", "place=", "-J ")):
        return None
    return (
        "read as PBS Professional: nothing in the directives tells PBS Pro and Torque apart "
        "(`select=`/`place=`/`-J` would be PBS Pro; `nodes=…:ppn=`/`-t`/`-d` Torque)"
    )


def _torque_markers(text: str) -> bool:
    """Torque-only constructs: `nodes=…:ppn=`, `-t` arrays, `PBS_ARRAYID`, `-d` (pbs.md vs
    torque.md). A script with neither kind of marker reads as PBS Pro."""
    head = text[:65536]
    directives = [ln.lstrip()[4:] for ln in head.split("\n") if ln.lstrip().startswith("#PBS")]
    joined = " ".join(directives)
    return (
        "ppn=" in joined
        or "PBS_ARRAYID" in head
        or any(w in (" " + joined + " ") for w in (" -t ", " -d "))
    )


def scan(text: str, reporter: Reporter, dialect: str = "pbs") -> PbsScript:
    from lark.exceptions import UnexpectedInput

    result = PbsScript(dialect=dialect)
    if "\r\n" in text and dialect == "pbs":
        first = text.index("\r\n")
        line = text.count("\n", 0, first) + 1
        reporter.report(
            "W405",
            "the script has DOS line ends (CRLF); OpenPBS qsub refuses such scripts",
            _span(reporter.file, line, first - (text.rfind("\n", 0, first) + 1) + 1, 2, first),
            help="convert the file with `dos2unix`",
        )
    text_for_scan = text.replace("\r\n", "\n") if dialect == "torque" else text
    tree = parser("script").parse(text_for_scan)
    kept: list[str] = []
    cursor = 0
    words: list[Word] = []
    rest_line = None
    budget = DirectiveBudget(reporter, "#PBS")
    for tok in tree.children:
        kind = tok.type  # type: ignore[union-attr]
        if kind == "REST":
            rest_line = tok.line  # type: ignore[union-attr]
            break
        if kind != "DIRECTIVE":
            continue
        if not budget.spend_token(tok):
            break
        start, end = tok.start_pos or 0, tok.end_pos or 0  # type: ignore[union-attr]
        kept.append(text_for_scan[cursor:start])
        cursor = end + 1 if text_for_scan[end : end + 1] == "\n" else end
        raw = str(tok)
        lead = len(raw) - len(raw.lstrip())
        body = raw[lead + 4 :]
        line = tok.line or 1  # type: ignore[union-attr]
        col = lead + 5
        try:
            args = parser("args").parse(body)
        except UnexpectedInput as exc:
            pos = getattr(exc, "pos_in_stream", None) or 0
            reporter.report(
                "E020",
                f"unmatched `{body[pos : pos + 1]}` in a directive",
                _span(reporter.file, line, col + pos, 1, start + lead + 4 + pos),
                notes=("qsub rejects the script",),
                help="close the quote",
            )
            continue
        for node in args.children:
            if getattr(node, "data", None) != "word":
                continue
            parts = node.children  # type: ignore[union-attr]
            value = "".join(_unquote(str(p), p.type) for p in parts)  # type: ignore[union-attr]
            w_start = parts[0].start_pos or 0  # type: ignore[union-attr]
            w_end = parts[-1].end_pos or w_start  # type: ignore[union-attr]
            words.append(
                Word(
                    value,
                    _span(
                        reporter.file,
                        line,
                        col + w_start,
                        w_end - w_start,
                        start + lead + 4 + w_start,
                    ),
                )
            )
    kept.append(text_for_scan[cursor:])
    result.script = "".join(kept)
    result.script = _without_compatibility_block(result.script)
    _getopt(words, reporter, result)
    if rest_line is not None:
        _late(text_for_scan, rest_line, reporter)
    return result


def _unquote(text: str, kind: str) -> str:
    if kind == "ESC":
        return text[1:]
    if kind in ("DQ", "SQ"):
        return text[1:-1]
    return text


def _getopt(words: list[Word], reporter: Reporter, result: PbsScript) -> None:
    table = OPTION_TABLES[result.dialect]
    other = OPTION_TABLES["torque" if result.dialect == "pbs" else "pbs"]
    i = 0
    comment_line = 0
    while i < len(words):
        word = words[i]
        i += 1
        text = word.text
        if word.span.line == comment_line:
            continue
        if text.startswith("#"):
            comment_line = word.span.line
            reporter.report(
                "W410",
                "a `#` comment after a `#PBS` directive",
                word.span,
                notes=(
                    "OpenPBS qsub has no comments in directives: it reads these words as more "
                    "arguments and rejects the script; some PBS Professional releases accept it",
                ),
                help="put the comment on a line of its own",
            )
            continue
        if not text.startswith("-") or text == "-":
            reporter.report(
                "E133",
                f"`{text}` is not an option",
                word.span,
                notes=(
                    'qsub rejects the script ("directive error"); qsub directives have no comments',
                ),
                help="quote the value it belongs to, or remove it (a `# comment` after a "
                "directive is an error for qsub)",
            )
            continue
        j = 1
        while j < len(text):
            letter = text[j]
            sub = word.span.shifted(j, j + 1)
            if letter not in table:
                dialect = "Torque" if result.dialect == "pbs" else "PBS Pro"
                hint = (
                    f"`-{letter}` is a {dialect} option: read the file with "
                    f"`--from {'torque' if result.dialect == 'pbs' else 'pbs'}`"
                    if letter in other
                    else "see `man qsub` for the options"
                )
                reporter.report("E130", f"unknown qsub option `-{letter}`", sub, help=hint)
                if other.get(letter) and j + 1 == len(text):
                    i += 1  # its value, so it is not reported again as a stray word
                break
            if not table[letter]:
                result.options.append(Occurrence(letter, None, sub, None, f"-{letter}"))
                j += 1
                continue
            glued = text[j + 1 :]
            if glued:
                result.options.append(
                    Occurrence(
                        letter,
                        glued,
                        word.span.shifted(j, len(text)),
                        word.span.shifted(j + 1, len(text)),
                        text,
                    )
                )
            elif i < len(words):
                result.options.append(
                    Occurrence(letter, words[i].text, sub, words[i].span, f"-{letter}")
                )
                i += 1
            else:
                reporter.report(
                    "E131", f"`-{letter}` needs a value", sub, help=f"write `-{letter} VALUE`"
                )
            break


def _late(text: str, first_line: int, reporter: Reporter) -> None:
    offset = 0
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        if number > first_line and line.lstrip().startswith("#PBS"):
            col = len(line) - len(line.lstrip()) + 1
            found.append(
                Span(
                    file=reporter.file,
                    line=number,
                    column=col,
                    end_line=number,
                    end_column=col + 4,
                    start=offset + col - 1,
                    end=offset + col + 3,
                )
            )
        offset += len(line) + 1
    if found:
        more = (f"{len(found) - 1} more such lines follow",) if len(found) > 1 else ()
        reporter.report(
            "W402",
            "this `#PBS` line comes after the first command; qsub ignores it",
            found[0],
            notes=(f"qsub stops reading directives at line {first_line}", *more),
            help="move the directive above the first command",
        )


def _without_compatibility_block(script: str) -> str:
    """Drop the variable block an earlier bammmc conversion wrote after the directives."""
    if script.startswith("#!"):
        first, _, rest = script.partition("\n")
        return first + "\n" + strip_compatibility_block(rest)
    return strip_compatibility_block(script)
