"""Every jobspec the `flux` writer emits for the real-world corpus of every other format passes
Flux's own V1 schema (../shared/oracles/flux/schemas, flux-core's job-ingest copy) and
bammmc's own statement of the V1 rules flux-core applies outside the schema (W430); and every
`flux -> slurm` script of the Flux corpus is accepted by a real `sbatch --test-only`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

import bammmc
from tests.conftest import CORPUS, ORACLES, without_site_names
from tests.formats.corpus_lists import known_faulty

SOURCES = ("slurm", "pbs", "torque", "lsf", "sge", "htcondor")
INPUTS = [
    (src, p)
    for src in SOURCES
    if (CORPUS / src).is_dir()
    for p in sorted((CORPUS / src).glob("*"))
    if p.is_file()
]
FLUX = sorted(
    p
    for d in ("valid", "valid_v1", "valid_json")
    if (CORPUS / "flux" / d).is_dir()
    for p in (CORPUS / "flux" / d).glob("*")
)


@pytest.fixture(scope="module")
def v1_schema() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    path = ORACLES / "flux" / "schemas" / "flux-core-jobspec_v1.jsonschema"
    if not path.is_file():
        pytest.skip("Flux schemas not present")
    schema = json.loads(path.read_text())
    return jsonschema.validators.validator_for(schema)(schema)


@pytest.mark.oracle
@pytest.mark.skipif(not INPUTS, reason="../shared/corpus is not here")
@pytest.mark.parametrize(("src", "path"), INPUTS, ids=[f"{s}/{p.name}" for s, p in INPUTS])
@pytest.mark.parametrize("as_json", [False, True], ids=["yaml", "json"])
def test_emitted_jobspec_validates(src: str, path: Path, as_json: bool, v1_schema: Any) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    files, diags = bammmc.convert_files(text, src, "flux", filename=path.name)
    if files is None:  # a file its reader is known to refuse: refused, nothing to validate
        assert path.name in known_faulty(), diags
        return
    out = files[0][1]
    if as_json:  # the same job through the JSON writer
        from bammmc.backends import WriteOptions
        from bammmc.backends.flux import write
        from bammmc.diagnostics.model import Reporter
        from bammmc.pipeline import compile_text, get_format

        job = compile_text(text, get_format(src), Reporter(path.name))[0].job
        assert job is not None
        out = write(job, Reporter(None), WriteOptions(flux_json=True))[0].text
        doc = json.loads(out)
    else:
        doc = yaml.safe_load(out)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in v1_schema.iter_errors(doc)]
    assert not errors, f"{errors}\n{out}"
    back, diags = bammmc.convert(out, "flux", "splat", filename="out.jobspec.yaml")
    assert back is not None
    assert not [d for d in diags if d.code == "W430"], [d.message for d in diags]
    if not as_json:  # written again from its own reading, the jobspec is the same text
        assert bammmc.convert(out, "flux", "flux")[0] == out


EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.yaml"))


@pytest.mark.oracle
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_written_as_jobspecs_validate(path: Path, v1_schema: Any) -> None:
    out, diags = bammmc.convert(path.read_text(), "splat", "flux", filename=path.name)
    assert out is not None, diags
    assert not list(v1_schema.iter_errors(yaml.safe_load(out))), out
    assert bammmc.convert(out, "flux", "flux")[0] == out


@pytest.mark.oracle
@pytest.mark.skipif(not FLUX, reason="../shared/corpus/flux is not here")
@pytest.mark.parametrize("path", FLUX, ids=[f"{p.parent.name}/{p.name}" for p in FLUX])
def test_flux_to_slurm_accepted_by_sbatch(
    path: Path, big_sbatch_check: Callable[..., tuple[bool, str]]
) -> None:
    out, diags = bammmc.convert(path.read_text(), "flux", "slurm", filename=path.name)
    assert out is not None, diags
    checked = without_site_names(out)
    accepted, message = big_sbatch_check(checked, "-p", "batch")
    assert accepted, f"{message}\n{checked}"


def _oracle_module() -> Any:
    import importlib.util

    path = ORACLES / "flux" / "check.py"
    if not path.is_file():
        pytest.skip("the Flux oracle is not here")
    pytest.importorskip("jsonschema")
    pytest.importorskip("referencing")
    spec = importlib.util.spec_from_file_location("flux_check", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


JOBSPECS = sorted(
    p
    for d in ("valid", "invalid", "valid_v1", "invalid_v1", "valid_json")
    if (CORPUS / "flux" / d).is_dir()
    for p in (CORPUS / "flux" / d).glob("*")
)


@pytest.mark.oracle
@pytest.mark.skipif(not JOBSPECS, reason="../shared/corpus/flux is not here")
def test_v1_verdicts_agree_with_the_oracle() -> None:
    """For every jobspec of the corpus, "Flux would accept it for submission" is the same
    verdict from the oracle (V1 schema + its `--v1-rules`) and from bammmc (no error, no W430)."""
    oracle = _oracle_module()
    schema = oracle.validator("v1")
    disagree = []
    for path in JOBSPECS:
        text = path.read_text()
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            doc = None
        theirs = doc is not None and not list(schema.iter_errors(doc)) and not oracle.v1_rules(doc)
        out, diags = bammmc.convert(text, "flux", "splat", filename=path.name)
        ours = out is not None and not any(d.code == "W430" for d in diags)
        if theirs != ours:
            disagree.append(f"{path.parent.name}/{path.name}: oracle {theirs}, bammmc {ours}")
    assert not disagree, disagree
