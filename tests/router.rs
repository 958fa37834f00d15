//! The router organisations (`router=`): zero-load latency, deadlock freedom and conservation
//! under overload for every algorithm (flits and credits are checked every cycle in debug
//! builds), and saturation at the channel-load bound where seed 004 reports it.

use torus_explorer::experiment::saturation;
use torus_explorer::models;
use torus_explorer::sim::Simulation;
use torus_explorer::Scenario;

#[path = "support/lone_message.rs"]
mod lone_message;
use lone_message::lone_message;

/// Every organisation on its own, the one that reproduces seed 004, and that one with a virtual
/// output queue per port at the source.
const ORGANISATIONS: &[&str] = &["maxmatch", "damq", "speedup2", "wide", "damq+speedup2+wide", "damq+speedup2+wide+voq", "maxmatch+speedup2+wide"];

/// Every algorithm but chaos, which keeps its own router, with the VCs its scheme needs.
const ALGORITHMS: &[&str] = &["dor", "duato", "minad", "goal", "val", "romm", "rlb", "nbc", "adaptive"];

#[test]
fn a_lone_message_takes_exactly_m_plus_h_under_every_organisation() {
    let pairs: &[(&[u32], &[u32])] = &[(&[0, 0], &[1, 0]), (&[0, 0], &[3, 2]), (&[6, 7], &[1, 2]), (&[2, 5], &[6, 1]), (&[4, 4], &[4, 4])];
    for router in ORGANISATIONS {
        for routing in ALGORITHMS {
            for len in [1, 5, 16] {
                for buf in [2, 4] {
                    for &(src, dest) in pairs {
                        let scenario = format!("k=8&routing={routing}&len={len}&buf={buf}&router={router}");
                        let (latency, hops) = lone_message(&scenario, src, dest);
                        assert_eq!(latency, len as f64 + hops, "{scenario}: {src:?}→{dest:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn every_algorithm_survives_overload_under_every_organisation() {
    for router in &ORGANISATIONS[..6] {
        for routing in ALGORITHMS {
            for (traffic, len) in [("uniform", 1), ("tornado", 4), ("transpose", 6)] {
                // At the injection channels' limit: well past saturation for every algorithm.
                let s = Scenario::parse(&format!(
                    "k=8&routing={routing}&traffic={traffic}&len={len}&buf=4&router={router}&warmup=0&cycles=2500&seed=5"
                ))
                .unwrap();
                let s = Scenario { rate: s.router.injection_channels(s.n) as f64 / len as f64, ..s };
                let r = Simulation::new(&s).unwrap().run();
                let name = s.canonical();
                assert!(!r.deadlock, "{name} deadlocked: {:?}", r.deadlock_vcs);
                assert!(r.saturated, "{name} must report saturation");
                assert_eq!(r.messages_measured, r.messages_labelled, "{name}: labelled messages lost");
            }
        }
    }
}

#[test]
fn three_dimensional_and_ring_networks_run_under_every_organisation() {
    for router in ORGANISATIONS {
        for (shape, routing) in [("k=4&n=3", "duato"), ("k=4&n=3", "goal"), ("k=6&n=1", "val")] {
            let s = Scenario::parse(&format!("{shape}&routing={routing}&len=3&buf=3&rate=0.3&router={router}&warmup=0&cycles=3000&seed=2")).unwrap();
            let r = Simulation::new(&s).unwrap().run();
            assert!(!r.deadlock && r.messages_measured == r.messages_labelled, "{}", s.canonical());
        }
    }
}

/// Saturation throughput of the seed-004 set-up (8×8, one-flit packets, 24 flits per
/// channel) under the organisation that reproduces the paper, as a fraction of capacity.
fn paper_saturation(routing: &str, vcs: u32, traffic: &str) -> f64 {
    let s = Scenario::parse(&format!(
        "k=8&routing={routing}&vcs={vcs}&buf={}&traffic={traffic}&len=1&router=damq+speedup2+wide&warmup=2000&cycles=6000",
        24 / vcs
    ))
    .unwrap();
    saturation(&s).saturation_fraction_of_capacity
}

#[test]
fn the_paper_organisation_reaches_the_bounds_seed_004_reports() {
    // Seed 004 §5.2: VAL 0.5 on every pattern, DOR about 1.0 on UR and 0.33 on TOR, GOAL 0.5 on
    // DIA (docs/experiments/router.md measures them on longer runs and more seeds). These short
    // runs of one seed allow a few per cent below the targets.
    let val = paper_saturation("val", 4, "uniform");
    assert!(val >= 0.46, "VAL UR {val}");
    let dor = paper_saturation("dor", 2, "uniform");
    assert!(dor >= 0.88, "DOR UR {dor}");
    let dor_tornado = paper_saturation("dor", 2, "tornado");
    assert!((0.31..=0.35).contains(&dor_tornado), "DOR TOR {dor_tornado}");
    let goal = paper_saturation("goal", 3, "diagonal");
    assert!(goal >= 0.46, "GOAL DIA {goal}");
}

#[test]
fn the_models_say_they_describe_the_input_queued_router() {
    let iq = models::report(&Scenario::parse("k=8&routing=goal&traffic=tornado&rate=0.01").unwrap());
    assert!(iq.router_organisation.contains("as the models assume"), "{}", iq.router_organisation);
    assert_eq!((&iq.assumption, &iq.channel_queue.assumption), (&None, &None));
    let paper = models::report(&Scenario::parse("k=8&routing=goal&traffic=tornado&rate=0.01&router=damq+speedup2+wide").unwrap());
    assert!(paper.router_organisation.contains("router=damq+speedup2+wide"), "{}", paper.router_organisation);
    for line in [&paper.assumption, &paper.channel_queue.assumption] {
        let line = line.as_deref().unwrap();
        assert!(line.contains("input-queued router") && line.contains("not router=damq+speedup2+wide") && !line.contains('\n'), "{line}");
    }
    // The same prediction as the input-queued router's: the model does not pretend otherwise.
    assert_eq!(paper.channel_queue.latency, iq.channel_queue.latency);
    // Both keys at once, in one line.
    let both = models::report(&Scenario::parse("k=8&routing=dor&len=16&lengths=geometric&router=wide&rate=0.005").unwrap());
    let line = both.channel_queue.assumption.unwrap();
    assert!(line.contains("router=wide") && line.contains("lengths=geometric"), "{line}");
}

/// When the message to the −x neighbour, sent by node 0 behind six to the +x neighbour, was
/// injected and delivered (cycles).
fn minus_x_behind_plus_x(router: &str) -> (u64, u64) {
    let mut sim = Simulation::new(&Scenario::parse(&format!("k=8&routing=dor&len=1&router={router}&warmup=0&cycles=100")).unwrap()).unwrap();
    sim.set_traffic(false);
    sim.record_deliveries();
    for _ in 0..6 {
        sim.send(0, 1);
    }
    sim.send(0, 7);
    for _ in 0..20 {
        sim.step();
    }
    let deliveries = sim.take_deliveries();
    assert_eq!(deliveries.len(), 7, "{router}");
    let minus = deliveries.iter().find(|d| d.dest == 7).unwrap();
    (minus.injected, minus.delivered)
}

#[test]
fn voq_lets_a_message_leave_by_a_free_port_past_queued_ones_bound_elsewhere() {
    // Under wide the four injection channels take the first four messages, all bound +x, which
    // leave one a cycle; the −x message takes the third channel freed, in cycle 3, two more +x
    // messages having gone first.
    assert_eq!(minus_x_behind_plus_x("wide"), (3, 4));
    // Under wide+voq it has the −x channel to itself: injected at once and delivered in the
    // next cycle, as a lone message (latency M + H = 2).
    assert_eq!(minus_x_behind_plus_x("wide+voq"), (0, 1));
}

#[test]
fn voq_carries_nearest_neighbour_traffic_where_one_source_queue_saturates() {
    // Nearest-neighbour traffic at 3.6 messages per node and cycle, 90 % of what four
    // channels carry: a virtual output queue per port keeps up with it (each port's queue
    // sees 0.9 of its channel), while one source queue, whose four injection channels hold
    // messages bound for random ports, stalls wherever two of them are bound the same way.
    let run = |router: &str| {
        let s = Scenario::parse(&format!(
            "k=4&routing=dor&traffic=neighbor&len=1&vcs=2&buf=12&router={router}&rate=3.6&warmup=500&cycles=1500&seed=3"
        ))
        .unwrap();
        Simulation::new(&s).unwrap().run()
    };
    let voq = run("damq+speedup2+wide+voq");
    assert!(!voq.saturated, "voq: {:?}", voq.saturation_reason);
    let one_queue = run("damq+speedup2+wide");
    assert!(one_queue.saturated && one_queue.accepted_flits_per_node_cycle < 3.2, "{}", one_queue.accepted_flits_per_node_cycle);
}
