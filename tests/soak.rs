//! The overload soak in miniature (`scripts/soak.sh` runs it for 10⁶–10⁷ cycles): every routing
//! algorithm the simulator implements, at its deadlock-free VC count, is driven for 10⁵ cycles
//! at the injection limit (one flit per node per cycle) with tornado traffic on an 8-ary
//! 2-cube, at least twice the saturation bound of each algorithm there, and then must report
//! saturation and no deadlock, deliver every labelled message, and keep its heap bounded and
//! flat once the source queues are full. Flit and credit conservation are checked every cycle
//! (debug builds).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use torus_explorer::models::bounds;
use torus_explorer::scenario::RoutingKind;
use torus_explorer::sim::Simulation;
use torus_explorer::Scenario;

struct CountingAllocator;

static HEAP_IN_USE: AtomicUsize = AtomicUsize::new(0);
static HEAP_PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HEAP_IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            HEAP_PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        HEAP_IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const CYCLES: u64 = 100_000;
/// 64 nodes × at most 1000 queued messages each, plus the network and statistics: a few MB.
/// Growth past this would be a leak.
const HEAP_MAX: usize = 16 << 20;
/// Heap growth allowed over the second half of the window, when the queues are already full:
/// one doubling of a small table at most.
const LATE_GROWTH_MAX: usize = 4 << 20;

/// Every algorithm this build of the simulator runs, with its default (deadlock-free) VCs.
fn implemented_algorithms(base: &str) -> Vec<Scenario> {
    RoutingKind::ALL
        .iter()
        .map(|r| Scenario::parse(&format!("{base}&routing={r}")).expect("valid soak scenario"))
        .filter(|s| Simulation::new(s).is_ok())
        .collect()
}

#[test]
fn every_algorithm_survives_overload_with_bounded_memory() {
    let base = format!("k=8&n=2&traffic=tornado&len=4&buf=4&rate=0.25&seed=7&warmup=0&cycles={CYCLES}");
    let algorithms = implemented_algorithms(&base);
    assert!(algorithms.len() >= 3, "dor, duato and minad at least");
    for s in &algorithms {
        // Uniform traffic would not do: an 8-ary torus accepts up to 1 flit/node/cycle, the
        // injection limit itself. Tornado's channel-load bound is a third of that.
        let bound = bounds::bound(s).saturation_rate.expect("tornado loads the channels");
        assert!(2.0 * bound <= s.rate, "{}: saturation bound {bound} is more than half the injection limit", s.routing);
    }
    // The tests of this binary run on parallel threads: one test, so the heap counts are ours.
    for s in algorithms {
        let baseline = HEAP_IN_USE.load(Ordering::Relaxed);
        HEAP_PEAK.store(baseline, Ordering::Relaxed);
        let mut sim = Simulation::new(&s).unwrap();
        for _ in 0..CYCLES / 2 {
            sim.step();
        }
        let half_way = HEAP_IN_USE.load(Ordering::Relaxed);
        for _ in CYCLES / 2..CYCLES {
            sim.step();
        }
        let window_end = HEAP_IN_USE.load(Ordering::Relaxed);
        let r = sim.run();
        let peak = HEAP_PEAK.load(Ordering::Relaxed) - baseline;
        let routing = s.routing;
        assert!(!r.deadlock, "{routing} deadlocked: {:?}", r.deadlock_vcs);
        assert!(r.saturated, "{routing} at twice its saturation load must report saturation");
        assert!(r.messages_labelled > 0);
        assert_eq!(r.messages_measured, r.messages_labelled, "{routing}: labelled messages lost");
        // The sources stall when their queues are full, so the report's offered load is what
        // got generated; the load asked for is the scenario's.
        let accepted = r.accepted_flits_per_node_cycle;
        assert!(accepted < 0.5 * s.offered_flits(), "{routing}: accepted {accepted}, so the load is not twice saturation");
        assert!(peak <= HEAP_MAX, "{routing}: heap peaked at {peak} bytes");
        assert!(
            window_end <= half_way + LATE_GROWTH_MAX,
            "{routing}: heap grew from {half_way} to {window_end} bytes in the second half"
        );
    }
}
