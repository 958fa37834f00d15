//! `inject=`: Bernoulli and on/off (bursty) arrivals beside Poisson, in the simulator. The
//! processes themselves are tested against their definitions in `traffic::injection`.

use torus_explorer::scenario::{Injection, Scenario};
use torus_explorer::sim::{RunReport, Simulation};

fn run(text: &str) -> RunReport {
    Simulation::new(&Scenario::parse(text).unwrap()).unwrap().run()
}

#[test]
fn poisson_is_the_default_and_every_link_keeps_its_run() {
    let s = Scenario::parse("k=4").unwrap();
    assert_eq!(s.inject, Injection::Poisson);
    assert!(s.canonical().ends_with("&inject=poisson"), "{}", s.canonical());
    let base = "k=8&routing=goal&vcs=3&len=4&rate=0.05&warmup=300&cycles=2000";
    assert_eq!(run(base), run(&format!("{base}&inject=poisson")));
    for text in ["inject=bernoulli", "inject=onoff:20-80", "inject=%20onoff:1000000-1"] {
        let s = Scenario::parse(&format!("k=4&rate=0.001&{text}")).unwrap();
        assert_eq!(Scenario::parse(&s.canonical()).unwrap(), s, "{text}");
    }
}

#[test]
fn every_process_offers_the_rate_and_bursts_wait_longer() {
    let base = "k=8&routing=dor&len=8&rate=0.01&warmup=2000&cycles=30000&seed=4";
    let poisson = run(base);
    let bernoulli = run(&format!("{base}&inject=bernoulli"));
    let bursty = run(&format!("{base}&inject=onoff:20-180"));
    for (name, r) in [("poisson", &poisson), ("bernoulli", &bernoulli), ("onoff", &bursty)] {
        assert!(!r.saturated, "{name}");
        assert!((r.offered_flits_per_node_cycle - 0.08).abs() < 0.004, "{name}: {}", r.offered_flits_per_node_cycle);
        assert!((r.accepted_flits_per_node_cycle - 0.08).abs() < 0.004, "{name}: {}", r.accepted_flits_per_node_cycle);
    }
    // Bernoulli arrivals are a little more regular than Poisson's; bursts of a message every
    // ten cycles of 8-flit messages queue at their source.
    assert!((bernoulli.latency_mean - poisson.latency_mean).abs() < 0.05 * poisson.latency_mean, "{} {}", bernoulli.latency_mean, poisson.latency_mean);
    assert!(bursty.latency_mean > 1.2 * poisson.latency_mean, "{} {}", bursty.latency_mean, poisson.latency_mean);
    assert!(bursty.source_queue_mean > 2.0 * poisson.source_queue_mean, "{} {}", bursty.source_queue_mean, poisson.source_queue_mean);
}

#[test]
fn a_process_that_would_draw_more_than_one_message_a_cycle_is_refused_in_one_line() {
    for (text, says) in [
        ("router=wide&rate=1.5&inject=bernoulli", "lower the rate to at most 1"),
        ("rate=0.3&inject=onoff:20-80", "lengthen the bursts"),
        ("inject=onoff:0-5", "onoff:ON-OFF"),
        ("inject=onoff:5", "onoff:ON-OFF"),
        ("inject=onoff:5-1000001", "onoff:ON-OFF"),
        ("inject=burst", "poisson, bernoulli"),
    ] {
        let e = Scenario::parse(&format!("k=4&{text}")).unwrap_err();
        assert_eq!(e.key, "inject", "{text}");
        assert!(e.to_string().contains(says) && !e.to_string().contains('\n'), "{text}: {e}");
    }
    // Exactly one message a cycle in a burst is allowed.
    assert!(Scenario::parse("k=4&rate=0.25&inject=onoff:20-60").is_ok());
    assert!(Scenario::parse("k=4&router=wide&rate=1&inject=bernoulli").is_ok());
}

#[test]
fn the_models_say_they_assume_poisson_arrivals() {
    let note = |text: &str| torus_explorer::models::report(&Scenario::parse(text).unwrap()).injection;
    assert!(note("k=8&rate=0.01").contains("as the models assume"));
    assert!(note("k=8&rate=0.01&inject=bernoulli").contains("overstate"));
    assert!(note("k=8&rate=0.01&inject=onoff:20-80").contains("understate"));
}
