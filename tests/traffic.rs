//! The traffic options as the simulator runs them: a traffic matrix read from a CSV file, the
//! bit permutations and the hot-spot options, each against its definition.

use std::path::PathBuf;
use torus_explorer::sim::Simulation;
use torus_explorer::topology::Torus;
use torus_explorer::Scenario;

/// A CSV file of this test's own (removed when dropped).
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("torus-traffic-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Every delivery of a short run: (src, dest) pairs.
fn pairs(scenario: &str) -> Vec<(u32, u32)> {
    let s = Scenario::parse(scenario).unwrap();
    let mut sim = Simulation::new(&s).unwrap();
    sim.record_deliveries();
    for _ in 0..20_000 {
        sim.step();
    }
    assert!(!sim.deadlocked());
    sim.take_deliveries().iter().map(|d| (d.src, d.dest)).collect()
}

#[test]
fn a_traffic_matrix_sends_each_source_where_its_row_weighs() {
    // 16 nodes of a 4×4 torus: node s sends to s + 1 three times as often as to s + 5, and
    // never anywhere else; node 15 sends only to 0.
    let mut text = String::from("# weights, one row per source\n");
    for s in 0..16 {
        let row: Vec<String> = (0..16)
            .map(|d| match (s, d) {
                (15, 0) => "1",
                (15, _) => "0",
                _ if d == (s + 1) % 16 => "3",
                _ if d == (s + 5) % 16 => "1.0",
                _ => "0",
            })
            .map(String::from)
            .collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    let file = TempFile::new("ring.csv", &text);
    let scenario = format!("k=4&traffic=matrix&matrix={}&rate=0.02&len=4&seed=3", file.path());
    let delivered = pairs(&scenario);
    assert!(delivered.len() > 5_000, "{}", delivered.len());
    let (mut near, mut far) = (0, 0);
    for &(s, d) in &delivered {
        if s == 15 {
            assert_eq!(d, 0);
        } else if d == (s + 1) % 16 {
            near += 1;
        } else {
            assert_eq!(d, (s + 5) % 16, "{s} → {d} has no weight");
            far += 1;
        }
    }
    let share = near as f64 / (near + far) as f64;
    assert!((share - 0.75).abs() < 0.02, "share to s + 1: {share}");
    // The canonical string names the file and parses back to the same scenario.
    let s = Scenario::parse(&scenario).unwrap();
    assert!(s.canonical().contains(&format!("&traffic=matrix&")));
    assert_eq!(Scenario::parse(&s.canonical()).unwrap(), s);
    // The models read the rows whole: the bound and the channel-queue model apply.
    let report = torus_explorer::models::report(&s);
    assert!(report.bound_saturation_rate.is_some() && report.channel_queue.reason.is_none(), "{:?}", report.channel_queue.reason);
}

#[test]
fn a_matrix_file_that_does_not_fit_is_refused_in_one_line() {
    let small = TempFile::new("small.csv", "0,1\n1,0\n");
    let spaced = TempFile::new("a b&c.csv", &"1,1,1,1\n".repeat(4));
    for (scenario, error) in [
        (format!("k=4&traffic=matrix&matrix={}", small.path()), "line 1 has 2 weights, expected 16 (one per node of the torus)".to_string()),
        ("k=4&traffic=matrix".to_string(), "traffic: matrix needs matrix=FILE".to_string()),
        ("k=4&traffic=uniform&matrix=m.csv".to_string(), "matrix: belongs to traffic=matrix, not traffic=uniform; leave it out".to_string()),
        ("k=4&traffic=matrix&matrix=no-such-file.csv".to_string(), "matrix: cannot read `no-such-file.csv`".to_string()),
        ("k=64&traffic=matrix&matrix=m.csv".to_string(), "matrix: a traffic matrix has at most 1024 nodes, the torus has 4096".to_string()),
    ] {
        let e = Scenario::parse(&scenario).unwrap_err().to_string();
        assert!(e.contains(&error), "{scenario}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    // A path with the scenario's separators in it survives the canonical string.
    let encoded = spaced.path().replace('&', "%26").replace(' ', "%20");
    let s = Scenario::parse(&format!("n=1&k=4&traffic=matrix&matrix={encoded}")).unwrap();
    assert_eq!(s.matrix, spaced.path());
    assert_eq!(Scenario::parse(&s.canonical()).unwrap(), s);
}

#[test]
fn the_simulator_sends_each_node_to_its_bit_permutation() {
    let t = Torus::new(8, 2);
    for (traffic, map) in [
        ("bitrev", Box::new(|u: u32| u.reverse_bits() >> 26) as Box<dyn Fn(u32) -> u32>),
        ("shuffle", Box::new(|u: u32| (u << 1 | u >> 5) & 63)),
    ] {
        let delivered = pairs(&format!("k=8&traffic={traffic}&rate=0.01&len=4"));
        assert!(delivered.len() > 2_000);
        for (s, d) in delivered {
            assert_eq!(d, map(s), "{traffic}: {:?} → {:?}", t.coordinates(s), t.coordinates(d));
        }
    }
}

#[test]
fn hot_nodes_receive_their_fraction_of_the_messages() {
    let delivered = pairs("k=8&traffic=hotspot&hot=9,40&hotfrac=0.4&rate=0.01&len=4&seed=2");
    let hot = delivered.iter().filter(|&&(_, d)| d == 9 || d == 40).count() as f64;
    // Bit complement sends 54 → 9 and 23 → 40 as well: 2 of the 64 sources' background.
    let expected = 0.4 + 0.6 * 2.0 / 64.0;
    assert!((hot / delivered.len() as f64 - expected).abs() < 0.03, "{} of {}", hot, delivered.len());
}
