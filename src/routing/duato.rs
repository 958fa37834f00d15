//! Duato's fully adaptive minimal routing (seed 003, after Duato 1993): V − 2 adaptive VCs on
//! which a message may take any productive direction of its minimal quadrant, plus 2 escape VCs
//! run by dimension-order routing with a dateline. The escape subnetwork is deadlock-free and
//! reachable from every state, so the whole is (Duato's theorem). Adaptive VCs are preferred;
//! among free adaptive ports the router picks the least occupied; the escape VC is the last
//! resort.
//!
//! `routing=duato&vcs=V`, V ≥ 3.

use super::{dimension_order_hop, escape_pair_classes, minimal_directions, Candidates, RoutePlan, Routing, VcClass, VcSets, EJECT};
use crate::rng::Draw;
use crate::topology::{Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct Duato {
    pub sets: VcSets,
}

/// Adaptive candidates on every productive port of the quadrant, at `priority`.
#[inline(always)]
pub(super) fn productive_ports(t: &Torus, at: Node, plan: &RoutePlan, vcs: u32, priority: u8, out: &mut Candidates) {
    // Hops are left in a dimension exactly when the coordinates differ there: one byte each.
    let mut differ = u32::from_le_bytes(t.coordinates_of(at)) ^ u32::from_le_bytes(t.coordinates_of(plan.target));
    while differ != 0 {
        let d = differ.trailing_zeros() / 8;
        differ &= !(0xff << (8 * d));
        out.push(plan.direction(d).port(d), vcs, priority);
    }
}

impl Routing for Duato {
    fn vc_classes(&self, _vcs: u32, _n: u32) -> Vec<VcClass> {
        escape_pair_classes(&self.sets, "escape", "adaptive")
    }

    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        RoutePlan::towards(t, src, dest, dest, minimal_directions(t, src, dest, rng), 0)
    }

    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        match dimension_order_hop(t, at, plan) {
            Some((port, wrapped)) => {
                productive_ports(t, at, plan, self.sets.adaptive(), 0, out);
                out.push(port, self.sets.escape(wrapped), 1);
            }
            None => out.push(EJECT, 0, 0),
        }
    }

    fn atomic_vcs(&self) -> u32 {
        self.sets.adaptive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};
    use crate::routing::Candidate;

    #[test]
    fn adaptive_ports_first_then_the_escape_hop() {
        let t = Torus::new(8, 2);
        let r = Duato { sets: VcSets { vcs: 4 } };
        let mut rng = Rng::new(1, Stream::Routing);
        // (7,0) → (1,6): + x across the wrap, − y across the wrap.
        let (src, dest) = (t.node_at(&[7, 0]), t.node_at(&[1, 6]));
        let mut plan = r.plan(&t, src, dest, &mut rng);
        let mut c = Candidates::default();
        r.candidates(&t, src, &mut plan, &mut c);
        assert_eq!(
            c.as_slice(),
            &[
                Candidate { port: 0, vcs: 0b1100, priority: 0 },
                Candidate { port: 3, vcs: 0b1100, priority: 0 },
                Candidate { port: 0, vcs: 0b0001, priority: 1 },
            ]
        );
        // After the x wrap the escape hop is on the dateline class 1.
        c.clear();
        r.candidates(&t, t.node_at(&[0, 0]), &mut plan, &mut c);
        assert_eq!(c.as_slice()[2], Candidate { port: 0, vcs: 0b0010, priority: 1 });
    }
}
