#!/usr/bin/env python3
"""Checks that two builds of `torus` simulate exactly alike.

    scripts/same-results.py OLD_TORUS NEW_TORUS

Runs every scenario below with `torus run` under both binaries and compares the JSON reports
field by field (all but `wall_seconds`), floats bit for bit. Fields and scenario keys that only
the new build reports are listed once, not compared (new fields and keys are how the
interfaces grow); a field or key the new build no longer reports is a difference. Scenarios the
old build rejects (keys it does not know yet) are listed as new, not compared. The scenarios cover every routing
algorithm, short and long messages, loads below and past saturation, every traffic pattern,
scouting, broadcasts, chaos's shared queue, 1-D and 3-D tori and a deadlock. A speed change to
the simulator is meant to leave every one of them identical; run this before committing one.
Exit code 0 when all agree, 1 otherwise (each difference printed).
"""
import concurrent.futures
import json
import subprocess
import sys

SCENARIOS = [
    # The benchmark scenarios (torus bench), shortened.
    "k=8&routing=dor&traffic=uniform&len=1&rate=0.5&vcs=2&buf=8&warmup=500&cycles=3000",
    "k=8&routing=dor&traffic=uniform&len=16&rate=0.02&warmup=500&cycles=4000",
    "k=8&routing=minad&traffic=tornado&len=16&rate=0.01&warmup=500&cycles=4000",
    "k=8&routing=goal&traffic=uniform&len=1&rate=0.25&vcs=3&buf=8&warmup=500&cycles=3000",
    "k=8&routing=duato&traffic=uniform&len=16&rate=0.03&vcs=4&buf=8&warmup=500&cycles=4000",
    "k=8&routing=minad&traffic=uniform&len=1&rate=0.5&vcs=3&buf=8&warmup=500&cycles=3000",
    "k=8&routing=chaos&traffic=uniform&len=1&rate=0.5&buf=8&warmup=500&cycles=3000",
    # Every algorithm at moderate load, several message lengths and buffer depths.
    "k=8&routing=dor&traffic=transpose&len=4&rate=0.05&vcs=4&buf=2&warmup=500&cycles=3000",
    "k=8&routing=duato&traffic=hotspot&len=8&rate=0.02&vcs=3&buf=4&warmup=500&cycles=3000",
    "k=8&routing=nbc&traffic=uniform&len=8&rate=0.02&warmup=500&cycles=3000",
    "k=8&routing=adaptive&traffic=uniform&len=12&rate=0.01&warmup=500&cycles=3000",
    "k=8&routing=minad&traffic=bitcomp&len=4&rate=0.05&vcs=4&warmup=500&cycles=3000",
    "k=8&routing=goal&traffic=tornado&len=4&rate=0.04&vcs=3&warmup=500&cycles=3000",
    "k=8&routing=val&traffic=uniform&len=2&rate=0.08&warmup=500&cycles=3000",
    "k=8&routing=romm&traffic=neighbor&len=3&rate=0.1&warmup=500&cycles=3000",
    "k=8&routing=rlb&traffic=diagonal&len=2&rate=0.05&warmup=500&cycles=3000",
    "k=8&routing=chaos&traffic=permutation&len=4&rate=0.03&buf=4&warmup=500&cycles=3000",
    # Router, link and credit delays, below and past saturation, buffers above and below the
    # credit round trip.
    "k=8&routing=minad&traffic=uniform&len=8&rate=0.03&buf=8&rdelay=2&ldelay=1&cdelay=1&warmup=500&cycles=3000",
    "k=8&routing=dor&traffic=tornado&len=4&rate=0.2&buf=3&rdelay=1&ldelay=2&warmup=500&cycles=3000",
    # The bit permutations and the hot-spot and permutation options.
    "k=8&routing=minad&traffic=bitrev&len=4&rate=0.04&warmup=500&cycles=3000",
    "k=8&routing=dor&traffic=shuffle&len=8&rate=0.02&warmup=500&cycles=3000",
    "k=8&routing=duato&traffic=hotspot&hot=9,40&hotfrac=0.2&len=8&rate=0.01&vcs=3&warmup=500&cycles=3000",
    "k=8&routing=val&traffic=permutation&pseed=7&len=4&rate=0.02&warmup=500&cycles=3000",
    "k=8&routing=dor&traffic=worstcase&len=4&rate=0.02&warmup=500&cycles=3000",
    # Past saturation: full source queues, the drain under load, chaos deflections.
    "k=8&routing=dor&traffic=uniform&len=1&rate=0.9&vcs=2&buf=8&warmup=500&cycles=2000",
    "k=8&routing=dor&traffic=tornado&len=16&rate=0.05&warmup=500&cycles=2000",
    "k=8&routing=goal&traffic=bitcomp&len=1&rate=0.6&vcs=3&buf=4&warmup=500&cycles=2000",
    "k=8&routing=duato&traffic=uniform&len=16&rate=0.06&vcs=4&buf=4&warmup=500&cycles=2000",
    "k=8&routing=chaos&traffic=bitcomp&len=2&rate=0.3&buf=2&mq=2&warmup=500&cycles=2000",
    "k=8&routing=val&traffic=uniform&len=1&rate=0.7&vcs=4&buf=2&warmup=500&cycles=2000",
    "k=8&routing=rlb&traffic=uniform&len=4&rate=0.2&warmup=500&cycles=2000",
    # One buffer slot (credit round trip), long buffers, many VCs.
    "k=8&routing=dor&traffic=uniform&len=4&rate=0.03&vcs=2&buf=1&warmup=500&cycles=3000",
    "k=8&routing=minad&traffic=uniform&len=32&rate=0.005&vcs=8&buf=32&warmup=500&cycles=3000",
    "k=8&routing=duato&traffic=uniform&len=2&rate=0.2&vcs=16&buf=3&warmup=500&cycles=2000",
    # Scouting switching (Safaei et al. 2007), with and without a probe lead.
    "k=8&routing=duato&switching=scouting&scout=0&traffic=uniform&len=32&rate=0.004&vcs=6&warmup=500&cycles=3000",
    "k=8&routing=duato&switching=scouting&scout=3&traffic=uniform&len=32&rate=0.006&vcs=1&unsafe=1&warmup=500&cycles=3000",
    "k=8&routing=duato&switching=scouting&scout=6&traffic=uniform&len=16&rate=0.01&vcs=6&warmup=500&cycles=3000",
    # Broadcasts (Shahrabi et al. 2002).
    "k=8&routing=duato&traffic=uniform&len=16&rate=0.004&vcs=4&beta=0.02&warmup=500&cycles=3000",
    "k=6&routing=duato&traffic=uniform&len=8&rate=0.01&vcs=3&beta=0.1&warmup=500&cycles=3000",
    # Other shapes: rings, 3-D, larger and odd k.
    "k=16&n=1&routing=dor&traffic=uniform&len=4&rate=0.05&warmup=500&cycles=3000",
    "k=4&n=3&routing=duato&traffic=uniform&len=4&rate=0.03&vcs=3&warmup=500&cycles=3000",
    "k=4&n=3&routing=rlb&traffic=uniform&len=2&rate=0.03&warmup=500&cycles=3000",
    "k=5&n=2&routing=goal&traffic=uniform&len=3&rate=0.05&vcs=3&warmup=500&cycles=3000",
    "k=16&routing=goal&traffic=uniform&len=16&rate=0.004&vcs=3&warmup=500&cycles=2000",
    # Faulty links and nodes: stuck messages, unreachable destinations, scouting round faults.
    "k=8&routing=dor&traffic=uniform&len=8&rate=0.01&frandom=0.05&warmup=500&cycles=3000",
    "k=8&routing=duato&traffic=uniform&len=8&rate=0.02&vcs=4&flinks=3x,27y&fnodes=40&warmup=500&cycles=3000",
    "k=8&routing=nbc&traffic=transpose&len=8&rate=0.01&frandom=0.08&seed=3&warmup=500&cycles=3000",
    "k=8&routing=duato&switching=scouting&scout=3&misroute=3&traffic=uniform&len=16&rate=0.01&vcs=4&frandom=0.1&warmup=500&cycles=3000",
    "k=8&routing=chaos&traffic=uniform&len=4&rate=0.05&buf=4&frandom=0.05&warmup=500&cycles=3000",
    # Router organisations (router=), below and past saturation, and with lengths that vary.
    "k=8&routing=dor&traffic=uniform&len=1&rate=0.8&vcs=2&buf=12&router=maxmatch&warmup=500&cycles=2000",
    "k=8&routing=minad&traffic=tornado&len=1&rate=0.3&vcs=3&buf=8&router=damq&warmup=500&cycles=2000",
    "k=8&routing=val&traffic=uniform&len=1&rate=0.45&vcs=4&buf=6&router=speedup2&warmup=500&cycles=2000",
    "k=8&routing=romm&traffic=neighbor&len=1&rate=3&vcs=4&buf=6&router=wide&warmup=500&cycles=2000",
    "k=8&routing=goal&traffic=diagonal&len=1&rate=0.55&vcs=3&buf=8&router=damq+speedup2+wide&warmup=500&cycles=2000",
    "k=8&routing=dor&traffic=neighbor&len=1&rate=3.5&vcs=2&buf=12&router=damq+speedup2+wide&warmup=500&cycles=2000",
    "k=8&routing=rlb&traffic=transpose&len=4&rate=0.1&router=maxmatch+speedup2+wide&warmup=500&cycles=2000",
    "k=8&routing=duato&traffic=uniform&len=12&lengths=geometric&rate=0.02&vcs=4&warmup=500&cycles=2000",
    "k=8&routing=goal&traffic=neighbor&len=1&rate=2.5&vcs=3&buf=8&router=damq+speedup2+wide+voq&warmup=500&cycles=2000",
    # A deadlock (too few VCs), and a long quiet run.
    "k=4&routing=dor&traffic=uniform&len=8&rate=0.2&vcs=1&unsafe=1&warmup=100&cycles=3000",
    "k=8&routing=minad&traffic=tornado&len=16&rate=0.06&vcs=1&unsafe=1&warmup=100&cycles=3000",
    "k=8&routing=dor&traffic=uniform&len=16&rate=0.001&warmup=1000&cycles=20000",
]


def run(binary, scenario):
    """The report, or None when the binary rejects the scenario (exit code 2)."""
    done = subprocess.run([binary, "run", scenario], capture_output=True, text=True)
    if done.returncode == 2:
        return None
    done.check_returncode()
    report = json.loads(done.stdout)
    report.pop("wall_seconds", None)
    return report


ADDED = set()


def differences(a, b, path=""):
    if path == ".scenario" and isinstance(a, str) and isinstance(b, str):
        old_keys, new_keys = dict(kv.split("=", 1) for kv in a.split("&")), dict(kv.split("=", 1) for kv in b.split("&"))
        ADDED.update(f"scenario key {k}" for k in new_keys.keys() - old_keys.keys())
        return [f"{path}: key {k}: {v!r} != {new_keys.get(k)!r}" for k, v in old_keys.items() if new_keys.get(k) != v]
    if type(a) is not type(b):
        return [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, dict):
        ADDED.update(f"field {path}.{k}" for k in set(b) - set(a))
        return [d for k in sorted(set(a)) for d in differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def compare(old, new, scenario):
    a = run(old, scenario)
    if a is None:
        return scenario, None
    return scenario, differences(a, run(new, scenario))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = sys.argv[1:]
    failed = 0
    newer = []
    with concurrent.futures.ThreadPoolExecutor() as pool:
        for scenario, diff in pool.map(lambda s: compare(old, new, s), SCENARIOS):
            if diff is None:
                newer.append(scenario)
                print(f"new       {scenario}")
            elif diff:
                failed += 1
                print(f"DIFFERENT {scenario}")
                for d in diff[:8]:
                    print(f"    {d}")
                if len(diff) > 8:
                    print(f"    ... {len(diff) - 8} more")
            else:
                print(f"same      {scenario}")
    if ADDED:
        print("only in the new build (not compared): " + ", ".join(sorted(ADDED)))
    print(f"{len(SCENARIOS) - failed - len(newer)} of {len(SCENARIOS) - len(newer)} scenarios identical"
          + (f"; {len(newer)} new to the old build, not compared" if newer else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
