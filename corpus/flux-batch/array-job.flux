#!/bin/bash
#flux: --job-name=xgb-hparam-sweep
#flux: --bank=ds-churn
#flux: --queue=short
#flux: --time-limit=45m
#flux: --cores-per-slot=4
#flux: --cwd=/home/ds-churn/sweeps/xgb
#flux: --env=OMP_NUM_THREADS=4
# bammmc: variables of the original scheduler, defined for this one
export BAMMM_ARRAY_INDEX="${FLUX_JOB_CC}"
# bammmc: end of variables
set -euo pipefail
PARAMS=$(sed -n "$((BAMMM_ARRAY_INDEX + 1))p" params.tsv)
read -r ETA DEPTH SUBSAMPLE <<<"$PARAMS"
echo "element ${BAMMM_ARRAY_INDEX}: eta=${ETA} max_depth=${DEPTH} subsample=${SUBSAMPLE}"
python3 train_xgb.py \
  --eta "$ETA" --max-depth "$DEPTH" --subsample "$SUBSAMPLE" \
  --nthread 4 \
  --out "results/run_${BAMMM_ARRAY_INDEX}.json"
