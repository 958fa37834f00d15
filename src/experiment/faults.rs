//! `torus experiment faults`: latency and delivered throughput against the share of links
//! failed at random, the comparison that motivates scouting switching (seed 001) and Duato-Nbc
//! (seed 000). Wormhole Duato, scouting switching over Duato's routing with probe leads
//! K = 0, 1 and 3 and misrouting, Duato-Nbc and dimension-order routing, on an 8×8 torus under
//! uniform traffic at one moderate load, with 0 to 10 % of the links failed, several fault sets
//! (seeds) at each share. Writes `faults.md`, `faults.csv` and the plots `faults-*.svg`.

use crate::experiment::jobs::{Job, Outcome, Runner};
use crate::scenario::Scenario;
use crate::sim::RunReport;
use crate::svg::{Curve, Plot};
use std::fmt::Write;

/// Radix of the torus.
pub const K: u32 = 8;
/// Message length, flits.
pub const LEN: u32 = 16;
/// Virtual channels per physical channel for every algorithm: the fewest Duato-Nbc needs on an
/// 8×8 torus (five escape levels and one adaptive VC), so that every algorithm has the same
/// buffers (DOR three per dateline class, Duato two escape and four adaptive).
pub const VCS: u32 = 6;
/// Flits per VC buffer.
pub const BUF: u32 = 4;
/// Offered load, messages/node/cycle: 0.16 flits/node/cycle, 16 % of capacity, well below
/// every algorithm's saturation without faults.
pub const RATE: f64 = 0.01;
/// Misroutes a scouting header may make round faults (`misroute`).
pub const MISROUTES: u32 = 8;
/// Shares of the links failed at random.
pub const FAULT_SHARES: [f64; 6] = [0.0, 0.02, 0.04, 0.06, 0.08, 0.10];

/// One algorithm of the comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contender {
    pub label: &'static str,
    /// Its scenario keys.
    pub keys: &'static str,
}

pub const CONTENDERS: [Contender; 6] = [
    Contender { label: "DOR (wormhole)", keys: "routing=dor&switching=wormhole" },
    Contender { label: "Duato (wormhole)", keys: "routing=duato&switching=wormhole" },
    Contender { label: "Duato-Nbc (wormhole)", keys: "routing=nbc&switching=wormhole" },
    Contender { label: "scouting, K = 0", keys: "routing=duato&switching=scouting&scout=0" },
    Contender { label: "scouting, K = 1", keys: "routing=duato&switching=scouting&scout=1" },
    Contender { label: "scouting, K = 3", keys: "routing=duato&switching=scouting&scout=3" },
];

/// Run lengths and the number of fault sets per share.
#[derive(Clone, Copy, Debug)]
pub struct Effort {
    pub warmup: u64,
    pub cycles: u64,
    pub seeds: u64,
}

impl Effort {
    pub fn quick() -> Effort {
        Effort { warmup: 500, cycles: 3_000, seeds: 3 }
    }
    pub fn full() -> Effort {
        Effort { warmup: 2_000, cycles: 20_000, seeds: 8 }
    }
}

/// The scenario of one run.
pub fn scenario(c: &Contender, share: f64, seed: u64, effort: &Effort) -> Scenario {
    let misroute = if c.keys.contains("scouting") { MISROUTES } else { 0 };
    let text = format!(
        "k={K}&{}&traffic=uniform&rate={RATE}&len={LEN}&vcs={VCS}&buf={BUF}&seed={seed}&warmup={}&cycles={}\
         &frandom={}&misroute={misroute}",
        c.keys,
        effort.warmup,
        effort.cycles,
        crate::faults::RandomFaults::Fraction(share)
    );
    Scenario::parse(&text).expect("the fault experiment's scenarios are valid")
}

/// What one run measured.
#[derive(Clone, Debug)]
pub struct Row {
    pub contender: usize,
    pub share: f64,
    pub seed: u64,
    pub links_failed: u32,
    pub report: RunReport,
}

impl Row {
    /// Flits delivered in the window over the flits offered at the scenario's rate: a run that
    /// stopped early (a stall or a deadlock) delivers nothing for the rest of the window, and
    /// generated nothing more either, so its own offered load would hide the loss.
    pub fn throughput(&self) -> f64 {
        self.report.accepted_flits_per_node_cycle / (RATE * LEN as f64)
    }

    /// How the run ended: a deadlock, a stall at faults, or neither.
    pub fn ending(&self) -> &'static str {
        if self.report.deadlock {
            "deadlock"
        } else if self.report.fault_stall {
            "stalled"
        } else {
            ""
        }
    }
}

/// Every run, contender by contender, share by share, seed by seed, carried out by `runner`
/// (the rows come back in that order).
pub fn measure(effort: &Effort, runner: &dyn Runner) -> Vec<Row> {
    let mut runs = Vec::new();
    for contender in 0..CONTENDERS.len() {
        for &share in &FAULT_SHARES {
            for seed in 1..=effort.seeds {
                runs.push((contender, share, seed, scenario(&CONTENDERS[contender], share, seed, effort)));
            }
        }
    }
    let outcomes = runner.run(runs.iter().map(|(_, _, _, s)| Job::run(s)).collect());
    runs.into_iter()
        .zip(outcomes)
        .map(|((contender, share, seed, s), outcome)| {
            let links_failed = crate::faults::RandomFaults::Fraction(share).count(crate::faults::link_count(s.nodes() as u32, s.n));
            Row { contender, share, seed, links_failed, report: Outcome::into_run(outcome) }
        })
        .collect()
}

/// Mean, least and greatest of some values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    fn of(values: impl Iterator<Item = f64>) -> Option<Spread> {
        let v: Vec<f64> = values.collect();
        if v.is_empty() {
            return None;
        }
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        Some(Spread { mean, min: v.iter().cloned().fold(f64::INFINITY, f64::min), max: v.iter().cloned().fold(f64::NEG_INFINITY, f64::max) })
    }
}

/// The runs of one contender at one share.
fn runs(rows: &[Row], contender: usize, share: f64) -> impl Iterator<Item = &Row> {
    rows.iter().filter(move |r| r.contender == contender && r.share == share)
}

/// A measure of one contender at one share, over its fault sets.
fn spread(rows: &[Row], contender: usize, share: f64, f: impl Fn(&Row) -> Option<f64>) -> Option<Spread> {
    Spread::of(runs(rows, contender, share).filter_map(f))
}

fn delivered(r: &Row) -> Option<f64> {
    Some(r.report.delivered_fraction)
}

fn latency(r: &Row) -> Option<f64> {
    (r.report.messages_measured > 0).then_some(r.report.latency_mean)
}

/// One plot: the mean of a measure over the fault sets against the share of links failed, a
/// curve per algorithm (the table gives the range over fault sets).
fn plot(rows: &[Row], title: &str, y_label: &str, y_max: Option<f64>, f: &dyn Fn(&Row) -> Option<f64>) -> Plot {
    let curves = CONTENDERS
        .iter()
        .enumerate()
        .map(|(i, c)| Curve {
            label: c.label.into(),
            points: FAULT_SHARES.iter().filter_map(|&share| spread(rows, i, share, f).map(|s| (100.0 * share, s.mean))).collect(),
            dashed: c.keys.contains("scouting"),
        })
        .collect();
    Plot {
        title: title.into(),
        x_label: "links failed at random (%)".into(),
        y_label: y_label.into(),
        curves,
        x_max: Some(100.0 * FAULT_SHARES[FAULT_SHARES.len() - 1]),
        y_max,
        ..Plot::default()
    }
}

/// The experiment's files: `faults.md`, `faults.csv` and the plots.
pub struct Output {
    pub files: Vec<(String, String)>,
}

pub fn run(effort: &Effort, command: &str, runner: &dyn Runner) -> Output {
    let before = runner.elapsed().0;
    let rows = measure(effort, runner);
    let (now, threads) = runner.elapsed();
    let plots = [
        ("faults-delivered.svg", plot(&rows, "Messages delivered", "fraction of the messages generated in the window", Some(1.0), &delivered)),
        ("faults-throughput.svg", plot(&rows, "Delivered throughput", "flits delivered / flits offered in the window", None, &|r: &Row| Some(r.throughput()))),
        ("faults-latency.svg", plot(&rows, "Latency of the messages delivered", "mean latency (cycles)", None, &latency)),
    ];
    let markdown = markdown(&rows, effort, command, (now - before, threads), &plots.iter().map(|(name, _)| *name).collect::<Vec<_>>());
    let mut files = vec![("faults.md".to_string(), markdown), ("faults.csv".to_string(), csv(&rows))];
    files.extend(plots.into_iter().map(|(name, p)| (name.to_string(), p.render())));
    Output { files }
}

pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "algorithm,links_failed_share,links_failed,seed,delivered_fraction,delivered_over_offered,latency_mean,\
         messages_stuck_at_faults,messages_unreachable,misroutes_per_message,backtracks_per_message,ending,cycles\n",
    );
    for r in rows {
        let p = &r.report;
        let _ = writeln!(
            out,
            "{},{},{},{},{:.4},{:.4},{:.2},{},{},{:.4},{:.4},{},{}",
            CONTENDERS[r.contender].label,
            r.share,
            r.links_failed,
            r.seed,
            p.delivered_fraction,
            r.throughput(),
            p.latency_mean,
            p.messages_stuck_at_faults,
            p.messages_unreachable,
            p.misroutes_per_message,
            p.backtracks_per_message,
            r.ending(),
            p.cycles
        );
    }
    out
}

fn cell(s: Option<Spread>, decimals: usize) -> String {
    match s {
        None => "–".into(),
        Some(s) if s.max - s.min < 0.5 * 10f64.powi(-(decimals as i32)) => format!("{:.*}", decimals, s.mean),
        Some(s) => format!("{:.*} ({:.*}–{:.*})", decimals, s.mean, decimals, s.min, decimals, s.max),
    }
}

/// `wall`: seconds of work and the threads they ran on.
pub fn markdown(rows: &[Row], effort: &Effort, command: &str, wall: (f64, usize), plots: &[&str]) -> String {
    let (seconds, threads) = wall;
    let mut md = String::from("# Faulty links: wormhole, scouting and Duato-Nbc\n\n");
    let _ = writeln!(
        md,
        "Latency and delivered throughput against the share of links failed at random (`frandom`), the comparison \
         that motivates scouting switching (seed 001) and Duato-Nbc (seed 000); how faults are modelled is \
         [docs/faults.md](../faults.md). Written by `{command}`.\n\n\
         Setup: {K}×{K} torus (128 links), uniform traffic, {LEN}-flit messages at {RATE} messages/node/cycle \
         ({:.2} flits/node/cycle, {:.0} % of capacity), {VCS} virtual channels of {BUF} flits per channel for every \
         algorithm. Scouting switching runs over Duato's routing with misrouting, at most m = {MISROUTES} misroutes per \
         message. Each share of failed links is drawn {} times (seeds 1 to {}: the seed draws the faults and the \
         traffic); each run has a {}-cycle warm-up and a {}-cycle window, then a drain, and ends early when the \
         network stops (a deadlock, or a stall behind messages stuck at faults). Wall time {seconds:.0} s on {} threads.\n",
        RATE * LEN as f64,
        100.0 * RATE * LEN as f64 * K as f64 / 8.0,
        effort.seeds,
        effort.seeds,
        effort.warmup,
        effort.cycles,
        threads
    );
    for p in plots {
        let _ = writeln!(md, "![{p}]({p})\n");
    }
    md.push_str(
        "Each cell is the mean over the fault sets, with the least and greatest in brackets when they differ. \
         *Delivered* is the fraction of the messages generated in the window that arrived (until the run \
         stopped, for a run that stopped early); *throughput* is the flits delivered in the whole window over \
         the flits offered at the rate, so a run that stopped early counts as delivering nothing for the rest \
         of its window; *latency* is over the messages delivered; *stuck* is the messages stuck at faults when \
         the run ended; *ended* counts runs that stopped early.\n\n",
    );
    md.push_str("| algorithm | links failed | delivered | throughput | latency (cycles) | stuck | misroutes / message | backtracks / message | ended |\n|---|---|---|---|---|---|---|---|---|\n");
    for (i, c) in CONTENDERS.iter().enumerate() {
        for &share in &FAULT_SHARES {
            let these: Vec<&Row> = runs(rows, i, share).collect();
            let Some(first) = these.first() else { continue };
            let ended: Vec<String> = ["deadlock", "stalled"]
                .iter()
                .filter_map(|&e| {
                    let n = these.iter().filter(|r| r.ending() == e).count();
                    (n > 0).then(|| format!("{n} {e}"))
                })
                .collect();
            let _ = writeln!(
                md,
                "| {} | {:.0} % ({}) | {} | {} | {} | {} | {} | {} | {} |",
                c.label,
                100.0 * share,
                first.links_failed,
                cell(spread(rows, i, share, delivered), 3),
                cell(spread(rows, i, share, |r| Some(r.throughput())), 3),
                cell(spread(rows, i, share, latency), 1),
                cell(spread(rows, i, share, |r| Some(r.report.messages_stuck_at_faults as f64)), 1),
                cell(spread(rows, i, share, |r| Some(r.report.misroutes_per_message)), 3),
                cell(spread(rows, i, share, |r| Some(r.report.backtracks_per_message)), 3),
                ended.join(", ")
            );
        }
    }
    md.push_str("\n## What the curves show\n\n");
    md.push_str(&findings(rows));
    md
}

/// The mean of a measure for a contender at a share.
fn mean(rows: &[Row], contender: usize, share: f64, f: impl Fn(&Row) -> Option<f64>) -> f64 {
    spread(rows, contender, share, f).map_or(f64::NAN, |s| s.mean)
}

/// The findings, in words, from the measurements themselves.
pub fn findings(rows: &[Row]) -> String {
    let mut md = String::new();
    let last = FAULT_SHARES[FAULT_SHARES.len() - 1];
    let at = |i: usize, share: f64| mean(rows, i, share, delivered);
    let pct = |share: f64| format!("{:.0} %", 100.0 * share);
    let clean: Vec<String> = (0..CONTENDERS.len()).map(|i| format!("{} {:.3}", CONTENDERS[i].label, at(i, 0.0))).collect();
    let _ = writeln!(md, "- **Without faults** every algorithm delivers what it is offered: {}.", clean.join(", "));
    let first_faulty = FAULT_SHARES[1];
    let dor = (at(0, first_faulty), at(0, last));
    let _ = writeln!(
        md,
        "- **Dimension-order routing has no way round a fault.** With {} of the links failed it delivers {:.3} of the \
         messages, with {} {:.3}: every message whose path crosses a failed link is stuck there, and the worms \
         behind it stop the rest.",
        pct(first_faulty),
        dor.0,
        pct(last),
        dor.1
    );
    let (duato, nbc) = ((at(1, first_faulty), at(1, last)), (at(2, first_faulty), at(2, last)));
    let _ = writeln!(
        md,
        "- **Minimal adaptive routing helps, but not at the last hop.** Wormhole Duato delivers {:.3} at {} and {:.3} \
         at {}; Duato-Nbc {:.3} and {:.3}. They go round a failed link whenever another productive channel \
         survives, but a message left with one dimension to travel has one way on, and it waits at the fault, \
         holding its channels, until the network stalls round it (the *stalled* runs).",
        duato.0,
        pct(first_faulty),
        duato.1,
        pct(last),
        nbc.0,
        nbc.1
    );
    let deadlocks = |i: usize| rows.iter().filter(|r| r.contender == i && r.report.deadlock).count();
    let _ = writeln!(
        md,
        "- **Deadlock.** Runs that ended in a deadlock: {}. Duato-Nbc never deadlocks with faults (its escape levels \
         are on every productive port); Duato's escape layer can be cut by a fault, and misrouting takes messages \
         outside any escape ordering ([docs/faults.md](../faults.md) §5).",
        (0..CONTENDERS.len()).map(|i| format!("{} {}", CONTENDERS[i].label, deadlocks(i))).collect::<Vec<_>>().join(", ")
    );
    let scouting: Vec<String> = (3..CONTENDERS.len())
        .map(|i| format!("{} {:.3} at {} and {:.3} at {}", CONTENDERS[i].label, at(i, first_faulty), pct(first_faulty), at(i, last), pct(last)))
        .collect();
    let best_wormhole = (0..3).map(|i| at(i, last)).fold(f64::NEG_INFINITY, f64::max);
    let best_scouting = (3..CONTENDERS.len()).map(|i| at(i, last)).fold(f64::NEG_INFINITY, f64::max);
    let _ = writeln!(
        md,
        "- **Scouting switching with misrouting routes round the faults**: {}. At {} the best scouting variant \
         delivers {:.3} against {:.3} for the best wormhole algorithm.",
        scouting.join("; "),
        pct(last),
        best_scouting,
        best_wormhole,
    );
    let runs_at_last = rows.iter().filter(|r| r.contender == 3 && r.share == last).count();
    let stalled: Vec<String> = (3..CONTENDERS.len())
        .map(|i| format!("{} {}", CONTENDERS[i].label, rows.iter().filter(|r| r.contender == i && r.share == last && r.report.fault_stall).count()))
        .collect();
    let stuck: Vec<String> = (3..CONTENDERS.len())
        .map(|i| format!("{} {:.1}", CONTENDERS[i].label, mean(rows, i, last, |r| Some(r.report.messages_stuck_at_faults as f64))))
        .collect();
    let _ = writeln!(
        md,
        "- **What misrouting leaves behind.** A header that has spent its m = {MISROUTES} misroutes, or that is in a \
         dead end it cannot back out of (only the probe lead K lets it back out, and only over channels its data has \
         not reached), is stuck like a wormhole header. Messages stuck when the run ended, at {} (mean over the fault \
         sets): {}; runs of {runs_at_last} that stalled: {}. The price of the probe lead is latency without faults: \
         {:.1} cycles for K = 3 against {:.1} for K = 0.",
        pct(last),
        stuck.join(", "),
        stalled.join(", "),
        mean(rows, 5, 0.0, latency),
        mean(rows, 3, 0.0, latency)
    );
    let _ = writeln!(
        md,
        "- **Latency** of the messages that do arrive rises with the faults under scouting (misroutes and backtracks \
         lengthen their paths: {:.2} misroutes and {:.2} backtracks per message for K = 3 at {}); under wormhole \
         routing it tells little, since the messages that would wait longest are the ones that never arrive.",
        mean(rows, 5, last, |r| Some(r.report.misroutes_per_message)),
        mean(rows, 5, last, |r| Some(r.report.backtracks_per_message)),
        pct(last)
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_is_valid_and_fails_the_share_asked_for() {
        let effort = Effort { warmup: 10, cycles: 10, seeds: 2 };
        for c in &CONTENDERS {
            for &share in &FAULT_SHARES {
                let s = scenario(c, share, 1, &effort);
                assert_eq!(s.has_faults(), share > 0.0, "{}", c.label);
                assert_eq!(s.vcs, VCS);
                assert_eq!(s.misroute > 0, c.keys.contains("scouting"));
            }
        }
        // 10 % of the 128 links of an 8×8 torus.
        assert_eq!(crate::faults::RandomFaults::Fraction(0.1).count(128), 13);
    }

    #[test]
    fn a_tiny_experiment_writes_its_table_csv_and_plots() {
        let effort = Effort { warmup: 100, cycles: 400, seeds: 1 };
        let out = run(&effort, "test", &crate::experiment::jobs::Local::quiet());
        let file = |name: &str| out.files.iter().find(|(n, _)| n == name).map(|(_, t)| t.clone()).unwrap();
        let md = file("faults.md");
        assert!(md.contains("## What the curves show"));
        assert!(md.contains("![faults-delivered.svg](faults-delivered.svg)"));
        assert_eq!(md.matches("| DOR (wormhole) |").count(), FAULT_SHARES.len());
        assert_eq!(file("faults.csv").lines().count(), 1 + CONTENDERS.len() * FAULT_SHARES.len());
        assert!(file("faults-latency.svg").starts_with("<svg"));
        // Without faults everything generated in the window arrives.
        for line in file("faults.csv").lines().skip(1).filter(|l| l.split(',').nth(1) == Some("0")) {
            assert_eq!(line.split(',').nth(4), Some("1.0000"), "{line}");
        }
    }
}
