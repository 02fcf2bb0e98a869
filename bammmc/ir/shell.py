"""The script body as its shell reads it: which variables it expands, and where.

A batch script is a shell program, and a scan of its raw text for `$NAME` is wrong both ways: it
counts `'$NAME'` in single quotes, a quoted here-document (`<<'EOF'`) and a comment after a
command, none of which the shell expands. The body is parsed with tree-sitter's own Bash grammar
(the `tree-sitter-bash` package, MIT; chosen over bashlex, GPLv3, which this Apache-2.0 project
cannot depend on, and which raises on the first construct it does not know where tree-sitter
recovers): expansions are `simple_expansion` (`$X`), `expansion` (`${X}`, `${X:-d}`, `${#X}`,
`${X[@]}`) and names inside `$(( … ))`, in double quotes, in `$(…)` and in unquoted
here-documents alike.

Where the grammar does not understand a stretch (an `ERROR` node: a construct of another shell,
an unclosed quote), the lines it covers are also scanned for `$NAME` as text, so that a variable
is never missed because the parser gave up (a definition too many is harmless; one too few leaves
a variable empty). A `csh`/`tcsh` script (its `#!` line, or the shell the job names) is not Bash:
it is scanned as text, outside comments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Iterator

#: the C shells: `setenv`, `$?NAME`, no `export` and no `$(…)`
CSH: Final = frozenset({"csh", "tcsh"})
_NAME = re.compile(r"\$\{?#?([A-Za-z_][A-Za-z0-9_]*)")
_BARE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_INTERPRETER = re.compile(r"#!\s*(\S+)(?:\s+(\S+))?")


@dataclass(frozen=True)
class Reference:
    """One expansion of a variable: 1-based line and column, 0-based character offsets."""

    name: str
    line: int
    column: int
    start: int
    end: int


def interpreter(script: str, shell: str | None = None) -> str:
    """The shell that runs the script: the job's own (`-S /bin/tcsh`) or its `#!` line
    (`/usr/bin/env tcsh` is tcsh); `sh` when neither says.

    >>> interpreter("#!/bin/csh -f\\necho\\n"), interpreter("#!/usr/bin/env tcsh\\n")
    ('csh', 'tcsh')
    >>> interpreter("echo\\n", "/bin/bash"), interpreter("echo\\n")
    ('bash', 'sh')
    """
    if shell:
        return shell.rstrip("/").rsplit("/", 1)[-1]
    match = _INTERPRETER.match(script)
    if not match:
        return "sh"
    program = match.group(1).rsplit("/", 1)[-1]
    if program == "env" and match.group(2):
        program = match.group(2).rsplit("/", 1)[-1]
    return program


def is_csh(script: str, shell: str | None = None) -> bool:
    """Whether a C shell runs the script (its variables are set with `setenv`)."""
    return interpreter(script, shell) in CSH


def job_runs_csh(body: str, shell: str | None) -> bool:
    """Whether a C shell runs a job's ``body``: ``shell`` is its `#!` line, or the path of the
    shell it names (`-S /bin/tcsh`), or None (the body's own first line says).

    >>> job_runs_csh("echo\\n", "#!/bin/csh -f"), job_runs_csh("echo\\n", "/bin/bash")
    (True, False)
    """
    if not shell or shell.startswith("#!"):
        return is_csh(shell or body)
    return is_csh("", shell)


def references(script: str, shell: str | None = None) -> list[Reference]:
    """Every variable expansion of ``script``, in order.

    >>> [r.name for r in references("echo '$A' \\"$B\\" ${C:-x} # $D\\n")]
    ['B', 'C']
    >>> [r.name for r in references("cat <<'EOF'\\n$A\\nEOF\\ncat <<EOF\\n$B\\nEOF\\n")]
    ['B']
    >>> [(r.name, r.line, r.column) for r in references("x=$(( N * 2 ))\\necho $((M))\\n")]
    [('N', 1, 7), ('M', 2, 9)]
    """
    if is_csh(script, shell):
        return list(_text_references(script, None))
    tree = _parser().parse(_encode(script))
    chars = _CharOffsets(script)
    found: list[Reference] = []
    error_lines: set[int] = set()
    _walk(tree.root_node, chars, found, error_lines, arithmetic=False)
    if error_lines:
        seen = {(r.start, r.name) for r in found}
        found += [r for r in _text_references(script, error_lines) if (r.start, r.name) not in seen]
        found.sort(key=lambda r: r.start)
    return found


def assigned(script: str, shell: str | None = None) -> set[str]:
    """The variables ``script`` assigns itself (`X=1`, `export X=…`, `read X`, `for X in`),
    as Bash reads it; a C shell's `set X`/`setenv X` read from the text.

    >>> sorted(assigned("export A=1\\nB=2 run\\nfor C in 1; do read D; done\\necho $E\\n"))
    ['A', 'B', 'C', 'D']
    """
    if is_csh(script, shell):
        return set(_CSH_SET.findall(script))
    tree = _parser().parse(_encode(script))
    found: set[str] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "variable_assignment" or node.type == "for_statement":
            name = node.child_by_field_name("name") or node.child_by_field_name("variable")
            if name is not None:
                found.add(name.text.decode("utf-8", "surrogatepass"))
        elif node.type == "command":
            words = [c for c in node.children if c.type in ("command_name", "word")]
            if words and words[0].text == b"read":
                found.update(
                    w.text.decode("utf-8", "surrogatepass")
                    for w in words[1:]
                    if _BARE.fullmatch(w.text)
                )
        stack.extend(node.children)
    return found


_CSH_SET = re.compile(r"^\s*(?:set|setenv)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)


@dataclass(frozen=True)
class Word:
    """One word of a command as written (quotes and expansions kept), character offsets."""

    text: str
    start: int
    end: int
    #: the word is plain text: no quote, expansion or glob changes what the command sees
    literal: bool


@dataclass(frozen=True)
class Command:
    """A simple command the shell runs: its words from the command name on (a `VAR=x` prefix
    and the redirections aside), where it starts (1-based line and column) and whether its
    words can be rewritten (not inside a here-document or a stretch the parser gave up on)."""

    words: tuple[Word, ...]
    line: int
    column: int
    #: the command as written, from its name to the end of its first line
    line_text: str

    @property
    def name(self) -> str:
        return self.words[0].text


#: commands that run the next word as a command (`time srun …`, `exec mpirun …`)
WRAPPERS: Final = frozenset({"time", "exec", "nohup", "command", "builtin", "env"})


def commands(script: str, shell: str | None = None) -> list[Command]:
    """The simple commands of a Bourne-shell ``script`` that the shell runs, in order, with a
    wrapper's command (`time srun …`) as a command of its own. A C shell script, and any
    command on a line under an `ERROR` node, gives none: a line the parser does not understand
    is never changed.

    >>> [c.name for c in commands("time srun -n 2 a | sort\\nX=1 mpirun b\\ncat <<E\\nsrun\\nE\\n")]
    ['time', 'srun', 'sort', 'mpirun', 'cat']
    >>> [w.text for w in commands('srun -n "$N" ./a\\\\\\n  b > log\\n')[0].words]
    ['srun', '-n', '"$N"', './a', 'b']
    """
    if is_csh(script, shell):
        return []
    tree = _parser().parse(_encode(script))
    chars = _CharOffsets(script)
    error_lines: set[int] = set()
    found: list[Command] = []
    _commands(tree.root_node, chars, found, error_lines)
    return [c for c in found if c.line not in error_lines]


def _commands(node: Any, chars: _CharOffsets, found: list[Command], errors: set[int]) -> None:
    if node.is_error or node.is_missing:
        errors.update(range(node.start_point[0] + 1, node.end_point[0] + 2))
    if node.type == "command":
        words = [
            Word(
                c.text.decode("utf-8", "surrogatepass"),
                chars.at(c.start_byte),
                chars.at(c.end_byte),
                _PLAIN.fullmatch(c.text) is not None,
            )
            for c in node.children
            if c.type not in ("variable_assignment", "file_redirect", "herestring_redirect")
            and c.type != "heredoc_redirect"
        ]
        line = node.start_point[0] + 1
        while words:
            start = words[0].start
            end = chars.text.find("\n", start)
            text = chars.text[start : end if end >= 0 else len(chars.text)]
            column = start - chars.line_start(start) + 1
            found.append(Command(tuple(words), line, column, text.rstrip("\r")))
            if words[0].text not in WRAPPERS:
                break
            words = words[1:]
            if words and words[0].text == "-p":  # `time -p`
                words = words[1:]
            while words and _ASSIGNMENT.match(words[0].text):  # `env A=1 srun`
                words = words[1:]
    for child in node.children:
        _commands(child, chars, found, errors)


#: a word the shell passes on as written: no quote, expansion, glob or escape
_PLAIN = re.compile(rb"[A-Za-z0-9_./+,:=@%^-]+")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _walk(
    node: Any,
    chars: _CharOffsets,
    found: list[Reference],
    error_lines: set[int],
    *,
    arithmetic: bool,
) -> None:
    kind = node.type
    if kind in ("comment", "raw_string", "ansi_c_string"):
        return
    if node.is_error or node.is_missing:
        error_lines.update(range(node.start_point[0] + 1, node.end_point[0] + 2))
    if kind in ("simple_expansion", "expansion"):
        name = next((c for c in node.children if c.type == "variable_name"), None)
        if name is None:  # `${X[@]}`: the name is inside the subscript
            sub = next((c for c in node.children if c.type == "subscript"), None)
            name = (
                next((c for c in sub.children if c.type == "variable_name"), None) if sub else None
            )
        if name is not None:
            found.append(_reference(node, name, chars))
    elif kind in ("variable_name", "word") and arithmetic and _BARE.fullmatch(node.text):
        found.append(_reference(node, node, chars))
    # `$(( … ))`, `(( … ))` and a `for (( … ))` header name variables without a `$`
    inside = arithmetic or kind == "arithmetic_expansion"
    inside |= kind == "compound_statement" and bool(node.children) and node.children[0].type == "(("
    for child in node.children:
        if kind in ("simple_expansion", "expansion") and child.type == "variable_name":
            continue
        here = inside or (kind == "c_style_for_statement" and child.type != "do_group")
        _walk(child, chars, found, error_lines, arithmetic=here and child.type != "subscript")


def _reference(node: Any, name: Any, chars: _CharOffsets) -> Reference:
    start = chars.at(node.start_byte)
    text = name.text.decode("utf-8", "surrogatepass")
    return Reference(
        text,
        node.start_point[0] + 1,
        start - chars.line_start(start) + 1,
        start,
        chars.at(node.end_byte),
    )


def _text_references(script: str, only: set[int] | None) -> Iterator[Reference]:
    """`$NAME`/`${NAME` on the lines that are not comments (``only``: just those lines)."""
    offset = 0
    for number, line in enumerate(script.splitlines(keepends=True), 1):
        if (only is None or number in only) and not line.lstrip().startswith("#"):
            for match in _NAME.finditer(line):
                end = match.end() + (1 if line[match.end() : match.end() + 1] == "}" else 0)
                yield Reference(
                    match.group(1), number, match.start() + 1, offset + match.start(), offset + end
                )
        offset += len(line)


def _encode(text: str) -> bytes:
    """UTF-8, a lone surrogate too (a file read with `surrogateescape` keeps its bad bytes as
    such): the offsets of the bytes then count the characters back exactly."""
    return text.encode("utf-8", "surrogatepass")


class _CharOffsets:
    """Character offsets of tree-sitter's byte offsets (the same for an ASCII script)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self._bytes: bytes | None = None

    def at(self, byte: int) -> int:
        if self.ascii:
            return byte
        if self._bytes is None:
            self._bytes = _encode(self.text)
        return len(self._bytes[:byte].decode("utf-8", "surrogatepass"))

    def line_start(self, char: int) -> int:
        return self.text.rfind("\n", 0, char) + 1


@lru_cache(maxsize=1)
def _parser() -> Any:
    """tree-sitter's Bash parser, built once (imported on first use: the CLI's start-up does
    not pay for it when no body is read)."""
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))
