"""Every file in ../shared/corpus/classad reads without a traceback: expressions, ads (new and
old style), ad streams and the ClassAd library's test script; the `invalid-*` files (and only
those the oracle rejects too) end in a located E021. The summary is printed after the run.

The helpers here say what each corpus file holds; test_classad_oracle.py reuses them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bammmc.diagnostics.model import Reporter, Span
from bammmc.frontends.classad import ClassAdError, parse, parse_ads
from tests.conftest import CORPUS, record_corpus

FOLDER = CORPUS / "classad"
FILES = sorted(p for p in FOLDER.glob("*") if p.is_file()) if FOLDER.is_dir() else []

#: Files whose name says otherwise than HTCondor 25.14.1 (the oracle), which bammmc follows.
#: The corpus took its verdicts from PelicanPlatform/classad's tables, pinned to another
#: libclassad build.
ORACLE_DIFFERS: dict[str, str] = {
    "invalid-pelican-parser-compat-050.txt": "classad2 reads `9223372036854775808` as 0 "
    "(std::from_chars overflows and leaves the value 0); bammmc reads it as HTCondor does",
    "pelican-parser-compat-023.txt": "`[;;]`: after a leading `;` source.cpp takes the next "
    "token as a name without looking, so `]` is an error; classad2 rejects it",
    "pelican-parser-compat-024.txt": "`[ ; ]`: as `[;;]`, rejected by classad2",
}

#: a unit of a file: (what it is, its text, its offset in the file)
Unit = tuple[str, str, int]


def units(path: Path) -> list[Unit]:
    """What to parse in a corpus file: ``expression`` or ``ads`` pieces with their offsets."""
    text = read(path)
    name = path.name
    if name == "pelican-examples-expressions.txt":  # one expression a line, `//` comments
        return [
            ("expression", m.group(), m.start())
            for m in re.finditer(r"^(?!//)[^\n]*\S[^\n]*", text, re.M)
        ]
    if name == "htcondor-classad-tests-script.txt":
        blocks = [
            ("ads", m.group(1), m.start(1))
            for m in re.finditer(r"^begin-classad \S+\n(.*?)^end-classad", text, re.M | re.S)
        ]
        evaluated = [  # `evaluate AD EXPR` (the script's reader drops a trailing `;`)
            ("expression", m.group(1), m.start(1))
            for m in re.finditer(r"^evaluate \S+ (.*?);?$", text, re.M)
        ]
        return blocks + evaluated
    if re.search(r"parseexpr|functional-eval|lexer-backslash", name):
        return [("expression", text, 0)]
    return [("ads", text, 0)]


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="surrogateescape")


def expected_to_fail(name: str) -> bool:
    """Whether HTCondor rejects the file: its name says so, unless the oracle differs."""
    return name.startswith("invalid-") != (name in ORACLE_DIFFERS)


def _span(text: str, start: int, end: int, file: str) -> Span:
    line = text.count("\n", 0, start) + 1
    column = start - text.rfind("\n", 0, start)
    return Span(
        file=file,
        line=line,
        column=column,
        end_line=line,
        end_column=column + max(1, min(end, len(text)) - start),
        start=start,
        end=end,
    )


@pytest.mark.skipif(not FILES, reason="../shared/corpus/classad is not here")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file(path: Path) -> None:
    text = read(path)
    reporter = Reporter(path.name)
    for kind, piece, offset in units(path):
        try:
            if kind == "expression":
                parse(piece)
            else:
                parse_ads(piece)
        except ClassAdError as err:
            assert 0 <= err.start <= len(piece) and err.message, err
            start = offset + err.start
            reporter.report(
                "E021",
                err.message,
                _span(text, start, offset + err.end, path.name),
                help=err.help,
            )
    record_corpus("classad", path.name, reporter.diagnostics)
    errors = {d.code for d in reporter.diagnostics}
    assert errors == ({"E021"} if expected_to_fail(path.name) else set()), (
        f"{path.name}: {ORACLE_DIFFERS.get(path.name, '')} {reporter.diagnostics}"
    )
