#!/usr/bin/env python3
"""Compares the speed of two builds of `torus` on the benchmark scenarios of `torus bench`
(the new build's list).

    scripts/compare-speed.py OLD_TORUS NEW_TORUS [--rounds N] [--cycles C] [--no-callgrind]

Two measures, because wall-clock time on a shared 2-CPU virtual machine swings by ±20% from
run to run (and up to 2x between a quiet and a busy machine):

- instructions, counted by `valgrind --tool=callgrind` over a short `torus run` of each
  scenario (1 000 warm-up and 3 000 measured cycles, then the drain): the same count every time
  for the same binary and scenario, whatever else the machine is doing; reported per flit-hop;
- wall clock: `torus bench --scenario S --cycles C` of both binaries in turn, N rounds,
  alternating which goes first, so that both see the same machine; reported as the median
  cycles/s of each and the ratio of medians.

Run scripts/same-results.py first: a speed change is only worth measuring when the results
are identical.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

SHORT = "&warmup=1000&cycles=3000"


def bench_scenarios(torus):
    """The scenarios `torus bench` times, without their warm-up and window keys."""
    out = subprocess.run([torus, "bench", "--json", "--cycles", "10"], capture_output=True, text=True, check=True)
    scenarios = [json.loads(line)["scenario"] for line in out.stdout.splitlines()]
    return ["&".join(kv for kv in s.split("&") if not kv.startswith(("warmup=", "cycles="))) for s in scenarios]


KNOWN_KEYS = {}


def known(torus, scenario):
    """The scenario with only the keys `torus` knows: the new build's canonical strings spell
    keys added since the old build, at their defaults, which the old build would refuse."""
    if torus not in KNOWN_KEYS:
        out = subprocess.run([torus, "run", "k=4&warmup=0&cycles=1"], capture_output=True, text=True, check=True)
        KNOWN_KEYS[torus] = {kv.split("=", 1)[0] for kv in json.loads(out.stdout)["scenario"].split("&")}
    return "&".join(kv for kv in scenario.split("&") if kv.split("=", 1)[0] in KNOWN_KEYS[torus] | {"warmup", "cycles"})


def instructions(torus, scenario):
    """(instructions, flit-hops) of one short run under callgrind."""
    scenario = known(torus, scenario)
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.path.join(d, 'cg')}", torus, "run", scenario + SHORT],
            capture_output=True, text=True, check=True,
        )
    collected = int(re.search(r"Collected : (\d+)", out.stderr).group(1))
    return collected, json.loads(out.stdout)["flit_hops"]


def cycles_per_second(torus, scenario, cycles):
    out = subprocess.run([torus, "bench", "--json", "--cycles", str(cycles), "--scenario", known(torus, scenario)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["cycles_per_second"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cycles", type=int, default=30000)
    p.add_argument("--no-callgrind", action="store_true", help="wall clock only")
    a = p.parse_args()
    scenarios = bench_scenarios(a.new)
    if not a.no_callgrind:
        print("instructions (callgrind, warm-up 1000 + 3000 cycles + drain)")
        print(f"{'old':>14} {'new':>14} {'change':>8} {'old/hop':>8} {'new/hop':>8}  scenario")
        for s in scenarios:
            (old, hops_old), (new, hops_new) = instructions(a.old, s), instructions(a.new, s)
            if hops_old != hops_new:
                print(f"  {s}: the builds moved different flit-hops ({hops_old} and {hops_new}); not the same simulation", file=sys.stderr)
                sys.exit(1)
            print(f"{old:>14,} {new:>14,} {100 * (new / old - 1):>7.1f}% {old / hops_old:>8.0f} {new / hops_new:>8.0f}  {s}")
    print(f"wall clock (torus bench --cycles {a.cycles}, {a.rounds} alternating rounds, medians)")
    print(f"{'old cycles/s':>14} {'new cycles/s':>14} {'new/old':>8}  scenario")
    for s in scenarios:
        times = {a.old: [], a.new: []}
        for r in range(a.rounds):
            for torus in (a.old, a.new) if r % 2 == 0 else (a.new, a.old):
                times[torus].append(cycles_per_second(torus, s, a.cycles))
        old, new = statistics.median(times[a.old]), statistics.median(times[a.new])
        print(f"{old:>14,.0f} {new:>14,.0f} {new / old:>8.2f}  {s}")


if __name__ == "__main__":
    main()
