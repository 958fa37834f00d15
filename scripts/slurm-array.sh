#!/bin/bash
# One task of a Slurm job array running torus jobs (docs/cluster.md):
#
#   torus experiment all --plan > jobs.jsonl
#   sbatch --array=0-19 scripts/slurm-array.sh jobs.jsonl results
#   torus experiment all --collect results/*.jsonl
#
# Task I of N runs every N-th job line from the I-th and writes results/part-I.jsonl. To rerun
# only the jobs a collect names as missing, put their lines in a file of their own (the ids
# are the line numbers: sed -n '4p;9p' jobs.jsonl > missing.jsonl) and submit that.
# TORUS names the binary (default: torus on PATH).
#SBATCH --job-name=torus
#SBATCH --cpus-per-task=1
#SBATCH --output=torus-%A_%a.log
set -euo pipefail
jobs=${1:?usage: slurm-array.sh JOBS-FILE [RESULTS-DIR]}
results=${2:-results}
task=${SLURM_ARRAY_TASK_ID:?run under sbatch --array, or set SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT}
count=${SLURM_ARRAY_TASK_COUNT:?SLURM_ARRAY_TASK_COUNT is not set}
# Arrays may start at any index (--array=1-20): parts count from the first.
part=$((task - ${SLURM_ARRAY_TASK_MIN:-0}))
mkdir -p "$results"
# A job that fails writes an error line and the others go on; the exit code then tells Slurm.
"${TORUS:-torus}" run --batch --part "$part/$count" --threads "${SLURM_CPUS_PER_TASK:-1}" \
    < "$jobs" > "$results/part-$task.jsonl"
