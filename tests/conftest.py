"""Shared fixtures: the real-world corpus and the oracles of ../shared/oracles."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parent.parent
SHARED = ROOT.parent / "shared"
ORACLES = SHARED / "oracles"
CORPUS = SHARED / "corpus"


#: A second, larger oracle cluster (own state dir and ports, beside the default one) for real
#: jobs converted from sites with bigger nodes: 128 nodes × 64 CPUs × 1 TB, no partition limits.
BIG_CLUSTER: dict[str, str] = {
    "SLURM_ORACLE_DIR": "/tmp/bammmc-slurm-oracle-big",
    "SLURM_ORACLE_CTLD_PORT": "6917",
    "SLURM_ORACLE_SLURMD_PORT": "6918",
    "SLURM_ORACLE_NODES": "128",
    "SLURM_ORACLE_CPUS": "64",
    "SLURM_ORACLE_MEM_MB": "1024000",
    "SLURM_ORACLE_ENFORCE_PART_LIMITS": "NO",
}


def _start_slurm(extra: dict[str, str] | None = None) -> dict[str, str] | str:
    """Start (or find running) the Slurm oracle; its environment, or why it is unavailable."""
    start = ORACLES / "slurm" / "start.sh"
    if not start.is_file():
        return f"no Slurm oracle at {start}"
    if os.geteuid() != 0 and not shutil.which("sbatch"):
        return "the Slurm oracle needs root to install Slurm"
    try:
        proc = subprocess.run(
            ["bash", str(start)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**os.environ, **(extra or {})},
        )
    except subprocess.TimeoutExpired:
        return "the Slurm oracle did not start within 300 s"
    if proc.returncode != 0:
        return "the Slurm oracle failed to start: " + proc.stderr.strip()[-300:]
    env = {}
    for line in proc.stdout.splitlines():
        if line.startswith("export ") and "=" in line:
            key, _, value = line[len("export ") :].partition("=")
            env[key] = value.strip("'\"")
    return env


def _start_sge() -> dict[str, str] | str:
    """Start (or find running) the Grid Engine oracle; the whole environment to call it with,
    or why it is unavailable."""
    start = ORACLES / "sge" / "start.sh"
    if not start.is_file():
        return f"no Grid Engine oracle at {start}"
    if os.geteuid() != 0:
        return "the Grid Engine oracle needs root"
    # A Grid Engine host has no Slurm: its daemons (whose environment every job inherits) and
    # qsub must not see the Slurm oracle's SLURM_CONF, or a converted job's `srun` would run
    # on the Slurm oracle and pass a behaviour row it must fail (CI exports SLURM_CONF).
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    proc = subprocess.run(
        ["bash", str(start)], capture_output=True, text=True, timeout=300, check=False, env=clean
    )
    if proc.returncode != 0:
        return "the Grid Engine oracle failed to start: " + proc.stderr.strip()[-300:]
    env = dict(clean)
    for line in proc.stdout.splitlines():
        if line.startswith("export ") and "=" in line:
            key, _, value = line[len("export ") :].partition("=")
            env[key] = value.strip("'\"")
    return env


@pytest.fixture(scope="session")
def sbatch_check(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[bool, str]]:
    """``check(script_text) -> (accepted, sbatch's message)`` with real `sbatch --test-only`.

    Skips (saying why) only when Slurm cannot be installed or started here."""
    return _checker(tmp_path_factory, None)


@pytest.fixture(scope="session")
def big_sbatch_check(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[..., tuple[bool, str]]:
    """The same against the larger second cluster (`BIG_CLUSTER`); extra sbatch options may
    follow the text (they override the script's, as on sbatch's command line)."""
    return _checker(tmp_path_factory, BIG_CLUSTER)


def _checker(
    tmp_path_factory: pytest.TempPathFactory, extra: dict[str, str] | None
) -> Callable[..., tuple[bool, str]]:
    env = _start_slurm(extra)
    if isinstance(env, str):
        pytest.skip(env)
    full_env = {**os.environ, **(extra or {}), **env}
    checker = ORACLES / "slurm" / "check-sbatch"
    folder = tmp_path_factory.mktemp("sbatch")
    counter = iter(range(10**9))

    def check(text: str, *options: str) -> tuple[bool, str]:
        path = folder / f"job{next(counter)}.sbatch"
        path.write_text(text)
        proc = subprocess.run(
            ["bash", str(checker), str(path), *options],
            capture_output=True,
            text=True,
            env=full_env,
            timeout=120,
            check=False,
        )
        if proc.returncode == 3:
            pytest.skip("the Slurm oracle is not reachable: " + proc.stderr.strip())
        return proc.returncode == 0, (proc.stderr or proc.stdout).strip()

    return check


@pytest.fixture(scope="session")
def sbatch_options(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[Any]]:
    """``table(script_text)``: sbatch's own table of defined options, one dict per hetjob
    component, after its `#SBATCH` lines or its `#PBS` translation (sbatch-inspect, no job
    is made). Skips (saying why) only when Slurm cannot be installed or started here."""
    import json

    env = _start_slurm()
    if isinstance(env, str):
        pytest.skip(env)
    full = {**os.environ, **env}
    folder = tmp_path_factory.mktemp("sbatch-options")
    seen: dict[str, list[Any]] = {}

    def table(text: str) -> list[Any]:
        if text not in seen:
            path = folder / f"job{len(seen)}.sh"
            path.write_text(text)
            proc = subprocess.run(
                [sys.executable, str(ORACLES / "slurm" / "sbatch-inspect"), str(path)],
                capture_output=True,
                text=True,
                env=full,
                timeout=120,
                check=False,
            )
            if proc.returncode == 3:
                pytest.skip("the Slurm oracle is not reachable: " + proc.stderr.strip())
            seen[text] = json.loads(proc.stdout)["components"]
        return seen[text]

    return table


_CORPUS_RESULTS: list[tuple[str, str, str, str]] = []


def as_written(job: Any) -> Any:
    """``job`` as any writer but SPLAT writes it: its scripts with LF line ends (a reader of
    a converted file gets these; pipeline.lf_scripts, issue #18)."""
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import lf_scripts
    from bammmc.registry import FORMATS

    return lf_scripts(job, "", FORMATS["slurm"], Reporter())


def record_corpus(fmt: str, name: str, diagnostics: list) -> None:  # type: ignore[type-arg]
    """Note one corpus file's outcome for the summary printed after the run."""
    errors = sorted({d.code for d in diagnostics if d.is_error})
    warnings = sorted({d.code for d in diagnostics if not d.is_error})
    status = "errors" if errors else "warnings" if warnings else "clean"
    _CORPUS_RESULTS.append((fmt, name, status, " ".join(errors + warnings)))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _CORPUS_RESULTS:
        return
    terminalreporter.section("real-world corpus")
    # a file that crashes the reader fails its test and is not counted here (crashes are
    # counted by tools/corpus_report.py, which .ci/run runs over the whole corpus)
    terminalreporter.write_line("files read without a crash, per format:")
    for fmt in sorted({r[0] for r in _CORPUS_RESULTS}):
        rows = [r for r in _CORPUS_RESULTS if r[0] == fmt]
        counts = {s: sum(r[2] == s for r in rows) for s in ("clean", "warnings", "errors")}
        terminalreporter.write_line(
            f"{fmt}: {len(rows)} files, {counts['clean']} clean, {counts['warnings']} with "
            f"warnings, {counts['errors']} with errors"
        )
        for _, name, status, codes in sorted(rows):
            if status != "clean":
                terminalreporter.write_line(f"  {status:<8} {name}: {codes}")


class CondorOracle:
    """HTCondor's own parsers (the PyPI `htcondor` wheel, pinned in the `test` extra) through
    ../shared/oracles/htcondor/check.py, loaded in-process (one import, no subprocess per check).

    ``expr(text)`` -> ``(canonical, None)`` or ``(None, error)`` from `classad2.ExprTree`;
    ``submit(text)`` -> the JSON `check.py submit` prints (keys, expanded values, queue,
    itemdata, warnings, errors, ok)."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def expr(self, text: str) -> tuple[str | None, str | None]:
        result: tuple[str | None, str | None] = self.module.parse_expr(text)
        return result

    def submit(self, text: str) -> dict[str, Any]:
        import contextlib
        import io
        import json

        buffer = io.StringIO()
        stdin = sys.stdin
        sys.stdin = io.StringIO(text)
        try:
            with contextlib.redirect_stdout(buffer):
                self.module.cmd_submit(["-"])
        finally:
            sys.stdin = stdin
        result: dict[str, Any] = json.loads(buffer.getvalue())
        return result


@pytest.fixture(scope="session")
def condor_oracle() -> CondorOracle:
    """The HTCondor oracle; fails (not skips) when the pinned wheel is missing on Linux."""
    import importlib.util

    check = ORACLES / "htcondor" / "check.py"
    if not check.is_file():
        pytest.skip(f"no HTCondor oracle at {check}")
    os.environ.setdefault("CONDOR_CONFIG", os.devnull)
    spec = importlib.util.spec_from_file_location("bammmc_condor_oracle", check)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)  # imports classad2 / htcondor2: the test extra pins them
    return CondorOracle(module)


#: sbatch options naming things only a site knows (the oracle cluster does not have them)
SITE_NAMES: tuple[str, ...] = (
    "--partition=",
    "--account=",
    "--constraint=",
    "--reservation=",
    "--licenses=",
)


def without_site_names(script: str) -> str:
    """A converted sbatch script without the `#SBATCH` lines that name a site's partitions,
    accounts, features, reservations or licenses, for the oracle cluster (which stands in
    `-p batch` for the partition)."""
    return "".join(
        line
        for line in script.splitlines(keepends=True)
        if not line.startswith(tuple("#SBATCH " + n for n in SITE_NAMES))
    )


class FluxBatchOracle:
    """Flux's own RFC 36 directive parser (`flux/job/directives.py` of the PyPI `flux-python`
    wheel, pinned in the `test` extra) through ../shared/oracles/flux/check-batch.py's loader,
    in-process. ``parse(text)`` -> ``(ok, args, error)`` as check-batch.py prints them."""

    def __init__(self, parser: Any) -> None:
        self.parser = parser

    def parse(self, text: str) -> tuple[bool, list[str], str | None]:
        import io

        try:
            # check-batch.py reads the file in text mode: universal newlines
            result = self.parser(io.StringIO(text, newline=None))
        except ValueError as exc:
            return False, [], str(exc)
        args: list[str] = []
        for d in result.directives:
            if getattr(d, "action", None) == "SETARGS":
                args.extend(d.args)
        return True, args, None

    def directives(self, text: str) -> list[list[str]]:
        """The words of each option-carrying directive, one list per directive (what `flux
        batch` hands its option parser, one call each)."""
        import io

        result = self.parser(io.StringIO(text, newline=None))
        return [list(d.args) for d in result.directives if d.action == "SETARGS"]


@pytest.fixture(scope="session")
def flux_batch_oracle() -> FluxBatchOracle:
    """The Flux batch-script oracle; fails (not skips) when the pinned wheel is missing."""
    import importlib.util

    check = ORACLES / "flux" / "check-batch.py"
    if not check.is_file():
        pytest.skip(f"no Flux batch oracle at {check}")
    spec = importlib.util.spec_from_file_location("bammmc_flux_batch_oracle", check)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        parser = module.load_parser()  # flux-python's directives.py: the test extra pins it
    except SystemExit:
        pytest.fail("flux-python is not installed: `pip install -e '.[test]'`")
    return FluxBatchOracle(parser)


@pytest.fixture(scope="session")
def flux_batch_cli() -> Any:
    """flux-core's own `flux batch` option parser (`BatchCmd` of flux/cli/batch.py and base.py
    in the pinned flux-python wheel, argparse with `allow_abbrev=False` in POSIX mode), built
    in-process. The wheel's modules that need the Flux C library (`flux`, `flux.job`, …) are
    replaced by stubs that only the parser's construction touches; option parsing itself is
    flux-core's code. ``parser.parse_args(words)`` raises ``SystemExit`` where `flux batch`
    would refuse the words."""
    import argparse
    import contextlib
    import datetime
    import importlib.util
    import io
    import sysconfig
    import types

    root = Path(sysconfig.get_paths()["purelib"]) / "flux"
    if not (root / "cli" / "batch.py").is_file():
        pytest.fail("flux-python is not installed: `pip install -e '.[test]'`")
    saved = {k: v for k, v in sys.modules.items() if k == "flux" or k.startswith("flux.")}

    def stub(name: str, **attrs: Any) -> types.ModuleType:
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        module.__path__ = []
        sys.modules[name] = module
        return module

    class Plugins:
        def __init__(self, prog: str) -> None:
            self.options: list[Any] = []

    def load(name: str, path: Path) -> Any:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    try:
        util = stub(
            "flux.util",
            help_formatter=lambda argwidth=40, raw_description=False: argparse.HelpFormatter,
            parse_datetime=lambda value: datetime.datetime.now(),
        )
        job = stub("flux.job", JobspecV1=object, JobWatcher=object)
        stub("flux", debugged=None, util=util, job=job)
        stub("flux.job._utils", BatchConfig=dict, list_split=lambda x: x)
        stub("flux.job.directives", DirectiveParser=object)
        stub("flux.idset", IDset=object)
        stub("flux.progress", ProgressBar=object)
        cli = stub("flux.cli")
        stub("flux.cli.plugin", CLIPluginRegistry=Plugins)
        load("flux.cli.argparse", root / "cli" / "argparse.py")
        cli.base = load("flux.cli.base", root / "cli" / "base.py")  # type: ignore[attr-defined]
        batch = load("flux.cli.batch", root / "cli" / "batch.py")
        with contextlib.redirect_stderr(io.StringIO()):
            return batch.BatchCmd("flux batch").parser
    finally:
        for name in [k for k in sys.modules if k == "flux" or k.startswith("flux.")]:
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture(scope="session")
def flux_job_utils() -> Any:
    """flux-core's own submission helpers (`flux/job/_utils.py` of the pinned flux-python wheel,
    loaded by path): `get_filtered_environment` (`--env` rules), `parse_jobspec_keyval`
    (`--setopt`/`--setattr`), `dependency_array_create` (`--dependency` URIs). The modules it
    imports that need the Flux C library are stubs (`flux.core.inner`; the PLY constraint
    parser, which is not installed, is a bare class); the functions above are flux-core's code.
    Its `os` is a shim whose `environ` is empty, so no variable of ours can change a result."""
    import importlib.util
    import sysconfig
    import types

    root = Path(sysconfig.get_paths()["purelib"]) / "flux"
    if not (root / "job" / "_utils.py").is_file():
        pytest.fail("flux-python is not installed: `pip install -e '.[test]'`")
    saved = {k: v for k, v in sys.modules.items() if k == "flux" or k.startswith("flux.")}

    def stub(name: str, **attrs: Any) -> types.ModuleType:
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        module.__path__ = []
        sys.modules[name] = module
        return module

    def load(name: str, path: Path) -> Any:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    try:
        flux = stub("flux")
        stub("flux.core")
        stub("flux.core.inner", ffi=None, raw=None)
        stub("flux.utils").__path__ = [str(root / "utils")]
        flux.util = load("flux.util", root / "util.py")  # type: ignore[attr-defined]
        stub("flux.constraint")
        stub("flux.constraint.parser", ConstraintParser=object)
        utils = load("flux.job._utils", root / "job" / "_utils.py")
        utils.os = types.SimpleNamespace(environ={}, path=os.path)
        return utils
    finally:
        for name in [k for k in sys.modules if k == "flux" or k.startswith("flux.")]:
            del sys.modules[name]
        sys.modules.update(saved)
