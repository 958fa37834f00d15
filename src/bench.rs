//! `torus bench`: the simulator's speed on fixed scenarios, its cost against network size and
//! load (with the two scaling plots), and the time of each analytical model's curve.

use crate::models;
use crate::scenario::Scenario;
use crate::sim::Simulation;
use crate::svg::{Curve, Marker, MarkerSeries, Plot};
use serde::Serialize;
use std::time::Instant;

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
/// algorithms and long messages below saturation, chaos on seed 004's set-up at the load of
/// the MIN AD line before it, then the other router organisations (`router=`) near saturation
/// on that set-up, messages of varying length, and source queues per port.
pub const BENCH_SCENARIOS: &[&str] = &[
    "k=8&routing=dor&traffic=uniform&len=1&rate=0.5&vcs=2&buf=8",
    "k=8&routing=dor&traffic=uniform&len=16&rate=0.02",
    "k=8&routing=minad&traffic=tornado&len=16&rate=0.01",
    "k=8&routing=goal&traffic=uniform&len=1&rate=0.25&vcs=3&buf=8",
    "k=8&routing=duato&traffic=uniform&len=16&rate=0.03&vcs=4&buf=8",
    "k=8&routing=minad&traffic=uniform&len=1&rate=0.5&vcs=3&buf=8",
    "k=8&routing=chaos&traffic=uniform&len=1&rate=0.5&buf=8",
    // The router organisation that reproduces seed 004, and messages of varying length.
    "k=8&routing=goal&traffic=uniform&len=1&rate=0.5&vcs=3&buf=8&router=damq+speedup2+wide",
    "k=8&routing=dor&traffic=uniform&len=1&rate=0.8&vcs=2&buf=12&router=damq+speedup2+wide",
    "k=8&routing=val&traffic=uniform&len=1&rate=0.4&vcs=4&buf=6&router=maxmatch+speedup2+wide",
    "k=8&routing=duato&traffic=uniform&len=16&rate=0.03&vcs=4&buf=8&lengths=geometric",
    // A source queue per port (`voq`) under nearest-neighbour traffic, where it lifts DOR to 4.0.
    "k=8&routing=dor&traffic=neighbor&len=1&rate=3.5&vcs=2&buf=12&router=damq+speedup2+wide+voq",
];

const SCALING_SIZES: [u32; 4] = [4, 8, 16, 32];

/// Scaling benchmarks (`torus bench --scaling`): DOR, uniform traffic, 16-flit messages;
/// first k = 4..32 at a fixed load per node (0.05 flits/node/cycle), then k = 8 at loads from
/// 0.01 to 0.4 flits/node/cycle.
pub fn scaling_scenarios() -> Vec<String> {
    let by_size = SCALING_SIZES.map(|k| format!("k={k}&routing=dor&traffic=uniform&len=16&rate={}", 0.05 / 16.0));
    let by_load = [0.01, 0.05, 0.1, 0.2, 0.3, 0.4].map(|f| format!("k=8&routing=dor&traffic=uniform&len=16&rate={}", f / 16.0));
    by_size.into_iter().chain(by_load).collect()
}

/// The two scaling curves of `torus bench --scaling --svg`, from the results of
/// [`scaling_scenarios`] in order: time per simulated cycle against k, and against the offered
/// load at k = 8. Each plot has the measured cost and, dashed, the cost of the same traffic at the
/// reference point's price per flit-hop (k = 8 at 0.05 flits/node/cycle, in both lists): where
/// the two curves lie together, the cost follows the flits that move, not the network's size.
pub fn scaling_plots(results: &[BenchResult]) -> Vec<(&'static str, Plot)> {
    let point = |r: &BenchResult| {
        let s = Scenario::parse(&r.scenario).expect("a bench result's scenario is canonical");
        (s, r.ns_per_cycle, r.flit_hops_per_node_cycle)
    };
    let points: Vec<_> = results.iter().map(point).collect();
    let (by_size, by_load) = points.split_at(SCALING_SIZES.len().min(points.len()));
    let reference = by_size.iter().find(|(s, ..)| s.k == 8);
    let price = reference.map(|&(ref s, ns, hops)| ns / (hops * s.nodes() as f64));
    let plot = |title: &str, x_label: &str, points: &[(Scenario, f64, f64)], x: &dyn Fn(&Scenario) -> f64| {
        let measured = Curve { label: "measured".into(), points: points.iter().map(|(s, ns, _)| (x(s), *ns)).collect(), dashed: false };
        let traffic = price.map(|price| Curve {
            label: "same traffic at the reference's ns per flit-hop".into(),
            points: points.iter().map(|(s, _, hops)| (x(s), price * hops * s.nodes() as f64)).collect(),
            dashed: true,
        });
        Plot {
            title: title.into(),
            x_label: x_label.into(),
            y_label: "nanoseconds per simulated cycle".into(),
            curves: std::iter::once(measured).chain(traffic).collect(),
            markers: vec![MarkerSeries {
                label: "benchmark".into(),
                markers: points.iter().map(|(s, ns, _)| Marker { x: x(s), y: *ns, error: 0.0 }).collect(),
            }],
            ..Plot::default()
        }
    };
    vec![
        (
            "scaling-size.svg",
            plot("Cost against network size (DOR, uniform, 16 flits, 0.05 flits/node/cycle)", "k (k × k torus)", by_size, &|s| s.k as f64),
        ),
        (
            "scaling-load.svg",
            plot("Cost against load (DOR, uniform, 16 flits, 8 × 8)", "offered load (flits/node/cycle)", by_load, &|s| s.rate * s.len as f64),
        ),
    ]
}

/// Points of the model curves `torus bench --models` times (the page draws curves of this size).
pub const MODEL_CURVE_POINTS: usize = 100;

/// Speed of one analytical model (`torus bench --models`).
#[derive(Clone, Debug, Serialize)]
pub struct ModelBenchResult {
    pub scenario: String,
    pub model: &'static str,
    pub points: usize,
    pub saturation_rate: f64,
    /// Time to find the saturation rate (bisection or closed form; for the channel-queue model
    /// with building its routes and, for an adaptive algorithm, continuing its branch of fixed
    /// points to its end, which its curves then reuse: the page asks for the saturation rate
    /// first too).
    pub saturation_ms: f64,
    /// Time for the latency at [`MODEL_CURVE_POINTS`] rates spread evenly from 1% to 99% of the
    /// saturation rate (the points near saturation are the slow ones to converge).
    pub curve_ms: f64,
}

/// The channel-queue model's benchmarks (`docs/models/channel-queue.md` §9): 8×8,
/// translation-invariant patterns (uniform, tornado, neighbour) and not (transpose, a random
/// permutation, hot spot), oblivious and adaptive algorithms.
pub const CHANNEL_QUEUE_BENCH_SCENARIOS: &[&str] = &[
    "k=8&routing=dor&traffic=uniform&len=16",
    "k=8&routing=dor&traffic=tornado&len=16",
    "k=8&routing=val&traffic=neighbor&len=16",
    "k=8&routing=rlb&traffic=uniform&len=16",
    "k=8&routing=goal&traffic=tornado&len=16",
    "k=8&routing=goal&traffic=uniform&len=16",
    "k=8&routing=minad&traffic=uniform&len=16",
    "k=8&routing=dor&traffic=transpose&len=16",
    "k=8&routing=romm&traffic=permutation&len=16",
    "k=8&routing=val&traffic=permutation&len=16",
    "k=8&routing=minad&traffic=hotspot&len=16",
];

/// The model benchmarks: every paper's validation configuration, Quaglia et al.'s model on a
/// 16×16 torus (the slowest of the papers' models to converge), and the channel-queue model's.
pub fn model_bench_scenarios() -> Vec<Scenario> {
    crate::validation::latency_configurations()
        .into_iter()
        .map(|c| c.scenario)
        .chain([Scenario::parse("k=16&routing=adaptive&traffic=uniform&len=12&vcs=4").expect("valid model benchmark")])
        .chain(CHANNEL_QUEUE_BENCH_SCENARIOS.iter().map(|s| Scenario::parse(s).expect("valid model benchmark")))
        .collect()
}

/// The rates of a timed model curve: [`MODEL_CURVE_POINTS`] spread evenly from 1% to 99% of
/// the saturation rate.
pub fn model_bench_rates(saturation_rate: f64) -> Vec<f64> {
    (0..MODEL_CURVE_POINTS)
        .map(|i| saturation_rate * (0.01 + 0.98 * i as f64 / (MODEL_CURVE_POINTS - 1) as f64))
        .collect()
}

/// Times the applicable model of `s`: its saturation rate once, then 100-point curves until
/// 50 ms have passed, reporting the mean time per curve.
pub fn bench_model(s: &Scenario) -> Result<ModelBenchResult, String> {
    let model = models::applicable(s)?;
    let start = Instant::now();
    let saturation_rate = model.saturation_rate(s);
    let saturation_ms = start.elapsed().as_secs_f64() * 1e3;
    let rates = model_bench_rates(saturation_rate);
    let start = Instant::now();
    let mut curves = 0u32;
    while curves == 0 || start.elapsed().as_millis() < 50 {
        std::hint::black_box(models::curve(s, std::hint::black_box(&rates)));
        curves += 1;
    }
    Ok(ModelBenchResult {
        scenario: s.canonical(),
        model: model.name(),
        points: MODEL_CURVE_POINTS,
        saturation_rate,
        saturation_ms,
        curve_ms: start.elapsed().as_secs_f64() * 1e3 / curves as f64,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A result costing `ns_per_hop` per flit-hop at `hops_per_node` flit-hops/node/cycle.
    fn result(scenario: &str, hops_per_node: f64, ns_per_hop: f64) -> BenchResult {
        let s = Scenario::parse(scenario).unwrap();
        let hops_per_cycle = hops_per_node * s.nodes() as f64;
        BenchResult {
            scenario: s.canonical(),
            cycles: 1000,
            flit_hops: (hops_per_cycle * 1000.0) as u64,
            seconds: 0.0,
            cycles_per_second: 0.0,
            ns_per_flit_hop: ns_per_hop,
            ns_per_cycle: ns_per_hop * hops_per_cycle,
            flit_hops_per_node_cycle: hops_per_node,
        }
    }


    #[test]
    fn every_model_benchmark_has_its_model_and_a_curve_below_saturation() {
        let scenarios = model_bench_scenarios();
        let names: std::collections::BTreeSet<&str> =
            scenarios.iter().map(|s| models::applicable(s).expect("a model applies to every benchmark").name()).collect();
        assert_eq!(names.len(), 5, "all five latency models are timed: {names:?}");
        let s = Scenario::parse("k=4&routing=adaptive&traffic=uniform&len=12&vcs=4").unwrap();
        let r = bench_model(&s).unwrap();
        assert_eq!((r.model, r.points), (models::applicable(&s).unwrap().name(), MODEL_CURVE_POINTS));
        assert_eq!(r.saturation_rate, models::applicable(&s).unwrap().saturation_rate(&s));
        assert!(r.curve_ms > 0.0 && r.saturation_ms > 0.0);
        // Every point of the timed curve lies below saturation, so every one is a latency.
        let rates = model_bench_rates(r.saturation_rate);
        assert_eq!(rates.len(), MODEL_CURVE_POINTS);
        assert!(rates[0] > 0.0 && rates[MODEL_CURVE_POINTS - 1] < r.saturation_rate);
        assert!(models::curve(&s, &rates).iter().all(Option::is_some));
        let chaos = Scenario::parse("k=8&routing=chaos").unwrap();
        assert!(bench_model(&chaos).unwrap_err().contains("chaos"), "no model: the reason");
    }

    #[test]
    fn scaling_plots_set_the_measured_cost_beside_the_cost_of_its_traffic() {
        // Sizes at 50 ns per flit-hop except k = 16 at 60; loads at 50 except the last at 100.
        let scenarios = scaling_scenarios();
        let results: Vec<BenchResult> = scenarios
            .iter()
            .enumerate()
            .map(|(i, s)| result(s, 0.1 * (i + 1) as f64, if i == 2 { 60.0 } else if i == 9 { 100.0 } else { 50.0 }))
            .collect();
        let plots = scaling_plots(&results);
        assert_eq!(plots.iter().map(|(name, _)| *name).collect::<Vec<_>>(), ["scaling-size.svg", "scaling-load.svg"]);
        let (size, load) = (&plots[0].1, &plots[1].1);
        let xs = |c: &Curve| c.points.iter().map(|p| p.0).collect::<Vec<_>>();
        assert_eq!(xs(&size.curves[0]), [4.0, 8.0, 16.0, 32.0]);
        let loads = xs(&load.curves[0]);
        assert_eq!(loads.len(), 6);
        assert!((loads[0] - 0.01).abs() < 1e-12 && (loads[5] - 0.4).abs() < 1e-12, "{loads:?}");
        for (plot, range) in [(size, 0..4), (load, 4..10)] {
            let (measured, traffic) = (&plot.curves[0], &plot.curves[1]);
            assert!(traffic.dashed && !measured.dashed);
            for (j, i) in range.enumerate() {
                assert_eq!(measured.points[j].1, results[i].ns_per_cycle);
                // The traffic curve prices every point at the reference's 50 ns per flit-hop.
                let at_reference_price = 50.0 * results[i].flit_hops_per_node_cycle * Scenario::parse(&results[i].scenario).unwrap().nodes() as f64;
                assert!((traffic.points[j].1 - at_reference_price).abs() < 1e-6, "{} point {j}", plot.title);
            }
        }
        assert!(size.curves[1].points[2].1 < size.curves[0].points[2].1, "k = 16 costs more than its traffic");
    }
}
