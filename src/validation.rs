//! The model-against-simulation validation report (`torus validate`, `docs/validation.md`).
//!
//! For every seed paper's validation set-up this module lists the configurations
//! ([`latency_configurations`], [`saturation_cases`]), simulates each over a grid of rates
//! (every run a [`Job`] of one batch, so that a cluster can run them: `torus validate --plan`), sets the applicable model's latency beside every simulated point with
//! the relative error, compares the intermediate quantities term by term at one mid load, and
//! writes a Markdown report with one SVG plot per configuration.

pub mod channel_queue;

use crate::experiment::replication::replication_scenarios;
use crate::experiment::{self, AcrossSeeds, Criterion, Job, Outcome, ReplicatedSaturation, Runner, Saturation, SearchOptions};
use crate::models::{self, bounds};
use crate::scenario::{RoutingKind, Scenario, TrafficKind};
use crate::sim::RunReport;
use std::fmt::Write;
use std::path::Path;
use crate::svg::{Curve, Marker, MarkerSeries, Plot, VerticalLine};

/// How long each simulation runs, and how many rates each configuration gets.
#[derive(Clone, Debug, PartialEq)]
pub struct RunLength {
    /// Warm-up and measurement window of each latency point, cycles.
    pub warmup: u64,
    pub cycles: u64,
    /// Warm-up and window of each run of a seed 004 saturation search, cycles.
    pub saturation_warmup: u64,
    pub saturation_cycles: u64,
    /// Simulated rates as fractions of the model's saturation rate. Denser near saturation,
    /// where the models and the simulator part.
    pub load_fractions: Vec<f64>,
    /// For configurations with the paper's own rates (seed 002): every `rate_stride`-th of them.
    pub rate_stride: usize,
    /// Latency points at or above this fraction of the model's saturation rate (where one run's
    /// value is a wide sample) run `seeds_near_saturation` replications: their value is the mean
    /// over the seeds, their interval the 95 % interval across them.
    pub replicate_from: f64,
    pub seeds_near_saturation: usize,
    /// Seeds of every seed 004 saturation search (mean and interval across them).
    pub saturation_seeds: usize,
}

impl RunLength {
    /// The committed report. Sized so that, once the simulator runs every configuration (about
    /// 330 latency points, those near saturation with three seeds each, and 64 saturation cases
    /// with three seeds each), the report takes about a quarter of an hour on two idle cores: a
    /// latency run costs about 1 s of CPU and a search about 4 s at these lengths.
    pub fn full() -> RunLength {
        RunLength {
            warmup: 10_000,
            cycles: 40_000,
            saturation_warmup: 1_000,
            saturation_cycles: 5_000,
            load_fractions: vec![0.1, 0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
            rate_stride: 1,
            replicate_from: 0.8,
            seeds_near_saturation: 3,
            saturation_seeds: 3,
        }
    }

    /// A smoke run of every configuration in about a minute: a few short runs each, too noisy
    /// to judge a model by.
    pub fn quick() -> RunLength {
        RunLength {
            warmup: 500,
            cycles: 2_000,
            saturation_warmup: 300,
            saturation_cycles: 1_000,
            load_fractions: vec![0.2, 0.5, 0.8],
            rate_stride: 4,
            replicate_from: 0.8,
            seeds_near_saturation: 2,
            saturation_seeds: 1,
        }
    }
}

/// A seed paper whose model the report validates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeedPaper {
    /// The paper as readers cite it, for example `"Quaglia et al. 2002"`.
    pub cite: &'static str,
    /// Authors, title and venue, in one line.
    pub reference: &'static str,
    pub title: &'static str,
    /// The model's page in `docs/models/`.
    pub spec: &'static str,
    /// What the report's configurations are, and where they depart from the paper's.
    pub setup: &'static str,
}

pub const SEEDS: [SeedPaper; 5] = [
    SeedPaper {
        cite: "Safaei et al. 2007 (Duato-Nbc)",
        reference: "F. Safaei, A. Khonsari, M. Fathy, M. Ould-Khaoua, “Performance evaluation of fully adaptive \
                    routing for the torus interconnect networks”, ICCS 2007, LNCS 4490",
        title: "fully adaptive routing with negative-hop escape channels",
        spec: "nbc.md",
        setup: "8×8 and 16×16, V = 10 (the model's default split V2 = k/2 + 1 escape VCs), M = 32 and 64 \
                flits, uniform traffic, as in the paper's Fig. 1.",
    },
    SeedPaper {
        cite: "Safaei et al. 2007 (scouting switching)",
        reference: "F. Safaei, A. Khonsari, M. Fathy, N. Talebanfard, M. Ould-Khaoua, “Communication–prediction \
                    of scouting switching in adaptively-routed torus networks”, NPC 2007, LNCS 4672",
        title: "scouting switching with fully adaptive routing",
        spec: "scouting.md",
        setup: "8×8 with V = 1 and 6, M = 32 and 64, K = 0, 1, 3, 6 (the paper's full set); 16×16 with \
                K = 0 and 6 only, to keep the report's run time down. The paper runs V = 1, fewer VCs than \
                the simulator's deadlock-avoidance minimum for routing=adaptive, so those scenarios carry \
                unsafe=1 (scouting's backtracking is what the paper relies on).",
    },
    SeedPaper {
        cite: "Quaglia et al. 2002",
        reference: "F. Quaglia, B. Ciciani, M. Colajanni, “Performance analysis of adaptive wormhole routing in \
                    a two-dimensional torus”, Parallel Computing 28 (2002)",
        title: "minimal fully adaptive wormhole routing",
        spec: "quaglia-adaptive.md",
        setup: "4×4 and 8×8, 12-flit messages, at the rates of the paper's Table 1; the paper's own \
                simulation column is shown beside ours. The model has no virtual channels; the simulator, \
                like the paper's, uses 4.",
    },
    SeedPaper {
        cite: "Shahrabi et al. 2002",
        reference: "A. Shahrabi, M. Ould-Khaoua, L. Mackenzie, “Communication delay in wormhole-routed torus \
                    networks”, ACM SAC 2002",
        title: "unicast latency under broadcast traffic, Duato's routing",
        spec: "broadcast.md",
        setup: "The five configurations of the model's reference table (§7 of its page), which between them \
                cover k = 8, 10, 16, V = 3, 4, 5, M = 16 to 64 and β = 0.02 and 0.04 (all 72 combinations \
                would take hours). Each is also run at β = 0, where the same model describes plain Duato \
                routing, which the simulator already implements.",
    },
    SeedPaper {
        cite: "Singh et al. 2003 (GOAL)",
        reference: crate::seed004::REFERENCE,
        title: "channel-load throughput bounds",
        spec: "bounds.md",
        setup: "8×8, 1-flit packets, 8-flit buffers, every algorithm (with its minimum VC count) on NN, UR, \
                BC, TP, TOR, DIA, and WC for the oblivious ones: the measured saturation throughput against \
                the bound.",
    },
];

/// One latency set-up: a scenario (its `rate` is ignored) and the rates to compare at.
#[derive(Clone, Debug, PartialEq)]
pub struct LatencyConfiguration {
    /// Index into [`SEEDS`].
    pub seed: usize,
    /// Unique file stem of its plot, for example `seed000-k8-v10-m32`.
    pub id: String,
    /// Short heading, for example `k = 8, V = 10, M = 32`.
    pub title: String,
    pub scenario: Scenario,
    /// The paper's own rates, or `None` for fractions of the model's saturation rate.
    pub paper_rates: Option<Vec<f64>>,
    /// The paper's simulated latency at each of `paper_rates`, where it publishes numbers.
    pub paper_simulation: Option<Vec<f64>>,
}

fn scenario(text: &str) -> Scenario {
    Scenario::parse(text).unwrap_or_else(|e| panic!("validation scenario `{text}` is invalid: {e}"))
}

/// Seed 002's Table 1: rates, and the paper's simulated latency on 4×4 and 8×8 (L = 12).
const QUAGLIA_TABLE_1: [(f64, f64, f64); 12] = [
    (0.001, 13.43, 15.55),
    (0.002, 13.58, 15.96),
    (0.003, 13.68, 16.27),
    (0.004, 13.89, 16.81),
    (0.005, 14.14, 17.10),
    (0.006, 14.32, 17.66),
    (0.007, 14.53, 18.15),
    (0.008, 14.73, 18.65),
    (0.009, 14.89, 19.14),
    (0.010, 15.06, 19.52),
    (0.011, 15.29, 20.12),
    (0.015, 16.10, 22.18),
];

/// Seed 003 configurations (k, V, M, β): the reference table of `docs/models/broadcast.md` §7.
const BROADCAST_CONFIGURATIONS: [(u32, u32, u32, f64); 5] =
    [(8, 4, 32, 0.02), (8, 3, 16, 0.04), (10, 5, 48, 0.02), (16, 5, 64, 0.04), (16, 4, 32, 0.02)];

/// Every latency configuration of seeds 000–003, in report order.
pub fn latency_configurations() -> Vec<LatencyConfiguration> {
    let mut list = Vec::new();
    let mut add = |seed: usize, id: String, title: String, text: String| {
        list.push(LatencyConfiguration {
            seed,
            id,
            title,
            scenario: scenario(&text),
            paper_rates: None,
            paper_simulation: None,
        });
    };
    for k in [8, 16] {
        for m in [32, 64] {
            add(
                0,
                format!("seed000-k{k}-v10-m{m}"),
                format!("k = {k}, V = 10, M = {m}"),
                format!("k={k}&routing=nbc&traffic=uniform&len={m}&vcs=10"),
            );
        }
    }
    for k in [8, 16] {
        let leads: &[u32] = if k == 8 { &[0, 1, 3, 6] } else { &[0, 6] };
        for v in [1, 6] {
            let unsafe_flag = u8::from(v < RoutingKind::Adaptive.min_vcs(2));
            for m in [32, 64] {
                for &lead in leads {
                    add(
                        1,
                        format!("seed001-k{k}-v{v}-m{m}-K{lead}"),
                        format!("k = {k}, V = {v}, M = {m}, K = {lead}"),
                        format!(
                            "k={k}&routing=adaptive&switching=scouting&scout={lead}&traffic=uniform&len={m}&vcs={v}&unsafe={unsafe_flag}"
                        ),
                    );
                }
            }
        }
    }
    for k in [4u32, 8] {
        let text = format!("k={k}&routing=adaptive&traffic=uniform&len=12&vcs=4");
        list.push(LatencyConfiguration {
            seed: 2,
            id: format!("seed002-k{k}-m12"),
            title: format!("k = {k}, M = 12 (Table 1)"),
            scenario: scenario(&text),
            paper_rates: Some(QUAGLIA_TABLE_1.iter().map(|row| row.0).collect()),
            paper_simulation: Some(QUAGLIA_TABLE_1.iter().map(|row| if k == 4 { row.1 } else { row.2 }).collect()),
        });
    }
    for beta in [None, Some(0.0)] {
        for (k, v, m, paper_beta) in BROADCAST_CONFIGURATIONS {
            let b = beta.unwrap_or(paper_beta);
            list.push(LatencyConfiguration {
                seed: 3,
                id: format!("seed003-k{k}-v{v}-m{m}-beta{}", b.to_string().replace('.', "")),
                title: format!("k = {k}, V = {v}, M = {m}, β = {b}"),
                scenario: scenario(&format!("k={k}&routing=duato&traffic=uniform&len={m}&vcs={v}&beta={b}")),
                paper_rates: None,
                paper_simulation: None,
            });
        }
    }
    list
}

/// Seed 004's patterns in the paper's order; WC only for oblivious algorithms.
const SATURATION_PATTERNS: [TrafficKind; 7] = [
    TrafficKind::Neighbor,
    TrafficKind::Uniform,
    TrafficKind::Bitcomp,
    TrafficKind::Transpose,
    TrafficKind::Tornado,
    TrafficKind::Diagonal,
    TrafficKind::Worstcase,
];

/// Seed 004: every algorithm on every pattern defined for it, 8×8, 1-flit packets, 8-flit
/// buffers, each algorithm with its minimum VC count.
pub fn saturation_cases(length: &RunLength) -> Vec<Scenario> {
    let mut cases = Vec::new();
    for &routing in RoutingKind::ALL {
        for traffic in SATURATION_PATTERNS {
            if traffic == TrafficKind::Worstcase && !routing.is_oblivious() {
                continue;
            }
            cases.push(scenario(&format!(
                "k=8&routing={routing}&traffic={traffic}&len=1&buf=8&warmup={}&cycles={}",
                length.saturation_warmup, length.saturation_cycles
            )));
        }
    }
    cases
}

/// What the simulator measured at one rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimulatedPoint {
    /// The run's mean latency, or with several seeds the mean over them.
    pub latency: f64,
    /// The run's own 95 % interval, or with several seeds the interval across them.
    pub ci95: f64,
    /// Replications run (1: a single run).
    pub seeds: usize,
    /// The run (or any replication) could not keep up with its offered load (or deadlocked):
    /// its latency measures the run length, not the network, and is left out of the errors.
    pub saturated: bool,
    pub deadlock: bool,
}

/// Model and simulation at one rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointComparison {
    pub rate: f64,
    /// `None` where the model is saturated.
    pub model: Option<f64>,
    pub simulated: SimulatedPoint,
    pub paper_simulation: Option<f64>,
    /// The channel-queue model's latency where it applies beside the paper's model (`None`
    /// where it is saturated or does not apply).
    pub channel_queue: Option<f64>,
}

impl PointComparison {
    /// (model − simulation) / simulation, where both are finite and the run kept up.
    pub fn relative_error(&self) -> Option<f64> {
        self.error_of(self.model)
    }

    /// The same for the channel-queue model.
    pub fn channel_queue_error(&self) -> Option<f64> {
        self.error_of(self.channel_queue)
    }

    fn error_of(&self, model: Option<f64>) -> Option<f64> {
        let sim = self.simulated;
        if sim.saturated || sim.deadlock || sim.latency <= 0.0 {
            return None;
        }
        Some((model? - sim.latency) / sim.latency)
    }
}

/// One intermediate quantity, as the model computes it and as the simulator measures it.
#[derive(Clone, Debug, PartialEq)]
pub struct TermRow {
    pub quantity: String,
    pub model: f64,
    pub simulated: f64,
}

/// Term-by-term comparison at one rate.
#[derive(Clone, Debug, PartialEq)]
pub struct TermComparison {
    pub rate: f64,
    pub rows: Vec<TermRow>,
}

/// A latency configuration, compared.
#[derive(Clone, Debug, PartialEq)]
pub struct LatencyResult {
    pub configuration: LatencyConfiguration,
    /// The applicable model's name and description, or why none applies.
    pub model: Result<(&'static str, &'static str), String>,
    pub model_saturation_rate: Option<f64>,
    /// The channel-queue model's saturation rate where it applies beside the paper's model.
    pub channel_queue_saturation_rate: Option<f64>,
    pub bound_saturation_rate: Option<f64>,
    pub points: Vec<PointComparison>,
    /// The model's latency on a fine grid up to its saturation rate (or past the last rate).
    pub model_curve: Vec<(f64, f64)>,
    /// The channel-queue model's on the same grid, where it applies beside the paper's model.
    pub channel_queue_curve: Vec<(f64, f64)>,
    pub terms: Option<TermComparison>,
    /// The scenario the simulator ran, at the first rate, with the run length.
    pub simulated_scenario: String,
}

/// A seed 004 case, compared.
#[derive(Clone, Debug)]
pub struct SaturationResult {
    pub scenario: Scenario,
    pub bound: bounds::Bound,
    /// The search with `saturation_seeds` seeds.
    pub measured: ReplicatedSaturation,
}

impl SaturationResult {
    /// The bound as a fraction of capacity, capped by the injection channel (1 flit/node/cycle),
    /// which the saturation search cannot exceed: it limits nearest-neighbour traffic.
    pub fn attainable_fraction(&self) -> Option<f64> {
        let injection_limit = 1.0 / self.scenario.capacity_flits();
        self.bound.fraction_of_capacity.map(|b| b.min(injection_limit))
    }

    /// (measured − bound) / bound, with the bound capped as in [`Self::attainable_fraction`].
    pub fn relative_error(&self) -> Option<f64> {
        let bound = self.attainable_fraction()?;
        Some((self.measured.across_seeds.saturation_fraction_of_capacity.mean - bound) / bound)
    }
}

/// The whole report.
#[derive(Clone, Debug)]
pub struct Report {
    pub length: RunLength,
    pub latency: Vec<LatencyResult>,
    pub saturation: Vec<SaturationResult>,
    pub wall_seconds: f64,
    pub threads: usize,
    pub simulations: usize,
}

/// Points of the fine model curve drawn in each plot.
const CURVE_POINTS: usize = 120;

/// The paper's rates (or published values) that a run of `length` uses.
fn every_stride<T: Copy>(values: &[T], length: &RunLength) -> Vec<T> {
    values.iter().step_by(length.rate_stride.max(1)).copied().collect()
}

/// The rates a configuration is simulated at.
fn rates_of(c: &LatencyConfiguration, model_saturation: Option<f64>, length: &RunLength) -> Vec<f64> {
    if let Some(rates) = &c.paper_rates {
        return every_stride(rates, length);
    }
    let top = model_saturation
        .or_else(|| bounds::bound(&c.scenario).saturation_rate)
        .unwrap_or(1.0 / c.scenario.len as f64);
    length.load_fractions.iter().map(|f| f * top).collect()
}

/// The rates of the fine model curve: from near zero load up to the model's saturation rate,
/// or a little past the highest simulated rate when that is much lower.
fn curve_rates(saturation: f64, rates: &[f64]) -> Vec<f64> {
    let last_rate = rates.iter().copied().fold(0.0, f64::max);
    let end = if saturation <= 1.6 * last_rate { saturation } else { 1.15 * last_rate };
    (0..CURVE_POINTS).map(|i| end * (i as f64 + 0.5) / CURVE_POINTS as f64).collect()
}

/// The model's latency at the rates of [`curve_rates`].
fn model_curve(s: &Scenario, model: &dyn models::LatencyModel, saturation: f64, rates: &[f64]) -> Vec<(f64, f64)> {
    curve_rates(saturation, rates).into_iter().filter_map(|r| model.evaluate(s, r).latency.map(|l| (r, l))).collect()
}

/// The channel-queue model beside a paper's: its saturation rate, its latency at `rates` and
/// on the paper's model's fine grid; `None` where no paper's model applies (the channel-queue
/// model is then the model) or where it does not apply.
fn channel_queue_beside(s: &Scenario, paper_saturation: f64, rates: &[f64]) -> Option<(f64, Vec<Option<f64>>, Vec<(f64, f64)>)> {
    models::paper_model(s).ok()?;
    let model = models::channel_queue::Model::new(s).ok()?;
    let grid = curve_rates(paper_saturation, rates);
    let curve = grid.iter().zip(model.curve(&grid)).filter_map(|(&r, l)| l.map(|l| (r, l))).collect();
    Some((model.saturation_rate(), model.curve(rates), curve))
}

/// The intermediate quantities both sides have, at one rate.
fn compare_terms(model: &models::Evaluation, sim: &RunReport) -> Vec<TermRow> {
    let q = &model.quantities;
    let mut rows = Vec::new();
    let mut push = |quantity: String, model: Option<&f64>, simulated: f64| {
        if let Some(&m) = model {
            rows.push(TermRow { quantity, model: m, simulated });
        }
    };
    for (v, &p) in sim.busy_vc_probability.iter().enumerate() {
        push(format!("P_v[{v}], {v} VCs of a channel busy"), q.get(&format!("P_v[{v}]")), p);
    }
    push("V̄, multiplexing degree".into(), q.get("V_bar"), sim.multiplexing_degree);
    let blocking = q.get("blocking_probability").or_else(|| q.get("blocking_per_hop"));
    push("blocking probability per hop".into(), blocking, sim.blocking_probability);
    push("W_c, wait for a VC when blocked (cycles)".into(), q.get("W_c"), sim.mean_wait_when_blocked);
    push("W_s, wait in the source queue (cycles)".into(), q.get("W_s"), sim.source_queue_mean);
    rows
}

/// The scenario a configuration's runs simulate (at each of its rates).
fn run_scenario(c: &LatencyConfiguration, length: &RunLength) -> Scenario {
    Scenario { warmup: length.warmup, cycles: length.cycles, ..c.scenario.clone() }
}

/// Replications run at each of a configuration's rates: several near the model's saturation,
/// where one run is a wide sample, else one.
fn seeds_per_rate(c: &LatencyConfiguration, length: &RunLength) -> Vec<usize> {
    let model_saturation = models::applicable(&c.scenario).ok().map(|m| m.saturation_rate(&c.scenario));
    let near_saturation = |rate: f64| model_saturation.is_some_and(|m| rate >= length.replicate_from * m);
    rates_of(c, model_saturation, length)
        .into_iter()
        .map(|rate| if near_saturation(rate) { length.seeds_near_saturation.max(1) } else { 1 })
        .collect()
}

/// A configuration's simulations, every replication at every rate (rate by rate, seeds in the
/// order of [`replication_scenarios`]).
fn configuration_jobs(c: &LatencyConfiguration, length: &RunLength) -> Vec<Job> {
    let s = run_scenario(c, length);
    let model_saturation = models::applicable(&c.scenario).ok().map(|m| m.saturation_rate(&c.scenario));
    rates_of(c, model_saturation, length)
        .into_iter()
        .zip(seeds_per_rate(c, length))
        .flat_map(|(rate, n)| replication_scenarios(&experiment::at_rate(&s, rate), n))
        .map(|s| Job::run(&s))
        .collect()
}

/// A configuration's run reports, in the order of [`configuration_jobs`], grouped by rate.
fn group_by_rate(c: &LatencyConfiguration, length: &RunLength, reports: Vec<RunReport>) -> Vec<Vec<RunReport>> {
    let mut reports = reports.into_iter();
    seeds_per_rate(c, length).into_iter().map(|n| reports.by_ref().take(n).collect()).collect()
}

/// Simulates one latency configuration, its runs carried out by `runner`,
/// and sets the model beside it.
pub fn validate_configuration(c: &LatencyConfiguration, length: &RunLength, runner: &dyn Runner) -> LatencyResult {
    let reports = runner.run(configuration_jobs(c, length)).into_iter().map(Outcome::into_run).collect();
    compare_configuration(c, length, group_by_rate(c, length, reports))
}

/// Sets the model beside a configuration's runs (`replicated`: each rate's replications, the
/// first with the scenario's own seed).
fn compare_configuration(c: &LatencyConfiguration, length: &RunLength, replicated: Vec<Vec<RunReport>>) -> LatencyResult {
    let run_scenario = run_scenario(c, length);
    let model = models::applicable(&c.scenario);
    let model_saturation = model.as_ref().ok().map(|m| m.saturation_rate(&c.scenario));
    let rates = rates_of(c, model_saturation, length);
    let model_latency = models::curve(&c.scenario, &rates);
    let beside = model_saturation.and_then(|saturation| channel_queue_beside(&c.scenario, saturation, &rates));
    let paper: Vec<Option<f64>> = match &c.paper_simulation {
        Some(values) => every_stride(values, length).into_iter().map(Some).collect(),
        None => vec![None; rates.len()],
    };
    let points: Vec<PointComparison> = rates
        .iter()
        .enumerate()
        .map(|(i, &rate)| PointComparison {
            rate,
            model: model_latency[i],
            simulated: {
                let runs = &replicated[i];
                let across = AcrossSeeds::of(&runs.iter().map(|r| r.latency_mean).collect::<Vec<_>>());
                SimulatedPoint {
                    latency: across.mean,
                    ci95: across.ci95.unwrap_or(runs[0].latency_ci95),
                    seeds: runs.len(),
                    saturated: runs.iter().any(|r| r.saturated),
                    deadlock: runs.iter().any(|r| r.deadlock),
                }
            },
            paper_simulation: paper[i],
            channel_queue: beside.as_ref().and_then(|b| b.1[i]),
        })
        .collect();
    // The terms are compared on one run: each rate's first replication.
    let reports: Vec<&RunReport> = replicated.iter().map(|runs| &runs[0]).collect();
    let terms = match (&model, model_saturation) {
        (Ok(m), Some(saturation)) => {
            let middle = 0.5 * saturation;
            reports
                .iter()
                .zip(&rates)
                .filter(|(r, _)| !r.saturated && !r.deadlock)
                .min_by(|a, b| (a.1 - middle).abs().total_cmp(&(b.1 - middle).abs()))
                .map(|(report, &rate)| TermComparison { rate, rows: compare_terms(&m.evaluate(&c.scenario, rate), report) })
                .filter(|t| !t.rows.is_empty())
        }
        _ => None,
    };
    let curve = match (&model, model_saturation) {
        (Ok(m), Some(saturation)) => model_curve(&c.scenario, m.as_ref(), saturation, &rates),
        _ => Vec::new(),
    };
    LatencyResult {
        configuration: c.clone(),
        model: model.map(|m| (m.name(), m.describe())),
        model_saturation_rate: model_saturation,
        channel_queue_saturation_rate: beside.as_ref().map(|b| b.0),
        bound_saturation_rate: bounds::bound(&c.scenario).saturation_rate,
        points,
        model_curve: curve,
        channel_queue_curve: beside.map(|b| b.2).unwrap_or_default(),
        terms,
        simulated_scenario: experiment::at_rate(&run_scenario, rates[0]).canonical(),
    }
}

/// A seed 004 case's searches, one per seed.
fn saturation_jobs(s: &Scenario, length: &RunLength) -> Vec<Job> {
    experiment::replicated_search_jobs(s, &SearchOptions::default(), length.saturation_seeds.max(1))
}

/// A seed 004 case's measured saturation throughput (`searched`: one search per seed) beside
/// its bound.
fn compare_saturation(s: &Scenario, searched: Vec<Saturation>) -> SaturationResult {
    SaturationResult { scenario: s.clone(), bound: bounds::bound(s), measured: experiment::replicated_saturation(s, searched) }
}

/// Runs every configuration and every seed 004 case, all their runs and searches handed to
/// `runner` as one batch.
pub fn run(length: &RunLength, runner: &dyn Runner) -> Report {
    let before = runner.elapsed().0;
    let configurations = latency_configurations();
    let cases = saturation_cases(length);
    let latency_jobs: Vec<Vec<Job>> = configurations.iter().map(|c| configuration_jobs(c, length)).collect();
    let search_jobs: Vec<Vec<Job>> = cases.iter().map(|s| saturation_jobs(s, length)).collect();
    let jobs = latency_jobs.iter().chain(&search_jobs).flatten().cloned().collect();
    let mut outcomes = runner.run(jobs).into_iter();
    let mut simulations = 0;
    let mut latency = Vec::new();
    for (c, jobs) in configurations.iter().zip(&latency_jobs) {
        let reports: Vec<RunReport> = outcomes.by_ref().take(jobs.len()).map(Outcome::into_run).collect();
        simulations += reports.len();
        latency.push(compare_configuration(c, length, group_by_rate(c, length, reports)));
    }
    let mut saturation = Vec::new();
    for (s, jobs) in cases.iter().zip(&search_jobs) {
        let searched: Vec<Saturation> = outcomes.by_ref().take(jobs.len()).map(Outcome::into_search).collect();
        simulations += searched.iter().map(|m| m.runs).sum::<usize>();
        saturation.push(compare_saturation(s, searched));
    }
    let (now, threads) = runner.elapsed();
    Report { length: length.clone(), latency, saturation, wall_seconds: now - before, threads, simulations }
}

/// The plot of one latency configuration: model curve, simulated points with their 95%
/// confidence intervals, the paper's simulation where published, and the channel-load bound.
pub fn latency_plot(r: &LatencyResult) -> Plot {
    let c = &r.configuration;
    let simulated: Vec<Marker> = r
        .points
        .iter()
        .map(|p| Marker { x: p.rate, y: p.simulated.latency, error: p.simulated.ci95 })
        .collect();
    let paper: Vec<Marker> =
        r.points.iter().filter_map(|p| p.paper_simulation.map(|y| Marker { x: p.rate, y, error: 0.0 })).collect();
    // The y axis fits the model and the runs that kept up; saturated runs sit on the top edge.
    let fitted = r
        .model_curve
        .iter()
        .chain(&r.channel_queue_curve)
        .map(|p| p.1)
        .chain(r.points.iter().filter_map(|p| {
            Some(p.simulated).filter(|s| !s.saturated && !s.deadlock).map(|s| s.latency + s.ci95)
        }))
        .chain(paper.iter().map(|m| m.y))
        .fold(0.0, f64::max);
    let lowest = r
        .model_curve
        .iter()
        .chain(&r.channel_queue_curve)
        .map(|p| p.1)
        .chain(r.points.iter().map(|p| p.simulated.latency - p.simulated.ci95))
        .chain(paper.iter().map(|m| m.y))
        .fold(f64::INFINITY, f64::min);
    let data_x = r.points.iter().map(|p| p.rate).chain(r.model_curve.iter().map(|p| p.0)).fold(0.0, f64::max);
    let mut vertical_lines = Vec::new();
    if let Some(b) = r.bound_saturation_rate.filter(|&b| b <= 1.6 * data_x) {
        vertical_lines.push(VerticalLine { label: "channel-load bound".into(), x: b });
    }
    if let Some(m) = r.model_saturation_rate.filter(|&m| m <= 1.6 * data_x) {
        vertical_lines.push(VerticalLine { label: "model saturation".into(), x: m });
    }
    let model_label = match &r.model {
        Ok((name, _)) => format!("model ({name})"),
        Err(_) => "no model applies".into(),
    };
    let mut markers = vec![MarkerSeries { label: "simulation, 95% CI".into(), markers: simulated }];
    if !paper.is_empty() {
        markers.push(MarkerSeries { label: "paper's simulation".into(), markers: paper });
    }
    Plot {
        title: format!("{}: {}", SEEDS[c.seed].cite, c.title),
        x_label: "offered load λ (messages/node/cycle)".into(),
        y_label: "mean message latency (cycles)".into(),
        curves: std::iter::once(Curve { label: model_label, points: r.model_curve.clone(), dashed: false })
            .chain((!r.channel_queue_curve.is_empty()).then(|| Curve {
                label: "channel-queue model".into(),
                points: r.channel_queue_curve.clone(),
                dashed: true,
            }))
            .collect(),
        markers,
        vertical_lines,
        x_max: None,
        y_max: (fitted > 0.0).then_some(fitted * 1.1),
        y_min: lowest.is_finite().then_some(0.8 * lowest),
    }
}

/// Seed 004 as one scatter plot: measured saturation against the bound, both as fractions of
/// capacity, with the diagonal where they agree.
pub fn saturation_plot(results: &[SaturationResult]) -> Plot {
    let markers: Vec<Marker> = results
        .iter()
        .filter_map(|r| {
            let across = r.measured.across_seeds.saturation_fraction_of_capacity;
            Some(Marker { x: r.attainable_fraction()?, y: across.mean, error: across.ci95.unwrap_or(0.0) })
        })
        .collect();
    let top = results.iter().filter_map(|r| r.attainable_fraction()).fold(0.0, f64::max).max(0.1) * 1.05;
    Plot {
        title: "Singh et al. 2003 (GOAL): measured saturation against the channel-load bound (8×8, 1 flit)".into(),
        x_label: "bound, capped by injection (fraction of capacity)".into(),
        y_label: "measured saturation (fraction of capacity)".into(),
        curves: vec![Curve { label: "measured = bound".into(), points: vec![(0.0, 0.0), (top, top)], dashed: true }],
        markers: vec![MarkerSeries { label: "algorithm × pattern".into(), markers }],
        vertical_lines: Vec::new(),
        x_max: Some(top),
        y_max: Some(top),
        y_min: None,
    }
}

/// A rate with four significant digits.
fn format_rate(rate: f64) -> String {
    if rate <= 0.0 {
        return "0".into();
    }
    let decimals = (3.0 - rate.log10().floor()).max(0.0) as usize;
    format!("{rate:.decimals$}")
}

fn format_error(e: Option<f64>) -> String {
    e.map_or("–".into(), |e| format!("{:+.1} %", 100.0 * e))
}

fn format_quantity(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() < 0.01 {
        format!("{v:.2e}")
    } else {
        format!("{v:.3}")
    }
}

/// Mean and largest |error| over `errors`.
fn error_summary(errors: &[f64]) -> Option<(f64, f64)> {
    if errors.is_empty() {
        return None;
    }
    let abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    Some((abs.iter().sum::<f64>() / abs.len() as f64, abs.iter().copied().fold(0.0, f64::max)))
}

fn format_summary(errors: &[f64]) -> (String, String) {
    match error_summary(errors) {
        Some((mean, max)) => (format!("{:.1} %", 100.0 * mean), format!("{:.1} %", 100.0 * max)),
        None => ("–".into(), "–".into()),
    }
}

/// The summary table's rows of latency results: one per seed, with seed 003's β = 0 baselines
/// apart from its broadcast configurations, so that the paper's own claim can be read alone.
fn summary_groups(report: &Report) -> Vec<(String, Vec<&LatencyResult>)> {
    let mut groups = Vec::new();
    for (index, seed) in SEEDS.iter().enumerate().take(4) {
        let of_seed = report.latency.iter().filter(|r| r.configuration.seed == index);
        if index == 3 {
            let (baseline, broadcast): (Vec<_>, Vec<_>) = of_seed.partition(|r| r.configuration.scenario.beta == 0.0);
            groups.push((format!("{}, β > 0", seed.cite), broadcast));
            groups.push((format!("{}, β = 0", seed.cite), baseline));
        } else {
            groups.push((seed.cite.to_string(), of_seed.collect()));
        }
    }
    groups
}

/// Path of a configuration's plot, relative to the report.
pub fn plot_path(id: &str) -> String {
    format!("validation/{id}.svg")
}

pub const SATURATION_PLOT_ID: &str = "seed004-saturation";

/// The report as Markdown. `command` is how it was produced, quoted in the header.
pub fn markdown(report: &Report, command: &str) -> String {
    let mut md = String::new();
    let l = &report.length;
    let _ = writeln!(md, "# Validation: analytical models against the simulator\n");
    let _ = writeln!(
        md,
        "Generated by `{command}`; do not edit by hand. Every run is seeded (`seed=1`), so the same \
         command on the same code reproduces the numbers.\n"
    );
    let _ = writeln!(
        md,
        "- Latency points: warm-up {} cycles, measurement window {} cycles, then the labelled messages \
         drain; at {} of the model's saturation rate (Quaglia et al. 2002: the paper's rates{}). One run per rate, \
         with its own 95 % interval (batch means, docs/statistics.md); from {:.0} % of the model's \
         saturation rate on, where one run is a wide sample, {} runs with seeds derived from the \
         scenario's, their mean with the 95 % interval across them (marked † in the tables).",
        l.warmup,
        l.cycles,
        l.load_fractions.iter().map(|f| format!("{:.0} %", 100.0 * f)).collect::<Vec<_>>().join(", "),
        if l.rate_stride > 1 { format!(", every {}th", l.rate_stride) } else { String::new() },
        100.0 * l.replicate_from,
        l.seeds_near_saturation
    );
    let _ = writeln!(
        md,
        "- Saturation searches (Singh et al. 2003): warm-up {} cycles, window {} cycles per run, bisection on the \
         rate to 1 % (`experiment::saturation`, criterion `source-shortfall`), {}.",
        l.saturation_warmup,
        l.saturation_cycles,
        if l.saturation_seeds > 1 {
            format!("{} seeds per case: their mean ± the 95 % interval across them", l.saturation_seeds)
        } else {
            "one seed per case".to_string()
        }
    );
    let _ = writeln!(
        md,
        "- Wall time: {:.0} s ({:.1} min) on {} thread{}, {} simulations.\n",
        report.wall_seconds,
        report.wall_seconds / 60.0,
        report.threads,
        if report.threads == 1 { "" } else { "s" },
        report.simulations
    );
    let _ = writeln!(
        md,
        "**Error** is (model − simulation) / simulation for latency, and (measured − bound) / bound for \
         the bounds. A simulated point marked *sat.* could not keep up with its offered load (its latency \
         measures the run length); it is left out of the errors and drawn as a hollow triangle on the \
         top edge of its plot.\n"
    );
    let _ = writeln!(
        md,
        "**The channel-queue model**, the project's own (every routing algorithm with virtual channels, \
         every traffic pattern), is set against the simulator over the whole routing × pattern grid on \
         its own page, [`validation/channel-queue.md`](validation/channel-queue.md), with a paper's \
         model beside it wherever one also applies. Where it also applies here (Duato-Nbc, Quaglia et al.'s \
         adaptive routing with wormhole switching, Duato's routing at β = 0), its latency and error stand \
         beside the paper's model in each table, dashed in each plot, and [the table after the \
         summary](#the-papers-models-beside-the-channel-queue-model) sets the two against the simulation.\n"
    );
    let _ = writeln!(
        md,
        "**Term by term** sets the model's intermediate quantities beside the simulator's measured \
         counterparts at the simulated rate nearest half the model's saturation: P_v, the fraction of \
         channel-cycles with v VCs allocated; V̄ = Σv²P_v / Σv P_v; the blocking probability, the share of \
         header routing steps (the first, out of the source, included) that waited for a VC; W_c, the mean \
         wait of a blocked header; W_s, the wait in the source queue. The models' W_s splits a source's messages over \
         several injection queues (V of them in both Safaei et al. 2007 models, 2n in Shahrabi et al. 2002); the simulator has one \
         per node, so its source wait is larger by construction.\n"
    );

    md.push_str("## Summary\n\n");
    md.push_str("| paper | model | configurations | points compared | sim. saturated | mean abs. error | max abs. error | mean abs. error below 50 % of model saturation |\n");
    md.push_str("|---|---|---|---|---|---|---|---|\n");
    for (label, results) in summary_groups(report) {
        let errors: Vec<f64> = results.iter().flat_map(|r| r.points.iter().filter_map(|p| p.relative_error())).collect();
        let low_errors: Vec<f64> = results
            .iter()
            .flat_map(|r| {
                let saturation = r.model_saturation_rate.unwrap_or(f64::INFINITY);
                r.points.iter().filter(move |p| p.rate <= 0.5 * saturation).filter_map(|p| p.relative_error())
            })
            .collect();
        let saturated = results
            .iter()
            .flat_map(|r| r.points.iter())
            .filter(|p| p.simulated.saturated || p.simulated.deadlock)
            .count();
        let model = results.first().and_then(|r| r.model.as_ref().ok()).map_or("–", |m| m.0);
        let (mean, max) = format_summary(&errors);
        let (low_mean, _) = format_summary(&low_errors);
        let _ = writeln!(
            md,
            "| {label} | {model} | {} | {} | {saturated} | {mean} | {max} | {low_mean} |",
            results.len(),
            errors.len()
        );
    }
    let bound_errors: Vec<f64> = report.saturation.iter().filter_map(|r| r.relative_error()).collect();
    let (mean, max) = format_summary(&bound_errors);
    let _ = writeln!(
        md,
        "| {} | bounds | {} | {} | – | {mean} | {max} | – |\n",
        SEEDS[4].cite,
        report.saturation.len(),
        bound_errors.len()
    );

    write_beside_section(&mut md, report);

    for (index, seed) in SEEDS.iter().enumerate().take(4) {
        let _ = writeln!(md, "## {}: {}\n", seed.cite, seed.title);
        let _ = writeln!(md, "{}.\n", seed.reference);
        let _ = writeln!(md, "{}\n", model_page_line(seed));
        let results: Vec<&LatencyResult> = report.latency.iter().filter(|r| r.configuration.seed == index).collect();
        if let Some(Ok((name, description))) = results.first().map(|r| &r.model) {
            let _ = writeln!(md, "Model `{name}`: {description}.\n");
        }
        for r in results {
            write_latency_section(&mut md, r);
        }
    }
    write_saturation_section(&mut md, report);
    md
}

/// Every configuration where the channel-queue model applies beside the paper's model: both
/// models' errors against the simulation, below and from half of the paper's model's saturation
/// rate (where the simulated rates are placed), and both saturation rates.
fn write_beside_section(md: &mut String, report: &Report) {
    let beside: Vec<&LatencyResult> = report.latency.iter().filter(|r| r.channel_queue_saturation_rate.is_some()).collect();
    if beside.is_empty() {
        return;
    }
    md.push_str("## The papers' models beside the channel-queue model\n\n");
    md.push_str(
        "Mean absolute latency error against the simulation, over the simulated points below and from 50 % of \
         the paper's model's saturation rate (the rates are placed at fractions of it), and both models' \
         saturation rates (messages/node/cycle); the simulator's own saturation is not searched here (the \
         channel-queue page compares it on its own grid).\n\n",
    );
    md.push_str("| paper | configuration | points | paper's model < 50 % | channel-queue < 50 % | paper's model ≥ 50 % | channel-queue ≥ 50 % | paper's model saturation | channel-queue saturation |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for r in beside {
        let saturation = r.model_saturation_rate.unwrap_or(f64::INFINITY);
        let mean = |below: bool, error: fn(&PointComparison) -> Option<f64>| {
            let errors: Vec<f64> =
                r.points.iter().filter(|p| (p.rate < 0.5 * saturation) == below).filter_map(error).collect();
            format_summary(&errors).0
        };
        let compared = r.points.iter().filter(|p| p.relative_error().is_some() || p.channel_queue_error().is_some()).count();
        let _ = writeln!(
            md,
            "| {} | {} | {compared} | {} | {} | {} | {} | {} | {} |",
            SEEDS[r.configuration.seed].cite,
            r.configuration.title,
            mean(true, PointComparison::relative_error),
            mean(true, PointComparison::channel_queue_error),
            mean(false, PointComparison::relative_error),
            mean(false, PointComparison::channel_queue_error),
            r.model_saturation_rate.map_or("–".into(), format_rate),
            r.channel_queue_saturation_rate.map_or("–".into(), format_rate),
        );
    }
    md.push('\n');
}

/// The line under a seed's heading: its model's page, linked relative to the report (written to
/// `docs/` by default), and the report's set-up for it.
pub fn model_page_line(seed: &SeedPaper) -> String {
    format!("Model: [`docs/models/{0}`](models/{0}). {1}", seed.spec, seed.setup)
}

fn write_latency_section(md: &mut String, r: &LatencyResult) {
    let c = &r.configuration;
    let _ = writeln!(md, "### {}\n", c.title);
    let _ = writeln!(
        md,
        "Model saturation: {}; channel-load bound: {} (messages/node/cycle).\n",
        r.model_saturation_rate.map_or("–".into(), format_rate),
        r.bound_saturation_rate.map_or("–".into(), format_rate)
    );
    if let Err(why) = &r.model {
        let _ = writeln!(md, "No model applies: {why}.\n");
    }
    let _ = writeln!(md, "Simulated scenario (first rate): `{}`\n", r.simulated_scenario);
    let _ = writeln!(md, "![{}]({})\n", c.title, plot_path(&c.id));
    let paper = r.points.iter().any(|p| p.paper_simulation.is_some());
    let beside = r.channel_queue_saturation_rate.is_some();
    if let Some(own) = r.channel_queue_saturation_rate {
        let _ = writeln!(md, "The channel-queue model applies too (dashed in the plot): saturation {}.\n", format_rate(own));
    }
    md.push_str("| rate | model | simulation ± 95 % CI | error |");
    if beside {
        md.push_str(" channel-queue | error |");
    }
    if paper {
        md.push_str(" paper's simulation | model vs paper's sim. |");
    }
    md.push('\n');
    md.push_str(&"|---".repeat(4 + 2 * usize::from(beside) + 2 * usize::from(paper)));
    md.push_str("|\n");
    for p in &r.points {
        let model = p.model.map_or("saturated".into(), |m| format!("{m:.1}"));
        let s = p.simulated;
        let sim = match s {
            _ if s.deadlock => "deadlock".into(),
            _ if s.saturated => format!("sat. ({:.0})", s.latency),
            _ if s.seeds > 1 => format!("{:.1} ± {:.1} †", s.latency, s.ci95),
            _ => format!("{:.1} ± {:.1}", s.latency, s.ci95),
        };
        let _ = write!(md, "| {} | {model} | {sim} | {} |", format_rate(p.rate), format_error(p.relative_error()));
        if beside {
            let own = p.channel_queue.map_or("saturated".into(), |m| format!("{m:.1}"));
            let _ = write!(md, " {own} | {} |", format_error(p.channel_queue_error()));
        }
        if paper {
            let published = p.paper_simulation.map_or("–".into(), |v| format!("{v:.2}"));
            let versus = p.model.zip(p.paper_simulation).map(|(m, s)| (m - s) / s);
            let _ = write!(md, " {published} | {} |", format_error(versus));
        }
        md.push('\n');
    }
    md.push('\n');
    if let Some(t) = &r.terms {
        let _ = writeln!(md, "Term by term at rate {}:\n", format_rate(t.rate));
        md.push_str("| quantity | model | simulation |\n|---|---|---|\n");
        for row in &t.rows {
            let _ = writeln!(md, "| {} | {} | {} |", row.quantity, format_quantity(row.model), format_quantity(row.simulated));
        }
        md.push('\n');
    }
}

fn write_saturation_section(md: &mut String, report: &Report) {
    let seed = &SEEDS[4];
    let _ = writeln!(md, "## {}: {}\n", seed.cite, seed.title);
    let _ = writeln!(md, "{}.\n", seed.reference);
    let _ = writeln!(md, "{}\n", model_page_line(seed));
    let _ = write!(
        md,
        "Both columns are fractions of capacity (8/k flits/node/cycle). The bound is capped at the \
         injection channel's 1 flit/node/cycle (1.0 at k = 8), which no search can exceed; it is an \
         upper bound for every algorithm but CHAOS, for which it is the minimal-routing reference. \
         The search (`experiment::saturation`, criterion `source-shortfall`, docs/statistics.md): {}. \
         Those allowances let a measured value pass the bound by up to about 5 %; more than that points \
         at the search, not at the bound.\n\n",
        Criterion::SourceShortfall.rule()
    );
    let _ = writeln!(md, "![measured saturation against the bound]({})\n", plot_path(SATURATION_PLOT_ID));
    md.push_str("| algorithm | pattern | bound (kind) | bound, capped | measured | error |\n|---|---|---|---|---|---|\n");
    for r in &report.saturation {
        let kind = serde_json::to_value(r.bound.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let bound = r.bound.fraction_of_capacity.map_or("–".into(), |b| format!("{b:.4} ({kind})"));
        let capped = r.attainable_fraction().map_or("–".into(), |b| format!("{b:.4}"));
        let across = r.measured.across_seeds.saturation_fraction_of_capacity;
        let measured = across.ci95.map_or(format!("{:.4}", across.mean), |ci| format!("{:.4} ± {ci:.4}", across.mean));
        let _ = writeln!(
            md,
            "| {} | {} | {bound} | {capped} | {measured} | {} |",
            r.scenario.routing,
            r.scenario.traffic,
            format_error(r.relative_error())
        );
    }
}

/// Writes `validation.md` and its plots (`validation/*.svg`) under `out`.
pub fn write(report: &Report, command: &str, out: &Path) -> std::io::Result<()> {
    let plots = out.join("validation");
    std::fs::create_dir_all(&plots)?;
    for r in &report.latency {
        std::fs::write(out.join(plot_path(&r.configuration.id)), latency_plot(r).render())?;
    }
    std::fs::write(out.join(plot_path(SATURATION_PLOT_ID)), saturation_plot(&report.saturation).render())?;
    std::fs::write(out.join("validation.md"), markdown(report, command))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Simulation;

    #[test]
    fn the_configurations_cover_every_seed_set_up() {
        let configurations = latency_configurations();
        let of_seed = |seed: usize| configurations.iter().filter(move |c| c.seed == seed).map(|c| &c.scenario);
        let values = |seed: usize, key: fn(&Scenario) -> f64| {
            let mut v: Vec<f64> = of_seed(seed).map(key).collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v
        };
        assert_eq!(of_seed(0).count(), 4);
        assert_eq!(values(0, |s| s.k as f64), [8.0, 16.0]);
        assert_eq!(values(0, |s| s.len as f64), [32.0, 64.0]);
        assert_eq!(values(0, |s| s.vcs as f64), [10.0]);
        assert_eq!(values(1, |s| s.vcs as f64), [1.0, 6.0]);
        assert_eq!(values(1, |s| s.len as f64), [32.0, 64.0]);
        assert_eq!(values(1, |s| s.scout as f64), [0.0, 1.0, 3.0, 6.0]);
        assert_eq!(values(1, |s| s.k as f64), [8.0, 16.0]);
        assert_eq!(values(2, |s| s.k as f64), [4.0, 8.0]);
        assert_eq!(values(2, |s| s.len as f64), [12.0]);
        assert_eq!(values(3, |s| s.k as f64), [8.0, 10.0, 16.0]);
        assert_eq!(values(3, |s| s.vcs as f64), [3.0, 4.0, 5.0]);
        assert_eq!(values(3, |s| s.len as f64), [16.0, 32.0, 48.0, 64.0]);
        assert_eq!(values(3, |s| s.beta), [0.0, 0.02, 0.04]);
        for c in &configurations {
            assert!(models::applicable(&c.scenario).is_ok(), "{} has no model", c.id);
        }
        let mut ids: Vec<&str> = configurations.iter().map(|c| c.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), configurations.len(), "plot file names are unique");

        let cases = saturation_cases(&RunLength::quick());
        for &routing in RoutingKind::ALL {
            let patterns = cases.iter().filter(|s| s.routing == routing).count();
            assert_eq!(patterns, if routing.is_oblivious() { 7 } else { 6 }, "{routing}");
        }
        assert!(cases.iter().all(|s| s.len == 1 && s.buf == 8 && s.k == 8));
    }

    #[test]
    fn the_error_is_relative_to_the_simulation_and_skips_saturated_runs() {
        let sim = SimulatedPoint { latency: 50.0, ci95: 1.0, seeds: 1, saturated: false, deadlock: false };
        let point = PointComparison { rate: 0.01, model: Some(45.0), simulated: sim, paper_simulation: None, channel_queue: None };
        assert_eq!(point.relative_error(), Some(-0.1));
        let saturated = PointComparison { simulated: SimulatedPoint { saturated: true, ..sim }, ..point };
        assert_eq!(saturated.relative_error(), None);
        assert_eq!(PointComparison { model: None, ..point }.relative_error(), None);
    }

    /// One supported configuration end to end with tiny runs: the row holds the model's value,
    /// the simulator's, and their relative error.
    #[test]
    fn a_tiny_end_to_end_run_gives_a_correct_table_row() {
        let c = latency_configurations()
            .into_iter()
            .find(|c| c.id == "seed003-k8-v4-m32-beta0")
            .expect("the β = 0 baseline of Shahrabi et al. 2002");
        let length = RunLength { warmup: 200, cycles: 1_500, load_fractions: vec![0.3], ..RunLength::quick() };
        let result = validate_configuration(&c, &length, &experiment::Local::quiet());
        assert_eq!(result.points.len(), 1);
        let point = result.points[0];
        let saturation = result.model_saturation_rate.expect("the broadcast model applies");
        assert!((point.rate - 0.3 * saturation).abs() < 1e-15);

        let at_rate = Scenario { rate: point.rate, warmup: 200, cycles: 1_500, ..c.scenario.clone() };
        let expected_sim = Simulation::new(&at_rate).unwrap().run().latency_mean;
        let expected_model = models::applicable(&c.scenario).unwrap().evaluate(&c.scenario, point.rate).latency.unwrap();
        let sim = point.simulated;
        assert_eq!(sim.latency, expected_sim, "the same seeded run");
        assert_eq!(point.model, Some(expected_model));
        assert!(!sim.saturated);
        let error = point.relative_error().unwrap();
        assert!((error - (expected_model - expected_sim) / expected_sim).abs() < 1e-12);

        let report = Report {
            length,
            latency: vec![result],
            saturation: Vec::new(),
            wall_seconds: 1.0,
            threads: 1,
            simulations: 1,
        };
        let md = markdown(&report, "torus validate --test");
        let row = format!(
            "| {} | {expected_model:.1} | {expected_sim:.1} ± {:.1} | {:+.1} % |",
            format_rate(point.rate),
            sim.ci95,
            100.0 * error
        );
        assert!(md.contains(&row), "missing row {row} in\n{md}");
        // Duato's routing at β = 0: the channel-queue model applies beside the paper's, in the
        // row, in its own table and dashed in the plot.
        let own = models::channel_queue::Model::new(&c.scenario).unwrap();
        let own_latency = own.solve(point.rate).unwrap().latency;
        assert_eq!(point.channel_queue, Some(own_latency));
        assert_eq!(report.latency[0].channel_queue_saturation_rate, Some(own.saturation_rate()));
        let own_error = (own_latency - expected_sim) / expected_sim;
        assert_eq!(point.channel_queue_error(), Some(own_error));
        let row = format!("{row} {own_latency:.1} | {:+.1} % |", 100.0 * own_error);
        assert!(md.contains(&row), "missing row {row} in\n{md}");
        assert!(md.contains("## The papers' models beside the channel-queue model"), "{md}");
        let beside_row = format!(
            "| {} | k = 8, V = 4, M = 32, β = 0 | 1 | {:.1} % | {:.1} % | – | – | {} | {} |",
            SEEDS[3].cite,
            100.0 * error.abs(),
            100.0 * own_error.abs(),
            format_rate(saturation),
            format_rate(own.saturation_rate())
        );
        assert!(md.contains(&beside_row), "missing {beside_row} in\n{md}");
        assert!(md.contains("![k = 8, V = 4, M = 32, β = 0](validation/seed003-k8-v4-m32-beta0.svg)"));
        assert!(md.contains("Term by term at rate"));
        let svg = latency_plot(&report.latency[0]).render();
        assert_eq!(svg.matches("<circle").count() + svg.matches("<polygon").count(), 1);
        assert!(svg.contains("channel-queue model") && !report.latency[0].channel_queue_curve.is_empty());
    }

    /// Near the model's saturation a point is the mean of several seeds, with the interval
    /// across them; below it, one run with its own interval.
    #[test]
    fn points_near_saturation_are_replicated() {
        let c = latency_configurations().into_iter().find(|c| c.id == "seed003-k8-v4-m32-beta0").unwrap();
        let length = RunLength {
            warmup: 200,
            cycles: 1_500,
            load_fractions: vec![0.2, 0.4],
            replicate_from: 0.35,
            seeds_near_saturation: 3,
            ..RunLength::quick()
        };
        let result = validate_configuration(&c, &length, &experiment::Local::quiet());
        let (low, high) = (result.points[0], result.points[1]);
        assert_eq!((low.simulated.seeds, high.simulated.seeds), (1, 3));
        let at = |rate: f64, seed: u64| {
            Simulation::new(&Scenario { rate, seed, warmup: 200, cycles: 1_500, ..c.scenario.clone() }).unwrap().run()
        };
        let latencies: Vec<f64> =
            crate::experiment::replication::seeds(&c.scenario, 3).into_iter().map(|seed| at(high.rate, seed).latency_mean).collect();
        let across = AcrossSeeds::of(&latencies);
        let sim = high.simulated;
        assert_eq!((sim.latency, sim.ci95, sim.saturated), (across.mean, across.ci95.unwrap(), false));
        assert_eq!(low.simulated.ci95, at(low.rate, 1).latency_ci95, "a single run keeps its own interval");
        let report = Report { length, latency: vec![result], saturation: Vec::new(), wall_seconds: 0.0, threads: 1, simulations: 4 };
        let md = markdown(&report, "torus validate --test");
        assert!(
            md.contains(&format!("{:.1} ± {:.1} †", sim.latency, sim.ci95))
                && md.contains("from 35 % of the model's saturation rate on, where one run is a wide sample, 3 runs"),
            "{md}"
        );
    }

    /// A seed 004 case searched with several seeds reports their mean and the interval across
    /// them, the same as `torus saturation --seeds`.
    #[test]
    fn saturation_cases_are_searched_with_several_seeds() {
        let s = Scenario { warmup: 200, cycles: 800, ..saturation_cases(&RunLength::quick())[0].clone() };
        let length = RunLength { saturation_seeds: 2, ..RunLength::quick() };
        let runner = experiment::Local::quiet();
        let searched: Vec<Saturation> = runner.run(saturation_jobs(&s, &length)).into_iter().map(Outcome::into_search).collect();
        assert_eq!(searched.len(), 2);
        let result = compare_saturation(&s, searched);
        let expected = experiment::search_replicated(&runner, &s, &SearchOptions::default(), 2);
        let measured = &result.measured;
        assert_eq!(measured.across_seeds, expected.across_seeds);
        assert_eq!(measured.seeds, expected.seeds);
        let across = measured.across_seeds.saturation_fraction_of_capacity;
        let report = Report { length, latency: Vec::new(), saturation: vec![result], wall_seconds: 0.0, threads: 1, simulations: 0 };
        let md = markdown(&report, "torus validate --test");
        assert!(md.contains(&format!("{:.4} ± {:.4}", across.mean, across.ci95.unwrap())) && md.contains("2 seeds per case"), "{md}");
    }

    /// Every configuration of every paper and every seed 004 case is simulated: each has its
    /// runs at every rate, and each case its searches.
    #[test]
    fn every_configuration_and_case_is_simulated() {
        let length = RunLength::quick();
        for c in latency_configurations() {
            let model_saturation = models::applicable(&c.scenario).ok().map(|m| m.saturation_rate(&c.scenario));
            let runs: usize = seeds_per_rate(&c, &length).iter().sum();
            assert_eq!(configuration_jobs(&c, &length).len(), runs, "{}", c.id);
            assert!(runs >= rates_of(&c, model_saturation, &length).len(), "{}", c.id);
        }
        for s in saturation_cases(&length) {
            assert_eq!(saturation_jobs(&s, &length).len(), length.saturation_seeds.max(1), "{}", s.canonical());
        }
    }
}
