//! Scenario strings: the one input shared by the URL hash, the CLI, the simulator and the models.
//!
//! A scenario is `key=value` pairs joined by `&`, for example
//! `k=8&routing=goal&traffic=tornado&rate=0.02&len=16&vcs=3&buf=8&seed=7`.
//! Keys may come in any order; each may appear once. [`Scenario::canonical`] writes every key in
//! a fixed order, so a canonical string parses back to the identical scenario.

pub mod matrix;

use crate::faults::{self, Link, RandomFaults};
use crate::rng::{fresh_seed, Samplers};
use serde::Serialize;
use std::fmt;

/// Routing algorithm (`routing=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RoutingKind {
    Dor,
    Duato,
    Nbc,
    Adaptive,
    Minad,
    Goal,
    Val,
    Romm,
    Rlb,
    Chaos,
}

/// Switching technique (`switching=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Switching {
    Wormhole,
    Scouting,
}

/// Traffic pattern (`traffic=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TrafficKind {
    Uniform,
    Neighbor,
    Bitcomp,
    Transpose,
    Tornado,
    Diagonal,
    Permutation,
    Hotspot,
    Worstcase,
    Bitrev,
    Shuffle,
    Matrix,
}

macro_rules! named_enum {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in the order the scenario documentation lists them.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// The scenario-string spelling.
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }
            fn from_name(s: &str) -> Option<$ty> {
                match s { $($name => Some($ty::$variant),)+ _ => None }
            }
            fn allowed() -> String {
                Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum!(RoutingKind {
    Dor => "dor", Duato => "duato", Nbc => "nbc", Adaptive => "adaptive", Minad => "minad",
    Goal => "goal", Val => "val", Romm => "romm", Rlb => "rlb", Chaos => "chaos",
});
named_enum!(Switching { Wormhole => "wormhole", Scouting => "scouting" });
named_enum!(TrafficKind {
    Uniform => "uniform", Neighbor => "neighbor", Bitcomp => "bitcomp", Transpose => "transpose",
    Tornado => "tornado", Diagonal => "diagonal", Permutation => "permutation",
    Hotspot => "hotspot", Worstcase => "worstcase", Bitrev => "bitrev", Shuffle => "shuffle",
    Matrix => "matrix",
});

/// Router organisation (`router=`): the input-queued router every link before this key ran
/// (`iq`), or that router with some of [`RouterOrganisation::FEATURES`], joined by `+` in that
/// order (`damq+speedup2+wide`). What each changes, and what each does to throughput, is in
/// `docs/experiments/router.md`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouterOrganisation {
    /// Switch allocation finds a maximum-size matching of input ports to output ports instead
    /// of the age-ordered maximal one.
    pub maxmatch: bool,
    /// A VC's buffer is not a FIFO: any message it holds whole may leave first, as in a
    /// dynamically allocated multi-queue (DAMQ).
    pub damq: bool,
    /// Internal speedup 2: each switch input and output port carries up to two flits a cycle,
    /// and each output queues what its channel cannot send at once.
    pub speedup2: bool,
    /// Terminals as wide as the network: 2n injection channels per node, and up to 2n flits
    /// ejected per cycle.
    pub wide: bool,
    /// With `wide`: the source queue split by first hop, a virtual output queue per network
    /// port, each feeding the injection channel of its own port.
    pub voq: bool,
}

impl RouterOrganisation {
    /// The feature names, in canonical order.
    pub const FEATURES: [&'static str; 5] = ["maxmatch", "damq", "speedup2", "wide", "voq"];
    /// The organisation that reproduces seed 004's throughputs (docs/experiments/router.md).
    pub const PAPER: RouterOrganisation = RouterOrganisation { maxmatch: false, damq: true, speedup2: true, wide: true, voq: false };
    /// The organisations the page offers: today's router, each feature alone, and [`Self::PAPER`].
    pub const OFFERED: [RouterOrganisation; 6] = [
        RouterOrganisation { maxmatch: false, damq: false, speedup2: false, wide: false , voq: false },
        RouterOrganisation { maxmatch: true, damq: false, speedup2: false, wide: false , voq: false },
        RouterOrganisation { maxmatch: false, damq: true, speedup2: false, wide: false , voq: false },
        RouterOrganisation { maxmatch: false, damq: false, speedup2: true, wide: false , voq: false },
        RouterOrganisation { maxmatch: false, damq: false, speedup2: false, wide: true , voq: false },
        RouterOrganisation::PAPER,
    ];

    fn flags(&self) -> [bool; 5] {
        [self.maxmatch, self.damq, self.speedup2, self.wide, self.voq]
    }

    /// Today's input-queued router, with none of the features.
    pub fn is_iq(&self) -> bool {
        *self == RouterOrganisation::default()
    }

    /// The scenario-string spelling: `iq`, or the features joined by `+` in canonical order.
    pub fn name(&self) -> String {
        if self.is_iq() {
            return "iq".into();
        }
        let names: Vec<&str> = Self::FEATURES.iter().zip(self.flags()).filter(|(_, on)| *on).map(|(name, _)| *name).collect();
        names.join("+")
    }

    fn from_name(value: &str) -> Result<RouterOrganisation, String> {
        let value = value.trim();
        let mut r = RouterOrganisation::default();
        if value == "iq" {
            return Ok(r);
        }
        // A `+` reads as a space once a URL is decoded (form encoding): either joins features.
        for feature in value.split(['+', ' ']) {
            let on = match feature {
                "maxmatch" => &mut r.maxmatch,
                "damq" => &mut r.damq,
                "speedup2" => &mut r.speedup2,
                "wide" => &mut r.wide,
                "voq" => &mut r.voq,
                _ => {
                    return Err(format!(
                        "must be iq or features joined by + from {}, got {}",
                        Self::FEATURES.join(", "),
                        quoted(feature)
                    ))
                }
            };
            if *on {
                return Err(format!("names {} twice", quoted(feature)));
            }
            *on = true;
        }
        Ok(r)
    }

    /// Injection channels per node: one, or one per network port under `wide`.
    pub fn injection_channels(&self, n: u32) -> u32 {
        if self.wide {
            2 * n
        } else {
            1
        }
    }

    /// Flits each switch port carries per cycle.
    pub fn speedup(&self) -> u32 {
        1 + self.speedup2 as u32
    }
}

impl fmt::Display for RouterOrganisation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for RouterOrganisation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

/// Message lengths (`lengths=`): every message `len` flits, or lengths drawn per message with
/// mean `len` (M). The analytical models take the mean for the length, as if it were fixed
/// (docs/models: each seed's model assumes fixed-length messages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lengths {
    /// Every message `len` flits.
    #[default]
    Fixed,
    /// Uniform over `lo..=hi` flits (`uniform:lo-hi`), whose mean `len` is.
    Uniform { lo: u32, hi: u32 },
    /// Geometric on 1, 2, … with mean `len` (a message ends after each flit with probability
    /// 1/len: the discrete exponential), truncated at the longest message accepted.
    Geometric,
}

impl Lengths {
    /// The scenario-string spelling.
    pub fn name(&self) -> String {
        match self {
            Lengths::Fixed => "fixed".into(),
            Lengths::Uniform { lo, hi } => format!("uniform:{lo}-{hi}"),
            Lengths::Geometric => "geometric".into(),
        }
    }

    fn from_name(value: &str) -> Result<Lengths, String> {
        let value = value.trim();
        let expected = || format!("must be fixed, uniform:A-B (1 ≤ A ≤ B ≤ {}) or geometric, got {}", limits::LEN.1, quoted(value));
        match value {
            "fixed" => Ok(Lengths::Fixed),
            "geometric" => Ok(Lengths::Geometric),
            _ => {
                let range = value.strip_prefix("uniform:").ok_or_else(expected)?;
                let (lo, hi) = range.split_once('-').ok_or_else(expected)?;
                let bound = |t: &str| t.trim().parse::<u32>().ok().filter(|v| (limits::LEN.0..=limits::LEN.1).contains(v));
                match (bound(lo), bound(hi)) {
                    (Some(lo), Some(hi)) if lo <= hi => Ok(Lengths::Uniform { lo, hi }),
                    _ => Err(expected()),
                }
            }
        }
    }

    pub fn is_fixed(&self) -> bool {
        *self == Lengths::Fixed
    }

    /// The longest message these lengths give with mean `len`.
    pub fn longest(&self, len: u32) -> u32 {
        match *self {
            Lengths::Fixed => len,
            Lengths::Uniform { hi, .. } => hi,
            Lengths::Geometric => limits::LEN.1,
        }
    }
}

impl fmt::Display for Lengths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for Lengths {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

/// When messages arrive at a node (`inject=`), at the mean rate λ of `rate` in every case
/// (`traffic::injection` draws them). The analytical models assume Poisson arrivals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Injection {
    /// Exponential gaps of mean 1/λ: every link before this key.
    #[default]
    Poisson,
    /// A message in each cycle with probability λ (at most one a cycle).
    Bernoulli,
    /// Bursts and silences whose lengths in cycles are geometric with means `on` and `off`
    /// (`onoff:ON-OFF`); in each cycle of a burst a message with probability λ·(on + off)/on.
    OnOff { on: u32, off: u32 },
}

impl Injection {
    /// The scenario-string spelling.
    pub fn name(&self) -> String {
        match self {
            Injection::Poisson => "poisson".into(),
            Injection::Bernoulli => "bernoulli".into(),
            Injection::OnOff { on, off } => format!("onoff:{on}-{off}"),
        }
    }

    fn from_name(value: &str) -> Result<Injection, String> {
        let value = value.trim();
        let (lo, hi) = limits::BURST;
        let expected = || format!("must be poisson, bernoulli or onoff:ON-OFF (mean burst and silence in cycles, {lo} to {hi}), got {}", quoted(value));
        match value {
            "poisson" => Ok(Injection::Poisson),
            "bernoulli" => Ok(Injection::Bernoulli),
            _ => {
                let periods = value.strip_prefix("onoff:").ok_or_else(expected)?;
                let (on, off) = periods.split_once('-').ok_or_else(expected)?;
                let cycles = |t: &str| t.trim().parse::<u32>().ok().filter(|v| (lo..=hi).contains(v));
                match (cycles(on), cycles(off)) {
                    (Some(on), Some(off)) => Ok(Injection::OnOff { on, off }),
                    _ => Err(expected()),
                }
            }
        }
    }

    pub fn is_poisson(&self) -> bool {
        *self == Injection::Poisson
    }

    /// The chance of a message in one cycle (of a burst, for on/off) at mean rate λ, which
    /// cannot pass 1; none for Poisson, whose arrivals may bunch in a cycle.
    pub fn peak_chance(&self, rate: f64) -> Option<f64> {
        match *self {
            Injection::Poisson => None,
            Injection::Bernoulli => Some(rate),
            Injection::OnOff { on, off } => Some(rate * (on + off) as f64 / on as f64),
        }
    }
}

impl fmt::Display for Injection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for Injection {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

impl RoutingKind {
    /// Fewest virtual channels per physical channel with which the algorithm's
    /// deadlock-avoidance scheme works on an `n`-dimensional torus (for nbc the smallest one:
    /// [`Scenario::min_vcs`] gives the requirement of a particular torus).
    pub fn min_vcs(self, n: u32) -> u32 {
        match self {
            // Dateline: one VC before the wrap-around link of the current dimension, one after.
            RoutingKind::Dor => 2,
            // One adaptive VC plus the two dateline escape VCs of DOR (seed 002's scheme too).
            RoutingKind::Duato | RoutingKind::Minad | RoutingKind::Goal | RoutingKind::Adaptive => 3,
            // Two phases, each with its own dateline pair.
            RoutingKind::Val | RoutingKind::Romm => 4,
            // Linder & Harden: 2^(n−1) networks × (n + 1) wrap levels (6 in 2-D); see routing::rlb
            // for why a dateline pair per phase deadlocks with random dimension orders.
            RoutingKind::Rlb => crate::routing::rlb::vc_classes(n),
            // One adaptive VC plus negative-hop escape levels, which grow with the torus
            // (⌈nk/4⌉ + 1): here those of the smallest, k = 2.
            RoutingKind::Nbc => crate::routing::nbc::escape_levels(2, n) + 1,
            // Deflection, not virtual channels, avoids deadlock.
            RoutingKind::Chaos => 1,
        }
    }

    /// The `vcs` a scenario gets when it does not set one: the minimum, except where the seed's
    /// experiments used more.
    pub fn default_vcs(self, n: u32) -> u32 {
        match self {
            // Seed 002's validation simulator used 4 VCs: two adaptive, two escape.
            RoutingKind::Adaptive => 4,
            // Seed 000's validation runs use V = 10 (V1 adaptive + V2 negative-hop escape); 10 is
            // the fewest that leaves an adaptive VC on 16×16 (`docs/models/nbc.md` §5 item 5).
            RoutingKind::Nbc => 10,
            other => other.min_vcs(n),
        }
    }

    /// True for algorithms whose path does not depend on network state.
    pub fn is_oblivious(self) -> bool {
        matches!(self, RoutingKind::Dor | RoutingKind::Val | RoutingKind::Romm | RoutingKind::Rlb)
    }

    /// True for algorithms that only ever take minimal paths.
    pub fn is_minimal(self) -> bool {
        matches!(
            self,
            RoutingKind::Dor
                | RoutingKind::Duato
                | RoutingKind::Minad
                | RoutingKind::Adaptive
                | RoutingKind::Nbc
                | RoutingKind::Romm
        )
    }
}

/// Upper bounds that keep every scenario cheap to set up and bounded in memory.
pub mod limits {
    pub const K: (u32, u32) = (2, 128);
    pub const N: (u32, u32) = (1, 3);
    /// k^n at most this many nodes.
    pub const MAX_NODES: u32 = 65_536;
    pub const LEN: (u32, u32) = (1, 4096);
    pub const VCS: (u32, u32) = (1, 16);
    pub const BUF: (u32, u32) = (1, 256);
    pub const SCOUT: (u32, u32) = (0, 64);
    /// Router, link and credit delays (`rdelay`, `ldelay`, `cdelay`), extra cycles each.
    pub const DELAY: (u32, u32) = (0, 32);
    /// Hot nodes listed in `hot` at most.
    pub const HOT_NODES: usize = 64;
    /// Chaos's shared multiqueue, packets per node (0 for every other algorithm). At most 64:
    /// the slots are extra inputs of the simulator's 128-bit masks of a router's inputs (2n
    /// input buffers and injection, at most 7 for chaos, plus the slots), and the free slots
    /// of a router fit one 64-bit mask.
    pub const MQ: (u32, u32) = (0, 64);
    /// Messages each source queue holds at most (`qcap`); all of them together at most
    /// [`TOTAL_QUEUED`].
    pub const QCAP: (u32, u32) = (1, 1 << 20);
    /// Messages in all source queues together at most: on a network of more than
    /// `TOTAL_QUEUED / qcap` nodes each queue holds `TOTAL_QUEUED / nodes`.
    pub const TOTAL_QUEUED: u64 = 1 << 20;
    /// m, the misroutes a scouting header may make round faults (`misroute`).
    pub const MISROUTE: (u32, u32) = (0, 16);
    pub const WARMUP: (u64, u64) = (0, 100_000_000);
    /// `ci`, the relative half-width `cycles=auto` runs to: above 0, at most 1.
    pub const CI: (f64, f64) = (0.0, 1.0);
    pub const CYCLES: (u64, u64) = (1, 1_000_000_000);
    /// Mean burst and silence of `inject=onoff:ON-OFF`, in cycles.
    pub const BURST: (u32, u32) = (1, 1_000_000);
    /// Flit buffers in the whole network (nodes × 2n × vcs × buf) at most this many.
    pub const MAX_BUFFER_SLOTS: u64 = 1 << 25;
    /// Longest scenario string accepted (a link is never this long legitimately).
    pub const MAX_INPUT_BYTES: usize = 4096;
}

/// A fully specified experiment: topology, routing, switching, traffic, and run length.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    pub k: u32,
    pub n: u32,
    pub routing: RoutingKind,
    pub switching: Switching,
    pub scout: u32,
    pub traffic: TrafficKind,
    /// λ, messages per node per cycle.
    pub rate: f64,
    /// M, message length in flits.
    pub len: u32,
    /// V, virtual channels per physical channel.
    pub vcs: u32,
    /// Flit buffer depth per virtual channel.
    pub buf: u32,
    /// β, fraction of messages that are broadcasts.
    pub beta: f64,
    pub seed: u64,
    /// Cycles of warm-up before the measurement window, or [`AUTO`] (`warmup=auto`): until the
    /// transient is over (the simulator's run-length rules, docs/statistics.md).
    pub warmup: u64,
    /// Cycles of the measurement window, or [`AUTO`] (`cycles=auto`): until the 95 % confidence
    /// interval of the mean latency is within `ci` of it.
    pub cycles: u64,
    /// Allow fewer VCs than the deadlock-avoidance scheme needs (deadlock demonstrations).
    #[serde(rename = "unsafe")]
    pub allow_unsafe: bool,
    /// Q, packet slots of the shared multiqueue of each node (`routing=chaos` only; 0 otherwise).
    pub mq: u32,
    /// Messages a source queue holds at most: a source whose queue is full holds its next
    /// arrivals back until there is room (nothing is dropped), which throttles the offered load.
    pub qcap: u32,
    /// Failed links (`flinks`), in ascending order ([`crate::faults`]).
    pub failed_links: Vec<Link>,
    /// Failed nodes (`fnodes`), in ascending order.
    pub failed_nodes: Vec<u32>,
    /// Random link faults drawn from the seed (`frandom`): a count or a fraction of the links.
    pub random_faults: RandomFaults,
    /// m, the misroutes a scouting header may make round faults (`misroute`; 0 for none).
    pub misroute: u32,
    /// With `cycles=auto`: the relative half-width of the latency's 95 % confidence interval the
    /// window runs until.
    pub ci: f64,
    /// The router organisation (`iq` unless a link says otherwise).
    pub router: RouterOrganisation,
    /// How message lengths vary about their mean `len` (fixed unless a link says otherwise).
    pub lengths: Lengths,
    /// The generation of the samplers of inter-arrival times and message lengths (`rng=`;
    /// `1`, inversion, unless a link says otherwise).
    pub rng: Samplers,
    /// Router delay (`rdelay`): extra cycles a header spends in each router it enters over a
    /// network channel before it can be routed (its pipeline: routing, VC and switch
    /// allocation). 0: routed in the cycle it arrives, as every link before this key.
    pub router_delay: u32,
    /// Link delay (`ldelay`): extra cycles every flit and every credit spends on a channel (a
    /// channel latency of 1 + ldelay cycles).
    pub link_delay: u32,
    /// Credit delay (`cdelay`): extra cycles before a credit sent back upstream can be used
    /// (its processing), on top of the link's.
    pub credit_delay: u32,
    /// `traffic=hotspot`: the hot nodes (`hot`); empty for seed 004's five around the centre.
    pub hot_nodes: Vec<u32>,
    /// `traffic=hotspot`: the fraction of messages sent to a hot node (`hotfrac`), or `None`
    /// (`auto`) for seed 004's: each hot node five times as likely as any other destination.
    pub hot_fraction: Option<f64>,
    /// `traffic=permutation`: the seed its permutation is drawn from (`pseed`), or `None`
    /// (`auto`) to draw it from `seed`, so that seeds replicate arrivals on one permutation.
    pub permutation_seed: Option<u64>,
    /// `traffic=matrix`: the CSV file of N × N weights (`matrix`), read by the command line when
    /// the scenario is parsed; empty otherwise.
    pub matrix: String,
    /// The weights read from `matrix`.
    #[serde(skip)]
    pub traffic_matrix: Option<std::sync::Arc<matrix::TrafficMatrix>>,
    /// When messages arrive at a node (Poisson unless a link says otherwise).
    pub inject: Injection,
}

/// Seed 004's hot spot: each hot node this many times as likely as any other destination
/// (`hotfrac=auto`).
pub const HOT_SPOT_FACTOR: f64 = 5.0;

/// The probability `p` of a hot destination that makes each of `hot` hot nodes among `nodes`
/// [`HOT_SPOT_FACTOR`] times as likely as any other destination, over a background that sends
/// one source to each node: `(1 − p) + p·N/h = 5` (above 1 where no `p` does).
pub fn hot_spot_probability(nodes: u32, hot: usize) -> f64 {
    let spread = nodes as f64 / hot as f64 - 1.0;
    if spread <= 0.0 {
        f64::INFINITY
    } else {
        (HOT_SPOT_FACTOR - 1.0) / spread
    }
}

/// `warmup=auto`, `cycles=auto`: the length is decided as the run goes.
pub const AUTO: u64 = u64::MAX;

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            k: 8,
            n: 2,
            routing: RoutingKind::Dor,
            switching: Switching::Wormhole,
            scout: 0,
            traffic: TrafficKind::Uniform,
            rate: 0.005,
            len: 16,
            vcs: RoutingKind::Dor.default_vcs(2),
            buf: 4,
            beta: 0.0,
            seed: 1,
            warmup: 10_000,
            cycles: 100_000,
            allow_unsafe: false,
            mq: 0,
            qcap: 1_000,
            failed_links: Vec::new(),
            failed_nodes: Vec::new(),
            random_faults: RandomFaults::Count(0),
            misroute: 0,
            ci: 0.02,
            router: RouterOrganisation::default(),
            lengths: Lengths::Fixed,
            rng: Samplers::Inversion,
            router_delay: 0,
            link_delay: 0,
            credit_delay: 0,
            hot_nodes: Vec::new(),
            hot_fraction: None,
            permutation_seed: None,
            matrix: String::new(),
            traffic_matrix: None,
            inject: Injection::Poisson,
        }
    }
}

/// A rejected scenario: which key, and why, in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The offending key (empty when the problem is not tied to one key).
    pub key: String,
    pub message: String,
}

impl ScenarioError {
    pub(crate) fn new(key: &str, message: impl Into<String>) -> Self {
        ScenarioError { key: key.to_string(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// The keys in canonical order.
pub const KEYS: &[&str] = &[
    "k", "n", "routing", "switching", "scout", "traffic", "rate", "len", "vcs", "buf", "beta",
    "seed", "warmup", "cycles", "unsafe", "mq", "qcap", "flinks", "fnodes", "frandom", "misroute",
    "ci", "router", "lengths", "rng", "rdelay", "ldelay", "cdelay", "hot", "hotfrac", "pseed", "matrix", "inject",
];

/// The key that gives the offered load in flits/node/cycle instead of `rate`'s
/// messages/node/cycle; not in [`KEYS`], as the canonical string spells `rate`.
pub const FLIT_RATE_KEY: &str = "frate";

/// Shows user text in an error on one short line, whatever it holds: at most 40 characters,
/// control characters escaped.
fn shown(text: &str) -> String {
    const SHOWN: usize = 40;
    let mut shown: String = text.chars().take(SHOWN).flat_map(char::escape_debug).collect();
    if text.chars().count() > SHOWN {
        shown.push('…');
    }
    shown
}

fn quoted(value: &str) -> String {
    format!("`{}`", shown(value))
}

/// Decodes `%XX` escapes (and `+` as a space, as in form encoding). Rejects malformed escapes
/// and escapes that do not form UTF-8.
fn percent_decode(key: &str, s: &str) -> Result<String, ScenarioError> {
    if !s.contains('%') && !s.contains('+') {
        return Ok(s.to_string());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => out.push(b),
                    None => return Err(ScenarioError::new(key, "malformed %-escape")),
                }
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| ScenarioError::new(key, "%-escapes that are not UTF-8"))
}

fn parse_int<T>(key: &str, value: &str, (lo, hi): (T, T)) -> Result<T, ScenarioError>
where
    T: std::str::FromStr + PartialOrd + fmt::Display + Copy,
{
    let range = || format!("must be an integer from {lo} to {hi}, got {}", quoted(value));
    let v: T = value.trim().parse().map_err(|_| ScenarioError::new(key, range()))?;
    if v < lo || v > hi {
        return Err(ScenarioError::new(key, range()));
    }
    Ok(v)
}

/// A run length: cycles within `range`, or `auto`.
fn parse_length(key: &str, value: &str, (lo, hi): (u64, u64)) -> Result<u64, ScenarioError> {
    if value.trim() == "auto" {
        return Ok(AUTO);
    }
    parse_int(key, value, (lo, hi))
        .map_err(|_| ScenarioError::new(key, format!("must be an integer from {lo} to {hi} or auto, got {}", quoted(value))))
}

/// A seed, or `random`: a fresh seed drawn now, which the canonical string then spells, so that
/// the run reproduces.
fn parse_seed(key: &str, value: &str) -> Result<u64, ScenarioError> {
    if value.trim() == "random" {
        return fresh_seed().map_err(|m| ScenarioError::new(key, m));
    }
    parse_int(key, value, (0, u64::MAX))
        .map_err(|_| ScenarioError::new(key, format!("must be an integer from 0 to {} or random, got {}", u64::MAX, quoted(value))))
}

fn parse_real(key: &str, value: &str, lo: f64, hi: f64, lo_open: bool) -> Result<f64, ScenarioError> {
    let open = if lo_open { "(" } else { "[" };
    let range = || format!("must be a number in {open}{lo}, {hi}], got {}", quoted(value));
    let v: f64 = value.trim().parse().map_err(|_| ScenarioError::new(key, range()))?;
    let above_lo = if lo_open { v > lo } else { v >= lo };
    if !v.is_finite() || !above_lo || v > hi {
        return Err(ScenarioError::new(key, range()));
    }
    Ok(v)
}

fn parse_enum<T>(key: &str, value: &str, from: fn(&str) -> Option<T>, allowed: String) -> Result<T, ScenarioError> {
    from(value.trim()).ok_or_else(|| ScenarioError::new(key, format!("must be one of {allowed}, got {}", quoted(value))))
}

impl Scenario {
    /// Parses and validates a scenario string. A leading `#` or `?` (from a URL) is ignored;
    /// keys not given take their defaults; `vcs` defaults to [`RoutingKind::default_vcs`].
    pub fn parse(input: &str) -> Result<Scenario, ScenarioError> {
        if input.len() > limits::MAX_INPUT_BYTES {
            return Err(ScenarioError::new(
                "",
                format!("scenario is {} bytes long; at most {} are accepted", input.len(), limits::MAX_INPUT_BYTES),
            ));
        }
        let body = input.trim();
        let body = body.strip_prefix('#').or_else(|| body.strip_prefix('?')).unwrap_or(body);
        let mut s = Scenario::default();
        let mut seen = [false; KEYS.len()];
        let (mut vcs_given, mut buf_given, mut mq_given, mut len_given) = (false, false, false, false);
        // Read once the router is known: its injection channels bound the rate.
        let mut rate_text = None;
        // `frate`: the offered load in flits/node/cycle (BookSim's injection_rate_uses_flits),
        // read as `rate` = frate / len once the mean length is known. It is input only: the
        // canonical string spells `rate`, so a link means what it meant.
        let mut frate_text: Option<String> = None;
        for pair in body.split('&') {
            if pair.trim().is_empty() {
                continue;
            }
            // An error about the key itself names the key as the user wrote it (shown, since
            // it may hold anything); every other error names a key of `KEYS`.
            let (raw_key, raw_value) = pair.split_once('=').ok_or_else(|| {
                ScenarioError::new(&shown(pair.trim()), format!("expected key=value, got {}", quoted(pair)))
            })?;
            let key = percent_decode(raw_key, raw_key).map_err(|e| ScenarioError::new(&shown(raw_key), e.message + " in the key"))?;
            let key = key.trim();
            if key.is_empty() {
                return Err(ScenarioError::new("", format!("empty key in {}", quoted(pair))));
            }
            if key == FLIT_RATE_KEY {
                if frate_text.is_some() {
                    return Err(ScenarioError::new(key, "given more than once"));
                }
                frate_text = Some(percent_decode(key, raw_value)?);
                continue;
            }
            let index = KEYS.iter().position(|k| *k == key).ok_or_else(|| {
                ScenarioError::new(&shown(key), format!("unknown key; the keys are {} (and {FLIT_RATE_KEY})", KEYS.join(", ")))
            })?;
            if seen[index] {
                return Err(ScenarioError::new(key, "given more than once"));
            }
            seen[index] = true;
            let value = percent_decode(key, raw_value)?;
            let v = value.as_str();
            match key {
                "k" => s.k = parse_int(key, v, limits::K)?,
                "n" => s.n = parse_int(key, v, limits::N)?,
                "routing" => s.routing = parse_enum(key, v, RoutingKind::from_name, RoutingKind::allowed())?,
                "switching" => s.switching = parse_enum(key, v, Switching::from_name, Switching::allowed())?,
                "scout" => s.scout = parse_int(key, v, limits::SCOUT)?,
                "traffic" => s.traffic = parse_enum(key, v, TrafficKind::from_name, TrafficKind::allowed())?,
                "rate" => rate_text = Some(value.clone()),
                "len" => {
                    s.len = parse_int(key, v, limits::LEN)?;
                    len_given = true;
                }
                "vcs" => {
                    s.vcs = parse_int(key, v, limits::VCS)?;
                    vcs_given = true;
                }
                "buf" => {
                    s.buf = parse_int(key, v, limits::BUF)?;
                    buf_given = true;
                }
                "beta" => s.beta = parse_real(key, v, 0.0, 1.0, false)?,
                "seed" => s.seed = parse_seed(key, v)?,
                "warmup" => s.warmup = parse_length(key, v, limits::WARMUP)?,
                "cycles" => s.cycles = parse_length(key, v, limits::CYCLES)?,
                "unsafe" => s.allow_unsafe = parse_int(key, v, (0u8, 1u8))? == 1,
                "mq" => {
                    s.mq = parse_int(key, v, limits::MQ)?;
                    mq_given = true;
                }
                "qcap" => s.qcap = parse_int(key, v, limits::QCAP)?,
                "flinks" => {
                    let link = |e: &str| Link::parse(e).ok_or_else(|| format!("{} is not a link: write a node and a dimension, as in 27x", quoted(e)));
                    s.failed_links = faults::parse_list(v, link).map_err(|m| ScenarioError::new(key, m))?;
                    s.failed_links.sort();
                }
                "fnodes" => {
                    let node = |e: &str| e.parse::<u32>().map_err(|_| format!("{} is not a node number", quoted(e)));
                    s.failed_nodes = faults::parse_list(v, node).map_err(|m| ScenarioError::new(key, m))?;
                    s.failed_nodes.sort();
                }
                "frandom" => {
                    s.random_faults = RandomFaults::parse(v).map_err(|m| ScenarioError::new(key, format!("{m}, got {}", quoted(v))))?
                }
                "misroute" => s.misroute = parse_int(key, v, limits::MISROUTE)?,
                "ci" => s.ci = parse_real(key, v, limits::CI.0, limits::CI.1, true)?,
                "router" => s.router = RouterOrganisation::from_name(v).map_err(|e| ScenarioError::new(key, e))?,
                "lengths" => s.lengths = Lengths::from_name(v).map_err(|e| ScenarioError::new(key, e))?,
                "rng" => s.rng = parse_enum(key, v, Samplers::from_name, Samplers::ALLOWED.to_string())?,
                "rdelay" => s.router_delay = parse_int(key, v, limits::DELAY)?,
                "ldelay" => s.link_delay = parse_int(key, v, limits::DELAY)?,
                "cdelay" => s.credit_delay = parse_int(key, v, limits::DELAY)?,
                "hot" => {
                    let node = |e: &str| e.parse::<u32>().map_err(|_| format!("{} is not a node number", quoted(e)));
                    s.hot_nodes = faults::parse_list(v, node).map_err(|m| ScenarioError::new(key, m))?;
                    if s.hot_nodes.len() > limits::HOT_NODES {
                        return Err(ScenarioError::new(key, format!("at most {} hot nodes, got {}", limits::HOT_NODES, s.hot_nodes.len())));
                    }
                    s.hot_nodes.sort();
                }
                "hotfrac" => {
                    s.hot_fraction = match v.trim() {
                        "auto" => None,
                        _ => Some(parse_real(key, v, 0.0, 1.0, false).map_err(|e| ScenarioError::new(key, e.message.replace(", got", " or auto, got")))?),
                    }
                }
                "matrix" => s.matrix = value.clone(),
                "pseed" => {
                    s.permutation_seed = match v.trim() {
                        "auto" => None,
                        _ => Some(parse_int(key, v, (0, u64::MAX)).map_err(|e| ScenarioError::new(key, e.message.replace(", got", " or auto, got")))?),
                    }
                }
                "inject" => s.inject = Injection::from_name(v).map_err(|e| ScenarioError::new(key, e))?,
                _ => unreachable!("every key in KEYS has a parser"),
            }
        }
        if let (Lengths::Uniform { lo, hi }, false) = (s.lengths, len_given) {
            // The range gives the mean; `len` need not repeat it.
            if (lo + hi) % 2 == 0 {
                s.len = (lo + hi) / 2;
            }
        }
        let injection_limit = s.router.injection_channels(s.n) as f64;
        match (rate_text, frate_text) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(FLIT_RATE_KEY, "and rate both set the offered load: give one of them"))
            }
            (Some(text), None) => s.rate = parse_real("rate", &text, 0.0, injection_limit, true)?,
            (None, Some(text)) => {
                let frate = parse_real(FLIT_RATE_KEY, &text, 0.0, injection_limit * s.len as f64, true)?;
                s.rate = (frate / s.len as f64).min(injection_limit);
                if s.rate <= 0.0 {
                    return Err(ScenarioError::new(FLIT_RATE_KEY, format!("{} is too small: frate / len is 0", quoted(&text))));
                }
            }
            (None, None) => {}
        }
        if !vcs_given {
            s.vcs = s.routing.default_vcs(s.n);
        }
        if s.routing == RoutingKind::Chaos {
            // Virtual cut-through needs a whole packet's room in every input buffer.
            if !buf_given {
                s.buf = s.buf.max(s.len);
            }
            if !mq_given {
                s.mq = s.default_mq();
            }
        }
        if s.traffic == TrafficKind::Matrix && !s.matrix.is_empty() && s.nodes() as u64 <= matrix::MAX_NODES as u64 {
            let matrix = matrix::TrafficMatrix::load(&s.matrix, s.nodes() as u32).map_err(|e| ScenarioError::new("matrix", e))?;
            s.traffic_matrix = Some(std::sync::Arc::new(matrix));
        }
        s.validate()?;
        Ok(s)
    }

    /// Checks the combinations that single keys cannot: size limits, the algorithm's VC
    /// requirement, and patterns that need a particular topology or algorithm.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let nodes = (self.k as u64).pow(self.n);
        if nodes > limits::MAX_NODES as u64 {
            return Err(ScenarioError::new(
                "k",
                format!("k^n = {}^{} = {nodes} nodes; at most {} are supported", self.k, self.n, limits::MAX_NODES),
            ));
        }
        let slots = nodes * 2 * self.n as u64 * self.vcs as u64 * self.buf as u64;
        if slots > limits::MAX_BUFFER_SLOTS {
            return Err(ScenarioError::new(
                "buf",
                format!(
                    "{nodes} nodes × {} channels × vcs={} × buf={} = {slots} flit buffers; at most {} are supported",
                    2 * self.n, self.vcs, self.buf, limits::MAX_BUFFER_SLOTS
                ),
            ));
        }
        if self.routing == RoutingKind::Nbc && self.k % 2 == 1 {
            return Err(ScenarioError::new(
                "k",
                format!(
                    "routing=nbc needs an even k: its negative-hop escape layer colours nodes by the \
                     parity of their coordinate sum, which neighbours differ in only when k is even; got k = {}",
                    self.k
                ),
            ));
        }
        let injection = self.router.injection_channels(self.n);
        if self.rate > injection as f64 {
            return Err(ScenarioError::new(
                "rate",
                format!("must be a number in (0, {injection}] (one message per injection channel), got `{}`", self.rate),
            ));
        }
        if let Some(chance) = self.inject.peak_chance(self.rate).filter(|&p| p > 1.0) {
            let fix = match self.inject {
                Injection::Bernoulli => "lower the rate to at most 1".to_string(),
                _ => "lower the rate, lengthen the bursts or shorten the silences".to_string(),
            };
            return Err(ScenarioError::new(
                "inject",
                format!("{} at rate {} needs a message in a cycle with probability {chance}, above 1: {fix}", self.inject, self.rate),
            ));
        }
        match self.lengths {
            Lengths::Fixed => {}
            Lengths::Uniform { lo, hi } if lo + hi != 2 * self.len => {
                let mean = (lo + hi) as f64 / 2.0;
                return Err(ScenarioError::new(
                    "lengths",
                    if (lo + hi) % 2 == 1 {
                        format!("uniform:{lo}-{hi} has mean {mean}, not a whole number of flits; len, the mean, must be one")
                    } else {
                        format!("uniform:{lo}-{hi} has mean {mean}, but len, the mean message length, is {}; leave len out or make them agree", self.len)
                    },
                ));
            }
            _ if self.routing == RoutingKind::Chaos => {
                return Err(ScenarioError::new(
                    "lengths",
                    "routing=chaos sizes its buffers to a packet (virtual cut-through): it needs lengths=fixed",
                ));
            }
            _ if self.switching != Switching::Wormhole => {
                return Err(ScenarioError::new("lengths", "scouting switching (a probe lead shorter than every message) needs lengths=fixed"));
            }
            _ if self.beta > 0.0 => {
                return Err(ScenarioError::new("lengths", "broadcasts (beta > 0) need lengths=fixed"));
            }
            _ if self.has_faults() || self.misroute > 0 => {
                return Err(ScenarioError::new("lengths", "faults (flinks, fnodes, frandom, misroute) need lengths=fixed"));
            }
            _ => {}
        }
        if !self.router.is_iq() {
            if self.routing == RoutingKind::Chaos {
                return Err(ScenarioError::new(
                    "router",
                    format!("routing=chaos has a router of its own (one buffer per port, a shared queue, deflection): router must be iq, got {}", self.router),
                ));
            }
            if self.switching != Switching::Wormhole {
                return Err(ScenarioError::new("router", format!("router={} needs switching=wormhole", self.router)));
            }
            // Faults and misrouting run in the input-queued router's own phases only.
            if self.has_faults() || self.misroute > 0 {
                return Err(ScenarioError::new("router", format!("router={} needs a network without faults (flinks, fnodes, frandom, misroute)", self.router)));
            }
            if self.router.voq && !self.router.wide {
                return Err(ScenarioError::new("router", "voq splits the source queue among the injection channels of wide: it needs wide"));
            }
            if self.router.maxmatch && self.router.damq {
                return Err(ScenarioError::new(
                    "router",
                    "maxmatch matches one request per VC, damq offers several: they cannot be combined",
                ));
            }
        }
        self.validate_delays()?;
        let min = self.min_vcs();
        if self.vcs < min && !self.allow_unsafe {
            let why = match self.routing {
                RoutingKind::Nbc => format!(
                    " on a {}-ary {}-cube ({} negative-hop escape levels, one more than the most negative \
                     hops a route takes, and at least one adaptive VC)",
                    self.k,
                    self.n,
                    crate::routing::nbc::escape_levels(self.k, self.n)
                ),
                _ => String::new(),
            };
            return Err(ScenarioError::new(
                "vcs",
                format!(
                    "routing={} needs at least {min} virtual channels for deadlock freedom{why}, got {}; \
                     add unsafe=1 to allow deadlock",
                    self.routing, self.vcs
                ),
            ));
        }
        if self.routing == RoutingKind::Chaos {
            if self.vcs != 1 {
                return Err(ScenarioError::new(
                    "vcs",
                    format!("routing=chaos has one buffer per input port and no virtual channels: vcs must be 1, got {}", self.vcs),
                ));
            }
            if self.buf < self.len {
                return Err(ScenarioError::new(
                    "buf",
                    format!(
                        "routing=chaos uses virtual cut-through, so an input buffer must hold a whole packet: \
                         buf must be at least len = {}, got {}",
                        self.len, self.buf
                    ),
                ));
            }
            if self.mq == 0 {
                return Err(ScenarioError::new(
                    "mq",
                    format!("routing=chaos needs a shared queue of 1 to {} packets, got 0", limits::MQ.1),
                ));
            }
        } else if self.mq != 0 {
            return Err(ScenarioError::new(
                "mq",
                format!("the shared queue belongs to routing=chaos; routing={} needs mq=0, got {}", self.routing, self.mq),
            ));
        }
        if self.switching == Switching::Wormhole && self.scout != 0 {
            return Err(ScenarioError::new("scout", "a probe lead K > 0 needs switching=scouting"));
        }
        if self.scout >= self.len && self.scout > 0 {
            return Err(ScenarioError::new(
                "scout",
                format!("probe lead K = {} must be smaller than the message length len = {}", self.scout, self.len),
            ));
        }
        match self.traffic {
            TrafficKind::Transpose if self.n != 2 => {
                return Err(ScenarioError::new("traffic", "transpose needs n = 2"));
            }
            TrafficKind::Worstcase if !self.routing.is_oblivious() => {
                return Err(ScenarioError::new(
                    "traffic",
                    format!(
                        "worstcase is defined for oblivious routing (dor, val, romm, rlb), not routing={}",
                        self.routing
                    ),
                ));
            }
            TrafficKind::Hotspot if nodes < 25 && self.hot_nodes.is_empty() => {
                return Err(ScenarioError::new(
                    "traffic",
                    format!("hotspot needs at least 25 nodes for five hot nodes five times as likely, got {nodes}; or list the hot nodes with hot="),
                ));
            }
            TrafficKind::Bitrev | TrafficKind::Shuffle if !self.k.is_power_of_two() => {
                return Err(ScenarioError::new(
                    "traffic",
                    format!(
                        "{} is defined on the bits of the node number, so k must be a power of two (k^n = 2^b nodes), got k = {}",
                        self.traffic, self.k
                    ),
                ));
            }
            _ => {}
        }
        self.validate_traffic_options(nodes)?;
        self.validate_faults(nodes)
    }

    /// `hot`, `hotfrac` and `pseed`: nodes that exist, a hot-spot fraction that is a
    /// probability, and each only with the pattern it belongs to.
    fn validate_traffic_options(&self, nodes: u64) -> Result<(), ScenarioError> {
        let hotspot = self.traffic == TrafficKind::Hotspot;
        if !hotspot && (!self.hot_nodes.is_empty() || self.hot_fraction.is_some()) {
            let key = if self.hot_nodes.is_empty() { "hotfrac" } else { "hot" };
            return Err(ScenarioError::new(key, format!("belongs to traffic=hotspot, not traffic={}; leave it out or set it to its default", self.traffic)));
        }
        if self.traffic == TrafficKind::Matrix {
            if self.matrix.is_empty() {
                return Err(ScenarioError::new("traffic", "matrix needs matrix=FILE, a CSV file of N × N weights (row s: the weights of the destinations of node s), which the torus command line reads; the page cannot read files"));
            }
            if nodes > matrix::MAX_NODES as u64 {
                return Err(ScenarioError::new("matrix", format!("a traffic matrix has at most {} nodes, the torus has {nodes}", matrix::MAX_NODES)));
            }
            if self.traffic_matrix.is_none() {
                return Err(ScenarioError::new("matrix", "the weights were not read: parse the scenario from its string"));
            }
        } else if !self.matrix.is_empty() {
            return Err(ScenarioError::new("matrix", format!("belongs to traffic=matrix, not traffic={}; leave it out", self.traffic)));
        }
        if self.traffic != TrafficKind::Permutation && self.permutation_seed.is_some() {
            return Err(ScenarioError::new("pseed", format!("draws traffic=permutation's permutation, not traffic={}; use pseed=auto", self.traffic)));
        }
        if let Some(&u) = self.hot_nodes.iter().find(|&&u| u as u64 >= nodes) {
            return Err(ScenarioError::new("hot", format!("node {u} is not in the {}-ary {}-cube (nodes 0 to {})", self.k, self.n, nodes - 1)));
        }
        if let Some(w) = self.hot_nodes.windows(2).find(|w| w[0] == w[1]) {
            return Err(ScenarioError::new("hot", format!("node {} is listed twice", w[0])));
        }
        if hotspot && !self.hot_nodes.is_empty() && self.hot_fraction.is_none() {
            let p = hot_spot_probability(nodes as u32, self.hot_nodes.len());
            if p > 1.0 {
                return Err(ScenarioError::new(
                    "hot",
                    format!(
                        "{} hot nodes of {nodes} cannot each be five times as likely as any other destination; list at most {} or set hotfrac",
                        self.hot_nodes.len(),
                        nodes / 5
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The delays are simulated on the input-queued wormhole router with fixed-length messages
    /// and no faults.
    fn validate_delays(&self) -> Result<(), ScenarioError> {
        if !self.has_delays() {
            return Ok(());
        }
        let needs = |what: String| Err(ScenarioError::new(self.delay_key(), format!("router, link and credit delays (rdelay, ldelay, cdelay) need {what}")));
        if self.routing == RoutingKind::Chaos {
            return needs("a virtual-channel router: routing=chaos has a router of its own".into());
        }
        if self.switching != Switching::Wormhole {
            return needs("switching=wormhole".into());
        }
        if !self.router.is_iq() {
            return needs(format!("router=iq, got router={}", self.router));
        }
        if !self.lengths.is_fixed() {
            return needs(format!("lengths=fixed, got lengths={}", self.lengths));
        }
        if self.has_faults() || self.misroute > 0 {
            return needs("a network without faults (flinks, fnodes, frandom)".into());
        }
        Ok(())
    }

    /// The first delay key set, to name in an error.
    fn delay_key(&self) -> &'static str {
        if self.router_delay > 0 {
            "rdelay"
        } else if self.link_delay > 0 {
            "ldelay"
        } else {
            "cdelay"
        }
    }

    /// Whether any router, link or credit delay is set.
    pub fn has_delays(&self) -> bool {
        self.router_delay + self.link_delay + self.credit_delay > 0
    }

    /// Cycles a header spends per hop on an idle network: crossing the channel (1 + `ldelay`)
    /// and waiting out the router delay at the far end (`rdelay`). Zero-load latency is
    /// M + H · this, when the buffers cover the credit round trip ([`Self::credit_round_trip`]).
    pub fn hop_cycles(&self) -> u32 {
        1 + self.link_delay + self.router_delay
    }

    /// Cycles from a flit leaving a buffer slot until the flit sent into that slot on the
    /// returned credit can leave it in turn: the credit's way back (1 + `ldelay` + `cdelay`)
    /// and the flit's way forward (1 + `ldelay`). A VC streams a flit a cycle only when its
    /// buffer holds at least this many flits; a smaller one works at lower throughput
    /// (buf flits per round trip).
    pub fn credit_round_trip(&self) -> u32 {
        2 + 2 * self.link_delay + self.credit_delay
    }

    /// The fault keys: nodes and dimensions that exist, nothing listed twice, two nodes left,
    /// no broadcasts, misrouting only under scouting, and no more random faults than links.
    fn validate_faults(&self, nodes: u64) -> Result<(), ScenarioError> {
        let torus_name = format!("the {}-ary {}-cube (nodes 0 to {})", self.k, self.n, nodes - 1);
        for l in &self.failed_links {
            if l.node as u64 >= nodes {
                return Err(ScenarioError::new("flinks", format!("link {l}: node {} is not in {torus_name}", l.node)));
            }
            if l.dim >= self.n {
                return Err(ScenarioError::new("flinks", format!("link {l}: the torus has {} dimension(s) (n = {})", self.n, self.n)));
            }
        }
        if let Some(w) = self.failed_links.windows(2).find(|w| w[0] == w[1]) {
            return Err(ScenarioError::new("flinks", format!("link {} is listed twice", w[0])));
        }
        if let Some(&u) = self.failed_nodes.iter().find(|&&u| u as u64 >= nodes) {
            return Err(ScenarioError::new("fnodes", format!("node {u} is not in {torus_name}")));
        }
        if let Some(w) = self.failed_nodes.windows(2).find(|w| w[0] == w[1]) {
            return Err(ScenarioError::new("fnodes", format!("node {} is listed twice", w[0])));
        }
        if nodes - (self.failed_nodes.len() as u64) < 2 {
            return Err(ScenarioError::new("fnodes", format!("at least two of the {nodes} nodes must survive")));
        }
        if self.misroute > 0 && self.switching != Switching::Scouting {
            return Err(ScenarioError::new(
                "misroute",
                "misrouting round faults belongs to scouting switching: add switching=scouting, or set misroute=0",
            ));
        }
        if !self.has_faults() {
            return Ok(());
        }
        if self.beta > 0.0 {
            return Err(ScenarioError::new(
                "beta",
                "broadcasts are not simulated with faults (flinks, fnodes, frandom): a broadcast's spanning tree has no way round a failed link",
            ));
        }
        self.faults().map(|_| ())
    }

    /// The links and nodes that have failed, or `None` when none has. Errors name `frandom`
    /// when it asks for more links than are still working.
    pub fn faults(&self) -> Result<Option<faults::Faults>, ScenarioError> {
        let t = crate::topology::Torus::new(self.k, self.n);
        faults::Faults::new(&t, &self.failed_links, &self.failed_nodes, self.random_faults, self.seed).map_err(|m| ScenarioError::new("frandom", m))
    }

    /// Whether any link or node has failed (`flinks`, `fnodes`, `frandom`).
    pub fn has_faults(&self) -> bool {
        let links = faults::link_count(self.nodes() as u32, self.n);
        !self.failed_links.is_empty() || !self.failed_nodes.is_empty() || self.random_faults.count(links) > 0
    }

    /// Fewest virtual channels the routing algorithm needs on this torus.
    pub fn min_vcs(&self) -> u32 {
        match self.routing {
            RoutingKind::Nbc => crate::routing::nbc::escape_levels(self.k, self.n) + 1,
            other => other.min_vcs(self.n),
        }
    }

    /// The shared queue `routing=chaos` gets when the scenario does not set `mq`: seed 004 holds
    /// the buffering per physical channel constant and gives CHAOS, which has no VCs, a larger
    /// shared queue instead (§5.1). Against the 3-VC minimal adaptive routers it is compared
    /// with (MIN AD, GOAL), chaos keeps one VC's buffer per input port and the queue takes the
    /// other two: 2 · 2n · buf flits, as packets of `len` flits, within [`limits::MQ`]. The
    /// paper's 8-flit VCs and one-flit packets on a 2-cube give 64 packets.
    pub fn default_mq(&self) -> u32 {
        (4 * self.n * self.buf / self.len).clamp(1, limits::MQ.1)
    }

    /// Messages each source queue holds at most in a run: `qcap`, or fewer on a network so large
    /// that all queues together would pass [`limits::TOTAL_QUEUED`].
    pub fn source_queue_cap(&self) -> usize {
        (self.qcap as u64).min(limits::TOTAL_QUEUED / self.nodes() as u64).max(1) as usize
    }

    /// Number of nodes, k^n.
    pub fn nodes(&self) -> usize {
        (self.k as usize).pow(self.n)
    }

    /// Every key, in canonical order, explicitly (so a link does not depend on defaults).
    pub fn canonical(&self) -> String {
        format!(
            "k={}&n={}&routing={}&switching={}&scout={}&traffic={}&rate={}&len={}&vcs={}&buf={}\
             &beta={}&seed={}&warmup={}&cycles={}&unsafe={}&mq={}&qcap={}&flinks={}&fnodes={}&frandom={}&misroute={}&ci={}&router={}&lengths={}&rng={}&rdelay={}&ldelay={}&cdelay={}&hot={}&hotfrac={}&pseed={}&matrix={}&inject={}",
            self.k,
            self.n,
            self.routing,
            self.switching,
            self.scout,
            self.traffic,
            self.rate,
            self.len,
            self.vcs,
            self.buf,
            self.beta,
            self.seed,
            length(self.warmup),
            length(self.cycles),
            self.allow_unsafe as u8,
            self.mq,
            self.qcap,
            joined(&self.failed_links),
            joined(&self.failed_nodes),
            self.random_faults,
            self.misroute,
            self.ci,
            self.router,
            self.lengths,
            self.rng,
            self.router_delay,
            self.link_delay,
            self.credit_delay,
            joined(&self.hot_nodes),
            self.hot_fraction.map_or("auto".to_string(), |f| f.to_string()),
            self.permutation_seed.map_or("auto".to_string(), |p| p.to_string()),
            escaped(&self.matrix),
            self.inject
        )
    }

    /// `warmup=auto`: the warm-up ends when the transient is over.
    pub fn warmup_auto(&self) -> bool {
        self.warmup == AUTO
    }

    /// `cycles=auto`: the window ends when the latency's interval is narrow enough.
    pub fn cycles_auto(&self) -> bool {
        self.cycles == AUTO
    }

    /// What the command line warns about: settings that run, but measure something other than
    /// a reader is likely to think. One line each.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.has_delays() && self.buf < self.credit_round_trip() {
            warnings.push(format!(
                "buf={} is shorter than the credit round trip of {} cycles (2 + 2·ldelay + cdelay): each VC carries at most \
                 {}/{} flits per cycle, and even an idle network's latency is above M + H·(1 + ldelay + rdelay)",
                self.buf,
                self.credit_round_trip(),
                self.buf,
                self.credit_round_trip()
            ));
        }
        if self.warmup == 0 {
            warnings.push(
                "warmup=0: the window starts on an empty network, so the first messages see no contention and the \
                 measured latency is too low; warmup=auto chooses a warm-up"
                    .to_string(),
            );
        }
        warnings
    }

    /// Offered load in flits per node per cycle, λM.
    pub fn offered_flits(&self) -> f64 {
        self.rate * self.len as f64
    }

    /// Capacity of the k-ary n-cube under uniform traffic: the 2k^(n-1) channels crossing the
    /// bisection in each direction carry Nλ/4 flits, so λ_max = 8/k flits/node/cycle for any n.
    pub fn capacity_flits(&self) -> f64 {
        8.0 / self.k as f64
    }
}

/// A list in ascending order, comma-separated.
fn joined<T: Ord + fmt::Display + Clone>(items: &[T]) -> String {
    let mut sorted = items.to_vec();
    sorted.sort();
    sorted.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

/// A value as the canonical form spells it: the characters the parser reads as separators or
/// escapes (and spaces, which `+` stands for) %-escaped, so that it parses back unchanged.
fn escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '%' | '&' | '+' | '#' | '?' | '=' => out.push_str(&format!("%{:02X}", c as u32)),
            c if c.is_whitespace() || c.is_control() => {
                let mut bytes = [0; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A run length as the canonical form spells it.
fn length(cycles: u64) -> String {
    if cycles == AUTO {
        "auto".to_string()
    } else {
        cycles.to_string()
    }
}

impl std::str::FromStr for Scenario {
    type Err = ScenarioError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scenario::parse(s)
    }
}
