"""Lowering for ``htcondor``: submit statements -> SPLAT IR, with a source map.

The job is the first ``queue`` statement's cluster: the commands in effect there, with their
macros resolved as condor_submit binds them (late: the last definition before the ``queue``).
Resources are per job (one slot; pitfalls 1, 20): ``request_cpus`` is ``cpusPerTask``,
``request_memory`` (MiB without a unit) ``memoryPerTask``, ``request_disk`` (KiB without a unit)
``diskPerTask``, ``request_gpus`` ``gpu.count``; units ``K M G T`` are binary and the value is
rounded up to the base unit (metric_units.cpp). ``queue N`` is an array ``0..N-1``
(``$(Process)`` is 0-based, pitfall 24); an item list is an array over its jobs, the items kept
in ``extensions.htcondor.queue``. ``allowed_job_duration`` is the walltime (pitfall 17);
``getenv`` is off unless set (pitfall 35). ClassAd-valued commands are checked with the ClassAd
grammar and kept verbatim in ``extensions.htcondor``; every other command is kept there as
written. Later ``queue`` statements are clusters of their own (``extensions.htcondor.clusters``).

Siblings: ``frontends/htcondor.py``, ``backends/htcondor.py``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import math
import re
import shlex
from typing import Any, Final

import msgspec

from bammmc.diagnostics.model import Reporter, Span
from bammmc.diagnostics.suggest import did_you_mean
from bammmc.facts.htcondor import DISCARDED, ENV_PROGRAM, path_command
from bammmc.frontends.htcondor import (
    AUTOMATIC,
    EXPRESSION_COMMANDS,
    EXPRESSION_FIELDS,
    MacroError,
    Macros,
    Queue,
    SubmitFile,
    has_macros,
    macro_refused,
)
from bammmc.frontends.slurm import Occurrence
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.priority import DEFAULT_BAND, PriorityBand, from_native
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import (
    Count,
    Cpu,
    DateTime,
    IndexSpec,
    Size,
    Template,
    ValueSyntaxError,
    decimal_number,
)
from bammmc.passes.lower.common import Invalid, duration, refuse, whole
from bammmc.passes.lower.slurm import _Builder, _keep_values

#: size commands -> their unit when no unit is written (htcondor.md §3.3)
SIZE_BASE: Final = {"request_memory": 1024**2, "request_disk": 1024, "gpus_minimum_memory": 1024**2}
SIZE_UNITS: Final = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
_QUANTITY: Final = re.compile(r"\s*([0-9]+(?:\.[0-9]{0,3})?|\.[0-9]{1,3})\s*([kKmMgGtT]?)[bB]?\s*")
#: names condor_submit also accepts for a command: its SUBMIT_KEY_…Alt names and, for the
#: policy expressions, the job attribute it sets (submit_utils.h / submit_utils.cpp, checked)
ALIASES: Final = {
    "periodicrelease": "periodic_release",
    "periodichold": "periodic_hold",
    "periodicremove": "periodic_remove",
    "periodicvacate": "periodic_vacate",
    "onexitremove": "on_exit_remove",
    "onexithold": "on_exit_hold",
    "prio": "priority",
    "env": "environment",
    "stdin": "input",
    "stdout": "output",
    "stderr": "error",
    "initial_dir": "initialdir",
    "job_iwd": "initialdir",
    "get_env": "getenv",
    "transferinputfiles": "transfer_input_files",
    "transferoutputfiles": "transfer_output_files",
    "materialize_max_idle": "max_idle",
    "useoauthservices": "use_oauth_services",
    "use_scitoken": "use_scitokens",
}
#: every submit command condor_submit knows (htcondor-jdl(1)); other names are macros
_KNOWN_WORDS: Final = """
    accounting_group accounting_group_user allowed_execute_duration allowed_job_duration
    append_files arguments azure_admin_key azure_admin_username azure_image azure_location
    azure_size batch_extra_submit_args batch_name batch_project batch_queue batch_runtime
    checkpoint_exit_code cloud_label_names concurrency_limits concurrency_limits_expr
    container_image container_is_common container_service_names container_target_dir
    copy_to_spool coresize cron_day_of_month cron_day_of_week cron_hour cron_minute
    cron_month cron_prep_time cron_window cuda_version deferral_prep_time deferral_time
    deferral_window delegate_job_gsi_credentials_lifetime description docker_image
    docker_network_type docker_override_entrypoint docker_pull_policy
    dont_encrypt_input_files dont_encrypt_output_files ec2_access_key_id ec2_ami_id
    ec2_availability_zone ec2_block_device_mapping ec2_ebs_volumes ec2_elastic_ip
    ec2_iam_profile_arn ec2_iam_profile_name ec2_instance_type ec2_keypair ec2_keypair_file
    ec2_parameter_names ec2_secret_access_key ec2_security_groups ec2_security_ids
    ec2_spot_price ec2_tag_names ec2_user_data ec2_user_data_file ec2_vpc_ip ec2_vpc_subnet
    email_attributes encrypt_execute_directory encrypt_input_files encrypt_output_files
    environment error executable erase_output_and_error_on_restart fetch_files file_remaps
    gce_account gce_auth_file gce_image gce_json_file gce_machine_type gce_metadata
    gce_metadata_file gce_preemptible getenv gpus_maximum_capability gpus_minimum_capability
    gpus_minimum_memory gpus_minimum_runtime grid_resource hold hold_kill_sig image_size
    initialdir input jar_files java_vm_args job_ad_information_attrs job_batch_name
    job_lease_duration job_machine_attrs job_machine_attrs_history_length
    job_max_vacate_time keep_claim_idle kill_sig kill_sig_timeout leave_in_queue
    load_profile local_files log log_xml machine_count manifest manifest_dir max_idle
    max_job_retirement_time max_materialize max_retries max_transfer_input_mb
    max_transfer_output_mb mount_under_scratch next_job_start_delay nice_user noop_job
    noop_job_exit_code noop_job_exit_signal notification notify_user on_exit_hold
    on_exit_hold_reason on_exit_hold_subcode on_exit_remove output output_destination
    periodic_hold periodic_hold_reason periodic_hold_subcode periodic_release
    periodic_remove periodic_vacate preserve_relative_executable priority queue rank
    remote_initialdir remove_kill_sig rendezvousdir request_cpus request_disk request_gpus
    request_memory require_cuda_version require_gpus requirements retry_request_disk
    retry_request_memory retry_request_memory_increase retry_request_memory_max retry_until
    run_as_owner scitokens_file shell should_transfer_files skip_filechecks stack_size
    starter_debug stream_error stream_input stream_output submit_event_notes
    success_exit_code transfer_checkpoint_files transfer_container transfer_error
    transfer_executable transfer_input transfer_input_files transfer_output
    transfer_output_files transfer_output_remaps transfer_plugins ulog_execute_attrs
    universe use_oauth_services use_scitokens vm_checkpoint vm_disk vm_macaddr vm_memory
    vm_networking vm_networking_type vm_no_output_vm vm_type vmware_dir
    vmware_should_transfer_files vmware_snapshot_disk want_graceful_removal want_name_tag
    when_to_transfer_output x509userproxy want_remote_io want_io_proxy buffer_size
    buffer_block_size dagman_log arc_resources arc_rte arc_application arc_data_staging
    cluster_id dag_node_name want_checkpoint gpus_minimum_memory job_lease_duration
    use_x509userproxy
"""
KNOWN: Final = frozenset(_KNOWN_WORDS.split())
#: commands whose value must be a number or a choice to become a field
_NUMERIC_WORDS: Final = """
    universe request_cpus request_memory request_disk request_gpus gpus_minimum_memory
    getenv notification priority hold max_retries success_exit_code allowed_job_duration
    max_materialize max_idle machine_count deferral_time should_transfer_files
    checkpoint_exit_code keep_claim_idle stream_output stream_error docker_pull_policy
"""
NUMERIC: Final = frozenset(_NUMERIC_WORDS.split())
UNIVERSES: Final = frozenset(
    {"vanilla", "docker", "container", "parallel", "java", "vm", "grid", "local", "scheduler"}
)
#: `notification` -> SPLAT events (htcondor.md §3.5; pitfall 39: one value)
NOTIFICATION: Final = {
    "never": [],
    "complete": ["end"],
    "error": ["fail"],
    "start": ["begin"],
}
TRANSFER_POLICY: Final = {"yes": "always", "no": "never", "if_needed": "if_needed"}
TRUE: Final = frozenset({"true", "t", "yes", "y", "1"})
FALSE: Final = frozenset({"false", "f", "no", "n", "0"})
#: `$(…)` automatic variables -> SPLAT template variables in output paths
PATH_VARIABLES: Final = {
    "cluster": "job_id",
    "clusterid": "job_id",
    "process": "array_index",
    "procid": "array_index",
}
#: automatic variables in arguments -> SPLAT's normalized environment variables (envvars.py)
ARGUMENT_VARIABLES: Final = {
    "cluster": "BAMMM_JOB_ID",
    "clusterid": "BAMMM_JOB_ID",
    "process": "BAMMM_ARRAY_INDEX",
    "procid": "BAMMM_ARRAY_INDEX",
}
_REF: Final = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.]*)\)")


def lower(
    submit: SubmitFile, reporter: Reporter, band: PriorityBand = DEFAULT_BAND
) -> tuple[Job | None, SourceMap]:
    source_map = SourceMap()
    errors_before = sum(d.is_error for d in reporter.diagnostics)
    b = _Builder(reporter, "", source_map, band=band)
    b.data = {"apiVersion": API_VERSION, "kind": "Job"}
    if not submit.queues:
        if not submit.unreadable_queues:  # an unreadable one is an error already
            reporter.report(
                "W424",
                "the submit file has no `queue` statement: condor_submit would submit no job",
                help="end the file with `queue`",
            )
        queue = Queue(None, "", commands=submit.commands)
    else:
        queue = submit.queues[0]
    indices, used = _writer_array(submit.queues)
    try:
        _cluster(queue, b, reporter, indices)
        if len(submit.queues) > max(used, 1):
            _clusters(submit.queues[max(used, 1) - 1 :], b, reporter)
    except MacroError as err:
        macro_refused(err, queue.commands, queue.span, reporter)
        return None, source_map
    if submit.verbatim:
        span = queue.span or Span(line=1, column=1, end_line=1, end_column=2)
        occ = Occurrence("verbatim", None, span, span, "verbatim")
        b.set("spec.extensions.htcondor.verbatim", submit.verbatim, occ)
    if sum(d.is_error for d in reporter.diagnostics) > errors_before:
        return None, source_map
    job = msgspec.convert(b.data, Job, dec_hook=_keep_values)
    return job, source_map


def is_command(name: str) -> bool:
    """A submit command (`request_<name>` is one for any custom resource of ≥ 2 characters
    not starting with `_`), as opposed to a macro."""
    return name in KNOWN or (
        name.startswith("request_") and len(name) > len("request_") + 1 and name[8] != "_"
    )


def canonical(name: str) -> str:
    """A command's canonical name (lower case, aliases resolved)."""
    key = name.lower()
    return ALIASES.get(key, key)


#: the writer's own helpers for an array that does not count 0, 1, 2… (backends/htcondor.py)
WRITER_HELPERS: Final = frozenset({"bammmc_array_index", "bammmc_array_step", "bammmc_array_base"})
#: how the writer spells such an array's index in a value
WRITER_INDEX: Final = ("$INT(bammmc_array_index)", "$(bammmc_array_index)")
_HELPER: Final = re.compile(r"\$\(Process\)(?:\s*\*\s*([0-9]+))?(?:\s*([+-])\s*([0-9]+))?")


def _writer_array(queues: list[Queue]) -> tuple[IndexSpec | None, int]:
    """The index set of an array bammmc's writer spelled with its helper macros: `queue N` with
    `bammmc_array_index = $(Process) * STEP + FIRST`, `queue bammmc_array_index in (…)`, or
    one `queue N` per run moving `bammmc_array_step`/`bammmc_array_base` (each run sets both
    anew); ``None`` otherwise. With it, how many statements the array takes: the later ones
    are clusters of their own (`extensions.htcondor.clusters`, written after the array)."""
    if not queues:
        return None, 0
    first = queues[0]
    if first.vars == ["bammmc_array_index"] and first.mode == "in" and first.items:
        if all(i.isdigit() for i in first.items):
            return IndexSpec.parse(",".join(first.items)), 1
        return None, 0
    helper = first.commands.get("bammmc_array_index")
    if helper is None or first.mode is not None:
        return None, 0
    runs: list[str] = []
    done = 0
    used = 0
    for queue in queues:
        if queue.mode is not None:
            break
        try:
            count = int(queue.count or "1")
        except ValueError:
            return None, 0
        value = (queue.commands["bammmc_array_index"].value or "").strip()
        if value == "$(Process) * $(bammmc_array_step) + $(bammmc_array_base)":
            try:
                step_at = queue.commands["bammmc_array_step"]
                base_at = queue.commands["bammmc_array_base"]
                step = int(step_at.value or "")
                base = int(base_at.value or "")
            except (KeyError, ValueError):
                return None, 0
            if used and all(
                at is queues[used - 1].commands.get(key)
                for key, at in (("bammmc_array_step", step_at), ("bammmc_array_base", base_at))
            ):
                break  # neither moved since the last run: a cluster of its own
        elif (match := _HELPER.fullmatch(value)) and not used:
            step = int(match.group(1) or 1)
            base = int(match.group(3) or 0) * (-1 if match.group(2) == "-" else 1)
        else:
            break
        start = base + done * step
        end = start + (count - 1) * step
        if count < 1 or start < 0:
            return None, 0
        runs.append(
            str(start) if count == 1 else f"{start}-{end}" + (f":{step}" if step != 1 else "")
        )
        done += count
        used += 1
        if _HELPER.fullmatch(value):
            break  # one statement: `queue N` over the helper
    if not runs:
        return None, 0
    return IndexSpec.parse(",".join(runs)), used


#: commands whose value becomes portable text (the writer spells a `$` of such text
#: `$(DOLLAR)`, unless the command is in `kept_macros`)
PORTABLE_TEXT: Final = frozenset(
    {
        *("executable", "arguments", "environment", "initialdir", "input", "output", "error"),
        *("batch_name", "notify_user", "accounting_group", "shell", "transfer_input_files"),
        *("transfer_output_files", "transfer_checkpoint_files", "transfer_output_remaps"),
        *("docker_image", "container_image"),
    }
)


def _cluster(queue: Queue, b: _Builder, reporter: Reporter, indices: IndexSpec | None) -> None:
    table = queue.commands
    item_vars = frozenset(v.lower() for v in queue.vars)
    if indices is not None:  # the writer's helpers: the index stays a reference
        table = {k: v for k, v in table.items() if k not in WRITER_HELPERS}
        item_vars |= {"bammmc_array_index"}
    index = WRITER_INDEX if indices is not None else ()
    macros = Macros(table, item_vars)
    # a value kept as submit text spells a literal `$` as the file did: `error = $(DOLLAR)(y)`
    # is the file `$(y)`, which `error = $(y)` is not (the same budget bounds both)
    submit_text = (
        Macros(table, item_vars, budget=macros.budget, keep_dollar=True)
        if any("dollar" in (occ.value or "").lower() for occ in table.values())
        else macros
    )
    needs: set[str] = set()
    used = _referenced(table)
    commands: dict[str, str] = {}
    macros_kept: dict[str, str] = {}
    attributes: dict[str, str] = {}
    #: the commands whose portable field keeps a reference as written (`kept_macros`)
    kept: set[str] = set()
    first: Occurrence | None = None
    for key, occ in table.items():
        if key.startswith("my."):
            value = macros.value(occ)
            needs |= value.needs
            _unknown(value.unknown, occ, reporter, item_vars)
            _expression(value.text, occ, reporter, occ.written)
            if key == "my.projectname":
                b.set("spec.schedule.project", _unquote(value.text), occ)
                if value.unknown:
                    kept.add("+projectname")
            else:
                attributes[occ.written.replace(" ", "")] = submit_text.value(occ).text
            continue
        name = canonical(key)
        primary = table.get(name)
        if name != key and primary is not None:
            # condor_submit looks the command up by its own name first, then by the alias
            reporter.report(
                "W407",
                f"`{occ.written}` and `{primary.written}` set the same command; "
                f"condor_submit uses `{primary.written}`",
                occ.span,
                help=f"remove `{occ.written}`",
            )
            continue
        if not is_command(name):
            if key not in used and key not in AUTOMATIC:
                suggestion = did_you_mean(name, sorted(KNOWN))
                if suggestion:
                    reporter.report(
                        "W425",
                        f"`{occ.written}` is not a submit command; condor_submit keeps it as a "
                        "macro that nothing uses",
                        occ.span,
                        help=suggestion,
                    )
                macros_kept[occ.written] = occ.value or ""
                first = first or occ
            continue
        value = macros.value(occ)
        needs |= value.needs
        _unknown(value.unknown, occ, reporter, item_vars)
        try:
            text = submit_text.value(occ).text if name in EXPRESSION_COMMANDS else value.text
            if not _command(name, text, occ, b, queue, reporter, index):
                commands[occ.written] = submit_text.value(occ).text
                first = first or occ
            elif value.unknown and name in PORTABLE_TEXT:
                kept.add(name)
        except Invalid:
            continue
    _program_in_image(b, commands)
    if not _command_on_path(b, commands):
        _submit_relative_program(b, reporter)
    if "getenv" not in table and "getenv" not in {canonical(k) for k in table}:
        # HTCondor starts the job with an empty environment unless `getenv` says otherwise
        # (pitfall 35): say so, or a Slurm target would export everything by default
        b.data.setdefault("spec", {}).setdefault("execution", {}).setdefault(
            "environment", {}
        ).setdefault("inheritFromSubmitter", False)
    given = {canonical(k) for k in table}
    for name, stream in (("output", "stdout"), ("error", "stderr")):
        if name not in given:  # condor_submit(1): "the default value of /dev/null is used"
            b.data.setdefault("spec", {}).setdefault("output", {}).setdefault(
                stream, Template.parse(DISCARDED)
            )
    for key in sorted(needs - {k.lower() for k in macros_kept}):
        if key in table and not is_command(canonical(key)):  # its value is needed as a macro
            macros_kept[table[key].written] = macros.value(table[key]).text
            first = first or table[key]
    if queue.span is not None:
        if indices is not None:
            occ = Occurrence("queue", queue.args, queue.span, queue.span, "queue")
            b.set("spec.array.indices", indices, occ)
        else:
            with contextlib.suppress(Invalid):  # reported
                _queue(queue, b, reporter)
    if attributes:
        b.set("spec.extensions.htcondor.attributes", attributes, next(iter(table.values())))
    if kept:
        b.set("spec.extensions.htcondor.kept_macros", sorted(kept), next(iter(table.values())))
    if macros_kept and first is not None:
        b.set("spec.extensions.htcondor.macros", macros_kept, first)
    if commands and first is not None:
        b.set("spec.extensions.htcondor.commands", commands, first)
    if b.get("spec.execution") is None or not (
        b.get("spec.execution.executable") or b.get("spec.execution.shell")
    ):
        if queue.span is not None and b.get("spec.execution.container") is None:
            reporter.report(
                "E103",
                "the job has no `executable`: condor_submit refuses it",
                queue.span,
                help="add `executable = PROGRAM` before the `queue` statement",
            )


def _command_on_path(b: _Builder, commands: dict[str, str]) -> bool:
    """`executable = /usr/bin/env` with `transfer_executable = False` and the command as the
    first argument is the writer's form of a command found on the execute machine's `PATH`
    (`executable: hostname`): read it so."""
    ex = b.data.get("spec", {}).get("execution", {})
    keys = {canonical(k): k for k in commands}
    flag = keys.get("transfer_executable")
    if (
        flag is None
        or commands[flag].strip().lower() not in FALSE
        or ex.get("executable") != ENV_PROGRAM
        or ex.get("container", {}).get("image")
    ):
        return False
    stream = io.StringIO(ex.get("arguments") or "")
    lexer = shlex.shlex(stream, posix=True)
    lexer.whitespace_split, lexer.commenters = True, ""
    try:
        word = lexer.get_token()
        rest = stream.read().strip()
    except ValueError:
        return False
    if word is None or not path_command(word):
        return False
    ex["executable"] = word
    if rest:
        ex["arguments"] = rest
    else:
        ex.pop("arguments", None)
    del commands[flag]
    return True


def _submit_relative_program(b: _Builder, reporter: Reporter) -> None:
    """`executable = run.sh` names a file in the submit directory, not a command to look up on
    `PATH` (htcondor.md §3: relative to the submit directory, *not* to `initialdir`; condor_submit
    refuses a name that is no file there). The job model's executable is run from the job's
    working directory the way a shell runs a command word, so it is read as `./run.sh`, and
    against a relative `initialdir` as the path from there back to the submit directory."""
    program = b.get("spec.execution.executable")
    initialdir = b.get("spec.execution.workingDir")
    if not isinstance(program, str) or not program or program.startswith(("/", "~", "$")):
        return
    path = program if "/" in program else f"./{program}"
    if isinstance(initialdir, str) and initialdir.strip():
        parts = [part for part in initialdir.strip().split("/") if part not in ("", ".")]
        if initialdir.startswith(("/", "~")) or "$" in initialdir or ".." in parts:
            where = "spec.execution.executable"
            span = b.source_map.value(f"{b.prefix}.{where}" if b.prefix else where)
            reporter.report(
                "W301",
                f"`executable = {program}` is relative to the submit directory, but the job "
                f"runs in `initialdir = {initialdir.strip()}`: the converted job looks for "
                f"`{path}` there",
                span,
                help="write the executable's full path",
            )
        elif parts:
            path = "../" * len(parts) + program.removeprefix("./")
    b.data["spec"]["execution"]["executable"] = path


def _program_in_image(b: _Builder, commands: dict[str, str]) -> None:
    """`executable` with `transfer_executable = False` beside a container image is a program
    inside the image (the writer's form of `container.command` and `args`): read it so."""
    ex = b.data.get("spec", {}).get("execution", {})
    container = ex.get("container", {})
    keys = {canonical(k): k for k in commands}
    flag = keys.get("transfer_executable")
    if (
        flag is None
        or commands[flag].strip().lower() not in FALSE
        or not container.get("image")
        or not ex.get("executable")
        or "command" in container
    ):
        return
    try:
        args = shlex.split(ex.get("arguments") or "")
    except ValueError:
        return
    container["command"] = [ex.pop("executable")]
    ex.pop("arguments", None)
    if args:
        container["args"] = args
    del commands[flag]


def _clusters(queues: list[Queue], b: _Builder, reporter: Reporter) -> None:
    """Later `queue` statements: each a cluster of its own, kept with the commands whose
    (resolved) value changed since the previous one."""
    clusters: list[dict[str, Any]] = []
    before = _resolved(queues[0])
    for queue in queues[1:]:
        now = _resolved(queue)
        changed = {
            now[key][0]: now[key][1]
            for key in now
            if key not in before or before[key][1] != now[key][1]
        }
        cluster: dict[str, Any] = {"queue": queue.args.strip()}
        if changed:
            cluster["commands"] = changed
        clusters.append(cluster)
        before = now
    span = queues[1].span
    assert span is not None  # only the implicit end of a file has no span
    occ = Occurrence("queue", queues[1].args, span, span, "queue")
    b.set("spec.extensions.htcondor.clusters", clusters, occ)


def _resolved(queue: Queue) -> dict[str, tuple[str, str]]:
    """The commands and attributes at a queue statement: key -> (name as written, value with
    the file's macros resolved)."""
    macros = Macros(queue.commands, frozenset(v.lower() for v in queue.vars))
    used = _referenced(queue.commands)
    return {
        key: (occ.written, macros.value(occ).text)
        for key, occ in queue.commands.items()
        if key.startswith("my.") or is_command(canonical(key)) or key not in used
    }


def _referenced(table: dict[str, Occurrence]) -> set[str]:
    """Names some statement refers to with `$(name)` (lower case)."""
    used: set[str] = set()
    for occ in table.values():
        for match in _REF.finditer(occ.value or ""):
            used.add(match.group(1).lower())
        for match in re.finditer(
            r"\$(?:INT|REAL|STRING|EVAL|SUBSTR|CHOICE)\(\s*([\w.]+)", occ.value or ""
        ):
            used.add(match.group(1).lower())
    return used


def _unknown(
    names: set[str], occ: Occurrence, reporter: Reporter, item_vars: frozenset[str]
) -> None:
    """W423 for references the file alone does not decide (automatic ones are expected)."""
    odd = sorted(
        n
        for n in names
        if n.lower() not in AUTOMATIC and n.lower() not in item_vars and n != "$$(…)"
    )
    if odd:
        shown = ", ".join(f"`$({n})`" if not n.startswith("$") else f"`{n}`" for n in odd)
        reporter.report(
            "W423",
            f"{shown} in `{occ.written}` is only known when the job is submitted; "
            "it is kept as written",
            occ.value_span or occ.span,
            notes=(
                "condor_submit takes such names from its configuration, its command line, "
                "DAGMan VARS or the environment",
            ),
            help="define it in the file (`name = value`) if the converted job needs its value",
        )


def _expression(text: str, occ: Occurrence, reporter: Reporter, what: str) -> None:
    from bammmc.frontends import classad

    if has_macros(text):
        return  # complete only when the job is submitted: condor_submit checks it then
    classad.check(text, reporter, occ.value_span or occ.span, what=what, old=True)


def strip_quotes(text: str) -> str:
    """A value condor_submit reads with `trim_and_strip_quotes_in_place` (`batch_name`,
    `transfer_output_remaps`, submit_utils.cpp `f_strip_quotes`): blanks trimmed, then one
    `"` taken off each end when it starts and ends with one (a lone `"` is empty); no escapes.

    >>> strip_quotes(' "a b" '), strip_quotes('"a'), strip_quotes('""x""'), strip_quotes('"')
    ('a b', '"a', '"x"', '')
    """
    text = text.strip()
    return text[1:-1] if text[:1] == '"' and text[-1:] == '"' else text


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('\\"', '"')
    return text


def _bool(text: str, occ: Occurrence, reporter: Reporter) -> bool:
    word = text.strip().lower()
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    reporter.report(
        "E134",
        f"`{occ.written}` takes True or False, not `{text}`",
        occ.value_span or occ.span,
        help="write `True` or `False`",
    )
    raise Invalid


def _int(text: str, occ: Occurrence, reporter: Reporter, minimum: int | None = None) -> int:
    try:
        number = whole(text.strip(), occ, reporter)  # E134 for one no scheduler holds
    except ValueError:
        reporter.report(
            "E134",
            f"`{occ.written}` takes a whole number, not `{text}`",
            occ.value_span or occ.span,
            help="write a whole number",
        )
        raise Invalid from None
    if minimum is not None and number < minimum:
        reporter.report(
            "E134",
            f"`{occ.written}` must be at least {minimum}, not {number}",
            occ.value_span or occ.span,
            help=f"write a number ≥ {minimum}",
        )
        raise Invalid
    return number


def quantity(text: str, base: int) -> int | None:
    """Bytes of a submit quantity (`4G`, `2.5 GB`, `1024`: base units), rounded up to whole base
    units as condor_submit does; ``None`` if it is not a plain quantity (an expression);
    ``ValueSyntaxError`` (E134) for a number larger than any scheduler holds.

    >>> quantity("1 GB", 1024**2) == 1024**3, quantity("1000", 1024) == 1024000
    (True, True)
    >>> quantity("1.5k", 1024**2) == 1024**2, quantity("max({1,2})", 1024) is None
    (True, True)
    """
    match = _QUANTITY.fullmatch(text)
    if not match:
        return None
    number = decimal_number(match.group(1))
    unit = SIZE_UNITS[match.group(2).lower()] if match.group(2) else base
    return math.ceil(number * unit / base) * base


def _command(
    name: str,
    value: str,
    occ: Occurrence,
    b: _Builder,
    queue: Queue,
    reporter: Reporter,
    index: tuple[str, ...] = (),
) -> bool:
    """Lower one command; False when it has no field (it is kept in `commands`)."""
    if name in EXPRESSION_COMMANDS:
        _expression(value, occ, reporter, occ.written)
        if name in EXPRESSION_FIELDS:
            b.set(f"spec.extensions.htcondor.{name}", value, occ)
            return True
        if name == "periodic_hold_subcode" and re.fullmatch(r"\s*-?[0-9]+\s*", value):
            digits = value.strip()
            sign = -1 if digits.startswith("-") else 1
            subcode = whole(digits.lstrip("-"), occ, reporter)  # E134 past what HTCondor holds
            b.set("spec.extensions.htcondor.periodic_hold_subcode", sign * subcode, occ)
            return True
        return False
    if "$(" in value and name in NUMERIC:
        return False  # a number only known at submit time: kept as written
    if name == "executable":
        b.set("spec.execution.executable", value, occ)
    elif name == "arguments":
        b.set("spec.execution.arguments", shell_arguments(parse_arguments(value), index), occ)
    elif name == "shell":
        b.set("spec.execution.shell", value, occ)
    elif name == "universe":
        universe = value.strip().lower()
        if universe == "standard":
            universe = "vanilla"
        if universe not in UNIVERSES:
            reporter.report(
                "E134",
                f"`universe = {value}` is not an HTCondor universe",
                occ.value_span or occ.span,
                help="one of: " + ", ".join(sorted(UNIVERSES)),
            )
            raise Invalid
        b.set("spec.extensions.htcondor.universe", universe, occ)
    elif name == "request_cpus":
        text = value.strip()
        if not re.fullmatch(r"[0-9]+", text):
            return False
        b.set("spec.resources.cpusPerTask", Cpu.parse(_int(text, occ, reporter, 1)), occ)
    elif name in ("request_memory", "request_disk", "gpus_minimum_memory"):
        try:
            amount = quantity(value, SIZE_BASE[name])
        except ValueSyntaxError as exc:
            raise refuse(reporter, occ, exc) from None
        if amount is None:
            return False  # a ClassAd expression
        path = {
            "request_memory": "spec.resources.memoryPerTask",
            "request_disk": "spec.resources.diskPerTask",
            "gpus_minimum_memory": "spec.resources.gpu.memory",
        }[name]
        b.set(path, Size.from_bytes(amount), occ)
    elif name in ("retry_request_memory", "retry_request_disk"):
        base = SIZE_BASE["request_memory" if name == "retry_request_memory" else "request_disk"]
        amounts = [quantity(part, base) for part in value.split(",")]
        if not amounts or None in amounts:
            return False  # an expression
        sizes = [Size.from_bytes(a) for a in amounts if a is not None]
        b.set(f"spec.extensions.htcondor.{name}", sizes, occ)
    elif name in ("encrypt_input_files", "encrypt_output_files"):
        files = [f for f in (w.strip() for w in value.split(",")) if f]
        if not files:
            return False
        b.set(f"spec.extensions.htcondor.{name}", files, occ)
    elif name == "request_gpus":
        text = value.strip()
        if not re.fullmatch(r"[0-9]+", text):
            return False
        count = _int(text, occ, reporter, 0)
        if count:
            b.set("spec.resources.gpu.count", Count.parse(count), occ)
    elif name.startswith("request_") and len(name) > len("request_") + 1 and "$(" not in value:
        suggestion = did_you_mean(
            name, [f"request_{r}" for r in ("cpus", "memory", "disk", "gpus")]
        )
        if suggestion:
            reporter.report(
                "W425",
                f"`{occ.written}` asks for a custom machine resource `{name[8:]}`, which no "
                "machine is likely to have",
                occ.span,
                notes=("condor_submit takes any `request_<name>` as a custom resource request",),
                help=suggestion,
            )
        text = value.strip()
        if not re.fullmatch(r"[0-9]+", text):
            return False
        resources = b.get("spec.resources.genericResources") or {}
        resources[name[len("request_") :]] = Count.parse(whole(text, occ, reporter))
        b.set("spec.resources.genericResources", resources, occ)
    elif name in ("output", "error"):
        other = queue.commands.get("error" if name == "output" else "output")
        for spelling in index:  # the writer's index of an array not counting from 0
            value = value.replace(spelling, "$(Process)")
        array = queue.span is not None and (_jobs(queue) > 1 or bool(index))
        return _path(name, value, occ, b, other, array)
    elif name == "input":
        b.set("spec.execution.stdin", value, occ)
    elif name == "log":
        b.set("spec.extensions.htcondor.log", value, occ)
    elif name == "initialdir":
        b.set("spec.execution.workingDir", value, occ)
    elif name == "environment":
        _environment(value, occ, b, reporter)
    elif name == "getenv":
        word = value.strip().lower()
        if word in TRUE or word in FALSE:
            b.set("spec.execution.environment.inheritFromSubmitter", word in TRUE, occ)
        else:
            b.set("spec.extensions.htcondor.getenv", value, occ)
    elif name == "notification":
        word = value.strip().lower()
        if word in NOTIFICATION:
            if NOTIFICATION[word]:
                b.set("spec.notifications.events", NOTIFICATION[word], occ)
            else:
                b.set("spec.notifications.events", [], occ)
        elif word == "always":
            b.set("spec.extensions.htcondor.notification", value.strip(), occ)
            b.set("spec.notifications.events", ["begin", "end", "fail", "requeue"], occ)
        else:
            reporter.report(
                "E134",
                f"`notification = {value}` is not Always, Complete, Error, Start or Never",
                occ.value_span or occ.span,
                help="write one of Always, Complete, Error, Start, Never",
            )
            raise Invalid
    elif name == "notify_user":
        b.set("spec.notifications.email", value.strip(), occ)
    elif name == "priority":
        native = _int(value, occ, reporter)
        if not -1000 <= native <= 1000:
            return False  # any integer orders the user's jobs; beyond the band: kept as written
        b.set("spec.schedule.priority", from_native(native, "htcondor", b.band), occ)
    elif name == "hold":
        b.set("spec.schedule.hold", _bool(value, occ, reporter), occ)
    elif name == "max_retries":
        b.set("spec.lifecycle.maxRetries", _int(value, occ, reporter, 0), occ)
    elif name == "success_exit_code":
        code = _int(value, occ, reporter)
        if not 0 <= code <= 255:
            return False
        b.set("spec.lifecycle.successExitCodes", [code], occ)
    elif name == "allowed_job_duration":
        text = value.strip()
        if not re.fullmatch(r"[0-9]+", text):
            return False
        b.set("spec.schedule.walltime", duration(whole(text, occ, reporter), occ, reporter), occ)
    elif name == "concurrency_limits":
        limits = [w for w in re.split(r"[\s,]+", value) if w]
        b.set("spec.extensions.htcondor.concurrency_limits", limits, occ)
    elif name == "accounting_group":
        b.set("spec.schedule.account", value.strip(), occ)
    elif name == "batch_name":
        b.set("metadata.name", strip_quotes(value), occ)
    elif name in ("docker_image", "container_image"):
        image = value.strip()
        if name == "container_image" and image.startswith("docker://"):
            image = image[len("docker://") :]  # an image of a registry, as SPLAT names it
        b.set("spec.execution.container.image", image, occ)
        said = queue.commands.get("universe")
        implied = (
            "docker_image"
            if said is not None and (said.value or "").strip().lower() == "docker"
            else "container_image"
        )
        if name != implied:
            b.set("spec.extensions.htcondor.image_command", name, occ)
    elif name == "docker_pull_policy" and value.strip().lower() == "always":
        b.set("spec.execution.container.imagePullPolicy", "Always", occ)
    elif name in ("max_materialize", "max_idle"):
        text = value.strip()
        if not re.fullmatch(r"[0-9]+", text) or whole(text, occ, reporter) < 1:
            return False
        if name == "max_materialize" and queue.span is not None and _jobs(queue) > 1:
            b.set("spec.array.maxConcurrent", int(text), occ)
        else:
            b.set(f"spec.extensions.htcondor.{name}", int(text), occ)
    elif name == "machine_count":
        count = _int(value, occ, reporter, 1)
        b.set("spec.resources.nodes", count, occ)
        b.set("spec.resources.tasksPerNode", 1, occ)
    elif name == "deferral_time":
        text = value.strip()
        if not re.fullmatch(r"[0-9]+", text):
            return False
        try:
            when = dt.datetime.fromtimestamp(int(text), dt.UTC)
        except (OverflowError, OSError, ValueError):
            reporter.report(
                "E134",
                f"`deferral_time = {text}` is not a time: seconds since 1970 up to year 9999",
                occ.value_span or occ.span,
                help="write the Unix time of the start, e.g. `$(date +%s -d 'tomorrow 8:00')`",
            )
            raise Invalid from None
        b.set("spec.schedule.beginAfter", DateTime.parse(when.strftime("%Y-%m-%dT%H:%M:%SZ")), occ)
    elif name == "should_transfer_files":
        policy = TRANSFER_POLICY.get(value.strip().lower())
        if policy is None:
            return False
        b.set("spec.fileStaging.transferPolicy", policy, occ)
    elif name == "transfer_input_files":
        files = [f for f in (w.strip() for w in value.split(",")) if f]
        from bammmc.backends.htcondor import sandbox_name  # the writer's module: import late

        staged = [{"src": f, "dst": sandbox_name(f)} for f in files]
        b.set("spec.fileStaging.inputs", staged, occ)
    elif name == "transfer_output_files":
        files = [f for f in (w.strip() for w in value.split(",")) if f]
        if not files:
            return False
        remaps = _remaps(queue, reporter)
        staged = [{"src": f, "dst": remaps.get(f, f)} for f in files]
        b.set("spec.fileStaging.outputs", staged, occ)
    elif name == "transfer_output_remaps":
        remaps = _remaps(queue, reporter)
        # the remaps of `transfer_output_files` are their destinations (`fileStaging.outputs`)
        outputs = queue.commands.get("transfer_output_files")
        listed = {f.strip() for f in (outputs.value or "").split(",")} if outputs else set()
        rest = {k: v for k, v in remaps.items() if k not in listed}
        if rest:
            b.set("spec.extensions.htcondor.transfer_output_remaps", rest, occ)
    elif name == "transfer_checkpoint_files":
        files = [f for f in (w.strip() for w in value.split(",")) if f]
        b.set("spec.fileStaging.checkpointFiles", files, occ)
    elif name == "checkpoint_exit_code":
        b.set("spec.extensions.htcondor.checkpointExitCode", _int(value, occ, reporter), occ)
    elif name == "keep_claim_idle":
        b.set("spec.extensions.htcondor.keep_claim_idle", _int(value, occ, reporter, 0), occ)
    elif name in ("stream_output", "stream_error"):
        b.set(f"spec.extensions.htcondor.{name}", _bool(value, occ, reporter), occ)
    elif name == "output_destination":
        b.set("spec.extensions.htcondor.output_destination", value.strip(), occ)
    elif name == "grid_resource":
        b.set("spec.extensions.htcondor.grid_resource", value.strip(), occ)
    else:
        return False
    return True


def _remaps(queue: Queue, reporter: Reporter) -> dict[str, str]:
    occ = queue.commands.get("transfer_output_remaps")
    if occ is None:
        return {}
    text = strip_quotes(Macros(queue.commands).value(occ).text)
    remaps: dict[str, str] = {}
    for entry in re.split(r"(?<!\\);", text):
        if not entry.strip():
            continue
        parts = re.split(r"(?<!\\)=", entry, maxsplit=1)
        if len(parts) != 2:
            reporter.report(
                "E134",
                f"`transfer_output_remaps` entry `{entry.strip()}` has no `=`",
                occ.value_span or occ.span,
                help='write `"name = newname; name2 = newname2"`',
            )
            raise Invalid
        src, dst = (p.strip().replace("\\=", "=").replace("\\;", ";") for p in parts)
        remaps[src] = dst
    return remaps


def _path(
    name: str, value: str, occ: Occurrence, b: _Builder, other: Occurrence | None, array: bool
) -> bool:
    """`output`/`error` with `$(Cluster)`/`$(Process)` as SPLAT template variables; False when
    the path holds other references (it is kept as written). The jobs of one `queue N` share
    their cluster id, so in an array `$(Cluster)` is the array's id (`{array_job_id}`)."""
    refs = {m.group(1).lower() for m in _REF.finditer(value)}
    if refs - set(PATH_VARIABLES) or "$$(" in value:  # `$$(attr)`: the machine's, at run time
        return False

    def variable(match: re.Match[str]) -> str:
        var = PATH_VARIABLES[match.group(1).lower()]
        return "{" + ("array_job_id" if array and var == "job_id" else var) + "}"

    # a brace of the file name is the template's literal `{{`/`}}` (was kept as written only:
    # found by tests/property/test_separators.py)
    parts, at = [], 0
    for match in _REF.finditer(value):
        parts += [value[at : match.start()].replace("{", "{{").replace("}", "}}"), variable(match)]
        at = match.end()
    template = "".join(parts) + value[at:].replace("{", "{{").replace("}", "}}")
    field = "stdout" if name == "output" else "stderr"
    b.set(f"spec.output.{field}", Template.parse(template), occ)
    # the same file: as written (the writer's array index is rewritten in `value` alone)
    written = (other.value or "").strip() if other is not None else None
    same = written is not None and written in (value.strip(), (occ.value or "").strip())
    if same and name == "error":
        b.set("spec.output.mergeStderr", True, occ)
    return True


def _environment(value: str, occ: Occurrence, b: _Builder, reporter: Reporter) -> None:
    """Both syntaxes (htcondor.md §3.1): `"A=1 B='x y'"` (new) or `A=1;B=2` (old)."""
    text = value.strip()
    env: dict[str, str] = {}
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        for word in _new_words(text[1:-1], occ, reporter):
            name, eq, val = word.partition("=")
            if not eq or not name:
                reporter.report(
                    "E134",
                    f"`environment` entry `{word}` is not NAME=value",
                    occ.value_span or occ.span,
                    help="write `\"NAME=value NAME2='value with spaces'\"`",
                )
                raise Invalid
            env[name] = val
    else:
        for entry in text.split(";"):
            if not entry.strip():
                continue
            name, eq, val = entry.partition("=")
            if not eq:
                reporter.report(
                    "E134",
                    f"`environment` entry `{entry.strip()}` is not NAME=value",
                    occ.value_span or occ.span,
                    help="write `NAME=value;NAME2=value2`",
                )
                raise Invalid
            env[name.strip()] = val
    b.set("spec.execution.environment.vars", env, occ)


def parse_arguments(value: str) -> list[str]:
    """condor_submit's two `arguments` syntaxes (htcondor.md §3.1).

    >>> parse_arguments('"one \\'two with spaces\\' 3"')
    ['one', 'two with spaces', '3']
    >>> parse_arguments('"one ""two"" \\'spacey \\'\\'quoted\\'\\' argument\\'"')
    ['one', '"two"', "spacey 'quoted' argument"]
    >>> parse_arguments('-a \\\\"b c')
    ['-a', '"b', 'c']
    """
    text = value.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        return _new_words(text[1:-1], None, None)
    return [w.replace('\\"', '"') for w in text.split()]


def _new_words(text: str, occ: Occurrence | None, reporter: Reporter | None) -> list[str]:
    """Words of the new syntax: blanks separate, `'…'` protects (`''` inside is `'`), `""` is
    `"` everywhere."""
    words: list[str] = []
    current: list[str] = []
    has = False
    i = 0
    quoted = False
    while i < len(text):
        c = text[i]
        if c == '"' and text[i + 1 : i + 2] == '"':  # `""` is `"`, inside quotes too
            current.append('"')
            has = True
            i += 2
            continue
        if quoted:
            if c == "'" and text[i + 1 : i + 2] == "'":
                current.append("'")
                i += 2
                continue
            if c == "'":
                quoted = False
            else:
                current.append(c)
        elif c == "'":
            quoted, has = True, True
        elif c in " \t":
            if current or has:
                words.append("".join(current))
            current, has = [], False
        else:
            current.append(c)
            has = True
        i += 1
    if current or has:
        words.append("".join(current))
    return words


def shell_arguments(args: list[str], index: tuple[str, ...] = ()) -> str:
    """The arguments as one shell word list; `$(Process)`/`$(Cluster)` become SPLAT's
    normalized variables (`${BAMMM_ARRAY_INDEX}`, `${BAMMM_JOB_ID}`), everything else literal.
    ``index`` are other spellings of the array index (the writer's helper macro).

    >>> shell_arguments(["--index=$(Process)", "a b", "x"])
    '--index="${BAMMM_ARRAY_INDEX}" \\'a b\\' x'
    """
    import shlex

    words = []
    for arg in args:
        for spelling in index:
            arg = arg.replace(spelling, "$(Process)")
        pieces = re.split(r"(\$\((?:Cluster|ClusterId|Process|ProcId)\))", arg, flags=re.I)
        out = []
        for piece in pieces:
            match = re.fullmatch(r"\$\(([A-Za-z]+)\)", piece)
            if match and match.group(1).lower() in ARGUMENT_VARIABLES:
                out.append('"${' + ARGUMENT_VARIABLES[match.group(1).lower()] + '}"')
            elif piece:
                out.append(shlex.quote(piece))
        words.append("".join(out) if out else "''")
    return " ".join(words)


def _jobs(queue: Queue) -> int:
    """How many jobs the queue statement makes (1 when it cannot be told)."""
    count = 1
    if queue.count is not None:
        with contextlib.suppress(ValueError):
            count = int(queue.count)
    if queue.mode is not None:
        if queue.items is None:
            return max(count, 2)  # items from a file or command: an array of unknown size
        return count * len(queue.items)
    return count


def _queue(queue: Queue, b: _Builder, reporter: Reporter) -> None:
    assert queue.span is not None  # called for real queue statements only
    occ = Occurrence("queue", queue.args, queue.span, queue.span, "queue")
    count: int | None = 1
    if queue.count is not None:
        try:
            count = int(queue.count)
        except ValueError:
            count = None
            b.set("spec.extensions.htcondor.queue.count", queue.count, occ)
        if count is not None and count < 0:
            reporter.report(
                "E020",
                f"`queue {queue.count}`: the count cannot be negative",
                queue.span,
                help="write `queue N` with N ≥ 0",
            )
            raise Invalid
        if count == 0:
            reporter.report(
                "W424",
                "`queue 0` submits no job",
                queue.span,
                help="write `queue` or `queue N` with N ≥ 1",
            )
    if queue.mode is not None:
        ext: dict[str, Any] = {"vars": queue.vars, "mode": queue.mode}
        if queue.count is not None and (queue.items is None or queue.slice):
            ext["count"] = queue.count  # no array carries it
        for key in ("items", "source", "slice", "qualifier"):
            if getattr(queue, key) is not None:
                ext[key] = getattr(queue, key)
        for key, value in ext.items():
            b.set(f"spec.extensions.htcondor.queue.{key}", value, occ)
    jobs = _jobs(queue) if count is not None else None
    if jobs is not None and jobs > 1 and (queue.mode is None or queue.items is not None):
        if queue.slice and queue.items is not None:
            return  # the slice picks items: the jobs are the items it selects (kept as written)
        try:
            indices = IndexSpec.parse(f"0-{jobs - 1}")
        except ValueSyntaxError as exc:
            reporter.report(
                "E134",
                f"`queue {queue.args.strip()}` makes {jobs:,} jobs: {exc.message}",
                queue.span,
                help="queue fewer jobs",
            )
            raise Invalid from None
        b.set("spec.array.indices", indices, occ)
