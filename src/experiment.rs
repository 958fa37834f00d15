//! Many runs of one scenario: load sweeps, the saturation search, and the speed benchmark.
//! Runs are independent and single-threaded (so each stays deterministic); a batch of them uses
//! every core.

use crate::scenario::Scenario;
use crate::sim::{RunReport, Simulation};
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Worker threads for a batch of independent runs.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `job` on every item on all cores; results come back in the items' order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads().min(items.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = job(&items[i]);
                results.lock().expect("a worker panicked")[i] = Some(r);
            });
        }
    });
    results.into_inner().expect("a worker panicked").into_iter().map(|r| r.expect("every item ran")).collect()
}

/// `n` rates evenly spaced from `a` to `b` inclusive.
pub fn rate_grid(a: f64, b: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![a];
    }
    (0..n).map(|i| a + (b - a) * i as f64 / (n - 1) as f64).collect()
}

/// The scenario at another rate.
pub fn at_rate(s: &Scenario, rate: f64) -> Scenario {
    Scenario { rate, ..s.clone() }
}

/// One simulation per rate, in parallel.
pub fn sweep(s: &Scenario, rates: &[f64]) -> Vec<RunReport> {
    parallel_map(rates, |&rate| Simulation::new(&at_rate(s, rate)).expect("validated scenario").run())
}

#[derive(Clone, Debug, Serialize)]
pub struct Saturation {
    pub scenario: String,
    /// Highest rate found whose accepted throughput matched the offered load.
    pub saturation_rate: f64,
    pub saturation_flits_per_node_cycle: f64,
    /// Relative to the uniform-traffic capacity 8/k flits/node/cycle.
    pub saturation_fraction_of_capacity: f64,
    /// Accepted throughput measured at `saturation_rate`.
    pub accepted_flits_per_node_cycle: f64,
    /// Runs simulated in the search.
    pub runs: usize,
}

/// A run keeps up with its offered load: no saturation flag, no deadlock.
fn keeps_up(r: &RunReport) -> bool {
    !r.saturated && !r.deadlock
}

/// Saturation throughput: the highest offered load whose accepted throughput still matches it.
/// Searches rates in `(0, 1/len]` (the injection channel's limit), narrowing the bracket by
/// evaluating one rate per core in each round, until it is within 1% of the rate.
pub fn saturation(s: &Scenario) -> Saturation {
    let mut lo = (0.0, None::<RunReport>);
    let mut hi = 1.0 / s.len as f64;
    let points = threads().max(2);
    let mut runs = 0;
    while hi - lo.0 > 0.01 * hi {
        let rates: Vec<f64> = (1..=points).map(|i| lo.0 + (hi - lo.0) * i as f64 / (points + 1) as f64).collect();
        let reports = sweep(s, &rates);
        runs += reports.len();
        let mut new_hi = hi;
        for (rate, r) in rates.iter().zip(reports) {
            if keeps_up(&r) {
                lo = (*rate, Some(r));
            } else {
                new_hi = *rate;
                break;
            }
        }
        hi = new_hi;
    }
    let rate = lo.0;
    let flits = rate * s.len as f64;
    Saturation {
        scenario: at_rate(s, rate.max(f64::MIN_POSITIVE)).canonical(),
        saturation_rate: rate,
        saturation_flits_per_node_cycle: flits,
        saturation_fraction_of_capacity: flits / s.capacity_flits(),
        accepted_flits_per_node_cycle: lo.1.map_or(0.0, |r| r.accepted_flits_per_node_cycle),
        runs,
    }
}

/// Speed of one benchmark scenario.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    pub scenario: String,
    pub cycles: u64,
    pub flit_hops: u64,
    pub seconds: f64,
    pub cycles_per_second: f64,
    pub ns_per_flit_hop: f64,
    pub ns_per_cycle: f64,
    /// Flit-hops per node per cycle: the traffic the cost should follow.
    pub flit_hops_per_node_cycle: f64,
}

/// The fixed benchmark scenarios: the reference point of issue 6 first, then adaptive
/// algorithms and long messages below saturation, and chaos on seed 004's set-up at the load of
/// the MIN AD line before it.
pub const BENCH_SCENARIOS: &[&str] = &[
    "k=8&routing=dor&traffic=uniform&len=1&rate=0.5&vcs=2&buf=8",
    "k=8&routing=dor&traffic=uniform&len=16&rate=0.02",
    "k=8&routing=minad&traffic=tornado&len=16&rate=0.01",
    "k=8&routing=goal&traffic=uniform&len=1&rate=0.25&vcs=3&buf=8",
    "k=8&routing=duato&traffic=uniform&len=16&rate=0.03&vcs=4&buf=8",
    "k=8&routing=minad&traffic=uniform&len=1&rate=0.5&vcs=3&buf=8",
    "k=8&routing=chaos&traffic=uniform&len=1&rate=0.5&buf=8",
];

/// Scaling benchmarks (`torus bench --scaling`): DOR, uniform traffic, 16-flit messages;
/// first k = 4..32 at a fixed load per node (0.05 flits/node/cycle), then k = 8 at loads from
/// 0.01 to 0.4 flits/node/cycle.
pub fn scaling_scenarios() -> Vec<String> {
    let by_size = [4, 8, 16, 32].map(|k| format!("k={k}&routing=dor&traffic=uniform&len=16&rate={}", 0.05 / 16.0));
    let by_load = [0.01, 0.05, 0.1, 0.2, 0.3, 0.4].map(|f| format!("k=8&routing=dor&traffic=uniform&len=16&rate={}", f / 16.0));
    by_size.into_iter().chain(by_load).collect()
}

/// Times `cycles` simulated cycles after a warm-up of `cycles / 10`.
pub fn bench(s: &Scenario, cycles: u64) -> BenchResult {
    let mut sim = Simulation::new(&Scenario { warmup: 0, cycles: cycles * 2, ..s.clone() }).expect("valid bench scenario");
    for _ in 0..cycles / 10 {
        sim.step();
    }
    let hops_before = sim.flit_hops();
    let start = Instant::now();
    for _ in 0..cycles {
        sim.step();
    }
    let seconds = start.elapsed().as_secs_f64();
    let flit_hops = sim.flit_hops() - hops_before;
    BenchResult {
        scenario: s.canonical(),
        cycles,
        flit_hops,
        seconds,
        cycles_per_second: cycles as f64 / seconds,
        ns_per_flit_hop: seconds * 1e9 / flit_hops.max(1) as f64,
        ns_per_cycle: seconds * 1e9 / cycles as f64,
        flit_hops_per_node_cycle: flit_hops as f64 / cycles as f64 / sim.torus().nodes() as f64,
    }
}
