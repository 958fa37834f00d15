//! The coverage experiment (`torus coverage`, `make coverage`, docs/coverage.md): how often the
//! within-run 95 % confidence interval of the mean latency (`latency_ci95`) covers the mean
//! latency over all seeds, on the default 8×8 scenario at 50 %, 80 % and 95 % of its saturation
//! throughput, with the default fixed run length and with `warmup=auto&cycles=auto` at two targets.
//!
//! A nominal 95 % interval should cover the mean of all seeds (the best estimate of the true
//! mean there is) in about 95 % of runs; with n seeds the measured share has a standard error
//! of about √(0.05 · 0.95 / n), which the report gives as a Wilson interval.

use super::replication::replication_scenarios;
use super::saturation::{search, SearchOptions};
use super::{at_rate, parallel_map};
use crate::scenario::Scenario;
use crate::sim::run_length::Stop;
use crate::sim::Simulation;
use std::fmt::Write;

/// The loads, as fractions of the saturation throughput.
pub const LOADS: [f64; 3] = [0.5, 0.8, 0.95];

/// A way of running each seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Configuration {
    /// Its name in coverage.csv.
    pub name: &'static str,
    pub label: &'static str,
    /// Scenario keys set on top of the base scenario.
    pub keys: &'static str,
}

/// The default fixed length, and the automatic one at a 10 % and a 5 % target. At 2 %, the
/// default, runs at 95 % of saturation would need some three million cycles and stop at the
/// cap; at 5 % they run for most of a million, and at 10 % for some 200,000, which shows what a
/// loose target costs near saturation.
pub const CONFIGURATIONS: [Configuration; 3] = [
    Configuration { name: "fixed", label: "fixed: warmup=10000, cycles=100000 (the defaults)", keys: "" },
    Configuration { name: "auto", label: "automatic: warmup=auto, cycles=auto, ci=0.1", keys: "warmup=auto&cycles=auto&ci=0.1" },
    Configuration { name: "auto-5", label: "automatic: warmup=auto, cycles=auto, ci=0.05", keys: "warmup=auto&cycles=auto&ci=0.05" },
];

/// The scenario every run starts from: the default one, 8×8 DOR under uniform traffic.
pub const BASE: &str = "k=8&routing=dor&traffic=uniform&len=16";

/// One run of the experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct CoverageRun {
    pub configuration: usize,
    pub load: f64,
    pub seed: u64,
    pub latency_mean: f64,
    pub latency_ci95: f64,
    pub batches: usize,
    pub widened: bool,
    pub warmup_cycles: u64,
    pub window_cycles: u64,
    pub window_stop: Stop,
    pub saturated: bool,
}

/// The runs of one configuration at one load, and how often their intervals cover the mean of
/// all of them.
#[derive(Clone, Debug, PartialEq)]
pub struct CoverageRow {
    pub configuration: usize,
    pub load: f64,
    pub rate: f64,
    pub runs: usize,
    pub grand_mean: f64,
    /// Standard deviation of the runs' means: what a 95 % interval's half-width should be
    /// about 1.96 times.
    pub seed_sd: f64,
    pub mean_half_width: f64,
    pub covered: usize,
    /// Wilson 95 % interval of the coverage.
    pub coverage_interval: (f64, f64),
    pub widened: usize,
    pub covered_when_widened: usize,
    pub saturated: usize,
    pub mean_batches: f64,
    pub mean_warmup: f64,
    pub mean_window: f64,
    pub stopped_at_cap: usize,
}

impl CoverageRow {
    pub fn coverage(&self) -> f64 {
        self.covered as f64 / self.runs as f64
    }
}

/// The whole experiment.
#[derive(Clone, Debug)]
pub struct Coverage {
    pub base: Scenario,
    pub seeds: usize,
    /// The saturation throughput the loads are fractions of: the accepted throughput at the
    /// highest rate the saturation search kept up with (flits/node/cycle), and that rate.
    pub saturation_throughput: f64,
    pub saturation_rate: f64,
    pub rows: Vec<CoverageRow>,
    pub runs: Vec<CoverageRun>,
}

/// Wilson score interval of a binomial proportion, 95 %.
fn wilson(successes: usize, n: usize) -> (f64, f64) {
    let z = 1.959_963_984_540_054;
    let (p, n) = (successes as f64 / n as f64, n as f64);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre - half, centre + half)
}

/// Runs the experiment with `seeds` seeds per configuration and load. The saturation throughput
/// comes from one search on the base scenario (default run length, criterion `source-shortfall`);
/// every run is a job of its own.
pub fn coverage(seeds: usize, progress: &(dyn Fn(&str) + Sync)) -> Coverage {
    let base = Scenario::parse(BASE).expect("a valid base scenario");
    progress("coverage: saturation search on the base scenario");
    let saturation = search(&base, &SearchOptions::default());
    let throughput = saturation.accepted_flits_per_node_cycle;
    let mut jobs = Vec::new();
    for (configuration, c) in CONFIGURATIONS.iter().enumerate() {
        let configured = Scenario::parse(&format!("{BASE}&{}", c.keys)).expect("a valid configuration");
        for load in LOADS {
            let at_load = at_rate(&configured, load * throughput / base.len as f64);
            jobs.extend(replication_scenarios(&at_load, seeds).into_iter().map(|s| (configuration, load, s)));
        }
    }
    progress(&format!("coverage: {} runs", jobs.len()));
    let runs = parallel_map(&jobs, |(configuration, load, s)| {
        let r = Simulation::new(s).expect("a valid scenario").run();
        CoverageRun {
            configuration: *configuration,
            load: *load,
            seed: s.seed,
            latency_mean: r.latency_mean,
            latency_ci95: r.latency_ci95,
            batches: r.latency_ci95_batches,
            widened: r.latency_ci95_widened,
            warmup_cycles: r.warmup_cycles,
            window_cycles: r.window_cycles,
            window_stop: r.window_stop,
            saturated: r.saturated || r.deadlock,
        }
    });
    let rows = runs
        .chunks(seeds)
        .zip(&jobs.iter().step_by(seeds).collect::<Vec<_>>())
        .map(|(group, (configuration, load, s))| row(*configuration, *load, s.rate, group))
        .collect();
    Coverage { base, seeds, saturation_throughput: throughput, saturation_rate: saturation.saturation_rate, rows, runs }
}

fn row(configuration: usize, load: f64, rate: f64, runs: &[CoverageRun]) -> CoverageRow {
    let n = runs.len() as f64;
    let grand_mean = runs.iter().map(|r| r.latency_mean).sum::<f64>() / n;
    let seed_sd = (runs.iter().map(|r| (r.latency_mean - grand_mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
    let covers = |r: &CoverageRun| (r.latency_mean - grand_mean).abs() <= r.latency_ci95;
    let covered = runs.iter().filter(|r| covers(r)).count();
    let mean = |f: fn(&CoverageRun) -> f64| runs.iter().map(f).sum::<f64>() / n;
    CoverageRow {
        configuration,
        load,
        rate,
        runs: runs.len(),
        grand_mean,
        seed_sd,
        mean_half_width: mean(|r| r.latency_ci95),
        covered,
        coverage_interval: wilson(covered, runs.len()),
        widened: runs.iter().filter(|r| r.widened).count(),
        covered_when_widened: runs.iter().filter(|r| r.widened && covers(r)).count(),
        saturated: runs.iter().filter(|r| r.saturated).count(),
        mean_batches: mean(|r| r.batches as f64),
        mean_warmup: mean(|r| r.warmup_cycles as f64),
        mean_window: mean(|r| r.window_cycles as f64),
        stopped_at_cap: runs.iter().filter(|r| r.window_stop == Stop::Cap).count(),
    }
}

/// Every run: configuration, load, seed, the mean latency and its interval.
pub fn coverage_csv(c: &Coverage) -> String {
    let mut out = String::from(
        "configuration,load,seed,latency_mean,latency_ci95,batches,widened,warmup_cycles,window_cycles,window_stop,saturated\n",
    );
    for r in &c.runs {
        let stop = serde_json::to_value(r.window_stop).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{stop},{}",
            CONFIGURATIONS[r.configuration].name,
            r.load,
            r.seed,
            r.latency_mean,
            r.latency_ci95,
            r.batches,
            r.widened,
            r.warmup_cycles,
            r.window_cycles,
            r.saturated
        );
    }
    out
}

/// The report: what was run, and per configuration and load how often the interval covered.
pub fn coverage_markdown(c: &Coverage, command: &str, seconds: f64, threads: usize) -> String {
    let mut md = String::from("# Coverage of the within-run confidence interval\n\n");
    let _ = writeln!(
        md,
        "Generated by `{command}`; do not edit by hand. docs/statistics.md describes the interval and why this \
         experiment is run.\n"
    );
    let _ = writeln!(
        md,
        "Scenario `{}` (8×8, DOR, uniform traffic, 16-flit messages). Saturation throughput {:.4} flits/node/cycle: \
         the accepted throughput at the highest rate the saturation search kept up with ({} messages/node/cycle, \
         criterion `source-shortfall`, default run length, seed 1); the search's rate itself is past the point \
         where the network accepts all it is offered, so the loads are fractions of what it accepts. {} seeds per \
         configuration and load (the scenario's seed 1 and seeds derived from it). A run's interval covers when \
         |its mean latency − the mean over all seeds| ≤ its `latency_ci95`.\n",
        c.base.canonical(),
        c.saturation_throughput,
        c.saturation_rate,
        c.seeds
    );
    let _ = writeln!(md, "Wall time: {seconds:.0} s on {threads} thread{}.\n", if threads == 1 { "" } else { "s" });
    md.push_str(
        "| configuration | load | rate | mean latency (all seeds) | seed-to-seed sd | mean half-width | half-width / (1.96 sd) \
         | coverage | 95 % interval of the coverage | widened (covered) | batches | warm-up | window | at the cap | saturated |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in &c.rows {
        let _ = writeln!(
            md,
            "| {} | {:.0} % | {:.6} | {:.2} | {:.3} | {:.3} | {:.2} | **{:.1} %** ({}/{}) | {:.1}–{:.1} % | {} ({}) | {:.0} | {:.0} | {:.0} | {} | {} |",
            CONFIGURATIONS[r.configuration].label,
            100.0 * r.load,
            r.rate,
            r.grand_mean,
            r.seed_sd,
            r.mean_half_width,
            r.mean_half_width / (1.959_963_984_540_054 * r.seed_sd),
            100.0 * r.coverage(),
            r.covered,
            r.runs,
            100.0 * r.coverage_interval.0,
            100.0 * r.coverage_interval.1,
            r.widened,
            r.covered_when_widened,
            r.mean_batches,
            r.mean_warmup,
            r.mean_window,
            r.stopped_at_cap,
            r.saturated
        );
    }
    md.push_str(
        "\nwidened: runs whose batch means were still correlated at the fewest batches allowed (the interval is \
         widened for it and flagged `latency_ci95_widened`), and how many of those covered. batches, warm-up and \
         window: means over the runs (cycles). at the cap: automatic windows that stopped at their cap of a million \
         cycles before reaching the target. Every run is in coverage.csv.\n",
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_by_hand() {
        // 95 of 100: centre (0.95 + 1.92/100) / 1.0384 = 0.9334, half 0.0466 → 0.887–0.979.
        let (lo, hi) = wilson(95, 100);
        assert!((lo - 0.8882).abs() < 1e-3 && (hi - 0.9785).abs() < 1e-3, "{lo} {hi}");
    }

    #[test]
    fn a_row_counts_the_intervals_that_cover_the_mean_of_all_seeds() {
        let run = |mean: f64, ci: f64, widened: bool| CoverageRun {
            configuration: 0,
            load: 0.5,
            seed: 1,
            latency_mean: mean,
            latency_ci95: ci,
            batches: 10,
            widened,
            warmup_cycles: 100,
            window_cycles: 1000,
            window_stop: Stop::Fixed,
            saturated: false,
        };
        // Means 9, 10, 11, 14: mean 11. Covered: 9 ± 2, 11 ± 0.1, 14 ± 3; not 10 ± 0.5.
        let runs = [run(9.0, 2.0, false), run(10.0, 0.5, false), run(11.0, 0.1, true), run(14.0, 3.0, true)];
        let r = row(0, 0.5, 0.01, &runs);
        assert_eq!((r.runs, r.covered, r.widened, r.covered_when_widened), (4, 3, 2, 2));
        assert_eq!(r.grand_mean, 11.0);
        assert!((r.seed_sd - (14.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(r.coverage(), 0.75);
    }
}
