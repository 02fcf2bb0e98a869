"""Small hostile inputs that used to take seconds to minutes (issue 18, item 5) and a `%c` that
made a lone surrogate (item 6): each is answered with a coded diagnostic, and the work it takes
is bounded. The bounds count work (macro expansions, characters handed to a Lark parser,
statements read), never wall time; `benchmarks/test_bench.py::test_hostile_answered_quickly`
times the same inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import bammmc
from bammmc import grammars
from bammmc.diagnostics.model import Reporter
from bammmc.frontends import classad, htcondor
from bammmc.frontends.htcondor import MAX_EXPANSION, Macros

EXE = "executable = run.sh\n"


def _codes(text: str, fmt: str = "htcondor") -> list[str]:
    _, diags = bammmc.parse(text, fmt)
    return [d.code for d in diags]


@pytest.fixture
def expansions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts `Macros.expand` calls; more than 10,000 is a failure at once (an exponential
    expansion would otherwise run for hours)."""
    count = [0]
    original = Macros.expand

    def counted(self: Macros, value: str, depth: int = 0) -> Any:
        count[0] += 1
        assert count[0] <= 10_000, "the macros are expanded over and over"
        return original(self, value, depth)

    monkeypatch.setattr(Macros, "expand", counted)
    yield count


def _doubling(function: Callable[[int], str], levels: int = 30) -> str:
    lines = [f"a{i} = {function(i - 1)}{function(i - 1)}" for i in range(1, levels)]
    return EXE + "a0 = /x/y.z\n" + "\n".join(lines) + f"\narguments = $(a{levels - 1})\nqueue\n"


# ── macros: every kind of expansion is cached and counts against one budget ─────────────────

DOUBLING = {
    "Fnx": lambda i: f"$Fnx(a{i})",
    "BASENAME": lambda i: f"$BASENAME(a{i})",
    "SUBSTR": lambda i: f"$SUBSTR(a{i},0)",
    "STRING": lambda i: f"$STRING(a{i})",
    "reference": lambda i: f"$(a{i})",
}


@pytest.mark.parametrize("name", sorted(DOUBLING))
def test_doubling_functions_are_refused_in_bounded_work(name: str, expansions: list[int]) -> None:
    """Macros doubling per level through `$Fnx()`/`$SUBSTR()`… (a 529-byte file ran > 30 s):
    each macro is expanded once and the characters they make hit MAX_EXPANSION (E006)."""
    _, diags = bammmc.parse(_doubling(DOUBLING[name]), "htcondor")
    errors = [d for d in diags if d.code == "E006"]
    assert errors, diags
    assert errors[0].span is not None and errors[0].span.line > 1  # at a macro's statement
    assert expansions[0] < 200


@pytest.mark.parametrize(
    "value", ["$INT(x)$INT(x)", "$Fnx(x)$Fnx(x)$Fnx(x)", "$SUBSTR(x,1)$SUBSTR(x,1)"]
)
def test_a_function_cycle_stops_at_once(value: str, expansions: list[int]) -> None:
    """`x = $INT(x)$INT(x)` named itself 2**32 times before (cycles were only stopped at a
    depth of 32); a macro already being expanded is a cycle, left as written."""
    codes = _codes(EXE + f"x = {value}\narguments = $(x)\nqueue\n")
    assert "E006" not in codes
    assert expansions[0] < 20


def test_the_budget_counts_function_results() -> None:
    macros = Macros({})
    text = "$Fnx(/" + "x" * 1000 + ")"
    macros.expand(text)
    assert macros.budget.spent > 1000  # the 1,000 characters it produced


@pytest.mark.parametrize(
    "value", ["$(" * 50_000 + "x" + ")" * 50_000, "$(" + "(" * 50_000 + ")" * 50_000 + ")"]
)
def test_deeply_nested_references_are_e006_not_a_recursion_error(value: str) -> None:
    codes = _codes(EXE + f"arguments = {value}\nqueue\n")
    assert "E006" in codes


def test_conditions_share_one_budget(expansions: list[int]) -> None:
    """20,000 `if $(bomb)` lines: one E006, and the file is read no further."""
    lines = [f"a{i} = $(a{i - 1})$(a{i - 1})" for i in range(1, 30)]
    text = EXE + "a0 = xxxxxxxxxx\n" + "\n".join(lines) + "\n" + "if $(a29)\nendif\n" * 20_000
    codes = _codes(text + "queue\n")
    assert codes.count("E006") == 1
    assert expansions[0] < 200


def test_many_references_are_charged_before_they_are_parsed(monkeypatch: Any) -> None:
    """A value of 2,000,000 references is refused before Lark reads it token by token."""
    seen: list[int] = []
    original = grammars.parser

    def counting(grammar: str, start: str) -> Any:
        lark = original(grammar, start)
        if grammar != "htcondor_macro":
            return lark

        class Counted:
            def parse(self, text: str) -> Any:
                seen.append(len(text))
                return lark.parse(text)

        return Counted()

    monkeypatch.setattr(htcondor, "parser", counting)
    value = "$(a)" * (MAX_EXPANSION // 2)
    codes = _codes(EXE + f"a = 1\narguments = {value}\nqueue\n")
    assert "E006" in codes
    assert not any(n > 1000 for n in seen)


# ── `$INT(x,%c)`: one byte, as condor_submit's snprintf writes it ───────────────────────────


def _expand(value: str, body: str) -> str:
    submit = htcondor.scan(EXE + f"x = {value}\nqueue\n", Reporter("job.sub"))
    return Macros(submit.queues[0].commands).expand(f"<{body}>").text


@pytest.mark.parametrize(
    ("value", "body", "expected"),
    [
        # htcondor2 25.14.1 `Submit(...).expand("arguments")` gives each of these
        ("65", "$INT(x,%c)", "<A>"),
        ("321", "$INT(x,%c)", "<A>"),  # 321 modulo 256
        ("4294967361", "$INT(x,%c)", "<A>"),
        ("65", "$INT(x,%5c)", "<    A>"),
        ("3", "$REAL(x,%.0f)", "<3.0>"),  # condor_submit adds `.0` when there is no `.`
        ("2", "$REAL(x,%5.1f)", "<  2.0>"),
        ("3.14159265", "$REAL(x)", "<3.14159265>"),  # the default format is `%.16G`
        ("255", "$INT(x,%x)", "<ff>"),
        ("7", "$INT(x,v=%d!)", "<v=7!>"),
    ],
)
def test_formats_as_condor_submit(value: str, body: str, expected: str) -> None:
    assert _expand(value, body) == expected


@pytest.mark.parametrize("value", ["55296", "0", "200", "-1", "1114112"])
def test_a_byte_that_is_no_character_is_refused_where_it_is_made(value: str) -> None:
    """55296 (a UTF-16 surrogate) made a lone surrogate and a UnicodeEncodeError at write time;
    condor_submit writes the byte `value % 256`: 0 ends the value, 128-255 are not UTF-8
    (htcondor2 cannot decode 200 or -1)."""
    text = EXE + f"x = {value}\narguments = $INT(x,%c)\nqueue\n"
    out, diags = bammmc.convert(text, "htcondor", "slurm")
    assert out is None
    errors = [d for d in diags if d.code == "E134"]
    assert errors, diags
    span = errors[0].span
    assert span is not None and (span.line, span.column, span.end_column) == (3, 13, 23)


def test_a_format_python_reads_otherwise_is_left_for_condor_submit() -> None:
    """`%a` is a hexadecimal float in C, `ascii()` in Python: not reproduced, kept as written."""
    assert _expand("1.5", "$REAL(x,%a)") == "<$REAL(x,%a)>"


# ── `if` nesting ──────────────────────────────────────────────────────────────────────────


def test_if_nesting_past_condor_submits_limit_is_refused_at_once(monkeypatch: Any) -> None:
    """20,000 nested `if` took 28 s (each line looked at every open block; such a file is now
    past the 20,000 lines bammmc reads, so 9,000 here). condor_submit refuses the 64th nested
    `if` ("if nesting too deep!", htcondor2 25.14.1): so does bammmc, and it reads no further."""
    statements = [0]
    original = grammars.parser

    def counting(grammar: str, start: str) -> Any:
        lark = original(grammar, start)
        if start != "statement":
            return lark

        class Counted:
            def parse(self, text: str) -> Any:
                statements[0] += 1
                assert statements[0] < 1000, "the file is read past the refused `if`"
                return lark.parse(text)

        return Counted()

    monkeypatch.setattr(htcondor, "parser", counting)
    text = EXE + "if true\n" * 9_000 + "endif\n" * 9_000 + "queue\n"  # under MAX_LINES
    _, diags = bammmc.parse(text, "htcondor")
    errors = [d for d in diags if d.code == "E020"]
    assert len(errors) == 1 and errors[0].span is not None and errors[0].span.line == 65
    assert "63" in errors[0].message


@pytest.mark.parametrize(("depth", "refused"), [(63, False), (64, True)])
def test_the_if_depth_limit_is_condor_submits(depth: int, refused: bool) -> None:
    """htcondor2 25.14.1 reads 63 nested `if` and refuses 64."""
    text = EXE + "if true\n" * depth + "arguments = deep\n" + "endif\n" * depth + "queue\n"
    job, diags = bammmc.parse(text, "htcondor")
    assert ("E020" in [d.code for d in diags]) is refused
    if not refused:
        assert job is not None and job.spec is not None and job.spec.execution is not None
        assert job.spec.execution.arguments == "deep"


# ── ClassAd expressions: the depth and the length are checked before Lark parses ────────────


@pytest.fixture
def lark_chars(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The characters handed to the ClassAd Lark parsers."""
    seen: list[int] = []
    original = classad.parser

    def counting(start: str) -> Any:
        lark = original(start)

        class Counted:
            def parse(self, text: str) -> Any:
                seen.append(len(text))
                return lark.parse(text)

        return Counted()

    monkeypatch.setattr(classad, "parser", counting)
    cached = getattr(classad, "_parse_expression", None)  # parses are remembered
    if cached is not None:
        cached.cache_clear()
    yield seen
    if cached is not None:
        cached.cache_clear()


DEEP = {
    "open-parens": ("(" * 500_000, "E021", 166),
    "balanced-parens": ("(" * 500_000 + "1" + ")" * 500_000, "E021", 166),
    "lists": ("{" * 500_000, "E021", 166),
    "not": ("!" * 5_000_000 + "a", "E021", 499),
    "minus": ("-" * 5_000_000 + "1", "E021", 499),
    "long-sum": ("+".join(["1"] * 4_000_000), "E006", 20_000),
    "long-subscripts": ("a" + "[1]" * 300_000, "E006", 20_000),
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_a_hostile_expression_is_refused_before_lark_reads_it(
    name: str, lark_chars: list[int]
) -> None:
    """A `requirements` of 500,000 `(` took 27 s before its E021."""
    text, code, offset = DEEP[name]
    with pytest.raises(classad.ClassAdError) as caught:
        classad.parse(text, old=True)
    assert caught.value.code == code
    assert caught.value.start == offset
    assert sum(lark_chars) < 10_000


def test_the_refusal_comes_through_the_submit_reader(lark_chars: list[int]) -> None:
    codes = _codes(EXE + "requirements = " + "(" * 500_000 + "\nqueue\n")
    assert "E021" in codes
    assert sum(lark_chars) < 10_000


def test_a_syntax_error_before_the_deep_part_is_reported_first() -> None:
    with pytest.raises(classad.ClassAdError) as caught:
        classad.parse("a b " + "(" * 1000)
    assert caught.value.start == 2 and caught.value.code == "E021"


def test_a_long_machine_list_is_still_read() -> None:
    """5,000 machine names (just under MAX_TOKENS) parse; the reader's parse is shared."""
    text = " || ".join(f'Machine == "m{n}.example.org"' for n in range(5000))
    assert classad.unparse(classad.parse(text)) == text


# ── scripts: directive text and lines are bounded before they cost a Lark parse each ────────

#: a format, its directive prefix, and the extension of its files
SCRIPTS = {
    "slurm": "#SBATCH",
    "pbs": "#PBS",
    "torque": "#PBS",
    "lsf": "#BSUB",
    "sge": "#$",
    "flux-batch": "#flux:",
}

#: 9 MB inputs that took 15-60 s to answer (measured on main before, 2 cores): name -> maker
SCRIPT_SHAPES: dict[str, Callable[[str], str]] = {
    "one-long-list": lambda d: f"#!/bin/bash\n{d} -l " + "a=1," * 2_250_000 + "\n",
    "quotes": lambda d: f"#!/bin/bash\n{d} -J " + '"a' * 4_500_000 + "\n",
    "many-directives": lambda d: "#!/bin/bash\n" + f"{d} -N a\n" * 750_000,
    "many-comments": lambda d: "#!/bin/bash\n" + "# c\n" * 2_250_000,
}


def _lark_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each text a script reader's Lark parser is given (each reader gets its
    parsers through its own module's `parser(start)`)."""
    from bammmc.frontends import flux_batch, lsf, pbs, sge, slurm

    seen: list[int] = []
    for module in (slurm, pbs, lsf, sge, flux_batch):
        original = module.parser

        def counting(start: str, original: Callable[[str], Any] = original) -> Any:
            lark = original(start)

            class Counted:
                def parse(self, text: str) -> Any:
                    seen.append(len(text))
                    return lark.parse(text)

            return Counted()

        monkeypatch.setattr(module, "parser", counting)
    return seen


@pytest.mark.parametrize("shape", sorted(SCRIPT_SHAPES))
@pytest.mark.parametrize("fmt", sorted(SCRIPTS))
def test_a_huge_script_is_refused_in_bounded_work(
    fmt: str, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One E006 where the limit is crossed, and the directive parses stop there: a script's
    directives hold at most 64 KiB (MAX_DIRECTIVE_TEXT), an input at most 20,000 lines."""
    from bammmc.frontends.limits import MAX_DIRECTIVE_TEXT
    from bammmc.source import MAX_LINES

    seen = _lark_parses(monkeypatch)
    text = SCRIPT_SHAPES[shape](SCRIPTS[fmt])
    _, diags = bammmc.parse(text, fmt)
    errors = [d for d in diags if d.code == "E006"]
    assert len(errors) == 1, [d.code for d in diags][:10]
    span = errors[0].span
    assert span is not None
    if shape.startswith("many"):
        assert "20,000 lines" in errors[0].message and span.line == MAX_LINES + 1
        assert not seen  # refused before any reader ran
    else:
        assert "64 KiB" in errors[0].message and span.line == 2
        assert sum(n for n in seen if n < len(text)) <= MAX_DIRECTIVE_TEXT


@pytest.mark.parametrize("fmt", sorted(SCRIPTS))
def test_directives_up_to_the_budget_are_read(fmt: str) -> None:
    """Just under 64 KiB of directives (and 20,000 lines) is still an ordinary script."""
    from bammmc.frontends.limits import MAX_DIRECTIVE_TEXT

    line = f"{SCRIPTS[fmt]} -N a\n"
    count = MAX_DIRECTIVE_TEXT // len(line)
    text = "#!/bin/bash\n" + line * count + "echo ok\n"
    _, diags = bammmc.parse(text, fmt)
    assert "E006" not in [d.code for d in diags]
    _, diags = bammmc.parse("#!/bin/bash\n" + line * (count + 1) + "echo ok\n", fmt)
    assert "E006" in [d.code for d in diags]  # one more crosses it


def test_the_line_limit_holds_for_every_format() -> None:
    """20,001 lines of anything: E006 at line 20,001, for each format bammmc reads."""
    from bammmc.registry import FORMATS

    for fmt in FORMATS:
        _, diags = bammmc.parse("#!/bin/bash\n" + "# x\n" * 20_000, fmt)
        errors = [d for d in diags if d.code == "E006"]
        assert errors and errors[0].span is not None, fmt
        assert errors[0].span.line == 20_001 and errors[0].span.column == 1
        _, diags = bammmc.parse("#!/bin/bash\n" + "# x\n" * 19_999, fmt)
        assert "E006" not in [d.code for d in diags], fmt
