#!/usr/bin/env python3
"""Checks that two builds of `torus` give the same channel-queue model numbers.

    scripts/same-model.py OLD_TORUS NEW_TORUS [--quick]

For every scenario below (every routing algorithm with VCs x every pattern on 8x8, and other
sizes, dimensions, message lengths, VCs, buffers and delays) it asks both builds for
`torus model` at a low rate, at 30, 70 and 95 % of the old build's saturation rate and at
105 % (past it), and compares `channel_queue` (latency, saturation_rate, saturated, every
quantity) and `channel_utilisation_predicted`; then a 20-point curve from 1 % to 99 % of
saturation through `torus sweep` (its `channel_queue_latency`, on a 20-cycle simulation), which
runs the curve's warm starts. A speed change to the model is meant to leave every value bit for
bit the same; any relative difference above 1e-9 counts as a difference. Prints the largest
relative difference seen. --quick: every seventh scenario. Exit code 0 when all agree.
"""
import json
import subprocess
import sys

ROUTINGS = ["dor", "val", "romm", "rlb", "minad", "goal", "duato", "nbc", "adaptive"]
PATTERNS = ["uniform", "tornado", "transpose", "neighbor", "bitcomp", "permutation", "hotspot", "diagonal", "worstcase"]
SCENARIOS = [f"k=8&routing={r}&traffic={p}&len=16" for r in ROUTINGS for p in PATTERNS] + [
    "k=4&routing=dor&traffic=uniform&len=1",
    "k=4&routing=goal&traffic=tornado&len=32",
    "k=4&routing=minad&traffic=transpose&len=32&vcs=4&buf=8",
    "k=4&routing=val&traffic=uniform&len=32",
    "k=4&routing=nbc&traffic=uniform&len=16",
    "k=4&routing=duato&traffic=bitcomp&len=8&vcs=5",
    "k=4&routing=adaptive&traffic=uniform&len=12&vcs=4",
    "k=4&routing=rlb&traffic=neighbor&len=16",
    "k=4&routing=romm&traffic=tornado&len=16&buf=2",
    "k=16&routing=dor&traffic=uniform&len=16",
    "k=16&routing=dor&traffic=tornado&len=32",
    "k=16&routing=romm&traffic=transpose&len=16",
    "k=16&routing=minad&traffic=tornado&len=16",
    "k=16&routing=val&traffic=neighbor&len=16",
    "k=8&routing=dor&traffic=uniform&len=1",
    "k=8&routing=dor&traffic=uniform&len=32&vcs=4&buf=8",
    "k=8&routing=minad&traffic=uniform&len=1",
    "k=8&routing=goal&traffic=uniform&len=32&vcs=4",
    "k=8&routing=val&traffic=tornado&len=16&vcs=4&buf=2",
    "k=4&n=3&routing=dor&traffic=uniform&len=16",
    "k=4&n=3&routing=minad&traffic=uniform&len=16",
    "k=5&routing=dor&traffic=uniform&len=16",
    "k=5&routing=goal&traffic=uniform&len=16",
    "k=8&routing=dor&traffic=tornado&len=16&rdelay=2&ldelay=1",
    "k=6&n=1&routing=val&traffic=uniform&len=16",
]

TOLERANCE = 1e-9


def model(binary, scenario):
    out = subprocess.run([binary, "model", scenario], capture_output=True, text=True)
    return {"error": out.stderr.strip()} if out.returncode != 0 else json.loads(out.stdout)


def curve(binary, scenario, rates):
    out = subprocess.run(
        [binary, "sweep", scenario + "&warmup=0&cycles=20", "--rates", ",".join(repr(r) for r in rates)],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip()}
    return [json.loads(line).get("channel_queue_latency") for line in out.stdout.splitlines() if line.strip()]


class Comparison:
    def __init__(self):
        self.values = 0
        self.largest = 0.0
        self.worst = None
        self.differences = []

    def same(self, what, a, b):
        self.values += 1
        if isinstance(a, (bool, str)) or isinstance(b, (bool, str)) or a is None or b is None:
            if a != b:
                self.differences.append((what, a, b))
            return
        if a == b:
            return
        relative = abs(a - b) / max(abs(a), abs(b))
        if relative > self.largest:
            self.largest, self.worst = relative, (what, a, b)
        if relative > TOLERANCE:
            self.differences.append((what, a, b))

    def reports(self, what, a, b):
        ca, cb = a["channel_queue"], b["channel_queue"]
        for key in ["latency", "saturation_rate", "saturated", "reason"]:
            self.same(f"{what} {key}", ca.get(key), cb.get(key))
        qa, qb = ca.get("quantities") or {}, cb.get("quantities") or {}
        if set(qa) - set(qb):
            self.differences.append((f"{what} quantities the new build lacks", sorted(set(qa) - set(qb)), None))
        for key in qa.keys() & qb.keys():
            self.same(f"{what} {key}", qa[key], qb[key])
        ua, ub = a["channel_utilisation_predicted"], b["channel_utilisation_predicted"]
        if len(ua) != len(ub):
            self.differences.append((f"{what} utilisation length", len(ua), len(ub)))
        for c, (x, y) in enumerate(zip(ua, ub)):
            self.same(f"{what} utilisation[{c}]", x, y)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    old, new = args
    scenarios = SCENARIOS[::7] if "--quick" in sys.argv else SCENARIOS
    check = Comparison()
    compared = rated = 0
    for base in scenarios:
        a, b = model(old, base + "&rate=0.001"), model(new, base + "&rate=0.001")
        if "error" in a or "error" in b:
            check.same(f"{base} error", a.get("error"), b.get("error"))
            print(f"not a model scenario: {base} ({a.get('error', b.get('error'))})")
            continue
        if a["channel_queue"].get("reason"):
            check.reports(base, a, b)
            continue
        compared += 1
        saturation = a["channel_queue"]["saturation_rate"]
        check.reports(f"{base}&rate=0.001", a, b)
        rated += 1
        for fraction in [0.3, 0.7, 0.95, 1.05]:
            scenario = f"{base}&rate={saturation * fraction!r}"
            check.reports(scenario, model(old, scenario), model(new, scenario))
            rated += 1
        rates = [saturation * (0.01 + 0.98 * i / 19) for i in range(20)]
        ca, cb = curve(old, base, rates), curve(new, base, rates)
        if isinstance(ca, dict) or isinstance(cb, dict):
            check.differences.append((f"{base} curve", ca, cb))
        else:
            for i, (x, y) in enumerate(zip(ca, cb)):
                check.same(f"{base} curve[{i}]", x, y)
    print(f"{compared} scenarios, {rated} scenario-rates and their 20-point curves, {check.values} values compared")
    print(f"largest relative difference: {check.largest:.3g}" + (f" ({check.worst})" if check.worst else ""))
    for d in check.differences:
        print("DIFFERENT:", d)
    sys.exit(1 if check.differences else 0)


if __name__ == "__main__":
    main()
