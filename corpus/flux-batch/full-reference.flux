#!/bin/bash
#flux: --job-name=e3sm-ensemble-m07
#flux: --bank=m4321
#flux: --queue=regular
#flux: --time-limit=690m
#flux: --urgency=20
#flux: --begin-time=2025-03-02\ 20:00:00
#flux: --signal=SIGUSR1@5m
#flux: --nodes=4
#flux: --nslots=512
#flux: --cores-per-slot=4
#flux: --gpus-per-slot=1
#flux: --cwd=/pscratch/cmip7/e3sm-ensemble/m07
#flux: --env=CASE_ROOT=/pscratch/cmip7/e3sm-ensemble/m07/case
#flux: --env=OMP_NUM_THREADS=4
#flux: --env=RUN_LOG=/pscratch/cmip7/logs/{job_name}-{job_id}.log
#flux: --input=/dev/null
#flux: --dependency=afterok:4812345
#flux: --dependency=afternotok:4812346
#flux: --dependency=afterany:e3sm-spinup-m07
#flux: --dependency=afterstart:4812347
#flux: --dependency=singleton
#flux: --dependency=begin-time:1740945600.0
#flux: --requires=gpu,hbm80g
#flux: --exclusive
#flux: --dependency=fluid:e3sm-spinup-m07-restart?type=in\&scope=user
#flux: --env=-LD_PRELOAD
#flux: --setopt=cpu-affinity=per-task
#flux: --setopt=gpu-affinity=per-task
#flux: --setattr=user.campaign=cmip7-scenario-mip
#flux: --setattr=user.member=7
#flux: --requires=ssd
#flux: --setopt=mpibind=off
# bammmc: run the job script in the container image registry.example.org/e3sm/e3sm-runtime:3.0.1-cuda12
bammmc_script=$(mktemp /tmp/bammmc-script.XXXXXX) || exit 1
cat > "$bammmc_script" <<'BAMMMC_SCRIPT_END'
set -euo pipefail
module load cray-mpich/8.1.28 cray-netcdf-hdf5parallel/4.9.0.9
cd "$CASE_ROOT"
./case.submit --no-batch --resubmit-immediate
BAMMMC_SCRIPT_END
exec apptainer exec docker://registry.example.org/e3sm/e3sm-runtime:3.0.1-cuda12 bash "$bammmc_script" "$@"
