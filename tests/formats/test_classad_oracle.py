"""bammmc's ClassAd parser against HTCondor's own (``classad2`` 25.14.1, the oracle): the same
accept/reject verdict and the same canonical text for every expression of the corpus, every
attribute of its ads, the tables of test_classad.py, and 1,500 generated expressions.

The oracle's ``ExprTree(text)`` parses ``[expression = TEXT]`` and looks the attribute up, so
text that closes that ad early (`1] junk`, `1; b = 2`) is accepted up to there; bammmc reads
one whole expression. Those cases are the only disagreements (``DISAGREEMENTS``, and
``_closes_the_wrapper`` for generated text); everything else must agree exactly.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

from bammmc.frontends.classad import (
    Attribute,
    ClassAdError,
    Expr,
    Record,
    ad_items,
    parse,
    parse_ad,
    parse_ads,
    unparse,
)
from tests.formats import test_classad as tables
from tests.formats.test_classad_corpus import FILES, ORACLE_DIFFERS, expected_to_fail, units

pytestmark = pytest.mark.oracle

#: (input, what the oracle prints, why bammmc cannot agree)
DISAGREEMENTS: list[tuple[str, str, str]] = [
    ("1] junk", "1", "ExprTree parses `[expression = 1] junk]`; the ad ends at the first `]`"),
    ("1; b = 2", "1", "`[expression = 1; b = 2]` is an ad with two attributes"),
    ("1; expression = 2", "2", "the later `expression` attribute replaces the first"),
]


@pytest.fixture(scope="module")
def classad2(condor_oracle: Any) -> Any:
    """The oracle's module. Loading check.py imports htcondor2, which turns on the old-ClassAd
    semantics every HTCondor tool uses (`010` and `0x1F` are errors, `f(a;b)` is allowed);
    without it `010` would read as 10 (shared/docs/formats/classad.md §1.1 saw that mode)."""
    os.environ.setdefault("CONDOR_CONFIG", os.devnull)
    import classad2 as module

    assert condor_oracle.expr("010")[0] is None, "old-ClassAd semantics are off"
    return module


def ours(text: str) -> tuple[str | None, ClassAdError | None]:
    try:
        return unparse(parse(text)), None
    except ClassAdError as err:
        return None, err


def oracle(classad2: Any, text: str) -> str | None:
    try:
        return str(classad2.ExprTree(text))
    except Exception:  # classad2.ClassAdException, ValueError for a NUL
        return None


@pytest.mark.parametrize(("text", "printed", "why"), DISAGREEMENTS)
def test_disagreements_are_still_there(classad2: Any, text: str, printed: str, why: str) -> None:
    assert oracle(classad2, text) == printed, why
    assert ours(text)[0] is None


# ── the unit tests' tables ──────────────────────────────────────────────────────────────────────


def test_tables(classad2: Any) -> None:
    for text, canonical in tables.CANONICAL:
        assert oracle(classad2, text) == canonical, text
    for text, *_ in tables.ERRORS:
        assert oracle(classad2, text) is None, text
    for text, _ in tables.SHAPES:
        assert oracle(classad2, text) == ours(text)[0], text


def test_old_syntax_table(classad2: Any) -> None:
    for text, canonical in tables.OLD:
        ad = classad2.parseOne(f"x = {text}\n", classad2.ParserType.Old)
        assert str(ad.lookup("x")) == canonical, text


# ── the corpus ──────────────────────────────────────────────────────────────────────────────────


def _record(attrs: list[Attribute]) -> Expr:
    return Record(tuple(attrs))


def _oracle_ads(classad2: Any, text: str, old: bool) -> list[list[tuple[str, str]]]:
    kind = classad2.ParserType.Old if old else classad2.ParserType.New
    return [
        sorted((k, str(ad.lookup(k))) for k in ad)
        for ad in classad2.parseAds(text, kind)
        if len(ad) or not old
    ]


def _our_ads(ads: list[list[Attribute]]) -> list[list[tuple[str, str]]]:
    return [sorted((n, unparse(v)) for n, v in ad_items(ad)) for ad in ads]


@pytest.mark.skipif(not FILES, reason="../shared/corpus/classad is not here")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file(classad2: Any, path: Any) -> None:
    verdicts = []
    for kind, piece, _ in units(path):
        if kind == "expression":
            mine, err = ours(piece)
            assert mine == oracle(classad2, piece), (piece, err)
            verdicts.append(err is None)
            continue
        old = not piece.lstrip().startswith(("[", "/"))
        try:
            ads = parse_ads(piece)
        except ClassAdError:
            ads = None
        if not old:
            # one ad: ExprTree reads it whole (ClassAd() would stop at its `]`)
            whole = oracle(classad2, piece)
            if ads is not None and len(ads) == 1:
                assert unparse(_record(parse_ad(piece))) == whole, piece
            elif ads is None and whole is not None:
                pytest.fail(f"the oracle reads {path.name}: {whole}")
        if ads is not None:
            if old or len(ads) > 1:
                assert _our_ads(ads) == _oracle_ads(classad2, piece, old)
            for ad in ads:  # every value, cut out of the text by its offsets
                for attr in ad:
                    value = piece[attr.value.start : attr.value.end]
                    if not old or "\\" not in value:
                        assert oracle(classad2, value) == unparse(attr.value), value
        verdicts.append(ads is not None)
    assert (not all(verdicts)) == expected_to_fail(path.name), ORACLE_DIFFERS.get(path.name)


# ── generated expressions ───────────────────────────────────────────────────────────────────────

NAMES = ["a", "b", "x1", "_y", "Memory", "TARGET", "MY", "my", "Target", "parent", "PARENT",
         "other", "root", "Machine", "RequestMemory", "isx", "true1", "TRUE_", "Is_"]  # fmt: skip
QUOTED = ["'a b'", "'true'", "'x'", "'b.##$%'", "'is'", "''", "'a\\'b'", "'é'"]
KEYWORDS = ["true", "false", "undefined", "error"]
FUNCTIONS = ["strcat", "size", "member", "regexp", "ifThenElse", "isUndefined", "StrCat", "f",
             "absTime", "relTime", "ABSTIME", "int", "real"]  # fmt: skip
BINARY = ["||", "&&", "|", "^", "&", "==", "!=", "=?=", "=!=", "is", "isnt", "IS", "Isnt",
          "<", "<=", ">", ">=", "<<", ">>", ">>>", "+", "-", "*", "/", "%"]  # fmt: skip
NUMBERS = ["0", "1", "7", "42", "1024", "9223372036854775807", "-0", "-3", "-1024",
           "9223372036854775808", "-9223372036854775808", "1.5", "0.1", "3.25e3", "1e5", "1E+5",
           "2.5e-3", ".5", "0.0", "100.0", "1e400", "1e-400", "-1.5", "-.25", "08.5", "00.5",
           "0e1", "..5", "4.9e-324", "010", "00", "0x1F", "-010", "-0x1F", "08", "5.", "1.e5",
           "1e", "0x1.8", "-00", "1.", "12abc", "0777", "1GB"]  # fmt: skip
STRING_PIECES = ["a", "b c", "\\n", "\\t", '\\"', "\\'", "\\\\", "\\101", "\\44", "\\1",
                 "\\477", "\\q", "\\?", "é", "\\303\\251", "'", "\\a\\b\\f\\v\\r", "\\012",
                 "\\0"]  # fmt: skip
TIMES = ["2003-09-03T", "1997-08-30T16:04:05-0500", "1970-01-02T:03:04:05-06:00", "2024",
         "2024-01-01T00:00:00Z", "2+25:14:16.123", "1d2h3m4.5s", "-5", "10:00", "junk",
         ""]  # fmt: skip
SPACES = ["", "", "", " ", " ", "  ", "\t", "\n", " /* c */ ", "/**/", " // c\n"]
MUTATIONS = "()[]{}.,;:?!=<>-+*/\"'\\ 0a#@é"


class Generator:
    """Random ClassAd text from the grammar's shapes, spaced and spelled every way, some of it
    broken on purpose (a character deleted or inserted)."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def ws(self) -> str:
        return self.r.choice(SPACES)

    def string(self) -> str:
        body = "".join(self.r.choice(STRING_PIECES) for _ in range(self.r.randint(0, 3)))
        text = '"' + body + '"'
        if self.r.random() < 0.15:  # adjacent literals
            text += self.r.choice([" ", "\n", ""]) + '"' + self.r.choice(["z", "\\1", "2"]) + '"'
        return text

    def name(self) -> str:
        c = self.r.random()
        if c < 0.85:
            return self.r.choice(NAMES)
        return self.r.choice(QUOTED if c < 0.95 else [*KEYWORDS, "is", "isnt"])

    def primary(self, depth: int) -> str:
        c, r = self.r.random(), self.r
        if depth <= 0 or c < 0.25:
            k = r.random()
            if k < 0.3:
                return r.choice(NUMBERS)
            if k < 0.5:
                return self.string()
            if k < 0.6:
                return r.choice([str.lower, str.upper, str.title])(r.choice(KEYWORDS))
            return self.name()
        if c < 0.35:
            return "(" + self.ws() + self.expr(depth - 1) + self.ws() + ")"
        if c < 0.5:
            function = r.choice(FUNCTIONS)
            if function.lower() in ("abstime", "reltime") and r.random() < 0.6:
                return f'{function}("{r.choice(TIMES)}")'
            args = [self.expr(depth - 1) for _ in range(r.choice([0, 1, 1, 2, 3]))]
            return function + "(" + r.choice([",", ", ", ";"]).join(args) + ")"
        if c < 0.6:
            items = [self.expr(depth - 1) for _ in range(r.choice([0, 1, 2, 3]))]
            return "{" + self.ws() + ("," + self.ws()).join(items) + self.ws() + "}"
        if c < 0.7:
            attrs = [
                self.name() + self.ws() + "=" + self.ws() + self.expr(depth - 1)
                for _ in range(r.choice([0, 1, 2, 3]))
            ]
            body = r.choice([";", "; ", ";;", ";\n"]).join(attrs)
            body = (";" if r.random() < 0.1 else "") + body + (";" if r.random() < 0.3 else "")
            return "[" + body + "]"
        if c < 0.8:
            return r.choice(["", ".", ".."]) + self.name() + "." + self.name()
        return self.name()

    def postfix(self, depth: int) -> str:
        text = self.primary(depth)
        for _ in range(self.r.choice([0, 0, 0, 1, 2])):
            c = self.r.random()
            if c < 0.4:
                text += self.ws() + self.r.choice([".", ".."]) + self.ws() + self.name()
            elif c < 0.7:
                text += "[" + self.expr(depth - 1) + "]"
            else:
                elvis = self.r.choice(["?:", "? :", "?\n:"])
                text += self.ws() + elvis + self.ws() + self.postfix(depth - 1)
        return text

    def unary(self, depth: int) -> str:
        if self.r.random() < 0.15:
            return self.r.choice("-+!~") + self.ws() + self.unary(depth - 1)
        return self.postfix(depth)

    def expr(self, depth: int) -> str:
        text = self.unary(depth)
        for _ in range(self.r.choice([0, 0, 1, 1, 2, 3])):
            op = self.r.choice(BINARY)
            space = " " if op[0] in "iI" else self.r.choice(["", " "])
            text += space + op + space + self.ws() + self.unary(depth - 1)
        if self.r.random() < 0.1:
            text += " ? " + self.expr(depth - 1) + " : " + self.expr(depth - 1)
        return text

    def case(self) -> str:
        text = self.expr(3)
        if text and self.r.random() < 0.3:
            at = self.r.randrange(len(text))
            if self.r.random() < 0.5:
                text = text[:at] + text[at + 1 :]
            else:
                text = text[:at] + self.r.choice(MUTATIONS) + text[at:]
        return text


GENERATED = Generator(1)
CASES = [GENERATED.case() for _ in range(1500)]


def _closes_the_wrapper(classad2: Any, text: str, err: ClassAdError, printed: str) -> bool:
    """Whether the oracle accepted ``text`` only because a `]` or `;` at bammmc's error closes
    its ``[expression = …]`` wrapper: what comes before that token is what it printed."""
    if text[err.start : err.start + 1] not in ("]", ";"):
        return False
    before = ours(text[: err.start])[0]
    return before is not None and before == printed


def test_generated_expressions(classad2: Any) -> None:
    agree = quirk = accepted = 0
    wrong = []
    for text in CASES:
        mine, err = ours(text)
        theirs = oracle(classad2, text)
        accepted += theirs is not None
        if mine == theirs:
            agree += 1
        elif (
            err is not None
            and theirs is not None
            and _closes_the_wrapper(classad2, text, err, theirs)
        ):
            quirk += 1
        else:
            wrong.append((text, theirs, mine, err and err.message))
    assert not wrong, "\n".join(map(repr, wrong[:10]))
    assert agree + quirk == len(CASES) >= 1000
    assert min(accepted, len(CASES) - accepted) >= 300  # both verdicts well exercised
    assert quirk <= 50


def test_a_full_parse_stops_looking_after_a_conditional(classad2: Any) -> None:
    """source.cpp returns from parseExpression() after `c ? a : b` without checking that the
    input is used up, so condor_submit (ParseExpression(text, true)) accepts `a ? b : c junk`.
    ``classad2.unquote`` parses the same way: junk after a literal is a parse error, junk after
    a conditional is not (it only says the result is no literal). bammmc reports the junk."""
    with pytest.raises(ValueError, match="Invalid string"):
        classad2.unquote('"a" junk')
    with pytest.raises(ValueError, match="not parse to a ClassAd literal"):
        classad2.unquote('true ? "a" : "b" junk')
    assert ours('true ? "a" : "b" junk')[0] is None
