//! Message lengths as a distribution (`lengths=`): each message takes exactly its own M + H on
//! an idle network, the offered and accepted loads follow the mean length, flits and credits are
//! conserved (every cycle, debug builds) under overload, and a saved state continues exactly.

use torus_explorer::sim::Simulation;
use torus_explorer::Scenario;

/// Near-zero load: (length, hops, latency) of every message delivered in the run.
fn deliveries(text: &str) -> Vec<(u32, u32, u64)> {
    let s = Scenario::parse(text).unwrap();
    let mut sim = Simulation::new(&s).unwrap();
    sim.record_deliveries();
    while sim.cycle() < s.warmup + s.cycles {
        sim.step();
    }
    let delivered: Vec<(u32, u32, u64)> = sim.take_deliveries().iter().map(|d| (d.flits, d.hops, d.delivered + 1 - d.generated)).collect();
    assert!(!sim.deadlocked() && delivered.len() > 50, "{text}: {} delivered", delivered.len());
    delivered
}

#[test]
fn every_message_takes_its_own_m_plus_h_when_alone() {
    for router in ["iq", "damq+speedup2+wide", "maxmatch"] {
        for (routing, lengths) in [("dor", "geometric"), ("minad", "uniform:2-30"), ("goal", "geometric"), ("val", "uniform:1-7")] {
            let text = format!(
                "k=8&routing={routing}&len={}&lengths={lengths}&buf=4&router={router}&rate=0.0001&warmup=0&cycles=60000&seed=4",
                if lengths == "uniform:1-7" { 4 } else { 16 }
            );
            let delivered = deliveries(&text);
            let lengths_seen: std::collections::BTreeSet<u32> = delivered.iter().map(|d| d.0).collect();
            assert!(lengths_seen.len() > 3, "{text}: lengths vary ({lengths_seen:?})");
            // At this load messages almost never meet: most take exactly M + H.
            let exact = delivered.iter().filter(|&&(m, h, latency)| latency == (m + h) as u64).count();
            assert!(exact as f64 > 0.97 * delivered.len() as f64, "{text}: {exact} of {} at M + H", delivered.len());
            assert!(delivered.iter().all(|&(m, h, latency)| latency >= (m + h) as u64), "{text}: faster than M + H");
        }
    }
}

#[test]
fn offered_and_accepted_load_follow_the_mean_length() {
    for lengths in ["uniform:4-20", "geometric"] {
        for router in ["iq", "damq+speedup2+wide"] {
            let s = Scenario::parse(&format!("k=8&routing=duato&vcs=4&len=12&lengths={lengths}&router={router}&rate=0.01&warmup=2000&cycles=20000")).unwrap();
            let r = Simulation::new(&s).unwrap().run();
            // λ·M̄ = 0.12 flits/node/cycle, measured over 64 × 20 000 cycles of Poisson arrivals.
            assert!((r.offered_flits_per_node_cycle - 0.12).abs() < 0.006, "{lengths}, {router}: offered {}", r.offered_flits_per_node_cycle);
            assert!((r.accepted_flits_per_node_cycle - r.offered_flits_per_node_cycle).abs() < 0.006, "{lengths}: accepted");
            assert!(!r.saturated);
        }
    }
}

#[test]
fn fixed_lengths_leave_every_run_as_it_was() {
    // `lengths=fixed` is the default: the same report as a link without the key.
    let a = Simulation::new(&Scenario::parse("k=8&routing=goal&vcs=3&len=8&rate=0.03&warmup=300&cycles=2000").unwrap()).unwrap().run();
    let b = Simulation::new(&Scenario::parse("k=8&routing=goal&vcs=3&len=8&rate=0.03&warmup=300&cycles=2000&lengths=fixed").unwrap()).unwrap().run();
    assert_eq!(a, b);
    // Varying the lengths leaves the arrivals and destinations alone (their own random stream):
    // the same messages are generated, only their lengths differ.
    let c = Simulation::new(&Scenario::parse("k=8&routing=goal&vcs=3&len=8&rate=0.03&warmup=300&cycles=2000&lengths=uniform:7-9").unwrap()).unwrap().run();
    assert_eq!(c.messages_labelled, a.messages_labelled);
    assert_ne!(c.latency_mean, a.latency_mean);
}

#[test]
fn varying_lengths_survive_overload_under_every_organisation() {
    for router in ["iq", "damq", "speedup2", "wide", "damq+speedup2+wide", "maxmatch"] {
        for (routing, lengths) in [("dor", "geometric"), ("duato", "uniform:1-15"), ("goal", "geometric"), ("rlb", "uniform:2-6")] {
            let s = Scenario::parse(&format!(
                "k=8&routing={routing}&len={}&lengths={lengths}&buf=4&router={router}&traffic=tornado&rate=0.2&warmup=0&cycles=2500&seed=3",
                if lengths == "uniform:2-6" { 4 } else { 8 }
            ))
            .unwrap();
            let r = Simulation::new(&s).unwrap().run();
            assert!(!r.deadlock, "{}: deadlocked", s.canonical());
            assert!(r.saturated, "{}: overloaded", s.canonical());
            assert_eq!(r.messages_measured, r.messages_labelled, "{}", s.canonical());
        }
    }
}

#[test]
fn a_restored_simulation_with_varying_lengths_continues_exactly() {
    for text in [
        "k=8&routing=duato&vcs=4&len=12&lengths=geometric&rate=0.02&warmup=200&cycles=800",
        "k=8&routing=goal&vcs=3&len=6&lengths=uniform:1-11&router=damq+speedup2+wide&rate=0.1&warmup=200&cycles=800",
    ] {
        let s = Scenario::parse(text).unwrap();
        let straight = Simulation::new(&s).unwrap().run();
        let mut sim = Simulation::new(&s).unwrap();
        for _ in 0..333 {
            sim.step();
        }
        let restored = Simulation::restore(&sim.save()).unwrap();
        assert_eq!(restored.run(), straight, "{text}");
    }
}

#[test]
fn the_models_say_they_take_the_mean_length() {
    let fixed = Scenario::parse("k=8&routing=adaptive&len=12&rate=0.01").unwrap();
    let varying = Scenario::parse("k=8&routing=adaptive&len=12&lengths=geometric&rate=0.01").unwrap();
    let (a, b) = (torus_explorer::models::report(&fixed), torus_explorer::models::report(&varying));
    assert!(a.message_lengths.contains("as the models assume"), "{}", a.message_lengths);
    assert!(b.message_lengths.contains("assume fixed lengths") && b.message_lengths.contains("12 flits"), "{}", b.message_lengths);
    // The one-line assumption, beside the model and in the channel-queue report.
    assert_eq!((&a.assumption, &a.channel_queue.assumption), (&None, &None));
    for line in [&b.assumption, &b.channel_queue.assumption] {
        let line = line.as_deref().unwrap();
        assert!(line.contains("mean 12 flits") && line.contains("lengths=geometric") && !line.contains('\n'), "{line}");
    }
    // The mean stands in for M: the same latency, the same bound.
    assert_eq!(a.latency, b.latency);
    assert_eq!(a.bound_saturation_rate, b.bound_saturation_rate);
}
