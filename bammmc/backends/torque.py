"""The Torque writer (format ``torque``): the PBS writer with Torque's flags.

`nodes=N:ppn=M[:gpus=G][:feature]` instead of `select`, `pmem` per task, `-t` arrays (lists, no
step), `-d` working directory, `-P` is not a project. shared/docs/formats/torque.md.
"""

from __future__ import annotations

from typing import ClassVar, Final

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.pbs import PbsWriter
from bammmc.capabilities import EXACT, Capabilities, approx, exact, lost
from bammmc.diagnostics.model import Reporter
from bammmc.ir.job import Job

__all__ = ["CAPABILITIES", "TorqueWriter", "write"]

CAPABILITIES: Final = Capabilities(
    "torque",
    ("pbs", "torque"),
    {
        "apiVersion": EXACT,
        "kind": EXACT,
        "metadata.name": exact(
            "",
            (
                (
                    "`Fluent Job` written as `Fluent_Job` (printable characters without "
                    "spaces, at most 256 characters)"
                ),
                "W301",
            ),
        ),
        "metadata.labels": lost("qsub has no option for it"),
        "metadata.annotations": lost("qsub has no option for it"),
        "metadata.clientId": lost("qsub has no idempotency key for a submission"),
        "spec.schedule.queue": EXACT,
        "spec.schedule.priority": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.priority` is written instead, and it says "
                    "something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.schedule.priorityClass": lost("qsub has no option for it"),
        "spec.schedule.account": EXACT,
        "spec.schedule.project": lost("Torque's -P is a proxy user, not a project", by_writer=True),
        "spec.schedule.walltime": EXACT,
        "spec.schedule.qos": lost("qsub has no option for it"),
        "spec.schedule.partition": EXACT,
        "spec.schedule.hold": EXACT,
        "spec.schedule.reservation": EXACT,
        "spec.schedule.beginAfter": approx("written in UTC; qsub reads local time"),
        "spec.schedule.deadline": lost("qsub has no option for it"),
        "spec.schedule.walltimeMin": lost("qsub has no option for it"),
        "spec.schedule.signalBeforeEnd": lost("qsub has no option for it"),
        "spec.resources.cpusPerTask": exact(
            "",
            ("Torque has processors per node, not per task: ppn counts all of them", "W301"),
        ),
        "spec.resources.memoryPerTask": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.resources.tasks": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.resources.nodes": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.resources.tasksPerNode": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mpiprocs_per_chunk` is written instead, and "
                    "it says something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.count": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.type": exact(
            "",
            ("GPU models are site-defined custom resources in PBS", "W201"),
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.memory": lost(
            "Torque has no standard resource for GPU memory (a site may define one)"
        ),
        "spec.resources.gpu.fraction": lost(
            "Torque allocates whole GPUs (`gpus`); it cannot share one"
        ),
        "spec.resources.gpu.migProfile": lost(
            "MIG slices are site-defined custom resources in Torque"
        ),
        "spec.resources.diskPerTask": exact(
            "",
            ("scratch space is a site-defined PBS resource", "W201"),
            (
                (
                    "the raw `extensions.pbs.select` is written instead, and it says "
                    "something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.resources.genericResources": exact(
            "",
            ("Torque's `nodes=` request has GPUs (`gpus=`) but no other generic resource", "W201"),
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.resources.limits": lost("qsub has no option for it"),
        "spec.execution.container.image": exact(
            "",
            ("run through `apptainer exec docker://…`; the cluster needs Apptainer", "W301"),
        ),
        "spec.execution.container.imagePullPolicy": exact(
            "",
            (("`apptainer exec` pulls through its own image cache; it has no pull policy"), "W201"),
        ),
        "spec.execution.container.imagePullSecrets": exact(
            "",
            (
                (
                    "registry credentials are the cluster's Apptainer configuration, not "
                    "an option of the job"
                ),
                "W201",
            ),
        ),
        "spec.execution.container.command": exact(
            "",
            (("the job's script is what runs in the image, not the container's command"), "W201"),
        ),
        "spec.execution.container.args": exact(
            "",
            ("the job's script is what runs in the image, not the container's args", "W201"),
        ),
        "spec.execution.script": exact(
            "",
            ("`$BAMMM_ARRAY_INDEX` is defined from `$PBS_ARRAYID`", "N003"),
            (
                "`$SLURM_ARRAY_JOB_ID` has no equivalent here: it is empty in the converted script",
                "W301",
            ),
        ),
        "spec.execution.executable": EXACT,
        "spec.execution.arguments": EXACT,
        "spec.execution.shell": EXACT,
        "spec.execution.workingDir": EXACT,
        "spec.execution.environment.vars": EXACT,
        "spec.execution.environment.secrets": lost(
            "Kubernetes secrets and config maps do not exist on PBS", by_writer=True
        ),
        "spec.execution.environment.configMaps": exact(
            "",
            ("Kubernetes secrets and config maps do not exist on PBS", "W201"),
        ),
        "spec.execution.environment.inheritFromSubmitter": EXACT,
        "spec.execution.stdin": lost("qsub has no standard input option", by_writer=True),
        "spec.tasks": lost("qsub has no option for it"),
        "spec.gang": lost("qsub has no option for it"),
        "spec.array.indices": approx("Torque has no step: the indices are listed"),
        "spec.array.maxConcurrent": lost(
            "a throttle without indices has no array to limit", by_writer=True
        ),
        "spec.dependencies": exact(
            "",
            ("`e3sm-spinup-m07` is not a PBS job id; PBS depends on ids only", "W201"),
            (
                (
                    "the raw `extensions.pbs.dependency` is written instead, and it says "
                    "something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.lifecycle.maxRetries": lost("qsub has no option for it"),
        "spec.lifecycle.requeueOnFailure": EXACT,
        "spec.lifecycle.successExitCodes": lost("qsub has no option for it"),
        "spec.lifecycle.ttlAfterFinished": lost("qsub has no option for it"),
        "spec.placement.nodeSelector": lost("qsub has no option for it"),
        "spec.placement.tolerations": lost("qsub has no option for it"),
        "spec.placement.affinity": lost("qsub has no option for it"),
        "spec.placement.topologySpread": lost("a Kubernetes concept; qsub has no option"),
        "spec.placement.topology": lost("Torque has no `place=`", by_writer=True),
        "spec.placement.groupBy": lost("Torque has no `place=`", by_writer=True),
        "spec.placement.constraint": exact(
            "",
            ("Torque node properties go in `-l nodes=`, which this job does not request", "W201"),
            ("Torque node properties are plain words joined by `:`", "W301"),
        ),
        "spec.placement.prefer": lost("qsub has no option for it"),
        "spec.placement.exclusive": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.place` is written instead, and it says "
                    "something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.placement.nodePools": lost("qsub has no option for it"),
        "spec.output.stdout": exact(
            "",
            (
                (
                    "Torque cannot put `{job_name}`, `{array_job_id}`, `{array_index}` "
                    "in an output path; its default name (job nam"
                ),
                "W301",
            ),
        ),
        "spec.output.stderr": exact(
            "",
            (
                (
                    "Torque cannot put `{job_name}`, `{array_job_id}`, `{array_index}` "
                    "in an output path; its default name (job nam"
                ),
                "W301",
            ),
        ),
        "spec.output.mergeStderr": EXACT,
        "spec.output.openMode": lost("PBS always writes new output files", by_writer=True),
        "spec.notifications.email": EXACT,
        "spec.notifications.events": exact(
            "",
            ("PBS has no mail on `requeue`", "W201"),
            ("PBS has no mail on `requeue`; the job's other mail events are written", "W301"),
            (
                (
                    "the raw `extensions.pbs.mail_points` is written instead, and it "
                    "says something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.inputs": exact(
            "",
            ("PBS stages from `host:path` only", "W201"),
            (
                (
                    "the raw `extensions.pbs.stagein` is written instead, and it says "
                    "something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.outputs": exact(
            "",
            ("PBS stages from `host:path` only", "W201"),
            (
                (
                    "the raw `extensions.pbs.stagein` is written instead, and it says "
                    "something else for Torque"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.embeddedFiles": exact(
            "",
            ("qsub has no option for it", "W201"),
        ),
        "spec.fileStaging.transferPolicy": exact(
            "",
            ("qsub has no option for it", "W201"),
        ),
        "spec.fileStaging.checkpointFiles": exact(
            "",
            ("qsub has no option for it", "W201"),
        ),
        "spec.volumes": lost("qsub has no option for it"),
        "spec.workloadType": lost("qsub has no option for it"),
        "spec.distributedFramework": lost("qsub has no option for it"),
        "spec.extensions.pbs.place": lost("Torque has no `place=`", by_writer=True),
        "spec.extensions.pbs.stagein": EXACT,
        "spec.extensions.pbs.stageout": EXACT,
        "spec.extensions.pbs.aoe": lost(
            "Torque has no application operating environment (`aoe` is PBS Pro's)"
        ),
        "spec.extensions.pbs.checkpoint_interval": lost(
            "bammmc does not write the checkpoint interval (`-c c=MINUTES`) yet"
        ),
        "spec.extensions.pbs.mpiprocs_per_chunk": lost(
            "Torque has no `mpiprocs`: `ppn` counts processors"
        ),
        "spec.extensions.pbs.ompthreads_per_chunk": lost(
            "Torque has no threads per node", by_writer=True
        ),
        "spec.extensions.pbs.mixed_chunks": exact(
            "",
            ("the other dialect's chunks in Torque's words, with what they cannot say", "W301"),
        ),
        "spec.extensions.pbs.server": EXACT,
        "spec.extensions.pbs.select": lost(
            "`-l select=` is the other dialect's chunk request; Torque does not take it",
            by_writer=True,
        ),
        "spec.extensions.pbs.nodes": exact(
            "", ("the raw `extensions.pbs.mixed_chunks` is the chunk request written", "W201")
        ),
        "spec.extensions.pbs.cput": exact("", ("`unlimited`: the queue's limit applies", "W201")),
        "spec.extensions.pbs.pcput": exact("", ("`unlimited`: the queue's limit applies", "W201")),
        "spec.extensions.pbs.mem": exact(
            "",
            (
                (
                    "64G/node written as the whole job's 128000000000 bytes (2 × 64000000000): "
                    "Torque's `-l mem` is per job"
                ),
                "W301",
            ),
        ),
        "spec.extensions.pbs.resources": EXACT,
        "spec.extensions.pbs.join": EXACT,
        "spec.extensions.pbs.keep": EXACT,
        "spec.extensions.pbs.mail_points": EXACT,
        "spec.extensions.pbs.group_list": EXACT,
        "spec.extensions.pbs.umask": EXACT,
        "spec.extensions.pbs.sandbox": EXACT,
        "spec.extensions.pbs.priority": EXACT,
        "spec.extensions.pbs.begin": EXACT,
        "spec.extensions.pbs.dependency": EXACT,
        "spec.extensions.pbs.output": EXACT,
        "spec.extensions.pbs.error": EXACT,
        "spec.extensions.pbs.options": exact(
            "",
            (
                (
                    "`xy` is not a qsub option: the keys are option letters (`v`), or "
                    "`W:NAME` for `-W NAME=VALUE`"
                ),
                "W201",
            ),
        ),
    },
)


class TorqueWriter(PbsWriter):
    DIALECT: ClassVar[str] = "torque"
    TABLE: ClassVar[Capabilities] = CAPABILITIES
    ARRAY_OPTION: ClassVar[str] = "-t"
    HAS_WORKDIR_OPTION: ClassVar[bool] = True
    HAS_PROJECT: ClassVar[bool] = False
    NAME_LIMIT: ClassVar[int] = 256
    ARRAY_INDEX_TAG: ClassVar[str | None] = None
    NAME_RULE: ClassVar[str] = "printable characters without spaces"

    def name_char(self, c: str) -> bool:
        return c.isprintable() and not c.isspace()


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    return TorqueWriter(job, reporter or Reporter(), options or WriteOptions()).write()
