//! One message on an otherwise idle network: the zero-load measurements of the routing and
//! router tests.

use torus_explorer::sim::Simulation;
use torus_explorer::topology::Torus;
use torus_explorer::Scenario;

/// Sends one message from `src` to `dest` (coordinates) on an idle network under `scenario`
/// and returns its (latency, hops).
pub fn lone_message(scenario: &str, src: &[u32], dest: &[u32]) -> (f64, f64) {
    let s = Scenario::parse(&format!("{scenario}&rate=0.000000001&warmup=0&cycles=400")).unwrap();
    let t = Torus::new(s.k, s.n);
    let mut sim = Simulation::new(&s).unwrap();
    sim.set_traffic(false);
    sim.send(t.node_at(src), t.node_at(dest));
    let r = sim.run();
    assert_eq!(r.messages_measured, 1, "{scenario}: one message sent, one measured");
    (r.latency_mean, r.hops_mean)
}
