//! The same scenario and seed give identical statistics; another seed does not.

use torus_explorer::sim::run;
use torus_explorer::Scenario;

#[test]
fn same_scenario_same_report() {
    for text in [
        "k=8&routing=dor&traffic=uniform&rate=0.01&len=8&warmup=500&cycles=5000&seed=5",
        "k=6&routing=duato&vcs=4&traffic=hotspot&rate=0.02&len=4&warmup=500&cycles=5000&seed=9",
        "k=8&routing=minad&traffic=permutation&rate=0.03&len=4&warmup=500&cycles=5000&seed=2",
        // Past saturation with small shared queues: deflections draw from the routing stream.
        "k=8&routing=chaos&traffic=bitcomp&rate=0.2&len=2&buf=2&mq=2&warmup=500&cycles=5000&seed=3",
    ] {
        let s = Scenario::parse(text).unwrap();
        let a = run(&s).unwrap();
        let b = run(&s).unwrap();
        assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap(), "{text}");
        let other = run(&Scenario { seed: s.seed + 1, ..s.clone() }).unwrap();
        assert_ne!(a.latency_mean, other.latency_mean, "{text}: the seed must matter");
    }
}

#[test]
fn traffic_does_not_depend_on_the_routing_algorithm() {
    // Separate random streams: the same seed offers the same messages to every algorithm.
    let base = "k=8&traffic=uniform&rate=0.005&len=8&warmup=0&cycles=3000&seed=4";
    let offered: Vec<f64> = ["dor", "duato", "minad", "goal", "val", "romm", "rlb", "chaos"]
        .iter()
        .map(|r| run(&Scenario::parse(&format!("{base}&routing={r}")).unwrap()).unwrap().offered_flits_per_node_cycle)
        .collect();
    assert!(offered.windows(2).all(|w| w[0] == w[1]), "{offered:?}");
}
