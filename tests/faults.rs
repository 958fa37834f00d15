//! Faulty links and nodes end to end: the scenario keys, traffic round failed nodes and
//! unreachable destinations, what a run reports, and each algorithm's deadlock freedom with
//! faults as `src/sim/faults.rs` states it.

use torus_explorer::experiment::parallel_map;
use torus_explorer::scenario::RoutingKind;
use torus_explorer::sim::{self, RunReport, Simulation};
use torus_explorer::Scenario;

fn parse(text: &str) -> Scenario {
    Scenario::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn run(text: &str) -> RunReport {
    sim::run(&parse(text)).unwrap()
}

fn error(text: &str) -> (String, String) {
    let e = Scenario::parse(text).unwrap_err();
    (e.key, e.message)
}

#[test]
fn fault_keys_are_canonical_and_default_to_no_fault() {
    let plain = parse("k=8");
    assert!(!plain.has_faults());
    assert!(plain.canonical().contains("&qcap=1000&flinks=&fnodes=&frandom=0&misroute=0&ci=0.02&"), "{}", plain.canonical());
    // Lists are sorted, and every spelling reads back to the same scenario.
    let s = parse("k=8&flinks=35y,%2027x&fnodes=40,12&frandom=0.05&switching=scouting&misroute=3");
    let canonical = s.canonical();
    assert!(canonical.contains("&flinks=27x,35y&fnodes=12,40&frandom=0.05&misroute=3&ci=0.02&"), "{canonical}");
    assert_eq!(parse(&canonical), s);
    assert_eq!(parse("k=8&frandom=6").canonical(), parse("k=8&frandom=6").canonical());
    assert_ne!(parse("k=8&frandom=6"), parse("k=8&frandom=0.05"), "a count and a fraction stay apart");
}

#[test]
fn bad_fault_keys_get_one_line_naming_the_key() {
    for (text, key, says) in [
        ("k=8&flinks=27w", "flinks", "not a link"),
        ("k=8&flinks=64x", "flinks", "node 64 is not in"),
        ("k=8&flinks=3z", "flinks", "dimension"),
        ("k=8&flinks=3x,3x", "flinks", "listed twice"),
        ("k=8&flinks=3x,,4y", "flinks", "not a link"),
        ("k=8&fnodes=12,x", "fnodes", "not a node"),
        ("k=8&fnodes=70", "fnodes", "not in"),
        ("k=8&fnodes=5,5", "fnodes", "listed twice"),
        ("k=2&n=1&fnodes=0", "fnodes", "at least two"),
        ("k=8&frandom=-1", "frandom", "count of links"),
        ("k=8&frandom=129", "frandom", "only 128 links"),
        ("k=8&fnodes=0&frandom=0.99", "frandom", "only 124 links"),
        ("k=8&misroute=2", "misroute", "switching=scouting"),
        ("k=8&switching=scouting&misroute=17", "misroute", "from 0 to 16"),
        ("k=8&beta=0.1&flinks=1x", "beta", "broadcasts"),
    ] {
        let (k, message) = error(text);
        assert_eq!(k, key, "{text}: {message}");
        assert!(message.contains(says), "{text}: {message}");
        assert!(!message.contains('\n'));
    }
}

#[test]
fn failed_nodes_neither_send_nor_receive() {
    let text = "k=6&routing=duato&fnodes=5,20&len=4&rate=0.05&warmup=0&cycles=3000";
    let mut sim = Simulation::new(&parse(text)).unwrap();
    sim.record_deliveries();
    for _ in 0..3000 {
        sim.step();
    }
    let d = sim.take_deliveries();
    assert!(d.len() > 200, "{}", d.len());
    assert!(d.iter().all(|d| ![5, 20].contains(&d.src) && ![5, 20].contains(&d.dest)));
    // The 34 working nodes are still connected: no destination is unreachable.
    assert_eq!(sim.run().messages_unreachable, 0);
}

#[test]
fn unreachable_destinations_are_counted_not_dropped() {
    // Node 0 of a 4×4 torus cut off: it sends to 15 nodes it cannot reach and each of the others
    // sends one message in 15 to it, 2/16 of all messages. (Minimal routing strands some of
    // the others at the cut too: node 0 was on their way.)
    let text = "k=4&routing=duato&flinks=0x,0y,3x,12y&len=4&rate=0.02&warmup=1000&cycles=20000";
    let mut sim = Simulation::new(&parse(text)).unwrap();
    sim.record_deliveries();
    for _ in 0..5000 {
        sim.step();
    }
    assert!(sim.take_deliveries().iter().all(|d| d.src != 0 && d.dest != 0));
    let r = run(text);
    let generated = r.messages_labelled + r.messages_unreachable;
    let share = r.messages_unreachable as f64 / generated as f64;
    assert!((share - 0.125).abs() < 0.015, "{share}");
    assert!(r.messages_measured + r.messages_stuck_at_faults <= r.messages_labelled);
    assert!((r.delivered_fraction - r.messages_measured as f64 / generated as f64).abs() < 1e-12);
    assert!(!r.deadlock);
    // Without faults every message arrives.
    let clean = run("k=4&routing=duato&len=4&rate=0.02&warmup=1000&cycles=5000");
    assert_eq!((clean.delivered_fraction, clean.messages_unreachable, clean.messages_stuck_at_faults), (1.0, 0, 0));
}

#[test]
fn dor_reports_messages_stuck_at_the_named_fault_apart_from_deadlock_and_saturation() {
    let r = run("k=8&routing=dor&flinks=10x&len=8&rate=0.004&warmup=500&cycles=5000");
    assert!(!r.deadlock && !r.saturated, "{r:?}");
    assert!(r.messages_stuck_at_faults >= 1);
    assert_eq!(r.stuck_at.iter().map(|s| s.fault.as_str()).collect::<Vec<_>>(), ["10x"]);
    assert_eq!(r.stuck_at[0].messages, r.messages_stuck_at_faults);
    assert!(r.delivered_fraction < 1.0 && r.delivered_fraction > 0.0);
    assert!(r.deadlock_vcs.is_empty());
}

/// The witness that Duato's escape layer is lost at faults: on a 6×6 torus every +x link of
/// column 0 has failed, and each node (0, y) sends one flit to (1, y + 2). Each takes the
/// adaptive VC up to (0, y + 1), where its escape hop, +x, has failed and the adaptive VC up is
/// held by the next: six headers wait for each other round the ring, with no way out.
fn ring_of_escapeless_headers(routing: &str) -> Simulation {
    let links: Vec<String> = (0..6).map(|y| format!("{}x", 6 * y)).collect();
    let vcs = if routing == "nbc" { 5 } else { 3 };
    let text = format!("k=6&routing={routing}&vcs={vcs}&len=1&flinks={}&warmup=0", links.join(","));
    let mut sim = Simulation::new(&parse(&text)).unwrap();
    sim.set_traffic(false);
    for y in 0..6 {
        sim.send(6 * y, 6 * ((y + 2) % 6) + 1);
    }
    for _ in 0..3000 {
        sim.step();
    }
    sim
}

#[test]
fn duato_style_escape_layers_can_deadlock_at_faults_and_the_detector_finds_it() {
    for routing in ["duato", "minad", "adaptive"] {
        let sim = ring_of_escapeless_headers(routing);
        assert!(sim.deadlocked() && !sim.fault_stalled(), "{routing}");
        let cycle = sim.deadlock_cycle();
        assert_eq!(cycle.vcs.len(), 6, "{routing}: {cycle:?}");
        // The +y channels of column 0, all six, in order round the ring.
        let mut channels = cycle.channels.clone();
        channels.sort();
        assert_eq!(channels, (0..6).map(|y| 6 * y * 4 + 2).collect::<Vec<_>>(), "{routing}");
    }
    // Nbc offers its escape levels on every productive port: the same headers take the escape
    // VC up instead, and stop only where their last, +x, hop has failed.
    let sim = ring_of_escapeless_headers("nbc");
    assert!(!sim.deadlocked() && sim.fault_stalled());
    assert_eq!(sim.stuck_headers().len(), 6);
}

/// Overloaded runs with 5 % random faults over several seeds: `deadlock` never set.
fn never_deadlocks(routing: &str, traffic: &str) {
    let seeds: Vec<u64> = (1..=6).collect();
    let reports = parallel_map(&seeds, |seed| {
        run(&format!("k=8&{routing}&traffic={traffic}&len=8&rate=0.05&frandom=0.05&seed={seed}&warmup=0&cycles=6000"))
    });
    for (seed, r) in seeds.iter().zip(reports) {
        assert!(!r.deadlock, "{routing} {traffic} seed {seed}: {:?}", r.deadlock_channels);
        assert!(r.messages_stuck_at_faults > 0 || r.delivered_fraction > 0.99, "{routing} seed {seed}");
    }
}

#[test]
fn oblivious_routing_and_nbc_stay_deadlock_free_with_faults() {
    for routing in [RoutingKind::Dor, RoutingKind::Val, RoutingKind::Romm, RoutingKind::Rlb, RoutingKind::Nbc] {
        never_deadlocks(&format!("routing={routing}"), "uniform");
    }
    never_deadlocks("routing=nbc", "transpose");
    never_deadlocks("routing=chaos&buf=8", "uniform");
}
