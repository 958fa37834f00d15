//! Deadlock shown, not hung on: configurations that can deadlock are stopped by the watchdog,
//! and the reported VCs form a closed cycle of waiting, checked here from the public state of
//! the stuck network rather than from the simulator's own wait-for graph.

#[path = "support/wait_for.rs"]
mod wait_for;

use torus_explorer::sim::Simulation;
use torus_explorer::topology::{port_dim, port_direction};
use torus_explorer::Scenario;

const RING: &str = "k=4&n=1&routing=dor&vcs=1&unsafe=1&len=8&rate=0.12&buf=4&warmup=0&cycles=50000";
const TORUS_4X4: &str = "k=4&n=2&routing=dor&vcs=1&unsafe=1&len=8&rate=0.1&buf=4&warmup=0&cycles=50000";

/// Steps until the watchdog fires (at most `limit` cycles).
fn deadlocked_simulation(text: &str, limit: u64) -> Simulation {
    let mut sim = Simulation::new(&Scenario::parse(text).unwrap()).unwrap();
    while !sim.deadlocked() {
        assert!(sim.cycle() < limit, "{text}: no deadlock within {limit} cycles");
        sim.step();
    }
    sim
}

/// A closed walk of channels along one dimension in one direction: a whole ring of the torus.
fn assert_channels_go_round_a_ring(sim: &Simulation, channels: &[u32]) {
    let t = sim.torus();
    assert_eq!(channels.len() as u32, t.k, "a dimension-order deadlock spans one ring: {channels:?}");
    wait_for::assert_channels_close(sim, channels);
    let port = t.channel_port(channels[0]);
    for &c in channels {
        let p = t.channel_port(c);
        assert_eq!((port_dim(p), port_direction(p)), (port_dim(port), port_direction(port)), "{channels:?}");
    }
}

#[test]
fn a_ring_without_dateline_deadlocks_round_the_ring() {
    let sim = deadlocked_simulation(RING, 50_000);
    let cycle = sim.deadlock_cycle();
    wait_for::assert_each_waits_for_the_next(&sim, &cycle.vcs);
    assert_channels_go_round_a_ring(&sim, &cycle.channels);
}

#[test]
fn a_4x4_torus_without_dateline_deadlocks_round_one_ring() {
    let sim = deadlocked_simulation(TORUS_4X4, 50_000);
    let cycle = sim.deadlock_cycle();
    wait_for::assert_each_waits_for_the_next(&sim, &cycle.vcs);
    assert_channels_go_round_a_ring(&sim, &cycle.channels);
}

#[test]
fn the_run_report_carries_the_cycle_and_stops_early() {
    for text in [RING, TORUS_4X4] {
        let s = Scenario::parse(text).unwrap();
        let r = Simulation::new(&s).unwrap().run();
        assert!(r.deadlock, "{text}");
        assert!(!r.saturated, "{text}: a deadlock is not reported as saturation too");
        assert!(r.cycles < 50_000, "{text}: the watchdog should stop the run early");
        assert!(!r.deadlock_vcs.is_empty(), "{text}");
        let channels: Vec<u32> = r.deadlock_vcs.iter().map(|vc| vc / s.vcs).collect();
        assert_eq!(r.deadlock_channels, channels, "{text}");
        // The report is the state the stepped simulation reaches: same seed, same cycle.
        let sim = deadlocked_simulation(text, 50_000);
        assert_eq!(r.deadlock_vcs, sim.deadlock_cycle().vcs, "{text}");
    }
}

#[test]
fn a_deadlock_free_network_has_no_cycle_even_when_saturated() {
    let s = Scenario::parse("k=4&n=2&routing=dor&len=8&rate=0.2&warmup=0&cycles=3000").unwrap();
    let mut sim = Simulation::new(&s).unwrap();
    for _ in 0..3000 {
        sim.step();
        assert!(sim.deadlock_cycle().vcs.is_empty(), "cycle {}", sim.cycle());
    }
    let r = sim.run();
    assert!(!r.deadlock && r.saturated);
    assert!(r.deadlock_vcs.is_empty() && r.deadlock_channels.is_empty());
}
