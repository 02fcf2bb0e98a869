"""The ClassAd expression language (frontends/classad.py, grammars/classad.lark): canonical
text, AST shape, offsets and errors, one table per topic.

Every canonical form below is what HTCondor 25.14.1's ``str(classad2.ExprTree(text))`` prints
(checked by hand and re-checked against the oracle in test_classad_oracle.py::test_tables).
"""

from __future__ import annotations

import pytest

from bammmc.diagnostics.model import Reporter, Span
from bammmc.frontends.classad import (
    Attribute,
    AttrRef,
    Binary,
    Call,
    ClassAdError,
    Elvis,
    Expr,
    ListExpr,
    Literal,
    Paren,
    Record,
    Select,
    Subscript,
    Ternary,
    Unary,
    ad_items,
    check,
    check_ads,
    parse,
    parse_ad,
    parse_ads,
    unparse,
)


def a(name: str) -> AttrRef:
    return AttrRef(name)


def i(value: int) -> Literal:
    return Literal("integer", value)


# ── canonical text ──────────────────────────────────────────────────────────────────────────────

#: (input, canonical text)
PRECEDENCE = [
    ("a ?: b + 1", "a ?: b + 1"),
    ("a || b && c", "a || b && c"),
    ("a&&b||c", "a && b || c"),
    ("a ? b : c ? d : e", "a ? b : c ? d : e"),
    ("a ? b ? c : d : e", "a ? b ? c : d : e"),
    ("a | b ^ c & d", "a | b ^ c & d"),
    ("a<<1>>2>>>3", "a << 1 >> 2 >>> 3"),
    ("a<=b==c", "a <= b == c"),
    ("a =?= b", "a is b"),
    ("a =!= b", "a isnt b"),
    ("a IS b", "a is b"),
    ("a IsNt b", "a isnt b"),
    ("x*y/z%w", "x * y / z % w"),
    ("a ?: b ?: c", "a ?: b ?: c"),
    ("a ? : b", "a ?: b"),
    ("(a ? b : c)", "(a ? b : c)"),
    ("((a))", "((a))"),
]

#: `-` before a number is part of the literal where an operand starts; elsewhere an operator
MINUS = [
    ("-3", "-3"),
    ("- 3", " -3"),
    ("a - -3", "a - -3"),
    ("3--2", "3 - -2"),
    ("a-1", "a - 1"),
    ("(a)-1", "(a) - 1"),
    ("- -3", " --3"),
    ("-a", " -a"),
    ("!a", " !a"),
    ("! !a", " ! !a"),
    ("~a", " ~a"),
    ("+a", " +a"),
    ("!-3", " !-3"),
    ("-.5", "-5.000000000000000E-01"),
    ("- ..5", " -0.0"),
    ("-010", "-10"),
    ("-0x1F", "0"),
]

LITERALS = [
    ("42", "42"),
    ("0", "0"),
    ("9223372036854775807", "9223372036854775807"),
    ("-9223372036854775808", "-9223372036854775808"),
    ("9223372036854775808", "0"),  # from_chars overflows: the value stays 0
    ("1.5e3", "1.500000000000000E+03"),
    ("1E+5", "1.000000000000000E+05"),
    (".5", "5.000000000000000E-01"),
    ("0.0", "0.0"),
    ("-0.0", "-0.0"),
    ("08.5", "8.500000000000000E+00"),
    ("1e400", 'real("INF")'),
    ("-1e400", 'real("-INF")'),
    ("1e-400", "0.0"),
    ("..5", "0.0"),
    ("0x1.8", "1.500000000000000E+00"),
    ("TRUE", "true"),
    ("False", "false"),
    ("UNDEFINED", "undefined"),
    ("Error", "error"),
    ('"a" "b"', '"ab"'),
    ('"a"\n  "b"', '"ab"'),
    ('"\\1" "2"', '"\\n"'),  # joined first, then the escapes: `\12`
    ('"tab\\there"', '"tab\\there"'),
    ('"a\\qb"', '"aqb"'),
    ('"\\101\\044\\44\\1"', '"A$$\\001"'),
    ('"\\477"', '"\'7"'),
    ('"it\'s"', '"it\'s"'),
    ('"q\\"q"', '"q\\"q"'),
    ('"\\\\"', '"\\\\"'),
    ('"café"', '"caf\\303\\251"'),
    ('"\\303\\251"', '"\\303\\251"'),
    ('"\\a\\b\\f\\v\\r"', '"\\a\\b\\f\\v\\r"'),
]

NAMES = [
    ("Memory", "Memory"),
    ("MY.x", "MY.x"),
    ("my.x", "my.x"),
    ("TARGET.Memory", "TARGET.Memory"),
    ("parent", "'parent'"),
    ("PARENT.x", "'PARENT'.x"),
    (".x", ".x"),
    ("..x", ".x"),
    ("a .. b", "a.b"),
    ("x.y.z", "x.y.z"),
    ("'a b'", "'a b'"),
    ("a.'b c'", "a.b c"),  # HTCondor prints a selected name unquoted
    (".'b c'", ".'b c'"),
    ("'true'", "'true'"),
    ("'TRUE'", "'TRUE'"),
    ("'x'", "x"),
    ("'a\\'b'", "'a\\'b'"),
    ("'a' 'b'", "ab"),
    ("true1", "true1"),
    ("TRUE_", "TRUE_"),
    ("isx", "isx"),
    ("True.x", "true.x"),
    ("1 .x", "1.x"),
    ('"a".b', '"a".b'),
]

COMPOSITES = [
    ("{}", "\n   {\n   }"),
    ("{1,2,3}", "\n   {\n      1,\n      2,\n      3\n   }"),
    ("[]", "\n    [\n    ]"),
    ("[a=1;b=2]", "\n    [\n        a = 1; \n        b = 2\n    ]"),
    ("[b=1;a=2;c=3]", "\n    [\n        a = 2; \n        b = 1; \n        c = 3\n    ]"),
    (
        "[zeta=1; Mid=3; x1=5]",
        "\n    [\n        x1 = 5; \n        Mid = 3; \n        zeta = 1\n    ]",
    ),
    ("[a=1;A=2]", "\n    [\n        a = 2\n    ]"),
    ("[;a=1;;b=2;]", "\n    [\n        a = 1; \n        b = 2\n    ]"),
    ("['true' = 1]", "\n    [\n        'true' = 1\n    ]"),
    (
        "{{1},[a={3}]}",
        "\n   {\n      \n         {\n            1\n         },\n      \n          [\n"
        "              a = \n                 {\n                    3\n                 }\n"
        "          ]\n   }",
    ),
    ("f({1},[x=1])", "f(\n   {\n      1\n   },\n    [\n        x = 1\n    ])"),
    ("[a=1]-1", "\n    [\n        a = 1\n    ] - 1"),
    (
        "{ [a = 1], [a = 2] }.a",
        "\n   {\n      \n          [\n              a = 1\n          ],\n"
        "      \n          [\n              a = 2\n          ]\n   }.a",
    ),
    ("a[1][b]", "a[1][b]"),
    ('strcat( "a" , b )', 'strcat("a",b)'),
    ("StrCat(a)", "StrCat(a)"),
    ("f(1;2)", "f(1,2)"),  # old ClassAd semantics: `;` between arguments
    ("f()", "f()"),
]

COMMENTS_AND_SPACE = [
    ("a /* c */ + b", "a + b"),
    ("a // c\n+ b", "a + b"),
    ("/* x */ a", "a"),
    ("\n  a\t\n", "a"),
    ("a/**/-1", "a - 1"),
]

TIMES = [
    ('absTime("2003-09-03T")', 'absTime("2003-09-03T00:00:00-00:00")'),
    ('absTime("1970-01-02T:03:04:05-06:00")', 'absTime("1970-01-02T03:04:05-06:00")'),
    ('ABSTIME("1997-08-30T16:04:05-0500")', 'absTime("1997-08-30T16:04:05-05:00")'),
    ('absTime("1970-01-01T00:00:00+01:30")', 'absTime("1970-01-01T00:00:00+01:30")'),
    ('relTime("1d2h3m4.5s")', 'relTime("1+02:03:4.5")'),
    ('relTime("2+25:14:16.123")', 'relTime("3+01:14:16.123")'),
    ('relTime("-5")', 'relTime("-05")'),
    ('relTime("")', 'relTime("00")'),
    ('absTime(("1970"))', 'absTime(("1970"))'),  # not one string literal: stays a call
    ('absTime("1970", 1)', 'absTime("1970",1)'),
]

CANONICAL = PRECEDENCE + MINUS + LITERALS + NAMES + COMPOSITES + COMMENTS_AND_SPACE + TIMES


@pytest.mark.parametrize(("text", "canonical"), CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_text(text: str, canonical: str) -> None:
    assert unparse(parse(text)) == canonical


@pytest.mark.parametrize(("text", "canonical"), CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_text_reads_back_to_itself(text: str, canonical: str) -> None:
    if text in ("a.'b c'", "1 .x"):  # the selected name is printed as is: no longer one name
        with pytest.raises(ClassAdError):
            parse(canonical)
        return
    # ` -3` reads back as the literal -3, whose text is `-3`
    expected = canonical.lstrip() if text in ("- 3", "- ..5") else canonical
    assert unparse(parse(canonical)) == expected


# ── AST shapes ──────────────────────────────────────────────────────────────────────────────────

SHAPES: list[tuple[str, Expr]] = [
    ("a ?: b + 1", Binary("+", Elvis(a("a"), a("b")), i(1))),
    ("a ?: b.c", Elvis(a("a"), Select(a("b"), "c"))),
    ("a.b ?: c", Elvis(Select(a("a"), "b"), a("c"))),
    ("a ?: b ?: c", Elvis(a("a"), Elvis(a("b"), a("c")))),
    ("-a ?: b", Unary("-", Elvis(a("a"), a("b")))),
    ("a || b && c", Binary("||", a("a"), Binary("&&", a("b"), a("c")))),
    ("a - b - c", Binary("-", Binary("-", a("a"), a("b")), a("c"))),
    ("a ? b : c ? d : e", Ternary(a("a"), a("b"), Ternary(a("c"), a("d"), a("e")))),
    ("a << 1 + 2", Binary("<<", a("a"), Binary("+", i(1), i(2)))),
    ("a < b == c", Binary("==", Binary("<", a("a"), a("b")), a("c"))),
    ("a & b == c", Binary("&", a("a"), Binary("==", a("b"), a("c")))),
    ("a =?= b", Binary("is", a("a"), a("b"))),
    ("- 3", Unary("-", i(3))),
    ("-3", i(-3)),
    ("a - -3", Binary("-", a("a"), i(-3))),
    ("(a)", Paren(a("a"))),
    ("MY.x", AttrRef("x", "MY")),
    ("target.x", AttrRef("x", "target")),
    ("Foo.x", Select(a("Foo"), "x")),
    ("MY.a.b", Select(AttrRef("a", "MY"), "b")),
    (".x", AttrRef("x", absolute=True)),
    (".MY.x", Select(AttrRef("MY", absolute=True), "x")),
    ("a[1]", Subscript(a("a"), i(1))),
    ("f(1; b)", Call("f", (i(1), a("b")))),
    ("{1, 2}", ListExpr((i(1), i(2)))),
    ("[a = 1; A = 2]", Record((Attribute("a", i(1)), Attribute("A", i(2))))),
    ('"a" "b"', Literal("string", "ab")),
    ("1.5", Literal("real", 1.5)),
    ("true", Literal("boolean", True)),
    ("UNDEFINED", Literal("undefined")),
    ('relTime("1:00")', Literal("reltime", 60.0)),
    ('absTime("1970-01-02T00:00:00Z")', Literal("abstime", (86400, 0))),
]


@pytest.mark.parametrize(("text", "shape"), SHAPES, ids=[s[0] for s in SHAPES])
def test_ast_shape(text: str, shape: Expr) -> None:
    assert parse(text) == shape


#: (text, the substring each node of a pre-order walk covers)
SPANS = [
    ("a + (b * c)", ["a + (b * c)", "a", "(b * c)", "b * c", "b", "c"]),
    ("  MY.x ?: f(1)", ["MY.x ?: f(1)", "MY.x", "f(1)", "1"]),
    ("- 3", ["- 3", "3"]),
    (".x[0]", [".x[0]", ".x", "0"]),
    ("[a = {1}]", ["[a = {1}]", "a = {1}", "{1}", "1"]),
    ('"a" /* c */ ', ['"a"']),
]


def _walk(node: object) -> list[object]:
    out = [node]
    for value in vars(node).values():
        children = value if isinstance(value, tuple) else (value,)
        for child in children:
            if isinstance(child, Literal | AttrRef) or hasattr(child, "start"):
                if not isinstance(child, int | str | bool | float):
                    out += _walk(child)
    return out


@pytest.mark.parametrize(("text", "covered"), SPANS, ids=[s[0] for s in SPANS])
def test_offsets(text: str, covered: list[str]) -> None:
    nodes = _walk(parse(text))
    assert [text[n.start : n.end] for n in nodes] == covered  # type: ignore[attr-defined]


# ── errors ──────────────────────────────────────────────────────────────────────────────────────

#: (text, offset of the offending token, words of the message)
ERRORS = [
    ("", 0, "empty"),
    ("a >= ", 4, "end of the text"),
    ("(a", 2, "expected `)`"),
    ("f(a,)", 4, "unexpected `)`"),
    ("{1,}", 3, "unexpected `}`"),
    ("[;]", 2, "unexpected `]`"),
    ("[a=1 b=2]", 5, "unexpected `b`"),
    ("a b", 2, "unexpected `b`"),
    ("x = 1", 2, "unexpected `=`"),
    ("a.true", 2, "`true`"),
    ("true = 1", 5, "unexpected `=`"),
    ("010", 0, "cannot start with `0`"),
    ("a + 00", 4, "cannot start with `0`"),
    ("08", 0, "cannot start with `0`"),
    ("0x1F", 0, "decimal"),
    ("5.", 0, "digit after its `.`"),
    ("1.e5", 0, "digit after its `.`"),
    ("1.x", 0, "digit after its `.`"),
    ("1e", 0, "not a number"),
    ("4GB", 1, "unexpected `GB`"),
    ('"abc', 0, "not closed"),
    ("'abc", 0, "not closed"),
    ("a /* c", 2, "comment is not closed"),
    ("a // c", 2, "`//` comment"),
    ("a + b // c", 6, "`//` comment"),
    ('"a\\0b"', 0, "NUL"),
    ("'a\\0'", 0, "NUL"),
    ("['' = 1]", 1, "cannot be empty"),
    ("café", 3, "`é`"),
    ("a @ b", 2, "unexpected `@`"),
    ("\\", 0, "unexpected `\\`"),
    ("a =?b", 2, "unexpected"),
    ("a ?: -b", 5, "unexpected `-`"),
    ("a ? b", 5, "expected `:`"),
    ('absTime("junk")', 8, "cannot read the time"),
    ('relTime("x")', 8, "cannot read the time"),
    ('"a"/**/"b"', 7, 'unexpected `"b"`'),
    ("(" * 166 + "a" + ")" * 166, 166, "nests more than 500"),
    ("!" * 498 + "a", 498, "nests more than 500"),
]


@pytest.mark.parametrize(("text", "offset", "words"), ERRORS, ids=[e[0][:30] for e in ERRORS])
def test_error(text: str, offset: int, words: str) -> None:
    with pytest.raises(ClassAdError) as caught:
        parse(text)
    assert caught.value.start == offset
    assert words in caught.value.message
    assert caught.value.end >= caught.value.start


def test_leading_zeros_as_condor_submit_reads_them() -> None:
    """Issue 19 said HTCondor reads `010` as 10, as classad2 alone does (new semantics); but
    HTCondor's tools switch the library to the old semantics (compat_classad.cpp
    ClassAdReconfig(): STRICT_CLASSAD_EVALUATION is false by default), whose lexer refuses an
    integer with a leading zero. Judged by htcondor2 itself, in a process of its own (the
    switch is process-wide): bammmc refuses exactly what it refuses."""
    import json
    import subprocess
    import sys

    pytest.importorskip("htcondor2")
    texts = ["010", "a > 011", "08", "0", "10", "010.5", "0.5", "a + 00", "0e1"]
    probe = (
        "import json, sys, htcondor2, classad2\n"
        "out = []\n"
        "for t in json.loads(sys.argv[1]):\n"
        "    try: classad2.ExprTree(t); out.append(True)\n"
        "    except Exception: out.append(False)\n"
        "print(json.dumps(out))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(texts)],
        capture_output=True,
        text=True,
        check=True,
        env={"CONDOR_CONFIG": "/dev/null", "PATH": "/usr/bin:/bin"},
    )
    theirs = json.loads(run.stdout)
    ours = []
    for text in texts:
        try:
            parse(text)
            ours.append(True)
        except ClassAdError:
            ours.append(False)
    assert dict(zip(texts, ours, strict=True)) == dict(zip(texts, theirs, strict=True))
    assert theirs[:3] == [False, False, False]


def test_the_depth_limit_is_exact() -> None:
    assert unparse(parse("(" * 165 + "a" + ")" * 165)).count("(") == 165
    assert unparse(parse("!" * 497 + "a")).count("!") == 497


def test_a_long_chain_is_no_deep_recursion() -> None:
    text = " || ".join(f'Machine == "m{n}.example.org"' for n in range(5000))
    assert unparse(parse(text)) == text


# ── old ClassAd syntax (submit files, `Name = expr` ad lines) ──────────────────────────────────

OLD = [
    ('"C:\\dir\\file"', '"C:\\\\dir\\\\file"'),
    ('"a\\"b"', '"a\\"b"'),
    ('"ends with \\"', '"ends with \\\\"'),
    ('"ab\\"cd\\ef"', '"ab\\"cd\\\\ef"'),
    ("a // trailing comment", "a"),
]


@pytest.mark.parametrize(("text", "canonical"), OLD, ids=[o[0] for o in OLD])
def test_old_syntax_strings(text: str, canonical: str) -> None:
    assert unparse(parse(text, old=True)) == canonical


def test_old_syntax_has_no_joined_strings() -> None:
    with pytest.raises(ClassAdError):
        parse('"a" "b"', old=True)


# ── whole ads ───────────────────────────────────────────────────────────────────────────────────


def _shown(attrs: list[Attribute]) -> list[tuple[str, str]]:
    return [(name, unparse(value)) for name, value in ad_items(attrs)]


def test_new_style_ad() -> None:
    text = '[\n  Cmd = "/bin/sh"; // the program\n  Args = "-c \'x\'";\n  cmd = 1;\n]\n'
    attrs = parse_ad(text)
    assert [(x.name, text[x.start : x.end]) for x in attrs] == [
        ("Cmd", 'Cmd = "/bin/sh"'),
        ("Args", "Args = \"-c 'x'\""),
        ("cmd", "cmd = 1"),
    ]
    assert _shown(attrs) == [("Cmd", "1"), ("Args", "\"-c 'x'\"")]


def test_old_style_ad() -> None:
    text = '# a machine\nMyType = "Machine"\n  Memory = 1024 * 4\n\nRequirements = TRUE\n'
    attrs = parse_ad(text)
    assert [(x.name, text[x.start : x.end]) for x in attrs] == [
        ("MyType", 'MyType = "Machine"'),
        ("Memory", "Memory = 1024 * 4"),
        ("Requirements", "Requirements = TRUE"),
    ]
    assert [len(ad) for ad in parse_ads(text)] == [2, 1]
    crlf = text.replace("\n", "\r\n")
    assert [(x.name, crlf[x.start : x.end]) for x in parse_ad(crlf)][-1] == (
        "Requirements",
        "Requirements = TRUE",
    )


def test_ad_streams() -> None:
    assert [_shown(ad) for ad in parse_ads("[a=1] [b=2;]\n/* end */")] == [
        [("a", "1")],
        [("b", "2")],
    ]
    assert parse_ads("") == []


#: (text, offset, words) of ads that do not parse
AD_ERRORS = [
    ("[a=1]x", 5, "unexpected `x`"),
    ("[a = 1 // comment ]", 19, "end of the text"),
    ("a = 1\nb == 2\n", 8, "unexpected `==`"),
    ("a = 1 2\n", 6, "unexpected `2`"),
    ("a = 1\rb = 2\n", 6, "unexpected `b`"),  # only `\n` ends a line
    ("[;;]", 3, "unexpected `]`"),
]


@pytest.mark.parametrize(("text", "offset", "words"), AD_ERRORS, ids=[e[0] for e in AD_ERRORS])
def test_ad_error(text: str, offset: int, words: str) -> None:
    with pytest.raises(ClassAdError) as caught:
        parse_ads(text)
    assert (caught.value.start, words in caught.value.message) == (offset, True)


# ── diagnostics ─────────────────────────────────────────────────────────────────────────────────


def _span(column: int, width: int) -> Span:
    return Span(file="job.sub", line=3, column=column, end_line=3, end_column=column + width)


def test_check_reports_e021_at_the_token() -> None:
    reporter = Reporter("job.sub")
    assert check("Memory >= 1024 &&", reporter, _span(16, 17), what="requirements") is None
    (diag,) = reporter.diagnostics
    assert diag.code == "E021"
    assert diag.message.startswith("`requirements` is not a ClassAd expression: ")
    assert diag.span is not None and (diag.span.column, diag.span.end_column) == (33, 34)
    assert diag.help


def test_check_marks_inside_quotes_and_falls_back_to_the_whole_span() -> None:
    reporter = Reporter("job.splat.yaml")
    check("(a", reporter, _span(10, 4), what="rank")  # written as '(a' in quotes
    check("(a", reporter, _span(10, 9), what="rank")  # some other spelling
    spans = [d.span for d in reporter.diagnostics]
    assert [(s.column, s.end_column) for s in spans if s] == [(13, 14), (10, 19)]


def test_check_returns_the_expression() -> None:
    reporter = Reporter()
    assert check("a>1", reporter, None, what="rank") == Binary(">", a("a"), i(1))
    assert reporter.diagnostics == []


def test_check_ads_locates_the_error_by_line() -> None:
    reporter = Reporter("machine.ad")
    assert check_ads('MyType = "Machine"\nCpus = 4 +\n', reporter) is None
    (diag,) = reporter.diagnostics
    assert diag.code == "E021"
    assert diag.span is not None and (diag.span.line, diag.span.column) == (2, 11)
