//! Exact channel loads of the oblivious routings DOR, VAL, ROMM and RLB (`docs/models/bounds.md`
//! §3, §4.1, §9.4): every (source, destination, quadrant, intermediate, dimension order) with its
//! probability.

use super::lattice::{invariant_offsets, Lattice, LoadAccumulator, Move, Moves, QuadrantRule, TieRule, MAX_DIMS};
use crate::scenario::RoutingKind;
use crate::topology::{Node, Torus};
use crate::traffic::Pattern;

/// Most path runs an enumeration may add (about a second of work). Translation-invariant
/// patterns never enumerate, so this only limits BC, TP, random permutations, hot spot and the
/// worst case on large tori.
pub const ENUMERATION_BUDGET: f64 = 5e7;

/// An oblivious routing algorithm as §3 defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Oblivious {
    /// Dimension order, dimension 0 first, each in the shortest direction.
    Dor(TieRule),
    /// Valiant: DOR to a uniformly random node, then DOR to the destination.
    Val,
    /// Two-phase ROMM: DOR (dimension 0 first) to a uniform node of the minimal quadrant, then on.
    Romm,
    /// RLB: a quadrant weighted (k − D)/k short and D/k long per dimension, a uniform node of it,
    /// each phase in a uniformly random dimension order.
    Rlb,
}

impl Oblivious {
    /// The product's oblivious algorithms; `None` for the adaptive ones.
    pub fn of(kind: RoutingKind) -> Option<Oblivious> {
        match kind {
            RoutingKind::Dor => Some(Oblivious::Dor(TieRule::Split)),
            RoutingKind::Val => Some(Oblivious::Val),
            RoutingKind::Romm => Some(Oblivious::Romm),
            RoutingKind::Rlb => Some(Oblivious::Rlb),
            _ => None,
        }
    }

    fn quadrant_rule(self) -> QuadrantRule {
        match self {
            Oblivious::Dor(ties) => QuadrantRule::Minimal(ties),
            Oblivious::Val | Oblivious::Romm => QuadrantRule::Minimal(TieRule::Split),
            Oblivious::Rlb => QuadrantRule::Balanced,
        }
    }
}

/// The orders a routing's phases use, each equally likely.
fn phase_orders(lat: &Lattice, routing: Oblivious) -> Vec<Vec<usize>> {
    match routing {
        Oblivious::Rlb => lat.dimension_orders(),
        _ => vec![(0..lat.n).collect()],
    }
}

/// Adds the expected loads of `weight` packets/cycle from `s` to `d` (§4.1).
pub fn route_pair(
    lat: &Lattice,
    routing: Oblivious,
    orders: &[Vec<usize>],
    s: Node,
    d: Node,
    weight: f64,
    acc: &mut LoadAccumulator,
) {
    match routing {
        Oblivious::Dor(_) => {
            for (quadrant, p) in lat.quadrants(s, d, routing.quadrant_rule()) {
                acc.leg(s, &quadrant, &orders[0], weight * p);
            }
        }
        Oblivious::Val => {
            let share = weight / lat.nodes as f64;
            for q in 0..lat.nodes {
                route_pair(lat, Oblivious::Dor(TieRule::Split), orders, s, q, share, acc);
                route_pair(lat, Oblivious::Dor(TieRule::Split), orders, q, d, share, acc);
            }
        }
        Oblivious::Romm | Oblivious::Rlb => {
            for (quadrant, p) in lat.quadrants(s, d, routing.quadrant_rule()) {
                via_quadrant_nodes(lat, orders, s, &quadrant, weight * p, acc);
            }
        }
    }
}

/// Two phases through a uniformly drawn node q of the quadrant's box (both ends included), each
/// phase monotone in the quadrant's directions and in an order drawn from `orders`.
fn via_quadrant_nodes(lat: &Lattice, orders: &[Vec<usize>], s: Node, quadrant: &Moves, weight: f64, acc: &mut LoadAccumulator) {
    let sides: Vec<u32> = (0..lat.n).map(|d| quadrant[d].hops + 1).collect();
    let boxed: u32 = sides.iter().product();
    let share = weight / boxed as f64 / orders.len() as f64;
    let mut to_q = [Move::default(); MAX_DIMS];
    let mut from_q = [Move::default(); MAX_DIMS];
    for index in 0..boxed {
        let mut rest = index;
        for d in 0..lat.n {
            let a = rest % sides[d];
            rest /= sides[d];
            to_q[d] = Move { plus: quadrant[d].plus, hops: a };
            from_q[d] = Move { plus: quadrant[d].plus, hops: quadrant[d].hops - a };
        }
        let q = lat.walk(s, &to_q);
        for order in orders {
            acc.leg(s, &to_q, order, share);
            acc.leg(q, &from_q, order, share);
        }
    }
}

/// Most path runs of one DOR route: n, doubled by each tie.
fn dor_runs(lat: &Lattice) -> f64 {
    ((1 << lat.n) * lat.n) as f64
}

/// Path runs [`route_pair`] adds for one pair: the enumeration's cost.
fn pair_cost(lat: &Lattice, routing: Oblivious, orders: usize, s: Node, d: Node) -> f64 {
    let quadrants = lat.quadrants(s, d, routing.quadrant_rule());
    match routing {
        Oblivious::Dor(_) => (quadrants.len() * lat.n) as f64,
        Oblivious::Val => 2.0 * lat.nodes as f64 * dor_runs(lat),
        Oblivious::Romm | Oblivious::Rlb => quadrants
            .iter()
            .map(|(q, _)| (0..lat.n).map(|d| (q[d].hops + 1) as f64).product::<f64>() * (2 * orders * lat.n) as f64)
            .sum(),
    }
}

/// γ_c for every channel at 1 packet/node/cycle (§1, §4.1), by channel id.
///
/// Translation-invariant patterns use the per-class closed form of [`Lattice::class_loads`] and
/// work at any size. VAL uses its two phases: phase 1 is uniform traffic whatever the pattern,
/// and phase 2 is uniform when every column of Λ sums to the same value (Claim 2). Anything else
/// is enumerated pair by pair, up to [`ENUMERATION_BUDGET`] path runs.
pub fn pattern_loads(torus: &Torus, routing: Oblivious, pattern: &Pattern) -> Result<Vec<f64>, String> {
    let lat = Lattice::new(torus);
    if routing == Oblivious::Val {
        return valiant_loads(&lat, torus, pattern);
    }
    if let Some(offsets) = invariant_offsets(&lat, torus, pattern) {
        return Ok(lat.class_loads(&offsets, routing.quadrant_rule()));
    }
    let orders = phase_orders(&lat, routing);
    let pairs: Vec<(Node, Node, f64)> =
        (0..lat.nodes).flat_map(|s| pattern.row(torus, s).into_iter().map(move |(d, w)| (s, d, w))).collect();
    let cost: f64 = pairs.iter().map(|&(s, d, _)| pair_cost(&lat, routing, orders.len(), s, d)).sum();
    check_budget(cost, torus)?;
    let mut acc = LoadAccumulator::new(&lat);
    for (s, d, w) in pairs {
        route_pair(&lat, routing, &orders, s, d, w, &mut acc);
    }
    Ok(acc.finish())
}

fn check_budget(cost: f64, torus: &Torus) -> Result<(), String> {
    if cost > ENUMERATION_BUDGET {
        return Err(format!(
            "exact loads on this {}-node torus need about {cost:.1e} path runs; the limit is {ENUMERATION_BUDGET:.0e} \
             (translation-invariant patterns have no limit)",
            torus.nodes()
        ));
    }
    Ok(())
}

/// VAL by phases: each source's unit of traffic goes to a uniform q (uniform traffic, source
/// included), and each destination d receives its column sum col_d from uniform q. Columns equal
/// to the smallest one, c_min, make uniform traffic too; only the excess col_d − c_min (the five
/// hot spots, say) is enumerated.
fn valiant_loads(lat: &Lattice, torus: &Torus, pattern: &Pattern) -> Result<Vec<f64>, String> {
    let dor = Oblivious::Dor(TieRule::Split);
    let everywhere: Vec<(Node, f64)> = (0..lat.nodes).map(|o| (o, 1.0 / lat.nodes as f64)).collect();
    let uniform = lat.class_loads(&everywhere, dor.quadrant_rule());
    // A translation-invariant pattern's columns sum to 1 like its rows; skipping the column sums
    // keeps uniform traffic O(N).
    let column = match invariant_offsets(lat, torus, pattern) {
        Some(_) => vec![1.0; lat.nodes as usize],
        None => {
            let mut column = vec![0.0; lat.nodes as usize];
            for s in 0..lat.nodes {
                for (d, w) in pattern.row(torus, s) {
                    column[d as usize] += w;
                }
            }
            column
        }
    };
    let smallest = column.iter().cloned().fold(f64::INFINITY, f64::min);
    let excess: Vec<(Node, f64)> = column
        .iter()
        .enumerate()
        .filter(|(_, &c)| c - smallest > 1e-12 * smallest.abs().max(1.0))
        .map(|(d, &c)| (d as Node, c - smallest))
        .collect();
    check_budget(excess.len() as f64 * lat.nodes as f64 * dor_runs(lat), torus)?;
    let orders = phase_orders(lat, dor);
    let mut acc = LoadAccumulator::new(lat);
    for (d, c) in excess {
        for q in 0..lat.nodes {
            route_pair(lat, dor, &orders, q, d, c / lat.nodes as f64, &mut acc);
        }
    }
    Ok(acc.finish().iter().zip(&uniform).map(|(second, first)| second + first * (1.0 + smallest)).collect())
}

/// K_o for every offset node o: the loads of one packet/cycle from node 0 to o (§4.2).
/// By translation invariance a flow s → d loads channel (u, p) by K_{d−s}(u − s, p).
pub fn unit_flow_kernels(torus: &Torus, routing: Oblivious) -> Vec<Vec<f64>> {
    let lat = Lattice::new(torus);
    let orders = phase_orders(&lat, routing);
    (0..lat.nodes)
        .map(|o| {
            let mut acc = LoadAccumulator::new(&lat);
            route_pair(&lat, routing, &orders, 0, o, 1.0, &mut acc);
            acc.finish()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, TrafficKind};

    fn pattern(torus: &Torus, traffic: TrafficKind) -> Pattern {
        let s = Scenario { k: torus.k, n: torus.n, traffic, ..Scenario::default() };
        Pattern::new(&s, torus).unwrap()
    }

    fn enumerated(torus: &Torus, routing: Oblivious, pattern: &Pattern) -> Vec<f64> {
        let lat = Lattice::new(torus);
        let orders = phase_orders(&lat, routing);
        let mut acc = LoadAccumulator::new(&lat);
        for s in 0..lat.nodes {
            for (d, w) in pattern.row(torus, s) {
                route_pair(&lat, routing, &orders, s, d, w, &mut acc);
            }
        }
        acc.finish()
    }

    fn assert_close(a: &[f64], b: &[f64], what: &str) {
        assert_eq!(a.len(), b.len());
        for (c, (x, y)) in a.iter().zip(b).enumerate() {
            assert!((x - y).abs() < 1e-9, "{what}: channel {c}: {x} vs {y}");
        }
    }

    #[test]
    fn closed_forms_equal_the_enumeration() {
        // The per-class closed form (translation-invariant patterns) and VAL's two phases must
        // reproduce the pair-by-pair enumeration, on even and odd k and in one to three dimensions.
        use Oblivious::{Dor, Rlb, Romm, Val};
        let routings = [Dor(TieRule::Split), Dor(TieRule::Plus), Romm, Rlb, Val];
        for (k, n) in [(6, 1), (4, 2), (5, 2), (3, 3)] {
            let torus = Torus::new(k, n);
            use TrafficKind::{Bitcomp, Diagonal, Neighbor, Tornado, Uniform};
            for traffic in [Uniform, Neighbor, Tornado, Diagonal, Bitcomp] {
                let p = pattern(&torus, traffic);
                for routing in routings {
                    let what = format!("k={k} n={n} {traffic} {routing:?}");
                    assert_close(&pattern_loads(&torus, routing, &p).unwrap(), &enumerated(&torus, routing, &p), &what);
                }
            }
        }
        // Hot spot is not admissible (five columns sum to 5): VAL's second phase is not uniform.
        let torus = Torus::new(8, 2);
        let p = pattern(&torus, TrafficKind::Hotspot);
        let loads = pattern_loads(&torus, Oblivious::Val, &p).unwrap();
        assert_close(&loads, &enumerated(&torus, Oblivious::Val, &p), "8x8 hotspot VAL");
        assert!(loads.iter().cloned().fold(0.0, f64::max) > 2.0 + 1e-6);
    }

    #[test]
    fn kernels_are_unit_flows_of_the_path_length() {
        // Σ_c K_o(c) is the expected hop count from 0 to o: minimal for DOR and ROMM, and
        // Σ_d 2 D_d (k − D_d)/k for RLB (§4.1).
        let torus = Torus::new(8, 2);
        let lat = Lattice::new(&torus);
        for routing in [Oblivious::Dor(TieRule::Split), Oblivious::Romm, Oblivious::Rlb] {
            for (o, kernel) in unit_flow_kernels(&torus, routing).iter().enumerate() {
                let total: f64 = kernel.iter().sum();
                let expected: f64 = (0..2)
                    .map(|d| {
                        let off = lat.offset(0, o as Node, d);
                        let dist = off.min(8 - off) as f64;
                        if routing == Oblivious::Rlb { 2.0 * dist * (8.0 - dist) / 8.0 } else { dist }
                    })
                    .sum();
                assert!((total - expected).abs() < 1e-9, "{routing:?} o={o}: {total} vs {expected}");
            }
        }
    }

    #[test]
    fn enumeration_budget_is_enforced() {
        let torus = Torus::new(128, 2);
        let err = pattern_loads(&torus, Oblivious::Rlb, &pattern(&torus, TrafficKind::Bitcomp)).unwrap_err();
        assert!(err.contains("limit"), "{err}");
        // Translation-invariant patterns stay available at the largest sizes.
        let loads = pattern_loads(&torus, Oblivious::Rlb, &pattern(&torus, TrafficKind::Tornado)).unwrap();
        assert_eq!(loads.len(), 128 * 128 * 4);
    }
}
