"""The real parsers' reading of a written job, as one flat table per target, and the verdict of
the separator-injection property (issue 18, item 4): a value holding the separators of every
sub-language either is refused (E140) or changes nothing but itself.

Used by tests/property/test_separators.py (a hypothesis sample in CI) and by
tools/injection_survey.py (≥ 100,000 values per writer). Plain functions, no pytest: a judge is
made from the running oracles (:func:`judges`).

The tables, one per target, from the target's own parser:

* `slurm`: sbatch's table of defined options (`sbatch -v --test-only`, as
  ../shared/oracles/slurm/sbatch-inspect reads it), after its `#SBATCH` lines;
* `pbs`, `torque`: the same after sbatch's own `#PBS` translation (src/sbatch/xlate.c);
* `lsf`: the same after sbatch's `#BSUB` translation — the only LSF parser here, and it knows a
  part of bsub's options only (`-W -n -J -q -o -e -cwd -M`…): the rest of an LSF script is judged
  by our own reader (below);
* `sge`: the job record the real Grid Engine qmaster keeps (qsub-inspect --raw);
* `htcondor`: htcondor2.Submit's commands, expanded, and its queue arguments;
* `flux-batch`: the words Flux's own RFC 36 directive parser hands `flux batch`;
* `flux`: the jobspec as a YAML parser loads it.

The verdict (:func:`verdict`), for the job with one string leaf set to a value and the same job
with the plain value `plain1`:

1. the writer refuses the value (error diagnostics, every one E140: nothing written), or
2. the real parser's table has the same entries as the plain job's (nothing added, nothing
   taken away), every entry that does not hold the plain value is unchanged, and
3. our own reader reads the written job back as the plain job's with `plain1` replaced by the
   value wherever it stands: the value is read as one value, the same (`a100:4,gpu` as a GPU
   type written into `--gpus-per-task=a100:4,gpu:1` is read as a count of 4 and another GPU,
   which is not the plain job's reading with the value put in). Where the writer said it
   changed the leaf (a warning about its field), the reading may differ there only.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bammmc
from bammmc.backends.splat import to_builtins
from bammmc.ir.job import Job
from bammmc.ir.paths import related, schema_path
from tests.property.injection_fields import Leaf, display, document
from tests.property.test_injection import PLAIN, PLAIN_FOR, _read

ROOT = Path(__file__).parent.parent
ORACLES = ROOT.parent / "shared" / "oracles"

#: every sub-language's separators: lists (`,` `:` `;` `+` `&` `|` `?`), assignments (`=`),
#: hosts and ids (`@` `:`), ranges and brackets, quotes and escapes, comments, substitutions
#: (`$` `%` `{{`), globs, blanks, a leading `-`
SEPARATORS = ",:;=+&|?!@#%*()[]{}<>/\\'\"$`~^ \t-."
#: the targets whose only real parser is sbatch's translation of their directives: sbatch's
#: tokenizer takes `\` as an escape inside quotes and `#` as the start of a comment, which
#: qsub's does not (pbs.md §1.1), and it stops with "Unexpected `:`" at a word that starts with
#: `:` (src/sbatch/opt.c `_get_argument`: its heterogeneous-job separator), which qsub and bsub
#: take as text; a value with any of them is judged by our own reader only
SBATCH_TRANSLATED = frozenset({"pbs", "torque", "lsf"})
#: letters around them (never the plain value's)
LETTERS = "ab9"

Table = dict[str, Any]


#: the extension blocks that hold a target's own text (raw options, `select` specs, pattern
#: strings): the user wrote them in the target's language, where a separator means what it
#: says there (`--gres=a,b` is two GRES, `select=9` nine chunks). They are not judged as one
#: plain value; tests/property/test_injection.py checks that none of them adds a directive line
OWN_TEXT: dict[str, tuple[str, ...]] = {
    "slurm": ("slurm",),
    "pbs": ("pbs", "torque"),
    "torque": ("pbs", "torque"),
    "lsf": ("lsf",),
    "sge": ("sge",),
    "htcondor": ("htcondor",),
    "flux-batch": ("flux",),
    "flux": ("flux",),
}


def judged(target: str, name: str) -> bool:
    """Whether the leaf ``name`` (its display form) is judged as one plain value."""
    return not any(name.startswith(f"spec.extensions.{own}.") for own in OWN_TEXT[target])


def flat(data: Any, prefix: str = "") -> Table:
    """``data`` (JSON-like) as ``{path: scalar}``: `a.b[0]`."""
    out: Table = {}
    if isinstance(data, dict):
        for key, value in data.items():
            out.update(flat(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(data, list):
        for n, value in enumerate(data):
            out.update(flat(value, f"{prefix}[{n}]"))
    else:
        out[prefix] = data
    return out


class Unavailable(Exception):
    """The target's parser is not running here."""


def _sbatch(env: dict[str, str]) -> Callable[[str], Any]:
    """sbatch's defined options for a script (sbatch-inspect's reading, without its Python
    start-up: the survey calls it 10⁵ times)."""
    folder = Path(tempfile.mkdtemp(prefix="bammmc-judge-"))

    def table(text: str) -> Any:
        path = folder / "job.sh"
        path.write_text(text)
        proc = subprocess.run(
            ["sbatch", "-v", "--test-only", str(path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        if re.search(r"Unable to contact slurm controller|Connection refused", proc.stderr):
            raise Unavailable(proc.stderr.strip()[-200:])
        components: list[dict[str, str]] = []
        current: dict[str, str] | None = None
        for line in proc.stderr.split("\n"):  # sbatch splits the script at `\n` only
            body = line.removeprefix("sbatch: ")
            if body.strip() == "defined options":
                current = {}
            elif body.strip() == "end of defined options" and current is not None:
                current.pop("test-only", None)
                current.pop("verbose", None)
                components.append(current)
                current = None
            elif current is not None and ":" in body and not body.startswith("-"):
                key, _, value = body.partition(":")
                current[key.strip()] = value.strip()
        return components

    return table


def _oracle_module(name: str, what: str) -> Any:
    """The oracle's Python file ``name`` (under ../shared/oracles), loaded by path."""
    import importlib.util

    path = ORACLES / name
    spec = importlib.util.spec_from_file_location("bammmc_judge_" + path.stem, path)
    if not path.is_file() or spec is None or spec.loader is None:
        raise Unavailable(f"no {what} oracle")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: the fields of a Grid Engine job record that name other jobs, resolved by the qmaster
OTHER_JOBS = (
    "hold_jid_resolved",
    "JB_jid_predecessor_list",
    "JB_jid_successor_list",
    "JB_ja_ad_predecessor_list",
    "JB_ja_ad_successor_list",
)
#: a qmaster's refusal of a job for naming a queue or reservation this cluster does not have:
#: the cluster's answer, not the text's reading (the plain value `p1` names no queue here)
UNKNOWN_OBJECT = re.compile(r"unknown queue|advance reservation id .* is invalid|invalid advance")


def _lt(data: Any) -> Any:
    """``data`` with qstat's `%lt;` read as the `<` the qmaster holds: its XML writer escapes
    `<` so (`qstat -j ID` without `-xml` shows `x<y` where `-xml` has `x%lt;y`)."""
    if isinstance(data, str):
        return data.replace("%lt;", "<")
    if isinstance(data, dict):
        return {k: _lt(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_lt(v) for v in data]
    return data


class _Qsub:
    """The Grid Engine qmaster's record of a job script, as qsub-inspect --raw reads it, made
    in this process with the oracle's own module (sgeoracle.py) and in batches: the scripts of
    :meth:`prefetch` are submitted one by one and read with one `qstat -j ID,ID,… -xml`, one
    `qstat -s hu` and one `qdel` (qsub-inspect costs 0.18 s a script, most of it the three
    commands and its Python start-up; the survey asks 10⁵ times)."""

    def __init__(self, env: dict[str, str]) -> None:
        module = _oracle_module("sge/sgeoracle.py", "Grid Engine")
        if "SGE_ORACLE_DIR" in env:  # the state start.sh said, not this process's own
            module.__dict__["state_dir"] = lambda: env["SGE_ORACLE_DIR"]
        self.sge: Any = module
        try:
            self.oracle = self.sge.Oracle()
            self.anchor = self.oracle.anchor()
        except self.sge.NotRunning as exc:
            raise Unavailable(str(exc)) from exc
        self.folder = Path(tempfile.mkdtemp(prefix="bammmc-judge-"))
        self.known: dict[str, Any] = {}

    def __call__(self, text: str) -> Any:
        if text not in self.known:
            if len(self.known) > 1000:
                self.known.clear()
            self.read([text])
        return self.known[text]

    def prefetch(self, texts: list[str]) -> None:
        """Read the records of ``texts`` (a batch) into the cache, which keeps that batch."""
        self.known = {t: self.known[t] for t in texts if t in self.known}
        self.read(texts)

    def read(self, texts: list[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self.known))
        jobs: dict[int, str] = {}
        waiting = []
        try:
            # one path for every job: its name is the default `-N`, its folder the record's
            # `cwd`; qsub sends the script to the qmaster, which keeps its own copy
            path = self.folder / "job.sge"
            for text in todo:
                path.write_text(text)
                args = ["-hold_jid", str(self.anchor), str(path)]  # the oracle's option last
                _, out, err, job, proc = self.oracle.submit(args, cwd=self.folder)
                if proc is not None:
                    waiting.append(proc)
                if job is None:
                    message = "\n".join(
                        line
                        for line in (out + "\n" + err).splitlines()
                        if line.strip() and not self.sge.is_submit_line(line)
                    ).strip()
                    if self.sge.unreachable(message):
                        raise Unavailable(message[-200:])
                    self.known[text] = {"refused": message}
                else:
                    jobs[job] = text
            if not jobs:
                return
            ids = ",".join(map(str, jobs))
            xml = self.oracle.run("qstat", "-j", ids, "-xml", timeout=60).stdout
            held = self.oracle.run("qstat", "-s", "hu", "-u", "*", "-xml", timeout=60).stdout
            import xml.etree.ElementTree as ET

            for record in ET.fromstring(xml).findall("./djob_info/element"):
                job = int(self.sge.txt(record, "JB_job_number"))
                summary = self.sge.job_summary(record, drop_hold=self.anchor)
                summary["hold"] = f"<JB_job_number>{job}</JB_job_number>" in held
                raw = self.sge.job_raw(record)
                for key in OTHER_JOBS:  # the jobs a `-hold_jid` pattern matched, or that match
                    summary.pop(key, None)  # this one's name: the batch's, not the text's
                    raw.pop(key, None)
                # the summary has these whole: `user@host` entries (split here), the holds as
                # requested (here with the anchor, as one element or a list of them)
                raw.pop("JB_mail_list", None)
                raw.pop("JB_jid_request_list", None)
                summary.pop("script_file", None)
                self.known[jobs[job]] = _lt({"job": summary, "raw": raw})
            for job, text in jobs.items():
                self.known.setdefault(text, {"refused": f"job {job}: no record"})
        finally:
            if jobs:
                self.oracle.qdel(",".join(map(str, jobs)))
            for proc in waiting:
                self.sge.finish(proc)


def _condor() -> Callable[[str], Any]:
    os.environ.setdefault("CONDOR_CONFIG", os.devnull)
    module = _oracle_module("htcondor/check.py", "HTCondor")
    htcondor2 = module.htcondor2

    def table(text: str) -> Any:
        try:
            submit = htcondor2.Submit(text)
        except Exception as exc:  # the parser refuses the text: a table of its own
            return {"refused": f"{type(exc).__name__}: {exc}"}
        expanded = {}
        for key in list(submit):
            try:
                expanded[key.lower()] = submit.expand(key)
            except Exception as exc:
                expanded[key.lower()] = f"<{type(exc).__name__}>"
        return {"commands": expanded, "queue": submit.getQArgs()}

    return table


def _flux_batch() -> Callable[[str], Any]:
    module = _oracle_module("flux/check-batch.py", "Flux")
    try:
        parser = module.load_parser()
    except SystemExit as exc:
        raise Unavailable("flux-python is not installed") from exc

    def table(text: str) -> Any:
        try:
            result = parser(io.StringIO(text, newline=None))  # `flux batch` reads text mode
        except ValueError as exc:
            return {"refused": str(exc)}
        return [list(d.args) for d in result.directives if d.action == "SETARGS"]

    return table


def _yaml(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


def judges(slurm_env: dict[str, str] | None, sge_env: dict[str, str] | None) -> dict[str, Any]:
    """The table function of each target whose parser runs here."""
    out: dict[str, Any] = {"flux": _yaml}
    if slurm_env is not None:
        sbatch = _sbatch(slurm_env)
        out.update(slurm=sbatch, pbs=sbatch, torque=sbatch, lsf=sbatch)
    if sge_env is not None:
        out["sge"] = _Qsub(sge_env)
    for target, make in (("htcondor", _condor), ("flux-batch", _flux_batch)):
        with contextlib.suppress(Unavailable):
            out[target] = make()
    return out


# -- the jobs -------------------------------------------------------------------------------


def _script(leaf: Leaf) -> bool | None:
    """Whether the leaf's document has a script (test_injection._read decides); None when the
    IR refuses even the plain value."""
    job, script = _read(leaf, PLAIN_FOR.get(display(leaf), PLAIN))
    return None if job is None else script


def job_of(leaf: Leaf, value: str) -> Job | None:
    """The job with ``leaf`` set to ``value``, or None when the IR refuses the value (read by
    the SPLAT reader: it decides what a field takes)."""
    script = _script(leaf)
    if script is None:
        return None
    if display(leaf).startswith("spec.output."):  # a template: braces are its variables
        value = value.replace("{", "{{").replace("}", "}}")
    doc = document(leaf, value, script=script)
    job, diagnostics = bammmc.parse(json.dumps(doc), "splat")
    if job is None or any(d.is_error for d in diagnostics):
        return None
    return job


def _field_of(leaf: Leaf) -> str:
    path = display(leaf)
    while path.endswith(("{k}", "{v}", "[]")):
        path = path[:-3] if path.endswith(("{k}", "{v}")) else path[:-2]
    return path


def _swap(data: Any, plain: str, value: str) -> Any:
    if isinstance(data, str):
        return data.replace(plain, value)
    if isinstance(data, dict):
        return {_swap(k, plain, value): _swap(v, plain, value) for k, v in data.items()}
    if isinstance(data, list):
        return [_swap(v, plain, value) for v in data]
    return data


def _expected(reading: Any, plain: str, value: str) -> Any:
    """Our reading of the plain job with the value in place of the plain value: in an output
    template (`spec.output`), where a brace is written `{{`, as the template's text."""
    out = _swap(reading, plain, value)
    output = (reading.get("spec") or {}).get("output") if isinstance(reading, dict) else None
    if output is not None:
        out["spec"]["output"] = _swap(output, plain, value.replace("{", "{{").replace("}", "}}"))
    return out


@functools.lru_cache(maxsize=4096)
def _reference(leaf: Leaf, target: str) -> tuple[str, Any] | None:
    """The plain job's written text and its reading by our own reader, or None when the
    target cannot take the plain value."""
    job = job_of(leaf, PLAIN_FOR.get(display(leaf), PLAIN))
    if job is None:
        return None
    files, diagnostics = bammmc.emit_files(job, target)
    if files is None or any(d.is_error for d in diagnostics):
        return None
    back, _ = bammmc.parse(files[0][1], target, filename="out")
    return files[0][1], (to_builtins(back) if back is not None else None)


@functools.lru_cache(maxsize=4096)
def _plain_lost(leaf: Leaf, target: str) -> bool:
    """Whether the writer drops the plain value of the leaf (W201) where it may write others:
    Grid Engine's `-ar` takes a reservation's id, and `p1` is a name."""
    written = _written(leaf, PLAIN_FOR.get(display(leaf), PLAIN), target)
    own = _field_of(leaf)
    return written is not None and any(
        d.code == "W201" and d.field and related(own, schema_path(d.field)) for d in written[1]
    )


@functools.lru_cache(maxsize=1024)
def _written(leaf: Leaf, value: str, target: str) -> tuple[Any, list[Any]] | None:
    """What the writer makes of the job with ``leaf`` = ``value`` (None: the IR refuses it)."""
    job = job_of(leaf, value)
    return None if job is None else bammmc.emit_files(job, target)


def asked(leaf: Leaf, value: str, target: str) -> list[str]:
    """The texts :func:`verdict` hands the target's parser for this value: a judge that reads
    in batches (:class:`_Qsub`) reads them all at once first."""
    written, reference = _written(leaf, value, target), _reference(leaf, target)
    if written is None or reference is None or written[0] is None:
        return []
    return [written[0][0][1], reference[0]]


def _without_constraint_form(reading: Any) -> Any:
    """The reading without Flux's RFC 31 object (`extensions.flux.constraints_spec`)."""
    flux = ((reading.get("spec") or {}).get("extensions") or {}).get("flux")
    if isinstance(flux, dict) and "constraints_spec" in flux:
        reading = copy.deepcopy(reading)
        ext = reading["spec"]["extensions"]
        del ext["flux"]["constraints_spec"]
        if not ext["flux"]:
            del ext["flux"]
    return reading


def _words(value: str) -> list[str]:
    try:
        return shlex.split(value)
    except ValueError:
        return [value]  # not shell words: the writer refuses it or keeps it whole


def _spread(data: Any, plain: str, items: list[str]) -> Any:
    """``data`` with each list item ``plain`` replaced by ``items``: a value that is a list in
    SPLAT (the shell words of the arguments, the addresses of `a,b`) is one item of the
    target's list per element (Flux's `command`, Grid Engine's mail list)."""
    if isinstance(data, dict):
        return {k: _spread(v, plain, items) for k, v in data.items()}
    if not isinstance(data, list):
        return data
    out: list[Any] = []
    for item in data:
        out.extend(items if item == plain else [_spread(item, plain, items)])
    return out


def _argument_words(reading: Any) -> Any:
    """The reading with `spec.execution.arguments` as its shell words (`a\tb` and `a b` are the
    same two arguments; a writer that joins words with its own blank changes none)."""
    execution = (reading.get("spec") or {}).get("execution") if isinstance(reading, dict) else None
    text = execution.get("arguments") if isinstance(execution, dict) else None
    if not isinstance(text, str):
        return reading
    try:
        words = shlex.split(text)
    except ValueError:
        return reading  # not shell words: compared as text
    reading = copy.deepcopy(reading)
    reading["spec"]["execution"]["arguments"] = words
    if not words:  # blanks only: no arguments at all
        del reading["spec"]["execution"]["arguments"]
    return reading


def _parser_says(got: Any, reading: Any, leaf: Leaf, value: str, reported: bool) -> str | None:
    """What the real parser's table of the written job (``got``) has that the plain job's
    (``reading``) with the value in its place has not, or None."""
    refusals = [str(t.get("refused") or "") for t in (got, reading) if isinstance(t, dict)]
    if any(UNKNOWN_OBJECT.search(r) for r in refusals):
        return None  # a queue or reservation that is not here: our reader judges it alone
    plain = PLAIN_FOR.get(display(leaf), PLAIN)
    if display(leaf) == "spec.execution.arguments":  # an argv: the value is its words
        reading = _spread(reading, plain, _words(value))
    elif display(leaf) == "spec.notifications.email" and not reported:
        # `a,b`: SPLAT's list of addresses (`a,` is one); a writer that drops some says so
        reading = _spread(reading, plain, [a for a in value.split(",") if a])
    got = flat(got)
    # an entry named by the value (a map key: a file, a variable) is named by the payload
    meant = {k.replace(plain, value): v for k, v in flat(reading).items()}
    added, gone = sorted(set(got) - set(meant)), sorted(set(meant) - set(got))
    if added or (gone and not reported):  # a value the writer says it dropped is gone
        return f"the real parser reads {added} more, {gone} less"
    changed = [k for k in got if plain not in str(meant[k]) and got[k] != meant[k]]
    if changed:
        return f"the real parser reads {changed} changed"
    return None


def verdict(leaf: Leaf, value: str, target: str, table: Callable[[str], Any] | None) -> str | None:
    """What is wrong with writing the job with ``leaf`` = ``value`` as ``target`` (None: it is
    refused, or it changes nothing but the value). ``table`` is the target's real parser
    (:func:`judges`), or None where none runs here."""
    written = _written(leaf, value, target)
    reference = _reference(leaf, target)
    if written is None or reference is None:
        return None  # the IR refuses the value, or the target takes no plain value here
    files, diagnostics = written
    errors = {d.code for d in diagnostics if d.is_error}
    if files is None or errors:
        if files is not None:
            return f"an error ({sorted(errors)}), and text written anyway"
        # E140 names the field and the character; E134 is the writer's own check of its
        # output (backends.common.read_own), which refuses what our reader of the target
        # would not take back: both write nothing
        wrong = errors - {"E140", "E134"}
        return f"refused with {sorted(wrong)}, not E140" if wrong else None
    text = files[0][1]
    ref_text, ref_back = reference
    plain = PLAIN_FOR.get(display(leaf), PLAIN)
    reported = any(d.field and related(_field_of(leaf), schema_path(d.field)) for d in diagnostics)
    if not reported and _plain_lost(leaf, target):
        return None  # no plain job holds the leaf: none to compare this one with
    # a feature expression's `&|()` are SPLAT's own syntax, which a writer translates into the
    # target's structure (Flux: one `properties` entry per name): our reader judges it alone
    expression = display(leaf) == "spec.placement.constraint" and set("&|()") & set(value)
    translated = target in SBATCH_TRANSLATED and (
        bool({"\\", "#"} & set(value)) or re.search(r"(^|\s):", value) is not None
    )
    if table is not None and not translated and not expression:
        said = _parser_says(table(text), table(ref_text), leaf, value, reported)
        if said is not None:
            return f"{said}\n{text[:600]}"
    back, _ = bammmc.parse(text, target, filename="out")
    if back is None:
        return f"written, but our reader refuses it\n{text[:600]}"
    read = to_builtins(back)
    # a word of the script is quoted for the shell (`exec '!a'`)
    spellings = [value, shlex.quote(value)]
    if display(leaf) == "spec.placement.constraint":  # an expression: blanks around it are none
        spellings.append(value.strip())
    variants = [_expected(ref_back, plain, v) for v in spellings]
    if display(leaf) == "spec.execution.arguments":  # shell words: the blanks between are none
        read, variants = _argument_words(read), [_argument_words(v) for v in variants]
    if expression:  # the target's own form of the expression is its structure, not the text
        read, variants = (
            _without_constraint_form(read),
            [_without_constraint_form(v) for v in variants],
        )
    expected = variants[0]
    if read not in variants:
        if reported:  # said: the leaf's own value may differ, nothing else
            extra = set(flat(read)) - set(flat(expected))
            own = _field_of(leaf)
            foreign = {k for k in extra if not related(own, k.split("[")[0])}
            if not foreign:
                return None
            return f"reads back {sorted(foreign)} more\n{text[:600]}"
        diff = sorted(
            k
            for k in set(flat(read)) | set(flat(expected))
            if flat(read).get(k) != flat(expected).get(k)
        )
        return f"reads back otherwise at {diff[:6]}\n{text[:600]}"
    return None
