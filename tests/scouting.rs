//! Scouting switching (seed 001): K = 0 is wormhole, the data trails the header by the
//! acknowledgement delay, and blocked headers backtrack.

use torus_explorer::sim::{run, Simulation};
use torus_explorer::topology::Torus;
use torus_explorer::Scenario;

#[test]
fn probe_lead_zero_is_wormhole_exactly() {
    for routing in ["dor", "duato", "minad"] {
        let base = format!("k=8&routing={routing}&len=8&rate=0.03&warmup=500&cycles=5000&seed=3");
        let wormhole = run(&Scenario::parse(&base).unwrap()).unwrap();
        let scouting = run(&Scenario::parse(&format!("{base}&switching=scouting&scout=0")).unwrap()).unwrap();
        assert_eq!(
            serde_json::to_value(&wormhole).unwrap()["latency_mean"],
            serde_json::to_value(&scouting).unwrap()["latency_mean"]
        );
        assert_eq!(wormhole.latency_histogram, scouting.latency_histogram, "{routing}");
        assert_eq!(wormhole.channel_utilisation, scouting.channel_utilisation, "{routing}");
        assert_eq!(scouting.backtracks, 0);
    }
}

#[test]
fn the_data_trails_the_header_by_the_acknowledgement_delay() {
    // The first data flit crosses channel j once the acknowledgement of channel j + K is back,
    // K cycles after the header reserved it, or once the header's arrival is acknowledged:
    // latency M + H − 1 + min(2K, H + K); for H ≥ K that is seed 001's M + H + 2K − 1.
    let t = Torus::new(8, 2);
    for k_lead in [1u32, 2, 3, 6] {
        for (dest, h) in [([1u32, 0u32], 1u32), ([3, 2], 5), ([4, 4], 8)] {
            let s = Scenario::parse(&format!(
                "k=8&routing=duato&vcs=4&switching=scouting&scout={k_lead}&len=16&rate=0.000000001&warmup=0&cycles=300"
            ))
            .unwrap();
            let mut sim = Simulation::new(&s).unwrap();
            sim.set_traffic(false);
            sim.send(0, t.node_at(&dest));
            let r = sim.run();
            let expected = 16 + h - 1 + (2 * k_lead).min(h + k_lead);
            assert_eq!(r.latency_mean, expected as f64, "K={k_lead} H={h}");
        }
    }
}

#[test]
fn blocked_headers_backtrack_and_every_message_arrives() {
    for routing in ["duato", "minad"] {
        let s = Scenario::parse(&format!(
            "k=6&routing={routing}&switching=scouting&scout=3&len=8&rate=0.08&warmup=500&cycles=5000&seed=2"
        ))
        .unwrap();
        let r = run(&s).unwrap();
        assert!(r.backtracks > 0, "{routing}: no header backtracked under load");
        assert!(r.backtracks_per_message <= 3.0, "at most K backtracks per message");
        assert!(!r.deadlock);
        assert_eq!(r.messages_measured, r.messages_labelled);
    }
}
