"""Properties of `flux-batch` against Flux's own RFC 36 directive parser (the
`flux_batch_oracle` fixture): any value the writer quotes comes back exactly; any multi-line
value it writes comes back exactly or is refused (E140); on arbitrary directive text our reader
accepts and rejects what Flux does, with the same words."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bammmc.backends import WriteOptions
from bammmc.backends.flux_batch import FluxBatchWriter, quote
from bammmc.diagnostics.model import Reporter
from bammmc.frontends.flux_batch import scan
from bammmc.ir.job import API_VERSION, Job
from tests.conftest import FluxBatchOracle
from tests.strategies import documents

SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
#: characters that matter to the directive parser, and some that do not
ALPHABET = st.sampled_from([*list("ab -=#'\"\\|&;()<>{}$@:,.\t*/_%!~^[]"), "é", "ƒ", "\x0b"])
LINE_TEXT = st.text(ALPHABET, max_size=40)


@SETTINGS
@given(value=st.text(st.characters(blacklist_characters="\r\n\x1c\x1d\x1e\x85\u2028\u2029")))
def test_quoted_value_comes_back(value: str, flux_batch_oracle: FluxBatchOracle) -> None:
    text = f"#!/bin/sh\n#flux: --job-name={quote(value)}\n"
    ok, args, error = flux_batch_oracle.parse(text)
    assert ok, error
    assert args == [f"--job-name={value}"]
    assert scan(text, Reporter()).args == args


@SETTINGS
@given(value=st.text(ALPHABET | st.just("\n"), max_size=60).filter(lambda v: "\n" in v))
def test_multi_line_value_comes_back_or_is_refused(
    value: str, flux_batch_oracle: FluxBatchOracle
) -> None:
    reporter = Reporter()
    w = FluxBatchWriter(Job(api_version=API_VERSION, kind="Job"), reporter, WriteOptions())
    w.opt("setattr", value)
    if any(d.code == "E140" for d in reporter.diagnostics):
        return
    text = "#!/bin/sh\n" + "\n".join(w.lines) + "\nhostname\n"
    ok, args, error = flux_batch_oracle.parse(text)
    assert ok, (error, text)
    assert args == w.args == [f"--setattr={value}"]
    assert scan(text, Reporter()).args == args


@SETTINGS
@given(
    lines=st.lists(
        st.tuples(st.sampled_from(["#flux:", "# flux:", "#FLUX:", "", "#", "x"]), LINE_TEXT),
        max_size=6,
    )
)
def test_reader_agrees_with_flux(
    lines: list[tuple[str, str]], flux_batch_oracle: FluxBatchOracle
) -> None:
    text = "#!/bin/sh\n" + "".join(f"{p} {t}\n" if p else f"{t}\n" for p, t in lines)
    ok, args, error = flux_batch_oracle.parse(text)
    script = scan(text, Reporter())
    assert script.ok == ok, (error, text)
    if ok:
        assert script.args == args


@pytest.mark.parametrize("value", ["\u2028", "a\x1cb", "\x85"])
def test_unicode_line_breaks(value: str, flux_batch_oracle: FluxBatchOracle) -> None:
    """Python's text reading splits lines at `\\n` (and `\\r`) only, so these stay in the value."""
    text = f"#!/bin/sh\n#flux: --job-name={quote(value)}\n"
    ok, args, _ = flux_batch_oracle.parse(text)
    assert ok
    assert scan(text, Reporter()).args == args


TEXT = st.text(
    st.characters(blacklist_characters="\r\n\x1c\x1d\x1e\x85\u2028\u2029\x00"), min_size=1
)


@SETTINGS
@given(
    name=TEXT,
    queue=TEXT,
    bank=TEXT,
    cwd=TEXT,
    var=st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True),
    value=TEXT,
)
def test_written_job_reads_back(
    name: str,
    queue: str,
    bank: str,
    cwd: str,
    var: str,
    value: str,
    flux_batch_oracle: FluxBatchOracle,
) -> None:
    """Adversarial strings in the written fields: Flux reads exactly the options meant, and our
    reader gives back the same fields."""
    import bammmc
    from bammmc.backends.flux_batch import render
    from bammmc.ir.job import Environment, Execution, Metadata, Schedule, Spec

    spec = Spec(
        schedule=Schedule(queue=queue, account=bank),
        execution=Execution(
            working_dir=cwd,
            environment=Environment(vars={var: value}),
            script="#!/bin/sh\nhostname\n",
        ),
    )
    job = Job(api_version=API_VERSION, kind="Job", metadata=Metadata(name=name), spec=spec)
    from bammmc.frontends.flux_lang import mustache_clash

    reporter = Reporter()
    text, args = render(job, reporter)
    errors = [(d.code, d.field) for d in reporter.diagnostics if d.is_error]
    if mustache_clash([("text", value)]) is not None:
        # the job shell would read a tag in the value (flux-core src/shell/mustache.c), and
        # Flux has no escape for `{{`: refused, not written changed
        assert errors == [("E140", f"spec.execution.environment.vars.{var}")], errors
        return
    assert not errors
    ok, flux_args, error = flux_batch_oracle.parse(text)
    assert ok, (error, text)
    assert flux_args == args
    back, diags = bammmc.parse(text, "flux-batch")
    assert back is not None, diags
    assert back.metadata is not None and back.metadata.name == name
    assert back.spec is not None and back.spec.schedule is not None
    assert (back.spec.schedule.queue, back.spec.schedule.account) == (queue, bank)
    assert back.spec.execution is not None and back.spec.execution.working_dir == cwd
    env = back.spec.execution.environment
    kept = (
        (back.spec.extensions.flux.batch_options or {})
        if back.spec.extensions and back.spec.extensions.flux
        else {}
    )
    # a value without a tag is its own text, `{{` included (flux-core passes it as itself)
    assert env is not None and env.vars == {var: value}, kept


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=documents())
def test_any_job_is_written_as_flux_reads_it(
    text: str, flux_batch_oracle: FluxBatchOracle, flux_batch_cli: Any
) -> None:
    """Any valid SPLAT job (the generator of tests/property/test_splat_props.py): the writer never
    raises, and unless it says E140 its script passes Flux's directive parser into exactly the
    words it meant and `flux batch`'s own option parser with no stray word."""
    import bammmc
    from bammmc.backends.flux_batch import render
    from tests.formats.test_flux_batch_cli import flux_batch_accepts

    job, _ = bammmc.parse(text, "splat")
    if job is None:
        return
    reporter = Reporter()
    script, args = render(job, reporter)
    if any(d.is_error for d in reporter.diagnostics):
        assert {d.code for d in reporter.diagnostics if d.is_error} == {"E140"}
        return
    ok, flux_args, error = flux_batch_oracle.parse(script)
    assert ok, (error, script)
    assert flux_args == args
    ns = flux_batch_accepts(flux_batch_cli, flux_batch_oracle.directives(script))
    assert ns is not None, script
    assert not ns.SCRIPT
