//! Automatic warm-up and window (`warmup=auto`, `cycles=auto`): where they end, why, and that
//! the fixed lengths of every existing link are untouched.

use torus_explorer::sim::run_length::{Stop, MIN_WARMUP, MIN_WINDOW, WARMUP_CAP, WINDOW_CAP};
use torus_explorer::sim::{RunReport, Simulation};
use torus_explorer::Scenario;

fn run(text: &str) -> RunReport {
    Simulation::new(&Scenario::parse(text).unwrap()).unwrap().run()
}

#[test]
fn fixed_lengths_are_what_the_scenario_says() {
    let r = run("k=4&len=4&rate=0.02&warmup=300&cycles=2000");
    assert_eq!((r.warmup_cycles, r.warmup_stop, r.window_cycles, r.window_stop), (300, Stop::Fixed, 2000, Stop::Fixed));
}

#[test]
fn an_automatic_warm_up_waits_for_the_transient_and_the_window_for_its_target() {
    // Low load: the network fills within a few dozen cycles, so one of the first checks ends
    // the warm-up; the latency varies little, so the target is met at the first look and the
    // window runs as long again.
    let r = run("k=4&len=4&rate=0.02&warmup=auto&cycles=auto&ci=0.05");
    assert_eq!((r.warmup_stop, r.window_stop), (Stop::Settled, Stop::Target));
    assert!([MIN_WARMUP, 2 * MIN_WARMUP, 4 * MIN_WARMUP].contains(&r.warmup_cycles), "{}", r.warmup_cycles);
    assert_eq!(r.window_cycles, 2 * MIN_WINDOW.div_ceil(1024) * 1024, "one doubling after the first look");
    assert!(r.latency_ci95 <= 0.05 * r.latency_mean && !r.latency_ci95_widened, "{r:?}");
    // A tighter target needs a longer window.
    let tight = run("k=4&len=4&rate=0.02&warmup=auto&cycles=auto&ci=0.005");
    assert_eq!(tight.window_stop, Stop::Target);
    assert!(tight.window_cycles > r.window_cycles && tight.latency_ci95 <= 0.005 * tight.latency_mean, "{tight:?}");
    // A fixed window after an automatic warm-up is as long as asked.
    let fixed = run("k=4&len=4&rate=0.02&warmup=auto&cycles=3000");
    assert_eq!((fixed.warmup_stop, fixed.window_cycles, fixed.window_stop), (Stop::Settled, 3000, Stop::Fixed));
}

#[test]
fn a_heavier_load_warms_up_longer() {
    // At 97 % of saturation the messages in the system climb for some 5,000 cycles (the mean
    // over 20 seeds: 15 after 100 cycles, 68 after 1,000, 103 after 4,000, 108 after 5,000).
    let light = run("k=8&len=16&rate=0.005&warmup=auto&cycles=2000");
    let heavy = run("k=8&len=16&rate=0.0195&warmup=auto&cycles=2000&seed=3");
    assert!(heavy.warmup_cycles >= 8 * MIN_WARMUP, "{}", heavy.warmup_cycles);
    assert_eq!((light.warmup_stop, heavy.warmup_stop), (Stop::Settled, Stop::Settled));
    assert!(heavy.warmup_cycles > light.warmup_cycles, "{} vs {}", heavy.warmup_cycles, light.warmup_cycles);
    assert!(heavy.warmup_cycles < WARMUP_CAP);
}

#[test]
fn an_automatic_window_past_saturation_stops_when_a_source_queue_fills() {
    let r = run("k=8&traffic=tornado&len=4&rate=0.2&qcap=20&warmup=auto&cycles=auto");
    assert_eq!(r.window_stop, Stop::Saturated);
    assert!(r.saturated && r.throttled && r.window_cycles < WINDOW_CAP, "{r:?}");
}

#[test]
fn a_deadlock_during_an_automatic_warm_up_leaves_it_unfinished() {
    let r = run("k=4&routing=dor&vcs=1&unsafe=1&traffic=uniform&len=16&rate=0.5&warmup=auto&cycles=auto");
    assert!(r.deadlock);
    if r.warmup_stop == Stop::Unfinished {
        assert_eq!((r.window_cycles, r.window_stop, r.messages_measured), (0, Stop::Unfinished, 0));
    } else {
        assert_eq!(r.window_stop, Stop::Unfinished, "{r:?}");
    }
}

#[test]
fn a_deadlock_cuts_a_fixed_window_short_and_says_so() {
    let r = run("k=4&routing=dor&vcs=1&unsafe=1&traffic=uniform&len=16&rate=0.5&warmup=100&cycles=200000");
    assert!(r.deadlock, "{r:?}");
    assert_eq!((r.warmup_stop, r.window_stop), (Stop::Fixed, Stop::Unfinished), "{r:?}");
    assert!(r.window_cycles < 200_000, "{r:?}");
    let whole = run("k=4&routing=dor&traffic=uniform&len=16&rate=0.01&warmup=100&cycles=2000");
    assert_eq!((whole.warmup_stop, whole.window_stop, whole.window_cycles), (Stop::Fixed, Stop::Fixed, 2000));
}
