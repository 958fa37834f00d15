//! Valiant's algorithm (VAL; seed 004 Table 1 and Claim 2): route to an intermediate node q drawn
//! uniformly from all N nodes (the source and destination included), then to the destination.
//! Each phase is dimension-order routing, x first, in the minimal directions, a tie of exactly
//! k/2 broken at random (both phases' directions are drawn at generation). Every channel then
//! carries k/4 packets per cycle at one packet per node per cycle under any admissible traffic:
//! half the capacity, on every pattern.
//!
//! Virtual channels (Table 1: "2 subnetworks (for each phase) of 2 VCs each"): phase p uses
//! the dateline pair `group(2p + wrapped, 4)`. Within a phase this is DOR with datelines, whose
//! channel dependencies are acyclic; a message moves from the phase-0 subnetwork to the phase-1
//! subnetwork and never back, so no cycle spans both.
//!
//! `routing=val&vcs=4` (more VCs are split evenly among the four classes).

use super::{dateline_classes, dimension_order_hop, minimal_directions, Candidates, RoutePlan, Routing, VcClass, VcSets, EJECT};
use crate::rng::Draw;
use crate::topology::{Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct Valiant {
    pub sets: VcSets,
}

/// The next hop of a two-phase plan whose phases are dimension-order routes, each on its own
/// dateline pair; at the intermediate node the plan switches to phase 1 (which may leave it
/// with nothing to do, when the intermediate node is the destination). Shared with
/// [`super::romm`].
pub(super) fn two_phase_dimension_order(sets: &VcSets, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
    if plan.phase == 0 && at == plan.target {
        plan.begin_second_phase(t, at);
    }
    match dimension_order_hop(t, at, plan) {
        Some((port, wrapped)) => out.push(port, sets.group(2 * plan.phase as u32 + wrapped as u32, 4), 0),
        None => out.push(EJECT, 0, 0),
    }
}

impl Routing for Valiant {
    fn vc_classes(&self, _vcs: u32, _n: u32) -> Vec<VcClass> {
        dateline_classes(&self.sets, 2)
    }

    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        let via = rng.below(t.nodes());
        let minus = minimal_directions(t, src, via, rng);
        let next_minus = minimal_directions(t, via, dest, rng);
        RoutePlan::via(t, src, via, dest, minus, next_minus)
    }

    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        two_phase_dimension_order(&self.sets, t, at, plan, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};
    use crate::routing::follow;

    fn hops(t: &Torus, r: &Valiant, src: Node, plan: RoutePlan) -> Vec<(Node, u32, u32)> {
        follow(t, r, src, plan, |c| c[0]).into_iter().map(|(at, c)| (at, c.port, c.vcs)).collect()
    }

    #[test]
    fn two_dimension_order_phases_on_their_own_dateline_pairs() {
        let t = Torus::new(8, 2);
        let r = Valiant { sets: VcSets { vcs: 4 } };
        // (6,0) → q = (1,1) → (1,7): phase 0 + x across the wrap (VC 0, then VC 1 from x = 0),
        // + y; phase 1 − y across the wrap from y = 1 (VC 2 on both hops, 1 → 0 → 7).
        let (src, via, dest) = (t.node_at(&[6, 0]), t.node_at(&[1, 1]), t.node_at(&[1, 7]));
        let plan = RoutePlan::via(&t, src, via, dest, 0b00, 0b10);
        let at = |x, y| t.node_at(&[x, y]);
        assert_eq!(
            hops(&t, &r, src, plan),
            vec![(at(6, 0), 0, 1), (at(7, 0), 0, 1), (at(0, 0), 0, 2), (at(1, 0), 2, 1), (at(1, 1), 3, 4), (at(1, 0), 3, 4)]
        );
    }

    #[test]
    fn an_intermediate_node_at_either_end_still_arrives() {
        let t = Torus::new(8, 2);
        let r = Valiant { sets: VcSets { vcs: 4 } };
        let (src, dest) = (t.node_at(&[2, 2]), t.node_at(&[4, 3]));
        for via in [src, dest] {
            let plan = RoutePlan::via(&t, src, via, dest, 0, 0);
            let path = hops(&t, &r, src, plan);
            assert_eq!(path.len(), 3);
            // Via the source the whole route is phase 1 (VCs 2, 3); via the destination, phase 0.
            let phase_vcs = if via == src { 0b1100 } else { 0b0011 };
            assert!(path.iter().all(|&(_, _, vcs)| vcs & phase_vcs == vcs), "{path:?}");
        }
        // Source, intermediate and destination all one node: ejected at once.
        assert!(hops(&t, &r, src, RoutePlan::via(&t, src, src, src, 0, 0)).is_empty());
    }

    #[test]
    fn uniform_traffic_doubles_the_hop_count() {
        // From a source to a uniform q among all 64 nodes: 256/64 = 4 hops; from q to a
        // destination independent of it: q − dest is uniform too, 4 more. 8 in all, against
        // 256/63 ≈ 4.06 minimal.
        let t = Torus::new(8, 2);
        let r = Valiant { sets: VcSets { vcs: 4 } };
        let mut rng = Rng::new(9, Stream::Routing);
        let trials = 100_000;
        let mut total = 0;
        for _ in 0..trials {
            let src = rng.below(64);
            let dest = (src + 1 + rng.below(63)) % 64;
            let plan = r.plan(&t, src, dest, &mut rng);
            let path = hops(&t, &r, src, plan);
            // Each phase is minimal.
            let split = path.iter().position(|&(_, _, vcs)| vcs >= 0b100).unwrap_or(path.len());
            assert_eq!(split as u32, t.distance(src, plan.target));
            total += path.len();
        }
        let mean = total as f64 / trials as f64;
        assert!((mean - 8.0).abs() < 0.03, "{mean}");
    }
}
