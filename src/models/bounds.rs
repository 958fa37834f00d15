//! Seed 004's channel-load throughput bounds (Singh, Dally, Gupta, Towles: GOAL), as specified in
//! `models/bounds.md`.
//!
//! At one packet per node per cycle a routing puts an expected γ_c packets/cycle on channel c.
//! The busiest channel saturates first, so the saturation throughput, as a fraction of the
//! capacity k/8 packets/cycle per channel, is Θ = (k/8)/max_c γ_c (bounds.md §1).
//!
//! - Oblivious routings (DOR, VAL, ROMM, RLB): γ_c exactly ([`channel_loads`], §3, §4.1), and the
//!   worst-case permutation ([`worst_case_permutation`], §4.2).
//! - GOAL and minimal adaptive routings (MIN AD, Duato, NBC, the seed 002 adaptive routing): the
//!   ideal balance, the least max_c γ_c of any routing of the family, which bounds their
//!   throughput from above (§4.3). Exact for translation-invariant patterns; otherwise a ring-cut
//!   bound and a Frank–Wolfe bracket.
//! - CHAOS misroutes by deflection, so no channel-load bound is proven for it. [`bound`] shows
//!   the MIN bound as a reference, labelled [`BoundKind::MinimalReference`]: seed 004 §6 reports
//!   that CHAOS "closely matches" MIN AD on adversarial patterns (0.35 against MIN's 1/3 on
//!   tornado, so it can exceed the reference slightly).
//!
//! Every value here is for k-ary n-cubes with n = 1, 2 or 3 and any k ≥ 2, even or odd.

mod ideal;
mod lattice;
mod matching;
mod oblivious;

pub use ideal::Family;
pub use lattice::TieRule;
pub use oblivious::{Oblivious, ENUMERATION_BUDGET};

use crate::scenario::{RoutingKind, Scenario, ScenarioError};
use crate::topology::{Node, Torus};
use crate::traffic::Pattern;
use lattice::{invariant_offsets, Lattice};
use serde::Serialize;

/// Largest torus, in nodes, for which [`worst_case_permutation`] runs its 2n Hungarian
/// matchings of N × N (O(N³) each: about a quarter of a second at 256 nodes).
pub const WORST_CASE_MAX_NODES: u32 = 256;

/// Most Frank–Wolfe work [`bound`] spends on a non-invariant pattern, in grid cells searched
/// (about a second). Below [`MIN_FRANK_WOLFE_ROUNDS`] affordable rounds only the cut bound is given.
pub const FRANK_WOLFE_BUDGET: f64 = 1.5e8;
/// Rounds the reference bracket of bounds.md §4.3 used; [`bound`] never runs more.
pub const MAX_FRANK_WOLFE_ROUNDS: usize = 1500;
pub const MIN_FRANK_WOLFE_ROUNDS: usize = 50;

/// What the numbers of a [`Bound`] are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundKind {
    /// Exact expected loads of an oblivious routing (bounds.md §4.1).
    Exact,
    /// The ideal-balance value z* itself (§4.3): the closed form on translation-invariant
    /// patterns, or a cut bound that a Frank–Wolfe routing matches within 0.1 %.
    IdealBalance,
    /// z* lies in [`Bound::gamma_bracket`]; Θ is computed from its lower end, so it is still an
    /// upper bound on the family's throughput.
    Bracket,
    /// Only the ring-cut lower bound on z* (Frank–Wolfe too costly at this size).
    CutBound,
    /// The MIN bound shown for CHAOS, which is not minimal: a reference, not a proven bound.
    MinimalReference,
    /// Nothing could be computed; [`Bound::note`] says why.
    Unavailable,
}

/// Seed 004's throughput bound for one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bound {
    pub kind: BoundKind,
    /// Whose loads these are: `"dor"`, `"val"`, `"romm"`, `"rlb"`, `"goal"` (GOAL ideal balance)
    /// or `"min"` (minimal ideal balance).
    pub model: &'static str,
    /// Θ = (k/8)/γ_max (bounds.md §1); an upper bound on throughput for the ideal-balance kinds.
    pub fraction_of_capacity: Option<f64>,
    /// max_c γ_c, packets/cycle on the busiest channel at 1 packet/node/cycle.
    pub gamma_max: Option<f64>,
    /// λ_sat = 1/(M γ_max) messages/node/cycle for the scenario's message length M.
    pub saturation_rate: Option<f64>,
    /// For [`BoundKind::Bracket`], and [`BoundKind::IdealBalance`] from Frank–Wolfe: the range
    /// [lower, upper] known to hold z* = min max_c γ_c.
    pub gamma_bracket: Option<[f64; 2]>,
    /// Provenance and caveats in one or two sentences.
    pub note: String,
    /// γ_c by channel id (`topology`: node · 2n + port), for drawing: the exact loads, the
    /// balanced loads of the ideal routing, or the best Frank–Wolfe routing. Empty when none.
    #[serde(skip)]
    pub loads: Vec<f64>,
}

impl Bound {
    fn from_loads(s: &Scenario, kind: BoundKind, model: &'static str, loads: Vec<f64>, note: String) -> Bound {
        let gamma_max = loads.iter().cloned().fold(0.0, f64::max);
        let mut b = Bound::from_gamma(s, kind, model, gamma_max, note);
        b.loads = loads;
        b
    }

    fn from_gamma(s: &Scenario, kind: BoundKind, model: &'static str, gamma_max: f64, note: String) -> Bound {
        Bound {
            kind,
            model,
            fraction_of_capacity: Some(fraction_of_capacity(s.k, gamma_max)),
            gamma_max: Some(gamma_max),
            saturation_rate: Some(1.0 / (s.len as f64 * gamma_max)),
            gamma_bracket: None,
            note,
            loads: Vec::new(),
        }
    }

    fn unavailable(model: &'static str, note: String) -> Bound {
        Bound {
            kind: BoundKind::Unavailable,
            model,
            fraction_of_capacity: None,
            gamma_max: None,
            saturation_rate: None,
            gamma_bracket: None,
            note,
            loads: Vec::new(),
        }
    }
}

/// Θ = (k/8)/γ_max (bounds.md §1). A γ_max of 0 (nothing moves) gives infinity.
pub fn fraction_of_capacity(k: u32, gamma_max: f64) -> f64 {
    k as f64 / 8.0 / gamma_max
}

/// γ_c of an oblivious routing at 1 packet/node/cycle, by channel id (bounds.md §3, §4.1).
/// Errors for adaptive routings, and when exact enumeration would exceed [`ENUMERATION_BUDGET`]
/// (only for patterns that are not translation-invariant, on large tori).
pub fn channel_loads(torus: &Torus, routing: RoutingKind, pattern: &Pattern) -> Result<Vec<f64>, String> {
    let oblivious = Oblivious::of(routing)
        .ok_or_else(|| format!("routing={routing} is adaptive: its loads depend on the network state, see bound()"))?;
    oblivious::pattern_loads(torus, oblivious, pattern)
}

/// As [`channel_loads`], for any [`Oblivious`] variant (DOR+ included).
pub fn oblivious_channel_loads(torus: &Torus, routing: Oblivious, pattern: &Pattern) -> Result<Vec<f64>, String> {
    oblivious::pattern_loads(torus, routing, pattern)
}

/// The ideal balance of `family` on `pattern` (bounds.md §4.3), with at most `max_rounds`
/// Frank–Wolfe rounds (fewer if [`FRANK_WOLFE_BUDGET`] says so).
pub fn ideal_balance(s: &Scenario, torus: &Torus, pattern: &Pattern, family: Family, max_rounds: usize) -> Bound {
    let lat = Lattice::new(torus);
    let model = match family {
        Family::Goal => "goal",
        Family::Minimal => "min",
    };
    if let Some(offsets) = invariant_offsets(&lat, torus, pattern) {
        let loads = lat.class_loads(&offsets, family.invariant_rule());
        let note = "ideal balance, closed form for a translation-invariant pattern (bounds.md §4.3)".to_string();
        return Bound::from_loads(s, BoundKind::IdealBalance, model, loads, note);
    }
    let flows = ideal::flows(&lat, torus, pattern, family);
    let cut = ideal::cut_bound(&lat, &flows);
    let per_round = ideal::round_cost(&lat, &flows).max(1.0);
    let rounds = max_rounds.min((FRANK_WOLFE_BUDGET / per_round) as usize);
    if rounds < MIN_FRANK_WOLFE_ROUNDS.min(max_rounds) {
        let note = format!("ring-cut bound only: {rounds} Frank–Wolfe rounds fit the budget at this size (bounds.md §4.3)");
        return Bound::from_gamma(s, BoundKind::CutBound, model, cut, note);
    }
    let bracket = ideal::frank_wolfe(&lat, &flows, rounds);
    let lower = cut.max(bracket.lower);
    let converged = bracket.upper - lower <= 1e-3 * bracket.upper;
    let kind = if converged { BoundKind::IdealBalance } else { BoundKind::Bracket };
    let note = format!(
        "ideal balance in [{lower:.4}, {:.4}] (ring cut {cut:.4}, Frank–Wolfe {rounds} rounds; bounds.md §4.3); \
         Θ is taken from the lower end",
        bracket.upper
    );
    let mut b = Bound::from_gamma(s, kind, model, lower, note);
    b.gamma_bracket = Some([lower, bracket.upper]);
    b.loads = bracket.loads;
    b
}

/// Seed 004's bound for a scenario: exact for the oblivious routings, the GOAL ideal balance for
/// `goal`, the minimal ideal balance for `minad`, `duato`, `nbc` and `adaptive`, and that same
/// MIN bound as a labelled reference for `chaos` (see the module documentation).
pub fn bound(s: &Scenario) -> Bound {
    let torus = Torus::new(s.k, s.n);
    let model = match s.routing {
        RoutingKind::Dor => "dor",
        RoutingKind::Val => "val",
        RoutingKind::Romm => "romm",
        RoutingKind::Rlb => "rlb",
        RoutingKind::Goal => "goal",
        RoutingKind::Duato | RoutingKind::Nbc | RoutingKind::Adaptive | RoutingKind::Minad | RoutingKind::Chaos => "min",
    };
    let pattern = match Pattern::new(s, &torus) {
        Ok(p) => p,
        Err(e) => return Bound::unavailable(model, e.to_string()),
    };
    if let Some(routing) = Oblivious::of(s.routing) {
        return match oblivious::pattern_loads(&torus, routing, &pattern) {
            Ok(loads) => {
                let note = format!("exact expected loads of {} (bounds.md §4.1)", s.routing);
                Bound::from_loads(s, BoundKind::Exact, model, loads, note)
            }
            Err(e) => Bound::unavailable(model, e),
        };
    }
    let family = if s.routing == RoutingKind::Goal { Family::Goal } else { Family::Minimal };
    let mut b = ideal_balance(s, &torus, &pattern, family, MAX_FRANK_WOLFE_ROUNDS);
    if s.routing == RoutingKind::Chaos {
        b.kind = BoundKind::MinimalReference;
        b.note = format!(
            "CHAOS is not minimal, so no bound is proven; this is the MIN bound for reference \
             (seed 004 finds CHAOS close to MIN AD on adversarial traffic). {}",
            b.note
        );
    }
    b
}

/// The permutation (destination per source) that loads one channel most under an oblivious
/// `routing` (bounds.md §1, §4.2, Towles–Dally). For each of node 0's 2n channels c — enough by
/// translation invariance — a maximum-weight perfect matching with weights
/// w_c(s, d) = K_{d−s}(c − s) picks the permutation; the heaviest of the 2n wins.
pub fn worst_case_permutation(torus: &Torus, routing: RoutingKind) -> Result<Vec<Node>, ScenarioError> {
    let error = |message: String| ScenarioError { key: "traffic".into(), message };
    let oblivious = Oblivious::of(routing).ok_or_else(|| {
        error(format!(
            "traffic=worstcase needs an oblivious routing (dor, val, romm, rlb); no analytical worst case is \
             known for routing={routing}"
        ))
    })?;
    if torus.nodes() > WORST_CASE_MAX_NODES {
        return Err(error(format!(
            "traffic=worstcase is computed for at most {WORST_CASE_MAX_NODES} nodes (k^n); this torus has {}",
            torus.nodes()
        )));
    }
    Ok(worst_case(torus, oblivious).0)
}

/// The worst-case permutation of [`worst_case_permutation`] and the load it puts on its channel.
pub fn worst_case(torus: &Torus, routing: Oblivious) -> (Vec<Node>, f64) {
    let lat = Lattice::new(torus);
    let kernels = oblivious::unit_flow_kernels(torus, routing);
    let mut best = (Vec::new(), f64::NEG_INFINITY);
    for port in 0..2 * lat.n {
        let weight: Vec<Vec<f64>> = (0..lat.nodes)
            .map(|s| {
                let channel = lat.minus(0, s) as usize * 2 * lat.n + port;
                (0..lat.nodes).map(|d| kernels[lat.minus(d, s) as usize][channel]).collect()
            })
            .collect();
        let (assignment, load) = matching::max_weight_matching(&weight);
        if load > best.1 {
            best = (assignment.into_iter().map(|d| d as Node).collect(), load);
        }
    }
    best
}

#[cfg(test)]
mod scratch {
    use super::*;
    use crate::scenario::TrafficKind;
    #[test]
    fn print_table() {
        for k in [8u32, 16] {
            for routing in [RoutingKind::Dor, RoutingKind::Val, RoutingKind::Romm, RoutingKind::Rlb, RoutingKind::Goal, RoutingKind::Minad] {
                let mut line = format!("k={k} {routing:6}");
                for traffic in [TrafficKind::Uniform, TrafficKind::Neighbor, TrafficKind::Bitcomp, TrafficKind::Transpose, TrafficKind::Tornado, TrafficKind::Diagonal, TrafficKind::Worstcase] {
                    let s = Scenario { k, routing, traffic, len: 32, ..Scenario::default() };
                    let t = std::time::Instant::now();
                    let b = bound(&s);
                    line += &format!(" {:?}/{:?}({:?},{:.2}s)", b.fraction_of_capacity.map(|x| (x*1e4).round()/1e4), b.gamma_max.map(|x| (x*1e6).round()/1e6), b.kind, t.elapsed().as_secs_f64());
                }
                println!("{line}");
            }
        }
    }
}
