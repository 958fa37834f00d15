//! Dimension-order routing (DOR) on the torus, deadlock-free with two dateline VCs
//! (Dally & Seitz): route the lowest dimension with hops left first, in its minimal direction
//! (a tie of exactly k/2 broken at random once per message). Within a dimension a message uses
//! VC class 0 until it has crossed the wrap-around link, class 1 after; the class resets when it
//! turns into the next dimension. Seed 004 Table 1, "DOR".
//!
//! `routing=dor&vcs=2` (more VCs are split evenly between the two classes).

use super::{dateline_classes, dimension_order_hop, minimal_directions, Candidates, RoutePlan, Routing, VcClass, VcSets, EJECT};
use crate::rng::Draw;
use crate::topology::{Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct Dor {
    pub sets: VcSets,
    /// The VC set of each dateline class (before, after), computed once.
    classes: [u32; 2],
}

impl Dor {
    pub fn new(sets: VcSets) -> Dor {
        Dor { sets, classes: [sets.group(0, 2), sets.group(1, 2)] }
    }
}

impl Routing for Dor {
    fn vc_classes(&self, _vcs: u32, _n: u32) -> Vec<VcClass> {
        dateline_classes(&self.sets, 1)
    }

    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        RoutePlan::towards(t, src, dest, dest, minimal_directions(t, src, dest, rng), 0)
    }

    #[inline(always)]
    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        match dimension_order_hop(t, at, plan) {
            Some((port, wrapped)) => out.push(port, self.classes[wrapped as usize], 0),
            None => out.push(EJECT, 0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};

    /// Follows the first candidate from src until ejection; returns (ports, VC masks).
    fn walk(t: &Torus, r: &Dor, src: Node, dest: Node) -> Vec<(u32, u32)> {
        let mut rng = Rng::new(1, Stream::Routing);
        let mut plan = r.plan(t, src, dest, &mut rng);
        let mut at = src;
        let mut hops = vec![];
        let mut c = Candidates::default();
        loop {
            c.clear();
            r.candidates(t, at, &mut plan, &mut c);
            let first = c.as_slice()[0];
            if first.port == EJECT {
                return hops;
            }
            hops.push((first.port, first.vcs));
            at = t.neighbour(at, first.port);
        }
    }

    #[test]
    fn x_then_y_with_dateline_classes() {
        let t = Torus::new(8, 2);
        let r = Dor::new(VcSets { vcs: 2 });
        // (6,1) → (1,7): x offset 3 goes + across the wrap 7→0; y offset 6 goes − (2 hops).
        let hops = walk(&t, &r, t.node_at(&[6, 1]), t.node_at(&[1, 7]));
        // + x from 6 (VC0), from 7 across the wrap (still VC0), from 0 (VC1); then − y from 1
        // (VC0), from 0 across the wrap (VC0).
        assert_eq!(hops, vec![(0, 1), (0, 1), (0, 2), (3, 1), (3, 1)]);
    }

    #[test]
    fn paths_are_minimal_everywhere() {
        let t = Torus::new(5, 2);
        let r = Dor::new(VcSets { vcs: 2 });
        for s in 0..t.nodes() {
            for d in 0..t.nodes() {
                assert_eq!(walk(&t, &r, s, d).len() as u32, t.distance(s, d));
            }
        }
    }
}
