"""Project configuration and severity levels: ``[tool.bammmc]`` / ``bammmc.toml``, ``--allow``,
``--deny`` and ``--strict``.

**Where the configuration comes from.** ``--config PATH`` names the file; ``--no-config`` ignores
every file. Otherwise the closest one wins, found by walking up from the current directory: in
each directory a ``bammmc.toml`` (its keys at the top level) is taken before a
``pyproject.toml`` (its ``[tool.bammmc]`` table), and a ``pyproject.toml`` without that table is
passed over — ruff's rules for ``ruff.toml`` and ``pyproject.toml`` (``astral-sh/ruff:
docs/configuration.md``, "Config file discovery"). Files further up are not merged in.

**Keys.** The long names of the command-line options that make sense for a project: ``strict``,
``allow``, ``deny``, ``diagnostics``, ``color``, ``container-runtime``, ``priority-range``,
``lsf-unit``, ``lsf-reserve``, ``sge-memory-resource``, ``max-input-size``, ``batch``
(:data:`KEYS`). A value is checked by the option's own click type, so a file and the command line
accept the same values. An option given on the command line overrides the file
(``ParameterSource``); click's ``default_map`` is not used because ``--config`` is an option of
the very command whose defaults it would have to fill, and because its errors name the option,
not the line of the file. An
unknown key, a value of the wrong type, an invalid value or invalid TOML is E016
(``invalid-config``) at the line and column in the file, exit status 2.

**Levels**, as linters have them: every code has its default severity, the code's letter.
``strict`` makes W2xx (lost) and W3xx (approximated) errors; ``deny`` makes any warning or note
an error; ``allow`` silences one (it is neither printed nor fails, even under ``strict``). Both
take a code (``W201``), its name (``gpu-model-lost``) or a prefix (``W3``, ``W30``, ``W``); an
``E`` code cannot be allowed or denied. When rules disagree the command line beats the file
(ruff: "settings provided on the command-line override the settings in every resolved
configuration file"), and within one of them a code beats a prefix and a longer prefix a shorter
one. A promoted warning keeps its code (``error[W201]``): only its severity changes.

``tomllib`` is imported only when a file is read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from bammmc.diagnostics.model import Diagnostic, Span

Action = Literal["allow", "deny"]

#: the keys a configuration file may set (the options' long names)
KEYS: tuple[str, ...] = (
    "strict",
    "allow",
    "deny",
    "diagnostics",
    "color",
    "container-runtime",
    "priority-range",
    "lsf-unit",
    "lsf-reserve",
    "sge-memory-resource",
    "max-input-size",
    "batch",
)

CONFIG_NAMES = ("bammmc.toml", "pyproject.toml")

#: a `[tool.bammmc]` table (or a `[tool]` table that may hold one) — read before parsing, so a
#: pyproject.toml of another tool costs no TOML parse
_TOOL_TABLE = re.compile(r"^\s*\[\s*tool\s*(\]|\.\s*[\"']?bammmc[\"']?\s*[\].])", re.M)


# ── severity levels ─────────────────────────────────────────────────────────────────────────


class SelectorError(ValueError):
    """A code, name or prefix that cannot be allowed or denied; the message says why."""


def parse_selector(text: str, action: Action) -> str:
    """The code or code prefix that ``text`` names for ``--allow``/``--deny``.

    >>> parse_selector("w201", "allow"), parse_selector("W3", "deny"), parse_selector("W", "deny")
    ('W201', 'W3', 'W')
    >>> parse_selector("E101", "allow")
    Traceback (most recent call last):
    ...
    bammmc.config.SelectorError: `E101` is an error: errors cannot be allowed
    """
    from bammmc.diagnostics.codes import CODES, lookup

    word = text.strip()
    found = lookup(word)
    if found is not None:
        selector = found.code
    elif re.fullmatch(r"[EWNewn][0-9]{0,2}", word):
        selector = word.upper()
        if not any(code.startswith(selector) for code in CODES):
            raise SelectorError(f"no code starts with `{selector}`")
    else:
        from bammmc.diagnostics.suggest import did_you_mean

        hint = did_you_mean(word, [*CODES, *(c.name for c in CODES.values())])
        raise SelectorError(
            f"unknown code `{word}`; " + (hint or "`bammmc codes` lists the codes and names")
        )
    if selector.startswith("E"):
        what = "errors cannot be allowed" if action == "allow" else "it is an error already"
        raise SelectorError(f"`{word}` is an error: {what}")
    return selector


@dataclass(frozen=True)
class Rule:
    """``allow`` or ``deny`` the codes starting with ``selector``; ``layer`` 1 is the command line,
    0 the configuration file."""

    selector: str
    action: Action
    layer: int


@dataclass(frozen=True)
class Policy:
    """What each diagnostic code counts as: silenced, its default severity, or an error."""

    strict: bool = False
    rules: tuple[Rule, ...] = ()
    #: print notes (N codes) in the human form too (`-v`); the machine forms always have them
    verbose: bool = False

    def level(self, code: str) -> Literal["allow", "error", "default"]:
        """``allow`` (silenced), ``error`` (promoted, or an error already) or ``default``.

        >>> p = Policy(strict=True, rules=(Rule("W2", "allow", 0), Rule("W201", "deny", 0)))
        >>> p.level("W201"), p.level("W2"), p.level("W301"), p.level("W401")
        ('error', 'allow', 'error', 'default')
        >>> Policy(rules=(Rule("W201", "deny", 0), Rule("W2", "allow", 1))).level("W201")
        'allow'
        """
        if code.startswith("E"):
            return "error"
        best: tuple[tuple[int, int], Action] | None = None
        for rule in self.rules:
            if code.startswith(rule.selector):
                rank = (rule.layer, len(rule.selector))
                if best is None or rank > best[0]:
                    best = (rank, rule.action)
        if best is not None:
            return "allow" if best[1] == "allow" else "error"
        if self.strict and code[:2] in ("W2", "W3"):
            return "error"
        return "default"

    def apply(self, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        """The diagnostics as printed: allowed ones dropped, promoted ones with severity error."""
        import msgspec

        out = []
        for d in diagnostics:
            level = self.level(d.code)
            if level == "allow":
                continue
            if level == "error" and d.severity != "error":
                d = msgspec.structs.replace(d, severity="error")
            out.append(d)
        return out

    def fails(self, diagnostics: Iterable[Diagnostic]) -> bool:
        """Whether any of ``diagnostics`` is an error under this policy."""
        return any(self.level(d.code) == "error" for d in diagnostics)


def conflicts(rules: Sequence[Rule]) -> list[str]:
    """Selectors both allowed and denied in the same layer.

    >>> conflicts([Rule("W201", "allow", 1), Rule("W201", "deny", 1), Rule("W3", "deny", 0)])
    ['W201']
    """
    seen: dict[tuple[str, int], Action] = {}
    out = []
    for rule in rules:
        other = seen.setdefault((rule.selector, rule.layer), rule.action)
        if other != rule.action and rule.selector not in out:
            out.append(rule.selector)
    return out


# ── configuration files ─────────────────────────────────────────────────────────────────────


class ConfigError(Exception):
    """An invalid configuration file, as the E016 diagnostic to report."""

    def __init__(self, diagnostic: Diagnostic, text: str | None) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.text = text


@dataclass
class Config:
    """A configuration file: its path and text, and its keys with their raw TOML values."""

    path: str
    text: str
    #: ``()`` for bammmc.toml, ``("tool", "bammmc")`` for pyproject.toml
    table: tuple[str, ...]
    values: dict[str, Any] = field(default_factory=dict)

    def error(
        self, message: str, key: str | None = None, item: str | None = None, help: str = ""
    ) -> ConfigError:
        """E016 at ``key`` (at ``item`` in its list, when given) in this file."""
        span = locate(self.text, self.table, key, item, self.path) if key else None
        return _error(self.path, self.text, message, span, help)


def find_config(start: str) -> str | None:
    """The configuration file that applies in directory ``start``: the closest ``bammmc.toml``,
    or ``pyproject.toml`` with a ``[tool.bammmc]`` table, walking up to the root."""
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, "bammmc.toml")
        if os.path.isfile(candidate):
            return candidate
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate) and _has_tool_table(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _has_tool_table(path: str) -> bool:
    from bammmc.source import read_bounded

    raw, _ = read_bounded(path)
    if raw is None:
        return True  # a pyproject.toml bammmc cannot read: reported when it is loaded
    text = raw.decode("utf-8", "replace")
    if not _TOOL_TABLE.search(text):
        return False
    import tomllib

    try:
        tool = tomllib.loads(text).get("tool")
    except tomllib.TOMLDecodeError:
        return True  # reported when it is read
    return isinstance(tool, dict) and "bammmc" in tool


def load(path: str) -> Config:
    """Read ``path`` (a ``pyproject.toml`` reads its ``[tool.bammmc]`` table, any other file its
    top level) and check its keys; raise :class:`ConfigError` (E016) when it is invalid."""
    import tomllib

    from bammmc.diagnostics.model import printable_path
    from bammmc.source import read_bounded

    shown = printable_path(path)
    raw, why = read_bounded(path)  # a regular file or a pipe, never more than the input limit
    if raw is None:
        raise _error(
            shown,
            None,
            f"cannot read the configuration file: {why}",
            None,
            "check the path given to `--config`",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _error(shown, None, "the configuration file is not UTF-8 text", None, "") from None
    pyproject = os.path.basename(path) == "pyproject.toml"
    table: tuple[str, ...] = ("tool", "bammmc") if pyproject else ()
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _error(
            shown,
            text,
            f"invalid TOML: {_toml_message(exc)}",
            _toml_span(exc, text, shown),
            "fix the TOML syntax at the marked place",
        ) from None
    for name in table:
        data = data.get(name, {})
        if not isinstance(data, dict):
            raise _error(shown, text, f"`{name}` is not a table", None, "")
    config = Config(shown, text, table)
    for key, value in data.items():
        if key not in KEYS:
            from bammmc.diagnostics.suggest import did_you_mean

            hint = did_you_mean(key, KEYS)
            raise config.error(
                f"unknown key `{key}` in {_where(table)}",
                key,
                help=hint or "known keys: " + ", ".join(f"`{k}`" for k in KEYS),
            )
        config.values[key] = value
    return config


def file_rules(config: Config) -> tuple[bool | None, tuple[Rule, ...]]:
    """``strict`` and the allow/deny rules of a configuration file (layer 0)."""
    strict = config.values.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise config.error(
            f"`strict` must be `true` or `false`, not {_toml_type(strict)}",
            "strict",
            help="write `strict = true`",
        )
    rules: list[Rule] = []
    for action in ("allow", "deny"):
        items = config.values.get(action)
        if items is None:
            continue
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise config.error(
                f"`{action}` must be a list of codes, not {_toml_type(items)}",
                action,
                help=f'write e.g. `{action} = ["W201", "W3"]`',
            )
        for item in items:
            try:
                selector = parse_selector(item, action)
            except SelectorError as exc:
                raise config.error(
                    str(exc), action, item, help="`bammmc codes` lists the codes"
                ) from None
            rules.append(Rule(selector, action, 0))
    for selector in conflicts(rules):
        raise config.error(
            f"`{selector}` is both allowed and denied",
            "deny",
            help="keep it in one of `allow` and `deny`",
        )
    return strict, tuple(rules)


def _where(table: tuple[str, ...]) -> str:
    return f"`[{'.'.join(table)}]`" if table else "`bammmc.toml`"


def _toml_type(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    names |= {list: "a list", dict: "a table"}
    return names.get(type(value), "a date or time")


def _toml_message(exc: Exception) -> str:
    message = str(exc)
    return re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)$", "", message)


def _toml_span(exc: Exception, text: str, path: str) -> Span | None:
    from bammmc.diagnostics.model import Span

    line = getattr(exc, "lineno", None)
    column = getattr(exc, "colno", None)
    if line is None:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        if m:
            line, column = int(m[1]), int(m[2])
        elif "end of document" in str(exc):
            lines = text.splitlines() or [""]
            line, column = len(lines), len(lines[-1]) + 1
    if line is None or column is None:
        return None
    return Span(file=path, line=line, column=column, end_line=line, end_column=column + 1)


def locate(
    text: str, table: tuple[str, ...], key: str, item: str | None = None, path: str | None = None
) -> Span | None:
    """The span of ``key`` in ``table`` of a TOML text (of ``item``, a string in its value, when
    given): a line scan that knows table headers and quoted keys, enough to point at the line.

    >>> text = 'a = 1\\n[tool.bammmc]\\nallow = [\\n  "W40",\\n]\\n'
    >>> locate(text, ("tool", "bammmc"), "allow", "W40")
    Span(file=None, line=4, column=3, end_line=4, end_column=8, start=None, end=None)
    """
    from bammmc.diagnostics.model import Span

    current: tuple[str, ...] = ()
    lines = text.splitlines()
    key_re = re.compile(r"\s*([\"']?)" + re.escape(key) + r"\1\s*=")
    for number, line in enumerate(lines, 1):
        header = re.match(r"\s*\[\[?([^\]]*)\]", line)
        if header:
            current = tuple(p.strip().strip("\"'") for p in header[1].split("."))
            continue
        m = key_re.match(line)
        if current != table or not m:
            continue
        if item is not None:
            for later, rest in enumerate(lines[number - 1 : number + 49], number):
                start = 0 if later > number else m.end()
                for quote in ('"', "'"):
                    at = rest.find(f"{quote}{item}{quote}", start)
                    if at >= 0:
                        return Span(
                            file=path,
                            line=later,
                            column=at + 1,
                            end_line=later,
                            end_column=at + len(item) + 3,
                        )
        column = len(line) - len(line.lstrip()) + 1
        return Span(
            file=path,
            line=number,
            column=column,
            end_line=number,
            end_column=column + len(m[0].rstrip("= \t").strip()),
        )
    return None


def _error(path: str, text: str | None, message: str, span: Span | None, help: str) -> ConfigError:
    from bammmc.diagnostics.model import Diagnostic

    diag = Diagnostic(
        code="E016",
        severity="error",
        message=message,
        span=span,
        help=help or None,
        file=None if span is not None else path,
    )
    return ConfigError(diag, text)
