//! The simulated routing algorithms load each channel as `models::bounds` computes from the
//! definitions of `docs/models/bounds.md` §3: below saturation, channel c carries λ·M·γ_c flits
//! per cycle, where γ_c is the bound's expected load at one packet per node per cycle. The patterns
//! are chosen so that a departure from the definition shows: per-channel loads that vary
//! (ROMM on bit complement), and the dimension orders of RLB (transpose: x-first phases would
//! load the busiest channel 2.02 instead of 1.40).

use torus_explorer::models::bounds::bound;
use torus_explorer::sim::Simulation;
use torus_explorer::Scenario;

/// Runs `routing` on `traffic` at 40% utilisation of the busiest channel and compares every
/// channel's utilisation with the bound's load; returns the largest difference, as a fraction
/// of the busiest channel's load.
fn largest_load_error(routing: &str, traffic: &str) -> f64 {
    let base = Scenario::parse(&format!("k=8&routing={routing}&traffic={traffic}&len=1&buf=8&warmup=1000&cycles=30000&seed=5")).unwrap();
    let b = bound(&base);
    let gamma_max = b.gamma_max.unwrap();
    let rate = 0.4 / gamma_max;
    let r = Simulation::new(&Scenario { rate, ..base }).unwrap().run();
    assert!(!r.saturated, "{routing}/{traffic} at 40% load");
    let expected: Vec<f64> = b.loads.iter().map(|g| rate * g).collect();
    assert_eq!(expected.len(), r.channel_utilisation.len());
    let worst = expected.iter().zip(&r.channel_utilisation).map(|(e, u)| (e - u).abs()).fold(0.0, f64::max);
    worst / (rate * gamma_max)
}

#[test]
fn valiant_loads_every_channel_alike_even_on_tornado() {
    // γ_c = k/4 = 2 on every channel (Claim 2).
    let error = largest_load_error("val", "tornado");
    assert!(error < 0.06, "{error}");
}

#[test]
fn romm_matches_the_exact_loads_of_bit_complement() {
    let error = largest_load_error("romm", "bitcomp");
    assert!(error < 0.06, "{error}");
}

#[test]
fn rlb_matches_the_exact_loads_of_transpose_with_random_dimension_orders() {
    let error = largest_load_error("rlb", "transpose");
    assert!(error < 0.06, "{error}");
}

#[test]
fn goal_splits_tornado_between_the_two_x_directions() {
    // Tornado moves only in x, so GOAL has no choice left after its quadrant: every ±x channel
    // carries 15/8, every y channel nothing (`docs/models/bounds.md` §5, as RLB).
    let error = largest_load_error("goal", "tornado");
    assert!(error < 0.06, "{error}");
}
