//! Times the simulator against its stripped twin ([`kernel`]) on issue 6's native benchmark,
//! in alternating rounds, and checks that both moved the same flits.
//!
//!     cargo run --release --example lean_kernel [-- --cycles N --rounds R]
//!
//! Prints one JSON line per round and program (`torus bench`'s fields), then the medians.

mod kernel;

use std::time::Instant;
use torus_explorer::bench::bench;
use torus_explorer::Scenario;

const SCENARIO: &str = "k=8&routing=dor&traffic=uniform&len=1&rate=0.5&vcs=2&buf=8";

fn flag(args: &[String], name: &str, default: u64) -> u64 {
    match args.iter().position(|a| a == name) {
        Some(i) => args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{name} takes a positive whole number")),
        None => default,
    }
}

/// Like `torus bench`: a warm-up of `cycles / 10`, then `cycles` timed.
/// Returns the seconds, the flit-hops and the mean latency of the timed cycles' deliveries.
fn bench_kernel(cycles: u64) -> (f64, u64, f64) {
    let mut k = kernel::LeanDor::new(0.5, 1);
    for _ in 0..cycles / 10 {
        k.step();
    }
    let (before, (delivered_before, latency_before)) = (k.flit_hops(), k.delivered());
    let start = Instant::now();
    for _ in 0..cycles {
        k.step();
    }
    let seconds = start.elapsed().as_secs_f64();
    let (delivered, latency_sum) = k.delivered();
    (seconds, k.flit_hops() - before, (latency_sum - latency_before) as f64 / (delivered - delivered_before) as f64)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cycles = flag(&args, "--cycles", 50_000).max(10);
    let rounds = flag(&args, "--rounds", 5).max(1);
    let scenario = Scenario::parse(SCENARIO).expect("the benchmark scenario parses");
    let (mut simulator, mut lean, mut latency) = (Vec::new(), Vec::new(), 0.0);
    for _ in 0..rounds {
        let s = bench(&scenario, cycles);
        let (seconds, flit_hops, latency_mean) = bench_kernel(cycles);
        latency = latency_mean;
        assert_eq!(flit_hops, s.flit_hops, "the kernel moved other flits than the simulator");
        for (name, seconds, list) in [("simulator", s.seconds, &mut simulator), ("lean kernel", seconds, &mut lean)] {
            println!(
                "{{\"program\":\"{name}\",\"scenario\":\"{SCENARIO}\",\"cycles\":{cycles},\"flit_hops\":{flit_hops},\"cycles_per_second\":{:.0},\"ns_per_flit_hop\":{:.2}}}",
                cycles as f64 / seconds,
                seconds * 1e9 / flit_hops as f64
            );
            list.push(cycles as f64 / seconds);
        }
    }
    let (s, l) = (median(simulator), median(lean));
    println!("mean latency of the lean kernel's deliveries in the timed cycles: {latency:.3}");
    println!("medians of {rounds} rounds: simulator {s:.0} cycles/s, lean kernel {l:.0} cycles/s ({:.2}x); same flit-hops every round", l / s);
}
