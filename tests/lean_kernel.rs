//! The lean kernel of `examples/lean_kernel` is the simulator's twin on its one scenario: the
//! same flits cross channels in every cycle and the same messages are delivered with the same
//! latencies, at a load below saturation and one past it, for two seeds. Without this, the
//! speed it measures in `docs/performance.md` would not be of the same work.

#[path = "../examples/lean_kernel/kernel.rs"]
mod kernel;

use torus_explorer::sim::Simulation;
use torus_explorer::Scenario;

fn twins(rate: f64, seed: u64, cycles: u64) {
    let scenario = Scenario::parse(&format!("k=8&routing=dor&traffic=uniform&len=1&rate={rate}&vcs=2&buf=8&seed={seed}")).unwrap();
    let mut sim = Simulation::new(&scenario).unwrap();
    sim.record_deliveries();
    let mut lean = kernel::LeanDor::new(rate, seed);
    for cycle in 0..cycles {
        sim.step();
        lean.step();
        assert_eq!(lean.flit_hops(), sim.flit_hops(), "rate {rate} seed {seed}: flit-hops differ after cycle {cycle}");
    }
    let deliveries = sim.take_deliveries();
    assert!(!deliveries.is_empty());
    let latency_sum: u64 = deliveries.iter().map(|d| d.delivered + 1 - d.generated).sum();
    assert_eq!(lean.delivered(), (deliveries.len() as u64, latency_sum), "rate {rate} seed {seed}: deliveries differ");
}

#[test]
fn below_saturation() {
    twins(0.3, 1, 3_000);
    twins(0.5, 7, 3_000);
}

#[test]
fn past_saturation() {
    twins(0.8, 2, 3_000);
}
