#!/bin/bash
#flux: --job-name=bwa-align-NA12878
#flux: --bank=genomics-core
#flux: --queue=general
#flux: --time-limit=6h
#flux: --cores-per-slot=16
#flux: --cwd=/work/NA12878
#flux: --env=TMPDIR=/work/NA12878/tmp
#flux: --output=bwa-{{name}}-{{id}}.log
# bammmc: run the job script in the container image quay.io/biocontainers/bwa-mem2:2.2.1--hd03093a_5
bammmc_script=$(mktemp /tmp/bammmc-script.XXXXXX) || exit 1
cat > "$bammmc_script" <<'BAMMMC_SCRIPT_END'
set -euo pipefail
THREADS=16
REF=ref/GRCh38_full_analysis_set_plus_decoy_hla.fa
bwa-mem2 mem -t "$THREADS" \
  -R "@RG\tID:NA12878\tSM:NA12878\tPL:ILLUMINA" \
  "$REF" reads/NA12878_R1.fastq.gz reads/NA12878_R2.fastq.gz \
  > aligned/NA12878.sam
echo "alignment finished: $(wc -l < aligned/NA12878.sam) lines"
BAMMMC_SCRIPT_END
exec apptainer exec docker://quay.io/biocontainers/bwa-mem2:2.2.1--hd03093a_5 bash "$bammmc_script" "$@"
