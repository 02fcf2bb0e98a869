"""HTCondor submit language properties: generated submit files read without a traceback and the
same way whatever the spelling (case, blanks, continuations, `+` vs `MY.`); written back they
read to the same job; argument lists survive the new quoting syntax.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bammmc
from bammmc.passes.lower.htcondor import parse_arguments

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)

WORD = st.text(alphabet=st.sampled_from("abcXYZ019_-./"), min_size=1, max_size=12)


@st.composite
def submit_files(draw: st.DrawFn) -> tuple[list[tuple[str, str]], str]:
    """(name, value) commands and a queue statement."""
    commands: list[tuple[str, str]] = [("executable", "/bin/" + draw(WORD))]
    if draw(st.booleans()):
        commands.append(("request_cpus", str(draw(st.integers(1, 64)))))
    if draw(st.booleans()):
        unit = draw(st.sampled_from(["", "M", "G", " GB", "K"]))
        commands.append(("request_memory", f"{draw(st.integers(1, 4096))}{unit}"))
    if draw(st.booleans()):
        commands.append(("request_disk", f"{draw(st.integers(1, 10**6))}"))
    if draw(st.booleans()):
        commands.append(("request_gpus", str(draw(st.integers(1, 8)))))
    if draw(st.booleans()):
        commands.append(("allowed_job_duration", str(draw(st.integers(1, 10**6)))))
    if draw(st.booleans()):
        commands.append(("output", draw(WORD) + ".$(Cluster).$(Process)"))
    if draw(st.booleans()):
        commands.append(("priority", str(draw(st.integers(-1000, 1000)))))
    if draw(st.booleans()):
        commands.append(("requirements", f'(Arch == "{draw(WORD)}") && (Memory >= 1024)'))
    if draw(st.booleans()):
        commands.append(("+Project" + draw(st.sampled_from(["A", "B"])), f'"{draw(WORD)}"'))
    if draw(st.booleans()):
        args = draw(st.lists(WORD, min_size=1, max_size=4))
        commands.append(("arguments", " ".join(args)))
    if draw(st.booleans()):
        commands.append(("notification", draw(st.sampled_from(["Never", "Error", "Complete"]))))
    queue = draw(
        st.sampled_from(["queue", "queue 1", "queue 7", "queue x in (a, b c)", "queue 2 in a b"])
    )
    return commands, queue


def _text(commands: list[tuple[str, str]], queue: str, style: dict[str, Any]) -> str:
    lines = []
    for name, value in commands:
        if style["upper"]:
            name = name.upper() if not name.startswith("+") else name
        if name.startswith("+") and style["my"]:
            name = "MY." + name[1:]
        sep = " = " if style["blanks"] else "="
        if style["continue"] and " " in value and not name.startswith(("+", "MY.")):
            head, _, tail = value.partition(" ")
            value = f"{head} \\\n  {tail}"
        lines.append(f"{name}{sep}{value}")
        if style["comments"]:
            lines.append("# a comment")
    return "\n".join(lines) + f"\n{queue}\n"


STYLES = st.fixed_dictionaries(
    {
        "upper": st.booleans(),
        "my": st.booleans(),
        "blanks": st.booleans(),
        "continue": st.booleans(),
        "comments": st.booleans(),
    }
)
PLAIN = {"upper": False, "my": False, "blanks": True, "continue": False, "comments": False}


@SETTINGS
@given(submit_files(), STYLES)
def test_spelling_does_not_change_the_job(submit: Any, style: dict[str, Any]) -> None:
    commands, queue = submit
    plain, diags = bammmc.parse(_text(commands, queue, PLAIN), "htcondor")
    assert plain is not None, diags
    styled, diags = bammmc.parse(_text(commands, queue, style), "htcondor")
    assert styled is not None, diags
    if style["my"]:  # MY.x and +x are one attribute, spelled as written (pitfall 43)
        return
    assert styled == plain


@SETTINGS
@given(submit_files())
def test_written_back_reads_to_the_same_job(submit: Any) -> None:
    commands, queue = submit
    job, diags = bammmc.parse(_text(commands, queue, PLAIN), "htcondor")
    assert job is not None, diags
    out, more = bammmc.emit(job, "htcondor")
    assert out is not None
    assert not [d for d in more if d.is_error], more
    again, diags = bammmc.parse(out, "htcondor")
    assert again == job, out


def _new_syntax(args: list[str]) -> str:
    """An argument list in condor_submit's new syntax (htcondor.md §3.1)."""
    words = []
    for arg in args:
        escaped = arg.replace('"', '""')
        if not arg or any(c in arg for c in " \t'"):
            escaped = "'" + escaped.replace("'", "''") + "'"
        words.append(escaped)
    return '"' + " ".join(words) + '"'


@SETTINGS
@given(st.lists(st.text(alphabet=st.sampled_from("ab '\"\t-=$()"), max_size=8), max_size=5))
def test_new_argument_syntax_round_trips(args: list[str]) -> None:
    assert parse_arguments(_new_syntax(args)) == args


@SETTINGS
@given(
    st.text(alphabet=st.sampled_from("abq=+ \t\n\\#$()[]{}:,;'\"queinfromatchg0123"), max_size=200)
)
def test_any_text_reads_without_a_traceback(text: str) -> None:
    job, diags = bammmc.parse("executable = x\n" + text, "htcondor")
    assert job is not None or any(d.is_error for d in diags)


COMMANDS = st.sampled_from(
    [
        "executable",
        "arguments",
        "request_memory",
        "request_disk",
        "request_cpus",
        "priority",
        "deferral_time",
        "allowed_job_duration",
        "max_materialize",
        "machine_count",
        "universe",
        "environment",
        "getenv",
        "notification",
        "output",
        "transfer_output_remaps",
        "transfer_input_files",
        "hold",
        "requirements",
        "+A",
        "MY.B",
        "concurrency_limits",
        "docker_image",
        "batch_name",
        "x",
    ]
)
VALUES = st.sampled_from(
    [
        "",
        "0",
        "-1",
        "99999999999999999999999",
        "1.5G",
        "$(x)",
        "$(y:3)",
        "$INT(x)",
        "$F(",
        "$(",
        '"',
        "a=b;c",
        '"a=1 b',
        "[1:2]",
        "$$([a])",
        "true",
        "1T",
        "$(Process)",
        "\\",
        "{{x}}",
        "a, b c",
        "$SUBSTR(x, 99)",
        "$CHOICE(9, a)",
        "@=E",
    ]
)
STATEMENTS = st.one_of(
    st.tuples(COMMANDS, VALUES).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    st.tuples(st.sampled_from(["queue", "if", "elif", "else", "endif", "include :"]), VALUES).map(
        " ".join
    ),
)


@SETTINGS
@given(st.lists(STATEMENTS, min_size=1, max_size=8))
def test_odd_statements_never_crash(statements: list[str]) -> None:
    """Odd values for real commands (huge numbers, broken macros, self references, quotes):
    read, and written to three targets, without a traceback."""
    job, diags = bammmc.parse("\n".join(statements) + "\n", "htcondor")
    assert job is not None or any(d.is_error for d in diags)
    if job is not None:
        for target in ("htcondor", "slurm", "splat"):
            bammmc.emit(job, target)
