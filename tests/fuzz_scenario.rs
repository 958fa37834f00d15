//! Deterministic, structure-aware fuzzing of the scenario parser, validator and simulator setup.
//!
//! Inputs are built from scenario-shaped pieces (real and unknown keys, empty and duplicate keys,
//! values at and past every range edge, overflowing numbers, NaN/inf, malformed and non-UTF-8
//! %-escapes, absurd sizes such as k = 10⁹, len = 2³², vcs = 10⁶, unicode, markup, long strings),
//! plus raw bytes and mutations of valid scenarios. For each input (see `support`):
//! no panic; a rejection is one line naming its key; an accepted scenario round-trips through
//! its canonical string; `Simulation::new` builds it or refuses cleanly, within
//! [`SETUP_BYTES_MAX`] of memory and [`SETUP_SECONDS_MAX`] of time.
//!
//! `FUZZ_CASES` sets the number of inputs (default 20 000, about a second), `FUZZ_SEED` the
//! generator's seed; a failure names the case and the input, and the same seed and count
//! reproduce it. `make fuzz` runs 10⁶ cases.

#[path = "support/scenario_properties.rs"]
mod properties;

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use rand::Rng as _;
use torus_explorer::rng::{Rng, Stream};
use torus_explorer::scenario::{limits, RoutingKind, Switching, TrafficKind, KEYS};

/// Heap in use and its high-water mark, for measuring what `Simulation::new` allocates.
struct CountingAllocator;

static HEAP_IN_USE: AtomicUsize = AtomicUsize::new(0);
static HEAP_PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HEAP_IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            HEAP_PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        HEAP_IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Setup memory ceiling. The largest scenarios the limits admit (k^n = 64 000 nodes, 6 ports,
/// 16 VCs, 2²⁵ flit buffers) need about 320 MiB: some 35 bytes per VC (its state, plus the
/// lookup tables that spare the inner loop a division per VC) and 4 per buffer slot.
const SETUP_BYTES_MAX: usize = 384 << 20;
/// Setup time ceiling, wall clock: the largest setup takes under a second alone but several on a
/// machine shared with other builds; anything super-linear in the network size (a matching on
/// 65 536 nodes) would take hours.
const SETUP_SECONDS_MAX: f64 = 30.0;

/// The biggest scenarios the limits admit, always tried first.
const LARGEST_ACCEPTED: &[&str] = &[
    "k=40&n=3&vcs=16&buf=5",
    "k=128&n=2&vcs=16&buf=32",
    "k=16&n=3&vcs=16&buf=85&len=4096",
    "k=16&n=2&traffic=worstcase&routing=dor",
    "k=40&n=3&traffic=permutation",
    "k=128&n=1&vcs=16&buf=256&len=4096&warmup=100000000&cycles=1000000000",
    "k=40&n=3&vcs=16&buf=5&frandom=1.0",
    "k=128&n=2&vcs=16&buf=32&frandom=0.5&fnodes=0,16383&flinks=1x,1y",
];

struct Generator {
    rng: Rng,
}

impl Generator {
    fn below(&mut self, n: usize) -> usize {
        self.rng.below(n as u32) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn input(&mut self) -> String {
        match self.below(20) {
            0 => self.raw_bytes(),
            1 => self.mutated_valid(),
            _ => self.structured(),
        }
    }

    /// Random bytes, read as the browser and the CLI would (lossy UTF-8).
    fn raw_bytes(&mut self) -> String {
        let len = if self.rng.chance(0.05) { self.below(6000) } else { self.below(64) };
        let bytes: Vec<u8> = (0..len).map(|_| self.rng.next_u64() as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// A canonical scenario with a few characters replaced, inserted or deleted.
    fn mutated_valid(&mut self) -> String {
        let mut chars: Vec<char> = torus_explorer::Scenario::default().canonical().chars().collect();
        for _ in 0..1 + self.below(4) {
            let at = self.below(chars.len() + 1);
            let c = self.pick(&["&", "=", "%", "9", "0", "-", ".", "e", " ", "é", "\u{0}", "k"]).chars().next().unwrap();
            match self.below(3) {
                0 if at < chars.len() => chars[at] = c,
                1 if at < chars.len() => {
                    chars.remove(at);
                }
                _ => chars.insert(at, c),
            }
        }
        chars.into_iter().collect()
    }

    fn structured(&mut self) -> String {
        let mut text = self.pick(&["", "", "", "#", "?", " ", "#?", "##", "\t"]).to_string();
        let mut used: Vec<String> = Vec::new();
        for i in 0..self.below(9) {
            if i > 0 {
                text += self.pick(&["&", "&", "&", "&", "&&", "& ", ";", "&amp;"]);
            }
            let key = self.key(&used);
            text += &key;
            text += self.pick(&["=", "=", "=", "=", "=", "=", "=", "=", "=", "", "=="]);
            text += &self.value(&key);
            used.push(key);
        }
        text
    }

    fn key(&mut self, used: &[String]) -> String {
        match self.below(20) {
            0..=13 => self.pick(KEYS).to_string(),
            14 | 15 if !used.is_empty() => used[self.below(used.len())].clone(),
            _ => self
                .pick(&[
                    "", " ", "K", "k ", " k", "%6B", "%6b", "colour", "frate", "frate", "ｋ", "k\u{0}", "%", "%ZZ", "%FF", "é", "=", "%26",
                    "rate%00", "+", "routing+", "<b>", "\u{202e}k", "k\nn",
                ])
                .to_string(),
        }
    }

    fn value(&mut self, key: &str) -> String {
        if self.below(5) == 0 {
            return self.junk();
        }
        match key {
            "k" => self.integer(limits::K.0 as u64, limits::K.1 as u64),
            "n" => self.integer(limits::N.0 as u64, limits::N.1 as u64),
            "len" => self.integer(limits::LEN.0 as u64, limits::LEN.1 as u64),
            "vcs" => self.integer(limits::VCS.0 as u64, limits::VCS.1 as u64),
            "buf" => self.integer(limits::BUF.0 as u64, limits::BUF.1 as u64),
            "scout" => self.integer(limits::SCOUT.0 as u64, limits::SCOUT.1 as u64),
            "mq" => self.integer(limits::MQ.0 as u64, limits::MQ.1 as u64),
            "qcap" => self.integer(limits::QCAP.0 as u64, limits::QCAP.1 as u64),
            "warmup" | "cycles" if self.below(4) == 0 => self.name(vec!["auto"]),
            "warmup" => self.integer(limits::WARMUP.0, limits::WARMUP.1),
            "cycles" => self.integer(limits::CYCLES.0, limits::CYCLES.1),
            "seed" if self.below(8) == 0 => self.name(vec!["random"]),
            "seed" => self.integer(0, u64::MAX),
            "unsafe" => self.integer(0, 1),
            "rate" | "frate" | "beta" | "ci" => self.real(),
            "routing" => self.name(RoutingKind::ALL.iter().map(|r| r.name()).collect()),
            "switching" => self.name(Switching::ALL.iter().map(|s| s.name()).collect()),
            "traffic" => self.name(TrafficKind::ALL.iter().map(|t| t.name()).collect()),
            "misroute" => self.integer(limits::MISROUTE.0 as u64, limits::MISROUTE.1 as u64),
            "flinks" => self.list(|g| format!("{}{}", g.integer(0, 300), g.pick(&["x", "y", "z", "x", "w", "", "X", "xx"]))),
            "fnodes" => self.list(|g| g.integer(0, 70_000)),
            "frandom" => match self.below(3) {
                0 => self.integer(0, 300),
                1 => self.real(),
                _ => self.pick(&["0.05", "0.1", "1.0", "0.0", "1", "0.5", "3", "1e-1"]).to_string(),
            },
            "router" => self.router(),
            "lengths" => self.lengths(),
            "rng" if self.below(3) == 0 => self.integer(0, 3),
            "rng" => self.name(vec!["1", "2"]),
            "rdelay" | "ldelay" | "cdelay" => self.integer(limits::DELAY.0 as u64, limits::DELAY.1 as u64),
            "hot" => self.list(|g| g.integer(0, 70_000)),
            "hotfrac" if self.below(3) == 0 => self.name(vec!["auto"]),
            "hotfrac" => self.real(),
            "pseed" if self.below(3) == 0 => self.name(vec!["auto"]),
            "pseed" => self.integer(0, u64::MAX),
            "matrix" => self.pick(&["", "missing.csv", ".", "Cargo.toml", "%2Fnonexistent", "a&b", "tests"]).to_string(),
            "inject" => self.inject(),
            _ => self.junk(),
        }
    }

    /// A list for `flinks` or `fnodes`: entries from `entry`, sometimes repeated, joined by
    /// commas (or other separators), sometimes with empty entries.
    fn list(&mut self, entry: impl Fn(&mut Generator) -> String) -> String {
        let mut items: Vec<String> = (0..self.below(6)).map(|_| entry(self)).collect();
        if !items.is_empty() && self.below(6) == 0 {
            items.push(items[0].clone());
        }
        let separator = self.pick(&[",", ",", ",", ", ", ";", "%2C", ",,", " "]);
        items.join(separator)
    }

    /// `iq`, or features joined by `+` (or a space, or an escaped `+`), sometimes repeated or
    /// unknown.
    fn router(&mut self) -> String {
        if self.below(4) == 0 {
            return "iq".into();
        }
        let features = ["maxmatch", "damq", "speedup2", "wide", "voq", "iq", "fast", ""];
        let count = 1 + self.below(5);
        let chosen: Vec<&str> = (0..count).map(|_| if self.below(8) == 0 { self.pick(&features) } else { self.pick(&features[..5]) }).collect();
        chosen.join(self.pick(&["+", "+", "+", " ", "%2B", "++", ","]))
    }

    /// `fixed`, `geometric`, or `uniform:A-B` with edge and malformed ranges.
    fn lengths(&mut self) -> String {
        match self.below(6) {
            0 => "fixed".into(),
            1 => "geometric".into(),
            2 => format!("uniform:{}", self.integer(limits::LEN.0 as u64, limits::LEN.1 as u64)),
            _ => self.range(&["uniform:", "uniform:", "uniform", "Uniform:", ""], limits::LEN.0 as u64, limits::LEN.1 as u64),
        }
    }

    /// `poisson`, `bernoulli`, or `onoff:ON-OFF` with edge and malformed periods.
    fn inject(&mut self) -> String {
        match self.below(5) {
            0 => self.name(vec!["poisson", "bernoulli"]),
            1 => format!("onoff:{}", self.integer(limits::BURST.0 as u64, limits::BURST.1 as u64)),
            _ => self.range(&["onoff:", "onoff:", "onoff", "OnOff:", ""], limits::BURST.0 as u64, limits::BURST.1 as u64),
        }
    }

    /// `NAME:A-B` with a name from `names` (misspelt or missing among them), two integers near
    /// `lo..=hi` and a separator that is sometimes wrong.
    fn range(&mut self, names: &[&'static str], lo: u64, hi: u64) -> String {
        let separator = self.pick(&["-", "-", "-", "", "--", ":", "%2D"]);
        let (a, b) = (self.integer(lo, hi), self.integer(lo, hi));
        format!("{}{a}{separator}{b}", self.pick(names))
    }

    /// Mostly small values and range edges; sometimes absurd or malformed numbers.
    fn integer(&mut self, lo: u64, hi: u64) -> String {
        match self.below(12) {
            0..=3 => (lo + self.rng.next_u64() % (hi - lo).saturating_add(1).clamp(1, 17)).to_string(),
            4 => lo.saturating_sub(1).to_string(),
            5 => hi.to_string(),
            6 => hi.saturating_add(1).to_string(),
            7 => (lo + self.rng.next_u64() % (hi - lo).saturating_add(1).max(1)).to_string(),
            8 => self
                .pick(&[
                    "1000000000", "4294967296", "4294967295", "1000000", "18446744073709551615", "18446744073709551616",
                    "340282366920938463463374607431768211456", "65536", "65537", "16777216", "33554432",
                ])
                .to_string(),
            9 => self
                .pick(&["-1", "-0", "+1", "1.0", "1e3", "0x10", " 7 ", "007", "%31%36", "９", "1_000", "", "2%20", "%2D1", "١"])
                .to_string(),
            10 => "9".repeat(1 + self.below(400)),
            _ => format!("{}{}", self.below(130), self.pick(&["", "", "0", "00", ".5", "e2"])),
        }
    }

    fn real(&mut self) -> String {
        match self.below(6) {
            0 => self.rng.unit().to_string(),
            1 => format!("{:e}", self.rng.unit() * 10f64.powi(self.below(40) as i32 - 30)),
            _ => self
                .pick(&[
                    "NaN", "nan", "inf", "-inf", "infinity", "+inf", "1e308", "1e309", "1e-320", "5e-324", "0", "-0", "0.5",
                    "1", "1.0000001", "0.", ".5", "1e", "%2E5", "0,5", "0.005", "1E-3", "0x1p-3", "½", "1/2", "0.1.2",
                ])
                .to_string(),
        }
    }

    fn name(&mut self, names: Vec<&str>) -> String {
        let name = names[self.below(names.len())];
        match self.below(8) {
            0 => name.to_uppercase(),
            1 => format!(" {name} "),
            2 => name[..self.below(name.len())].to_string(),
            3 => name.bytes().map(|b| format!("%{b:02X}")).collect(),
            _ => name.to_string(),
        }
    }

    fn junk(&mut self) -> String {
        match self.below(10) {
            0 => "x".repeat(self.below(5000)),
            1 => "∞🙂".repeat(self.below(50)),
            _ => self
                .pick(&[
                    "", " ", "%", "%F", "%FF", "%C3%28", "%E2%82", "%E2%82%AC", "%00", "%0A", "%%", "%-1",
                    "<script>alert(1)</script>", "javascript:alert(1)", "\"><img src=x onerror=alert(1)>", "∞", "🙂",
                    "&", "=", "+", "%2B", "\u{feff}", "\u{0}", "\\", "'", "%25", "null", "undefined", "true",
                ])
                .to_string(),
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[derive(Default)]
struct Tally {
    cases: u64,
    accepted: u64,
    built: u64,
    setup_bytes_max: usize,
    setup_bytes_input: String,
    setup_time_max: Duration,
    setup_time_input: String,
}

impl Tally {
    fn check(&mut self, input: &str) {
        self.cases += 1;
        let Some(s) = properties::check_parse(input) else { return };
        self.accepted += 1;
        let base = HEAP_IN_USE.load(Ordering::Relaxed);
        HEAP_PEAK.store(base, Ordering::Relaxed);
        let start = Instant::now();
        self.built += properties::check_setup(input, &s) as u64;
        let elapsed = start.elapsed();
        let bytes = HEAP_PEAK.load(Ordering::Relaxed) - base;
        assert!(bytes <= SETUP_BYTES_MAX, "{input:?}: setup allocated {bytes} bytes");
        assert!(elapsed.as_secs_f64() <= SETUP_SECONDS_MAX, "{input:?}: setup took {elapsed:?}");
        if bytes > self.setup_bytes_max {
            self.setup_bytes_max = bytes;
            self.setup_bytes_input = input.to_string();
        }
        if elapsed > self.setup_time_max {
            self.setup_time_max = elapsed;
            self.setup_time_input = input.to_string();
        }
    }
}

#[test]
fn fuzzed_scenarios_are_accepted_round_trip_or_rejected_in_one_line() {
    let cases = env_number("FUZZ_CASES", 20_000);
    let seed = env_number("FUZZ_SEED", 1);
    let mut generator = Generator { rng: Rng::new(seed, Stream::Pattern) };
    let mut tally = Tally::default();
    for (case, input) in LARGEST_ACCEPTED.iter().map(|s| s.to_string()).chain((0..cases).map(|_| generator.input())).enumerate() {
        if catch_unwind(AssertUnwindSafe(|| tally.check(&input))).is_err() {
            panic!("case {case} (FUZZ_SEED={seed}) failed on input {input:?}; see the panic above");
        }
    }
    assert!(tally.accepted > tally.cases / 20, "the generator should produce valid scenarios too");
    eprintln!(
        "fuzz_scenario: {} cases (seed {seed}), {} accepted, {} built; setup peak {:.1} MiB ({:?}), slowest setup {:.3} s ({:?})",
        tally.cases,
        tally.accepted,
        tally.built,
        tally.setup_bytes_max as f64 / (1 << 20) as f64,
        tally.setup_bytes_input,
        tally.setup_time_max.as_secs_f64(),
        tally.setup_time_input
    );
}
