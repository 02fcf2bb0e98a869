"""No injection into HTCondor submit files: generated jobs whose string fields hold adversarial
values (line breaks, `\\r`, `queue`, `+Attr =`, quotes, backslashes, `$(…)`, `#`, NUL, long and
non-ASCII text) are either refused (E140) or written so that HTCondor's own parser
(`htcondor2.Submit`, the oracle) reads exactly the commands the writer meant — no more, no other
queue statement — and our reader gets the same values back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.backends import WriteOptions
from bammmc.backends.htcondor import HtcondorWriter
from bammmc.diagnostics.model import Reporter

pytestmark = pytest.mark.oracle

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=120,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

NASTY = st.one_of(
    st.sampled_from(
        [
            "a\nqueue 99",
            "x\r\nrequest_cpus = 64",
            "+Evil = true",
            "queue",
            "$(Process)",
            "$$(Memory)",
            "$ENV(HOME)",
            'say "hi"',
            "it's",
            "back\\",
            "back\\slash",
            "# not a comment",
            "a; b=c",
            "x\x00y",
            "ünïcödé ☃",
            "include : /etc/passwd",
            "if true",
            "'\"'\"",
            "@=END",
            " padded ",
            "a" * 3000,
        ]
    ),
    st.text(alphabet=st.sampled_from("ab =+\"'\\\n\r#$():;@"), max_size=12),
)


@st.composite
def jobs(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {"execution": {"executable": "/bin/" + draw(st.sampled_from("xyz"))}}
    field = draw(
        st.sampled_from(
            [
                "name",
                "arguments",
                "env",
                "stdout",
                "stdin",
                "workingDir",
                "email",
                "account",
                "project",
                "image",
                "attribute",
                "command",
            ]
        )
    )
    value = draw(NASTY)
    doc: dict[str, Any] = {"apiVersion": "bammm.io/v1alpha1", "kind": "Job", "spec": spec}
    if field == "name":
        doc["metadata"] = {"name": value}
    elif field == "arguments":
        spec["execution"]["arguments"] = value
    elif field == "env":
        spec["execution"]["environment"] = {"vars": {"V": value}}
    elif field == "stdout":
        spec["output"] = {"stdout": value.replace("{", "{{").replace("}", "}}")}
    elif field == "stdin":
        spec["execution"]["stdin"] = value
    elif field == "workingDir":
        spec["execution"]["workingDir"] = value
    elif field == "email":
        spec["notifications"] = {"email": value}
    elif field in ("account", "project"):
        spec["schedule"] = {field: value}
    elif field == "image":
        spec["execution"]["container"] = {"image": value}
    elif field == "attribute":
        spec["extensions"] = {"htcondor": {"attributes": {"+Note": json.dumps(value)}}}
    else:
        spec["extensions"] = {"htcondor": {"commands": {"description": value}}}
    return doc


@SETTINGS
@given(jobs())
def test_no_value_becomes_a_statement(condor_oracle: Any, doc: dict[str, Any]) -> None:
    job, diags = bammmc.parse(json.dumps(doc), "splat")
    if job is None:  # a value the IR itself refuses (a NUL byte…): nothing to write
        assert any(d.is_error for d in diags)
        return
    reporter = Reporter("job.splat.yaml")
    writer = HtcondorWriter(job, reporter, WriteOptions())
    meant = writer.build()
    if any(d.is_error for d in reporter.diagnostics):  # refused: E140, nothing written
        assert {d.code for d in reporter.diagnostics if d.is_error} <= {"E140"}
        return
    text = meant.text()
    result = condor_oracle.submit(text)
    assert result["ok"], (result["errors"], text)
    # exactly the commands meant: no command, attribute or queue statement more
    keys = {k.lower() for k in result["keys"]}
    wanted = {("my." + k[1:] if k.startswith("+") else k).lower() for k, _ in meant.commands}
    assert keys == wanted, text
    assert sum(line.lower().startswith("queue") for line in text.splitlines()) == 1, text
    # and our own reader reads it without an error
    again, more = bammmc.parse(text, "htcondor")
    assert again is not None, (more, text)


def test_every_string_field_reads_the_same_commands(condor_oracle: Any) -> None:
    """Every string leaf of the IR (tests/property/injection_fields.py), with the adversarial
    values of tests/property/test_injection.py in turn: what HTCondor's own parser reads from
    the submit file has no command and no queue statement the plain value's file lacks."""
    from tests.property.injection_fields import display, string_leaves
    from tests.property.test_injection import PAYLOADS, PLAIN, PLAIN_FOR, _written

    failures = []
    checked = 0
    for n, leaf in enumerate(string_leaves()):
        template = PAYLOADS[n % len(PAYLOADS)]
        written = _written(leaf, template, "htcondor")
        plain = _written(leaf, PLAIN_FOR.get(display(leaf), PLAIN), "htcondor")
        if written is None or plain is None:
            continue  # refused (E140 …): nothing reaches condor_submit
        got, meant = condor_oracle.submit(written), condor_oracle.submit(plain)
        checked += 1
        if not meant["ok"]:
            continue  # HTCondor refuses the plain value too: nothing to compare
        more = {k.lower() for k in got["keys"]} - {k.lower() for k in meant["keys"]}
        if more or got.get("queue") != meant.get("queue"):
            failures.append(f"{display(leaf)} = {template[:40]!r}: {sorted(more)}\n{written[:300]}")
    assert checked >= 100, checked
    assert not failures, "\n".join(failures[:10])
