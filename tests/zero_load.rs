//! Zero-load latency: with no contention a message of M flits over H hops takes exactly M + H
//! cycles from generation to the tail's delivery, under every algorithm.

use torus_explorer::sim::Simulation;
use torus_explorer::topology::Torus;
use torus_explorer::Scenario;

/// Every minimal algorithm built so far.
const MINIMAL: &[&str] = &["dor", "duato", "minad", "nbc", "adaptive"];

/// Sends one message on an idle network and returns (latency, hops).
fn lone_message(scenario: &str, src: &[u32], dest: &[u32]) -> (f64, f64) {
    let s = Scenario::parse(&format!("{scenario}&rate=0.000000001&warmup=0&cycles=400")).unwrap();
    let t = Torus::new(s.k, s.n);
    let mut sim = Simulation::new(&s).unwrap();
    sim.set_traffic(false);
    sim.send(t.node_at(src), t.node_at(dest));
    let r = sim.run();
    assert_eq!(r.messages_measured, 1);
    (r.latency_mean, r.hops_mean)
}

#[test]
fn a_lone_message_takes_exactly_m_plus_h() {
    // (src, dest, H) on 8×8, including wrap-around paths and a tie (offset 4).
    let pairs: &[(&[u32], &[u32], u32)] = &[
        (&[0, 0], &[1, 0], 1),
        (&[0, 0], &[3, 2], 5),
        (&[6, 7], &[1, 2], 6),
        (&[2, 5], &[6, 1], 8),
        (&[4, 4], &[4, 4], 0),
    ];
    for routing in MINIMAL {
        for len in [1, 5, 16] {
            for buf in [2, 4] {
                for &(src, dest, h) in pairs {
                    let (latency, hops) = lone_message(&format!("k=8&routing={routing}&len={len}&buf={buf}"), src, dest);
                    assert_eq!(hops, h as f64, "{routing}: hops {src:?}→{dest:?}");
                    assert_eq!(latency, (len + h) as f64, "{routing} len={len} buf={buf}: {src:?}→{dest:?}");
                }
            }
        }
    }
}

#[test]
fn zero_load_holds_in_one_and_three_dimensions() {
    for routing in MINIMAL {
        // nbc's negative-hop colouring needs an even ring; 1 → 5 is then a 4-hop tie.
        let (k, h) = if *routing == "nbc" { (8, 4.0) } else { (7, 3.0) };
        let (latency, hops) = lone_message(&format!("k={k}&n=1&routing={routing}&len=4"), &[1], &[5]);
        assert_eq!((latency, hops), (4.0 + h, h), "{routing} ring");
        let (latency, hops) = lone_message(&format!("k=4&n=3&routing={routing}&len=8"), &[0, 0, 0], &[3, 2, 1]);
        assert_eq!((latency, hops), (12.0, 4.0), "{routing} 3-D");
    }
}

#[test]
fn uniform_traffic_at_a_tiny_rate_averages_m_plus_mean_distance() {
    // Mean minimal distance on 8×8 excluding the source: 256/63.
    let expected = 16.0 + 256.0 / 63.0;
    for routing in MINIMAL {
        let s = Scenario::parse(&format!("k=8&routing={routing}&len=16&rate=0.00005&warmup=1000&cycles=400000&seed=3")).unwrap();
        let r = Simulation::new(&s).unwrap().run();
        assert!(r.messages_measured > 1000, "{}", r.messages_measured);
        let error = (r.latency_mean - expected).abs() / expected;
        assert!(error < 0.01, "{routing}: mean latency {} vs {expected}", r.latency_mean);
    }
}
