#!/usr/bin/env bash
# Overload soak (`make soak`): every routing algorithm this build of `torus` implements, at its
# deadlock-free VC count, run for SOAK_CYCLES cycles at twice its measured saturation rate
# (capped at the injection limit of one flit per node per cycle). Each run must report
# `saturated: true` and `deadlock: false` and deliver every labelled message after injection
# stops; peak RSS and wall time come from /usr/bin/time -v. Writes a markdown table to SOAK_OUT
# and exits non-zero if any run fails.
#
# Environment:
#   SOAK_CYCLES    measurement window in cycles (default 10000000)
#   SOAK_SCENARIO  scenario without routing and rate (default below: tornado on an 8-ary 2-cube,
#                  where twice the saturation of minimal routing can be offered)
#   SOAK_SCENARIO_LARGE  used instead when twice the saturation is past the injection limit
#                  there (load-balancing routing); default the same on a 16-ary 2-cube, where
#                  no algorithm saturates above half the limit
#   SOAK_ALGORITHMS  space-separated routing names to soak (default: every one this build runs)
#   SOAK_JOBS      runs at once (default: number of CPUs)
#   SOAK_OUT       markdown output (default target/soak.md)
#   TORUS          the binary (default target/release/torus, built if missing)
set -euo pipefail

cd "$(dirname "$0")/.."
cycles="${SOAK_CYCLES:-10000000}"
base="${SOAK_SCENARIO:-k=8&n=2&traffic=tornado&len=4&buf=4&seed=7}"
large="${SOAK_SCENARIO_LARGE:-k=16&n=2&traffic=tornado&len=4&buf=4&seed=7}"
jobs="${SOAK_JOBS:-$(nproc)}"
out="${SOAK_OUT:-target/soak.md}"
torus="${TORUS:-target/release/torus}"
saturation_cycles=10000

if [[ ! -x "$torus" ]]; then
    cargo build --release --quiet
fi
[[ -x /usr/bin/time ]] || { echo "soak: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }

# A JSON number or boolean field of a one-line report.
field() { grep -o "\"$1\":[^,}]*" <<<"$2" | head -1 | cut -d: -f2; }

# The routing names the parser accepts, from its own error message, kept if this build runs them.
algorithms=()
names=$("$torus" run "routing=?" 2>&1 | sed -n 's/.*must be one of \(.*\), got.*/\1/p' | tr -d ',' || true)
for r in $names; do
    if "$torus" run "k=4&routing=$r&rate=0.001&warmup=0&cycles=1" >/dev/null 2>&1; then
        algorithms+=("$r")
    fi
done
if [[ -n "${SOAK_ALGORITHMS:-}" ]]; then
    read -r -a algorithms <<<"$SOAK_ALGORITHMS"
fi
[[ ${#algorithms[@]} -gt 0 ]] || { echo "soak: no routing algorithm found in $torus" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

soak_one() {
    local r="$1" scenario sat_json sat rate len report stats status=0
    for scenario in "$base" "$large"; do
        len=$(sed -n 's/.*len=\([0-9]*\).*/\1/p' <<<"$scenario")
        sat_json=$("$torus" saturation "$scenario&routing=$r&warmup=1000&cycles=$saturation_cycles") || status=$?
        sat=$(field saturation_rate "$sat_json")
        awk -v s="${sat:-1}" -v len="${len:-16}" 'BEGIN { exit !(2 * s <= 1 / len) }' && break
    done
    rate=$(awk -v s="${sat:-1}" -v len="${len:-16}" 'BEGIN { r = 2 * s; if (r > 1 / len) r = 1 / len; printf "%.6g", r }')
    /usr/bin/time -v -o "$work/$r.time" "$torus" run "$scenario&routing=$r&rate=$rate&warmup=0&cycles=$cycles" \
        >"$work/$r.json" || status=$?
    report=$(cat "$work/$r.json")
    stats="$work/$r.row"
    {
        echo "r=$r"
        echo "status=$status"
        echo "k=$(sed -n 's/^k=\([0-9]*\).*/\1/p' <<<"$scenario")"
        echo "sat=$sat"
        echo "rate=$rate"
        echo "rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$r.time")"
        echo "wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$r.time")"
        echo "simulated=$(field cycles "$report")"
        echo "labelled=$(field messages_labelled "$report")"
        echo "delivered=$(field messages_measured "$report")"
        echo "accepted=$(field accepted_flits_per_node_cycle "$report")"
        echo "saturated=$(field saturated "$report")"
        echo "deadlock=$(field deadlock "$report")"
    } >"$stats"
}

for r in "${algorithms[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do
        wait -n
    done
    echo "soak: $r, $cycles cycles" >&2
    soak_one "$r" &
done
wait

failed=0
mkdir -p "$(dirname "$out")"
{
    echo "Soak: \`$base\` (k = 16 where twice the saturation does not fit: \`$large\`), $cycles-cycle window at twice the saturation rate (capped at 1/len), then drain."
    echo
    echo "| routing | k | saturation rate | soak rate | cycles simulated | labelled messages | delivered | accepted flits/node/cycle | saturated | deadlock | peak RSS (MiB) | wall | verdict |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for r in "${algorithms[@]}"; do
        # shellcheck disable=SC1090
        source "$work/$r.row"
        verdict=pass
        if [[ "$status" != 0 || "$saturated" != true || "$deadlock" != false || "$labelled" != "$delivered" ]]; then
            verdict=FAIL
            failed=1
        fi
        printf '| %s | %s | %s | %s | %s | %s | %s | %.4f | %s | %s | %.1f | %s | %s |\n' \
            "$r" "$k" "$sat" "$rate" "$simulated" "$labelled" "$delivered" "$accepted" "$saturated" "$deadlock" \
            "$(awk -v kb="$rss_kb" 'BEGIN { print kb / 1024 }')" "$wall" "$verdict"
    done
} >"$out"
cat "$out"
exit "$failed"
