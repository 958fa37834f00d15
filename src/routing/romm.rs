//! Two-phase ROMM (seed 004 Table 1, after Nesson & Johnsson; `docs/models/bounds.md` §3):
//! route to an intermediate node q drawn uniformly from the minimal quadrant — the
//! (D_x + 1) × (D_y + 1) box of nodes spanned by source and destination, both included — then
//! to the destination.
//! A tie (offset exactly k/2) first picks its direction ½–½, then q in that direction's box.
//! Both phases travel in the quadrant's directions by dimension-order routing, x first, so the
//! path is always minimal.
//!
//! Virtual channels as [`super::val`] (Table 1: "the same scheme as in VAL"): a dateline pair
//! per phase, `group(2p + wrapped, 4)`.
//!
//! `routing=romm&vcs=4`.

use super::val::two_phase_dimension_order;
use super::{dateline_classes, minimal_directions, Candidates, RoutePlan, Routing, VcClass, VcSets};
use crate::rng::Draw;
use crate::topology::{Direction, Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct Romm {
    pub sets: VcSets,
}

/// A node drawn uniformly from the box a route from `src` to `dest` along `minus` spans: in
/// each dimension, 0 to all of its hops along the chosen direction. Shared with [`super::rlb`].
pub(super) fn node_in_quadrant(t: &Torus, src: Node, dest: Node, minus: u8, rng: &mut impl Draw) -> Node {
    let mut via = src;
    for d in 0..t.n {
        let x = t.coordinate(src, d);
        let moved = if minus >> d & 1 == 1 {
            x + t.k - rng.below(t.hops_in_direction(src, dest, d, Direction::Minus) + 1)
        } else {
            x + rng.below(t.hops_in_direction(src, dest, d, Direction::Plus) + 1)
        };
        via = t.with_coordinate(via, d, moved);
    }
    via
}

impl Routing for Romm {
    /// The dateline pairs of [`super::val`], one per phase.
    fn vc_classes(&self, _vcs: u32, _n: u32) -> Vec<VcClass> {
        dateline_classes(&self.sets, 2)
    }

    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        let minus = minimal_directions(t, src, dest, rng);
        let via = node_in_quadrant(t, src, dest, minus, rng);
        RoutePlan::via(t, src, via, dest, minus, minus)
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
    use std::collections::HashMap;

    #[test]
    fn intermediate_nodes_fill_the_minimal_box_uniformly() {
        let t = Torus::new(8, 2);
        let r = Romm { sets: VcSets { vcs: 4 } };
        let mut rng = Rng::new(4, Stream::Routing);
        // (6,1) → (1,7): D = (3, 2) in directions (+x, −y); q ∈ {6,7,0,1} × {1,0,7}, 12 nodes.
        let (src, dest) = (t.node_at(&[6, 1]), t.node_at(&[1, 7]));
        let mut seen = HashMap::new();
        for _ in 0..12_000 {
            let plan = r.plan(&t, src, dest, &mut rng);
            assert_eq!((plan.minus, plan.next_minus), (0b10, 0b10));
            *seen.entry(t.coordinates(plan.target)).or_insert(0) += 1;
        }
        let mut boxed: Vec<_> = seen.keys().cloned().collect();
        boxed.sort();
        let mut expected: Vec<Vec<u32>> = [6, 7, 0, 1].iter().flat_map(|&x| [1, 0, 7].map(|y| vec![x, y])).collect();
        expected.sort();
        assert_eq!(boxed, expected);
        assert!(seen.values().all(|&c| (850..1150).contains(&c)), "{seen:?}");
        // A tie (offset 4 in x) uses both directions' boxes: q's x spans the whole ring.
        let xs: std::collections::HashSet<u32> =
            (0..2000).map(|_| t.coordinate(r.plan(&t, 0, t.node_at(&[4, 0]), &mut rng).target, 0)).collect();
        assert_eq!(xs.len(), 8);
    }

    #[test]
    fn every_path_is_minimal_in_one_two_and_three_dimensions() {
        let mut rng = Rng::new(8, Stream::Routing);
        for (k, n) in [(7, 1), (8, 2), (5, 2), (4, 3)] {
            let t = Torus::new(k, n);
            let r = Romm { sets: VcSets { vcs: 4 } };
            for src in 0..t.nodes() {
                for dest in 0..t.nodes() {
                    let plan = r.plan(&t, src, dest, &mut rng);
                    let path = follow(&t, &r, src, plan, |c| c[0]);
                    assert_eq!(path.len() as u32, t.distance(src, dest), "{:?} → {:?}", t.coordinates(src), t.coordinates(dest));
                }
            }
        }
    }
}
