//! The overload soak in miniature (`scripts/soak.sh` runs it for 10⁶–10⁷ cycles): every routing
//! algorithm the simulator implements, at its default (deadlock-free) VC count, is driven for
//! 4 × 10⁴ cycles at the injection limit (one flit per node per cycle) with tornado traffic, on the
//! smaller of an 8-ary and a 16-ary 2-cube where that is at least twice its saturation bound,
//! and then must report saturation and no deadlock, deliver every labelled message, and keep
//! its heap bounded and flat once the source queues are full. Flit and credit conservation are
//! checked every cycle (debug builds).

#[path = "support/heap.rs"]
mod heap;
use heap::{heap_in_use, heap_peak, reset_peak};
use torus_explorer::experiment::parallel_map;
use torus_explorer::models::bounds;
use torus_explorer::scenario::RoutingKind;
use torus_explorer::sim::{RunReport, Simulation};
use torus_explorer::Scenario;

/// 4 × 10⁴ cycles: the source queues (1000 messages) fill within the first 10⁴ even at 16-ary,
/// so the second half of the window sees full queues; `make soak` runs 10⁷.
const CYCLES: u64 = 40_000;
/// The heap a soak may reach: the source queues are capped at `qcap` messages per node, and each message costs under 256 bytes in the message table (with its growth slack);
/// the network and the statistics add a few MB. Growth past this would be a leak.
fn heap_max(s: &Scenario) -> isize {
    (s.nodes() * s.source_queue_cap() * 256 + (8 << 20)) as isize
}
/// Heap growth allowed over the second half of the window, when the queues are already full:
/// one doubling of a small table at most.
const LATE_GROWTH_MAX: isize = 4 << 20;

/// The soak scenario of an algorithm this build implements (`None` otherwise): tornado on the
/// smaller torus where twice its saturation bound fits through the injection channel — 8-ary
/// for minimal routing (bound a third of capacity), 16-ary for load-balancing routing (every
/// bound is at most the capacity 8/k, half the injection limit there).
fn soak_scenario(routing: RoutingKind) -> Option<Scenario> {
    let at = |k: u32| {
        Scenario::parse(&format!(
            "k={k}&n=2&routing={routing}&traffic=tornado&len=4&buf=4&rate=0.25&seed=7&warmup=0&cycles={CYCLES}"
        ))
        .expect("valid soak scenario")
    };
    Simulation::new(&at(8)).ok()?;
    let fits = |s: &Scenario| 2.0 * bounds::bound(s).saturation_rate.expect("tornado loads the channels") <= s.rate;
    let s = [at(8), at(16)].into_iter().find(fits);
    assert!(s.is_some(), "{routing}: saturation bound above half the injection limit even on a 16-ary torus");
    s
}

/// What one soak measured: the report, and the thread's heap peak, half-way and at the end of
/// the window (bytes above what it held before).
struct Soak {
    scenario: Scenario,
    report: RunReport,
    peak: isize,
    half_way: isize,
    window_end: isize,
}

fn soak(s: &Scenario) -> Soak {
    let baseline = reset_peak();
    let mut sim = Simulation::new(s).unwrap();
    for _ in 0..CYCLES / 2 {
        sim.step();
    }
    let half_way = heap_in_use() - baseline;
    for _ in CYCLES / 2..CYCLES {
        sim.step();
    }
    let window_end = heap_in_use() - baseline;
    let report = sim.run();
    let peak = heap_peak() - baseline;
    Soak { scenario: s.clone(), report, peak, half_way, window_end }
}

#[test]
fn every_algorithm_survives_overload_with_bounded_memory() {
    let scenarios: Vec<Scenario> = RoutingKind::ALL.iter().filter_map(|&r| soak_scenario(r)).collect();
    assert!(scenarios.len() >= 3, "dor, duato and minad at least");
    for Soak { scenario: s, report: r, peak, half_way, window_end } in parallel_map(&scenarios, soak) {
        let routing = s.routing;
        assert!(!r.deadlock, "{routing} deadlocked: {:?}", r.deadlock_vcs);
        assert!(r.saturated, "{routing} at twice its saturation load must report saturation");
        assert!(r.messages_labelled > 0);
        assert_eq!(r.messages_measured, r.messages_labelled, "{routing}: labelled messages lost");
        // The sources stall when their queues are full, so the report's offered load is what
        // got generated; the load asked for is the scenario's.
        let accepted = r.accepted_flits_per_node_cycle;
        assert!(accepted <= 0.5 * s.offered_flits(), "{routing}: accepted {accepted}, so the load is not twice saturation");
        assert!(peak <= heap_max(&s), "{routing}: heap peaked at {peak} bytes");
        assert!(
            window_end <= half_way + LATE_GROWTH_MAX,
            "{routing}: heap grew from {half_way} to {window_end} bytes in the second half"
        );
    }
}
