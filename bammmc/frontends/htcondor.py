"""The HTCondor reader's front half (format ``htcondor``): submit description -> statements.

Reads a submit description as condor_submit does (shared/docs/formats/htcondor.md §1, §2, §4,
§5): logical lines (comments whole-line only; a ``\\`` continuation joins the next line without
its leading blanks, as the oracle does), ``name = value`` with case-insensitive names,
``+Attr``/``MY.Attr``, multi-line ``name @=TAG … @TAG`` values, ``if``/``elif``/``else``/
``endif``, ``include``, ``error :`` and ``warning :``, and ``queue`` statements
(``grammars/htcondor_queue.lark``). Each ``queue`` statement takes a snapshot of the commands
and macros in effect; macro references (``grammars/htcondor_macro.lark``) are resolved later,
at the queue statement, as condor_submit binds them (late binding), by :class:`Macros`.

Nothing runs and no other file is read: ``include`` and ``queue … from CMD |`` are kept as
written with a warning (W421). Siblings: ``passes/lower/htcondor.py``, ``backends/htcondor.py``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from bammmc.diagnostics.model import Reporter, Span
from bammmc.frontends.slurm import Occurrence, _span
from bammmc.grammars import parser

if TYPE_CHECKING:
    from lark import Tree

#: condor_submit's automatic variables: known only when the job is queued, kept as written
AUTOMATIC: Final = frozenset(
    {
        "cluster",
        "clusterid",
        "process",
        "procid",
        "jobid",
        "joblistid",
        "node",
        "step",
        "itemindex",
        "row",
        "item",
    }
)
#: automatic variables set before the file is read; their values depend on the submit machine
SUBMIT_HOST: Final = frozenset(
    {
        "arch",
        "opsys",
        "opsysandver",
        "opsysmajorver",
        "opsysver",
        "spool",
        "islinux",
        "iswindows",
        "submit_file",
        "submit_time",
        "year",
        "month",
        "day",
    }
)
#: the ClassAd-valued commands that have a field of their own in `extensions.htcondor`
EXPRESSION_FIELDS: Final = (
    "requirements",
    "rank",
    "periodic_hold",
    "periodic_release",
    "periodic_remove",
    "periodic_vacate",
    "on_exit_hold",
    "on_exit_remove",
    "periodic_hold_reason",
)
#: every submit command whose value is a ClassAd expression (condor_submit copies them into the
#: job ad as expressions), as the oracle's check.py lists them
EXPRESSION_COMMANDS: Final = frozenset(EXPRESSION_FIELDS) | {
    "periodic_hold_subcode",
    "on_exit_hold_reason",
    "on_exit_hold_subcode",
    "concurrency_limits_expr",
    "max_retries_expr",
    "success_exit_code_expr",
    "want_graceful_removal",
}
#: how deep `if` blocks nest at most: condor_submit keeps their states as bits of a 64-bit word,
#: the lowest for the file itself (config.cpp `ConfigIfStack`), and refuses the 64th nested `if`
#: ("if nesting too deep!", htcondor2 25.14.1)
MAX_IF_DEPTH: Final = 63
_CONDITION: Final = re.compile(
    r"(!?)\s*(?:(defined)\s+(\S+)|(version)\s*(\S+)\s*(\S+)|(.*))$", re.I
)


@dataclass
class Queue:
    """One ``queue`` statement and the commands in effect when it was reached."""

    #: `None` for the implicit end of a file without `queue`
    span: Span | None
    #: the text after `queue`, as written
    args: str
    #: COUNT as written (`None`: 1)
    count: str | None = None
    #: item variables (`Item` when none are named and items are given)
    vars: list[str] = field(default_factory=list)
    #: `in`, `from` or `matching`, or `None` for `queue [N]`
    mode: str | None = None
    #: the items, when they are written in the file (a list on the line or in parentheses)
    items: list[str] | None = None
    #: where the items come from when they are not in the file: a file name or `CMD |`
    source: str | None = None
    slice: str | None = None
    #: `matching files|dirs|any`, `from table(…)` qualifiers
    qualifier: str | None = None
    #: name (lower case) -> the statement that set it last: commands, macros, `+Attr`s
    commands: dict[str, Occurrence] = field(default_factory=dict)


@dataclass
class SubmitFile:
    queues: list[Queue] = field(default_factory=list)
    #: the commands in effect at the end of the file (for a file without `queue`)
    commands: dict[str, Occurrence] = field(default_factory=dict)
    #: `queue` statements whose arguments could not be read (E020)
    unreadable_queues: int = 0
    #: statements kept as written: `include` lines, `if` blocks only the submitting machine
    #: decides (before the first `queue`)
    verbatim: list[str] = field(default_factory=list)


def sniff(text: str) -> bool:
    """A file with a `queue` line and an `executable =` or `universe =` line."""
    head = text[:65536]
    return bool(
        re.search(r"^[ \t]*queue\b(?![ \t]*=)", head, re.I | re.M)
        and re.search(r"^[ \t]*(executable|universe|shell)[ \t]*=", head, re.I | re.M)
    )


def has_macros(text: str) -> bool:
    """The value still holds a macro reference (`$(x)`, `$$(x)`, `$RANDOM_INTEGER(…)`), so it
    is only complete when the job is submitted (or matched).

    >>> has_macros("a > $RANDOM_INTEGER(1, 2)"), has_macros('a == "$5"')
    (True, False)
    """
    return re.search(r"\$[A-Za-z_]*\(", text) is not None


def scan(text: str, reporter: Reporter) -> SubmitFile:
    from lark.exceptions import UnexpectedInput

    result = SubmitFile()
    table: dict[str, Occurrence] = {}
    file = reporter.file
    try:
        tree = parser("htcondor", "file").parse(text)
    except UnexpectedInput as exc:  # pragma: no cover - the line grammar accepts every text
        reporter.report("E020", f"cannot read the submit file: {exc}")
        return result
    stack: list[_Block] = []
    budget = Budget()  # shared by the `if` conditions
    tokens = list(tree.children)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        kind = tok.type  # type: ignore[union-attr]
        if kind not in ("STATEMENT", "QUEUE_BLOCK"):
            continue
        raw = str(tok)
        start = tok.start_pos or 0  # type: ignore[union-attr]
        line = tok.line or 1  # type: ignore[union-attr]
        lead = len(raw) - len(raw.lstrip())
        body = _join_continuations(raw.strip()) if kind == "STATEMENT" else raw.strip()
        where = _span(file, line, lead + 1, len(raw.strip().split("\n")[0]), start + lead)
        active = stack[-1].taking if stack else True  # a block is taken only in a taken one
        try:
            stmt = parser("htcondor", "statement").parse(
                body if kind == "STATEMENT" else body.split("\n", 1)[0]
            )
        except UnexpectedInput as exc:
            if active:
                column = getattr(exc, "column", 1) or 1
                reporter.report(
                    "E020",
                    "not a submit statement: condor_submit reads `name = value`, `+Attr = value`, "
                    "`queue …`, `include : file` or `if`/`elif`/`else`/`endif`",
                    _span(file, line, lead + column, 1, start + lead + column - 1),
                    help="write `name = value`; a template (`{{…}}`, `{% … %}`) must be rendered "
                    "before conversion",
                )
            continue
        rule = stmt.data
        if rule in ("if_", "elif_", "else_", "endif"):
            if rule == "if_" and len(stack) >= MAX_IF_DEPTH:
                reporter.report(
                    "E020",
                    f"`if` blocks nest more than {MAX_IF_DEPTH} deep",
                    where,
                    notes=('condor_submit refuses the file: "if nesting too deep!"',),
                    help="join nested conditions into fewer blocks",
                )
                stack.clear()  # read no further: condor_submit stops here
                break
            end = tok.end_pos or start  # type: ignore[union-attr]
            try:
                kept = _conditional(
                    rule, stmt, stack, table, where, reporter, start + lead, end, budget
                )
            except MacroError as err:
                macro_refused(err, table, where, reporter)
                stack.clear()  # read no further: the condition cannot be decided
                break
            if kept is not None and not result.queues:
                result.verbatim.append(text[kept[0] : kept[1]])
            continue
        if not active:
            if rule == "multi":  # skip its lines too
                i = _skip_multi(tokens, i, str(stmt.children[1]).strip())
            continue
        if rule in ("assign", "attribute"):
            name_tok = stmt.children[0]
            value_tok = stmt.children[1] if len(stmt.children) > 1 else None
            written = str(name_tok).replace(" ", "").replace("\t", "")
            occ = _occurrence(written, value_tok, body, where, line, lead, start, file)
            if rule == "attribute" or written.lower().startswith("my."):
                occ.name = "my." + written.split(".", 1)[1].lower() if "." in written else ""
                if written.startswith("+"):
                    occ.name = "my." + written[1:].lower()
            else:
                occ.name = written.lower()
            _self_reference(occ, table)
            table[occ.name] = occ
        elif rule == "multi":
            tag = str(stmt.children[1]).strip()
            lines: list[str] = []
            closed = False
            while i < len(tokens):
                nxt = tokens[i]
                i += 1
                if str(nxt).strip().startswith("@" + tag):
                    closed = True
                    break
                if nxt.type != "_NL":  # type: ignore[union-attr]
                    lines.append(str(nxt))
            if not closed:
                reporter.report(
                    "E020",
                    f"the multi-line value `@={tag}` is not closed",
                    where,
                    help=f"end it with a line `@{tag}`",
                )
                continue
            written = str(stmt.children[0])
            occ = Occurrence(written.lower(), "\n".join(lines), where, where, written)
            table[occ.name] = occ
        elif rule == "queue":
            args = body[5:]  # after the keyword `queue`
            queue = _queue(args.strip(), where, reporter)
            if queue is not None:
                queue.commands = dict(table)
                result.queues.append(queue)
            else:
                result.unreadable_queues += 1
        elif rule == "include":
            reporter.report(
                "W421",
                "`include` is not followed: bammmc reads no other file and runs no command",
                where,
                notes=(
                    "the commands it would add are not in the converted job; the line is kept "
                    "as written for HTCondor",
                ),
                help="paste the included commands into the submit file",
            )
            if not result.queues:
                result.verbatim.append(body)
        elif rule == "message":
            level = body.split(":", 1)[0].strip().lower()
            if level == "error":
                reporter.report(
                    "E023",
                    f"the submit file stops here with `error :{body.split(':', 1)[1]}`",
                    where,
                    notes=("condor_submit refuses the file when it reaches this line",),
                    help="remove the line or the condition that leads to it",
                )
    for block in stack:
        reporter.report(
            "E020",
            "`if` without `endif`",
            block.opened,
            notes=("condor_submit refuses the file",),
            help="close the block with `endif`",
        )
    result.commands = table
    return result


def _join_continuations(text: str) -> str:
    r"""One logical line: `\` + newline joins the next line without its leading blanks (as
    htcondor2 25.14.1 joins them: `x \` + `   y` is `x y`, `p\` + `  q` is `pq`).

    >>> _join_continuations("a = x \\\n   y")
    'a = x y'
    """
    parts = re.split(r"\\[ \t\r]*\n[ \t]*", text)
    return "".join(parts)


def _occurrence(
    written: str,
    value_tok: object,
    body: str,
    where: Span,
    line: int,
    lead: int,
    start: int,
    file: str | None,
) -> Occurrence:
    value = str(value_tok).rstrip() if value_tok is not None else ""
    value_span = where
    if value_tok is not None and "\n" not in body:
        column = getattr(value_tok, "column", 1) or 1
        offset = (getattr(value_tok, "start_pos", 0) or 0) + start + lead
        value_span = _span(file, line, lead + column, len(value), offset)
    return Occurrence(written, value, where, value_span, written)


def _self_reference(occ: Occurrence, table: dict[str, Occurrence]) -> None:
    """`A = $(A) more` expands the earlier `A` at once (htcondor.md §2)."""
    value = occ.value or ""
    if "$(" not in value:
        return
    before = table.get(occ.name)
    pattern = re.compile(r"\$\(" + re.escape(occ.name) + r"\)", re.I)
    if pattern.search(value):
        occ.value = pattern.sub(lambda _: (before.value or "") if before else "", value)


def _skip_multi(tokens: list[Any], i: int, tag: str) -> int:
    while i < len(tokens):
        i += 1
        if str(tokens[i - 1]).strip().startswith("@" + tag):
            break
    return i


@dataclass
class _Block:
    """An open `if` block."""

    #: this branch is read
    taking: bool
    #: a branch of the block has been taken
    taken: bool
    #: the block is inside branches that are read
    parent: bool
    opened: Span
    #: where the `if` line starts
    start: int
    #: a condition of the block depends on what only the submitting machine knows
    unknown: bool = False


def _conditional(
    rule: str,
    stmt: Tree[Any],
    stack: list[_Block],
    table: dict[str, Occurrence],
    where: Span,
    reporter: Reporter,
    start: int,
    end: int,
    budget: Budget,
) -> tuple[int, int] | None:
    """Follow `if`/`elif`/`else`/`endif`; at the `endif` of a block whose condition was
    unknown (and that no such block encloses), its extent in the text, to keep as written.

    Raises:
        MacroError: a condition's macros are refused."""
    condition = str(stmt.children[0]) if stmt.children else ""
    if rule == "if_":
        parent = stack[-1].taking if stack else True
        value = _condition(condition, table, where, reporter, budget)
        block = _Block(parent and bool(value), bool(value), parent, where, start, value is None)
        stack.append(block)
        return None
    if not stack:
        reporter.report(
            "E020",
            f"`{rule.rstrip('_')}` without `if`",
            where,
            notes=("condor_submit refuses the file",),
            help="remove it or open the block with `if`",
        )
        return None
    block = stack[-1]
    if rule == "endif":
        stack.pop()
        if block.unknown and block.parent and not any(b.unknown for b in stack):
            return block.start, end
    elif rule == "else_":
        block.taking, block.taken = block.parent and not block.taken, True
    elif not block.taken:
        value = _condition(condition, table, where, reporter, budget)
        block.unknown = block.unknown or value is None
        block.taking, block.taken = block.parent and bool(value), bool(value)
    else:
        block.taking = False
    return None


def _condition(
    text: str, table: dict[str, Occurrence], where: Span, reporter: Reporter, budget: Budget
) -> bool | None:
    """An `if` condition (htcondor.md §5), evaluated as condor_submit would where the file
    alone decides it; otherwise ``None`` (read as false), with a W422.

    Raises:
        MacroError: its macros are refused."""
    match = _CONDITION.match(text.strip())
    assert match is not None  # the last alternative matches anything
    negate = match.group(1) == "!"
    if match.group(2):
        result = match.group(3).lower() in table or match.group(3).lower() in AUTOMATIC
    elif match.group(4):
        reporter.report(
            "W422",
            f"`if version {match.group(5)} {match.group(6)}` depends on the HTCondor version "
            "that reads the file; bammmc reads it as false and keeps the block as written "
            "for HTCondor",
            where,
            help="keep only the branch meant for your HTCondor version",
        )
        return None
    else:
        value = match.group(7).strip()
        expanded = Macros(table, budget=budget).expand(value)
        if expanded.unknown:
            reporter.report(
                "W422",
                f"the condition `{value}` depends on values only known when the job is "
                "submitted; bammmc reads it as false and keeps the block as written for "
                "HTCondor",
                where,
                notes=(f"unknown: {', '.join(sorted(expanded.unknown))}",),
                help="keep only the branch you mean",
            )
            return None
        word = expanded.text.strip().lower()
        if word in ("true", "yes", "1"):
            result = True
        elif word in ("false", "no", "0", ""):
            result = False
        else:
            try:
                result = float(word) != 0
            except ValueError:
                reporter.report(
                    "E020",
                    f"the condition `{value}` is not true/false/yes/no/a number",
                    where,
                    notes=("condor_submit refuses the file",),
                    help="write `if defined NAME`, `if $(NAME)` or `if true`",
                )
                return False
    return result != negate


def _queue(args: str, where: Span, reporter: Reporter) -> Queue | None:
    from lark.exceptions import UnexpectedInput

    queue = Queue(where, args)
    if not args:
        return queue
    try:
        tree = parser("htcondor_queue", "start").parse(args)
    except UnexpectedInput as exc:
        column = getattr(exc, "column", 1) or 1
        reporter.report(
            "E020",
            f"cannot read the queue arguments `{args.splitlines()[0]}`",
            where.shifted(6 + column - 1) if "\n" not in args else where,
            notes=("forms: `queue [N]`, `queue [N] [VARS] in|from|matching [SLICE] ITEMS`",),
            help="check the spelling of `in`, `from` or `matching` and the item list",
        )
        return None
    node: Any
    part: Any
    for node in tree.children:
        if node.data == "count":
            queue.count = str(node.children[0])
        elif node.data == "vars":
            queue.vars = [str(v) for v in node.children]
        else:
            queue.mode = node.data.rstrip("_")
            for part in node.children:
                if not hasattr(part, "data"):
                    if part.type in ("KIND", "TABLE"):
                        queue.qualifier = str(part).lower()
                    continue
                if part.data == "slice":
                    queue.slice = str(part.children[0]) if part.children else ""
                elif part.data == "table_opts":
                    queue.qualifier = f"table({part.children[0] if part.children else ''})"
                elif part.data == "paren_items":
                    texts = [str(c) for c in part.children if c.type == "LIST"]
                    queue.items = _items(texts[0] if texts else "", queue.mode)
                elif part.data == "line_items":
                    text = str(part.children[0]).strip()
                    if queue.mode == "from":
                        queue.source = text  # a file name, or `CMD |`
                    else:
                        queue.items = _items(text, queue.mode)
    if queue.mode is not None and not queue.vars:
        queue.vars = ["Item"]
    if queue.source is not None:
        what = "runs a command" if queue.source.rstrip().endswith("|") else "reads a file"
        reporter.report(
            "W421",
            f"`queue … from {queue.source}` {what} when the job is submitted; bammmc does not, "
            "so the items are not known",
            where,
            notes=("the queue statement is kept as written for HTCondor",),
            help="write the items into the file: `queue VARS from ( … )`",
        )
    return queue


def _items(text: str, mode: str | None) -> list[str]:
    """The items of a list: lines for `from` (lines starting with `#` skipped), else words
    separated by commas and/or blanks (continuations already joined)."""
    text = re.sub(r"\\[ \t\r]*\n", " ", text)
    if mode == "from":
        return [
            line.strip()
            for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#")
        ]
    return [w for w in re.split(r"[\s,]+", text) if w]


def split_row(row: str, count: int) -> list[str]:
    """A `from` item line split into `count` values: commas and/or blanks separate them and the
    last variable takes the rest of the line.

    >>> split_row("file1, -a -b 26", 2)
    ['file1', '-a -b 26']
    >>> split_row("a", 2)
    ['a', '']
    """
    values: list[str] = []
    rest = row.strip()
    for _ in range(count - 1):
        parts = re.split(r"[ \t]*,[ \t]*|[ \t]+", rest, maxsplit=1)
        values.append(parts[0])
        rest = parts[1].strip() if len(parts) > 1 else ""
    values.append(rest)
    return values


# ── macros ───────────────────────────────────────────────────────────────────────────────────


#: the most steps the macros of one expansion context (a queue statement, the `if` lines of a
#: file) may take: each character a reference or function produces or reads is one, each `$`
#: or `(` of a value parsed for macros is one. Every kind of expansion counts (`$(…)`, defaults,
#: `$F…()`, `$SUBSTR()`, `$INT()`…), so macros that double per level stop after about 20 levels
MAX_EXPANSION: Final = 1_000_000
#: the deepest macro references may nest (`$(a$(b$(c)))`, counted through the values they name):
#: far more than a submit file needs, few enough to stay inside Python's recursion limit
MAX_NESTING: Final = 100
#: expansions deeper than this are a chain condor_submit would follow but bammmc leaves as
#: written (a reference cycle is caught before it)
MAX_CHAIN: Final = 32


class MacroError(Exception):
    """A macro bammmc refuses to expand: the diagnostic's ``code``, ``message``, ``notes`` and
    ``help``; ``name`` is the macro whose value holds the offending text (``""``: the value being
    expanded) and ``text`` that text, to mark it."""

    def __init__(
        self,
        name: str,
        code: str,
        message: str,
        *,
        text: str = "",
        notes: tuple[str, ...] = (),
        help: str = "",
    ) -> None:
        super().__init__(message)
        self.name = name
        self.code = code
        self.message = message
        self.text = text
        self.notes = notes
        self.help = help


class MacroBomb(MacroError):
    """The macros take more than :data:`MAX_EXPANSION` steps, or nest deeper than
    :data:`MAX_NESTING` (E006)."""

    def __init__(self, name: str, *, nesting: bool = False) -> None:
        shown = f"the macro `{name}`" if name else "the value"
        if nesting:
            message = f"{shown} nests macro references more than {MAX_NESTING} levels deep"
            note = "references inside references, each level expanded before the next"
            help = "write the reference once instead of nesting it in further references"
        else:
            message = f"{shown} expands to more than {MAX_EXPANSION:,} characters"
            note = "a macro that repeats another several times, nested, grows exponentially"
            help = "define the value once instead of building it from repeated references"
        super().__init__(name, "E006", message, notes=(note,), help=help)


@dataclass
class Budget:
    """What the expansions of one context have cost so far (:data:`MAX_EXPANSION` at most)."""

    spent: int = 0
    #: the E006 it ended in has been reported
    reported: bool = False

    def charge(self, steps: int, name: str) -> None:
        self.spent += steps
        if self.spent > MAX_EXPANSION:
            raise MacroBomb(name)


@dataclass
class Expanded:
    """A value with its macros resolved where the file decides them."""

    text: str
    #: names (and `$FUNC(…)`s) only known when the job is submitted or runs
    unknown: set[str] = field(default_factory=set)
    #: the file's macros that a `$INT(name)`-style function left in the text needs
    needs: set[str] = field(default_factory=set)


@dataclass
class Macros:
    """Resolves `$(…)` references against a statement table (htcondor.md §2).

    Automatic variables (`$(Cluster)`, `$(Process)`, `$(Item)`, the queue's variables…) and
    names the file does not define (condor_submit takes them from its configuration or command
    line) stay as written and are listed in ``unknown``; so do `$ENV()`, `$RANDOM_*()` and
    `$$(…)` (match time).

    Each macro of the table is expanded once (``cache``), whether a reference or a function
    names it, and every expansion is charged to ``budget``: :class:`MacroBomb` past it.

    Raises:
        MacroError: from :meth:`expand`, for a macro bammmc refuses (E006, E134)."""

    table: dict[str, Occurrence]
    #: the queue statement's item variables (lower case)
    item_vars: frozenset[str] = frozenset()
    #: items of the current job, when one job is expanded (lower-case name -> value)
    items: dict[str, str] = field(default_factory=dict)
    #: each macro's expansion, computed once
    cache: dict[str, Expanded] = field(default_factory=dict)
    budget: Budget = field(default_factory=Budget)
    #: the macros being expanded, outermost first (a name met again is a reference cycle)
    active: list[str] = field(default_factory=list)
    #: how deep the references being expanded nest (:data:`MAX_NESTING` at most)
    nesting: int = 0
    #: keep `$(DOLLAR)`/`$(DOLLARDOLLAR)` as written: for a value that stays submit text
    #: (`extensions.htcondor.commands`), where a `$` made of one would open a reference
    keep_dollar: bool = False

    def value(self, occ: Occurrence) -> Expanded:
        """The value of one statement of the table, expanded (errors name the statement)."""
        self.active.append(occ.name)
        try:
            return self.expand(occ.value or "")
        finally:
            self.active.pop()

    def expand(self, value: str, depth: int = 0) -> Expanded:
        from lark.exceptions import UnexpectedInput

        out = Expanded("")
        if "$" not in value or depth > MAX_CHAIN:  # deeper: left as written
            out.text = value
            return out
        # the parse costs about one step per token, and tokens start at `$` and `(`
        self.budget.charge(1 + value.count("$") + value.count("("), self._where())
        nesting = _nesting(value)
        if nesting < 0:  # an unclosed `$(`: condor_submit leaves it as it is (Lark would fail)
            out.text = value
            return out
        if nesting + self.nesting > MAX_NESTING:  # refused before Lark builds it
            raise MacroBomb(self._where(), nesting=True)
        try:
            tree = parser("htcondor_macro", "text").parse(value)
        except UnexpectedInput:  # an unclosed `$(`: condor_submit leaves it as it is
            out.text = value
            return out
        out.text = "".join(self._piece(node, out, depth) for node in tree.children)
        return out

    def _where(self) -> str:
        return self.active[-1] if self.active else ""

    def _piece(self, node: object, out: Expanded, depth: int) -> str:
        if not hasattr(node, "data"):
            return str(node)
        tree: Tree[Any] = node  # type: ignore[assignment]
        self.nesting += 1
        try:
            if self.nesting > MAX_NESTING:
                raise MacroBomb(self._where(), nesting=True)
            if tree.data in ("late", "ilate"):
                out.unknown.add("$$(…)")
                return "$$(" + self._inner(tree.children[1], out, depth) + ")"
            if tree.data == "nested":
                return "(" + self._inner(tree.children[0], out, depth) + ")"
            opener = str(tree.children[0])
            inner = self._inner(tree.children[1], out, depth)
            func = opener[1:-1]
            if func == "":
                return self._reference(inner, out, depth)
            text = self._function(func, inner, out, depth)
            self.budget.charge(len(text), self._where())
            return text
        finally:
            self.nesting -= 1

    def _inner(self, node: object, out: Expanded, depth: int) -> str:
        tree: Tree[Any] = node  # type: ignore[assignment]
        return "".join(self._piece(c, out, depth) for c in tree.children)

    def _macro(self, key: str, depth: int) -> Expanded | None:
        """The file's macro ``key`` expanded (once), charged for what it produces; ``None`` when
        the table has no such macro, or it is already being expanded (a reference cycle, which
        condor_submit refuses), or the chain is deeper than :data:`MAX_CHAIN`."""
        occ = self.table.get(key)
        if occ is None:
            return None
        expanded = self.cache.get(key)
        if expanded is None:
            if key in self.active or depth >= MAX_CHAIN:
                return None
            self.active.append(key)
            try:
                expanded = self.cache[key] = self.expand(occ.value or "", depth + 1)
            finally:
                self.active.pop()
        self.budget.charge(len(expanded.text), key)
        return expanded

    def _reference(self, inner: str, out: Expanded, depth: int) -> str:
        name, colon, default = inner.partition(":")
        key = name.strip().lower()
        if key in ("dollar", "dollardollar") and self.keep_dollar:
            return f"$({inner})"
        if key == "dollar":
            return "$"
        if key == "dollardollar":
            return "$$"
        if key in self.items:
            return self.items[key]
        if key in AUTOMATIC or key in self.item_vars:
            out.unknown.add(name.strip())
            return f"$({inner})"
        if key in self.table:
            inner_value = self._macro(key, depth)
            if inner_value is None:  # a reference cycle: condor_submit refuses the file
                out.unknown.add(name.strip())
                return f"$({inner})"
            out.unknown |= inner_value.unknown
            out.needs |= inner_value.needs
            return inner_value.text
        if colon:
            return self.expand(default, depth + 1).text
        out.unknown.add(name.strip())
        return f"$({inner})"

    def _named(self, name: str, out: Expanded, depth: int) -> Expanded | None:
        """The macro a function names, expanded (``None``: not in the table, or a cycle)."""
        value = self._macro(name.lower(), depth)
        if value is None and name.lower() in self.table:
            out.unknown.add(name)
        return value

    def _function(self, func: str, inner: str, out: Expanded, depth: int) -> str:
        args = [a.strip() for a in inner.split(",")]
        original = f"${func}({inner})"
        if re.fullmatch(r"F[fpduwnxbqa]+|DIRNAME|BASENAME", func) and "$(" not in inner:
            # the argument is a macro's name (its value is the path) or the path itself
            path = args[0]
            if args[0].lower() in self.table:
                value = self._named(args[0], out, depth)
                if value is None or value.unknown:
                    out.unknown |= value.unknown if value else set()
                    return original
                path = value.text.strip()
            if func == "DIRNAME":
                return _filename("p", path)
            if func == "BASENAME":
                base = _filename("nx", path)
                return base[: -len(args[1])] if len(args) > 1 and base.endswith(args[1]) else base
            return _filename(func[1:], path)
        if func in ("INT", "REAL", "STRING", "EVAL") and args:
            value = self._named(args[0], out, depth)
            if value is not None and not value.unknown:
                text = value.text.strip()
                fmt = ",".join(args[1:]).strip() or None
                done = _format(func, text, fmt, original, self._where())
                if done is not None:
                    return done
        if func == "SUBSTR" and len(args) in (2, 3):
            value = self._named(args[0], out, depth)
            if value is not None and not value.unknown:
                try:
                    start = int(args[1])
                    length = int(args[2]) if len(args) == 3 else None
                except ValueError:
                    pass
                else:
                    text = value.text
                    begin = start if start >= 0 else max(len(text) + start, 0)
                    if length is None:
                        return text[begin:]
                    end = begin + length if length >= 0 else len(text) + length
                    return text[begin:end]
        if func == "CHOICE" and len(args) >= 2:
            index_text = self.expand(args[0], depth + 1)
            if not index_text.unknown and index_text.text.strip().isdigit():
                index = int(index_text.text)
                if len(args) == 2:
                    occ = self.table.get(args[1].lower())
                    choices = re.split(r"[\s,]+", occ.value or "") if occ else []
                else:
                    choices = args[1:]
                if 0 <= index < len(choices):
                    return choices[index]
        out.unknown.add(f"${func}()")
        if args and args[0].lower() in self.table:
            out.needs.add(args[0].lower())
        return original


_PAREN: Final = re.compile(r"\$\$?[A-Za-z_]*\(|[()]")


def _nesting(value: str) -> int:
    """How deep the references of a value nest (a `(` counts inside a reference only, as in
    ``htcondor_macro.lark``); -1 when one is not closed, so that the grammar does not read it.

    >>> _nesting("(a) $(x) $(a$(b(c)))"), _nesting("$(" * 200), _nesting("$(a)b)")
    (3, -1, 1)
    """
    depth = deepest = 0
    for match in _PAREN.finditer(value):
        token = match.group()
        if token == ")":
            depth = max(depth - 1, 0)
        elif depth or token != "(":
            depth += 1
            deepest = max(deepest, depth)
    return deepest if depth == 0 else -1


#: a printf conversion as HTCondor's `$INT`/`$REAL`/`$STRING` take it: flags, width, precision,
#: length modifier, conversion
_CONVERSION: Final = re.compile(r"%([-+ #0]*)([0-9]*)(?:\.([0-9]*))?(hh|h|ll|l|j|z|t|L|q)?(.)")


def _format(func: str, text: str, fmt: str | None, original: str, where: str) -> str | None:
    """`$INT(name, fmt)`, `$REAL(…)`, `$STRING(…)` of a value the file decides, formatted as
    condor_submit's ``snprintf`` formats it; ``None`` where bammmc leaves it for condor_submit
    (a format it does not reproduce, a value that is not a number).

    ``%c`` writes one byte, the number modulo 256 (C converts it to ``unsigned char``): a byte
    of 1 to 127 is that ASCII character; 0 and 128 to 255 are refused (E134).

    >>> _format("INT", "65", "%c", "$INT(x,%c)", "x"), _format("INT", "321", "<%c>", "", "x")
    ('A', '<A>')
    """
    try:
        number = float(text)
    except ValueError:
        number = None
    if fmt is not None and re.search(r"[0-9]{4}", fmt):
        return None  # a width of 1000s of characters: left for condor_submit
    conversions = [m for m in _CONVERSION.finditer(fmt or "") if m.group(5) != "%"]
    kinds = {"INT": "diouxXc", "REAL": "eEfFgG", "STRING": "s"}.get(func, "")
    if fmt is not None and (
        len(conversions) != 1 or conversions[0].group(5) not in kinds or "*" in fmt
    ):
        return None  # a format Python's `%` reads otherwise (`%a`, `%r`, `%lc`…): left as is
    try:
        if func == "INT" and number is not None:
            value = int(number)
            if conversions and conversions[0].group(5) == "c":
                if conversions[0].group(4):
                    return None  # `%lc`: a wide character, as the locale encodes it
                byte = value % 256
                if byte == 0 or byte > 127:
                    raise MacroError(
                        where,
                        "E134",
                        f"`{original}` makes no character: condor_submit writes the byte "
                        f"0x{byte:02x} ({value} modulo 256), "
                        + ("which ends the value there" if byte == 0 else "which is not UTF-8"),
                        text=original,
                        notes=("`%c` writes one byte, the number modulo 256",),
                        help="write the character itself, or a number from 1 to 127",
                    )
                value = byte
            return (fmt or "%d") % value
        if func == "REAL" and number is not None:
            if fmt is None:
                return f"{number:.16G}"  # condor_submit's default (config.cpp)
            real = fmt % number
            return real if "." in real else real + ".0"  # as condor_submit forces it
        if func == "STRING":
            return (fmt or "%s") % text.strip('"')
    except (TypeError, ValueError, OverflowError):  # OverflowError: int(inf)
        pass  # a format Python's `%` does not take: left for condor_submit
    return None


def _filename(letters: str, path: str) -> str:
    """`$F[fpduwnxbqa](path)` (htcondor.md §2) for a path known when the file is read.

    >>> _filename("nx", "/a/b/c.dat"), _filename("n", "/a/b/c.dat"), _filename("p", "/a/b/c.dat")
    ('c.dat', 'c', '/a/b/')
    """
    quote = '"' if "q" in letters else ""
    if "a" in letters and "q" in letters:
        quote = "'"
    directory, base = posixpath.split(path)
    stem, ext = posixpath.splitext(base)
    out = ""
    if "f" in letters:
        out = path
    else:
        if "p" in letters:
            out += directory + "/" if directory else ""
        elif "d" in letters:
            last = posixpath.basename(directory)
            out += last + ("" if "b" in letters else "/") if last else ""
        if "n" in letters:
            out += stem
        if "x" in letters:
            out += ext[1:] if "b" in letters and "n" not in letters else ext
    return f"{quote}{out}{quote}"


def macro_refused(
    err: MacroError, table: dict[str, Occurrence], fallback: Span | None, reporter: Reporter
) -> None:
    """Report a refused macro at the statement that holds it (its text marked when the value
    is one line that holds it as written), else at ``fallback``."""
    occ = table.get(err.name)
    where = fallback
    if occ is not None:
        where = occ.value_span or occ.span
        at = (occ.value or "").find(err.text) if err.text else -1
        if at >= 0 and where is not None and "\n" not in (occ.value or ""):
            where = where.shifted(at, at + len(err.text))
    reporter.report(err.code, err.message, where, notes=err.notes, help=err.help)
