"""No Flux batch-script value adds to what Flux reads (issue 18, item 4).

For each value of the tables below with each separator of the sub-languages it goes into (the
shell words of a `#flux:` line, triple-quoted blocks, `--env` rules with their `$`
substitution and mustache templates, `--setopt`/`--setattr` `KEY=VALUE`, RFC 26 dependency
URIs, output paths the job shell renders), the writer either refuses it (E140 only) or writes a
script whose options, as Flux itself reads them, are exactly those of the same job with a plain
value, with the value itself where the plain value was: nothing added, nothing else changed.

"As Flux reads them" is flux-core's own code from the pinned flux-python wheel: the RFC 36
directive parser (`flux_batch_oracle`, ../shared/oracles/flux/check-batch.py's loader), the
`flux batch` option parser (`flux_batch_cli`), and the submission helpers of flux/job/_utils.py
(`flux_job_utils`: `--env` rules, `--setopt`/`--setattr` values, `--dependency` URIs). Only the
job shell's mustache reading is restated here (`_shell_reads`, after flux-core 4a5e79f
src/shell/mustache.c `mustache_render`): the shell is C, and there is no Python of it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from typing import Any

import pytest

import bammmc
from tests.conftest import FluxBatchOracle

HEAD = "apiVersion: bammm.io/v1alpha1\nkind: Job\n"
#: printable separators of a `#flux:` line's shell words and of RFC 36 triple quotes
WORDS = ("a b", "a\tb", "a'b", 'a"b', "a\\b", "a#b", "a;b|c&d", "(a)<b>", '"""', "'''", "'\"'")
LINES = ("a\nb", "a\n", "\n", "a\n#flux: -N9", "a\n'''", "a\nb\\c")

#: (document after `kind: Job` with `{v}` for the value, the plain value, the payloads); a
#: payload is the value as the target should read it (for output paths: the file name, which
#: the SPLAT template spells with `{{`/`}}` for a brace — `_splat` does that)
CASES: list[tuple[str, str, tuple[str, ...]]] = [
    ("metadata: {{name: {v}}}\nspec: {{resources: {{tasks: 1}}}}", "plainname", WORDS + LINES),
    ("spec: {{schedule: {{queue: {v}}}}}", "plainq", (*WORDS, "a\nb", "-x", "a=b")),
    ("spec: {{schedule: {{account: {v}}}}}", "plainbank", ("a b", "a#b", "{{id}}")),
    ("spec: {{execution: {{workingDir: {v}}}}}", "/plain/dir", ("/a b", "/x/{{id}}", "/a'#b")),
    (
        "spec: {{execution: {{environment: {{vars: {{A: {v}}}}}}}}}",
        "plainval",
        (
            *WORDS,
            *LINES,
            "x$y",
            "$$",
            "${HOME}",
            "$",
            "x{{y",
            "$x{{y",
            "x{{y}}",
            "x{{id}}",
            "$HOME{{name}}",
            "a}}b",
            "{{",
            "{{}}",
            "}}{{",
            "a=b",
        ),
    ),
    (
        "spec: {{execution: {{environment: {{vars: {{{v}: '1'}}}}}}}}",
        "PLAINVAR",
        ("^A", "A=B", "-A", "/A/", "A*", "A?", "a b", "A.B", "{{A}}", "A^", "A$"),
    ),
    (
        "spec: {{execution: {{stdin: {v}}}}}",
        "plainin.txt",
        ("a b", "x{{id}}", "kvs", "none", "-", "a#b", "a\nb"),
    ),
    (
        "spec: {{output: {{stdout: {v}}}}}",
        "plainout.txt",
        ("kvs", "none", "a{{id}}b", "a{{b", "{{", "x}}", "a{b}", "{{}}", "a b", "a#b", "a\nb"),
    ),
    ("spec: {{output: {{stderr: {v}}}}}", "plainerr.txt", ("kvs", "e{{x}}", "e{{x")),
    # a literal `{` just before a template: `x{` + `{{id}}` would be the tag `{id`
    ("spec: {{output: {{stdout: {v}}}}}", "plain{job_id}", ("x{{job_id}", "x}}{job_id}")),
    (
        "spec: {{dependencies: [{{scheme: afterok, value: {v}}}]}}",
        "plainjob",
        ("1#x", "1?x=y", "a&b", "a;b", "a=b", "%41", "a:b", "//h/x", "a'b", "ƒ2oLkTLb"),
    ),
    (
        "spec: {{extensions: {{flux: {{shell_options: {{{v}: 1}}}}}}}}",
        "plainopt",
        ("a=b", "^f", "a b", "a#b", "x^"),
    ),
    (
        "spec: {{extensions: {{flux: {{shell_options: {{plainopt: {v}}}}}}}}}",
        "plainval",
        ("1", '"x"', "a=b", '{"a": 1}', "true", "x y", "[1", "a\nb", "a#b", "^x"),
    ),
    (
        "spec: {{extensions: {{flux: {{user_attributes: {{{v}: 1}}}}}}}}",
        "plainattr",
        ("a=b", "^f", "a b", "a#b"),
    ),
    (
        "spec: {{extensions: {{flux: {{user_attributes: {{plainattr: {v}}}}}}}}}",
        "plainval",
        ("1", "a=b", "null", "x y", "a\nb"),
    ),
]

PAIRS = [(template, plain, payload) for template, plain, payloads in CASES for payload in payloads]
#: SPLAT output templates: the value is a file name, with SPLAT's own `{job_id}` kept
TEMPLATED = ("stdout:", "stderr:")


def _splat(template: str, value: str) -> str:
    """The document with ``value`` in place (a file name spelled as a SPLAT template: a brace
    doubled, except around the plain value's own `{job_id}`)."""
    if any(t in template for t in TEMPLATED):
        value = value.replace("{", "{{").replace("}", "}}").replace("{{job_id}}", "{job_id}")
    return template.format(v=json.dumps(value))


def _shell_reads(text: str) -> str:
    """``text`` as Flux's job shell renders it, with each tag shown as `<tag:NAME>`
    (flux-core src/shell/mustache.c `mustache_render`: a tag runs from `{{` to the next `}}`;
    a `{{` without a `}}` after it is copied to the end)."""
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("{{", pos)
        end = text.find("}}", start + 2) if start >= 0 else -1
        if end < 0:
            return "".join(out) + text[pos:]
        out.append(text[pos:start] + f"<tag:{text[start + 2 : end]}>")
        pos = end + 2


@pytest.fixture(scope="module")
def flux_reads(flux_batch_oracle: FluxBatchOracle, flux_batch_cli: Any, flux_job_utils: Any) -> Any:
    def read(script: str) -> dict[str, Any]:
        ns = None
        for words in flux_batch_oracle.directives(script):  # raises on a refused script
            with contextlib.redirect_stderr(io.StringIO()):
                ns = flux_batch_cli.parse_args(words, namespace=ns)
        assert ns is not None and not ns.SCRIPT, script
        table = dict(vars(ns))
        del table["SCRIPT"]
        environ, expand = flux_job_utils.get_filtered_environment(table.pop("env"), environ={})
        # env-expand: values the job shell renders (src/shell/env-expand.c)
        table["env"] = {**environ, **{k: _shell_reads(v) for k, v in expand.items()}}
        for option in ("setopt", "setattr"):
            table[option] = [
                flux_job_utils.parse_jobspec_keyval(f"--{option}", kv) for kv in table[option] or ()
            ]
        table["dependency"] = flux_job_utils.dependency_array_create(table["dependency"] or ())
        for stream in ("output", "error"):  # JobspecV1._set_extra_options
            path = table[stream]
            table[stream] = (
                path
                if path is None or path in ("kvs", "none")
                else ("file", _shell_reads(os.path.normpath(path)))
            )
        if table["input"] is not None:  # `flux batch --input` is a file, and not rendered
            table["input"] = ("file", os.path.normpath(table["input"]))
        return table

    return read


def _emit(document: str) -> tuple[str | None, list[Any]]:
    job, diags = bammmc.parse(HEAD + document, "splat")
    assert job is not None and not [d for d in diags if d.is_error], diags
    return bammmc.emit(job, "flux-batch")


def _swap(value: Any, plain: str, payload: str) -> Any:
    """The table of the plain job with the plain value put back as the payload."""
    if isinstance(value, str):
        return value.replace(plain, payload)
    if isinstance(value, (list, tuple)):
        return type(value)(_swap(v, plain, payload) for v in value)
    if isinstance(value, dict):
        return {_swap(k, plain, payload): _swap(v, plain, payload) for k, v in value.items()}
    return value


@pytest.mark.oracle
@pytest.mark.parametrize(("template", "plain", "payload"), PAIRS)
def test_flux_reads_what_the_plain_value_gives(
    template: str, plain: str, payload: str, flux_reads: Any
) -> None:
    text, diags = _emit(_splat(template, payload))
    errors = [d for d in diags if d.is_error]
    if errors:  # refused: nothing reaches Flux
        assert {d.code for d in errors} == {"E140"}, errors
        return
    assert text is not None
    reference, ref_diags = _emit(_splat(template, plain))
    assert reference is not None and not [d for d in ref_diags if d.is_error], ref_diags
    plain_read = plain.replace("{job_id}", "<tag:id>")
    shown = payload.replace("{job_id}", "<tag:id>")
    assert flux_reads(text) == _swap(flux_reads(reference), plain_read, shown), text


def test_every_case_is_written_somewhere() -> None:
    """The plain values are written (a refused plain value would judge nothing)."""
    for template, plain, _ in CASES:
        text, diags = _emit(_splat(template, plain))
        assert text is not None and not [d for d in diags if d.is_error], (template, diags)
