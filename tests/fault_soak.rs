//! The soak with faults: every routing algorithm (and scouting switching with misrouting) on an
//! 8×8 torus with 5 % of its links failed at random, driven at the injection limit (one flit per
//! node per cycle) for `FAULT_SOAK_CYCLES` cycles (default 20 000; `make soak-faults` runs 10⁶
//! in a release build). No panic (debug builds check flit conservation every cycle), no deadlock
//! where `src/sim/faults.rs` says there can be none, and a heap that stays bounded and flat
//! once the source queues are full, whether the network keeps moving or stalls at its faults.

#[path = "support/heap.rs"]
mod heap;
use heap::{heap_in_use, heap_peak, reset_peak};
use torus_explorer::experiment::parallel_map;
use torus_explorer::scenario::RoutingKind;
use torus_explorer::sim::{RunReport, Simulation};
use torus_explorer::Scenario;

fn cycles() -> u64 {
    std::env::var("FAULT_SOAK_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000)
}

/// The heap a soak may reach: full source queues (under 256 bytes a message with the message
/// table's growth slack) and a few MB for the network and the statistics.
fn heap_max(s: &Scenario) -> isize {
    (s.nodes() * s.source_queue_cap() * 256 + (8 << 20)) as isize
}

/// Heap growth allowed over the second half of the soak: one doubling of a small table.
const LATE_GROWTH_MAX: isize = 4 << 20;

/// The algorithms whose deadlock freedom faults break (`src/sim/faults.rs`).
fn may_deadlock(s: &Scenario) -> bool {
    s.misroute > 0 || matches!(s.routing, RoutingKind::Duato | RoutingKind::Minad | RoutingKind::Goal | RoutingKind::Adaptive)
}

fn scenarios() -> Vec<Scenario> {
    let cycles = cycles();
    let mut settings: Vec<String> = RoutingKind::ALL.iter().map(|r| format!("routing={r}")).collect();
    settings.push("routing=duato&vcs=6&switching=scouting&scout=0&misroute=3".into());
    settings.push("routing=duato&vcs=6&switching=scouting&scout=3&misroute=3".into());
    settings
        .iter()
        .map(|setting| {
            Scenario::parse(&format!("k=8&{setting}&traffic=uniform&len=4&rate=0.25&frandom=0.05&seed=11&warmup=0&cycles={cycles}"))
                .expect("valid soak scenario")
        })
        .collect()
}

struct Soak {
    report: RunReport,
    peak: isize,
    half_way: isize,
    end: isize,
}

fn soak(s: &Scenario) -> Soak {
    let baseline = reset_peak();
    let mut sim = Simulation::new(s).unwrap();
    let cycles = cycles();
    for _ in 0..cycles / 2 {
        sim.step();
    }
    let half_way = heap_in_use() - baseline;
    for _ in cycles / 2..cycles {
        sim.step();
    }
    let end = heap_in_use() - baseline;
    let report = sim.run();
    let peak = heap_peak() - baseline;
    Soak { report, peak, half_way, end }
}

#[test]
fn every_algorithm_survives_five_per_cent_faults_at_the_injection_limit_with_bounded_memory() {
    let scenarios = scenarios();
    for (s, Soak { report: r, peak, half_way, end }) in scenarios.iter().zip(parallel_map(&scenarios, soak)) {
        let name = format!("{} (switching={}, K={}, m={})", s.routing, s.switching, s.scout, s.misroute);
        assert!(!r.deadlock || may_deadlock(s), "{name} deadlocked: {:?}", r.deadlock_channels);
        assert!(r.messages_labelled > 0, "{name}");
        assert!(r.messages_measured + r.messages_stuck_at_faults <= r.messages_labelled, "{name}");
        assert!((0.0..=1.0).contains(&r.delivered_fraction), "{name}");
        assert!(peak <= heap_max(s), "{name}: heap peaked at {peak} bytes");
        assert!(end <= half_way + LATE_GROWTH_MAX, "{name}: heap grew from {half_way} to {end} bytes in the second half");
        eprintln!(
            "fault soak: {name}: delivered {:.3}, {} stuck, deadlock {}, stall {}, heap peak {:.1} MiB",
            r.delivered_fraction,
            r.messages_stuck_at_faults,
            r.deadlock,
            r.fault_stall,
            peak as f64 / (1 << 20) as f64
        );
    }
}
