"""No portable value adds to what HTCondor's own submit parser reads (issue 18, item 4).

For each value of the tables below with each separator payload of the sub-language it goes
into — macro references (`$(x)`, `$ENV(…)`, `$INT(…)`, `$$(Attr)`, `$$([expr])`,
`$(DOLLAR)`), line ends and continuations, `#`, `@=`, the quotes and blanks of the new
`arguments`/`environment` syntax, ClassAd string escapes, the `,` of a file list, the `=` `;`
`\\` of `transfer_output_remaps` — the HTCondor writer either refuses it (E140 only) or writes
a submit file that htcondor2.Submit (the oracle, ../shared/oracles/htcondor) reads with
exactly the commands of the same job with a plain value, each expanded as condor_submit
expands it for the job, and read by its sub-language's documented rule (htcondor.md §3.1,
§3.2; classad2 for ClassAd strings), equal to the plain job's with the value itself where the
plain value was: nothing added, nothing else changed.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

import bammmc

pytestmark = pytest.mark.oracle

#: payloads every text field gets: submit macros, line structure, comments, multi-line values
MACROS = (
    "$(x)",
    "$(HOME)/o",
    "a$(Cluster)",
    "$ENV(HOME)",
    "$INT(n)",
    "$INT(n,%c)",
    "$Fnx(/a/b.c)",
    "$RANDOM_CHOICE(a,b)",
    "$SUBSTR(x,1)",
    "$$(Memory)",
    "$$([1+2])",
    "a$$(x)",
    "$(DOLLAR)",
    "$(dollar)(x)",
    "$$ENV(HOME)",
    "$foo(x)",
    "x$",
    "$",
    "$$",
    "$ (x)",
    "$(x",
)
LINES = ("a\nqueue 9", "a\r\nrequest_cpus = 64", "x\\", "#x", "@=END", "a # b", "x\x0b", "\fx ")
#: the new `arguments`/`environment` syntax: blanks, quotes
WORDS = ("a b", "it's", 'say "hi"', "'", '"', "''", "a'b\"c")
#: a ClassAd string literal
CLASSAD = ('a"b', "a\\b", '\\"', 'x" || true || "')
#: a comma list, and the remap list's own syntax
LISTS = ("a,b", "a, b")
REMAPS = ("a=b", "a;b", "a\\b", 'a"b', "a\\=b")

TEXT = MACROS + LINES

#: (what, SPLAT document with `{v}` for the value, the plain value, the payloads)
CASES: list[tuple[str, str, str, tuple[str, ...]]] = [
    (
        "arguments",
        '{{"spec": {{"execution": {{"executable": "/bin/x", "arguments": {v}}}}}}}',
        "plainarg",
        TEXT + WORDS,
    ),
    (
        "environment value",
        '{{"spec": {{"execution": {{"executable": "/bin/x", '
        '"environment": {{"vars": {{"A": {v}}}}}}}}}}}',
        "plainval",
        TEXT + WORDS + ("x=y", "B=1 C=2"),
    ),
    (
        "environment name",
        '{{"spec": {{"execution": {{"executable": "/bin/x", '
        '"environment": {{"vars": {{{v}: "1"}}}}}}}}}}',
        "PLAINVAR",
        ("A$(x)", "A$ENV(HOME)", "A B", "A=B", "A'B", 'A"B', "A\nqueue"),
    ),
    (
        "output",
        '{{"spec": {{"execution": {{"executable": "/bin/x"}}, "output": {{"stdout": {v}}}}}}}',
        "plainout",
        TEXT,
    ),
    (
        "input",
        '{{"spec": {{"execution": {{"executable": "/bin/x", "stdin": {v}}}}}}}',
        "plainin",
        TEXT,
    ),
    (
        "initialdir",
        '{{"spec": {{"execution": {{"executable": "/bin/x", "workingDir": {v}}}}}}}',
        "plaindir",
        TEXT,
    ),
    (
        "batch_name",
        '{{"metadata": {{"name": {v}}}, "spec": {{"execution": {{"executable": "/bin/x"}}}}}}',
        "plainname",
        TEXT + WORDS,
    ),
    (
        "notify_user",
        '{{"spec": {{"execution": {{"executable": "/bin/x"}}, '
        '"notifications": {{"email": {v}}}}}}}',
        "plainmail",
        TEXT,
    ),
    (
        "accounting_group",
        '{{"spec": {{"execution": {{"executable": "/bin/x"}}, "schedule": {{"account": {v}}}}}}}',
        "plaingroup",
        TEXT,
    ),
    (
        "+ProjectName",
        '{{"spec": {{"execution": {{"executable": "/bin/x"}}, "schedule": {{"project": {v}}}}}}}',
        "plainproject",
        TEXT + CLASSAD,
    ),
    (
        "transfer_input_files",
        '{{"spec": {{"execution": {{"executable": "/bin/x"}}, '
        '"fileStaging": {{"inputs": [{{"src": {v}, "dst": {v}}}]}}}}}}',
        "plainfile",
        TEXT + LISTS,
    ),
    (
        "transfer_output_remaps",
        '{{"spec": {{"execution": {{"executable": "/bin/x"}}, '
        '"fileStaging": {{"outputs": [{{"src": "o", "dst": {v}}}]}}}}}}',
        "plaindst",
        TEXT + REMAPS,
    ),
    (
        "transfer_output_files",
        '{{"spec": {{"execution": {{"executable": "/bin/x"}}, '
        '"fileStaging": {{"outputs": [{{"src": {v}, "dst": {v}}}]}}}}}}',
        "plainout",
        TEXT + LISTS,
    ),
    (
        "container_image",
        '{{"spec": {{"execution": {{"container": {{"image": {v}, "command": ["/bin/x"]}}}}}}}}',
        "plainimage",
        TEXT,
    ),
    (
        "executable",
        '{{"spec": {{"execution": {{"executable": {v}}}}}}}',
        "plainexe",
        TEXT,
    ),
]

PAIRS = [
    (template, plain, payload)
    for _, template, plain, payloads in CASES
    for payload in payloads
    if payload != plain
]
IDS = [f"{what}:{payload!r}" for what, _, plain, payloads in CASES for payload in payloads]


def document(template: str, value: str, field: str) -> str:
    """The SPLAT document (JSON) with ``value`` in its place, as the field spells it."""
    if field == "arguments":  # shell words: the value is one word
        value = shlex.quote(value)
    elif field == "output":  # a template: `{` is `{{`
        value = value.replace("{", "{{").replace("}", "}}")
    elif field == "executable":  # a path: a word without `/` is a command run through env
        value = f"/bin/{value}"
    text = template.format(v=json.dumps(value))
    return '{"apiVersion": "bammm.io/v1alpha1", "kind": "Job", ' + text[1:]


def new_syntax(text: str) -> list[str]:
    """The words of a new-syntax `arguments`/`environment` value (htcondor.md §3.1, from
    htcondor-jdl(1)): blanks separate; `'…'` quotes blanks, `''` in it is `'`; `""` is `"`."""
    assert len(text) >= 2 and text[0] == text[-1] == '"', text
    s = text[1:-1]
    words: list[str] = []
    cur: str | None = None
    i = 0
    while i < len(s):
        c = s[i]
        if c in " \t":
            if cur is not None:
                words.append(cur)
                cur = None
            i += 1
            continue
        cur = cur or ""
        if s.startswith('""', i):
            cur += '"'
            i += 2
        elif c == "'":
            i += 1
            while True:
                assert i < len(s), f"unterminated quote in {text!r}"
                if s.startswith("''", i):
                    cur, i = cur + "'", i + 2
                elif s[i] == "'":
                    i += 1
                    break
                elif s.startswith('""', i):
                    cur, i = cur + '"', i + 2
                else:
                    assert s[i] != '"', f'a lone `"` in {text!r}'
                    cur, i = cur + s[i], i + 1
        else:
            assert c != '"', f'a lone `"` in {text!r}'
            cur, i = cur + c, i + 1
    if cur is not None:
        words.append(cur)
    return words


def remaps(text: str) -> dict[str, str]:
    """`transfer_output_remaps` (htcondor.md §3.2): one double-quoted string of `name = new`
    entries separated by `;`, `\\=` and `\\;` escapes."""
    assert text[0] == text[-1] == '"', text
    entries: list[list[str]] = [[""]]
    s = text[1:-1]
    i = 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "=;":
            entries[-1][-1] += s[i + 1]
            i += 2
            continue
        if s[i] == ";":
            entries.append([""])
        elif s[i] == "=":
            entries[-1].append("")
        else:
            entries[-1][-1] += s[i]
        i += 1
    out = {}
    for entry in entries:
        assert len(entry) == 2, f"not `name = new`: {entry} in {text!r}"
        out[entry[0].strip()] = entry[1].strip()
    return out


def read(key: str, value: str | None, oracle: Any) -> Any:
    """What the job gets from one command's expanded value, by its sub-language's rule."""
    assert value is not None, f"`{key}` does not expand (an undefined macro)"
    name = key.lower()
    if name == "arguments":
        return new_syntax(value)
    if name == "environment":
        return dict(w.split("=", 1) for w in new_syntax(value))
    if name == "batch_name":  # submit_utils.cpp `trim_and_strip_quotes_in_place`
        value = value.strip()
        return value[1:-1] if value.startswith('"') and value.endswith('"') else value
    if name.startswith("my."):  # condor_submit reads `+Attr` values in old syntax
        classad2 = oracle.module.classad2
        return classad2.parseOne(f"X = {value}\n", classad2.ParserType.Old).eval("X")
    if name in ("transfer_input_files", "transfer_output_files"):
        return [f.strip() for f in value.split(",")]
    if name == "transfer_output_remaps":
        return remaps(value)
    return value


def swap(value: Any, plain: str, payload: str) -> Any:
    """The plain job's value with the plain value put back as the payload."""
    if isinstance(value, str):
        return value.replace(plain, payload)
    if isinstance(value, list):
        return [swap(v, plain, payload) for v in value]
    if isinstance(value, dict):
        return {swap(k, plain, payload): swap(v, plain, payload) for k, v in value.items()}
    return value


BLANKS = " \t\v\f"


def convert(doc: str) -> tuple[str | None, set[str], bool]:
    """The submit file, the codes of its errors, and whether a W301 says blanks around the
    value are dropped."""
    out, diags = bammmc.convert(doc, "splat", "htcondor")
    trimmed = any(d.code == "W301" and "trims blanks" in d.message for d in diags)
    return out, {d.code for d in diags if d.is_error}, trimmed


@pytest.mark.parametrize(("template", "plain", "payload"), PAIRS, ids=IDS)
def test_condor_submit_reads_what_the_plain_value_gives(
    template: str, plain: str, payload: str, condor_oracle: Any
) -> None:
    field = next(what for what, t, *_ in CASES if t == template)
    job, diags = bammmc.parse(document(template, payload, field), "splat")
    if job is None:  # a value the IR itself refuses (a control character): nothing written
        assert any(not c.isprintable() for c in payload), diags
        return
    text, errors, trimmed = convert(document(template, payload, field))
    if trimmed:  # condor_submit trims blanks around a value (W301 says so): compare without
        # (an executable's payload follows `/bin/`: only its end is the value's end)
        payload = payload.rstrip(BLANKS) if field == "executable" else payload.strip(BLANKS)
    if errors:  # refused: nothing reaches condor_submit
        assert errors == {"E140"}, errors
        assert text is None
        return
    assert text is not None
    reference, ref_errors, _ = convert(document(template, plain, field))
    assert reference is not None and not ref_errors
    got, meant = condor_oracle.submit(text), condor_oracle.submit(reference)
    assert meant["ok"], meant["errors"]
    assert got["ok"], (got["errors"], text)
    assert got["queue"] == meant["queue"], text
    assert {k.lower() for k in got["keys"]} == {k.lower() for k in meant["keys"]}, text
    for key in meant["keys"]:
        wanted = swap(read(key, meant["expanded"][key], condor_oracle), plain, payload)
        assert read(key, got["expanded"].get(key), condor_oracle) == wanted, (key, text)
