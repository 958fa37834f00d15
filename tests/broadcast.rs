//! Broadcast traffic (seed 003): a fraction β of messages reach every node over the spanning
//! tree, one copy per node; unicast statistics stay separate.

use torus_explorer::sim::run;
use torus_explorer::Scenario;

#[test]
fn every_broadcast_reaches_every_node() {
    for (k, n) in [(8, 2), (5, 2), (4, 3), (6, 1)] {
        let s = Scenario::parse(&format!(
            "k={k}&n={n}&routing=duato&vcs=4&len=8&rate=0.004&beta=0.3&warmup=200&cycles=4000&seed=6"
        ))
        .unwrap();
        let r = run(&s).unwrap();
        assert!(r.broadcasts_labelled > 5, "k={k} n={n}: too few broadcasts to test");
        assert_eq!(r.broadcasts_measured, r.broadcasts_labelled, "k={k} n={n}");
        assert_eq!(r.messages_measured, r.messages_labelled);
        assert!(!r.deadlock);
    }
}

#[test]
fn a_lone_broadcast_completes_at_the_depth_of_the_tree() {
    // On an idle 8×8 network with 4-flit copies, the deepest node is 4 + 4 hops from the source
    // along the tree; every hop is a separate one-hop message of latency M + 1 = 5, generated
    // when the previous copy has been delivered: completion 8 × 5 = 40 cycles. (Copies that a
    // node sends one after another through its injection channel reach shallower subtrees.)
    // Broadcasts are rare enough here that few overlap, and overlaps can only add time.
    let s = Scenario::parse("k=8&routing=duato&vcs=4&len=4&rate=0.00001&beta=1&warmup=0&cycles=1000000&seed=3").unwrap();
    let r = run(&s).unwrap();
    assert!(r.broadcasts_measured > 400);
    assert_eq!(r.messages_labelled, 0, "with β = 1 there is no unicast message");
    assert!((40.0..40.5).contains(&r.broadcast_completion_mean), "{}", r.broadcast_completion_mean);
}

#[test]
fn broadcasts_raise_unicast_latency() {
    let base = "k=8&routing=duato&vcs=4&len=16&rate=0.01&warmup=1000&cycles=10000&seed=2";
    let plain = run(&Scenario::parse(base).unwrap()).unwrap();
    let mixed = run(&Scenario::parse(&format!("{base}&beta=0.04")).unwrap()).unwrap();
    assert!(mixed.latency_mean > plain.latency_mean * 1.05, "{} vs {}", mixed.latency_mean, plain.latency_mean);
    assert_eq!(plain.broadcasts_labelled, 0);
}

#[test]
fn broadcasts_below_saturation_are_not_reported_saturated() {
    // Far below the model's saturation (0.011 for this set-up), every source keeps up with its
    // own load, broadcast copies included: the copies a node forwards count as offered by it
    // and, once delivered, as accepted from it.
    let s = Scenario::parse("k=8&routing=duato&vcs=4&len=32&rate=0.0011&beta=0.02&warmup=2000&cycles=20000&seed=1").unwrap();
    let r = run(&s).unwrap();
    assert!(r.broadcasts_measured > 5);
    assert!((r.accepted_flits_per_node_cycle / r.offered_flits_per_node_cycle - 1.0).abs() < 0.02);
    assert!(!r.saturated, "{r:?}");
    // Past saturation it still says so.
    let over = run(&Scenario::parse("k=8&routing=duato&vcs=4&len=32&rate=0.03&beta=0.02&warmup=1000&cycles=5000&seed=1").unwrap()).unwrap();
    assert!(over.saturated && !over.deadlock);
}
