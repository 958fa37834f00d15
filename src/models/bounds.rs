//! Seed 004's channel-load throughput bounds (Singh, Dally, Gupta, Towles: GOAL), as described in
//! `docs/models/bounds.md`; section numbers (§) in this module and its submodules are that
//! page's.
//!
//! At one packet per node per cycle a routing puts an expected γ_c packets/cycle on channel c.
//! The busiest channel saturates first, so the saturation throughput, as a fraction of the
//! capacity k/8 packets/cycle per channel, is Θ = (k/8)/max_c γ_c (§1).
//!
//! - Oblivious routings (DOR, VAL, ROMM, RLB): γ_c exactly ([`channel_loads`], §3, §4.1), and the
//!   worst-case permutation (`traffic=worstcase`, [`crate::traffic::worst_case_permutation`], §4.2).
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

pub use crate::traffic::lattice::TieRule;
pub use crate::traffic::oblivious::{Oblivious, ENUMERATION_BUDGET};
pub use ideal::Family;

use crate::scenario::{RoutingKind, Scenario};
use crate::topology::Torus;
use crate::traffic::lattice::{invariant_offsets, Lattice};
use crate::traffic::{oblivious, Pattern};
use serde::Serialize;

/// Most Frank–Wolfe work [`bound`] spends on a pattern that is not translation-invariant, in
/// grid cells searched (well under a second natively).
pub const FRANK_WOLFE_BUDGET: f64 = 3e7;
/// Rounds the reference bracket of §4.3 used; [`bound`] never runs more.
pub const MAX_FRANK_WOLFE_ROUNDS: usize = 1500;
/// Fewest rounds worth running: when the budget affords fewer, only the cut bound is given.
pub const MIN_FRANK_WOLFE_ROUNDS: usize = 50;
/// Relative width of the bracket under which z* counts as found ([`BoundKind::IdealBalance`]).
pub const CONVERGED: f64 = 5e-3;

/// What the numbers of a [`Bound`] are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundKind {
    /// Exact expected loads of an oblivious routing (§4.1).
    Exact,
    /// The ideal-balance value z* itself (§4.3): the closed form on translation-invariant
    /// patterns, or a bracket narrower than [`CONVERGED`] (its lower end is reported).
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
    /// Θ = (k/8)/γ_max (§1); an upper bound on throughput for the ideal-balance kinds.
    /// `None` when unavailable or when no channel carries anything.
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

    /// A γ_max of 0 (every node sends to itself, as transpose does on a ring) leaves Θ and λ_sat
    /// unbounded: `None`, with a note.
    fn from_gamma(s: &Scenario, kind: BoundKind, model: &'static str, gamma_max: f64, note: String) -> Bound {
        let moves = gamma_max > 0.0;
        Bound {
            kind,
            model,
            fraction_of_capacity: moves.then(|| fraction_of_capacity(s.k, gamma_max)),
            gamma_max: Some(gamma_max),
            saturation_rate: moves.then(|| 1.0 / (s.len as f64 * gamma_max)),
            gamma_bracket: None,
            note: if moves { note } else { format!("{note}; no packet crosses a channel, so nothing saturates") },
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

/// Θ = (k/8)/γ_max (§1).
pub fn fraction_of_capacity(k: u32, gamma_max: f64) -> f64 {
    k as f64 / 8.0 / gamma_max
}

/// γ_c of an oblivious routing at 1 packet/node/cycle, by channel id (§3, §4.1).
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

/// The ideal balance of `family` on `pattern` (§4.3), with at most `max_rounds`
/// Frank–Wolfe rounds (fewer if [`FRANK_WOLFE_BUDGET`] says so).
pub fn ideal_balance(s: &Scenario, torus: &Torus, pattern: &Pattern, family: Family, max_rounds: usize) -> Bound {
    let lat = Lattice::new(torus);
    let model = match family {
        Family::Goal => "goal",
        Family::Minimal => "min",
    };
    if let Some(offsets) = invariant_offsets(&lat, torus, pattern) {
        let loads = lat.class_loads(&offsets, family.invariant_rule());
        let note = "ideal balance (the least busiest-channel load of any routing of the family), exact: on a \
                    translation-invariant pattern every channel of a direction class carries that class's hops / N"
            .to_string();
        return Bound::from_loads(s, BoundKind::IdealBalance, model, loads, note);
    }
    let flows = ideal::flows(&lat, torus, pattern, family);
    let cut = ideal::cut_bound(&lat, &flows);
    let per_round = ideal::round_cost(&lat, &flows).max(1.0);
    let rounds = max_rounds.min((FRANK_WOLFE_BUDGET / per_round) as usize);
    if rounds < MIN_FRANK_WOLFE_ROUNDS.min(max_rounds) {
        let note = format!(
            "ring-cut bound only (the busiest ring cut's traffic over its channels): {rounds} Frank–Wolfe \
             rounds fit the budget at this size"
        );
        return Bound::from_gamma(s, BoundKind::CutBound, model, cut, note);
    }
    let bracket = ideal::frank_wolfe(&lat, &flows, rounds, cut);
    let lower = bracket.lower;
    let converged = bracket.upper - lower <= CONVERGED * bracket.upper;
    let kind = if converged { BoundKind::IdealBalance } else { BoundKind::Bracket };
    let note = format!(
        "ideal balance (the least busiest-channel load of any routing of the family) in [{lower:.4}, {:.4}] \
         (ring cut {cut:.4}, Frank–Wolfe {rounds} rounds); Θ is taken from the lower end",
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
    if s.has_faults() {
        return Bound::unavailable(model, "the channel-load bounds assume every link works; none is computed with faults".into());
    }
    let pattern = match Pattern::new(s, &torus) {
        Ok(p) => p,
        Err(e) => return Bound::unavailable(model, e.to_string()),
    };
    if let Pattern::HotSpot { p_hot, .. } = pattern {
        if !(0.0..=1.0).contains(&p_hot) {
            let note = format!(
                "traffic=hotspot needs at least 25 nodes: on {} the hot-spot probability would be {p_hot:.3}",
                torus.nodes()
            );
            return Bound::unavailable(model, note);
        }
    }
    if let Some(routing) = Oblivious::of(s.routing) {
        return match oblivious::pattern_loads(&torus, routing, &pattern) {
            Ok(loads) => {
                let note = format!("exact expected loads of {}: every route weighted by its probability", s.routing);
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
             (Singh et al. 2003 find CHAOS close to MIN AD on adversarial traffic). {}",
            b.note
        );
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::{worst_case, worst_case_permutation};
    use crate::scenario::TrafficKind;

    const UR: TrafficKind = TrafficKind::Uniform;
    const NN: TrafficKind = TrafficKind::Neighbor;
    const BC: TrafficKind = TrafficKind::Bitcomp;
    const TP: TrafficKind = TrafficKind::Transpose;
    const TOR: TrafficKind = TrafficKind::Tornado;
    const DIA: TrafficKind = TrafficKind::Diagonal;
    const WC: TrafficKind = TrafficKind::Worstcase;
    const PATTERNS: [TrafficKind; 7] = [UR, NN, BC, TP, TOR, DIA, WC];

    fn scenario(k: u32, n: u32, routing: RoutingKind, traffic: TrafficKind) -> Scenario {
        Scenario { k, n, routing, traffic, len: 32, ..Scenario::default() }
    }

    fn loads_of(k: u32, routing: Oblivious, traffic: TrafficKind) -> Vec<f64> {
        let torus = Torus::new(k, 2);
        let pattern = Pattern::new(&scenario(k, 2, RoutingKind::Dor, traffic), &torus).unwrap();
        oblivious_channel_loads(&torus, routing, &pattern).unwrap()
    }

    fn max(loads: &[f64]) -> f64 {
        loads.iter().cloned().fold(0.0, f64::max)
    }

    /// §2's UR includes the source; the product's excludes it, which scales every UR load
    /// by N/(N − 1) (§2), except VAL's: its two phases are uniform whatever the pattern.
    fn source_excluded(k: u32, routing: RoutingKind, traffic: TrafficKind) -> f64 {
        let n = (k * k) as f64;
        if traffic == UR && routing != RoutingKind::Val { n / (n - 1.0) } else { 1.0 }
    }

    /// Checks a row of γ_max against §5 (tolerance `tol`, absolute), and Θ = (k/8)/γ_max
    /// against its 4-decimal table (UR Θ scaled back to the spec's source-included UR).
    fn check_row(k: u32, routing: RoutingKind, gammas: [Option<f64>; 7], thetas: [Option<f64>; 7], tol: f64) {
        for (i, traffic) in PATTERNS.into_iter().enumerate() {
            let b = bound(&scenario(k, 2, routing, traffic));
            let what = format!("k={k} {routing} {traffic}: {b:?}");
            match gammas[i] {
                Some(gamma) => {
                    let got = b.gamma_max.expect(&what);
                    let scale = source_excluded(k, routing, traffic);
                    assert!((got - gamma * scale).abs() <= tol, "{what}: γ_max {got} vs {gamma}");
                    let theta = b.fraction_of_capacity.unwrap() * scale;
                    assert!((theta - thetas[i].unwrap()).abs() < 5e-5 + tol, "{what}: Θ {theta} vs {:?}", thetas[i]);
                }
                None => assert_eq!(b.kind, BoundKind::Unavailable, "{what}"),
            }
        }
    }

    const EXACT: f64 = 1e-9;

    #[test]
    fn table_8x8_oblivious() {
        // §5, columns UR NN BC TP TOR DIA WC.
        let s = Some;
        check_row(8, RoutingKind::Dor, [s(1.0), s(0.25), s(2.0), s(3.5), s(3.0), s(2.0), s(3.5)],
            [s(1.0), s(4.0), s(0.5), s(0.2857), s(0.3333), s(0.5), s(0.2857)], EXACT);
        check_row(8, RoutingKind::Val, [s(2.0); 7], [s(0.5); 7], EXACT);
        check_row(8, RoutingKind::Romm, [s(1.0), s(0.25), s(2.5), s(1369.0 / 600.0), s(3.0), s(2.0), s(4.8)],
            [s(1.0), s(4.0), s(0.4), s(0.4383), s(0.3333), s(0.5), s(0.2083)], EXACT);
        check_row(8, RoutingKind::Rlb,
            [s(21.0 / 16.0), s(7.0 / 16.0), s(19.0 / 8.0), s(25071.0 / 17920.0), s(15.0 / 8.0), s(2.0), s(57297.0 / 17920.0)],
            [s(0.7619), s(2.2857), s(0.4211), s(0.7148), s(0.5333), s(0.5), s(0.3128)], EXACT);
    }

    #[test]
    fn table_8x8_ideal_balance() {
        let s = Some;
        check_row(8, RoutingKind::Goal, [s(1.3125), s(0.4375), s(2.0), s(1.3125), s(1.875), s(2.0), None],
            [s(0.7619), s(2.2857), s(0.5), s(0.7619), s(0.5333), s(0.5), None], EXACT);
        // MIN on TP is the LP value 1.5 (Θ 0.6667), reached within the Frank–Wolfe bracket.
        check_row(8, RoutingKind::Minad, [s(1.0), s(0.25), s(2.0), s(1.5), s(3.0), s(2.0), None],
            [s(1.0), s(4.0), s(0.5), s(0.6667), s(0.3333), s(0.5), None], 1e-3);
        let tp = bound(&scenario(8, 2, RoutingKind::Minad, TP));
        for routing in [RoutingKind::Duato, RoutingKind::Nbc, RoutingKind::Adaptive] {
            assert_eq!(bound(&scenario(8, 2, routing, TP)), tp, "{routing}");
        }
        let [lower, upper] = tp.gamma_bracket.unwrap();
        assert!(lower <= 1.5 && 1.5 <= upper && upper - lower < 5e-3, "{tp:?}");
        assert_eq!(tp.kind, BoundKind::IdealBalance);
        assert_eq!(bound(&scenario(8, 2, RoutingKind::Goal, TP)).kind, BoundKind::IdealBalance);
    }

    #[test]
    fn dor_plus_row() {
        // §5 and §7: ties always + give 0.8 on UR and 0.25 on TP, DIA and WC.
        let plus = Oblivious::Dor(TieRule::Plus);
        let expected = [(UR, 1.25), (NN, 0.25), (BC, 2.0), (TP, 4.0), (TOR, 3.0), (DIA, 4.0)];
        for (traffic, gamma) in expected {
            let got = max(&loads_of(8, plus, traffic));
            assert!((got - gamma * source_excluded(8, RoutingKind::Dor, traffic)).abs() < EXACT, "{traffic}: {got}");
        }
        assert!((worst_case(&Torus::new(8, 2), plus).1 - 4.0).abs() < EXACT);
        let ur = max(&loads_of(8, plus, UR)) / source_excluded(8, RoutingKind::Dor, UR);
        assert!((fraction_of_capacity(8, ur) - 0.8).abs() < EXACT);
    }

    #[test]
    fn table_16x16() {
        // §8 (no worst case at this size). GOAL on BC and TP: the cut bounds; MIN on BC
        // and TP: the LP values 0.5 and 0.5714 (γ_max 3.5), bracketed by Frank–Wolfe.
        let s = Some;
        let thetas = |t: [f64; 6]| [s(t[0]), s(t[1]), s(t[2]), s(t[3]), s(t[4]), s(t[5])];
        let rows: [(RoutingKind, [Option<f64>; 6], f64); 6] = [
            (RoutingKind::Dor, thetas([1.0, 8.0, 0.5, 0.2667, 0.2857, 0.5]), EXACT),
            (RoutingKind::Val, thetas([0.5; 6]), EXACT),
            (RoutingKind::Romm, thetas([1.0, 8.0, 0.3243, 0.4395, 0.2857, 0.5]), EXACT),
            (RoutingKind::Rlb, thetas([0.7529, 4.2667, 0.3454, 0.7166, 0.5079, 0.5]), EXACT),
            (RoutingKind::Goal, thetas([0.7529, 4.2667, 0.5, 0.7529, 0.5079, 0.5]), EXACT),
            (RoutingKind::Minad, thetas([1.0, 8.0, 0.5, 0.5714, 0.2857, 0.5]), 1e-3),
        ];
        for (routing, theta, tol) in rows {
            for (i, traffic) in PATTERNS[..6].iter().enumerate() {
                let b = bound(&scenario(16, 2, routing, *traffic));
                let got = b.fraction_of_capacity.unwrap() * source_excluded(16, routing, *traffic);
                assert!((got - theta[i].unwrap()).abs() < 5e-5 + tol, "{routing} {traffic}: Θ {got} vs {:?} ({b:?})", theta[i]);
                if routing == RoutingKind::Minad && *traffic == TP {
                    let [lower, upper] = b.gamma_bracket.unwrap();
                    assert!(lower <= 3.5 && 3.5 <= upper, "{b:?}");
                }
            }
        }
        // γ_max = 7.5 for DOR on TP; DOR+ gives 0.8889, 0.25 and 0.25 on UR, TP and DIA.
        assert!((max(&loads_of(16, Oblivious::Dor(TieRule::Split), TP)) - 7.5).abs() < EXACT);
        let plus = Oblivious::Dor(TieRule::Plus);
        assert!((fraction_of_capacity(16, max(&loads_of(16, plus, UR)) * 255.0 / 256.0) - 0.8889).abs() < 5e-5);
        assert!((fraction_of_capacity(16, max(&loads_of(16, plus, TP))) - 0.25).abs() < EXACT);
        assert!((fraction_of_capacity(16, max(&loads_of(16, plus, DIA))) - 0.25).abs() < EXACT);
    }

    #[test]
    fn dor_transpose_channel_loads() {
        // §5: the +x channel leaving (x, 0) carries 0, 0, 0, 0, 0.5, 1.5, 2.5, 3.5;
        // row y is that list shifted right by y; 3.5 is reached on 32 channels, 8 per direction.
        let torus = Torus::new(8, 2);
        let loads = loads_of(8, Oblivious::Dor(TieRule::Split), TP);
        let row0 = [0.0, 0.0, 0.0, 0.0, 0.5, 1.5, 2.5, 3.5];
        for y in 0..8 {
            for x in 0..8 {
                let c = torus.channel(torus.node_at(&[x, y]), 0) as usize;
                assert_eq!(loads[c], row0[((x + 8 - y) % 8) as usize], "({x}, {y})");
            }
        }
        let busiest: Vec<usize> = (0..loads.len()).filter(|&c| loads[c] == 3.5).collect();
        assert_eq!(busiest.len(), 32);
        for port in 0..4 {
            assert_eq!(busiest.iter().filter(|&&c| c % 4 == port).count(), 8);
        }
    }

    #[test]
    fn romm_bitcomp_and_rlb_tornado_channel_loads() {
        let torus = Torus::new(8, 2);
        let romm = loads_of(8, Oblivious::Romm, BC);
        let outer = [1.375, 0.0, 1.125, 2.5, 1.375, 0.0, 1.125, 2.5];
        let inner = [0.625, 0.0, 0.875, 1.5, 0.625, 0.0, 0.875, 1.5];
        for y in 0..8 {
            let expected = if [0, 3, 4, 7].contains(&y) { outer } else { inner };
            for x in 0..8 {
                let c = torus.channel(torus.node_at(&[x, y]), 0) as usize;
                assert!((romm[c] - expected[x as usize]).abs() < EXACT, "ROMM BC ({x}, {y}): {}", romm[c]);
            }
        }
        let rlb = loads_of(8, Oblivious::Rlb, TOR);
        for (c, load) in rlb.iter().enumerate() {
            let expected = if c % 4 < 2 { 1.875 } else { 0.0 };
            assert!((load - expected).abs() < EXACT, "RLB TOR channel {c}: {load}");
        }
    }

    #[test]
    fn total_load_is_nodes_times_mean_hops() {
        // §4.1, k = 8 with the source-included UR: DOR 256, RLB 336 (5.25 hops), VAL 512.
        // The product's UR (source excluded) has N/(N − 1) times DOR's and RLB's totals; VAL's two
        // uniform phases do not depend on the pattern.
        let total = |routing, traffic| loads_of(8, routing, traffic).iter().sum::<f64>();
        assert!((total(Oblivious::Dor(TieRule::Split), UR) - 256.0 * 64.0 / 63.0).abs() < 1e-9);
        assert!((total(Oblivious::Romm, UR) - 256.0 * 64.0 / 63.0).abs() < 1e-9);
        assert!((total(Oblivious::Rlb, UR) - 336.0 * 64.0 / 63.0).abs() < 1e-9);
        assert!((total(Oblivious::Val, UR) - 512.0).abs() < 1e-9);
        // TP: (x, y) → (y, x) moves D = ring distance of y − x in both dimensions, so minimal
        // routings total 8 · 2 Σ_o D(o) = 256 and RLB 8 · Σ_o 4 D(o)(8 − D(o))/8 = 336.
        assert!((total(Oblivious::Dor(TieRule::Split), TP) - 256.0).abs() < 1e-9);
        assert!((total(Oblivious::Romm, TP) - 256.0).abs() < 1e-9);
        assert!((total(Oblivious::Rlb, TP) - 336.0).abs() < 1e-9);
    }

    #[test]
    fn ideal_balance_bounds_its_family() {
        // RLB routes in GOAL's family and DOR and ROMM in MIN's, so the ideal balance, a lower
        // bound on any member's γ_max, can only give a higher Θ.
        let patterns = [UR, NN, BC, TP, TOR, DIA, TrafficKind::Permutation, TrafficKind::Hotspot, TrafficKind::Bitrev, TrafficKind::Shuffle];
        for traffic in patterns {
            let theta = |routing| bound(&scenario(8, 2, routing, traffic)).fraction_of_capacity.unwrap();
            let goal = theta(RoutingKind::Goal);
            let min = theta(RoutingKind::Minad);
            assert!(goal >= theta(RoutingKind::Rlb) - 1e-12, "{traffic}");
            assert!(min >= theta(RoutingKind::Dor) - 1e-12 && min >= theta(RoutingKind::Romm) - 1e-12, "{traffic}");
        }
    }

    #[test]
    fn claim_1_nothing_beats_one_half_on_diagonal() {
        for k in [8, 16] {
            for routing in RoutingKind::ALL.iter().copied() {
                let b = bound(&scenario(k, 2, routing, DIA));
                assert!(b.fraction_of_capacity.unwrap() <= 0.5 + 1e-12, "k={k} {routing}: {b:?}");
            }
        }
    }

    #[test]
    fn claim_2_valiant_loads_every_channel_at_k_over_4() {
        for k in [4, 6, 8] {
            let torus = Torus::new(k, 2);
            for traffic in [UR, NN, BC, TP, TOR, DIA, TrafficKind::Permutation, WC, TrafficKind::Bitrev, TrafficKind::Shuffle] {
                if matches!(traffic, TrafficKind::Bitrev | TrafficKind::Shuffle) && !k.is_power_of_two() {
                    continue;
                }
                let s = scenario(k, 2, RoutingKind::Val, traffic);
                let loads = channel_loads(&torus, RoutingKind::Val, &Pattern::new(&s, &torus).unwrap()).unwrap();
                assert!(loads.iter().all(|l| (l - k as f64 / 4.0).abs() < 1e-9), "k={k} {traffic}");
                assert!((bound(&s).fraction_of_capacity.unwrap() - 0.5).abs() < 1e-12);
            }
        }
        // Hot spot is not admissible: VAL falls below 0.5 (seed 004 §5.6).
        assert!(bound(&scenario(8, 2, RoutingKind::Val, TrafficKind::Hotspot)).fraction_of_capacity.unwrap() < 0.5);
    }

    #[test]
    fn claim_3_minimal_routing_on_tornado() {
        // Θ ≤ (k/8)/(k/2 − 1): 1/3 at k = 8, 2/7 at k = 16, reached by DOR, ROMM and the MIN bound.
        for k in [6, 8, 12, 16] {
            let expected = (k as f64 / 8.0) / (k as f64 / 2.0 - 1.0);
            for routing in [RoutingKind::Dor, RoutingKind::Romm, RoutingKind::Minad] {
                let got = bound(&scenario(k, 2, routing, TOR)).fraction_of_capacity.unwrap();
                assert!((got - expected).abs() < 1e-12, "k={k} {routing}: {got} vs {expected}");
            }
        }
        assert!((fraction_of_capacity(8, 3.0) - 1.0 / 3.0).abs() < 1e-15);
        assert!((fraction_of_capacity(16, 7.0) - 2.0 / 7.0).abs() < 1e-15);
    }

    #[test]
    fn worst_case_permutation_is_a_permutation_with_the_wc_load() {
        let torus = Torus::new(8, 2);
        let wc_column = [
            (RoutingKind::Dor, 3.5),
            (RoutingKind::Romm, 4.8),
            (RoutingKind::Rlb, 57297.0 / 17920.0),
            (RoutingKind::Val, 2.0),
        ];
        for (routing, gamma) in wc_column {
            let permutation = worst_case_permutation(&torus, routing).unwrap();
            let mut sorted = permutation.clone();
            sorted.sort();
            assert_eq!(sorted, (0..64).collect::<Vec<_>>(), "{routing}");
            let loads = channel_loads(&torus, routing, &Pattern::Fixed(permutation)).unwrap();
            assert!((max(&loads) - gamma).abs() < EXACT, "{routing}: {}", max(&loads));
        }
    }

    #[test]
    fn worst_case_refuses_adaptive_routings_and_large_tori() {
        let torus = Torus::new(8, 2);
        for routing in [RoutingKind::Goal, RoutingKind::Minad, RoutingKind::Chaos] {
            let e = worst_case_permutation(&torus, routing).unwrap_err();
            assert_eq!(e.key, "traffic");
        }
        let e = worst_case_permutation(&Torus::new(17, 2), RoutingKind::Dor).unwrap_err();
        assert_eq!(e.key, "traffic");
        assert!(e.message.contains("256") && e.message.contains("289"), "{}", e.message);
        let b = bound(&scenario(8, 2, RoutingKind::Goal, WC));
        assert_eq!(b.kind, BoundKind::Unavailable);
        assert!(b.note.contains("traffic"), "{}", b.note);
    }

    #[test]
    fn saturation_rate_and_serialisation() {
        // §1: DOR, source-included UR, 8×8, M = 32: λ_sat = 1/32. The product's UR: 63/2048.
        let b = bound(&scenario(8, 2, RoutingKind::Dor, UR));
        assert!((b.saturation_rate.unwrap() - 63.0 / 64.0 / 32.0).abs() < 1e-15);
        assert!((b.saturation_rate.unwrap() - b.fraction_of_capacity.unwrap() * (8.0 / 8.0) / 32.0).abs() < 1e-15);
        assert_eq!(b.loads.len(), 256);
        let json = serde_json::to_string(&b).unwrap();
        for field in ["\"kind\":\"exact\"", "\"model\":\"dor\"", "fraction_of_capacity", "gamma_max", "saturation_rate"] {
            assert!(json.contains(field), "{json}");
        }
        assert!(!json.contains("\"loads\""), "{json}");
        let chaos = bound(&scenario(8, 2, RoutingKind::Chaos, TOR));
        assert_eq!(chaos.kind, BoundKind::MinimalReference);
        assert_eq!(chaos.model, "min");
        assert!((chaos.fraction_of_capacity.unwrap() - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn one_and_three_dimensions() {
        // A ring: tornado moves k/2 − 1 = 3 hops +; diagonal is a tie split both ways.
        assert_eq!(bound(&scenario(8, 1, RoutingKind::Dor, TOR)).gamma_max, Some(3.0));
        assert_eq!(bound(&scenario(8, 1, RoutingKind::Dor, DIA)).gamma_max, Some(2.0));
        // 4-ary 3-cube, diagonal: every packet takes 6 hops, 384 hops over 384 channels → Θ = 0.5
        // for every routing that balances them.
        for routing in [RoutingKind::Dor, RoutingKind::Rlb, RoutingKind::Goal, RoutingKind::Minad, RoutingKind::Val] {
            let b = bound(&scenario(4, 3, routing, DIA));
            assert!((b.fraction_of_capacity.unwrap() - 0.5).abs() < 1e-12, "{routing}: {b:?}");
        }
        // Duato, NBC, the seed 002 adaptive routing and CHAOS share MIN AD's bound.
        use RoutingKind::{Dor, Goal, Minad, Rlb, Romm, Val};
        let routings = [Dor, Val, Romm, Rlb, Goal, Minad];
        for routing in routings {
            // A traffic matrix comes from a file (tests/traffic.rs bounds one).
            for traffic in TrafficKind::ALL.iter().copied().filter(|&t| t != TrafficKind::Matrix) {
                for (k, n) in [(5, 1), (2, 2), (4, 3), (3, 3)] {
                    let b = bound(&scenario(k, n, routing, traffic));
                    let what = format!("k={k} n={n} {routing} {traffic}: {b:?}");
                    let available = b.kind != BoundKind::Unavailable;
                    let too_small_for_hot_spots = k.pow(n) < 25 && traffic == TrafficKind::Hotspot;
                    let not_on_bits = matches!(traffic, TrafficKind::Bitrev | TrafficKind::Shuffle) && !k.is_power_of_two();
                    assert_eq!(available, (routing.is_oblivious() || traffic != WC) && !too_small_for_hot_spots && !not_on_bits, "{what}");
                    // Transpose on a ring, and tornado (x + ⌊k/2⌋ − 1) at k = 2 and 3, send every
                    // node to itself; only VAL still routes such packets, through its intermediate.
                    let idle = ((n == 1 && traffic == TP) || (k / 2 == 1 && traffic == TOR)) && routing != RoutingKind::Val;
                    assert_eq!(b.fraction_of_capacity.is_some(), available && !idle, "{what}");
                    if let Some(theta) = b.fraction_of_capacity {
                        assert!(theta.is_finite() && theta > 0.0, "{what}");
                    }
                }
            }
        }
    }

    /// The bounds read a pattern's rows whole, so the hot-spot options reach them: with no
    /// traffic to the hot nodes the hot spot is its bit-complement background.
    #[test]
    fn the_hot_spot_options_reach_the_bound() {
        let with = |text: &str| bound(&Scenario::parse(text).unwrap()).fraction_of_capacity.unwrap();
        for routing in ["dor", "minad", "val"] {
            let background = with(&format!("k=8&routing={routing}&traffic=bitcomp"));
            assert!((with(&format!("k=8&routing={routing}&traffic=hotspot&hotfrac=0")) - background).abs() < 1e-12, "{routing}");
            let seed004 = with(&format!("k=8&routing={routing}&traffic=hotspot"));
            let two_hot = with(&format!("k=8&routing={routing}&traffic=hotspot&hot=9,40&hotfrac=0.5"));
            assert!(two_hot < seed004 && seed004 <= background + 1e-12, "{routing}: {two_hot} {seed004} {background}");
        }
    }
}
