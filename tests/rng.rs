//! The generations of the random-number samplers (`rng=`) and `seed=random`: a link keeps its
//! run, the canonical string says which generation made it, and a random seed is spelled out.

use torus_explorer::rng::Samplers;
use torus_explorer::scenario::{Scenario, KEYS};
use torus_explorer::sim::Simulation;

fn run(text: &str) -> torus_explorer::sim::RunReport {
    Simulation::new(&Scenario::parse(text).unwrap()).unwrap().run()
}

#[test]
fn a_link_without_rng_runs_the_first_generation() {
    let s = Scenario::parse("k=4").unwrap();
    assert_eq!(s.rng, Samplers::Inversion);
    let at = |key: &str| KEYS.iter().position(|k| *k == key);
    assert_eq!(at("rng"), at("lengths").map(|i| i + 1), "rng follows the keys before it in the canonical order");
    assert!(s.canonical().contains("&lengths=fixed&rng=1"), "{}", s.canonical());
    assert_eq!(Scenario::parse("k=4&rng=2").unwrap().canonical(), s.canonical().replace("rng=1", "rng=2"));
    let base = "k=8&routing=duato&vcs=4&rate=0.02&len=8&lengths=geometric&warmup=300&cycles=2000";
    assert_eq!(run(base), run(&format!("{base}&rng=1")));
}

#[test]
fn the_second_generation_draws_other_arrivals_and_lengths_with_the_same_statistics() {
    let base = "k=8&routing=dor&rate=0.01&len=8&lengths=geometric&warmup=2000&cycles=40000&seed=3";
    let (one, two) = (run(&format!("{base}&rng=1")), run(&format!("{base}&rng=2")));
    assert_ne!(one.messages_labelled, two.messages_labelled, "other draws, other runs");
    // The same offered load, and the same mean latency within the runs' own 95 % intervals.
    for stats in [&one, &two] {
        assert!((stats.offered_flits_per_node_cycle - 0.08).abs() < 0.004, "{}", stats.offered_flits_per_node_cycle);
    }
    let gap = (one.latency_mean - two.latency_mean).abs();
    assert!(gap < 2.0 * (one.latency_ci95 + two.latency_ci95), "{} vs {}", one.latency_mean, two.latency_mean);
    // Uniform draws (destinations) are common to both: with fixed lengths only the arrival
    // times differ, so the hop counts agree on average but not message for message.
    let fixed = "k=8&routing=dor&rate=0.01&len=4&warmup=500&cycles=20000&seed=5";
    let (a, b) = (run(&format!("{fixed}&rng=1")), run(&format!("{fixed}&rng=2")));
    assert_ne!(a.latency_mean, b.latency_mean);
    assert!((a.hops_mean - b.hops_mean).abs() < 0.1, "{} vs {}", a.hops_mean, b.hops_mean);
}

#[test]
fn rng_takes_only_its_generations() {
    for bad in ["0", "3", "v2", "", "2.0"] {
        let e = Scenario::parse(&format!("k=4&rng={bad}")).unwrap_err();
        assert_eq!(e.key, "rng");
        assert!(e.to_string().contains("1 (inversion") && !e.to_string().contains('\n'), "{e}");
    }
}

#[test]
fn a_random_seed_is_drawn_once_and_spelled_in_the_canonical_string() {
    let a = Scenario::parse("k=4&seed=random").unwrap();
    let b = Scenario::parse("k=4&seed=random").unwrap();
    assert_ne!(a.seed, b.seed, "two fresh seeds (equal with probability 2^-64)");
    let canonical = a.canonical();
    assert!(canonical.contains(&format!("&seed={}&", a.seed)), "{canonical}");
    assert_eq!(Scenario::parse(&canonical).unwrap(), a, "the canonical string repeats the run");
    assert_eq!(Scenario::parse("k=4&seed=%20random%20").map(|s| s.seed == a.seed), Ok(false));
    let e = Scenario::parse("k=4&seed=rand").unwrap_err();
    assert_eq!(e.key, "seed");
    assert!(e.to_string().contains("or random"), "{e}");
}
