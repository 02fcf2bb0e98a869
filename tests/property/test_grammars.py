"""No traceback from grammar-generated text (issue #9): for every ``.lark`` grammar in the
package, text drawn by ``hypothesis.extra.lark.from_lark`` from each start rule the readers use,
fed to the reader where that rule reads it (a whole file, one option's value, one value type):
a job or coded diagnostics, or the value language's own error, never another exception.

The grammars are found by globbing the package: a new grammar fails
:func:`test_every_grammar_is_fed` until it has its row in :data:`FEEDS`. Text that follows a
grammar gets past the parser, into the lowerings and writers, which random bytes rarely reach.

``BAMMMC_GRAMMAR_EXAMPLES`` sets the number of examples per start rule (CI: the default below;
docs/robustness.md).
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

import bammmc
from bammmc.frontends import classad, flux_lang
from bammmc.ir import values
from bammmc.registry import FORMATS
from tests.property.test_robustness import TIME_BOUND, check_one

#: examples per (grammar, start rule); the long run is tools/fuzz.py
EXAMPLES = int(os.environ.get("BAMMMC_GRAMMAR_EXAMPLES", "25"))
GRAMMARS = sorted(Path(bammmc.__file__).parent.rglob("*.lark"))
TARGETS = sorted(FORMATS)

#: what a feed does with the drawn text and a target format
Feed = Callable[[str, str], None]


def file(fmt: str, template: str = "{}") -> Feed:
    """Read ``template`` with the text in place of ``{}`` as ``fmt``, write it to ``target``."""

    def feed(text: str, target: str) -> None:
        check_one(template.replace("{}", text, 1).encode(), fmt, target)

    return feed


def value(parse: Callable[[str], object], *errors: type[Exception]) -> Feed:
    """Read the text with ``parse``: a value, or one of the value language's own ``errors``."""

    def feed(text: str, target: str) -> None:
        with contextlib.suppress(*errors):
            parse(text)

    return feed


SH = "#!/bin/bash\n"
SBATCH = SH + "#SBATCH "
PBS = SH + "#PBS "
SGE = SH + "#$ "
BSUB = SH + "#BSUB "
FLUX = SH + "#flux: "
SUBMIT = "executable = run.sh\n"
V = values.ValueSyntaxError

#: grammar (file stem) -> start rule -> where the readers read text of that rule
FEEDS: dict[str, dict[str, Feed]] = {
    "slurm": {
        "script": file("slurm"),
        "args": file("slurm", SBATCH + "{}\nrun\n"),
        "slurm_time": file("slurm", SBATCH + "--time={}\nrun\n"),
        "slurm_mem": file("slurm", SBATCH + "--mem={}\nrun\n"),
        "gres_list": file("slurm", SBATCH + "--gres={}\nrun\n"),
        "slurm_nodes": file("slurm", SBATCH + "--nodes={}\nrun\n"),
        "slurm_signal": file("slurm", SBATCH + "--signal={}\nrun\n"),
        "dependency": file("slurm", SBATCH + "--dependency={}\nrun\n"),
        "filename": file("slurm", SBATCH + "--output={}\nrun\n"),
        "mail_types": file("slurm", SBATCH + "--mail-type={}\nrun\n"),
        "slurm_begin": file("slurm", SBATCH + "--begin={}\nrun\n"),
        "slurm_constraint": file("slurm", SBATCH + "--constraint={}\nrun\n"),
        "slurm_export": file("slurm", SBATCH + "--export={}\nrun\n"),
    },
    "pbs": {
        "script": file("pbs"),
        "args": file("pbs", PBS + "{}\nrun\n"),
        "resources": file("pbs", PBS + "-l {}\nrun\n"),
        "select": file("pbs", PBS + "-l select={}\nrun\n"),
        "place": file("pbs", PBS + "-l place={}\nrun\n"),
        "pbs_duration": file("pbs", PBS + "-l walltime={}\nrun\n"),
        "pbs_size": file("pbs", PBS + "-l mem={}\nrun\n"),
        "pbs_array": file("pbs", PBS + "-J {}\nrun\n"),
        "pbs_datetime": file("pbs", PBS + "-a {}\nrun\n"),
        "depend": file("pbs", PBS + "-W depend={}\nrun\n"),
        "variables": file("pbs", PBS + "-v {}\nrun\n"),
        "nodes": file("torque", PBS + "-l nodes={}\nrun\n"),
        "torque_array": file("torque", PBS + "-t {}\nrun\n"),
    },
    "sge": {
        "script": file("sge"),
        "args": file("sge", SGE + "{}\nrun\n"),
        "resource": file("sge", SGE + "-l {}\nrun\n"),
        "sge_time": file("sge", SGE + "-l h_rt={}\nrun\n"),
        "sge_size": file("sge", SGE + "-l h_vmem={}\nrun\n"),
        "task_ranges": file("sge", SGE + "-t {}\nrun\n"),
        "slot_range": file("sge", SGE + "-pe mpi {}\nrun\n"),
        "job_list": file("sge", SGE + "-hold_jid {}\nrun\n"),
        "sge_datetime": file("sge", SGE + "-a {}\nrun\n"),
        "variables": file("sge", SGE + "-v {}\nrun\n"),
    },
    "lsf": {
        "script": file("lsf"),
        "args": file("lsf", BSUB + "{}\nrun\n"),
    },
    "lsf_resreq": {
        "resreq": file("lsf", BSUB + '-R "{}"\nrun\n'),
        "run_limit": file("lsf", BSUB + "-W {}\nrun\n"),
        "lsf_size": file("lsf", BSUB + "-M {}\nrun\n"),
        "slots": file("lsf", BSUB + "-n {}\nrun\n"),
        "job_array": file("lsf", BSUB + "-J {}\nrun\n"),
        "clock_time": file("lsf", BSUB + "-b {}\nrun\n"),
        "gpu": file("lsf", BSUB + '-gpu "{}"\nrun\n'),
        "env": file("lsf", BSUB + '-env "{}"\nrun\n'),
        "depend": file("lsf", BSUB + '-w "{}"\nrun\n'),
    },
    "flux_batch": {
        "lines": file("flux-batch"),
        "directive": file("flux-batch", SH + "{}\nrun\n"),
        "args": file("flux-batch", FLUX + "{}\nrun\n"),
        "flux_signal": file("flux-batch", FLUX + "--signal={}\nrun\n"),
    },
    "flux_lang": {
        "fsd": value(flux_lang.parse_fsd, flux_lang.FluxLangError),
        "dependency": value(flux_lang.parse_dependency, flux_lang.FluxLangError),
        "requires": value(flux_lang.parse_requires, flux_lang.FluxLangError),
        "splat_constraint": value(flux_lang.constraint_from_splat, flux_lang.FluxLangError),
    },
    "htcondor": {
        "file": file("htcondor"),
        "statement": file("htcondor", SUBMIT + "{}\nqueue\n"),
    },
    "htcondor_macro": {"text": file("htcondor", SUBMIT + "arguments = {}\nqueue\n")},
    "htcondor_queue": {"start": file("htcondor", SUBMIT + "queue {}\n")},
    "classad": {
        "expr": file("htcondor", SUBMIT + "requirements = {}\nqueue\n"),
        "old_expr": value(functools.partial(classad.parse, old=True), classad.ClassAdError),
        "ad": value(classad.parse_ad, classad.ClassAdError),
        "ads": value(classad.parse_ads, classad.ClassAdError),
    },
    "values": {
        "size": value(values.Size.parse, V),
        "cpu": value(values.Cpu.parse, V),
        "count": value(values.Count.parse, V),
        "duration": value(values.Duration.parse, V),
        "indices": value(values.IndexSpec.parse, V),
        "template": value(values.Template.parse, V),
        "signal": value(values.Signal.parse, V),
    },
}

CASES = [(grammar, start) for grammar in sorted(FEEDS) for start in FEEDS[grammar]]


def test_every_grammar_is_fed() -> None:
    """A grammar added to the package must say where its text is read (a row in FEEDS)."""
    assert {p.stem for p in GRAMMARS} == set(FEEDS)


@functools.cache
def _parser(grammar: str, start: str) -> Lark:
    (path,) = [p for p in GRAMMARS if p.stem == grammar]
    return Lark(path.read_text(), parser="lalr", lexer="contextual", start=start)


@pytest.mark.parametrize(("grammar", "start"), CASES)
def test_grammar_text_never_crashes(grammar: str, start: str) -> None:
    feed = FEEDS[grammar][start]

    @settings(
        derandomize=True,
        database=None,
        deadline=None,
        max_examples=EXAMPLES,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,  # from_lark discards draws that cannot end
        ],
    )
    @given(from_lark(_parser(grammar, start), start=start), st.sampled_from(TARGETS))
    def run(text: str, target: str) -> None:
        began = time.perf_counter()
        feed(text, target)
        took = time.perf_counter() - began
        assert took < TIME_BOUND, f"{took:.2f} s for one input"

    run()
