//! The channel-queue model against the simulator (`torus validate`, written to
//! `docs/validation/channel-queue.md`), over the routing × pattern grid of
//! `docs/models/channel-queue.md` §8 on one torus size and message length.
//!
//! For each configuration: the simulated saturation rate (`torus saturation`'s search), the
//! model's, and the simulated latency at fixed fractions of the *simulated* saturation rate
//! beside the model's (and beside a paper's model where one also applies); at half of
//! saturation, one long run whose per-channel utilisation is set against the model's
//! prediction, channel by channel.

use crate::svg::{Curve, Marker, MarkerSeries, Plot, VerticalLine};
use super::SimulatedPoint;
use crate::experiment::{self, CurvePoint, CurveRuns, Job, Outcome, Runner};
use crate::models::{self, channel_queue};
use crate::scenario::{RoutingKind, Scenario, TrafficKind};
use crate::sim::RunReport;
use std::fmt::Write;
use std::path::Path;

/// The routing algorithms of the grid (every one with virtual channels).
pub const ROUTINGS: [RoutingKind; 9] = [
    RoutingKind::Dor,
    RoutingKind::Val,
    RoutingKind::Romm,
    RoutingKind::Rlb,
    RoutingKind::Minad,
    RoutingKind::Goal,
    RoutingKind::Duato,
    RoutingKind::Adaptive,
    RoutingKind::Nbc,
];

/// The traffic patterns of the grid.
pub const PATTERNS: [TrafficKind; 7] = [
    TrafficKind::Uniform,
    TrafficKind::Tornado,
    TrafficKind::Transpose,
    TrafficKind::Bitcomp,
    TrafficKind::Neighbor,
    TrafficKind::Permutation,
    TrafficKind::Hotspot,
];

/// Where the latency error is judged (§8): loads up to half the simulated saturation rate, and
/// from half to 80 %.
pub const LOW_LOAD: f64 = 0.5;
pub const HIGH_LOAD: f64 = 0.8;
/// The targets of §8.
pub const LOW_TARGET: f64 = 0.05;
pub const HIGH_TARGET: f64 = 0.12;
pub const SATURATION_TARGET: f64 = 0.10;
pub const UTILISATION_TARGET: f64 = 0.02;

/// The size of the check.
#[derive(Clone, Debug, PartialEq)]
pub struct Length {
    /// The torus and messages every configuration shares (a scenario string's keys).
    pub base: String,
    pub warmup: u64,
    pub cycles: u64,
    /// Window of the long run at half of saturation whose channel utilisation is compared.
    pub utilisation_cycles: u64,
    /// Warm-up and window of each run of the saturation search.
    pub saturation_warmup: u64,
    pub saturation_cycles: u64,
    /// Simulated rates, as fractions of the simulated saturation rate; `LOW_LOAD` is the long run.
    pub fractions: Vec<f64>,
}

impl Length {
    /// The committed report: 8×8, M = 16, B = 4, each algorithm's default VCs.
    pub fn full() -> Length {
        Length {
            base: "k=8&len=16&buf=4".into(),
            warmup: 5_000,
            cycles: 50_000,
            utilisation_cycles: 1_000_000,
            saturation_warmup: 2_000,
            saturation_cycles: 20_000,
            fractions: vec![0.1, 0.3, 0.5, 0.7, 0.8, 0.9],
        }
    }

    /// A smoke run, too short to judge the model by.
    pub fn quick() -> Length {
        Length {
            base: "k=6&len=8&buf=4".into(),
            warmup: 300,
            cycles: 2_000,
            utilisation_cycles: 4_000,
            saturation_warmup: 300,
            saturation_cycles: 1_000,
            fractions: vec![0.3, 0.5, 0.8],
        }
    }
}

/// The torus sizes k and message lengths M of §8's grid, each with every other (k = 8 and
/// M = 16 are the committed report's).
pub const GRID_RADICES: [u32; 3] = [4, 8, 16];
pub const GRID_LENGTHS: [u32; 3] = [1, 16, 32];

impl Length {
    /// This length on a k×k torus with messages of `len` flits.
    pub fn sized(&self, k: u32, len: u32) -> Length {
        Length { base: format!("k={k}&len={len}&buf=4"), ..self.clone() }
    }

    /// §8's whole grid at the committed report's run lengths: every k by every M.
    pub fn grid() -> Vec<Length> {
        Length::full().grid_of(&GRID_RADICES, &GRID_LENGTHS).expect("§8's grid is valid")
    }

    /// This length on every k of `radices` by every M of `lengths` (`validate --grid --k … --len
    /// …`), or why a size does not hold the grid.
    pub fn grid_of(&self, radices: &[u32], lengths: &[u32]) -> Result<Vec<Length>, String> {
        let sizes: Vec<Length> = radices.iter().flat_map(|&k| lengths.iter().map(move |&len| self.sized(k, len))).collect();
        for size in &sizes {
            checked_configurations(size)?;
        }
        Ok(sizes)
    }
}

/// One simulated rate, with both predictions.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub fraction: f64,
    pub rate: f64,
    /// The channel-queue model's latency (`None` where saturated).
    pub model: Option<f64>,
    /// A paper's model's, where one applies.
    pub paper: Option<f64>,
    pub simulated: SimulatedPoint,
    /// The part of the latency spent at the source: the simulated `source_queue_mean` and the
    /// model's W_s (`None` where the model is saturated or gives no prediction).
    pub source: Option<SourceWait>,
}

/// The time a message spends at its source, simulated and predicted: what separates the error
/// of the source queue's M/G/1 wait from that of the network's waits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceWait {
    pub simulated: f64,
    pub model: f64,
}

impl Point {
    /// The errors of the source part and of the rest of the latency, each relative to the
    /// simulated latency (so that the two add up to the point's error).
    pub fn error_parts(&self) -> Option<(f64, f64)> {
        let (model, source) = (self.model?, self.source?);
        self.error()?;
        let s = self.simulated.latency;
        Some(((source.model - source.simulated) / s, ((model - source.model) - (s - source.simulated)) / s))
    }

    fn error_of(&self, model: Option<f64>) -> Option<f64> {
        let s = self.simulated;
        if s.saturated || s.deadlock || s.latency <= 0.0 {
            return None;
        }
        // A model saturated where the simulator keeps up is off by more than any finite error.
        Some(model.map_or(f64::INFINITY, |m| (m - s.latency) / s.latency))
    }

    pub fn error(&self) -> Option<f64> {
        self.error_of(self.model)
    }

    pub fn paper_error(&self) -> Option<f64> {
        self.error_of(self.paper)
    }
}

/// Predicted against measured flits/cycle on every channel, at one rate.
#[derive(Clone, Debug, PartialEq)]
pub struct Utilisation {
    pub rate: f64,
    pub mean_difference: f64,
    pub max_difference: f64,
    pub hottest_measured: f64,
    pub hottest_predicted: f64,
}

/// One configuration, compared.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub scenario: Scenario,
    pub routes: String,
    pub model_saturation: f64,
    pub simulated_saturation: f64,
    /// The paper's model that also applies, with its saturation rate.
    pub paper: Option<(&'static str, f64)>,
    pub points: Vec<Point>,
    pub utilisation: Option<Utilisation>,
    /// The model's latency on a fine grid up to its saturation rate.
    pub curve: Vec<(f64, f64)>,
    pub simulations: usize,
    /// Why the model gives no prediction here, where it gives none (its routes need more route
    /// states than it keeps: adaptive algorithms under uniform traffic on 16×16). The model's
    /// saturation rate is then NaN and every target counts as missed.
    pub no_prediction: Option<String>,
}

impl Comparison {
    pub fn id(&self) -> String {
        format!("channel-queue-{}-{}", self.scenario.routing, self.scenario.traffic)
    }

    /// (model − simulated) / simulated saturation rate.
    pub fn saturation_error(&self) -> f64 {
        (self.model_saturation - self.simulated_saturation) / self.simulated_saturation
    }

    /// Mean |error| of the points with fraction in (lo, hi].
    pub fn mean_error(&self, lo: f64, hi: f64, paper: bool) -> Option<f64> {
        let errors: Vec<f64> = self
            .points
            .iter()
            .filter(|p| p.fraction > lo && p.fraction <= hi + 1e-12)
            .filter_map(|p| if paper { p.paper_error() } else { p.error() })
            .map(f64::abs)
            .collect();
        (!errors.is_empty()).then(|| errors.iter().sum::<f64>() / errors.len() as f64)
    }

    /// The mean signed error parts ([`Point::error_parts`]: the source's, the rest's) over the
    /// points above `lo` and up to `hi` of saturation where both are known.
    pub fn mean_error_parts(&self, lo: f64, hi: f64) -> Option<(f64, f64)> {
        let parts: Vec<(f64, f64)> =
            self.points.iter().filter(|p| p.fraction > lo && p.fraction <= hi + 1e-12).filter_map(Point::error_parts).collect();
        let n = parts.len() as f64;
        (!parts.is_empty()).then(|| (parts.iter().map(|p| p.0).sum::<f64>() / n, parts.iter().map(|p| p.1).sum::<f64>() / n))
    }

    /// Whether every target of §8 that this configuration measured is met.
    pub fn meets_targets(&self) -> bool {
        self.no_prediction.is_none()
            && self.mean_error(0.0, LOW_LOAD, false).is_none_or(|e| e <= LOW_TARGET)
            && self.mean_error(LOW_LOAD, HIGH_LOAD, false).is_none_or(|e| e <= HIGH_TARGET)
            && self.saturation_error().abs() <= SATURATION_TARGET
            && self.utilisation.as_ref().is_none_or(|u| u.max_difference <= UTILISATION_TARGET)
    }
}

/// The grid's scenarios. A torus too small for seed 004's five hot nodes (fewer than 25 nodes)
/// gets one, its centre, five times as likely as any other destination.
pub fn configurations(length: &Length) -> Vec<Scenario> {
    checked_configurations(length).expect("a valid grid")
}

/// [`configurations`], or why one of them is not a valid scenario (a size the grid's patterns
/// are not defined on).
fn checked_configurations(length: &Length) -> Result<Vec<Scenario>, String> {
    let torus = Scenario::parse(&length.base).map_err(|e| format!("{}: {e}", length.base))?;
    let centre = (0..torus.n).map(|d| (torus.k / 2) * torus.k.pow(d)).sum::<u32>();
    let mut list = Vec::new();
    for routing in ROUTINGS {
        for traffic in PATTERNS {
            let mut text = format!("{}&routing={routing}&traffic={traffic}", length.base);
            if traffic == TrafficKind::Hotspot && torus.k.pow(torus.n) < 25 {
                text += &format!("&hot={centre}");
            }
            let s = Scenario::parse(&text).map_err(|e| format!("{text}: {e}"))?;
            channel_queue::assumptions_hold(&s).map_err(|e| format!("{text}: the channel-queue model does not cover it: {e}"))?;
            list.push(s);
        }
    }
    Ok(list)
}

const CURVE_POINTS: usize = 60;

/// A configuration's simulations as one job: its saturation search, then a run at each of the
/// length's fractions of the rate found (the long one at `LOW_LOAD`, for the utilisation).
pub fn job(s: &Scenario, length: &Length) -> Job {
    let search = Scenario { warmup: length.saturation_warmup, cycles: length.saturation_cycles, ..s.clone() };
    let points: Vec<CurvePoint> = length
        .fractions
        .iter()
        .map(|&fraction| CurvePoint {
            fraction,
            warmup: length.warmup,
            cycles: if fraction == LOW_LOAD { length.utilisation_cycles } else { length.cycles },
        })
        .collect();
    Job::curve(&search, &points)
}

/// The grid's simulations, carried out by `runner`: one job per configuration.
pub fn simulate(length: &Length, runner: &dyn Runner) -> Vec<CurveRuns> {
    let jobs = configurations(length).iter().map(|s| job(s, length)).collect();
    runner.run(jobs).into_iter().map(Outcome::into_curve).collect()
}

/// The simulations of several lengths' grids, handed to `runner` as one batch so that its
/// threads stay busy across them; one list per length.
pub fn simulate_all(lengths: &[Length], runner: &dyn Runner) -> Vec<Vec<CurveRuns>> {
    let jobs = lengths.iter().flat_map(|length| configurations(length).into_iter().map(move |s| job(&s, length))).collect();
    let mut outcomes = runner.run(jobs).into_iter().map(Outcome::into_curve);
    lengths.iter().map(|length| outcomes.by_ref().take(configurations(length).len()).collect()).collect()
}

/// Compares one configuration's model with its simulations.
pub fn compare(s: &Scenario, length: &Length, simulated: &CurveRuns) -> Comparison {
    let model = match channel_queue::Model::new(s) {
        Ok(model) => model,
        Err(reason) => return without_prediction(s, length, simulated, reason),
    };
    let model_saturation = model.saturation_rate();
    let simulated_saturation = simulated.search.saturation_rate;
    let paper = models::paper_model(s).ok();
    let paper_saturation = paper.as_ref().map(|m| (m.name(), m.saturation_rate(s)));
    let rates: Vec<f64> = length.fractions.iter().map(|f| f * simulated_saturation).collect();
    let latencies = model.curve(&rates);
    let mut utilisation = None;
    let points = length
        .fractions
        .iter()
        .zip(&simulated.runs)
        .zip(&latencies)
        .map(|((&fraction, r), &latency)| {
            let rate = fraction * simulated_saturation;
            if fraction == LOW_LOAD {
                let predicted = match model.solve(rate) {
                    Some(solution) => model.channel_utilisation(&solution),
                    None => model.offered_utilisation(rate),
                };
                let differences: Vec<f64> =
                    predicted.iter().zip(&r.channel_utilisation).map(|(p, m)| (p - m).abs()).collect();
                utilisation = Some(Utilisation {
                    rate,
                    mean_difference: differences.iter().sum::<f64>() / differences.len().max(1) as f64,
                    max_difference: differences.iter().copied().fold(0.0, f64::max),
                    hottest_measured: r.channel_utilisation.iter().copied().fold(0.0, f64::max),
                    hottest_predicted: predicted.iter().copied().fold(0.0, f64::max),
                });
            }
            // W_s from a solve at the rate itself: the curve's point started elsewhere, within
            // the tolerance of the same fixed point.
            let source = latency.and_then(|_| model.solve(rate)).and_then(|solution| {
                let model = *model.quantities(&solution).get("W_s")?;
                Some(SourceWait { simulated: r.source_queue_mean, model })
            });
            Point {
                fraction,
                rate,
                model: latency,
                paper: paper.as_ref().and_then(|m| m.evaluate(s, rate).latency),
                simulated: simulated_point(r),
                source,
            }
        })
        .collect();
    let end = model_saturation.min(1.2 * simulated_saturation);
    let grid: Vec<f64> = (0..CURVE_POINTS).map(|i| end * (i as f64 + 0.5) / CURVE_POINTS as f64).collect();
    let curve = grid.iter().zip(model.curve(&grid)).filter_map(|(&r, l)| l.map(|l| (r, l))).collect();
    Comparison {
        scenario: s.clone(),
        routes: model.routes(),
        model_saturation,
        simulated_saturation,
        paper: paper_saturation,
        points,
        utilisation,
        curve,
        simulations: simulated.search.runs + simulated.runs.len(),
        no_prediction: None,
    }
}

/// One simulated run as a point of the comparison.
fn simulated_point(r: &RunReport) -> SimulatedPoint {
    SimulatedPoint { latency: r.latency_mean, ci95: r.latency_ci95, seeds: 1, saturated: r.saturated, deadlock: r.deadlock }
}

/// A configuration the model gives no prediction for: its simulations, and why.
fn without_prediction(s: &Scenario, length: &Length, simulated: &CurveRuns, reason: String) -> Comparison {
    let simulated_saturation = simulated.search.saturation_rate;
    let points = length
        .fractions
        .iter()
        .zip(&simulated.runs)
        .map(|(&fraction, r)| Point {
            fraction,
            rate: fraction * simulated_saturation,
            model: None,
            paper: None,
            simulated: simulated_point(r),
            source: None,
        })
        .collect();
    Comparison {
        scenario: s.clone(),
        routes: "–".into(),
        model_saturation: f64::NAN,
        simulated_saturation,
        paper: None,
        points,
        utilisation: None,
        curve: Vec::new(),
        simulations: simulated.search.runs + simulated.runs.len(),
        no_prediction: Some(reason),
    }
}

/// Every configuration compared with its simulations (from [`simulate`]), in parallel.
pub fn compare_all(length: &Length, simulated: &[CurveRuns]) -> Vec<Comparison> {
    let pairs: Vec<(Scenario, &CurveRuns)> = configurations(length).into_iter().zip(simulated).collect();
    experiment::parallel_map(&pairs, |(s, runs)| compare(s, length, runs))
}

/// Path of a configuration's plot, relative to the validation folder.
fn plot_file(r: &Comparison) -> String {
    format!("{}.svg", r.id())
}

pub const SATURATION_PLOT: &str = "channel-queue-saturation.svg";

/// One configuration's plot: the model's curve, the paper's model's points where one applies,
/// the simulated points, and both saturation rates.
pub fn latency_plot(r: &Comparison) -> Plot {
    let simulated =
        r.points.iter().map(|p| Marker { x: p.rate, y: p.simulated.latency, error: p.simulated.ci95 }).collect();
    let mut markers = vec![MarkerSeries { label: "simulation, 95% CI".into(), markers: simulated }];
    if let Some((name, _)) = r.paper {
        let paper = r.points.iter().filter_map(|p| p.paper.map(|y| Marker { x: p.rate, y, error: 0.0 })).collect();
        markers.push(MarkerSeries { label: format!("paper's model ({name})"), markers: paper });
    }
    let fitted = r
        .curve
        .iter()
        .map(|p| p.1)
        .chain(r.points.iter().filter(|p| !p.simulated.saturated).map(|p| p.simulated.latency + p.simulated.ci95))
        .fold(0.0, f64::max);
    let lowest = r.curve.iter().map(|p| p.1).chain(r.points.iter().map(|p| p.simulated.latency)).fold(f64::INFINITY, f64::min);
    Plot {
        title: format!("channel-queue: {} / {} ({})", r.scenario.routing, r.scenario.traffic, size_of(&r.scenario)),
        x_label: "offered load λ (messages/node/cycle)".into(),
        y_label: "mean message latency (cycles)".into(),
        curves: vec![Curve { label: "model (channel-queue)".into(), points: r.curve.clone(), dashed: false }],
        markers,
        vertical_lines: vec![
            VerticalLine { label: "simulated saturation".into(), x: r.simulated_saturation },
            VerticalLine { label: "model saturation".into(), x: r.model_saturation },
        ],
        x_max: Some(1.25 * r.simulated_saturation.max(r.model_saturation.min(2.0 * r.simulated_saturation))),
        y_max: (fitted > 0.0).then_some(fitted * 1.1),
        y_min: lowest.is_finite().then_some(0.8 * lowest),
    }
}

/// Predicted against simulated saturation rate, every configuration, with the ±10 % band.
pub fn saturation_plot(results: &[Comparison]) -> Plot {
    let markers = results.iter().map(|r| Marker { x: r.simulated_saturation, y: r.model_saturation, error: 0.0 }).collect();
    let top = results.iter().map(|r| r.simulated_saturation.max(r.model_saturation)).fold(0.0, f64::max) * 1.05;
    Plot {
        title: "channel-queue: predicted against simulated saturation rate".into(),
        x_label: "simulated saturation rate (messages/node/cycle)".into(),
        y_label: "predicted saturation rate".into(),
        curves: vec![
            Curve { label: "predicted = simulated".into(), points: vec![(0.0, 0.0), (top, top)], dashed: false },
            Curve { label: "±10 %".into(), points: vec![(0.0, 0.0), (top, 1.1 * top)], dashed: true },
            Curve { label: String::new(), points: vec![(0.0, 0.0), (top, 0.9 * top)], dashed: true },
        ],
        markers: vec![MarkerSeries { label: "routing × pattern".into(), markers }],
        vertical_lines: Vec::new(),
        x_max: Some(top),
        y_max: Some(top),
        y_min: Some(0.0),
    }
}

/// The torus and messages of a scenario, in words.
fn size_of(s: &Scenario) -> String {
    let side = vec![s.k.to_string(); s.n as usize].join("×");
    format!("{side} torus, M = {}, B = {}", s.len, s.buf)
}

fn percent(e: Option<f64>) -> String {
    match e {
        None => "–".into(),
        Some(e) if !e.is_finite() => "saturated".into(),
        Some(e) => format!("{:.1} %", 100.0 * e),
    }
}

fn signed_percent(e: f64) -> String {
    format!("{:+.1} %", 100.0 * e)
}

fn mark(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "**no**"
    }
}

/// A table of one cell per routing algorithm (rows) and traffic pattern (columns), "–" where
/// `results` lacks the configuration.
fn routing_by_pattern(results: &[Comparison], cell: impl Fn(&Comparison) -> String) -> String {
    let mut md = String::from("| routing |");
    for t in PATTERNS {
        let _ = write!(md, " {t} |");
    }
    md.push_str("\n|---|");
    for _ in PATTERNS {
        md.push_str("---|");
    }
    md.push('\n');
    for routing in ROUTINGS {
        let _ = write!(md, "| {routing} |");
        for traffic in PATTERNS {
            let found = results.iter().find(|r| r.scenario.routing == routing && r.scenario.traffic == traffic);
            let _ = write!(md, " {} |", found.map_or("–".into(), &cell));
        }
        md.push('\n');
    }
    md
}

/// How the comparison is made, as both pages state it.
fn method(length: &Length) -> String {
    format!(
        "**Method.** For each routing algorithm and traffic pattern: the simulated saturation rate \
         (`torus saturation`'s bisection, runs of {} + {} cycles), the model's (where its fixed \
         point, continued from the idle network, ends, to 0.1 %), and the mean latency simulated at {} of the simulated saturation \
         rate (runs of {} + {} cycles; the run at {:.0} % is {} cycles long, and its per-channel \
         utilisation is set against `channel_utilisation_predicted`). Errors are (model − \
         simulation) / simulation. Targets: mean |error| ≤ {:.0} % up to {:.0} % of saturation, ≤ \
         {:.0} % from {:.0} to {:.0} %; saturation rate within ±{:.0} %; every channel's \
         utilisation within ±{} flits/cycle. “saturated” means the model had already saturated at \
         a rate the simulator carried.",
        length.saturation_warmup,
        length.saturation_cycles,
        length.fractions.iter().map(|f| format!("{:.0} %", 100.0 * f)).collect::<Vec<_>>().join(", "),
        length.warmup,
        length.cycles,
        100.0 * LOW_LOAD,
        length.utilisation_cycles,
        100.0 * LOW_TARGET,
        100.0 * LOW_LOAD,
        100.0 * HIGH_TARGET,
        100.0 * LOW_LOAD,
        100.0 * HIGH_LOAD,
        100.0 * SATURATION_TARGET,
        UTILISATION_TARGET,
    )
}

/// The report as Markdown.
pub fn markdown(results: &[Comparison], length: &Length, seconds: f64, command: &str) -> String {
    let mut md = String::new();
    let size = results.first().map_or(String::new(), |r| size_of(&r.scenario));
    let _ = writeln!(md, "# The channel-queue model against the simulator\n");
    let _ = writeln!(
        md,
        "Generated by `{command}` ({} configurations, {} simulations, {seconds:.0} s). The model is \
         specified in [`docs/models/channel-queue.md`](../models/channel-queue.md); its §8 sets the \
         targets checked here. Every configuration is {size} with the algorithm's default VCs.\n",
        results.len(),
        results.iter().map(|r| r.simulations).sum::<usize>()
    );
    let _ = writeln!(md, "{}\n", method(length));
    let c = target_counts(results);
    let _ = writeln!(md, "## Summary\n");
    let _ = writeln!(
        md,
        "Every target met in {} of {} configurations. Latency ≤ {:.0} % of saturation: {} of {} \
         within target; {:.0}–{:.0} %: {} of {}; saturation rate: {} of {}; per-channel utilisation: \
         {} of {}.\n",
        c[0],
        results.len(),
        100.0 * LOW_LOAD,
        c[1],
        c[2],
        100.0 * LOW_LOAD,
        100.0 * HIGH_LOAD,
        c[3],
        c[4],
        c[5],
        results.len(),
        c[6],
        c[7],
    );
    let _ = writeln!(md, "Mean |latency error| up to {:.0} % / from {:.0} to {:.0} % of the simulated saturation rate, by routing × pattern:\n", 100.0 * LOW_LOAD, 100.0 * LOW_LOAD, 100.0 * HIGH_LOAD);
    md.push_str(&routing_by_pattern(results, |r| {
        format!("{} / {}", percent(r.mean_error(0.0, LOW_LOAD, false)), percent(r.mean_error(LOW_LOAD, HIGH_LOAD, false)))
    }));
    let _ = writeln!(md, "\n## Saturation rate\n");
    let _ = writeln!(md, "![predicted against simulated saturation rate]({SATURATION_PLOT})\n");
    let _ = writeln!(md, "| routing | traffic | simulated | channel-queue | error | paper's model | routes |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    for r in results {
        let paper = r.paper.map_or("–".to_string(), |(name, sat)| {
            format!("{name}: {sat:.5} ({})", signed_percent((sat - r.simulated_saturation) / r.simulated_saturation))
        });
        let _ = writeln!(
            md,
            "| {} | {} | {:.5} | {:.5} | {} | {paper} | {} |",
            r.scenario.routing,
            r.scenario.traffic,
            r.simulated_saturation,
            r.model_saturation,
            signed_percent(r.saturation_error()),
            r.routes
        );
    }
    let _ = writeln!(md, "\n## Per-channel utilisation at {:.0} % of saturation\n", 100.0 * LOW_LOAD);
    let _ = writeln!(md, "| routing | traffic | rate | mean \\|difference\\| | max \\|difference\\| | hottest measured | hottest predicted | within ±{UTILISATION_TARGET} |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
    for r in results {
        if let Some(u) = &r.utilisation {
            let _ = writeln!(
                md,
                "| {} | {} | {:.5} | {:.4} | {:.4} | {:.3} | {:.3} | {} |",
                r.scenario.routing,
                r.scenario.traffic,
                u.rate,
                u.mean_difference,
                u.max_difference,
                u.hottest_measured,
                u.hottest_predicted,
                mark(u.max_difference <= UTILISATION_TARGET)
            );
        }
    }
    md.push_str(&error_parts(results));
    let _ = writeln!(md, "\n## Every point\n");
    let _ = writeln!(
        md,
        "Where a paper's model also applies, its latency and error stand beside the channel-queue \
         model's, against the same simulation.\n"
    );
    for r in results {
        let _ = writeln!(md, "### {} / {}\n", r.scenario.routing, r.scenario.traffic);
        let _ = writeln!(md, "![{} / {}]({})\n", r.scenario.routing, r.scenario.traffic, plot_file(r));
        let paper_head = r.paper.map_or(String::new(), |(name, _)| format!(" {name} | error |"));
        let paper_rule = if r.paper.is_some() { "---|---|" } else { "" };
        let _ = writeln!(md, "| load | rate | simulated | channel-queue | error |{paper_head}");
        let _ = writeln!(md, "|---|---|---|---|---|{paper_rule}");
        for p in &r.points {
            let sim = if p.simulated.saturated || p.simulated.deadlock {
                format!("{:.2} (saturated)", p.simulated.latency)
            } else {
                format!("{:.2} ± {:.2}", p.simulated.latency, p.simulated.ci95)
            };
            let model = p.model.map_or("saturated".to_string(), |m| format!("{m:.2}"));
            let paper = if r.paper.is_some() {
                let error = match p.paper_error() {
                    Some(e) if e.is_finite() => signed_percent(e),
                    Some(_) => "saturated".into(),
                    None => "–".into(),
                };
                format!(" {} | {error} |", p.paper.map_or("saturated".to_string(), |m| format!("{m:.2}")))
            } else {
                String::new()
            };
            let error = match p.error() {
                Some(e) if e.is_finite() => signed_percent(e),
                Some(_) => "saturated".into(),
                None => "–".into(),
            };
            let _ = writeln!(md, "| {:.0} % | {:.5} | {sim} | {model} | {error} |{paper}", 100.0 * p.fraction, p.rate);
        }
        md.push('\n');
    }
    md
}

/// Where the latency error lies: the source (the M/G/1 wait of the source queue, with the delay
/// at the source router) or the rest (the network's waits), at each load and by configuration.
fn error_parts(results: &[Comparison]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "\n## Where the latency error lies: the source or the network\n");
    let _ = writeln!(
        md,
        "Each point's error splits in two, each part relative to the simulated latency so that they \
         add up to the error: the **source** part, the model's W_s (the source queue's M/G/1 wait and \
         the delay at the source router) against the simulator's `source_queue_mean`, and the \
         **network** part, the rest of the latency against the rest of the simulated one. Mean \
         |part| over the points where the model is not saturated:\n"
    );
    let _ = writeln!(md, "| load | points | latency | source part | network part |");
    let _ = writeln!(md, "|---|---|---|---|---|");
    let mut fractions: Vec<f64> = results.iter().flat_map(|r| r.points.iter().map(|p| p.fraction)).collect();
    fractions.sort_by(f64::total_cmp);
    fractions.dedup();
    for f in fractions {
        let points: Vec<(f64, (f64, f64))> = results
            .iter()
            .flat_map(|r| r.points.iter())
            .filter(|p| p.fraction == f)
            .filter_map(|p| Some((p.error()?, p.error_parts()?)))
            .collect();
        if points.is_empty() {
            continue;
        }
        let n = points.len() as f64;
        let mean = |part: &dyn Fn(&(f64, (f64, f64))) -> f64| points.iter().map(|p| part(p).abs()).sum::<f64>() / n;
        let _ = writeln!(
            md,
            "| {:.0} % | {} | {} | {} | {} |",
            100.0 * f,
            points.len(),
            percent(Some(mean(&|p| p.0))),
            percent(Some(mean(&|p| p.1 .0))),
            percent(Some(mean(&|p| p.1 .1)))
        );
    }
    let _ = writeln!(
        md,
        "\nBy routing × pattern, the mean signed source part / network part from {:.0} to {:.0} % of \
         the simulated saturation rate (+: the model too high):\n",
        100.0 * LOW_LOAD,
        100.0 * HIGH_LOAD
    );
    md.push_str(&routing_by_pattern(results, |r| {
        r.mean_error_parts(LOW_LOAD, HIGH_LOAD).map_or("–".into(), |(source, network)| format!("{} / {}", signed_percent(source), signed_percent(network)))
    }));
    let _ = writeln!(
        md,
        "\n**Why the model falls short near saturation**, as probes of the simulator found (§12 of \
         [the model's specification](../models/channel-queue.md#12-how-close-it-comes-to-the-targets-of-8), \
         with their numbers and the terms tried). Under DOR the source part is short under tornado, \
         transpose and bit complement: the injection VC is held longer than the model's delays \
         ahead allow, because headers wait more at the routers just after the source (behind the \
         previous message of their own source, and behind older headers), and the worm packs into \
         the buffers behind them until the injection VC stalls. Under MIN AD and Duato's routing \
         the tornado's parts are both short: the branch goes on a fifth past the simulated \
         saturation rate. Under `adaptive` and NBC the source part is long under transpose, bit \
         complement and a permutation, and they saturate early: the injection VC is held 3–4 \
         cycles longer than the simulator holds it (`adaptive` under transpose at 70 % of \
         saturation: 26.3 against 23.2 on average), most of it at the source router, where the \
         model's header is delayed 3.0 cycles and the simulator's 1.1."
    );
    md
}

/// The cell of a configuration in the grid's tables: the mean |latency error| up to half of
/// saturation and from half to 80 %, the saturation rate's error, and whether the utilisation
/// target holds.
fn grid_cell(r: &Comparison) -> String {
    if r.no_prediction.is_some() {
        return "no prediction".into();
    }
    let util = r.utilisation.as_ref().map_or("–", |u| mark(u.max_difference <= UTILISATION_TARGET));
    format!(
        "{} / {} / {} / {util}",
        percent(r.mean_error(0.0, LOW_LOAD, false)),
        percent(r.mean_error(LOW_LOAD, HIGH_LOAD, false)),
        signed_percent(r.saturation_error())
    )
}

/// How many configurations meet each target: (all, low load, of those measured there, high
/// load, of those measured, saturation, utilisation, of those measured).
fn target_counts(results: &[Comparison]) -> [usize; 8] {
    let count = |f: &dyn Fn(&Comparison) -> bool| results.iter().filter(|r| f(r)).count();
    [
        count(&|r| r.meets_targets()),
        count(&|r| r.mean_error(0.0, LOW_LOAD, false).is_some_and(|e| e <= LOW_TARGET)),
        count(&|r| r.mean_error(0.0, LOW_LOAD, false).is_some()),
        count(&|r| r.mean_error(LOW_LOAD, HIGH_LOAD, false).is_some_and(|e| e <= HIGH_TARGET)),
        count(&|r| r.mean_error(LOW_LOAD, HIGH_LOAD, false).is_some()),
        count(&|r| r.saturation_error().abs() <= SATURATION_TARGET),
        count(&|r| r.utilisation.as_ref().is_some_and(|u| u.max_difference <= UTILISATION_TARGET)),
        count(&|r| r.utilisation.is_some()),
    ]
}

/// The whole grid of §8 (`torus validate --grid`): for each torus size and message length, how
/// many configurations meet each target, and every configuration's errors.
pub fn grid_markdown(sizes: &[(Length, Vec<Comparison>)], seconds: f64, command: &str) -> String {
    let mut md = String::new();
    let configurations: usize = sizes.iter().map(|(_, r)| r.len()).sum();
    let simulations: usize = sizes.iter().flat_map(|(_, r)| r).map(|r| r.simulations).sum();
    let _ = writeln!(md, "# The channel-queue model against the simulator: the whole grid\n");
    let _ = writeln!(
        md,
        "Generated by `{command}` ({configurations} configurations, {simulations} simulations, {seconds:.0} s). \
            [channel-queue.md](channel-queue.md) gives the 8×8, M = 16 part of the grid in full, with \
            plots and every point; this page gives every torus size k and message length M of the \
            model's §8 ([`docs/models/channel-queue.md`](../models/channel-queue.md)), each with every \
            routing algorithm (its default VCs) and traffic pattern, B = 4, measured the same way.\n"
    );
    if let Some((length, _)) = sizes.first() {
        let _ = writeln!(md, "{}\n", method(length));
    }
    let _ = writeln!(md, "## Targets met, by size\n");
    let _ = writeln!(md, "| torus, messages | configurations | every target | latency ≤ {:.0} % | latency {:.0}–{:.0} % | saturation rate | utilisation |", 100.0 * LOW_LOAD, 100.0 * LOW_LOAD, 100.0 * HIGH_LOAD);
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    let mut totals = [0; 8];
    let row = |label: String, n: usize, c: [usize; 8]| {
        format!("| {label} | {n} | {} | {} of {} | {} of {} | {} | {} of {} |\n", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
    };
    for (_, results) in sizes {
        let counts = target_counts(results);
        totals.iter_mut().zip(counts).for_each(|(t, c)| *t += c);
        let label = results.first().map_or(String::new(), |r| size_of(&r.scenario));
        md.push_str(&row(label, results.len(), counts));
    }
    md.push_str(&row("all".into(), configurations, totals));
    let present: Vec<(u32, u32)> = sizes.iter().filter_map(|(_, r)| r.first()).map(|r| (r.scenario.k, r.scenario.len)).collect();
    let missing: Vec<String> = GRID_RADICES
        .iter()
        .flat_map(|&k| GRID_LENGTHS.iter().map(move |&len| (k, len)))
        .filter(|size| !present.contains(size))
        .map(|(k, len)| format!("k = {k}, M = {len}"))
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(md, "\nNot measured here, of §8's grid: {}.", missing.join("; "));
    }
    let unpredicted: Vec<&Comparison> = sizes.iter().flat_map(|(_, r)| r).filter(|r| r.no_prediction.is_some()).collect();
    if !unpredicted.is_empty() {
        let _ = writeln!(
            md,
            "\nThe model gives no prediction for {} of these configurations, counted as missing every target:\n",
            unpredicted.len()
        );
        for r in unpredicted {
            let _ = writeln!(
                md,
                "- {}, {} under {} traffic: {}.",
                size_of(&r.scenario),
                r.scenario.routing,
                r.scenario.traffic,
                r.no_prediction.as_deref().unwrap_or_default()
            );
        }
    }
    let _ = writeln!(md, "\n## Every configuration\n");
    let _ = writeln!(
        md,
        "Each cell: mean |latency error| up to {:.0} % / from {:.0} to {:.0} % of the simulated \
            saturation rate / the predicted saturation rate's error / every channel's utilisation \
            within ±{} flits/cycle. “saturated”: the model had saturated at a rate the simulator \
            carried; “–”: no point measured there.\n",
        100.0 * LOW_LOAD,
        100.0 * LOW_LOAD,
        100.0 * HIGH_LOAD,
        UTILISATION_TARGET
    );
    for (_, results) in sizes {
        let Some(first) = results.first() else { continue };
        let _ = writeln!(md, "### {}\n", size_of(&first.scenario));
        md.push_str(&routing_by_pattern(results, grid_cell));
        md.push('\n');
    }
    md
}

/// Writes `validation/channel-queue-grid.md` under `out`.
pub fn write_grid(sizes: &[(Length, Vec<Comparison>)], seconds: f64, command: &str, out: &Path) -> std::io::Result<()> {
    let folder = out.join("validation");
    std::fs::create_dir_all(&folder)?;
    std::fs::write(folder.join("channel-queue-grid.md"), grid_markdown(sizes, seconds, command))
}

/// Writes `validation/channel-queue.md` and its plots under `out`.
pub fn write(results: &[Comparison], length: &Length, seconds: f64, command: &str, out: &Path) -> std::io::Result<()> {
    let folder = out.join("validation");
    std::fs::create_dir_all(&folder)?;
    for r in results {
        std::fs::write(folder.join(plot_file(r)), latency_plot(r).render())?;
    }
    std::fs::write(folder.join(SATURATION_PLOT), saturation_plot(results).render())?;
    std::fs::write(folder.join("channel-queue.md"), markdown(results, length, seconds, command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_every_algorithm_with_vcs_by_every_pattern_and_the_model_covers_it() {
        let grid = configurations(&Length::full());
        assert_eq!(grid.len(), ROUTINGS.len() * PATTERNS.len());
        for s in &grid {
            assert!(channel_queue::assumptions_hold(s).is_ok(), "{}", s.canonical());
            assert_eq!((s.k, s.len, s.buf), (8, 16, 4));
        }
        assert!(!ROUTINGS.contains(&RoutingKind::Chaos));
    }

    /// §8's whole grid: every k by every M, each the committed report's grid on that torus, the
    /// model covering every configuration; the 4×4 hot spot has one hot node, its centre.
    #[test]
    fn the_whole_grid_is_every_size_by_every_length() {
        let sizes: Vec<(u32, u32)> = Length::grid()
            .iter()
            .map(|length| {
                let grid = configurations(length);
                assert_eq!(grid.len(), ROUTINGS.len() * PATTERNS.len());
                let (k, len) = (grid[0].k, grid[0].len);
                for s in &grid {
                    assert!(channel_queue::assumptions_hold(s).is_ok(), "{}", s.canonical());
                    assert_eq!((s.k, s.len, s.buf), (k, len, 4));
                    let hot: &[u32] = if s.traffic == TrafficKind::Hotspot && k == 4 { &[10] } else { &[] };
                    assert_eq!(s.hot_nodes, hot, "{}", s.canonical());
                }
                (k, len)
            })
            .collect();
        assert_eq!(sizes, [(4, 1), (4, 16), (4, 32), (8, 1), (8, 16), (8, 32), (16, 1), (16, 16), (16, 32)]);
        assert_eq!(configurations(&Length::grid()[4]), configurations(&Length::full()), "k = 8, M = 16 is the committed report's");
    }

    #[test]
    fn a_points_error_splits_into_the_source_part_and_the_network_part() {
        let simulated = SimulatedPoint { latency: 50.0, ci95: 0.1, seeds: 1, saturated: false, deadlock: false };
        let source = Some(SourceWait { simulated: 20.0, model: 10.0 });
        let point = Point { fraction: 0.8, rate: 0.01, model: Some(45.0), paper: None, simulated, source };
        // W_s 10 against 20: -20 % of the simulated 50; the rest 35 against 30: +10 %.
        let (at_source, in_network) = point.error_parts().unwrap();
        assert!((at_source + 0.2).abs() < 1e-12 && (in_network - 0.1).abs() < 1e-12, "{at_source} {in_network}");
        assert!((at_source + in_network - point.error().unwrap()).abs() < 1e-12);
        assert_eq!(Point { model: None, ..point.clone() }.error_parts(), None, "saturated in the model");
        assert_eq!(Point { simulated: SimulatedPoint { saturated: true, ..simulated }, ..point }.error_parts(), None, "saturated in the simulator");

        // On the page: the 80 % point's +10 % is +30 % at the source and -20 % in the network.
        let mut r = compared("k=8&routing=dor&traffic=uniform&len=16");
        r.points[2].source = Some(SourceWait { simulated: 20.0, model: 35.0 });
        let md = markdown(&[r], &Length::full(), 1.0, "torus validate --channel-queue");
        assert!(md.contains("| 80 % | 1 | 10.0 % | 30.0 % | 20.0 % |"), "{md}");
        assert!(md.contains("| dor | +30.0 % / -20.0 % | – |"), "{md}");
        assert!(!md.contains("| 50 % | 1 |"), "no row where no point has both parts: {md}");
    }

    /// A configuration whose errors are 3 % at low load, 10 % at high load, +4.5 % on the
    /// saturation rate, and whose utilisation is within 0.015 flits/cycle.
    fn compared(scenario: &str) -> Comparison {
        let point = |fraction: f64, model: Option<f64>, latency: f64| Point {
            fraction,
            rate: fraction * 0.02,
            model,
            paper: None,
            simulated: SimulatedPoint { latency, ci95: 0.1, seeds: 1, saturated: false, deadlock: false },
            source: None,
        };
        Comparison {
            scenario: Scenario::parse(scenario).unwrap(),
            routes: "exact".into(),
            model_saturation: 0.0209,
            simulated_saturation: 0.02,
            paper: None,
            points: vec![point(0.1, Some(20.4), 20.0), point(0.5, Some(28.8), 30.0), point(0.8, Some(55.0), 50.0)],
            utilisation: Some(Utilisation { rate: 0.01, mean_difference: 0.001, max_difference: 0.015, hottest_measured: 0.3, hottest_predicted: 0.31 }),
            curve: Vec::new(),
            simulations: 10,
            no_prediction: None,
        }
    }

    #[test]
    fn the_grid_page_counts_the_targets_met_per_size_and_gives_every_cell() {
        let small = vec![compared("k=4&len=1&routing=dor&traffic=tornado"), {
            let mut r = compared("k=4&len=1&routing=val&traffic=tornado");
            r.simulated_saturation = 0.018;
            r
        }];
        let large = vec![compared("k=16&len=32&routing=goal&traffic=uniform")];
        let md = grid_markdown(&[(Length::full().sized(4, 1), small), (Length::full().sized(16, 32), large)], 12.0, "torus validate --grid");
        assert!(md.contains("(3 configurations, 30 simulations, 12 s)"), "{md}");
        assert!(md.contains("| 4×4 torus, M = 1, B = 4 | 2 | 1 | 2 of 2 | 2 of 2 | 1 | 2 of 2 |"), "VAL's saturation is 16 % off: {md}");
        assert!(md.contains("| 16×16 torus, M = 32, B = 4 | 1 | 1 | 1 of 1 | 1 of 1 | 1 | 1 of 1 |"), "{md}");
        assert!(md.contains("| all | 3 | 2 | 3 of 3 | 3 of 3 | 2 | 3 of 3 |"), "{md}");
        assert!(md.contains("Not measured here, of §8's grid: k = 4, M = 16; k = 4, M = 32; k = 8, M = 1; k = 8, M = 16; k = 8, M = 32; k = 16, M = 1; k = 16, M = 16."), "{md}");
        assert!(md.contains("| dor | – | 3.0 % / 10.0 % / +4.5 % / yes |"), "DOR's tornado cell: {md}");
        assert!(md.contains("| val | – | 3.0 % / 10.0 % / +16.1 % / yes |"), "{md}");
        assert!(md.contains("| goal | 3.0 % / 10.0 % / +4.5 % / yes |"), "{md}");
    }

    #[test]
    fn a_configuration_without_a_prediction_misses_every_target_and_says_why() {
        let length = Length::full().sized(16, 16);
        let s = Scenario::parse("k=16&len=16&routing=minad&traffic=uniform").unwrap();
        let run = |latency: f64| crate::sim::RunReport { latency_mean: latency, latency_ci95: 0.1, ..Default::default() };
        let simulated = CurveRuns {
            search: experiment::Saturation { saturation_rate: 0.02, runs: 9, ..experiment::Saturation::placeholder(&s) },
            runs: length.fractions.iter().map(|f| run(40.0 + 20.0 * f)).collect(),
        };
        let r = without_prediction(&s, &length, &simulated, "too many route states".into());
        assert!(!r.meets_targets() && r.saturation_error().is_nan());
        assert_eq!(r.simulations, 9 + length.fractions.len());
        assert!(r.points.iter().all(|p| p.model.is_none()) && r.utilisation.is_none());
        let md = grid_markdown(&[(length, vec![r, compared("k=16&len=16&routing=dor&traffic=uniform")])], 1.0, "torus validate --grid");
        assert!(md.contains("| 16×16 torus, M = 16, B = 4 | 2 | 1 | 1 of 2 | 1 of 2 | 1 | 1 of 1 |"), "{md}");
        assert!(md.contains("| minad | no prediction |"), "{md}");
        assert!(md.contains("- 16×16 torus, M = 16, B = 4, minad under uniform traffic: too many route states."), "{md}");
    }

    #[test]
    fn errors_and_targets_from_the_points() {
        let mut r = compared("k=8&routing=dor");
        // (0.4/20 + 1.2/30) / 2 = 3 %; 5/50 = 10 %; saturation +4.5 %.
        assert!((r.mean_error(0.0, LOW_LOAD, false).unwrap() - 0.03).abs() < 1e-12);
        assert!((r.mean_error(LOW_LOAD, HIGH_LOAD, false).unwrap() - 0.1).abs() < 1e-12);
        assert!((r.saturation_error() - 0.045).abs() < 1e-12);
        assert!(r.meets_targets());
        // A model saturated where the simulator kept up misses the target.
        r.points[2].model = None;
        assert_eq!(r.mean_error(LOW_LOAD, HIGH_LOAD, false), Some(f64::INFINITY));
        assert!(!r.meets_targets());
        r.points[2].model = Some(55.0);
        r.simulated_saturation = 0.018;
        assert!(!r.meets_targets(), "saturation 16 % high");
    }
}
