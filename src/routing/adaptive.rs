//! Minimal fully adaptive routing with a fixed dimension preference (seed 002: Quaglia et al.,
//! "Analysis of minimal fully adaptive wormhole routing in two-dimensional tori", Parallel
//! Computing 28 (2002) §2): the header moves along X towards the destination's column; if the
//! X channel is busy it tries Y; if both are busy it waits for whichever is released first (here
//! the header retries every candidate each cycle, so it takes the first VC that frees). A message
//! with no offset left in X uses Y only. In n dimensions the lower dimension is preferred.
//!
//! Deadlock avoidance. The paper's model has no virtual channels; its validation simulator had
//! four per physical channel and the paper does not say how they are used. It cites "at least
//! three virtual channels to guarantee deadlock-freedom" on a 2-D torus, which is exactly
//! Duato's requirement there (one adaptive VC plus the two dateline VCs of dimension-order
//! routing). So with four VCs we use Duato's scheme as in [`super::duato`]: VCs 2 and 3 are
//! fully adaptive (reallocated only once empty), VCs 0 and 1 are the dateline escape VCs of
//! dimension-order routing, the last resort. Only the order of preference differs from
//! `routing=duato`: X before Y by priority, where Duato's selection takes the less loaded port.
//!
//! `routing=adaptive&vcs=4` (3 is the minimum; every VC from 2 up is adaptive).

use super::{dimension_order_hop, escape_pair_classes, minimal_directions, Candidates, RoutePlan, Routing, VcClass, VcSets, EJECT};
use crate::rng::Draw;
use crate::topology::{Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct Adaptive {
    pub sets: VcSets,
}

impl Routing for Adaptive {
    fn vc_classes(&self, _vcs: u32, _n: u32) -> Vec<VcClass> {
        escape_pair_classes(&self.sets, "escape", "adaptive")
    }

    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        RoutePlan::towards(t, src, dest, dest, minimal_directions(t, src, dest, rng), 0)
    }

    /// Productive dimension `d` at priority `d` (X first), then the escape hop after all of them.
    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        match dimension_order_hop(t, at, plan) {
            Some((escape_port, wrapped)) => {
                for d in 0..t.n {
                    if plan.remaining(t, at, d) > 0 {
                        out.push(plan.direction(d).port(d), self.sets.adaptive(), d as u8);
                    }
                }
                out.push(escape_port, self.sets.escape(wrapped), t.n as u8);
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

    fn candidates_at(t: &Torus, r: &Adaptive, at: Node, plan: &mut RoutePlan) -> Vec<Candidate> {
        let mut c = Candidates::default();
        r.candidates(t, at, plan, &mut c);
        c.as_slice().to_vec()
    }

    #[test]
    fn x_first_then_y_then_the_escape_hop() {
        let t = Torus::new(8, 2);
        let r = Adaptive { sets: VcSets { vcs: 4 } };
        let mut rng = Rng::new(1, Stream::Routing);
        // (7,0) → (1,6): + x across the wrap, − y across the wrap.
        let (src, dest) = (t.node_at(&[7, 0]), t.node_at(&[1, 6]));
        let mut plan = r.plan(&t, src, dest, &mut rng);
        assert_eq!(
            candidates_at(&t, &r, src, &mut plan),
            [
                Candidate { port: 0, vcs: 0b1100, priority: 0 },
                Candidate { port: 3, vcs: 0b1100, priority: 1 },
                Candidate { port: 0, vcs: 0b0001, priority: 2 },
            ]
        );
        // Having taken Y first, at (7,7): X still preferred; the escape hop is still X (class 0).
        assert_eq!(candidates_at(&t, &r, t.node_at(&[7, 7]), &mut plan)[0], Candidate { port: 0, vcs: 0b1100, priority: 0 });
        // In the destination's column only Y is left, and the escape hop is Y on class 1 once
        // the y wrap (0 → 7) has been crossed.
        assert_eq!(
            candidates_at(&t, &r, t.node_at(&[1, 7]), &mut plan),
            [Candidate { port: 3, vcs: 0b1100, priority: 1 }, Candidate { port: 3, vcs: 0b0010, priority: 2 }]
        );
        assert_eq!(candidates_at(&t, &r, dest, &mut plan), [Candidate { port: EJECT, vcs: 0, priority: 0 }]);
    }

    #[test]
    fn unhindered_messages_follow_dimension_order() {
        // Taking the first candidate everywhere (what an idle network does) is X then Y.
        let t = Torus::new(5, 2);
        let r = Adaptive { sets: VcSets { vcs: 4 } };
        let mut rng = Rng::new(1, Stream::Routing);
        let (src, dest) = (t.node_at(&[1, 1]), t.node_at(&[3, 0]));
        let mut plan = r.plan(&t, src, dest, &mut rng);
        let mut at = src;
        let mut ports = vec![];
        loop {
            let first = candidates_at(&t, &r, at, &mut plan)[0];
            if first.port == EJECT {
                break;
            }
            ports.push(first.port);
            at = t.neighbour(at, first.port);
        }
        assert_eq!(ports, [0, 0, 3]);
    }
}
