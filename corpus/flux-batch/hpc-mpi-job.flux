#!/bin/bash
#flux: --job-name=gmx-lysozyme-md
#flux: --bank=chm240017
#flux: --queue=compute
#flux: --time-limit=12h
#flux: --nodes=4
#flux: --nslots=128
#flux: --cores-per-slot=2
#flux: --cwd=/scratch/chm240017/lysozyme
#flux: --env=GMX_MAXBACKUP=-1
#flux: --output=gmx-md.{{id}}.out
#flux: --error=gmx-md.{{id}}.err
#flux: --requires=properties:ib,cpu_gen:milan
#flux: --exclusive
set -euo pipefail

module purge
module load gcc/12.3.0 openmpi/4.1.6 gromacs/2024.3

export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-2}
export OMP_PLACES=cores
export OMP_PROC_BIND=close

cd "${SCRATCH}/lysozyme"
gmx_mpi grompp -f md.mdp -c npt.gro -t npt.cpt -p topol.top -o md.tpr -maxwarn 1

if command -v srun >/dev/null 2>&1; then
  srun --cpu-bind=cores gmx_mpi mdrun -deffnm md -ntomp "$OMP_NUM_THREADS" -maxh 11.5 -cpi md.cpt
else
  mpirun -np 128 --map-by ppr:32:node:PE=2 --bind-to core \
    gmx_mpi mdrun -deffnm md -ntomp "$OMP_NUM_THREADS" -maxh 11.5 -cpi md.cpt
fi
