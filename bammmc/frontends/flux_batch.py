"""The Flux batch-script reader's front half (format ``flux-batch``): RFC 36 directives ->
`flux batch` option occurrences with spans.

Scans exactly as flux-core's ``flux/job/directives.py`` does (shared/docs/formats/flux.md §6):
a directive is a line of non-word characters (the prefix) then ``flux:``/``FLUX:``; every directive
uses the first one's sentinel; after the first directive the block ends at the first non-blank
line not starting with the right-stripped prefix, and a directive after that is an orphan;
triple-quoted values, on one line or over several (closed at a line's end), are quoted as Flux
quotes them; each directive's value is split as Python's ``shlex`` splits it (``#`` comments,
punctuation runs as words of their own). Then each line's words are read as `flux batch`'s
argparse reads them, one line at a time. All of it through ``grammars/flux_batch.lark``.

Siblings: ``passes/lower/flux_batch.py`` (occurrences -> IR), ``backends/flux_batch.py`` (the
writer), ``backends/flux_batch_options.py`` (the option table both read).
"""

from __future__ import annotations

import contextlib
import re
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bammmc import grammars
from bammmc.backends.flux_batch_options import ALIASES, NOT_BATCH, OPTIONS, SHORT, Option
from bammmc.diagnostics.model import Reporter
from bammmc.diagnostics.suggest import did_you_mean
from bammmc.frontends.limits import DirectiveBudget
from bammmc.frontends.slurm import Occurrence, Word, _span
from bammmc.ir.envvars import strip_compatibility_block

if TYPE_CHECKING:
    from lark import Lark

_TRIPLE_PAIR = re.compile(r"""((?:["']){3})(.*)\1""")
_TRIPLE_OPEN = re.compile(r"""((?:["']){3}).""")
_SNIFF = re.compile(r"^[^\w\n]*(?:flux|FLUX):", re.M)


def parser(start: str) -> Lark:
    return grammars.parser("flux_batch", start)


@dataclass
class Directive:
    """One directive after triple-quote handling: the line it starts on and its words."""

    line: int
    words: list[Word]


@dataclass
class FluxBatchScript:
    occurrences: list[Occurrence] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)
    #: the script without its directive lines (the shebang, comments and body kept)
    script: str = ""
    #: the sentinel every directive uses (`#FLUX:`, `# flux:`, …), ``None`` without directives
    sentinel: str | None = None
    #: 1-based numbers of the lines holding directives
    directive_lines: list[int] = field(default_factory=list)
    #: `False` when Flux's parser rejects the directives (an E03x was reported)
    ok: bool = True

    @property
    def args(self) -> list[str]:
        """The `flux batch` words the directives carry, in order, as Flux's parser yields them."""
        out: list[str] = []
        for d in self.directives:
            if d.words and d.words[0].text.startswith("-"):
                out.extend(w.text for w in d.words)
        return out


def sniff(text: str) -> bool:
    """A directive whose prefix is a comment character run (`#FLUX:`, `# flux:`, `-- flux:`)."""
    for m in _SNIFF.finditer(text[:65536]):
        prefix = m.group(0)[:-5]
        if prefix.strip() and prefix.strip()[0] in "#-/;%*!":
            return True
    return False


class _Rejected(Exception):
    """Flux's directive parser rejects the script (already reported)."""


@dataclass
class _MultiLine:
    """A triple-quoted value over several directive lines (flux-core ``MultiLine``)."""

    triplequote: str | None = None
    inprogress: bool = False
    startline: int = -1
    start: str | None = None
    indent: str = ""
    lines: list[str] = field(default_factory=list)

    def finish(self) -> str | None:
        result = self.lines[0] + shlex.quote("\n".join(self.lines[1:]))
        if self.triplequote and self.triplequote in result:
            return None
        self.triplequote = None
        self.lines.clear()
        self.indent = ""
        self.inprogress = False
        self.start = None
        return result

    def append(self, value: str) -> None:
        if value.startswith(self.indent):
            value = value[len(self.indent) :]
        self.lines.append(value)


class _Scanner:
    def __init__(self, text: str, reporter: Reporter) -> None:
        self.text = text
        self.reporter = reporter
        self.file = reporter.file
        self.result = FluxBatchScript()
        #: line number -> (offset of the line's start, the line's text)
        self.line_at: dict[int, tuple[int, str]] = {}

    def error(
        self, code: str, message: str, line: int, help: str, notes: tuple[str, ...] = ()
    ) -> None:
        offset, text = self.line_at.get(line, (0, ""))
        self.reporter.report(
            code,
            message,
            _span(self.file, line, 1, max(len(text), 1), offset),
            notes=("flux batch rejects the script", *notes),
            help=help,
        )
        self.result.ok = False
        raise _Rejected

    def run(self) -> FluxBatchScript:
        from lark.exceptions import UnexpectedInput

        text = self.text
        try:
            tokens = parser("lines").parse(text).children
        except UnexpectedInput as exc:  # pragma: no cover - every text is lines
            self.reporter.report("E020", f"cannot scan the script: {exc}")
            return self.result
        kinds: dict[int, tuple[str, str, int]] = {}
        for tok in tokens:
            kinds[tok.line or 1] = (tok.type, str(tok), tok.start_pos or 0)  # type: ignore[union-attr]
        offset = 0
        for number, raw in enumerate(text.split("\n"), 1):
            self.line_at[number] = (offset, raw)
            offset += len(raw) + 1
        with contextlib.suppress(_Rejected):
            self._lines(kinds)
        lines = set(self.result.directive_lines)
        kept = [
            raw + ("\n" if n < len(self.line_at) else "")
            for n, (_, raw) in sorted(self.line_at.items())
            if n not in lines
        ]
        self.result.script = _without_compatibility_block("".join(kept))
        if text.strip() and not text.startswith("#!"):
            first = text.split("\n", 1)[0]
            self.reporter.report(
                "W409",
                "the script does not start with a `#!` line; `flux batch` refuses it",
                _span(self.file, 1, 1, max(1, len(first)), 0),
                notes=(
                    "flux-core: \"does not appear to start with '#!'\" (unless `--wrap`)",
                    "bammmc writes `#!/bin/sh` (or `execution.shell`) in front of it",
                ),
                help="start the script with `#!/bin/sh`",
            )
        return self.result

    def _lines(self, kinds: dict[int, tuple[str, str, int]]) -> None:
        res = self.result
        multi = _MultiLine()
        started = False
        disabled = False
        last_directive_line = 0
        prefix_seen = ""
        budget = DirectiveBudget(self.reporter, "flux:")
        total = len(self.line_at)
        if self.text.endswith("\n"):
            total -= 1  # the empty string after the last newline is no line
        for number in range(1, total + 1):
            kind, line, offset = kinds.get(number, ("EMPTY", "", 0))
            if kind != "DIRECTIVE":
                if multi.inprogress:
                    self.error(
                        "E032",
                        f"unterminated multi-line quote started at line {multi.startline}: "
                        f"`{multi.start}`",
                        number,
                        help="end the quoted value with a directive line ending in the same "
                        "triple quote",
                    )
                if (
                    started
                    and not disabled
                    and not line.startswith(prefix_seen.rstrip())
                    and line.strip()
                ):
                    disabled = True
                    last_directive_line = number - 1
                continue
            if not budget.spend(line, number, offset):
                return
            tree = parser("directive").parse(line.rstrip("\r"))
            parts = {t.type: str(t) for t in tree.children}  # type: ignore[union-attr]
            prefix, tag, value = parts.get("PREFIX", ""), parts["TAG"], parts.get("VALUE", "")
            started = True
            sentinel = prefix + tag
            if disabled:
                self.error(
                    "E031",
                    f"orphan `{tag}` directive: directives are disabled after line "
                    f"{last_directive_line}",
                    number,
                    notes=(
                        f"line {last_directive_line + 1} does not start with "
                        f"`{prefix_seen.rstrip()}`, which ends the directive block",
                    ),
                    help="move the directive up into the block, before the first command",
                )
            res.directive_lines.append(number)
            value = self._triplequote(value, number)
            if res.sentinel is None:
                res.sentinel = sentinel
                prefix_seen = prefix
            elif sentinel != res.sentinel:
                self.error(
                    "E030",
                    f"sentinel changed from `{res.sentinel}` to `{sentinel}`",
                    number,
                    notes=("all directives in a file must use the same sentinel",),
                    help=f"write `{res.sentinel}`; to disable a directive, comment it after the "
                    f"sentinel: `{res.sentinel} # {value.lstrip()}`",
                )
            value_column = len(prefix) + len(tag) + 1
            if value.endswith(('"""', "'''")):
                joined = self._multi(multi, value, number)
                if joined is not None:
                    self._directive(joined, self._start, None)
            elif multi.inprogress:
                multi.append(value)
            elif value:
                self._directive(value, number, value_column)

    _start = 0

    def _multi(self, multi: _MultiLine, value: str, number: int) -> str | None:
        quotes = value[-3:]
        closed = False
        if not multi.inprogress:
            multi.triplequote = quotes
            multi.indent = value[: len(value) - len(value.lstrip())]
            multi.inprogress = True
            multi.start = value.lstrip()
            multi.startline = number
        elif quotes != multi.triplequote:
            multi.append(value)
            return None
        else:
            closed = True
        multi.append(value[:-3])
        if not closed:
            return None
        start = multi.start
        self._start = multi.startline
        joined = multi.finish()
        if joined is None:
            self.error(
                "E032",
                f"improperly terminated triple-quoted string at `{start}`",
                number,
                help="the value may not hold its own triple quote",
            )
        return joined

    def _triplequote(self, value: str, number: int) -> str:
        def paired(n: int) -> bool:
            return n > 0 and n % 2 == 0

        if paired(value.count('"""')) or paired(value.count("'''")):
            return _TRIPLE_PAIR.sub(lambda m: shlex.quote(m[2]), value)
        if _TRIPLE_OPEN.search(value):
            self.error(
                "E032",
                f"unclosed triple quote: `{value.strip()}`",
                number,
                help="close the triple quote on this line, or end the line with it to start a "
                "multi-line value",
            )
        return value

    def _directive(self, value: str, number: int, column: int | None) -> None:
        """Split one directive as shlex does; ``column`` is ``None`` when the value was
        rewritten (a multi-line value): its words then point at the whole line."""
        from lark.exceptions import UnexpectedInput

        offset, raw = self.line_at.get(number, (0, ""))
        try:
            tree = parser("args").parse(value)
        except UnexpectedInput as exc:
            pos = getattr(exc, "pos_in_stream", None) or 0
            why = "No escaped character" if value[pos : pos + 1] == "\\" else "No closing quotation"
            self.error(
                "E020",
                f"cannot split the directive: {why.lower()}",
                number,
                help="close the quote, or escape it with a backslash",
            )
        words: list[Word] = []
        for tok in tree.children:
            kind = tok.type  # type: ignore[union-attr]
            if kind not in ("WORD", "PUNCT"):
                continue
            start = tok.start_pos or 0  # type: ignore[union-attr]
            end = tok.end_pos or start  # type: ignore[union-attr]
            if column is not None and raw.rstrip("\r").endswith(value):
                col = column + start
                span = _span(self.file, number, col, end - start, offset + col - 1)
            else:
                span = _span(self.file, number, 1, max(len(raw), 1), offset)
            text = str(tok)
            if kind == "WORD":
                words.append(Word(_unquote(text), span, any(c in text for c in "\"'\\")))
            else:
                words.append(Word(text, span))
        if words and not words[0].text.startswith("-"):
            self.error(
                "E033",
                f"unknown directive `{value.strip()}`: it does not start with an option",
                number,
                help="a directive carries `flux batch` options (`-N2`, `--queue=batch`); "
                "comment a note after the sentinel (`# flux: # note`)",
            )
        self.result.directives.append(Directive(number, words))
        _options(words, number, self.reporter, self.result)


def scan(text: str, reporter: Reporter) -> FluxBatchScript:
    """Find the directives as flux-core does and split them into `flux batch` options."""
    return _Scanner(text, reporter).run()


def _unquote(text: str) -> str:
    """shlex (posix, escapedquotes both kinds): quotes removed; outside quotes a backslash takes
    the next character; inside quotes it escapes only a backslash or the enclosing quote."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            out.append(text[i + 1])
            i += 2
        elif c in "\"'":
            j = i + 1
            while text[j] != c:
                if text[j] == "\\" and text[j + 1] in (c, "\\"):
                    out.append(text[j + 1])
                    j += 2
                else:
                    out.append(text[j])
                    j += 1
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _lookup_long(name: str, word: Word, reporter: Reporter) -> Option | None:
    canonical = ALIASES.get(name, name)
    if canonical in OPTIONS:
        return OPTIONS[canonical]
    if name in NOT_BATCH:
        near = NOT_BATCH[name]
        reporter.report(
            "E130",
            f"`--{name}` is an option of `flux run`/`flux submit`, not of `flux batch`",
            word.span,
            label="flux batch rejects the script",
            help=f"write `--{near}`" if near else "remove it; `flux batch` has no such option",
        )
        return None
    matches = sorted({n for n in OPTIONS if n.startswith(name)}) if name else []
    if len(matches) == 1:
        reporter.report(
            "W436",
            f"`--{name}` abbreviates `--{matches[0]}`; flux-core 0.88 refuses abbreviations",
            word.span,
            notes=(
                "older `flux batch` versions accepted unique prefixes; bammmc reads it as "
                f"`--{matches[0]}`",
            ),
            help=f"write `--{matches[0]}`",
        )
        return OPTIONS[matches[0]]
    reporter.report(
        "E130",
        f"unknown `flux batch` option `--{name}`",
        word.span,
        label="flux batch rejects the script",
        help=did_you_mean(name, OPTIONS, wrap="--%s") or "see `man flux-batch` for the options",
    )
    return None


def _options(words: list[Word], line: int, reporter: Reporter, result: FluxBatchScript) -> None:
    """One directive line's words as `flux batch`'s argparse reads them (POSIX mode: the first
    word that is not an option ends the options; `flux batch` takes it and the rest as the
    script, which the command line then overrides)."""
    out = result.occurrences
    i = 0
    while i < len(words):
        word = words[i]
        text = word.text
        i += 1
        if text == "--" or not text.startswith("-") or text == "-":
            rest = words[i - 1 :] if text != "--" else words[i:]
            if rest:
                shown = " ".join(w.text for w in rest)
                reporter.report(
                    "W435",
                    f"`flux batch` ignores `{shown}`: it is not an option",
                    rest[0].span,
                    notes=(
                        "argparse takes the first non-option word and the rest of the line as "
                        "the script's name and arguments, which the command line replaces",
                        "an unquoted `|`, `&`, `;`, `<`, `>`, `(` or `)` splits a word "
                        "(shlex punctuation)",
                    ),
                    help="quote the value it belongs to, or remove it",
                )
            return
        if text.startswith("--"):
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
                        notes=("`flux batch` reads each directive line on its own",),
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
                )
            )
            continue
        j = 1
        while j < len(text):
            letter = text[j]
            sopt = SHORT.get(letter)
            sub = word.span.shifted(j, j + 1)
            if sopt is None:
                reporter.report(
                    "E130",
                    f"unknown `flux batch` option `-{letter}`",
                    sub,
                    label="flux batch rejects the script",
                    help="see `man flux-batch` for the options",
                )
                break
            if sopt.arg == "none":
                out.append(Occurrence(sopt.long, None, sub, None, f"-{letter}"))
                j += 1
                continue
            glued = text[j + 1 :]
            if glued.startswith("=") and len(glued) > 1:
                glued = glued[1:]  # argparse: `-N=2` is `-N 2`
            if glued:
                out.append(
                    Occurrence(
                        sopt.long,
                        glued,
                        word.span.shifted(j, len(text)),
                        word.span.shifted(len(text) - len(glued), len(text)),
                        text,
                    )
                )
            elif i < len(words):
                out.append(Occurrence(sopt.long, words[i].text, sub, words[i].span, f"-{letter}"))
                i += 1
            else:
                reporter.report(
                    "E131",
                    f"`-{letter}` needs a value",
                    sub,
                    notes=("`flux batch` reads each directive line on its own",),
                    help=f"write `-{letter} VALUE`",
                )
            break


def _without_compatibility_block(script: str) -> str:
    """Drop the variable block an earlier bammmc conversion wrote after the directives."""
    if script.startswith("#!"):
        first, _, rest = script.partition("\n")
        return first + "\n" + strip_compatibility_block(rest)
    return strip_compatibility_block(script)
