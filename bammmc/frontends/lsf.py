"""The LSF reader's front half (format ``lsf``): bsub script -> options with spans.

Scans as bsub does for `bsub < script` (shared/docs/formats/lsf.md §1; IBM LSF 10.1 bsub
job_script page, openlava `sub.c` parseScript/parseLine): every `#BSUB` line of the file, not
only the header (only the header's leave the script text); leading white space allowed; the
remainder must start with `-`; a trailing `\\` continues a directive; quotes group words; a
word starting with `#` ends the directive.
Options use bsub's own option table (multi-letter options such as `-app`, `-gpu`, `-outdir` are
separate words; single-letter options take a glued value, `-n4`, `-M1000`).
Grammars: ``grammars/lsf.lark`` (script, words) and ``grammars/lsf_resreq.lark`` (the value
languages: -R, -w, -J arrays, -gpu, -f, -env, limits, times, sizes).
Siblings: ``passes/lower/lsf.py``, ``backends/lsf.py``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from bammmc.diagnostics.model import Reporter
from bammmc.diagnostics.suggest import suggestions
from bammmc.frontends.limits import DirectiveBudget
from bammmc.frontends.slurm import Occurrence, Word, _span
from bammmc.ir.envvars import strip_compatibility_block

if TYPE_CHECKING:
    from lark import Lark

#: bsub's options (LSF 10.1 bsub man page; lsf.md §2) and whether each takes a value.
#: Multi-letter options must be separate words; only single letters take a glued value.
OPTIONS: Final[dict[str, bool]] = {
    **dict.fromkeys(
        [
            "a",
            "alloc_flags",
            "app",
            "b",
            "C",
            "c",
            "core_isolation",
            "csm",
            "cwd",
            "D",
            "data",
            "E",
            "Ep",
            "e",
            "env",
            "eo",
            "eptl",
            "ext",
            "extsched",
            "F",
            "f",
            "freq",
            "G",
            "g",
            "gpu",
            "hostfile",
            "i",
            "is",
            "J",
            "Jd",
            "jsdl",
            "jsdl_strict",
            "jsm",
            "k",
            "L",
            "Lp",
            "M",
            "m",
            "mig",
            "n",
            "network",
            "nnodes",
            "o",
            "oo",
            "outdir",
            "P",
            "p",
            "pack",
            "Q",
            "q",
            "R",
            "rcacct",
            "rnc",
            "S",
            "s",
            "sla",
            "smt",
            "sp",
            "stage",
            "step_cgroup",
            "T",
            "t",
            "U",
            "u",
            "v",
            "W",
            "We",
            "w",
            "wa",
            "wt",
        ],
        True,
    ),
    **dict.fromkeys(
        [
            "ar",
            "B",
            "H",
            "I",
            "IS",
            "ISp",
            "ISs",
            "Ip",
            "Is",
            "IX",
            "K",
            "N",
            "Ne",
            "r",
            "rn",
            "ti",
            "tty",
            "x",
            "XF",
            "Zs",
        ],
        False,
    ),
}


@functools.cache
def parser(start: str) -> Lark:
    """The script scanner and word splitter (``lsf.lark``)."""
    from lark import Lark

    return Lark.open_from_package(
        "bammmc",
        "lsf.lark",
        ("grammars",),
        parser="lalr",
        lexer="contextual",
        start=start,
        cache=True,
    )


@functools.cache
def values(start: str) -> Lark:
    """The value languages (``lsf_resreq.lark``), one cached parser per start rule."""
    from lark import Lark

    return Lark.open_from_package(
        "bammmc",
        "lsf_resreq.lark",
        ("grammars",),
        parser="lalr",
        lexer="contextual",
        start=start,
        cache=True,
        propagate_positions=True,
    )


@dataclass
class LsfScript:
    options: list[Occurrence] = field(default_factory=list)
    #: the script without its leading `#BSUB` lines (shebang, comments, body and the `#BSUB`
    #: lines after the first command kept)
    script: str = ""


def _is_directive(line: str) -> bool:
    rest = line.lstrip(" \t")
    return rest.startswith("#BSUB") and rest[5:].lstrip(" \t").startswith("-")


def sniff(text: str) -> bool:
    """A `#BSUB -…` line at column 0 (an indented one may sit in a YAML block or a heredoc)."""
    lines = text[:65536].split("\n")
    if any(line.startswith("#SBATCH") or line.lstrip().startswith("#PBS") for line in lines):
        return False  # `#BSUB` lines in a Slurm/PBS script are foreign there (W404)
    return any(line.startswith("#BSUB") and _is_directive(line) for line in lines)


def marks(text: str) -> bool:
    """The file holds `#BSUB` directives, also beside `#SBATCH`/`#PBS` lines (registry.detect:
    it is written for LSF, whatever else it holds)."""
    return any(
        line.startswith("#BSUB") and _is_directive(line) for line in text[:65536].split("\n")
    )


def _position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of an offset (a directive may continue over several lines)."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def scan(text: str, reporter: Reporter) -> LsfScript:
    from lark.exceptions import UnexpectedInput

    result = LsfScript()
    if "\r\n" in text:
        first = text.index("\r\n")
        line = text.count("\n", 0, first) + 1
        reporter.report(
            "W405",
            "the script has DOS line ends (CRLF); bsub would keep each `\\r` in the values",
            _span(reporter.file, line, first - (text.rfind("\n", 0, first) + 1) + 1, 2, first),
            notes=("bammmc reads the file with the line ends converted",),
            help="convert the file with `dos2unix`",
        )
        text = text.replace("\r\n", "\n")
    tree = parser("script").parse(text)
    kept: list[str] = []
    cursor = 0
    words: list[Word] = []
    budget = DirectiveBudget(reporter, "#BSUB")
    header = True  # the directives before the first command (only those leave the body)
    for tok in tree.children:
        if tok.type == "LINE":  # type: ignore[union-attr]
            stripped = str(tok).strip()
            header = header and (not stripped or stripped.startswith("#"))
            continue
        if tok.type != "DIRECTIVE":  # type: ignore[union-attr]
            continue
        if not budget.spend_token(tok):
            break
        start, end = tok.start_pos or 0, tok.end_pos or 0  # type: ignore[union-attr]
        if header:
            # bsub reads every `#BSUB` line, but only the leading block is the job's header:
            # a later one (in a heredoc, after a command) stays part of the script text
            kept.append(text[cursor:start])
            cursor = end + 1 if text[end : end + 1] == "\n" else end
        raw = str(tok)
        lead = len(raw) - len(raw.lstrip())
        body = raw[lead + 5 :]
        base = start + lead + 5  # offset of `body` in the text
        line = tok.line or 1  # type: ignore[union-attr]
        try:
            args = parser("args").parse(body)
        except UnexpectedInput as exc:
            pos = getattr(exc, "pos_in_stream", None) or 0
            at_line, at_col = _position(text, base + pos)
            reporter.report(
                "E020",
                f"unmatched `{body[pos : pos + 1]}` in a directive",
                _span(reporter.file, at_line, at_col, 1, base + pos),
                notes=("bsub rejects the script",),
                help="close the quote",
            )
            continue
        for node in args.children:
            if getattr(node, "type", None) == "COMMENT":
                break  # a word starting with `#` ends the directive (openlava parseLine)
            if getattr(node, "data", None) != "word":
                continue
            parts = node.children  # type: ignore[union-attr]
            value = "".join(
                str(p)[1:-1] if p.type in ("DQ", "SQ") else str(p)  # type: ignore[union-attr]
                for p in parts
            )
            w_start = parts[0].start_pos or 0  # type: ignore[union-attr]
            w_end = parts[-1].end_pos or w_start  # type: ignore[union-attr]
            quoted = any(p.type in ("DQ", "SQ") for p in parts)  # type: ignore[union-attr]
            w_line, w_col = _position(text, base + w_start)  # words after a `\` line end
            words.append(
                Word(
                    value,
                    _span(reporter.file, w_line, w_col, w_end - w_start, base + w_start),
                    quoted,
                )
            )
        words.append(Word("", _span(reporter.file, line, 1, 1, start), False))  # line end
    kept.append(text[cursor:])
    result.script = _without_compatibility_block("".join(kept))
    _getopt(words, reporter, result)
    return result


def _getopt(words: list[Word], reporter: Reporter, result: LsfScript) -> None:
    """bsub's option parsing, one directive line at a time (an empty word ends a line)."""
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        text = word.text
        if text == "" and not word.quoted:
            continue
        if not text.startswith("-") or text == "-":
            reporter.report(
                "E133",
                f"`{text}` is not an option",
                word.span,
                notes=("bsub rejects the script",),
                help="quote the value it belongs to, or start a comment with `#`",
            )
            continue
        name = text[1:]
        value_next = i < len(words) and not (words[i].text == "" and not words[i].quoted)
        if name in OPTIONS:
            if not OPTIONS[name]:
                result.options.append(Occurrence(name, None, word.span, None, text))
            elif value_next:
                result.options.append(
                    Occurrence(name, words[i].text, word.span, words[i].span, text)
                )
                i += 1
            else:
                reporter.report(
                    "E131", f"`{text}` needs a value", word.span, help=f"write `{text} VALUE`"
                )
            continue
        # a near miss of a multi-letter option (`-alloc_flag`) is a typo, not `-a lloc_flag`
        near = suggestions(name, [o for o in OPTIONS if len(o) > 2]) if len(name) > 2 else []
        stray = value_next and not words[i].text.startswith("-")
        # `-oe x`: read as `-o e`, `x` would be stray; the letters of `-eo` swapped is the typo
        swapped = [
            o
            for o in OPTIONS
            if o != name and len(o) == len(name) > 1 and sorted(o) == sorted(name) and OPTIONS[o]
        ]
        if swapped and stray:
            near = swapped
        elif not near and name[:1] in OPTIONS and OPTIONS[name[:1]] and len(name) > 1:
            width = word.span.end_column - word.span.column  # as written, quotes included
            result.options.append(
                Occurrence(
                    name[0],
                    name[1:],
                    word.span.shifted(1, 2),
                    word.span.shifted(2, width),
                    text,
                )
            )
            continue
        near = near or suggestions(name.lstrip("-").split("=")[0], OPTIONS)
        reporter.report(
            "E130",
            f"unknown bsub option `{text}`",
            word.span,
            help=f"did you mean `-{near[0]}`?" if near else "see `man bsub` for the options",
        )
        if stray:
            i += 1  # its value, so that it is not reported again as a stray word


def _without_compatibility_block(script: str) -> str:
    """Drop the variable block an earlier bammmc conversion wrote after the directives."""
    if script.startswith("#!"):
        first, _, rest = script.partition("\n")
        return first + "\n" + strip_compatibility_block(rest)
    return strip_compatibility_block(script)
