//! GOAL, Globally Oblivious Adaptive Locally (seed 004 §4, Table 1). Globally oblivious: at
//! generation each dimension's direction is drawn to balance load — the short direction with
//! probability (k − Δ)/k, the long one with probability Δ/k ([`balanced_directions`]), which
//! fixes the message's quadrant. Locally adaptive: at each hop any productive dimension of that
//! quadrant may be taken, and the router's selection picks the one with the shortest output
//! queue. Paths may be non-minimal: up to k − 1 hops in a dimension routed the long way.
//!
//! Virtual channels (seed 004 §4.1, the *-channels of Linder & Harden / Dally extended to
//! non-minimal quadrants): VC 2 and up are the non-* VCs, fully adaptive and reallocated only
//! once empty (Duato's condition). VCs 0 and 1 are the *-channels *0 and *1, usable only in the
//! lowest productive dimension (dimension order), *1 once the message has crossed the
//! wrap-around edge of that dimension. Each dimension is travelled monotonically for fewer than
//! k hops, so it crosses its wrap-around edge at most once and the *-channel subnetwork is
//! dimension-order routing with datelines: acyclic, and always offered. The candidates are those
//! of [`super::minad`]; only the quadrant differs.
//!
//! `routing=goal&vcs=3` (VCs above 3 are added to the non-* set).

use super::minad::star_channel_candidates;
use super::{balanced_directions, escape_pair_classes, Candidates, RoutePlan, Routing, VcClass, VcSets};
use crate::rng::Draw;
use crate::topology::{Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct Goal {
    pub sets: VcSets,
}

impl Routing for Goal {
    fn vc_classes(&self, _vcs: u32, _n: u32) -> Vec<VcClass> {
        escape_pair_classes(&self.sets, "*-channel", "non-* (adaptive)")
    }

    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        RoutePlan::towards(t, src, dest, dest, balanced_directions(t, src, dest, rng), 0)
    }

    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        star_channel_candidates(&self.sets, t, at, plan, out);
    }

    fn atomic_vcs(&self) -> u32 {
        self.sets.adaptive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};
    use crate::routing::{follow, Candidate};
    use crate::topology::{port_dim, port_direction};

    #[test]
    fn long_quadrants_offer_every_productive_port_and_the_star_channel() {
        let t = Torus::new(8, 2);
        let r = Goal { sets: VcSets { vcs: 3 } };
        // (0,0) → (2,3) through the quadrant (−x, +y): 6 hops − x across the wrap, 3 hops + y.
        let dest = t.node_at(&[2, 3]);
        let mut plan = RoutePlan::towards(&t, 0, dest, dest, 0b01, 0);
        let mut c = Candidates::default();
        r.candidates(&t, 0, &mut plan, &mut c);
        assert_eq!(
            c.as_slice(),
            &[
                Candidate { port: 1, vcs: 0b100, priority: 0 },
                Candidate { port: 2, vcs: 0b100, priority: 0 },
                Candidate { port: 1, vcs: 0b001, priority: 0 },
            ]
        );
        // At (7,0), across the x wrap: the *-channel of x is *1.
        c.clear();
        r.candidates(&t, t.node_at(&[7, 0]), &mut plan, &mut c);
        assert_eq!(c.as_slice()[2], Candidate { port: 1, vcs: 0b010, priority: 0 });
        // At (2,0) only y is productive; its *-channel starts again at *0.
        c.clear();
        r.candidates(&t, t.node_at(&[2, 0]), &mut plan, &mut c);
        assert_eq!(c.as_slice(), &[Candidate { port: 2, vcs: 0b100, priority: 0 }, Candidate { port: 2, vcs: 0b001, priority: 0 }]);
    }

    #[test]
    fn any_adaptive_path_stays_in_the_quadrant_with_its_hop_counts() {
        let t = Torus::new(6, 3);
        let r = Goal { sets: VcSets { vcs: 3 } };
        let mut rng = Rng::new(5, Stream::Routing);
        let mut pick = Rng::new(6, Stream::Traffic);
        for _ in 0..3000 {
            let (src, dest) = (rng.below(t.nodes()), rng.below(t.nodes()));
            let plan = r.plan(&t, src, dest, &mut rng);
            let hops = follow(&t, &r, src, plan, |c| c[pick.below(c.len() as u32) as usize]);
            for d in 0..t.n {
                let along: Vec<_> = hops.iter().filter(|(_, c)| port_dim(c.port) == d).collect();
                assert!(along.iter().all(|(_, c)| port_direction(c.port) == plan.direction(d)), "left the quadrant");
                assert_eq!(along.len() as u32, t.hops_in_direction(src, dest, d, plan.direction(d)));
                assert!(along.len() < t.k as usize);
            }
        }
    }

    #[test]
    fn uniform_traffic_takes_the_balanced_mean_hop_count() {
        // docs/models/bounds.md §4.1: RLB's quadrants give 336 hops from each 8×8 node to all 64
        // nodes, so 336/63 to the 63 others.
        let t = Torus::new(8, 2);
        let r = Goal { sets: VcSets { vcs: 3 } };
        let mut rng = Rng::new(7, Stream::Routing);
        let trials = 100_000;
        let mut total = 0;
        for _ in 0..trials {
            let src = rng.below(64);
            let dest = (src + 1 + rng.below(63)) % 64;
            let plan = r.plan(&t, src, dest, &mut rng);
            total += follow(&t, &r, src, plan, |c| c[0]).len();
        }
        let mean = total as f64 / trials as f64;
        assert!((mean - 336.0 / 63.0).abs() < 0.02, "{mean}");
    }
}
