#!/bin/bash
# The recipes of docs/cluster.md, run on this machine and checked against the one-machine
# output (make test): GNU parallel, then the Slurm array script with its task variables set by
# hand, then a lost job re-run. Every collected file must equal the one-machine file, the
# wall-time lines aside.
set -euo pipefail
torus=$(realpath "${TORUS:-target/release/torus}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A small experiment: DOR and MIN AD on bit-complement, 7 loads × 2 seeds, short runs.
experiment=(experiment stability --quick --routings dor,minad)

same() {
    for file in "$dir/one"/*; do
        if ! diff <(grep -v 'Wall time' "$file") <(grep -v 'Wall time' "$dir/$1/$(basename "$file")") > "$dir/diff"; then
            echo "cluster-check: $1/$(basename "$file") differs from the one-machine file:" >&2
            head -20 "$dir/diff" >&2
            exit 1
        fi
    done
    echo "    $1: identical to the one-machine files (wall time aside)"
}

"$torus" "${experiment[@]}" --out "$dir/one" 2> /dev/null
"$torus" "${experiment[@]}" --plan > "$dir/jobs.jsonl"
echo "    $(wc -l < "$dir/jobs.jsonl") jobs planned"

# GNU parallel on one machine, as docs/cluster.md gives it.
parallel --pipe -N 1 "$torus" run --batch --threads 1 < "$dir/jobs.jsonl" > "$dir/parallel.jsonl"
"$torus" "${experiment[@]}" --out "$dir/parallel" --collect "$dir/parallel.jsonl" 2> /dev/null
same parallel

# The Slurm array script, three tasks, the array variables set by hand.
for task in 0 1 2; do
    SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=3 TORUS="$torus" scripts/slurm-array.sh "$dir/jobs.jsonl" "$dir/results"
done
"$torus" "${experiment[@]}" --out "$dir/slurm" --collect "$dir"/results/part-*.jsonl 2> /dev/null
same slurm

# A lost job: collect names it; re-running it alone completes the report.
sed '3d' "$dir/parallel.jsonl" > "$dir/lossy.jsonl"
if "$torus" "${experiment[@]}" --out "$dir/lossy" --collect "$dir/lossy.jsonl" 2> "$dir/error"; then
    echo "cluster-check: collect succeeded with a job missing" >&2
    exit 1
fi
id=$(sed -n 3p "$dir/parallel.jsonl" | sed 's/.*"id":\([0-9]*\).*/\1/')
grep -q "ids $id\b" "$dir/error" || { echo "cluster-check: the error does not name job $id: $(cat "$dir/error")" >&2; exit 1; }
sed -n "${id}p" "$dir/jobs.jsonl" | "$torus" run --batch > "$dir/rerun.jsonl"
"$torus" "${experiment[@]}" --out "$dir/rerun" --collect "$dir/lossy.jsonl" "$dir/rerun.jsonl" 2> /dev/null
same rerun
