//! Deadlock shown, not hung on: configurations that can deadlock are stopped by the watchdog,
//! and the reported VCs form a closed cycle of waiting, checked here from the public state of
//! the stuck network rather than from the simulator's own wait-for graph.

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

/// Each channel ends where the next begins, the last where the first begins, and all of them
/// run along one dimension in one direction: a whole ring of the torus.
fn assert_channels_go_round_a_ring(sim: &Simulation, channels: &[u32]) {
    let t = sim.torus();
    assert_eq!(channels.len() as u32, t.k, "a dimension-order deadlock spans one ring: {channels:?}");
    let port = t.channel_port(channels[0]);
    for (i, &c) in channels.iter().enumerate() {
        let next = channels[(i + 1) % channels.len()];
        assert_eq!(t.neighbour(t.channel_source(c), t.channel_port(c)), t.channel_source(next), "{channels:?}");
        assert_eq!(
            (port_dim(t.channel_port(c)), port_direction(t.channel_port(c))),
            (port_dim(port), port_direction(port)),
            "{channels:?}"
        );
    }
}

/// VC `a` waits for VC `b`: `b` is on a channel out of the router holding `a`'s buffer, `a`
/// holds flits, and `b` is either taken by another message (while `a`'s front header is
/// blocked) or full (while `a`'s front message has no credit).
fn assert_each_waits_for_the_next(sim: &Simulation, vcs: &[u32]) {
    let t = sim.torus();
    let (flits, owner, blocked) = (sim.vc_flits(), sim.vc_owner(), sim.vc_blocked());
    let buf = sim.scenario().buf as u16;
    for (i, &a) in vcs.iter().enumerate() {
        let b = vcs[(i + 1) % vcs.len()];
        let (ca, cb) = (a / sim.vcs(), b / sim.vcs());
        let router = t.neighbour(t.channel_source(ca), t.channel_port(ca));
        assert_eq!(t.channel_source(cb), router, "VC {b} does not leave the router of VC {a}");
        assert!(flits[a as usize] > 0, "VC {a} is empty, so it waits for nothing");
        let header_blocked = blocked[a as usize] == 1 && owner[b as usize] != u32::MAX;
        assert!(header_blocked || flits[b as usize] == buf, "VC {a} could move into VC {b}");
    }
}

#[test]
fn a_ring_without_dateline_deadlocks_round_the_ring() {
    let sim = deadlocked_simulation(RING, 50_000);
    let cycle = sim.deadlock_cycle();
    assert_each_waits_for_the_next(&sim, &cycle.vcs);
    assert_channels_go_round_a_ring(&sim, &cycle.channels);
}

#[test]
fn a_4x4_torus_without_dateline_deadlocks_round_one_ring() {
    let sim = deadlocked_simulation(TORUS_4X4, 50_000);
    let cycle = sim.deadlock_cycle();
    assert_each_waits_for_the_next(&sim, &cycle.vcs);
    assert_channels_go_round_a_ring(&sim, &cycle.channels);
}

#[test]
fn the_run_report_carries_the_cycle_and_stops_early() {
    for text in [RING, TORUS_4X4] {
        let s = Scenario::parse(text).unwrap();
        let r = Simulation::new(&s).unwrap().run();
        assert!(r.deadlock, "{text}");
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
