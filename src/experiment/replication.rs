//! Replications: one scenario run with several seeds derived from its own, and the mean and
//! 95 % confidence interval of each figure across them (`--seeds N`, BookSim's `sim_count`).
//!
//! Every replication is a job of its own, named by its canonical scenario string (the rate and
//! the derived seed are in it), so a batch of them can run anywhere and in any order and be put
//! back together by that name.

use super::jobs::{Job, Outcome, Runner};
use super::{at_rate, parallel_map};
use crate::rng::replication_seed;
use crate::scenario::Scenario;
use crate::sim::stats::t_975;
use crate::sim::{RunReport, Simulation};
use serde::Serialize;

/// Mean and 95 % confidence interval of one figure over replications: Student's t with n − 1
/// degrees of freedom on the replications' sample standard deviation. With one replication the
/// interval is unknown (`ci95` is null in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AcrossSeeds {
    pub mean: f64,
    /// Half-width of the 95 % confidence interval of the mean.
    pub ci95: Option<f64>,
    /// Sample standard deviation of the replications (n − 1 in the denominator).
    pub sd: Option<f64>,
    pub n: usize,
}

impl AcrossSeeds {
    pub fn of(values: &[f64]) -> AcrossSeeds {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n.max(1) as f64;
        if n < 2 {
            return AcrossSeeds { mean, ci95: None, sd: None, n };
        }
        let sd = (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64).sqrt();
        AcrossSeeds { mean, ci95: Some(t_975(n - 1) * sd / (n as f64).sqrt()), sd: Some(sd), n }
    }
}

/// The seeds of `replications` replications of `s`: the scenario's own first, so that one
/// replication is the plain run.
pub fn seeds(s: &Scenario, replications: usize) -> Vec<u64> {
    (0..replications as u64).map(|i| replication_seed(s.seed, i)).collect()
}

/// The scenario of each replication (the jobs of [`replicate`]).
pub fn replication_scenarios(s: &Scenario, replications: usize) -> Vec<Scenario> {
    seeds(s, replications).into_iter().map(|seed| Scenario { seed, ..s.clone() }).collect()
}

/// One replication's main figures, beside the others in a replicated report (the full report
/// of any of them is `torus run` on its scenario, the seed replaced).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplicationSummary {
    pub replication: usize,
    pub seed: u64,
    pub latency_mean: f64,
    pub latency_ci95: f64,
    pub network_latency_mean: f64,
    pub source_queue_mean: f64,
    pub hops_mean: f64,
    pub offered_flits_per_node_cycle: f64,
    pub accepted_flits_per_node_cycle: f64,
    pub accepted_min_pair: f64,
    pub messages_measured: u64,
    pub saturated: bool,
    pub throttled: bool,
    pub deadlock: bool,
}

/// The figures whose mean and confidence interval across replications a report gives.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunAcrossSeeds {
    pub latency_mean: AcrossSeeds,
    pub network_latency_mean: AcrossSeeds,
    pub source_queue_mean: AcrossSeeds,
    pub hops_mean: AcrossSeeds,
    pub offered_flits_per_node_cycle: AcrossSeeds,
    pub accepted_flits_per_node_cycle: AcrossSeeds,
    pub accepted_min_pair: AcrossSeeds,
}

/// Replications of one run (`torus run --seeds N`, one point of `torus sweep --seeds N`): the
/// first replication's full report, whose seed is the scenario's own, so that the fields of a
/// single run keep their meaning; then every replication's main figures and, across them, the
/// mean and 95 % confidence interval of each.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replicated {
    #[serde(flatten)]
    pub first: RunReport,
    pub seeds: Vec<u64>,
    pub replications: Vec<ReplicationSummary>,
    pub across_seeds: RunAcrossSeeds,
    /// Replications that saturated or deadlocked: their latency measures the run length, so a
    /// mean over them is not the network's.
    pub saturated_replications: usize,
}

impl Replicated {
    /// Puts replications together; `reports` are in replication order, the first with the
    /// scenario's own seed.
    pub fn of(reports: Vec<RunReport>, seeds: Vec<u64>) -> Replicated {
        assert_eq!(reports.len(), seeds.len(), "one report per seed");
        let values = |f: fn(&RunReport) -> f64| AcrossSeeds::of(&reports.iter().map(f).collect::<Vec<_>>());
        let across_seeds = RunAcrossSeeds {
            latency_mean: values(|r| r.latency_mean),
            network_latency_mean: values(|r| r.network_latency_mean),
            source_queue_mean: values(|r| r.source_queue_mean),
            hops_mean: values(|r| r.hops_mean),
            offered_flits_per_node_cycle: values(|r| r.offered_flits_per_node_cycle),
            accepted_flits_per_node_cycle: values(|r| r.accepted_flits_per_node_cycle),
            accepted_min_pair: values(|r| r.accepted_min_pair),
        };
        let replications = reports
            .iter()
            .zip(&seeds)
            .enumerate()
            .map(|(replication, (r, &seed))| ReplicationSummary {
                replication,
                seed,
                latency_mean: r.latency_mean,
                latency_ci95: r.latency_ci95,
                network_latency_mean: r.network_latency_mean,
                source_queue_mean: r.source_queue_mean,
                hops_mean: r.hops_mean,
                offered_flits_per_node_cycle: r.offered_flits_per_node_cycle,
                accepted_flits_per_node_cycle: r.accepted_flits_per_node_cycle,
                accepted_min_pair: r.accepted_min_pair,
                messages_measured: r.messages_measured,
                saturated: r.saturated,
                throttled: r.throttled,
                deadlock: r.deadlock,
            })
            .collect();
        let saturated_replications = reports.iter().filter(|r| r.saturated || r.deadlock).count();
        let first = reports.into_iter().next().expect("at least one replication");
        Replicated { first, seeds, replications, across_seeds, saturated_replications }
    }

    /// Some replication saturated or deadlocked: the point lies past saturation.
    pub fn saturated(&self) -> bool {
        self.saturated_replications > 0
    }
}

fn simulate(s: &Scenario) -> RunReport {
    Simulation::new(s).expect("validated scenario").run()
}

/// `replications` runs of `s` with seeds derived from its own, in parallel.
pub fn replicate(s: &Scenario, replications: usize) -> Replicated {
    Replicated::of(parallel_map(&replication_scenarios(s, replications), simulate), seeds(s, replications))
}

/// A sweep with `replications` runs per rate: every (rate, replication) pair is a job, and the
/// points come back in the rates' order. With `stop_at_saturation` the rates run in groups
/// of as many as there are threads, lowest first, and the sweep ends with the first saturated
/// point: the points it returns are the same on any number of threads, only fewer runs are
/// wasted past saturation when there are fewer threads. (A plan lists every rate's jobs: its
/// placeholders never saturate; collecting stops where the one-machine sweep stops.)
pub fn sweep_replicated(runner: &dyn Runner, s: &Scenario, rates: &[f64], replications: usize, stop_at_saturation: bool) -> Vec<Replicated> {
    let group = if stop_at_saturation { super::threads().div_ceil(replications).max(1) } else { rates.len().max(1) };
    let mut points = Vec::with_capacity(rates.len());
    for chunk in rates.chunks(group) {
        let jobs: Vec<Job> =
            chunk.iter().flat_map(|&rate| replication_scenarios(&at_rate(s, rate), replications)).map(|s| Job::run(&s)).collect();
        let mut reports = runner.run(jobs).into_iter().map(Outcome::into_run);
        for &rate in chunk {
            let point = Replicated::of(reports.by_ref().take(replications).collect(), seeds(&at_rate(s, rate), replications));
            let saturated = point.saturated();
            points.push(point);
            if stop_at_saturation && saturated {
                return points;
            }
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Local;

    #[test]
    fn across_seeds_by_hand() {
        // Mean 3, sample variance (4 + 1 + 1 + 4) / 4 = 2.5, t(0.975, 4) = 2.7764 over √5.
        let a = AcrossSeeds::of(&[1.0, 2.0, 4.0, 5.0, 3.0]);
        assert_eq!((a.mean, a.n), (3.0, 5));
        assert!((a.sd.unwrap() - 2.5f64.sqrt()).abs() < 1e-12);
        assert!((a.ci95.unwrap() - 2.7764 * (2.5f64 / 5.0).sqrt()).abs() < 1e-9);
        assert_eq!(AcrossSeeds::of(&[7.0]), AcrossSeeds { mean: 7.0, ci95: None, sd: None, n: 1 });
    }

    #[test]
    fn replications_start_from_the_scenarios_own_seed_and_each_is_the_run_of_its_seed() {
        let s = Scenario::parse("k=4&len=4&rate=0.02&seed=9&warmup=100&cycles=1000").unwrap();
        let seeds = seeds(&s, 4);
        assert_eq!(seeds[0], 9);
        let mut distinct = seeds.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 4, "{seeds:?}");
        // Derived from the seed, not counted from it: another scenario's seeds do not overlap.
        assert!(super::seeds(&Scenario { seed: 10, ..s.clone() }, 4).iter().all(|x| !seeds[1..].contains(x)));
        let r = replicate(&s, 4);
        assert_eq!(r.first, simulate(&s), "the first replication is the plain run");
        assert_eq!(r.seeds, seeds);
        for (summary, &seed) in r.replications.iter().zip(&seeds) {
            let own = simulate(&Scenario { seed, ..s.clone() });
            assert_eq!((summary.seed, summary.latency_mean, summary.accepted_flits_per_node_cycle), (seed, own.latency_mean, own.accepted_flits_per_node_cycle));
        }
        let latencies: Vec<f64> = r.replications.iter().map(|x| x.latency_mean).collect();
        assert_eq!(r.across_seeds.latency_mean, AcrossSeeds::of(&latencies));
        assert!(latencies.iter().any(|&l| l != latencies[0]), "the seeds differ: {latencies:?}");
        assert_eq!(r.saturated_replications, 0);
    }

    #[test]
    fn a_sweep_stops_after_its_first_saturated_point_when_asked() {
        let s = Scenario::parse("k=4&len=4&traffic=tornado&warmup=100&cycles=1000").unwrap();
        let rates = [0.01, 0.02, 0.2, 0.22, 0.24];
        let all = sweep_replicated(&Local::quiet(), &s, &rates, 2, false);
        assert_eq!(all.len(), 5);
        let first = all.iter().position(Replicated::saturated).expect("the high rates saturate");
        let stopped = sweep_replicated(&Local::quiet(), &s, &rates, 2, true);
        assert_eq!(stopped.len(), first + 1);
        assert_eq!(stopped, all[..=first]);
    }
}
